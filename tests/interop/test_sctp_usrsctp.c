/* zq's SCTP association against usrsctp 0.9.5, the SCTP of Firefox, libdatachannel and
 * Chrome before dcSCTP, in one process over a lossy in-memory link (sctp_link.h). usrsctp is
 * driven as browsers drive it (usrsctp_side.c); the loop runs in real time, since usrsctp
 * keeps its own timer thread. Both directions, zq sending and zq receiving:
 *
 *   handshakes: zq connects, usrsctp connects, both at once (INIT collision), usrsctp with
 *     AUTH/ASCONF/ECN on, and both at once at 30% loss;
 *   10 MB ordered and intact, 16 KiB zq buffers, at 0% and 5% loss; unordered messages;
 *   partial reliability (no retransmissions) at 20% loss, ordered and unordered, and a
 *     message abandoned after its first fragment went out (forced by a packet filter);
 *   messages of 1 B to 256 KiB, and 256 KiB through a 16 KiB buffer with sctp_send_part();
 *   a receiver that stops reading (zero window) and resumes; stream reset either way and
 *     both at once; abort either way, idle and under load; graceful shutdown either way.
 *
 * Every message carries a pattern derived from its number (its first 4 bytes are the number,
 * where the receiver needs it to tell messages apart), and the receiver checks every byte,
 * the piece flags, the order, and a CRC of the stream against the sender's.
 *
 * zq's internals are read only to describe a failure (where each side stopped) and to see
 * when the forced scenario has closed zq's view of the peer's window.
 *
 *   test_sctp_usrsctp [case-name-substring]
 *   LINK_TRACE=file   one decoded line per packet (chunks, TSNs, SACK gaps), both ways
 *   LINK_DUMP=file    usrsctp_dumppacket's text2pcap lines of every packet
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sctp_link.h"
#include "zq/crypto.h"

#define KIB 1024
#define MTU 1200
#define PPID_BINARY 53

static uint8_t zq_send_buf[320 * KIB];
static uint8_t zq_recv_buf[16 * KIB];
static link_peer_t zq;
static link_peer_t us;
static link_t L;

static int failures;
static int passes;
static uint64_t case_started; /* for the time each case took */
static us_stats_t us_before;  /* usrsctp's counters when the case began */
static const char *only;

/* ---- Set-up ---------------------------------------------------------------------------------- */

static us_options_t us_options(void)
{
    us_options_t o;
    memset(&o, 0, sizeof o);
    o.streams = 1024;
    /* usrsctp's AF_CONN path MTU counts from after the 12-byte common header (Chrome set it
     * to its MTU minus sizeof(struct sctp_common_header) for that reason): 1188 makes its
     * packets 1200 bytes, zq's cfg.mtu. Its default is 1280. */
    o.mtu = MTU - 12;
    o.port = 5000;
    /* zq's timers (sctp_config_default), not usrsctp's RFC 4960 ones (3 s initial, 1 s
     * minimum): otherwise a lost retransmission costs usrsctp a second, and 5% loss makes
     * the test slow without testing anything more. libdatachannel lowers them likewise. */
    o.rto_initial_ms = 500;
    o.rto_min_ms = 250;
    o.rto_max_ms = 10000;
    o.sndbuf = 1024 * KIB; /* a 256 KiB message must fit whole (non-blocking sendv) */
    o.browser_sysctls = true;
    return o;
}

/* zq is peer[0], usrsctp peer[1]; who connects is the case's choice. */
static bool begin(double loss, uint64_t seed, bool zq_connects, bool us_connects, size_t send_cap,
                  size_t recv_cap)
{
    case_started = link_now_ms();
    us_stats(&us_before);
    us_options_t o = us_options();
    link_peer_zq(&zq, "zq", zq_send_buf, send_cap, zq_recv_buf, recv_cap, MTU, seed);
    link_peer_usrsctp(&us, "usrsctp", &o);
    link_init(&L, &zq, &us, loss, seed);
    L.tap = true;
    const bool connect[2] = {zq_connects, us_connects};
    return link_start(&L, connect);
}

static bool connect_both(double loss, uint64_t seed, size_t send_cap, size_t recv_cap)
{
    return begin(loss, seed, true, true, send_cap, recv_cap) &&
           link_run(&L, link_established, NULL, 20000);
}

static void end(void)
{
    link_close(&L);
}

static bool selected(const char *name)
{
    return only == NULL || strstr(name, only) != NULL;
}

static void report(bool ok, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void report(bool ok, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s %-56s %5.1f s  ", ok ? "PASS" : "FAIL", name,
           (double)(link_now_ms() - case_started) / 1000.0);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
    if (ok) {
        passes++;
    } else {
        failures++;
    }
}

/* Packet counts; on a failure also both sides' state, to tell where it stopped. */
static const char *link_counts_if(bool ok)
{
    static char text[600];
    int n = snprintf(text, sizeof text, "packets zq->us %lu (%lu lost), us->zq %lu (%lu lost)",
                     L.sent[0], L.lost[0], L.sent[1], L.lost[1]);
    if (!ok && n > 0 && (size_t)n < sizeof text) {
        char us_state[200];
        const sctp_assoc_t *a = &zq.assoc;
        us_describe(&us.us, us_state, sizeof us_state);
        snprintf(text + n, sizeof text - (size_t)n,
                 "\n     zq: state %d, flight %u, cwnd %u, peer rwnd %u, rto %u, out used %u, "
                 "in used %u, waiting %u, read queue %u, cum ack %u, next tsn %u, peer cum %u"
                 "\n     usrsctp: %s",
                 (int)a->state, a->flight, a->cwnd, a->peer_rwnd, a->rto, a->out.used,
                 a->in.used, a->n_waiting, a->rq_count, a->cum_ack_tsn, a->next_tsn,
                 a->peer_cum_tsn, us_state);
    }
    return text;
}

/* What usrsctp's loss recovery did during the case. */
static const char *us_recovery(void)
{
    static char text[160];
    us_stats_t now;
    us_stats(&now);
    snprintf(text, sizeof text, "usrsctp: %lu retransmitted, %lu fast, %lu T3, %lu window probes",
             now.retransmitted_chunks - us_before.retransmitted_chunks,
             now.fast_retransmits - us_before.fast_retransmits,
             now.t3_timeouts - us_before.t3_timeouts,
             now.window_probes - us_before.window_probes);
    return text;
}

/* ---- Messages and their checks --------------------------------------------------------------- */

static uint8_t pattern_byte(unsigned long n, size_t i)
{
    if (i < 4) {
        return (uint8_t)(n >> (8 * i));
    }
    return (uint8_t)(n * 131 + i * 7 + (i >> 8));
}

typedef size_t (*size_fn)(unsigned long n);

typedef struct {
    /* sender */
    link_peer_t *from;
    link_peer_t *to;
    uint16_t stream;
    unsigned long count;
    size_fn size_of;
    link_send_opts_t opts;
    bool reliable_tail;   /* the last message is reliable whatever opts say */
    bool in_parts;        /* zq sends with sctp_send_part(), as much as it accepts each time */
    bool poll_parts;      /* ... offering the rest every turn instead of after WRITABLE */
    size_t part_off;      /* bytes of message `next` accepted so far */
    bool ids_in_header;   /* receiver takes the number from the first 4 bytes (sizes >= 4) */
    unsigned long next;
    unsigned long prepared; /* 1 + the number of the message msg_buf holds, 0 if none */
    uint32_t crc;
    uint64_t bytes;
    unsigned long blocked;
    bool send_error;
    /* receiver */
    unsigned long messages;
    unsigned long pieces;
    unsigned long aborted;
    unsigned long unordered_seen;
    uint64_t rx_bytes;
    uint32_t rx_crc;
    bool in_msg;
    unsigned long cur_n;
    size_t cur_len;
    unsigned long expect; /* next number, ordered */
    unsigned long errors;
    char error[200];
    uint8_t seen[(1u << 16) / 8];
} xfer_t;

static xfer_t X;
static uint8_t msg_buf[300 * KIB];

static void xfer_fail(xfer_t *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void xfer_fail(xfer_t *x, const char *fmt, ...)
{
    if (x->errors++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(x->error, sizeof x->error, fmt, ap);
        va_end(ap);
    }
}

static void xfer_init(xfer_t *x, link_peer_t *from, link_peer_t *to, uint16_t stream,
                      unsigned long count, size_fn size_of, const link_send_opts_t *opts)
{
    memset(x, 0, sizeof *x);
    x->from = from;
    x->to = to;
    x->stream = stream;
    x->count = count;
    x->size_of = size_of;
    x->opts = opts != NULL ? *opts : (link_send_opts_t){false, -1};
    x->ids_in_header = x->opts.unordered || x->opts.max_rtx >= 0;
    if (count > sizeof x->seen * 8) {
        abort();
    }
}

static int pump_xfer(link_t *l, void *ctx)
{
    (void)l;
    xfer_t *x = ctx;
    int sent = 0;
    while (x->next < x->count && !x->send_error) {
        size_t size = x->size_of(x->next);
        if (x->prepared != x->next + 1) { /* a blocked send is retried with the same bytes */
            for (size_t i = 0; i < size; i++) {
                msg_buf[i] = pattern_byte(x->next, i);
            }
            x->prepared = x->next + 1;
        }
        link_send_opts_t o = x->opts;
        if (x->reliable_tail && x->next + 1 == x->count) {
            o.max_rtx = -1;
        }
        if (x->in_parts) {
            size_t accepted;
            if (x->poll_parts) {
                x->from->zq_blocked = false;
            }
            int r = link_send_part(x->from, x->stream, PPID_BINARY, msg_buf + x->part_off,
                                   size - x->part_off, x->part_off == 0, true, &o, &accepted);
            x->part_off += accepted;
            sent += accepted > 0;
            if (r == LINK_ERROR) {
                x->send_error = true;
                break;
            }
            if (x->part_off < size) {
                x->blocked += r == LINK_BLOCKED;
                break;
            }
            x->part_off = 0;
        }
        int r = x->in_parts ? LINK_SENT
                            : link_send(x->from, x->stream, PPID_BINARY, msg_buf, size, &o);
        if (r == LINK_BLOCKED) {
            x->blocked++;
            break;
        }
        if (r != LINK_SENT) {
            x->send_error = true;
            break;
        }
        x->crc = zq_crc32_update(x->crc, msg_buf, size);
        x->bytes += size;
        x->next++;
        sent++;
    }
    return sent;
}

static void take_first(xfer_t *x, const link_piece_t *m)
{
    if (x->in_msg) {
        xfer_fail(x, "message %lu: a new message began after %zu bytes of it", x->cur_n,
                  x->cur_len);
    }
    unsigned long n = x->expect;
    if (x->ids_in_header) {
        n = m->len >= 4 ? (unsigned long)m->data[0] | (unsigned long)m->data[1] << 8 |
                              (unsigned long)m->data[2] << 16 | (unsigned long)m->data[3] << 24
                        : ~0ul;
    }
    if (n >= x->count) {
        xfer_fail(x, "a first piece of %zu bytes names message %lu of %lu", m->len, n, x->count);
        n = 0;
    } else if (!x->opts.unordered && n < x->expect) {
        xfer_fail(x, "message %lu arrived after %lu (ordered)", n, x->expect - 1);
    }
    if (m->ppid != PPID_BINARY) {
        xfer_fail(x, "message %lu: PPID %u", n, (unsigned)m->ppid);
    }
    x->in_msg = true;
    x->cur_n = n;
    x->cur_len = 0;
}

static void take_last(xfer_t *x, const link_piece_t *m)
{
    unsigned long n = x->cur_n;
    x->in_msg = false;
    if (x->cur_len != x->size_of(n)) {
        xfer_fail(x, "message %lu: %zu bytes, sent %zu", n, x->cur_len, x->size_of(n));
    }
    if (x->seen[n / 8] & (1u << (n % 8))) {
        xfer_fail(x, "message %lu delivered twice", n);
    }
    x->seen[n / 8] |= (uint8_t)(1u << (n % 8));
    if (m->unordered != x->opts.unordered) {
        xfer_fail(x, "message %lu: unordered flag %d", n, m->unordered);
    }
    x->unordered_seen += m->unordered;
    x->messages++;
    if (!x->opts.unordered) {
        x->expect = n + 1;
    }
}

static void on_piece(link_peer_t *p, const link_piece_t *m, void *ctx)
{
    (void)p;
    xfer_t *x = ctx;
    x->pieces++;
    if (m->stream != x->stream) {
        xfer_fail(x, "a piece on stream %u (expected %u)", m->stream, x->stream);
        return;
    }
    if (m->aborted) {
        x->aborted++;
        x->in_msg = false;
        return;
    }
    if (m->first) {
        take_first(x, m);
    } else if (!x->in_msg) {
        xfer_fail(x, "a piece of %zu bytes that continues no message", m->len);
        return;
    }
    for (size_t i = 0; i < m->len; i++) {
        if (m->data[i] != pattern_byte(x->cur_n, x->cur_len + i)) {
            xfer_fail(x, "message %lu: byte %zu is 0x%02x, sent 0x%02x", x->cur_n,
                      x->cur_len + i, m->data[i], pattern_byte(x->cur_n, x->cur_len + i));
            break;
        }
    }
    x->rx_crc = zq_crc32_update(x->rx_crc, m->data, m->len);
    x->rx_bytes += m->len;
    x->cur_len += m->len;
    if (m->last) {
        take_last(x, m);
    }
}

static void xfer_attach(xfer_t *x)
{
    L.pump = pump_xfer;
    L.pump_ctx = x;
    x->to->on_piece = on_piece;
    x->to->piece_ctx = x;
}

static void xfer_detach(void)
{
    L.pump = NULL;
    zq.on_piece = us.on_piece = NULL;
}

static bool all_delivered(link_t *l, void *ctx)
{
    (void)l;
    const xfer_t *x = ctx;
    return x->messages == x->count || x->send_error || x->to->lost || x->to->aborted;
}

/* Partially reliable: done once everything was sent and is acknowledged or abandoned, and
 * the reliable last message arrived. */
static bool all_settled(link_t *l, void *ctx)
{
    (void)l;
    const xfer_t *x = ctx;
    unsigned long last = x->count - 1;
    bool tail = (x->seen[last / 8] >> (last % 8)) & 1u;
    return (x->next == x->count && tail && link_all_acked(x->from)) || x->send_error ||
           x->to->lost || x->to->aborted;
}

static const char *dir_name(const link_peer_t *from)
{
    return from == &zq ? "zq -> usrsctp" : "usrsctp -> zq";
}

static link_peer_t *receiver_of(link_peer_t *from)
{
    return from == &zq ? &us : &zq;
}

/* ---- 1. Handshake ---------------------------------------------------------------------------- */

static size_t size_small(unsigned long n)
{
    return 8 + n % 200;
}

/* After a handshake: 10 messages each way prove the association carries data. */
static bool data_flows(char *why, size_t cap)
{
    for (int dir = 0; dir < 2; dir++) {
        link_peer_t *from = dir == 0 ? &zq : &us;
        xfer_init(&X, from, receiver_of(from), 1, 10, size_small, NULL);
        xfer_attach(&X);
        bool ok = link_run(&L, all_delivered, &X, 10000) && X.messages == 10 && X.errors == 0;
        xfer_detach();
        if (!ok) {
            snprintf(why, cap, "%s: %lu of 10 messages; %s", dir_name(from), X.messages,
                     X.errors ? X.error : "");
            return false;
        }
    }
    return true;
}

static void handshake(const char *name, bool zq_connects, bool us_connects, bool browser,
                      double loss, uint64_t seed)
{
    if (!selected(name)) {
        return;
    }
    us_set_browser_sysctls(browser);
    uint64_t t0 = link_now_ms();
    bool ok = begin(loss, seed, zq_connects, us_connects, 64 * KIB, 16 * KIB) &&
              link_run(&L, link_established, NULL, 30000);
    uint64_t t1 = link_now_ms();
    char why[300] = "";
    if (!ok) {
        snprintf(why, sizeof why, "not established: zq state %d, usrsctp %s",
                 (int)sctp_state(&zq.assoc), us.connected ? "up" : "down");
    } else {
        ok = data_flows(why, sizeof why);
    }
    const us_note_t *up = link_saw_us(&us, US_NOTE_COMM_UP);
    report(ok, name,
           "%s%sin %llu ms; INIT zq->us %lu, us->zq %lu; COOKIE ECHO %lu/%lu; usrsctp streams "
           "in/out %u/%u; zq peer PR %d, RECONFIG %d; %s",
           why, *why ? "; " : "", (unsigned long long)(t1 - t0), L.chunks[0][1], L.chunks[1][1],
           L.chunks[0][10], L.chunks[1][10], up ? up->in_streams : 0, up ? up->out_streams : 0,
           zq.assoc.peer_forward_tsn, zq.assoc.peer_reconfig, link_counts_if(ok));
    if (ok && zq_connects && us_connects && loss == 0 &&
        (L.chunks[0][1] == 0 || L.chunks[1][1] == 0)) {
        report(false, name, "both were to send INIT: no collision happened");
    }
    end();
    us_set_browser_sysctls(true);
}

/* ---- 2, 3, 5, 8. Transfers ------------------------------------------------------------------- */

static size_t size_mixed(unsigned long n)
{
    return 1 + (n * 7919) % 8000; /* 1..8000 bytes, 4 KB on average */
}

static bool run_transfer(const char *name, link_peer_t *from, uint16_t stream,
                         unsigned long count, size_fn size_of, const link_send_opts_t *opts,
                         uint32_t timeout_ms, double *mbps)
{
    xfer_init(&X, from, receiver_of(from), stream, count, size_of, opts);
    xfer_attach(&X);
    uint64_t t0 = link_now_ms();
    bool done = link_run(&L, all_delivered, &X, timeout_ms);
    /* the receiver has it all; the sender still waits for the last SACK */
    if (done) {
        link_run(&L, NULL, NULL, 0);
    }
    uint64_t ms = link_now_ms() - t0;
    xfer_detach();
    *mbps = ms > 0 ? (double)X.rx_bytes / 1e3 / (double)ms : 0;
    (void)name;
    return done && X.messages == count && X.errors == 0 && !X.send_error;
}

static void bulk_10mb(const char *name, link_peer_t *(*pick)(void), double loss, uint64_t seed)
{
    if (!selected(name)) {
        return;
    }
    /* The embedded default: 16 KiB each way, so the window and WRITABLE paths work too. */
    if (!connect_both(loss, seed, 16 * KIB, 16 * KIB)) {
        report(false, name, "not established");
        end();
        return;
    }
    link_peer_t *from = pick();
    unsigned long count = 0;
    for (uint64_t total = 0; total < 10000000u; count++) {
        total += size_mixed(count);
    }
    double mbps;
    bool ok = run_transfer(name, from, 1, count, size_mixed, NULL, 40000, &mbps);
    ok = ok && X.rx_crc == X.crc && X.rx_bytes == X.bytes;
    const sctp_stats_t *st = sctp_stats(&zq.assoc);
    report(ok, name,
           "%s%s%lu of %lu messages, %llu bytes, CRC %08x/%08x, %.1f MB/s; zq: %u retransmitted, "
           "%u fast, %u T3, %u out of window, %lu WRITABLE; %s; %s",
           X.errors ? X.error : "", X.errors ? "; " : "", X.messages, count,
           (unsigned long long)X.rx_bytes, (unsigned)X.crc, (unsigned)X.rx_crc, mbps,
           st->retransmissions, st->fast_retransmits, st->t3_expirations,
           st->rx_out_of_window, zq.zq_writable_events, us_recovery(), link_counts_if(ok));
    end();
}

static link_peer_t *pick_zq(void)
{
    return &zq;
}

static link_peer_t *pick_us(void)
{
    return &us;
}

static void unordered(const char *name, link_peer_t *(*pick)(void), double loss, uint64_t seed)
{
    if (!selected(name)) {
        return;
    }
    if (!connect_both(loss, seed, 64 * KIB, 16 * KIB)) {
        report(false, name, "not established");
        end();
        return;
    }
    const link_send_opts_t uo = {true, -1};
    double mbps;
    bool ok = run_transfer(name, pick(), 2, 3000, size_small, &uo, 30000, &mbps);
    ok = ok && X.unordered_seen == 3000;
    report(ok, name, "%s%s%lu of 3000 delivered once each, %lu flagged unordered; %s",
           X.errors ? X.error : "", X.errors ? "; " : "", X.messages, X.unordered_seen,
           link_counts_if(ok));
    end();
}

static const size_t sizes[] = {1, 1000, 1172, 1173, 1200, 16384, 65536, 262144};
#define N_SIZES (sizeof sizes / sizeof sizes[0])

static size_t size_listed(unsigned long n)
{
    return sizes[n % N_SIZES];
}

static void message_sizes(const char *name, link_peer_t *(*pick)(void), double loss,
                          uint64_t seed)
{
    if (!selected(name)) {
        return;
    }
    /* zq's sender needs room for a whole 256 KiB message; its receiver takes it in pieces
     * through 16 KiB. */
    if (!connect_both(loss, seed, 320 * KIB, 16 * KIB)) {
        report(false, name, "not established");
        end();
        return;
    }
    link_peer_t *from = pick();
    unsigned long count = 2 * N_SIZES; /* every size twice */
    double mbps;
    bool ok = run_transfer(name, from, 3, count, size_listed, NULL, 30000, &mbps);
    ok = ok && X.rx_crc == X.crc;
    report(ok, name,
           "%s%s%lu of %lu messages (1 B .. 256 KiB) intact in %lu pieces%s, CRC %s; largest "
           "packet zq %zu, usrsctp %zu; %s",
           X.errors ? X.error : "", X.errors ? "; " : "", X.messages, count, X.pieces,
           from == &zq ? ", each ended by MSG_EOR" : "", X.rx_crc == X.crc ? "equal" : "differs",
           L.max_packet[0], L.max_packet[1], link_counts_if(ok));
    end();
}

/* ---- 4. Partial reliability ------------------------------------------------------------------ */

static size_t size_pr(unsigned long n)
{
    return 100 + (n * 389) % 2900; /* up to 3 fragments: abandoned messages may be partial */
}

static void partial_reliability(const char *name, link_peer_t *(*pick)(void), bool unord,
                                unsigned long count, double loss, uint64_t seed)
{
    if (!selected(name)) {
        return;
    }
    if (!connect_both(0, seed, 64 * KIB, 16 * KIB)) {
        report(false, name, "not established");
        end();
        return;
    }
    L.loss_ppm = (uint32_t)(loss * 10000); /* lossy only once established */
    link_peer_t *from = pick();
    const link_send_opts_t pr = {unord, 0};
    xfer_init(&X, from, receiver_of(from), 4, count, size_pr, &pr);
    X.reliable_tail = true;
    xfer_attach(&X);
    uint64_t t0 = link_now_ms();
    bool done = link_run(&L, all_settled, &X, 25000);
    link_run(&L, NULL, NULL, 300); /* stragglers */
    uint64_t ms = link_now_ms() - t0;
    xfer_detach();
    unsigned long abandoned = from == &zq ? sctp_stats(&zq.assoc)->abandoned
                                          : us.abandoned_sent + us.abandoned_unsent;
    bool tail = X.messages > 0 && (X.seen[(count - 1) / 8] & (1u << ((count - 1) % 8)));
    /* A message can be both delivered and abandoned (its SACK was lost): never fewer. */
    bool ok = done && tail && X.errors == 0 && !X.send_error && X.messages <= count &&
              X.messages + abandoned >= count && abandoned > 0 && !zq.aborted && !us.lost;
    report(ok, name,
           "%s%s%s in %llu ms: %lu of %lu delivered, %lu abandoned by the sender, %lu partial "
           "messages ended early at the receiver, reliable last message %s; zq rx_dup %u, "
           "FORWARD TSN sent zq %lu, usrsctp %lu; %s",
           X.errors ? X.error : "", X.errors ? "; " : "", done ? "settled" : "STALLED",
           (unsigned long long)ms, X.messages, count, abandoned, X.aborted,
           tail ? "arrived" : "missing", sctp_stats(&zq.assoc)->rx_dup_tsns, L.chunks[0][192],
           L.chunks[1][192], link_counts_if(ok));
    (void)ms;
    end();
}

/* ---- 4b. A message abandoned after its first fragment went out ---------------------------------- */

/* zq (max_retransmits 0) sends message A's first fragment as a zero-window probe; its second
 * cannot follow (the window is closed) when T3 abandons A, and the reliable message B is
 * queued behind it. If B's first fragment took the TSN right after A's first, a receiver that
 * reassembles by TSN order would join A's beginning to B: usrsctp 0.9.5 delivers the two as
 * one message, and zq's own receiver starts B inside A. So A's unsent rest must get TSNs too
 * (abandoned, never sent) for FORWARD TSN to cover, as usrsctp and dcSCTP do; zq did not
 * before commit 2ed20ad. The filter makes the sequence happen every time. */

enum { FILTER_OFF, FILTER_ZERO_WINDOW, FILTER_BLACKHOLE };

static struct {
    int mode;
    uint32_t a_first_tsn; /* TSN of A's first fragment, 0 if not seen */
    uint32_t b_first_tsn;
    bool a_end_sent;
} scen;

static uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Notes the DATA zq sends; closes the receiver's window (every SACK says a_rwnd 0), or drops
 * everything the receiver sends. */
static bool scenario_filter(link_t *l, int from, uint8_t *pkt, size_t len, void *ctx)
{
    (void)l;
    (void)ctx;
    if (from == 0) {
        for (size_t off = 12; off + 20 <= len;) {
            const uint8_t *c = pkt + off;
            size_t clen = (size_t)c[2] << 8 | c[3];
            if (c[0] == 0 && clen >= 20 && c[8] == 0 && c[9] == 4) { /* DATA, stream 4 */
                bool begin = c[1] & 2;
                uint32_t id = begin ? (uint32_t)c[16] | (uint32_t)c[17] << 8 : 0xFFFF;
                if (begin && id == 0 && scen.a_first_tsn == 0) {
                    scen.a_first_tsn = load32(c + 4);
                } else if (begin && id == 1 && scen.b_first_tsn == 0) {
                    scen.b_first_tsn = load32(c + 4);
                } else if (!begin && (c[1] & 1) && scen.b_first_tsn == 0) {
                    scen.a_end_sent = true; /* an end fragment before B began: A's */
                }
            }
            if (clen < 4) {
                break;
            }
            off += (clen + 3) & ~(size_t)3;
        }
        return false;
    }
    if (scen.mode == FILTER_BLACKHOLE) {
        return true;
    }
    uint8_t *sack = link_find_chunk(pkt, len, 3);
    if (scen.mode == FILTER_ZERO_WINDOW && sack != NULL) {
        memset(sack + 8, 0, 4); /* a_rwnd */
        link_reseal(pkt, len);
    }
    return false;
}

static bool zq_window_closed(link_t *l, void *ctx)
{
    (void)l;
    (void)ctx;
    return link_all_acked(&zq) && zq.assoc.peer_rwnd == 0;
}

static bool b_started(link_t *l, void *ctx)
{
    (void)l;
    (void)ctx;
    return scen.b_first_tsn != 0 && sctp_stats(&zq.assoc)->abandoned > 0;
}

static bool b_delivered(link_t *l, void *ctx)
{
    (void)l;
    const xfer_t *x = ctx;
    return (x->seen[0] & 2u) || x->errors > 0;
}

static size_t size_two_fragments(unsigned long n)
{
    (void)n;
    return 1172 + 100; /* zq's largest fragment at MTU 1200, and a little more */
}

static link_peer_t zq2; /* the receiver when zq is tested against itself */
static uint8_t zq2_send_buf[16 * KIB];
static uint8_t zq2_recv_buf[16 * KIB];

static void abandoned_after_first_fragment(const char *name, bool against_zq)
{
    if (!selected(name)) {
        return;
    }
    case_started = link_now_ms();
    us_options_t o = us_options();
    link_peer_t *rx = against_zq ? &zq2 : &us;
    link_peer_zq(&zq, "zq", zq_send_buf, 64 * KIB, zq_recv_buf, 16 * KIB, MTU, 45);
    if (against_zq) {
        link_peer_zq(&zq2, "zq2", zq2_send_buf, sizeof zq2_send_buf, zq2_recv_buf,
                     sizeof zq2_recv_buf, MTU, 46);
    } else {
        link_peer_usrsctp(&us, "usrsctp", &o);
    }
    link_init(&L, &zq, rx, 0, 45);
    L.tap = true;
    const bool both[2] = {true, true};
    memset(&scen, 0, sizeof scen);
    L.filter = scenario_filter;
    bool ok = link_start(&L, both) && link_run(&L, link_established, NULL, 5000);
    /* The receiver's window closes: one reliable message is acknowledged with a_rwnd 0. */
    static const uint8_t filler[100];
    scen.mode = FILTER_ZERO_WINDOW;
    ok = ok && link_send(&zq, 9, PPID_BINARY, filler, sizeof filler, NULL) == LINK_SENT &&
         link_run(&L, zq_window_closed, NULL, 3000);
    /* A (no retransmissions) and B (reliable), both unordered, two fragments each: only A's
     * first fragment fits the closed window, as a probe; its acknowledgement is lost. */
    scen.mode = FILTER_BLACKHOLE;
    const link_send_opts_t pr = {true, 0};
    xfer_init(&X, &zq, rx, 4, 2, size_two_fragments, &pr);
    X.reliable_tail = true;
    xfer_attach(&X);
    bool reached = ok && link_run(&L, b_started, NULL, 3000);
    scen.mode = FILTER_OFF;
    ok = ok && link_run(&L, b_delivered, &X, 5000);
    link_run(&L, NULL, NULL, 300); /* anything else the receiver makes of it */
    xfer_detach();
    bool adjacent = scen.b_first_tsn == scen.a_first_tsn + 1;
    char tsns[160];
    if (!reached || scen.a_end_sent) {
        snprintf(tsns, sizeof tsns, "scenario not reached (A's end %s, B's first TSN %u)",
                 scen.a_end_sent ? "was sent" : "-", scen.b_first_tsn);
    } else if (adjacent) {
        snprintf(tsns, sizeof tsns, "B's first fragment took TSN %u, right after A's first "
                 "(%u): A's unsent end got no TSN", scen.b_first_tsn, scen.a_first_tsn);
    } else {
        snprintf(tsns, sizeof tsns, "A's first fragment TSN %u, its unsent end TSN %u..%u "
                 "(abandoned, covered by FORWARD TSN), B's first TSN %u", scen.a_first_tsn,
                 scen.a_first_tsn + 1, scen.b_first_tsn - 1, scen.b_first_tsn);
    }
    ok = ok && X.errors == 0 && X.messages == 1 && (X.seen[0] & 2u);
    report(ok, name, "%s%s%s; %s delivered %lu message(s)%s; zq abandoned %u; %s",
           X.errors ? X.error : "", X.errors ? "; " : "", tsns, rx->name, X.messages,
           (X.seen[0] & 2u) ? ", B intact" : ", not B", sctp_stats(&zq.assoc)->abandoned,
           link_counts_if(ok));
    L.filter = NULL;
    end();
}

/* ---- 5b. Messages larger than zq's send buffer, in parts (sctp_send_part) ------------------------ */

static size_t size_256k(unsigned long n)
{
    (void)n;
    return 256 * KIB;
}

static void message_in_parts(const char *name, double loss, uint64_t seed)
{
    if (!selected(name)) {
        return;
    }
    /* 16 KiB of send buffer carries 256 KiB messages: whatever fits is taken each time, the
     * rest offered again after SCTP_EVENT_WRITABLE (sctp.h). */
    if (!connect_both(loss, seed, 16 * KIB, 16 * KIB)) {
        report(false, name, "not established");
        end();
        return;
    }
    xfer_init(&X, &zq, &us, 3, 4, size_256k, NULL);
    X.in_parts = true;
    xfer_attach(&X);
    uint64_t t0 = link_now_ms();
    /* As documented: after a partial acceptance, wait for WRITABLE. If 2 s pass with
     * everything sent acknowledged and no WRITABLE, that is a stall; then offer the rest every
     * turn, to check the data path all the same. */
    bool done = link_run(&L, all_delivered, &X, 2000);
    bool stalled = !done && X.from->zq_blocked && zq.assoc.flight == 0;
    unsigned long stalled_at = X.next;
    size_t stalled_off = X.part_off;
    if (!done) {
        X.poll_parts = true;
        done = link_run(&L, all_delivered, &X, 15000);
    }
    link_run(&L, NULL, NULL, 0);
    xfer_detach();
    double mbps = (double)X.rx_bytes / 1e3 / (double)(link_now_ms() - t0 + 1);
    bool intact = done && X.messages == 4 && X.errors == 0 && X.rx_crc == X.crc;
    char why[240] = "";
    if (stalled) {
        snprintf(why, sizeof why,
                 "stalled waiting for SCTP_EVENT_WRITABLE after a partial acceptance (message "
                 "%lu, %zu bytes accepted; all sent acknowledged, none came in 2 s); ",
                 stalled_at, stalled_off);
    }
    report(intact && !stalled, name,
           "%s%s%s%lu of 4 messages of 256 KiB intact%s, each ended by MSG_EOR, %.1f MB/s; %lu "
           "WRITABLE events; %s",
           why, X.errors ? X.error : "", X.errors ? "; " : "", X.messages,
           stalled ? " offering the rest every turn instead" : "", mbps,
           zq.zq_writable_events, link_counts_if(intact && !stalled));
    end();
}

/* ---- The receiving application stops reading (zero window), then reads again ----------------- */

static size_t size_1k(unsigned long n)
{
    return 1000 + (n * 37) % 200;
}

static void receiver_pauses(const char *name, link_peer_t *(*pick)(void), double loss,
                            uint64_t seed)
{
    if (!selected(name)) {
        return;
    }
    if (!connect_both(loss, seed, 64 * KIB, 16 * KIB)) {
        report(false, name, "not established");
        end();
        return;
    }
    link_peer_t *from = pick();
    link_peer_t *to = receiver_of(from);
    /* 600 KB: more than usrsctp's 128 KiB receive buffer and zq's 16 KiB. */
    const unsigned long count = 550;
    xfer_init(&X, from, to, 1, count, size_1k, NULL);
    xfer_attach(&X);
    to->paused = true;
    link_run(&L, NULL, NULL, 1500);
    unsigned long during = X.messages;
    uint64_t sent_during = X.bytes;
    to->paused = false;
    bool ok = link_run(&L, all_delivered, &X, 20000);
    link_run(&L, NULL, NULL, 0);
    xfer_detach();
    ok = ok && X.messages == count && X.errors == 0 && X.rx_crc == X.crc;
    report(ok, name,
           "%s%s%lu delivered while paused, %llu bytes accepted from the sender by then; all %lu "
           "intact after; zq: %u out of window; %s; %s",
           X.errors ? X.error : "", X.errors ? "; " : "", during,
           (unsigned long long)sent_during, X.messages,
           sctp_stats(&zq.assoc)->rx_out_of_window, us_recovery(), link_counts_if(ok));
    end();
}

/* ---- 6. Stream reset ------------------------------------------------------------------------- */

static bool reset_seen_by_us(link_t *l, void *ctx)
{
    (void)l;
    const xfer_t *x = ctx;
    const us_note_t *n = link_saw_us(&us, US_NOTE_STREAM_RESET);
    return (n != NULL && x->messages == x->count && link_saw_zq(&zq, SCTP_EVENT_STREAM_RESET_DONE,
                                                                x->stream)) ||
           us.lost || zq.aborted;
}

static bool reset_seen_by_zq(link_t *l, void *ctx)
{
    (void)l;
    const xfer_t *x = ctx;
    return (link_saw_zq(&zq, SCTP_EVENT_STREAM_RESET_IN, x->stream) && x->messages == x->count &&
            link_saw_us(&us, US_NOTE_STREAM_RESET) != NULL) ||
           us.lost || zq.aborted;
}

/* Messages queued on a stream, its reset right after (they go first), then the stream reused
 * from SSN 0 by the same sender. */
static void stream_reset(const char *name, link_peer_t *(*pick)(void), double loss, uint64_t seed)
{
    if (!selected(name)) {
        return;
    }
    if (!connect_both(loss, seed, 64 * KIB, 16 * KIB)) {
        report(false, name, "not established");
        end();
        return;
    }
    link_peer_t *from = pick();
    const uint16_t stream = 6;
    char why[200] = "";
    xfer_init(&X, from, receiver_of(from), stream, 20, size_small, NULL);
    (void)pump_xfer(&L, &X); /* all 20 queued now */
    xfer_attach(&X);
    bool ok = X.next == 20 && link_reset_stream(from, stream);
    bool by_zq = from == &zq;
    ok = ok && link_run(&L, by_zq ? reset_seen_by_us : reset_seen_by_zq, &X, 15000);
    const us_note_t *n = link_saw_us(&us, US_NOTE_STREAM_RESET);
    uint16_t want_flag = by_zq ? US_RESET_INCOMING_SSN : US_RESET_OUTGOING_SSN;
    if (!ok) {
        snprintf(why, sizeof why, "no reset seen: usrsctp note %s, zq events %d, %lu of 20 msgs",
                 n ? "yes" : "no", zq.n_zq_events, X.messages);
    } else if (!(n->flags & want_flag) || (n->flags & (US_RESET_DENIED | US_RESET_FAILED)) ||
               n->n_streams != 1 || n->streams[0] != stream) {
        ok = false;
        snprintf(why, sizeof why, "usrsctp's reset event: flags 0x%x, %u streams, first %u",
                 n->flags, n->n_streams, n->n_streams ? n->streams[0] : 0);
    }
    unsigned long before = X.messages;
    if (ok) {
        /* The stream again, from SSN 0: 10 more, numbered on from 20. */
        xfer_t *x = &X;
        x->count = 30;
        ok = link_run(&L, all_delivered, x, 10000) && x->messages == 30 && x->errors == 0;
        if (!ok) {
            snprintf(why, sizeof why, "after the reset %lu of 10 arrived%s%.120s",
                     x->messages - before, x->errors ? ": " : "", x->errors ? x->error : "");
        }
    }
    xfer_detach();
    const sctp_event_t *done_ev = NULL;
    for (int i = 0; i < zq.n_zq_events; i++) {
        if (zq.zq_events[i].type == SCTP_EVENT_STREAM_RESET_DONE) {
            done_ev = &zq.zq_events[i];
        }
    }
    if (ok && by_zq && done_ev != NULL && done_ev->cause != 0) {
        ok = false;
        snprintf(why, sizeof why, "zq's STREAM_RESET_DONE carries refusal %u", done_ev->cause);
    }
    report(ok, name,
           "%s%s%lu messages before the reset, %lu after on the same stream; usrsctp reset flags "
           "0x%x; RE-CONFIG chunks zq %lu, usrsctp %lu; %s",
           why, *why ? "; " : "", before, X.messages - before, n ? n->flags : 0,
           L.chunks[0][130], L.chunks[1][130], link_counts_if(ok));
    end();
}

static bool both_reset(link_t *l, void *ctx)
{
    (void)l;
    (void)ctx;
    int notes = 0;
    for (int i = 0; i < us.n_us_notes; i++) {
        notes += us.us_notes[i].type == US_NOTE_STREAM_RESET;
    }
    return (link_saw_zq(&zq, SCTP_EVENT_STREAM_RESET_IN, 8) &&
            link_saw_zq(&zq, SCTP_EVENT_STREAM_RESET_DONE, 8) && notes >= 2) ||
           us.lost || zq.aborted;
}

/* A data channel closing from both ends at once: each resets its outgoing stream 8. */
static void stream_reset_both(const char *name, double loss, uint64_t seed)
{
    if (!selected(name)) {
        return;
    }
    if (!connect_both(loss, seed, 64 * KIB, 16 * KIB)) {
        report(false, name, "not established");
        end();
        return;
    }
    static const uint8_t hi[] = "open";
    bool ok = link_send(&zq, 8, PPID_BINARY, hi, sizeof hi, NULL) == LINK_SENT &&
              link_send(&us, 8, PPID_BINARY, hi, sizeof hi, NULL) == LINK_SENT &&
              link_run(&L, NULL, NULL, 100) == false;
    ok = link_reset_stream(&us, 8) && link_reset_stream(&zq, 8);
    ok = ok && link_run(&L, both_reset, NULL, 15000);
    int notes = 0;
    uint16_t flags = 0;
    for (int i = 0; i < us.n_us_notes; i++) {
        if (us.us_notes[i].type == US_NOTE_STREAM_RESET) {
            notes++;
            flags |= us.us_notes[i].flags;
        }
    }
    ok = ok && !(flags & (US_RESET_DENIED | US_RESET_FAILED));
    report(ok, name,
           "zq: reset in %d, done %d; usrsctp: %d reset events, flags 0x%x; RE-CONFIG zq %lu, "
           "usrsctp %lu; %s",
           link_saw_zq(&zq, SCTP_EVENT_STREAM_RESET_IN, 8),
           link_saw_zq(&zq, SCTP_EVENT_STREAM_RESET_DONE, 8), notes, flags, L.chunks[0][130],
           L.chunks[1][130], link_counts_if(ok));
    end();
}

/* ---- 7. Abort, and graceful shutdown --------------------------------------------------------- */

static bool us_gone(link_t *l, void *ctx)
{
    (void)l;
    (void)ctx;
    return us.lost;
}

static bool zq_aborted(link_t *l, void *ctx)
{
    (void)l;
    (void)ctx;
    return zq.aborted;
}

static void abort_by(const char *name, bool zq_aborts, bool under_load)
{
    if (!selected(name)) {
        return;
    }
    if (!connect_both(0, 71, 64 * KIB, 16 * KIB)) {
        report(false, name, "not established");
        end();
        return;
    }
    if (under_load) { /* both sending when the abort comes */
        xfer_init(&X, zq_aborts ? &us : &zq, zq_aborts ? &zq : &us, 1, 60000, size_small, NULL);
        xfer_attach(&X);
        link_run(&L, NULL, NULL, 200);
    }
    link_abort(&L, zq_aborts ? &zq : &us);
    bool ok = link_run(&L, zq_aborts ? us_gone : zq_aborted, NULL, 5000);
    xfer_detach();
    const us_note_t *lost = link_saw_us(&us, US_NOTE_COMM_LOST);
    const sctp_event_t *ev = zq.n_zq_events ? &zq.zq_events[zq.n_zq_events - 1] : NULL;
    if (zq_aborts) {
        report(ok, name, "usrsctp: %s (error %u); ABORT chunks zq %lu; %s",
               lost ? "SCTP_ASSOC_CHANGE COMM_LOST" : ok ? "recv failed" : "nothing",
               lost ? lost->error : 0, L.chunks[0][6], link_counts_if(ok));
    } else {
        ok = ok && ev != NULL && ev->type == SCTP_EVENT_ABORTED &&
             ev->reason == SCTP_ABORT_BY_PEER;
        report(ok, name, "zq: %s, reason %d, cause %u; ABORT chunks usrsctp %lu; %s",
               ok ? "SCTP_EVENT_ABORTED" : "no ABORTED", ev ? (int)ev->reason : -1,
               ev ? ev->cause : 0, L.chunks[1][6], link_counts_if(ok));
    }
    end();
}

static bool both_closed(link_t *l, void *ctx)
{
    (void)l;
    (void)ctx;
    return (zq.closed && (us.closed || us.lost)) || zq.aborted;
}

static void shutdown_by(const char *name, bool zq_shuts, double loss)
{
    if (!selected(name)) {
        return;
    }
    if (!connect_both(loss, 81, 64 * KIB, 16 * KIB)) {
        report(false, name, "not established");
        end();
        return;
    }
    /* 200 messages queued, then the shutdown: they arrive first (§9.2). */
    xfer_init(&X, zq_shuts ? &zq : &us, zq_shuts ? &us : &zq, 1, 200, size_small, NULL);
    while (X.next < 200 && pump_xfer(&L, &X) > 0) {
    }
    xfer_attach(&X);
    L.pump = NULL;
    unsigned long queued = X.next;
    bool ok = link_shutdown(zq_shuts ? &zq : &us) && link_run(&L, both_closed, NULL, 15000);
    xfer_detach();
    ok = ok && X.messages == queued && X.errors == 0 && !zq.aborted;
    report(ok, name,
           "%s%s%lu of %lu queued messages delivered before the close; zq closed %d, usrsctp "
           "%s; SHUTDOWN chunks zq %lu usrsctp %lu; %s",
           X.errors ? X.error : "", X.errors ? "; " : "", X.messages, queued, zq.closed,
           us.closed ? "SHUTDOWN_COMP" : us.lost ? "gone" : "open", L.chunks[0][7],
           L.chunks[1][7], link_counts_if(ok));
    end();
}

int main(int argc, char **argv)
{
    only = argc > 1 ? argv[1] : NULL;
    uint64_t t0 = link_now_ms();
    us_global_init(true);

    handshake("handshake: zq connects, usrsctp listens", true, false, true, 0, 1);
    handshake("handshake: usrsctp connects, zq waits", false, true, true, 0, 2);
    handshake("handshake: both connect (INIT collision)", true, true, true, 0, 3);
    handshake("handshake: usrsctp defaults (AUTH, ASCONF, ECN on)", true, true, false, 0, 4);
    for (uint64_t seed = 10; seed < 14; seed++) {
        handshake("handshake: both connect at 30% loss", true, true, true, 30, seed);
    }

    bulk_10mb("10 MB ordered zq -> usrsctp, 0% loss", pick_zq, 0, 21);
    bulk_10mb("10 MB ordered usrsctp -> zq, 0% loss", pick_us, 0, 22);
    bulk_10mb("10 MB ordered zq -> usrsctp, 5% loss", pick_zq, 5, 23);
    bulk_10mb("10 MB ordered usrsctp -> zq, 5% loss", pick_us, 5, 24);

    unordered("unordered zq -> usrsctp, 0% loss", pick_zq, 0, 31);
    unordered("unordered usrsctp -> zq, 0% loss", pick_us, 0, 32);
    unordered("unordered zq -> usrsctp, 5% loss", pick_zq, 5, 33);
    unordered("unordered usrsctp -> zq, 5% loss", pick_us, 5, 34);

    /* usrsctp recovers slowly at 20% loss (its RTO backs off and its cwnd stays at one or two
     * MTUs; ~60 messages/s against itself here): fewer messages that way. */
    partial_reliability("PR-SCTP rtx 0 ordered usrsctp -> zq, 20% loss", pick_us, false, 300, 20,
                        41);
    partial_reliability("PR-SCTP rtx 0 ordered zq -> usrsctp, 20% loss", pick_zq, false, 2000, 20,
                        42);
    partial_reliability("PR-SCTP rtx 0 unordered usrsctp -> zq, 20% loss", pick_us, true, 300, 20,
                        43);
    partial_reliability("PR-SCTP rtx 0 unordered zq -> usrsctp, 20% loss", pick_zq, true, 2000, 20,
                        44);

    abandoned_after_first_fragment("PR-SCTP: abandoned after 1st fragment, zq -> usrsctp", false);
    abandoned_after_first_fragment("PR-SCTP: abandoned after 1st fragment, zq -> zq", true);

    message_sizes("sizes 1 B..256 KiB zq -> usrsctp, 0% loss", pick_zq, 0, 51);
    message_sizes("sizes 1 B..256 KiB usrsctp -> zq, 0% loss", pick_us, 0, 52);
    message_sizes("sizes 1 B..256 KiB zq -> usrsctp, 5% loss", pick_zq, 5, 53);
    message_sizes("sizes 1 B..256 KiB usrsctp -> zq, 5% loss", pick_us, 5, 54);

    message_in_parts("256 KiB messages in parts (sctp_send_part), 0% loss", 0, 59);
    message_in_parts("256 KiB messages in parts (sctp_send_part), 5% loss", 5, 60);

    receiver_pauses("usrsctp stops reading 1.5 s, zq sends", pick_zq, 0, 55);
    receiver_pauses("zq stops reading 1.5 s, usrsctp sends", pick_us, 0, 56);
    receiver_pauses("usrsctp stops reading 1.5 s, zq sends, 5% loss", pick_zq, 5, 57);
    receiver_pauses("zq stops reading 1.5 s, usrsctp sends, 5% loss", pick_us, 5, 58);

    stream_reset("stream reset by zq (queued data first), 0% loss", pick_zq, 0, 61);
    stream_reset("stream reset by usrsctp (queued data first), 0% loss", pick_us, 0, 62);
    stream_reset("stream reset by zq (queued data first), 5% loss", pick_zq, 5, 63);
    stream_reset("stream reset by usrsctp (queued data first), 5% loss", pick_us, 5, 64);
    stream_reset_both("stream reset by both at once (channel close)", 0, 65);

    abort_by("abort by zq", true, false);
    abort_by("abort by usrsctp (SO_LINGER 0 + close)", false, false);
    abort_by("abort by zq while usrsctp sends", true, true);
    abort_by("abort by usrsctp while zq sends", false, true);

    shutdown_by("shutdown by zq after 200 queued messages", true, 0);
    shutdown_by("shutdown by usrsctp after 200 queued messages", false, 0);

    us_global_finish();
    printf("%d passed, %d failed, %.1f s; usrsctp output queue overflows %lu\n", passes, failures,
           (double)(link_now_ms() - t0) / 1000.0, us_overflows());
    return failures == 0 ? 0 : 1;
}

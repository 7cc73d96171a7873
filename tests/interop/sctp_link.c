/* Two SCTP endpoints joined by a lossy in-memory link, in real time: see sctp_link.h. */
#include "sctp_link.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The time of the current turn of the loop: an application reads its clock once per turn,
 * not once per call (a clock read per 64-byte message would be charged to zq's numbers). */
static uint64_t turn_now;

uint64_t link_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t link_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static int peer_rand(void *ctx, unsigned char *out, size_t len)
{
    uint64_t *s = ctx;
    for (size_t i = 0; i < len; i++) {
        out[i] = (unsigned char)(xorshift(s) >> 56);
    }
    return 0;
}

/* zq's packets wait here for their turn, so that each side handles one packet at a time and
 * answers it at once, as usrsctp does inside usrsctp_conninput(). */
#define WIRE_SLOTS 4096

typedef struct {
    int from;
    size_t len;
    uint8_t data[US_PACKET_MAX];
} wire_packet_t;

static struct {
    size_t head;
    size_t count;
    unsigned long overflows;
    wire_packet_t slots[WIRE_SLOTS];
} wire;

/* With a delay, the packets that survived the loss draw wait here, one FIFO per direction
 * (delay_line[i] holds peer[i]'s), until due: the delay is the same for every packet of a
 * direction, so the oldest is always the next due. Sized for the bandwidth-delay product with
 * room to spare: a 64 KiB window is ~55 full packets in flight and as many SACKs, or ~200
 * packets of one 64-byte message each (usrsctp counts 256 bytes a chunk against the window);
 * a line that fills anyway counts an overflow (link_wire_overflows()), never a silent loss. */
#define DELAY_SLOTS 1024

typedef struct {
    uint64_t due_us;
    size_t len;
    uint8_t data[US_PACKET_MAX];
} delayed_packet_t;

static struct {
    size_t head;
    size_t count;
    delayed_packet_t slots[DELAY_SLOTS];
} delay_line[2];

static void forget_packets(void)
{
    us_clear();
    wire.count = 0;
    delay_line[0].count = 0;
    delay_line[1].count = 0;
}

/* Each usrsctp endpoint gets an address pointer of its own, never reused in a process, so a
 * packet a closed association's timer still sends is recognised as stale and dropped. */
static char address_tokens[4096];
static size_t next_token;

void link_peer_zq(link_peer_t *p, const char *name, uint8_t *send_buf, size_t send_cap,
                  uint8_t *recv_buf, size_t recv_cap, uint16_t mtu, uint64_t seed)
{
    memset(p, 0, sizeof *p);
    p->kind = LINK_ZQ;
    p->name = name;
    p->rand_state = seed * 0x9E3779B97F4A7C15ULL + 1;
    sctp_config_t cfg;
    sctp_config_default(&cfg);
    cfg.rand = (zq_rand_t){peer_rand, &p->rand_state};
    cfg.mtu = mtu;
    if (sctp_assoc_init(&p->assoc, &cfg, send_buf, send_cap, recv_buf, recv_cap) != ZQ_OK) {
        fprintf(stderr, "link: sctp_assoc_init failed\n");
        abort();
    }
}

void link_peer_usrsctp(link_peer_t *p, const char *name, const us_options_t *opt)
{
    memset(p, 0, sizeof *p);
    p->kind = LINK_USRSCTP;
    p->name = name;
    p->us_opt = *opt;
}

void link_init(link_t *l, link_peer_t *a, link_peer_t *b, double loss_percent, uint64_t seed)
{
    memset(l, 0, sizeof *l);
    l->peer[0] = a;
    l->peer[1] = b;
    a->side = 0;
    b->side = 1;
    l->loss_ppm = (uint32_t)(loss_percent * 10000.0 + 0.5);
    l->rng = seed * 0x9E3779B97F4A7C15ULL + 7;
    const char *dump = getenv("LINK_DUMP");
    if (dump != NULL && *dump != '\0') {
        l->dump = fopen(dump, "a");
    }
    const char *trace_file = getenv("LINK_TRACE");
    if (trace_file != NULL && *trace_file != '\0') {
        l->trace = fopen(trace_file, "a");
    }
}

bool link_start(link_t *l, const bool connect[2])
{
    forget_packets();
    /* usrsctp first: its INIT is queued before zq's goes out, so two connecting sides
     * really collide. */
    for (int i = 0; i < 2; i++) {
        link_peer_t *p = l->peer[i];
        if (p->kind == LINK_USRSCTP) {
            if (next_token == sizeof address_tokens) {
                next_token = 0;
            }
            p->us_addr = &address_tokens[next_token++];
            if (!us_open(&p->us, p->us_addr, &p->us_opt, connect[i])) {
                return false;
            }
        }
    }
    uint64_t now = link_now_ms();
    for (int i = 0; i < 2; i++) {
        link_peer_t *p = l->peer[i];
        if (p->kind == LINK_ZQ && connect[i] && sctp_connect(&p->assoc, now) != ZQ_OK) {
            return false;
        }
    }
    return true;
}

void link_close(link_t *l)
{
    for (int i = 0; i < 2; i++) {
        if (l->peer[i]->kind == LINK_USRSCTP) {
            us_close(&l->peer[i]->us);
        }
    }
    forget_packets();
    if (l->dump != NULL) {
        fclose(l->dump);
        l->dump = NULL;
    }
    if (l->trace != NULL) {
        fclose(l->trace);
        l->trace = NULL;
    }
}

/* ---- What each side's application sees ------------------------------------------------------- */

static void log_zq_event(link_peer_t *p, const sctp_event_t *ev)
{
    if (p->n_zq_events < LINK_LOG) {
        p->zq_events[p->n_zq_events++] = *ev;
    }
    switch (ev->type) {
    case SCTP_EVENT_CONNECTED:
        p->connected = true;
        break;
    case SCTP_EVENT_RESTARTED:
        p->restarted = p->connected = true;
        break;
    case SCTP_EVENT_CLOSED:
        p->closed = true;
        break;
    case SCTP_EVENT_ABORTED:
        p->aborted = true;
        break;
    case SCTP_EVENT_WRITABLE:
        p->zq_blocked = false;
        p->zq_writable_events++;
        break;
    default:
        break;
    }
}

static void drain_zq(link_peer_t *p)
{
    sctp_message_t m;
    while (!p->paused && sctp_read(&p->assoc, &m)) {
        if (p->on_piece != NULL) {
            link_piece_t piece = {m.stream, m.ppid, m.unordered, m.first,  m.last,
                                  m.aborted, m.data, m.len};
            p->on_piece(p, &piece, p->piece_ctx);
        }
    }
    sctp_event_t ev;
    while (sctp_poll_event(&p->assoc, &ev)) {
        /* WRITABLE comes with every SACK that frees room while a send is blocked: only the
         * first few are kept in the log, the flag is what the sender looks at. */
        if (ev.type != SCTP_EVENT_WRITABLE || p->zq_writable_events < 4) {
            log_zq_event(p, &ev);
        } else {
            p->zq_blocked = false;
            p->zq_writable_events++;
        }
    }
}

static void log_us_note(link_peer_t *p, const us_note_t *n)
{
    switch (n->type) {
    case US_NOTE_COMM_UP:
        p->connected = true;
        break;
    case US_NOTE_RESTART:
        p->restarted = p->connected = true;
        break;
    case US_NOTE_COMM_LOST:
    case US_NOTE_CANT_START:
        p->lost = true;
        break;
    case US_NOTE_SHUTDOWN_COMP:
        p->closed = true;
        break;
    case US_NOTE_SEND_FAILED:
        if (n->flags & US_DATA_SENT) {
            p->abandoned_sent++;
        } else {
            p->abandoned_unsent++;
        }
        return; /* one per abandoned message: counted, not logged */
    case US_NOTE_PD_ABORTED:
        if (p->on_piece != NULL) {
            link_piece_t piece = {n->stream, 0, false, false, true, true, NULL, 0};
            p->on_piece(p, &piece, p->piece_ctx);
        }
        p->us_in_message = false;
        break;
    default:
        break;
    }
    if (p->n_us_notes < LINK_LOG) {
        p->us_notes[p->n_us_notes++] = *n;
    }
}

static int drain_us(link_peer_t *p)
{
    static uint8_t buf[256 * 1024];
    int n = 0;
    while (!p->paused) {
        us_data_t d;
        us_note_t note;
        int got = us_recv(&p->us, buf, sizeof buf, &d, &note);
        if (got == US_RECV_NONE) {
            return n;
        }
        n++;
        if (got == US_RECV_CLOSED) {
            p->lost = true;
            return n;
        }
        if (got == US_RECV_NOTE) {
            log_us_note(p, &note);
            continue;
        }
        link_piece_t piece = {d.stream, d.ppid, d.unordered, !p->us_in_message, d.eor,
                              false,    d.data, d.len};
        p->us_in_message = !d.eor;
        if (p->on_piece != NULL) {
            p->on_piece(p, &piece, p->piece_ctx);
        }
    }
    return n;
}

/* ---- The link -------------------------------------------------------------------------------- */

static void tap(link_t *l, int from, const uint8_t *pkt, size_t len)
{
    for (size_t off = 12; off + 4 <= len;) {
        size_t clen = (size_t)pkt[off + 2] << 8 | pkt[off + 3];
        l->chunks[from][pkt[off]]++;
        if (clen < 4) {
            break;
        }
        off += (clen + 3) & ~(size_t)3;
    }
}

static void dump(link_t *l, int from, const uint8_t *pkt, size_t len, bool dropped)
{
    char *text = us_dump(pkt, len, from == 0);
    if (text != NULL) {
        fprintf(l->dump, "# %s -> %s%s\n%s", l->peer[from]->name, l->peer[1 - from]->name,
                dropped ? " (dropped)" : "", text);
        us_dump_free(text);
    }
}

/* LINK_TRACE: one line per packet with its chunks decoded, for reading a failure. */
static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static void trace_chunk(FILE *f, const uint8_t *c, size_t clen)
{
    switch (c[0]) {
    case 0:
        if (clen >= 16) {
            fprintf(f, " DATA(tsn %u sid %u ssn %u %s%s%s len %zu", be32(c + 4), be16(c + 8),
                    be16(c + 10), c[1] & 2 ? "B" : "", c[1] & 1 ? "E" : "", c[1] & 4 ? "U" : "",
                    clen - 16);
            if ((c[1] & 2) && clen >= 20) { /* the tests' messages start with their number */
                fprintf(f, " #%u", (unsigned)c[16] | (unsigned)c[17] << 8 |
                                       (unsigned)c[18] << 16 | (unsigned)c[19] << 24);
            }
            fprintf(f, ")");
        }
        return;
    case 3:
        if (clen >= 16) {
            uint16_t gaps = be16(c + 12);
            uint16_t dups = be16(c + 14);
            fprintf(f, " SACK(cum %u rwnd %u", be32(c + 4), be32(c + 8));
            for (uint16_t i = 0; i < gaps && 16u + 4u * i + 4 <= clen; i++) {
                fprintf(f, " +%u-%u", be16(c + 16 + 4 * i), be16(c + 18 + 4 * i));
            }
            if (dups) {
                fprintf(f, " dups %u", dups);
            }
            fprintf(f, ")");
        }
        return;
    case 192:
        if (clen >= 8) {
            fprintf(f, " FWD-TSN(%u", be32(c + 4));
            for (size_t o = 8; o + 4 <= clen; o += 4) {
                fprintf(f, " s%u/%u", be16(c + o), be16(c + o + 2));
            }
            fprintf(f, ")");
        }
        return;
    case 130:
        fprintf(f, " RE-CONFIG(");
        for (size_t o = 4; o + 8 <= clen;) {
            uint16_t type = be16(c + o);
            uint16_t plen = be16(c + o + 2);
            fprintf(f, " p%u seq %u", type, be32(c + o + 4));
            if (type == 16 && plen >= 12) {
                fprintf(f, " result %u", be32(c + o + 8));
            } else if (type == 13 && plen >= 16) {
                fprintf(f, " resp %u last %u streams", be32(c + o + 8), be32(c + o + 12));
                for (size_t k = 16; k + 2 <= plen; k += 2) {
                    fprintf(f, " %u", be16(c + o + k));
                }
            }
            if (plen < 8) {
                break;
            }
            o += (plen + 3u) & ~3u;
        }
        fprintf(f, ")");
        return;
    default: {
        static const char *const names[] = {"DATA", "INIT", "INIT-ACK", "SACK", "HB", "HB-ACK",
                                            "ABORT", "SHUTDOWN", "SHUTDOWN-ACK", "ERROR",
                                            "COOKIE-ECHO", "COOKIE-ACK", "ECNE", "CWR",
                                            "SHUTDOWN-COMPLETE"};
        if (c[0] < sizeof names / sizeof names[0]) {
            fprintf(f, " %s", names[c[0]]);
        } else {
            fprintf(f, " chunk%u", c[0]);
        }
        if (c[0] == 6 && clen >= 8) {
            fprintf(f, "(cause %u)", be16(c + 4));
        }
        return;
    }
    }
}

static void trace(link_t *l, int from, const uint8_t *pkt, size_t len, const char *fate)
{
    fprintf(l->trace, "%llu %s>%s%s vtag %08x len %zu:", (unsigned long long)link_now_ms(),
            l->peer[from]->name, l->peer[1 - from]->name, fate,
            len >= 8 ? be32(pkt + 4) : 0, len);
    for (size_t off = 12; off + 4 <= len;) {
        size_t clen = be16(pkt + off + 2);
        if (clen < 4 || off + clen > len) {
            fprintf(l->trace, " (bad chunk)");
            break;
        }
        trace_chunk(l->trace, pkt + off, clen);
        off += (clen + 3) & ~(size_t)3;
    }
    fprintf(l->trace, "\n");
}

static void wire_push(int from, const uint8_t *pkt, size_t len)
{
    if (wire.count == WIRE_SLOTS || len > US_PACKET_MAX) {
        wire.overflows++;
        return;
    }
    wire_packet_t *w = &wire.slots[(wire.head + wire.count++) % WIRE_SLOTS];
    w->from = from;
    w->len = len;
    memcpy(w->data, pkt, len);
}

static void transmit_zq(link_t *l, link_peer_t *p, uint64_t now)
{
    static uint8_t pkt[US_PACKET_MAX];
    size_t n;
    (void)l;
    while ((n = sctp_poll_transmit(&p->assoc, now, pkt, sizeof pkt)) > 0) {
        wire_push(p->side, pkt, n);
    }
    drain_zq(p); /* events raised while building packets */
}

unsigned long link_wire_overflows(void)
{
    return wire.overflows;
}

uint8_t *link_find_chunk(uint8_t *pkt, size_t len, uint8_t type)
{
    for (size_t off = 12; off + 4 <= len;) {
        size_t clen = be16(pkt + off + 2);
        if (clen < 4 || off + clen > len) {
            return NULL;
        }
        if (pkt[off] == type) {
            return pkt + off;
        }
        off += (clen + 3) & ~(size_t)3;
    }
    return NULL;
}

void link_reseal(uint8_t *pkt, size_t len)
{
    /* RFC 9260 Appendix B: over the packet with the checksum field zero, stored least
     * significant byte first (as zq's packet.c does). */
    memset(pkt + 8, 0, 4);
    uint32_t crc = sctp_crc32c(pkt, len);
    for (int i = 0; i < 4; i++) {
        pkt[8 + i] = (uint8_t)(crc >> (8 * i));
    }
}

/* Counts, taps and filters a packet peer[from] sent, and draws its loss: true if it goes on. */
static bool survives(link_t *l, int from, uint8_t *pkt, size_t len)
{
    l->sent[from]++;
    l->sent_bytes[from] += len;
    if (len > l->max_packet[from]) {
        l->max_packet[from] = len;
    }
    if (l->tap) {
        tap(l, from, pkt, len);
    }
    bool filtered = l->filter != NULL && l->filter(l, from, pkt, len, l->filter_ctx);
    l->filtered[from] += filtered;
    bool drop = filtered || (l->loss_ppm > 0 && xorshift(&l->rng) % 1000000u < l->loss_ppm);
    if (l->dump != NULL) {
        dump(l, from, pkt, len, drop);
    }
    if (l->trace != NULL) {
        trace(l, from, pkt, len, filtered ? " FILTERED" : drop ? " LOST" : "");
    }
    l->lost[from] += drop;
    return !drop;
}

/* Hands a packet from peer[from] to the other, which answers it at once. */
static void deliver(link_t *l, int from, const uint8_t *pkt, size_t len, uint64_t now)
{
    link_peer_t *to = l->peer[1 - from];
    if (to->kind == LINK_USRSCTP) {
        if (to->us.addr != NULL) {
            us_input(&to->us, pkt, len); /* its answers go to the queue at once */
        }
        return;
    }
    (void)sctp_handle_packet(&to->assoc, now, pkt, len);
    drain_zq(to);
    transmit_zq(l, to, now); /* and zq's too, as an application polls after each input */
}

static void delay_push(const link_t *l, int from, const uint8_t *pkt, size_t len)
{
    if (delay_line[from].count == DELAY_SLOTS || len > US_PACKET_MAX) {
        wire.overflows++;
        return;
    }
    delayed_packet_t *d =
        &delay_line[from].slots[(delay_line[from].head + delay_line[from].count++) % DELAY_SLOTS];
    d->due_us = link_now_us() + (uint64_t)l->delay_ms * 1000u;
    d->len = len;
    memcpy(d->data, pkt, len);
}

/* Carries one packet from peer[from] to the other (now, or after the delay), or loses it. */
static void carry(link_t *l, int from, uint8_t *pkt, size_t len, uint64_t now)
{
    if (!survives(l, from, pkt, len)) {
        return;
    }
    if (l->delay_ms == 0) {
        deliver(l, from, pkt, len, now);
    } else {
        delay_push(l, from, pkt, len);
    }
}

/* The next packet in flight: usrsctp's first (it answered synchronously), then zq's. */
static bool next_packet(link_t *l, int *from, uint8_t *pkt, size_t *len)
{
    void *addr;
    while (us_pop(&addr, pkt, len)) {
        for (int i = 0; i < 2; i++) {
            if (l->peer[i]->kind == LINK_USRSCTP && l->peer[i]->us_addr == addr) {
                *from = i;
                return true;
            }
        }
        /* a closed association's timer: stale */
    }
    if (wire.count == 0) {
        return false;
    }
    const wire_packet_t *w = &wire.slots[wire.head];
    *from = w->from;
    *len = w->len;
    memcpy(pkt, w->data, w->len);
    wire.head = (wire.head + 1) % WIRE_SLOTS;
    wire.count--;
    return true;
}

/* Every packet sent so far leaves: delivered at once, or into its delay line. */
static int depart(link_t *l, uint64_t now)
{
    static uint8_t pkt[US_PACKET_MAX];
    int moved = 0;
    int from;
    size_t len;
    while (next_packet(l, &from, pkt, &len)) {
        carry(l, from, pkt, len, now);
        moved++;
    }
    return moved;
}

/* The direction whose oldest delayed packet is due first, if one is due by @p t; else -1. */
static int due_direction(uint64_t t)
{
    int best = -1;
    for (int i = 0; i < 2; i++) {
        const delayed_packet_t *d = &delay_line[i].slots[delay_line[i].head];
        if (delay_line[i].count > 0 && d->due_us <= t &&
            (best < 0 || d->due_us < delay_line[best].slots[delay_line[best].head].due_us)) {
            best = i;
        }
    }
    return best;
}

/* Hands over every delayed packet that is due, oldest first; what the receiver answers
 * leaves as it is sent, so its delay counts from then. */
static int release_due(link_t *l, uint64_t now)
{
    int moved = 0;
    int from;
    while ((from = due_direction(link_now_us())) >= 0) {
        const delayed_packet_t *d = &delay_line[from].slots[delay_line[from].head];
        /* Delivered in place: the receiver's answers go to usrsctp's queue or the wire, and
         * only depart() below writes to a delay line. */
        deliver(l, from, d->data, d->len, now);
        delay_line[from].head = (delay_line[from].head + 1) % DELAY_SLOTS;
        delay_line[from].count--;
        moved += 1 + depart(l, now);
    }
    return moved;
}

/* Microseconds until the next delayed packet is due (0: one is due now), at most @p cap. */
static unsigned delay_wait_us(unsigned cap)
{
    uint64_t t = link_now_us();
    uint64_t wait = cap;
    for (int i = 0; i < 2; i++) {
        if (delay_line[i].count > 0) {
            uint64_t due = delay_line[i].slots[delay_line[i].head].due_us;
            wait = due <= t ? 0 : due - t < wait ? due - t : wait;
        }
    }
    return (unsigned)wait;
}

int link_step(link_t *l)
{
    uint64_t now = turn_now = link_now_ms();
    int moved = depart(l, now);
    if (l->delay_ms > 0) {
        moved += release_due(l, now);
    }
    for (int i = 0; i < 2; i++) {
        link_peer_t *p = l->peer[i];
        if (p->kind == LINK_ZQ && sctp_next_timeout(&p->assoc) <= now) {
            sctp_handle_timeout(&p->assoc, now);
            drain_zq(p);
            moved++;
        } else if (p->kind == LINK_USRSCTP && p->us.addr != NULL) {
            moved += drain_us(p);
        }
    }
    if (l->pump != NULL) {
        moved += l->pump(l, l->pump_ctx);
    }
    for (int i = 0; i < 2; i++) {
        if (l->peer[i]->kind == LINK_ZQ) {
            transmit_zq(l, l->peer[i], now);
        }
    }
    return moved + (int)wire.count;
}

static uint64_t next_zq_deadline(const link_t *l)
{
    uint64_t t = ZQ_TIME_NEVER;
    for (int i = 0; i < 2; i++) {
        if (l->peer[i]->kind == LINK_ZQ) {
            t = zq_time_min(t, sctp_next_timeout(&l->peer[i]->assoc));
        }
    }
    return t;
}

bool link_run(link_t *l, bool (*done)(link_t *l, void *ctx), void *ctx, uint32_t timeout_ms)
{
    uint64_t end = link_now_ms() + timeout_ms;
    while (done == NULL || !done(l, ctx)) {
        uint64_t now = link_now_ms();
        if (now >= end) {
            return false;
        }
        if (link_step(l) > 0) {
            continue;
        }
        /* Idle: wait for usrsctp's thread to send something, or zq's next deadline, within
         * 1 ms (zq's clock has ms resolution), or the next delayed packet. */
        unsigned wait = l->delay_ms > 0 ? delay_wait_us(1000) : 1000;
        if (next_zq_deadline(l) > now && wait > 0) {
            us_wait(wait);
        }
    }
    return true;
}

bool link_established(link_t *l, void *ctx)
{
    (void)ctx;
    return l->peer[0]->connected && l->peer[1]->connected;
}

/* ---- Application calls ----------------------------------------------------------------------- */

int link_send(link_peer_t *p, uint16_t stream, uint32_t ppid, const uint8_t *data, size_t len,
              const link_send_opts_t *opts)
{
    static const link_send_opts_t reliable = {false, -1};
    opts = opts != NULL ? opts : &reliable;
    if (p->aborted || p->lost) {
        return LINK_ERROR; /* the association is gone: nothing to report */
    }
    if (p->kind == LINK_USRSCTP) {
        int r = us_send(&p->us, stream, ppid, data, len, opts->unordered, opts->max_rtx);
        return r == US_SEND_OK ? LINK_SENT : r == US_SEND_BLOCKED ? LINK_BLOCKED : LINK_ERROR;
    }
    if (p->zq_blocked) {
        return LINK_BLOCKED; /* SCTP_EVENT_WRITABLE says when to try again */
    }
    sctp_send_opts_t o = {opts->unordered,
                          opts->max_rtx < 0 ? SCTP_RELIABLE : (uint16_t)opts->max_rtx, 0};
    uint64_t now = turn_now != 0 ? turn_now : link_now_ms();
    zq_err_t err = sctp_send(&p->assoc, now, stream, ppid, data, len, &o);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        p->zq_blocked = true;
        return LINK_BLOCKED;
    }
    if (err != ZQ_OK) {
        fprintf(stderr, "link: sctp_send(%zu bytes) failed: %s\n", len, zq_strerror(err));
        return LINK_ERROR;
    }
    return LINK_SENT;
}

int link_send_part(link_peer_t *p, uint16_t stream, uint32_t ppid, const uint8_t *data,
                   size_t len, bool first, bool last, const link_send_opts_t *opts,
                   size_t *accepted)
{
    static const link_send_opts_t reliable = {false, -1};
    opts = opts != NULL ? opts : &reliable;
    *accepted = 0;
    if (p->kind != LINK_ZQ) {
        return LINK_ERROR;
    }
    if (p->zq_blocked) {
        return LINK_BLOCKED;
    }
    sctp_send_opts_t o = {opts->unordered,
                          opts->max_rtx < 0 ? SCTP_RELIABLE : (uint16_t)opts->max_rtx, 0};
    uint64_t now = turn_now != 0 ? turn_now : link_now_ms();
    zq_err_t err =
        sctp_send_part(&p->assoc, now, stream, ppid, data, len, first, last, &o, accepted);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        p->zq_blocked = true;
        return LINK_BLOCKED;
    }
    if (err != ZQ_OK) {
        fprintf(stderr, "link: sctp_send_part(%zu bytes) failed: %s\n", len, zq_strerror(err));
        return LINK_ERROR;
    }
    if (*accepted < len) {
        p->zq_blocked = true; /* "call again with the rest after SCTP_EVENT_WRITABLE" */
        return LINK_BLOCKED;
    }
    return LINK_SENT;
}

bool link_all_acked(link_peer_t *p)
{
    if (p->kind == LINK_ZQ) {
        return sctp_all_acked(&p->assoc);
    }
    return us_pending_chunks(&p->us) == 0;
}

bool link_reset_stream(link_peer_t *p, uint16_t stream)
{
    if (p->kind == LINK_ZQ) {
        return sctp_reset_stream(&p->assoc, link_now_ms(), stream) == ZQ_OK;
    }
    return us_reset_stream(&p->us, stream);
}

void link_abort(link_t *l, link_peer_t *p)
{
    (void)l;
    if (p->kind == LINK_ZQ) {
        sctp_abort(&p->assoc, link_now_ms());
        drain_zq(p);
    } else {
        us_abort(&p->us); /* the ABORT is queued from within close */
    }
}

bool link_shutdown(link_peer_t *p)
{
    if (p->kind == LINK_ZQ) {
        return sctp_shutdown(&p->assoc, link_now_ms()) == ZQ_OK;
    }
    return us_shutdown(&p->us);
}

bool link_saw_zq(const link_peer_t *p, sctp_event_type_t type, uint16_t stream)
{
    for (int i = 0; i < p->n_zq_events; i++) {
        const sctp_event_t *e = &p->zq_events[i];
        if (e->type == type && (stream == 0xFFFF || e->stream == stream)) {
            return true;
        }
    }
    return false;
}

const us_note_t *link_saw_us(const link_peer_t *p, us_note_type_t type)
{
    for (int i = p->n_us_notes; i > 0; i--) {
        if (p->us_notes[i - 1].type == type) {
            return &p->us_notes[i - 1];
        }
    }
    return NULL;
}

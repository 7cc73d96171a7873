/* bench_sctp: SCTP bulk throughput and 64-byte message rate of zq next to usrsctp 0.9.5 (the
 * SCTP of Firefox, libdatachannel and, until 2021, Chrome) in one process and one run, on a
 * link with and without delay, with the memory one association takes at the same buffers.
 *
 *   bench_sctp [--runs N] [--seconds S] [--mb M] [--aim S] [--msgs K] [--rtt LIST]
 *              [--loss LIST]                                   Markdown tables
 *   bench_sctp --stacks                                        zq, usrsctp
 *   bench_sctp --count STACK bulk|msgs N    N MB, or N thousand 64-byte messages, STACK to
 *                                            STACK, inside bench_counted(), for valgrind
 *                                            --tool=callgrind --toggle-collect=bench_counted
 *
 * Both ends of every pair live in this process on tests/interop/sctp_link.c: no crypto, no
 * sockets; each packet is copied into an in-memory queue and handed to the other side, which
 * answers it at once (usrsctp does so inside usrsctp_conninput(); zq's side polls
 * sctp_poll_transmit() after each sctp_handle_packet(), as an application does). Loss drops
 * packets both ways from a seeded PRNG. With an RTT, every packet waits RTT/2 in its
 * direction's FIFO first (a Wi-Fi-like path: 20 or 50 ms, no reordering). usrsctp keeps its own
 * timer thread and clock, so every pair runs in real time: zq's `now` is CLOCK_MONOTONIC in ms,
 * and every number is wall time, for every pair. Each cell uses fresh associations (the
 * handshake is not timed).
 *
 * Equal buffers: one table per size (64 KiB, and 16 KiB, zq's embedded default), and in each
 * zq's send and receive buffers and usrsctp's SO_SNDBUF and SO_RCVBUF are all that size. Both
 * at 1200-byte packets; usrsctp configured as browsers configure it (usrsctp_side.c) with zq's
 * timers (RTO 500 ms initial, 250 ms min, 10 s max) so that loss recovery compares algorithms,
 * not timer settings. The link's tap shows what each advertises (a_rwnd). */
#include <malloc.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"
#include "sctp_link.h"

#define KIB 1024
#define MTU 1200
#define MAX_RUNS 9
#define PPID_BINARY 53

/* ---- What is measured ------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    size_t buf;     /* zq's send and receive buffers, usrsctp's SO_SNDBUF and SO_RCVBUF */
    size_t message; /* bulk message size: room for a few in either send buffer */
} config_t;

static const config_t configs[] = {
    {"64 KiB", 64 * KIB, 16 * KIB},
    {"16 KiB", 16 * KIB, 4 * KIB},
};
#define CONFIGS (int)(sizeof configs / sizeof configs[0])

enum { PAIR_ZZ, PAIR_ZU, PAIR_UZ, PAIR_UU, PAIRS };
static const char *const pair_names[PAIRS] = {"zq → zq", "zq → usrsctp", "usrsctp → zq",
                                              "usrsctp → usrsctp"};
static const bool pair_zq[PAIRS][2] = {{true, true}, {true, false}, {false, true}, {false, false}};

/* The rows: bulk at every RTT x loss asked for, then the 64-byte message rate at RTT 0. */
#define MAX_LIST 4
#define MAX_ROWS (MAX_LIST * MAX_LIST + 1)

typedef struct {
    bool messages;
    unsigned rtt_ms;
    double loss; /* percent */
} row_t;

typedef struct {
    int runs;
    double seconds;     /* cap per cell */
    double mb;          /* bulk target per cell, and the most a delayed cell aims for */
    double aim;         /* a delayed cell's target: what one window per RTT carries in this */
    unsigned long msgs; /* message-rate target per cell */
    unsigned rtt[MAX_LIST];
    double loss[MAX_LIST];
    int n_rtt, n_loss;
    row_t rows[MAX_ROWS];
    int n_rows;
    double value[CONFIGS][MAX_ROWS][PAIRS][MAX_RUNS];
    double moved[CONFIGS][MAX_ROWS][PAIRS][MAX_RUNS]; /* MB, or messages, when capped */
    bool capped[CONFIGS][MAX_ROWS][PAIRS][MAX_RUNS];
    double per_packet[CONFIGS][PAIRS][MAX_RUNS]; /* 64-byte messages per packet sent by A */
    sctp_stats_t zq_sender[CONFIGS][MAX_ROWS][PAIRS][MAX_RUNS]; /* when A is zq */
    us_stats_t us_sender[CONFIGS][MAX_ROWS][PAIRS][MAX_RUNS];   /* when A is usrsctp */
} results_t;

static results_t res;

/* ---- The pair -------------------------------------------------------------------------------- */

static link_peer_t peer_a; /* the sender */
static link_peer_t peer_b;
static link_t L;
static uint8_t zq_bufs[4][64 * KIB];
static uint8_t payload[64 * KIB];

/* What each stack advertised, seen by the link's tap (index 0: zq, 1: usrsctp). */
typedef struct {
    uint32_t init[2], init_ack[2]; /* a_rwnd of its INIT and of its INIT ACK */
    uint32_t sack_max[2];          /* the largest a_rwnd of its SACKs */
} windows_t;

static windows_t *tapping; /* open_pair() taps the link for this, when set */

static us_options_t us_options(uint16_t streams, size_t buf)
{
    us_options_t o;
    memset(&o, 0, sizeof o);
    o.streams = streams;
    o.mtu = MTU - 12; /* usrsctp's AF_CONN path MTU excludes the common header */
    o.port = 5000;
    o.rto_initial_ms = 500;
    o.rto_min_ms = 250;
    o.rto_max_ms = 10000;
    o.sndbuf = (uint32_t)buf; /* usrsctp keeps SO_SNDBUF and SO_RCVBUF as given */
    o.rcvbuf = (uint32_t)buf;
    o.browser_sysctls = true;
    return o;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_sctp: %s\n", what);
    exit(1);
}

/* A packet the link could not hold would be a loss nobody drew: no figure survives one. */
static void check_link(void)
{
    if (link_wire_overflows() != 0 || us_overflows() != 0) {
        fprintf(stderr, "bench_sctp: the link overflowed (wire or delay line %lu, usrsctp's "
                        "queue %lu packets)\n",
                link_wire_overflows(), us_overflows());
        exit(1);
    }
}

static uint32_t be32_at(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The a_rwnd of a chunk (INIT, INIT ACK, SACK: all at offset 8), or 0 if too short. */
static uint32_t chunk_rwnd(const uint8_t *c)
{
    size_t clen = (size_t)c[2] << 8 | c[3];
    return clen >= 12 ? be32_at(c + 8) : 0;
}

static bool window_tap(link_t *l, int from, uint8_t *pkt, size_t len, void *ctx)
{
    windows_t *w = ctx;
    int stack = l->peer[from]->kind == LINK_ZQ ? 0 : 1;
    const uint8_t *c;
    if ((c = link_find_chunk(pkt, len, 1)) != NULL) {
        w->init[stack] = chunk_rwnd(c);
    }
    if ((c = link_find_chunk(pkt, len, 2)) != NULL) {
        w->init_ack[stack] = chunk_rwnd(c);
    }
    if ((c = link_find_chunk(pkt, len, 3)) != NULL && chunk_rwnd(c) > w->sack_max[stack]) {
        w->sack_max[stack] = chunk_rwnd(c);
    }
    return false; /* only looks */
}

static uint64_t seed = 1;

/* Fresh associations with @p buf everywhere, established (both connect, as WebRTC peers do)
 * over a link of @p rtt_ms, lossless until now. */
static bool open_pair(int pair, size_t buf, uint16_t us_streams, unsigned rtt_ms)
{
    us_options_t o = us_options(us_streams, buf);
    seed++;
    if (pair_zq[pair][0]) {
        link_peer_zq(&peer_a, "A", zq_bufs[0], buf, zq_bufs[1], buf, MTU, seed * 2);
    } else {
        link_peer_usrsctp(&peer_a, "A", &o);
    }
    if (pair_zq[pair][1]) {
        link_peer_zq(&peer_b, "B", zq_bufs[2], buf, zq_bufs[3], buf, MTU, seed * 2 + 1);
    } else {
        link_peer_usrsctp(&peer_b, "B", &o);
    }
    link_init(&L, &peer_a, &peer_b, 0, seed);
    L.delay_ms = rtt_ms / 2;
    if (tapping != NULL) {
        L.filter = window_tap;
        L.filter_ctx = tapping;
    }
    const bool both[2] = {true, true};
    return link_start(&L, both) && link_run(&L, link_established, NULL, 5000);
}

static void close_pair(void)
{
    L.pump = NULL;
    peer_b.on_piece = NULL;
    link_close(&L);
    check_link();
}

/* ---- One transfer: messages of one size, A to B, until the target or the cap ----------------- */

static struct {
    size_t message;
    uint64_t target; /* bytes */
    uint64_t queued;
    uint64_t received;
    unsigned long messages;
    bool send_failed;
} T;

static int pump(link_t *l, void *ctx)
{
    (void)l;
    (void)ctx;
    int n = 0;
    while (T.queued < T.target) {
        int r = link_send(&peer_a, 1, PPID_BINARY, payload, T.message, NULL);
        if (r != LINK_SENT) {
            T.send_failed = r == LINK_ERROR;
            break;
        }
        T.queued += T.message;
        n++;
    }
    return n;
}

static void take(link_peer_t *p, const link_piece_t *m, void *ctx)
{
    (void)p;
    (void)ctx;
    T.received += m->len;
    T.messages += m->last;
}

static bool arrived(link_t *l, void *ctx)
{
    (void)l;
    (void)ctx;
    return T.received >= T.target || T.send_failed || peer_a.aborted || peer_b.aborted ||
           peer_a.lost || peer_b.lost;
}

/* Returns the wall time it took; *complete says whether everything arrived within the cap. */
static double transfer(size_t message, uint64_t bytes, double cap, bool *complete)
{
    memset(&T, 0, sizeof T);
    T.message = message;
    T.target = bytes;
    L.pump = pump;
    peer_b.on_piece = take;
    double t0 = now_seconds();
    bool done = link_run(&L, arrived, NULL, (uint32_t)(cap * 1000));
    double t = now_seconds() - t0;
    L.pump = NULL;
    *complete = done && T.received >= T.target;
    if (T.send_failed) {
        die("a send failed");
    }
    return t;
}

/* A bulk cell's target: --mb without delay; with one, what one window per round trip would
 * carry in --aim seconds (no stack beats that: each send buffer holds at most a window of
 * unacknowledged data), so a window-limited cell takes about as long at any RTT. */
static uint64_t cell_bytes(const config_t *c, const row_t *r)
{
    double bytes = res.mb * 1e6;
    if (r->rtt_ms > 0) {
        double bound = (double)c->buf * 1000.0 / r->rtt_ms * res.aim;
        bytes = bound < bytes ? bound : bytes;
    }
    return (uint64_t)bytes;
}

/* us_stats() is process-wide: around one cell it counts this pair's usrsctp ends only. */
static us_stats_t us_stats_since(const us_stats_t *before)
{
    us_stats_t now;
    us_stats(&now);
    now.t3_timeouts -= before->t3_timeouts;
    now.window_probes -= before->window_probes;
    now.fast_retransmits -= before->fast_retransmits;
    now.retransmitted_chunks -= before->retransmitted_chunks;
    now.sack_timeouts -= before->sack_timeouts;
    now.dup_data_in -= before->dup_data_in;
    return now;
}

static void measure(int cfg, int row, int pair, int run)
{
    const config_t *c = &configs[cfg];
    const row_t *r = &res.rows[row];
    if (!open_pair(pair, c->buf, 1024, r->rtt_ms)) {
        die("association not established");
    }
    L.loss_ppm = (uint32_t)(r->loss * 10000);
    us_stats_t us_before;
    us_stats(&us_before);
    bool complete;
    double t;
    if (r->messages) {
        t = transfer(64, (uint64_t)res.msgs * 64, res.seconds, &complete);
        res.value[cfg][row][pair][run] = (double)T.messages / t;
        res.moved[cfg][row][pair][run] = (double)T.messages;
        res.per_packet[cfg][pair][run] = (double)T.messages / (double)L.sent[0];
    } else {
        t = transfer(c->message, cell_bytes(c, r), res.seconds, &complete);
        res.value[cfg][row][pair][run] = (double)T.received / 1e6 / t;
        res.moved[cfg][row][pair][run] = (double)T.received / 1e6;
    }
    res.capped[cfg][row][pair][run] = !complete;
    if (pair_zq[pair][0]) {
        res.zq_sender[cfg][row][pair][run] = *sctp_stats(&peer_a.assoc);
    } else {
        res.us_sender[cfg][row][pair][run] = us_stats_since(&us_before);
    }
    close_pair();
}

/* What each stack advertises at these buffers: zq -> usrsctp shows usrsctp's SACKs, usrsctp ->
 * zq zq's, and both handshakes both INITs and INIT ACKs (both sides connect). */
static windows_t measure_windows(const config_t *c)
{
    static windows_t w;
    memset(&w, 0, sizeof w);
    tapping = &w;
    const int pairs[] = {PAIR_ZU, PAIR_UZ};
    for (int i = 0; i < 2; i++) {
        if (!open_pair(pairs[i], c->buf, 1024, 0)) {
            die("association not established");
        }
        bool complete;
        (void)transfer(c->message, 2 * 1000 * 1000, 5, &complete);
        close_pair();
    }
    tapping = NULL;
    return w;
}

/* ---- Memory ----------------------------------------------------------------------------------- */

/* usrsctp's heap, counted by replacing malloc (glibc allows it, and libusrsctp.so's calls land
 * here too): every thread's allocations, which mallinfo2() would not give (it sees only the
 * main arena, and usrsctp's timer thread allocates from another). Off except while measuring,
 * so instruction counts and timings pay one untaken branch per call. */
#if defined(__SANITIZE_ADDRESS__)
#define BENCH_COUNT_HEAP 0 /* AddressSanitizer owns malloc */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BENCH_COUNT_HEAP 0
#endif
#endif
#ifndef BENCH_COUNT_HEAP
#define BENCH_COUNT_HEAP 1
#endif

static _Atomic bool heap_counting;
static _Atomic long heap_live;
static _Atomic long heap_peak;

#if BENCH_COUNT_HEAP
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

static void heap_add(void *p)
{
    if (p != NULL && heap_counting) {
        long size = (long)malloc_usable_size(p);
        long now = atomic_fetch_add(&heap_live, size) + size; /* clang refuses `x += ` here */
        long peak = heap_peak;
        while (now > peak && !atomic_compare_exchange_weak(&heap_peak, &peak, now)) {
        }
    }
}

static void heap_sub(void *p)
{
    if (p != NULL && heap_counting) {
        heap_live -= (long)malloc_usable_size(p);
    }
}

void *malloc(size_t size)
{
    void *p = __libc_malloc(size);
    heap_add(p);
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *p = __libc_calloc(n, size);
    heap_add(p);
    return p;
}

void *realloc(void *old, size_t size)
{
    heap_sub(old);
    void *p = __libc_realloc(old, size);
    heap_add(p != NULL ? p : (size != 0 ? old : NULL));
    return p;
}

void free(void *p)
{
    heap_sub(p);
    __libc_free(p);
}
#endif /* BENCH_COUNT_HEAP */

typedef struct {
    long established;  /* heap per association once established */
    long full;         /* ... with a reader that stopped: both buffers full */
    long peak;         /* the most at once, per association, over all of it */
    long streams_65535;
} us_memory_t;

/* usrsctp<->usrsctp with SO_SNDBUF and SO_RCVBUF at @p c's size: what its heap grew by,
 * halved (two associations), after a warm-up pair so that usrsctp's process-wide caches are
 * not counted. A block freed by counting code but allocated before (or the reverse) only
 * shifts the baseline, which is taken just before. */
static us_memory_t measure_us_memory(const config_t *c)
{
    us_memory_t m;
    if (!open_pair(PAIR_UU, c->buf, 1024, 0)) {
        die("association not established");
    }
    close_pair();
    heap_counting = true;
    long base = heap_live;
    heap_peak = base;
    if (!open_pair(PAIR_UU, c->buf, 1024, 0)) {
        die("association not established");
    }
    m.established = (heap_live - base) / 2;
    bool complete;
    (void)transfer(c->message, 20 * 1000 * 1000, 5, &complete);
    /* Stop reading: the receiver's buffer fills, then the sender's (a second is ample at
     * these rates), as with a slow reader. */
    peer_b.paused = true;
    memset(&T, 0, sizeof T);
    T.message = c->message;
    T.target = UINT64_MAX;
    L.pump = pump;
    link_run(&L, NULL, NULL, 1000);
    m.full = (heap_live - base) / 2;
    m.peak = (heap_peak - base) / 2;
    peer_b.paused = false;
    close_pair();
    base = heap_live;
    if (!open_pair(PAIR_UU, c->buf, 65535, 0)) {
        die("association not established");
    }
    m.streams_65535 = (heap_live - base) / 2;
    close_pair();
    heap_counting = false;
    return m;
}

/* ---- Instruction counts: the only region callgrind collects ---------------------------------- */

long bench_counted(bool messages, unsigned long n);

BENCH_NOT_INLINED long bench_counted(bool messages, unsigned long n)
{
    bool complete;
    if (messages) {
        (void)transfer(64, (uint64_t)n * 1000 * 64, 600, &complete);
    } else {
        (void)transfer(configs[0].message, (uint64_t)n * 1000 * 1000, 600, &complete);
    }
    return complete ? 0 : -1;
}

/* Counted at RTT 0 without loss, with the first table's buffers (64 KiB) on both stacks. */
static int count_mode(const char *stack, const char *what, unsigned long n)
{
    bool zq = strcmp(stack, "zq") == 0;
    bool messages = strcmp(what, "msgs") == 0;
    if ((!zq && strcmp(stack, "usrsctp") != 0) || (!messages && strcmp(what, "bulk") != 0)) {
        die("--count zq|usrsctp bulk|msgs N");
    }
    if (!open_pair(zq ? PAIR_ZZ : PAIR_UU, configs[0].buf, 1024, 0)) {
        die("association not established");
    }
    bool complete;
    (void)transfer(configs[0].message, 2 * 1000 * 1000, 60, &complete); /* warm-up */
    if (bench_counted(messages, n) != 0) {
        die("counted run failed");
    }
    close_pair();
    if (messages) {
        printf("messages %lu\n", n * 1000);
    } else {
        printf("bytes %lu\n", n * 1000 * 1000);
    }
    return 0;
}

/* ---- The tables ------------------------------------------------------------------------------ */

static void print_value(double v, bool capped)
{
    if (v >= 10000) {
        printf(" %.0fk%s |", v / 1000, capped ? "*" : "");
    } else {
        printf(v < 10 ? " %.2f%s |" : " %.1f%s |", v, capped ? "*" : "");
    }
}

static void row_label(const row_t *r, char *out, size_t cap)
{
    char rtt[32];
    if (r->rtt_ms == 0) {
        snprintf(rtt, sizeof rtt, "RTT 0 (no delay)");
    } else {
        snprintf(rtt, sizeof rtt, "RTT %u ms", r->rtt_ms);
    }
    snprintf(out, cap, "%s, %s, %g%% loss", r->messages ? "64-byte messages/s" : "bulk MB/s", rtt,
             r->loss);
}

static void print_cell_row(int cfg, int row)
{
    char label[96];
    row_label(&res.rows[row], label, sizeof label);
    printf("| %s |", label);
    for (int pair = 0; pair < PAIRS; pair++) {
        bool capped = false;
        for (int run = 0; run < res.runs; run++) {
            capped |= res.capped[cfg][row][pair][run];
        }
        print_value(bench_median(res.value[cfg][row][pair], res.runs), capped);
    }
    double ratios[MAX_RUNS];
    for (int run = 0; run < res.runs; run++) {
        double us = res.value[cfg][row][PAIR_UU][run];
        ratios[run] = us > 0 ? res.value[cfg][row][PAIR_ZZ][run] / us : 0;
    }
    printf(" %.2f |\n", bench_median(ratios, res.runs));
}

/* The median of one of usrsctp's memory figures over the runs, and its range. */
static double us_memory_median(const us_memory_t *m, size_t field, double *lo, double *hi)
{
    double v[MAX_RUNS];
    *lo = 1e18;
    *hi = 0;
    for (int i = 0; i < res.runs; i++) {
        v[i] = (double)*(const long *)(const void *)((const char *)&m[i] + field);
        *lo = v[i] < *lo ? v[i] : *lo;
        *hi = v[i] > *hi ? v[i] : *hi;
    }
    return bench_median(v, res.runs);
}

/* zq's figure under zq → zq, usrsctp's under usrsctp → usrsctp: memory belongs to a stack. */
static void print_memory_row(const char *label, size_t zq, const us_memory_t *m, size_t field,
                             bool range)
{
    printf("| %s | %zu | | |", label, zq);
    if (!BENCH_COUNT_HEAP) {
        printf(" — | — |\n");
        return;
    }
    double lo;
    double hi;
    double us = us_memory_median(m, field, &lo, &hi);
    if (range && res.runs > 1) {
        printf(" %.0f (%.0f-%.0f) |", us, lo, hi);
    } else {
        printf(" %.0f |", us);
    }
    printf(" %.2f |\n", (double)zq / us);
}

static void print_runs(int cfg, int row)
{
    const row_t *r = &res.rows[row];
    char label[96];
    row_label(r, label, sizeof label);
    printf("- %s", label);
    if (!r->messages && r->rtt_ms > 0) {
        printf(" (%.2f MB a cell; one window per RTT is %.2f MB/s)",
               (double)cell_bytes(&configs[cfg], r) / 1e6,
               (double)configs[cfg].buf * 1000.0 / r->rtt_ms / 1e6);
    }
    printf(", each run:");
    for (int pair = 0; pair < PAIRS; pair++) {
        printf("%s %s", pair == 0 ? "" : ";", pair_names[pair]);
        for (int run = 0; run < res.runs; run++) {
            double v = res.value[cfg][row][pair][run];
            if (res.capped[cfg][row][pair][run]) {
                printf(r->messages ? " %.0f* (%.0f in %g s)" : " %.2f* (%.2f MB in %g s)", v,
                       res.moved[cfg][row][pair][run], res.seconds);
            } else {
                printf(r->messages ? " %.0f" : " %.2f", v);
            }
        }
    }
    printf("\n");
}

/* How each sender recovered in a bulk row: zq's own counters, usrsctp's process-wide ones
 * taken around the cell (only the pair's usrsctp ends ran in it). */
static void print_recovery(int cfg, int row)
{
    char label[96];
    row_label(&res.rows[row], label, sizeof label);
    printf("- %s, recovery, each run: zq sending (fast retransmits / lost retransmissions sent "
           "again / probes / T3 expirations):",
           label);
    for (int pair = 0; pair < PAIRS; pair++) {
        if (pair == PAIR_UZ) {
            printf("; usrsctp sending (fast retransmits / T3 expirations):");
        }
        printf("%s %s", pair == PAIR_ZZ || pair == PAIR_UZ ? "" : ";", pair_names[pair]);
        for (int run = 0; run < res.runs; run++) {
            if (pair_zq[pair][0]) {
                const sctp_stats_t *st = &res.zq_sender[cfg][row][pair][run];
                printf(" %u/%u/%u/%u", st->fast_retransmits, st->lost_retransmits,
                       st->tail_probes, st->t3_expirations);
            } else {
                const us_stats_t *st = &res.us_sender[cfg][row][pair][run];
                printf(" %lu/%lu", st->fast_retransmits, st->t3_timeouts);
            }
        }
    }
    printf("\n");
}

static void print_table(int cfg, const us_memory_t *m, const windows_t *w)
{
    const config_t *c = &configs[cfg];
    printf("### %s send and %s receive buffers on both stacks; bulk in %zu KiB messages\n\n",
           c->name, c->name, c->message / KIB);
    printf("| measure | zq → zq | zq → usrsctp | usrsctp → zq | usrsctp → usrsctp | "
           "zq→zq / usrsctp→usrsctp |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    for (int row = 0; row < res.n_rows; row++) {
        print_cell_row(cfg, row);
    }
    size_t zq = sizeof(sctp_assoc_t) + 2 * c->buf;
    print_memory_row("memory per association, bytes: established", zq, m,
                     offsetof(us_memory_t, established), false);
    print_memory_row("memory per association, bytes: peak (20 MB bulk, then a stopped reader "
                     "until both buffers are full)",
                     zq, m, offsetof(us_memory_t, peak), true);
    printf("\n");
    for (int row = 0; row < res.n_rows; row++) {
        print_runs(cfg, row);
    }
    for (int row = 0; row < res.n_rows; row++) {
        if (!res.rows[row].messages) {
            print_recovery(cfg, row); /* lossless rows too: a spurious retransmission shows */
        }
    }
    for (int row = 0; row < res.n_rows; row++) {
        if (!res.rows[row].messages) {
            continue;
        }
        printf("- 64-byte messages per packet the sender sent (bundling), each run:");
        for (int pair = 0; pair < PAIRS; pair++) {
            printf("%s %s", pair == 0 ? "" : ";", pair_names[pair]);
            for (int run = 0; run < res.runs; run++) {
                printf(" %.1f", res.per_packet[cfg][pair][run]);
            }
        }
        printf("\n");
    }
    printf("- a_rwnd advertised, bytes (the link's tap, zq ↔ usrsctp, 2 MB each way): zq's "
           "INIT %u, INIT ACK %u, largest SACK %u; usrsctp's INIT %u, INIT ACK %u, largest "
           "SACK %u\n",
           w->init[0], w->init_ack[0], w->sack_max[0], w->init[1], w->init_ack[1],
           w->sack_max[1]);
    if (BENCH_COUNT_HEAP) {
        printf("- usrsctp's memory, each run: established");
        for (int run = 0; run < res.runs; run++) {
            printf(" %ld", m[run].established);
        }
        printf("; buffers full");
        for (int run = 0; run < res.runs; run++) {
            printf(" %ld", m[run].full);
        }
        printf("; peak");
        for (int run = 0; run < res.runs; run++) {
            printf(" %ld", m[run].peak);
        }
        printf("; established with 65535 streams each way");
        for (int run = 0; run < res.runs; run++) {
            printf(" %ld", m[run].streams_65535);
        }
        printf("\n");
    }
    printf("\n");
}

static void print_notes(void)
{
    printf("Medians of %d runs; the ratio is the median of the per-run ratios (all four pairs "
           "measured back to back in each run). Wall time, both ends in one process on %ld "
           "cores; MB = 10^6 bytes of payload. A bulk cell moves %.0f MB without delay, and "
           "with one what one window per round trip would carry in %.1f s (at most %.0f MB), ",
           res.runs, sysconf(_SC_NPROCESSORS_ONLN), res.mb, res.aim, res.mb);
    if (res.rows[res.n_rows - 1].messages) {
        printf("the message rate %lu 64-byte messages, ", res.msgs);
    }
    printf("each on fresh associations, or what got through in %g s (marked *). RTT: RTT/2 "
           "each way in a FIFO, no reordering; RTT 0 hands each packet over at once, so "
           "timers, not round trips, decide its lossy rows. Loss drops packets both ways, "
           "after the handshake.\n\n",
           res.seconds);
    printf("zq's CRC32c here: %s; usrsctp's: slicing-by-8 tables.\n\n",
           sctp_crc32c_hardware() ? "the CPU's instruction (SSE4.2 or ARMv8 CRC)"
                                  : "slicing-by-8 tables (no CRC instruction)");
    if (!BENCH_COUNT_HEAP) {
        printf("usrsctp's memory not measured: built with AddressSanitizer, which owns "
               "malloc.\n\n");
    }
}

static void print_memory_notes(void)
{
    printf("- zq's memory: sizeof(sctp_assoc_t) = %zu plus the two caller buffers; nothing "
           "else, ever (no heap)\n",
           sizeof(sctp_assoc_t));
    printf("- usrsctp's memory: heap growth for a usrsctp↔usrsctp pair with SO_SNDBUF and "
           "SO_RCVBUF at the table's size, halved (malloc_usable_size of every block any "
           "thread allocates, counted by a malloc replacement); 1024 streams each way unless "
           "said; after a warm-up pair, so usrsctp's process-wide caches are not counted\n");
}

/* ---- Options ---------------------------------------------------------------------------------- */

/* "0,20,50" into at most MAX_LIST values: how many, or -1 if malformed. */
static int parse_list(const char *s, double *out)
{
    int n = 0;
    while (*s != '\0') {
        char *end;
        double v = strtod(s, &end);
        if (end == s || n == MAX_LIST || (*end != ',' && *end != '\0')) {
            return -1;
        }
        out[n++] = v;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static void set_rtts(const char *s)
{
    double v[MAX_LIST];
    int n = parse_list(s, v);
    for (int i = 0; i < n; i++) {
        unsigned ms = (unsigned)v[i];
        if (v[i] < 0 || v[i] != (double)ms || ms % 2 != 0 || ms > 2000) {
            n = -1; /* RTT/2 each way, in whole ms */
            break;
        }
        res.rtt[i] = ms;
    }
    if (n < 1) {
        die("--rtt: 1 to 4 even numbers of ms, comma-separated (e.g. 0,20,50)");
    }
    res.n_rtt = n;
}

static void set_losses(const char *s)
{
    double v[MAX_LIST];
    int n = parse_list(s, v);
    for (int i = 0; i < n; i++) {
        if (v[i] < 0 || v[i] >= 100) {
            n = -1;
            break;
        }
        res.loss[i] = v[i];
    }
    if (n < 1) {
        die("--loss: 1 to 4 percentages, comma-separated (e.g. 0,1,5)");
    }
    res.n_loss = n;
}

/* Bulk rows for every RTT x loss, then the message rate if RTT 0 is among them. */
static void build_rows(void)
{
    res.n_rows = 0;
    bool rtt0 = false;
    for (int i = 0; i < res.n_rtt; i++) {
        rtt0 |= res.rtt[i] == 0;
        for (int j = 0; j < res.n_loss; j++) {
            res.rows[res.n_rows++] = (row_t){false, res.rtt[i], res.loss[j]};
        }
    }
    if (rtt0) {
        res.rows[res.n_rows++] = (row_t){true, 0, 0};
    }
}

static void parse_options(int argc, char **argv)
{
    res.runs = 3;
    res.seconds = 3; /* 48 delayed cells a run, most of them capped: ~2.5 minutes a run */
    res.mb = 50;
    res.aim = 1.5; /* so a delayed cell marked * moved less than half a window per RTT */
    res.msgs = 1000000;
    set_rtts("0,20,50");
    set_losses("0,1,5");
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (val == NULL) {
            die("usage: bench_sctp [--runs N] [--seconds S] [--mb M] [--aim S] [--msgs K] "
                "[--rtt LIST] [--loss LIST] | --stacks | --count STACK bulk|msgs N");
        }
        i++;
        if (strcmp(arg, "--runs") == 0) {
            res.runs = atoi(val);
        } else if (strcmp(arg, "--seconds") == 0) {
            res.seconds = atof(val);
        } else if (strcmp(arg, "--mb") == 0) {
            res.mb = atof(val);
        } else if (strcmp(arg, "--aim") == 0) {
            res.aim = atof(val);
        } else if (strcmp(arg, "--msgs") == 0) {
            res.msgs = strtoul(val, NULL, 10);
        } else if (strcmp(arg, "--rtt") == 0) {
            set_rtts(val);
        } else if (strcmp(arg, "--loss") == 0) {
            set_losses(val);
        } else {
            die("usage: bench_sctp [--runs N] [--seconds S] [--mb M] [--aim S] [--msgs K] "
                "[--rtt LIST] [--loss LIST] | --stacks | --count STACK bulk|msgs N");
        }
    }
    if (res.runs < 1 || res.runs > MAX_RUNS || !(res.seconds > 0) || !(res.mb > 0) ||
        !(res.aim > 0)) {
        die("--runs 1..9, --seconds > 0, --mb > 0, --aim > 0");
    }
    build_rows();
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--stacks") == 0) {
        printf("zq\nusrsctp\n");
        return 0;
    }
    for (size_t i = 0; i < sizeof payload; i++) {
        payload[i] = (uint8_t)(i * 7 + 3);
    }
    us_global_init(true);
    if (argc == 5 && strcmp(argv[1], "--count") == 0) {
        int rc = count_mode(argv[2], argv[3], strtoul(argv[4], NULL, 10));
        us_global_finish();
        return rc;
    }
    parse_options(argc, argv);
    static windows_t windows[CONFIGS];
    static us_memory_t mem[CONFIGS][MAX_RUNS];
    for (int cfg = 0; cfg < CONFIGS; cfg++) {
        windows[cfg] = measure_windows(&configs[cfg]);
    }
    for (int run = 0; run < res.runs; run++) {
        for (int cfg = 0; cfg < CONFIGS; cfg++) {
            mem[cfg][run] = measure_us_memory(&configs[cfg]);
            for (int row = 0; row < res.n_rows; row++) {
                for (int pair = 0; pair < PAIRS; pair++) {
                    measure(cfg, row, pair, run);
                }
            }
        }
    }
    print_notes();
    for (int cfg = 0; cfg < CONFIGS; cfg++) {
        print_table(cfg, mem[cfg], &windows[cfg]);
    }
    print_memory_notes();
    us_global_finish();
    return 0;
}

/* bench_sctp: SCTP bulk throughput and 64-byte message rate of zq next to usrsctp 0.9.5 (the
 * SCTP of Firefox, libdatachannel and, until 2021, Chrome) in one process and one run, with
 * the memory one association takes.
 *
 *   bench_sctp [--runs N] [--seconds S] [--mb M] [--msgs K]   Markdown tables
 *   bench_sctp --stacks                                        zq, usrsctp
 *   bench_sctp --count STACK bulk|msgs N    N MB, or N thousand 64-byte messages, STACK to
 *                                            STACK, inside bench_counted(), for valgrind
 *                                            --tool=callgrind --toggle-collect=bench_counted
 *
 * Both ends of every pair live in this process on tests/interop/sctp_link.c: no crypto, no
 * sockets; each packet is copied into an in-memory queue and handed to the other side, which
 * answers it at once (usrsctp does so inside usrsctp_conninput(); zq's side polls
 * sctp_poll_transmit() after each sctp_handle_packet(), as an application does). Loss drops
 * packets both ways from a seeded PRNG. usrsctp keeps its own timer thread and clock, so
 * every pair runs in real time: zq's `now` is CLOCK_MONOTONIC in ms, and every number is wall
 * time, for every pair. Each cell uses fresh associations (the handshake is not timed).
 *
 * zq: sctp_config_default() at a 1200-byte MTU; send and receive buffers of 64 KiB, and again
 * of 16 KiB (the embedded default), each in its own table. usrsctp: its default buffers
 * (256 KiB send, 128 KiB receive), configured as browsers configure it (usrsctp_side.c),
 * 1200-byte packets, and zq's timers (RTO 500 ms initial, 250 ms min, 10 s max) so that loss
 * recovery compares algorithms, not timer settings. */
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
    size_t buf;     /* zq's send and receive buffers */
    size_t message; /* bulk message size: room for a few in zq's send buffer */
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

enum { ROW_BULK0, ROW_BULK1, ROW_BULK5, ROW_MSGS, ROWS };
static const char *const row_names[ROWS] = {"bulk MB/s, 0% loss", "bulk MB/s, 1% loss",
                                            "bulk MB/s, 5% loss", "64-byte messages/s, 0% loss"};
static const double row_loss[ROWS] = {0, 1, 5, 0};

typedef struct {
    int runs;
    double seconds;       /* cap per cell */
    double mb;            /* bulk target per cell */
    unsigned long msgs;   /* message-rate target per cell */
    double value[CONFIGS][ROWS][PAIRS][MAX_RUNS];
    double moved[CONFIGS][ROWS][PAIRS][MAX_RUNS]; /* MB, or messages, when capped */
    bool capped[CONFIGS][ROWS][PAIRS][MAX_RUNS];
    double per_packet[CONFIGS][PAIRS][MAX_RUNS]; /* 64-byte messages per packet sent by A */
    sctp_stats_t zq_sender[CONFIGS][ROWS][PAIRS][MAX_RUNS]; /* when A is zq */
} results_t;

static results_t res;

/* ---- The pair -------------------------------------------------------------------------------- */

static link_peer_t peer_a; /* the sender */
static link_peer_t peer_b;
static link_t L;
static uint8_t zq_bufs[4][64 * KIB];
static uint8_t payload[64 * KIB];

static us_options_t us_options(uint16_t streams)
{
    us_options_t o;
    memset(&o, 0, sizeof o);
    o.streams = streams;
    o.mtu = MTU - 12; /* usrsctp's AF_CONN path MTU excludes the common header */
    o.port = 5000;
    o.rto_initial_ms = 500;
    o.rto_min_ms = 250;
    o.rto_max_ms = 10000;
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

static uint64_t seed = 1;

/* Fresh associations, established (both connect, as WebRTC peers do), lossless until now. */
static bool open_pair(int pair, size_t zq_buf, uint16_t us_streams)
{
    us_options_t o = us_options(us_streams);
    seed++;
    if (pair_zq[pair][0]) {
        link_peer_zq(&peer_a, "A", zq_bufs[0], zq_buf, zq_bufs[1], zq_buf, MTU, seed * 2);
    } else {
        link_peer_usrsctp(&peer_a, "A", &o);
    }
    if (pair_zq[pair][1]) {
        link_peer_zq(&peer_b, "B", zq_bufs[2], zq_buf, zq_bufs[3], zq_buf, MTU, seed * 2 + 1);
    } else {
        link_peer_usrsctp(&peer_b, "B", &o);
    }
    link_init(&L, &peer_a, &peer_b, 0, seed);
    const bool both[2] = {true, true};
    return link_start(&L, both) && link_run(&L, link_established, NULL, 5000);
}

static void close_pair(void)
{
    L.pump = NULL;
    peer_b.on_piece = NULL;
    link_close(&L);
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

static void measure(int cfg, int row, int pair, int run)
{
    const config_t *c = &configs[cfg];
    if (!open_pair(pair, c->buf, 1024)) {
        die("association not established");
    }
    L.loss_ppm = (uint32_t)(row_loss[row] * 10000);
    bool complete;
    double t;
    if (row == ROW_MSGS) {
        t = transfer(64, (uint64_t)res.msgs * 64, res.seconds, &complete);
        res.value[cfg][row][pair][run] = (double)T.messages / t;
        res.moved[cfg][row][pair][run] = (double)T.messages;
        res.per_packet[cfg][pair][run] = (double)T.messages / (double)L.sent[0];
    } else {
        t = transfer(c->message, (uint64_t)(res.mb * 1e6), res.seconds, &complete);
        res.value[cfg][row][pair][run] = (double)T.received / 1e6 / t;
        res.moved[cfg][row][pair][run] = (double)T.received / 1e6;
    }
    res.capped[cfg][row][pair][run] = !complete;
    if (pair_zq[pair][0]) {
        res.zq_sender[cfg][row][pair][run] = *sctp_stats(&peer_a.assoc);
    }
    close_pair();
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

/* usrsctp<->usrsctp: what its heap grew by, halved (two associations), after a warm-up pair
 * so that usrsctp's process-wide caches are not counted. A block freed by counting code but
 * allocated before (or the reverse) only shifts the baseline, which is taken just before. */
static us_memory_t measure_us_memory(void)
{
    us_memory_t m;
    if (!open_pair(PAIR_UU, 64 * KIB, 1024)) {
        die("association not established");
    }
    close_pair();
    heap_counting = true;
    long base = heap_live;
    heap_peak = base;
    if (!open_pair(PAIR_UU, 64 * KIB, 1024)) {
        die("association not established");
    }
    m.established = (heap_live - base) / 2;
    bool complete;
    (void)transfer(64 * KIB, 20 * 1000 * 1000, 5, &complete);
    /* Stop reading: the receiver's buffer fills, then the sender's (a second is ample at
     * these rates), as with a slow reader. */
    peer_b.paused = true;
    memset(&T, 0, sizeof T);
    T.message = 64 * KIB;
    T.target = UINT64_MAX;
    L.pump = pump;
    link_run(&L, NULL, NULL, 1000);
    m.full = (heap_live - base) / 2;
    m.peak = (heap_peak - base) / 2;
    peer_b.paused = false;
    close_pair();
    base = heap_live;
    if (!open_pair(PAIR_UU, 64 * KIB, 65535)) {
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

static int count_mode(const char *stack, const char *what, unsigned long n)
{
    bool zq = strcmp(stack, "zq") == 0;
    bool messages = strcmp(what, "msgs") == 0;
    if ((!zq && strcmp(stack, "usrsctp") != 0) || (!messages && strcmp(what, "bulk") != 0)) {
        die("--count zq|usrsctp bulk|msgs N");
    }
    if (!open_pair(zq ? PAIR_ZZ : PAIR_UU, configs[0].buf, 1024)) {
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
        printf(" %.1f%s |", v, capped ? "*" : "");
    }
}

static void print_table(int cfg)
{
    const config_t *c = &configs[cfg];
    printf("### zq with %s send and %s receive buffers; bulk in %zu KiB messages\n\n", c->name,
           c->name, c->message / KIB);
    printf("| measure | zq → zq | zq → usrsctp | usrsctp → zq | usrsctp → usrsctp | "
           "zq→zq / usrsctp→usrsctp |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    for (int row = 0; row < ROWS; row++) {
        printf("| %s |", row_names[row]);
        for (int pair = 0; pair < PAIRS; pair++) {
            bool capped = false;
            for (int run = 0; run < res.runs; run++) {
                capped |= res.capped[cfg][row][pair][run];
            }
            print_value(bench_median(res.value[cfg][row][pair], res.runs), capped);
        }
        double ratios[MAX_RUNS];
        for (int run = 0; run < res.runs; run++) {
            ratios[run] = res.value[cfg][row][PAIR_ZZ][run] / res.value[cfg][row][PAIR_UU][run];
        }
        printf(" %.2f |\n", bench_median(ratios, res.runs));
    }
    printf("\n");
    for (int row = 0; row < ROWS; row++) {
        printf("- %s, each run:", row_names[row]);
        for (int pair = 0; pair < PAIRS; pair++) {
            printf("%s %s", pair == 0 ? "" : ";", pair_names[pair]);
            for (int run = 0; run < res.runs; run++) {
                double v = res.value[cfg][row][pair][run];
                if (res.capped[cfg][row][pair][run]) {
                    printf(row == ROW_MSGS ? " %.0f* (%.0f in %.0f s)"
                                           : " %.1f* (%.1f MB in %.0f s)",
                           v, res.moved[cfg][row][pair][run], res.seconds);
                } else {
                    printf(row == ROW_MSGS ? " %.0f" : " %.1f", v);
                }
            }
        }
        printf("\n");
    }
    for (int row = ROW_BULK1; row <= ROW_BULK5; row++) {
        printf("- zq sending, %s: fast retransmits / lost retransmissions sent again / probes / "
               "T3 expirations, each run:",
               row_names[row]);
        for (int pair = 0; pair < PAIRS; pair++) {
            if (!pair_zq[pair][0]) {
                continue;
            }
            printf("%s %s", pair == 0 ? "" : ";", pair_names[pair]);
            for (int run = 0; run < res.runs; run++) {
                const sctp_stats_t *st = &res.zq_sender[cfg][row][pair][run];
                printf(" %u/%u/%u/%u", st->fast_retransmits, st->lost_retransmits,
                       st->tail_probes, st->t3_expirations);
            }
        }
        printf("\n");
    }
    printf("- 64-byte messages per packet the sender sent (bundling), each run:");
    for (int pair = 0; pair < PAIRS; pair++) {
        printf("%s %s", pair == 0 ? "" : ";", pair_names[pair]);
        for (int run = 0; run < res.runs; run++) {
            printf(" %.1f", res.per_packet[cfg][pair][run]);
        }
    }
    printf("\n\n");
}

static void print_notes(void)
{
    printf("Medians of %d runs; the ratio is the median of the per-run ratios (all four pairs "
           "measured back to back in each run). Wall time, both ends in one process on %ld "
           "cores; MB = 10^6 bytes of payload. Each cell moves %.0f MB (message rate: %lu "
           "messages) on fresh associations, or what got through in %.0f s (marked *). "
           "Loss drops packets both ways.\n\n",
           res.runs, sysconf(_SC_NPROCESSORS_ONLN), res.mb, res.msgs, res.seconds);
    printf("zq's CRC32c here: %s; usrsctp's: slicing-by-8 tables.\n\n",
           sctp_crc32c_hardware() ? "the CPU's instruction (SSE4.2 or ARMv8 CRC)"
                                  : "slicing-by-8 tables (no CRC instruction)");
}

/* Median of a field over the runs, and its range (the full buffers vary with timing). */
static void memory_cell(const us_memory_t *m, int runs, size_t field, bool range)
{
    double v[MAX_RUNS];
    double lo = 1e18;
    double hi = 0;
    for (int i = 0; i < runs; i++) {
        v[i] = (double)*(const long *)(const void *)((const char *)&m[i] + field);
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    if (range && runs > 1) {
        printf(" %.0f (%.0f-%.0f) |\n", bench_median(v, runs), lo, hi);
    } else {
        printf(" %.0f |\n", bench_median(v, runs));
    }
}

static void print_memory(const us_memory_t *m, int runs)
{
    if (!BENCH_COUNT_HEAP) {
        printf("usrsctp's memory not measured: built with AddressSanitizer, which owns "
               "malloc.\n\n");
        return;
    }
    size_t zq64 = sizeof(sctp_assoc_t) + 2 * 64 * KIB;
    size_t zq16 = sizeof(sctp_assoc_t) + 2 * 16 * KIB;
    printf("| memory per association, bytes | zq, 64 KiB buffers | zq, 16 KiB buffers | "
           "usrsctp |\n");
    printf("|---|---:|---:|---:|\n");
    printf("| established | %zu | %zu |", zq64, zq16);
    memory_cell(m, runs, offsetof(us_memory_t, established), false);
    printf("| buffers full (reader stopped during a bulk transfer) | %zu | %zu |", zq64, zq16);
    memory_cell(m, runs, offsetof(us_memory_t, full), true);
    printf("| peak, over a 20 MB bulk transfer and the above | %zu | %zu |", zq64, zq16);
    memory_cell(m, runs, offsetof(us_memory_t, peak), true);
    printf("| established, usrsctp with 65535 streams each way | | |");
    memory_cell(m, runs, offsetof(us_memory_t, streams_65535), false);
    printf("\n");
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
    res.runs = 3;
    res.seconds = 5;
    res.mb = 50;
    res.msgs = 1000000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            res.runs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            res.seconds = atof(argv[++i]);
        } else if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc) {
            res.mb = atof(argv[++i]);
        } else if (strcmp(argv[i], "--msgs") == 0 && i + 1 < argc) {
            res.msgs = strtoul(argv[++i], NULL, 10);
        } else {
            die("usage: bench_sctp [--runs N] [--seconds S] [--mb M] [--msgs K] | --stacks | "
                "--count STACK bulk|msgs N");
        }
    }
    if (res.runs < 1 || res.runs > MAX_RUNS || !(res.seconds > 0) || !(res.mb > 0)) {
        die("--runs 1..9, --seconds > 0, --mb > 0");
    }
    us_memory_t mem[MAX_RUNS];
    for (int run = 0; run < res.runs; run++) {
        mem[run] = measure_us_memory();
        for (int cfg = 0; cfg < CONFIGS; cfg++) {
            for (int row = 0; row < ROWS; row++) {
                for (int pair = 0; pair < PAIRS; pair++) {
                    measure(cfg, row, pair, run);
                }
            }
        }
    }
    print_notes();
    for (int cfg = 0; cfg < CONFIGS; cfg++) {
        print_table(cfg);
    }
    print_memory(mem, res.runs);
    printf("- zq: sizeof(sctp_assoc_t) = %zu plus the two caller buffers; nothing else, ever "
           "(no heap)\n",
           sizeof(sctp_assoc_t));
    printf("- usrsctp: heap growth for a usrsctp↔usrsctp pair, halved (malloc_usable_size of "
           "every block any thread allocates, counted by a malloc replacement); 1024 streams "
           "each way unless said; after a warm-up pair, so usrsctp's process-wide caches are "
           "not counted\n");
    us_global_finish();
    return 0;
}

/* bench_dtls: DTLS 1.2 handshakes per second and bulk record throughput of zq (mbedTLS 3.6)
 * next to OpenSSL's DTLS in the same process and the same run, and the mbedTLS arena one zq
 * connection takes on each side.
 *
 *   bench_dtls [--runs N] [--seconds S]   Markdown tables (what scripts/bench dtls prints)
 *   bench_dtls --stacks                   the stacks built in: zq, and openssl if found
 *   bench_dtls --count STACK WHAT N       only N handshakes (WHAT = handshake) or N records
 *                                         (aes, chacha), inside bench_counted(), for
 *                                         valgrind --tool=callgrind --toggle-collect=bench_counted
 *
 * Each timed number is the median of N runs (3); within a run zq and OpenSSL are measured back
 * to back, and the ratio column is the median of the per-run ratios, since the machines are
 * noisy and ratios measured side by side are what anchors.md compares.
 *
 * zq's side: two dtls_t, client A and server B, each on its own identity and context, pass
 * every datagram dtls_poll_transmit() lends straight to the other's dtls_handle_datagram(), then
 * dtls_read() until 0. Nothing is lost, so `now` stays fixed and no timer fires. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_dtls.h"
#include "bench/bench_stats.h"
#include "mbedtls/build_info.h"
#include "mbedtls/memory_buffer_alloc.h"
#include "stack/dtls/dtls.h"

#define MAX_RUNS 9
#define KIB 1024

/* mbedTLS's buffer allocator puts a header before each block (struct _memory_header in
 * library/memory_buffer_alloc.c: magic1, size, alloc, four list pointers, magic2), which the
 * arena's in_use does not count. */
#define ARENA_BLOCK_HEADER (4 * sizeof(size_t) + 4 * sizeof(void *))

/* The goals for one side (#3). */
#define GOAL_HANDSHAKE_PEAK (40 * KIB)
#define GOAL_SESSION (24 * KIB)

/* ---- Randomness: a fixed-seed xorshift64*, so runs replay; next to nothing beside the ECC -- */

static uint64_t rand_state = 0x5eedb5e9c4d7a11ULL;

static int bench_rand_fill(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; i++) {
        rand_state ^= rand_state >> 12;
        rand_state ^= rand_state << 25;
        rand_state ^= rand_state >> 27;
        out[i] = (unsigned char)((rand_state * 0x2545F4914F6CDD1DULL) >> 56);
    }
    return 0;
}

static const zq_rand_t bench_rand = {bench_rand_fill, NULL};

_Static_assert(ZQ_DTLS_MTU >= BENCH_MTU, "both stacks are compared at the same MTU");

/* zq's defaults (HelloVerifyRequest on), at the MTU OpenSSL gets. */
static dtls_config_t bench_config(void)
{
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    cfg.rand = bench_rand;
    cfg.mtu = BENCH_MTU;
    return cfg;
}

static double now_seconds(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "bench_dtls: %s\n", what);
    exit(1);
}

/* ---- zq: two nodes, A (client) and B (server) --------------------------------------------- */

/* Two identities, four contexts and one pair of connections with room to spare. */
static uint8_t arena[256 * KIB];

static dtls_identity_t id_a;
static dtls_identity_t id_b;
static dtls_context_t ctx_a;
static dtls_context_t ctx_b;
static dtls_context_t bulk_ctx_a; /* one suite only, for the bulk runs */
static dtls_context_t bulk_ctx_b;

static const int suite_aes[] = {MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, 0};
static const int suite_chacha[] = {MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, 0};

/* What one side holds in the arena, counted from before its dtls_start(). */
typedef struct {
    size_t held;
    size_t held_blocks;
    size_t peak;
    size_t peak_blocks;
} side_arena_t;

typedef struct {
    dtls_t end[2]; /* [0] client A, [1] server B */
    uint64_t now;
    bool connected[2];
    bool failed;
    dtls_event_t failure;
    unsigned long rx_bytes[2];
    unsigned long sent_datagrams;
    unsigned long sent_bytes;
    /* Arena accounting, on only while measuring it: a call on one side runs that side alone,
     * so what the arena does during the call is that side's. */
    bool track;
    dtls_arena_stats_t before;
    size_t before_blocks;
    side_arena_t mem[2];
    size_t both_peak;
} zq_pair_t;

static zq_pair_t pair;

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

static void track_begin(zq_pair_t *p)
{
    if (p->track) {
        (void)dtls_arena_stats(&p->before);
        dtls_arena_reset_peak();
    }
}

static void track_end(zq_pair_t *p, int side)
{
    if (!p->track) {
        return;
    }
    dtls_arena_stats_t after;
    size_t peak_bytes;
    size_t peak_blocks;
    (void)dtls_arena_stats(&after);
    mbedtls_memory_buffer_alloc_max_get(&peak_bytes, &peak_blocks);
    /* The peak was reset to 0, not to in_use: a call that allocates nothing leaves it low. */
    peak_bytes = max_size(peak_bytes, max_size(p->before.in_use, after.in_use));
    peak_blocks = max_size(peak_blocks, max_size(p->before.blocks, after.blocks));
    side_arena_t *m = &p->mem[side];
    size_t others = p->before.in_use - m->held; /* baseline and the other side */
    size_t others_blocks = p->before.blocks - m->held_blocks;
    m->peak = max_size(m->peak, peak_bytes - others);
    m->peak_blocks = max_size(m->peak_blocks, peak_blocks - others_blocks);
    m->held = after.in_use - others;
    m->held_blocks = after.blocks - others_blocks;
    p->both_peak = max_size(p->both_peak, peak_bytes);
}

static void zq_deliver(zq_pair_t *p, int to, const uint8_t *data, size_t len)
{
    static uint8_t plain[2048]; /* dtls_read() wants room for the largest incoming record */
    dtls_t *d = &p->end[to];
    track_begin(p);
    (void)dtls_handle_datagram(d, p->now, data, len);
    int n;
    while ((n = dtls_read(d, plain, sizeof plain)) > 0) {
        p->rx_bytes[to] += (unsigned long)n;
    }
    track_end(p, to);
}

/* Hands every datagram @p from has to the other side; the datagram is lent until the next call
 * on @p from, and the other side is done with it when its dtls_read() returns 0. */
static bool zq_flush(zq_pair_t *p, int from)
{
    bool moved = false;
    for (;;) {
        const uint8_t *data;
        size_t len;
        track_begin(p);
        bool any = dtls_poll_transmit(&p->end[from], &data, &len);
        track_end(p, from);
        if (!any) {
            return moved;
        }
        p->sent_datagrams++;
        p->sent_bytes += (unsigned long)len;
        zq_deliver(p, 1 - from, data, len);
        moved = true;
    }
}

static void zq_events(zq_pair_t *p)
{
    for (int side = 0; side < 2; side++) {
        dtls_event_t ev;
        while (dtls_poll_event(&p->end[side], &ev)) {
            if (ev.type == DTLS_EVENT_CONNECTED) {
                p->connected[side] = true;
            } else {
                p->failed = true;
                p->failure = ev;
            }
        }
    }
}

static bool zq_connect(zq_pair_t *p, dtls_context_t *client, dtls_context_t *server)
{
    static const uint8_t client_ip[4] = {10, 0, 0, 1}; /* binds B's cookie to A */
    p->now = 1000;
    p->connected[0] = p->connected[1] = p->failed = false;
    p->rx_bytes[0] = p->rx_bytes[1] = 0;
    track_begin(p);
    zq_err_t err = dtls_start(&p->end[1], server, DTLS_ROLE_SERVER,
                              &client->identity->fingerprint, client_ip, sizeof client_ip, p->now);
    track_end(p, 1);
    if (err != ZQ_OK) {
        return false;
    }
    track_begin(p);
    err = dtls_start(&p->end[0], client, DTLS_ROLE_CLIENT, &server->identity->fingerprint, NULL,
                     0, p->now);
    track_end(p, 0);
    if (err != ZQ_OK) {
        return false;
    }
    for (int round = 0; round < 64; round++) {
        bool moved = zq_flush(p, 0);
        moved = zq_flush(p, 1) || moved;
        zq_events(p);
        if (p->failed || !moved) {
            break;
        }
        if (p->connected[0] && p->connected[1]) {
            return true;
        }
    }
    fprintf(stderr, "bench_dtls: zq handshake failed: %s (mbedTLS -0x%04x)\n",
            dtls_failure_text(p->failure.failure), (unsigned)-p->failure.mbedtls_error);
    return false;
}

static void zq_disconnect(zq_pair_t *p)
{
    for (int side = 0; side < 2; side++) {
        track_begin(p);
        dtls_free(&p->end[side]);
        track_end(p, side);
    }
}

/* One record of @p len bytes from @p from to the other side, checked for length. */
static bool zq_send(zq_pair_t *p, int from, size_t len)
{
    static uint8_t payload[BENCH_MTU];
    unsigned long before = p->rx_bytes[1 - from];
    track_begin(p);
    zq_err_t err = dtls_write(&p->end[from], p->now, payload, len);
    track_end(p, from);
    (void)zq_flush(p, from);
    return err == ZQ_OK && p->rx_bytes[1 - from] - before == len;
}

static const char *zq_version(void)
{
    return "mbedTLS " MBEDTLS_VERSION_STRING;
}

static bool zq_setup(void)
{
    dtls_arena_init(arena, sizeof arena);
    dtls_config_t cfg = bench_config();
    return dtls_identity_generate(&id_a, &bench_rand) == ZQ_OK &&
           dtls_identity_generate(&id_b, &bench_rand) == ZQ_OK &&
           dtls_context_init(&ctx_a, &cfg, &id_a) == ZQ_OK &&
           dtls_context_init(&ctx_b, &cfg, &id_b) == ZQ_OK;
}

static bool zq_handshakes(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        bool ok = zq_connect(&pair, &ctx_a, &ctx_b);
        zq_disconnect(&pair);
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* dtls_config_t has no suite preference, so bench code narrows the contexts' mbedTLS configs:
 * each side offers or accepts @p suite only. */
static bool zq_bulk_begin(bench_suite_t suite)
{
    dtls_config_t cfg = bench_config();
    if (dtls_context_init(&bulk_ctx_a, &cfg, &id_a) != ZQ_OK ||
        dtls_context_init(&bulk_ctx_b, &cfg, &id_b) != ZQ_OK) {
        return false;
    }
    const int *only = suite == BENCH_AES_128_GCM ? suite_aes : suite_chacha;
    mbedtls_ssl_conf_ciphersuites(&bulk_ctx_a.client, only);
    mbedtls_ssl_conf_ciphersuites(&bulk_ctx_a.server, only);
    mbedtls_ssl_conf_ciphersuites(&bulk_ctx_b.client, only);
    mbedtls_ssl_conf_ciphersuites(&bulk_ctx_b.server, only);
    return zq_connect(&pair, &bulk_ctx_a, &bulk_ctx_b);
}

static size_t zq_max_payload(void)
{
    return dtls_max_payload(&pair.end[0]);
}

static const char *zq_suite_name(void)
{
    return dtls_cipher_suite(&pair.end[0]);
}

static bool zq_bulk(size_t len, unsigned long records)
{
    for (unsigned long i = 0; i < records; i++) {
        if (!zq_send(&pair, 0, len)) {
            return false;
        }
    }
    return true;
}

static void zq_bulk_end(void)
{
    zq_disconnect(&pair);
    dtls_context_free(&bulk_ctx_a);
    dtls_context_free(&bulk_ctx_b);
}

static void zq_traffic(unsigned long *datagrams, unsigned long *bytes)
{
    *datagrams = pair.sent_datagrams;
    *bytes = pair.sent_bytes;
}

static const bench_stack_t bench_zq = {
    .name = "zq",
    .version = zq_version,
    .setup = zq_setup,
    .handshakes = zq_handshakes,
    .bulk_begin = zq_bulk_begin,
    .max_payload = zq_max_payload,
    .suite_name = zq_suite_name,
    .bulk = zq_bulk,
    .bulk_end = zq_bulk_end,
    .traffic = zq_traffic,
};

/* ---- zq's arena ---------------------------------------------------------------------------- */

typedef struct {
    size_t baseline;        /* two identities and two contexts */
    size_t baseline_blocks;
    side_arena_t handshake[2];    /* peak through the handshake; held once established */
    side_arena_t first_record[2]; /* ... and through one full record each way */
    size_t both_peak;       /* both handshakes in one arena, above the baseline */
    size_t left[2];         /* held after dtls_free(): should be 0 */
    size_t after_runs;      /* in use after every timed run: the baseline, unless a leak */
} arena_report_t;

static bool measure_arena(arena_report_t *r)
{
    dtls_arena_stats_t s;
    if (dtls_arena_stats(&s) != ZQ_OK) {
        return false; /* mbedTLS built without MBEDTLS_MEMORY_DEBUG */
    }
    memset(r, 0, sizeof *r);
    r->baseline = s.in_use;
    r->baseline_blocks = s.blocks;
    memset(pair.mem, 0, sizeof pair.mem);
    pair.both_peak = 0;
    pair.track = true;
    bool ok = zq_connect(&pair, &ctx_a, &ctx_b);
    memcpy(r->handshake, pair.mem, sizeof r->handshake);
    r->both_peak = pair.both_peak - r->baseline;
    if (ok) {
        size_t len = dtls_max_payload(&pair.end[0]);
        ok = zq_send(&pair, 0, len) && zq_send(&pair, 1, len);
    }
    memcpy(r->first_record, pair.mem, sizeof r->first_record);
    zq_disconnect(&pair);
    r->left[0] = pair.mem[0].held;
    r->left[1] = pair.mem[1].held;
    pair.track = false;
    return ok;
}

/* ---- Timing --------------------------------------------------------------------------------- */

static double timed_handshakes(const bench_stack_t *s, double seconds)
{
    unsigned long n = 0;
    double start = now_seconds();
    double elapsed;
    do {
        if (!s->handshakes(1)) {
            die("handshake failed");
        }
        n++;
        elapsed = now_seconds() - start;
    } while (elapsed < seconds || n < 10);
    return (double)n / elapsed;
}

/* MB/s of application payload (MB = 10^6 bytes), encryption and decryption on one core. */
static double timed_bulk(const bench_stack_t *s, bench_suite_t suite, size_t len, double seconds)
{
    const unsigned long batch = 256;
    /* One untimed batch first, to warm the caches. */
    if (!s->bulk_begin(suite) || !s->bulk(len, batch)) {
        die("bulk transfer failed");
    }
    unsigned long records = 0;
    double start = now_seconds();
    double elapsed;
    do {
        if (!s->bulk(len, batch)) {
            die("bulk transfer failed");
        }
        records += batch;
        elapsed = now_seconds() - start;
    } while (elapsed < seconds);
    s->bulk_end();
    return (double)records * (double)len / elapsed / 1e6;
}

/* ---- Instruction counts: the only region callgrind collects ---------------------------------- */

long bench_counted(const bench_stack_t *s, bool handshakes, size_t len, unsigned long n);

BENCH_NOT_INLINED long bench_counted(const bench_stack_t *s, bool handshakes, size_t len,
                                     unsigned long n)
{
    return (handshakes ? s->handshakes(n) : s->bulk(len, n)) ? 0 : -1;
}

static int count_mode(const bench_stack_t *s, const char *what, unsigned long n)
{
    bool handshakes = strcmp(what, "handshake") == 0;
    if (!handshakes && strcmp(what, "aes") != 0 && strcmp(what, "chacha") != 0) {
        die("--count STACK handshake|aes|chacha N");
    }
    if (!s->setup() || !s->handshakes(1)) { /* the first handshake fills lazy caches */
        die("setup failed");
    }
    size_t len = 0;
    if (!handshakes) {
        bench_suite_t suite = what[0] == 'a' ? BENCH_AES_128_GCM : BENCH_CHACHA20_POLY1305;
        if (!s->bulk_begin(suite)) {
            die("bulk setup failed");
        }
        len = s->max_payload(); /* per MB, a few bytes more or less per record hardly count */
        (void)s->bulk(len, 16);
    }
    if (bench_counted(s, handshakes, len, n) != 0) {
        die("counted run failed");
    }
    printf(handshakes ? "handshakes %lu\n" : "bytes %lu\n", handshakes ? n : n * len);
    return 0;
}

/* ---- The tables ----------------------------------------------------------------------------- */

enum { ROW_HANDSHAKES, ROW_AES, ROW_CHACHA, ROWS };

typedef struct {
    const bench_stack_t *stacks[2]; /* zq, then OpenSSL or NULL */
    int runs;
    double seconds;
    size_t len[ROWS];         /* payload per record, the same for both stacks */
    const char *suite[ROWS][2];
    size_t max_payload[ROWS][2];
    unsigned long hs_datagrams[2]; /* one handshake, both directions */
    unsigned long hs_bytes[2];
    double value[ROWS][2][MAX_RUNS];
    arena_report_t arena;
} results_t;

static results_t res;

/* Both stacks carry the same payload per record: the smaller of their maxima for the suite. */
static void probe_suites(results_t *r)
{
    for (int row = ROW_AES; row <= ROW_CHACHA; row++) {
        bench_suite_t suite = row == ROW_AES ? BENCH_AES_128_GCM : BENCH_CHACHA20_POLY1305;
        r->len[row] = BENCH_MTU;
        for (int i = 0; i < 2 && r->stacks[i] != NULL; i++) {
            const bench_stack_t *s = r->stacks[i];
            if (!s->bulk_begin(suite)) {
                die("bulk setup failed");
            }
            r->suite[row][i] = s->suite_name();
            r->max_payload[row][i] = s->max_payload();
            r->len[row] = r->len[row] < r->max_payload[row][i] ? r->len[row]
                                                                : r->max_payload[row][i];
            s->bulk_end();
        }
    }
}

static void run_all(results_t *r)
{
    for (int run = 0; run < r->runs; run++) {
        for (int i = 0; i < 2 && r->stacks[i] != NULL; i++) {
            r->value[ROW_HANDSHAKES][i][run] = timed_handshakes(r->stacks[i], r->seconds);
        }
        for (int row = ROW_AES; row <= ROW_CHACHA; row++) {
            bench_suite_t suite = row == ROW_AES ? BENCH_AES_128_GCM : BENCH_CHACHA20_POLY1305;
            for (int i = 0; i < 2 && r->stacks[i] != NULL; i++) {
                r->value[row][i][run] =
                    timed_bulk(r->stacks[i], suite, r->len[row], r->seconds / 2);
            }
        }
    }
}

static void print_speed_table(const results_t *r)
{
    static const char *const names[ROWS] = {"handshakes/s", "AES-128-GCM bulk MB/s",
                                            "ChaCha20-Poly1305 bulk MB/s"};
    const bench_stack_t *ossl = r->stacks[1];
    printf("| measure | zq (%s) | %s | zq / OpenSSL |\n", r->stacks[0]->version(),
           ossl != NULL ? ossl->version() : "OpenSSL (not built)");
    printf("|---|---:|---:|---:|\n");
    for (int row = 0; row < ROWS; row++) {
        double zq = bench_median(r->value[row][0], r->runs);
        printf("| %s | %.1f |", names[row], zq);
        if (ossl == NULL) {
            printf(" — | — |\n");
            continue;
        }
        double ratios[MAX_RUNS];
        for (int run = 0; run < r->runs; run++) {
            ratios[run] = r->value[row][0][run] / r->value[row][1][run];
        }
        printf(" %.1f | %.2f |\n", bench_median(r->value[row][1], r->runs), bench_median(ratios, r->runs));
    }
    printf("\nMedians of %d runs; the ratio is the median of the per-run ratios (zq and OpenSSL "
           "measured back to back in each run). MB = 10^6 bytes of application payload, "
           "encrypted and decrypted on one core.\n\n",
           r->runs);
    for (int row = 0; row < ROWS; row++) {
        printf("- %s, each run:", names[row]);
        for (int i = 0; i < 2 && r->stacks[i] != NULL; i++) {
            printf("%s %s", i == 0 ? "" : ";", r->stacks[i]->name);
            for (int run = 0; run < r->runs; run++) {
                printf(" %.1f", r->value[row][i][run]);
            }
        }
        printf("\n");
    }
    printf("- one handshake on the wire, both directions:");
    for (int i = 0; i < 2 && r->stacks[i] != NULL; i++) {
        printf("%s %s %lu datagrams, %lu bytes", i == 0 ? "" : ";", r->stacks[i]->name,
               r->hs_datagrams[i], r->hs_bytes[i]);
    }
    printf("\n");
    for (int row = ROW_AES; row <= ROW_CHACHA; row++) {
        printf("- %zu-byte records for %s:", r->len[row], names[row]);
        for (int i = 0; i < 2 && r->stacks[i] != NULL; i++) {
            printf(" %s negotiated %s (largest payload per %d-byte datagram %zu)%s",
                   r->stacks[i]->name, r->suite[row][i], BENCH_MTU, r->max_payload[row][i],
                   i == 0 && ossl != NULL ? ";" : "\n");
        }
    }
}

static void print_goal(size_t value, size_t goal)
{
    printf(" < %zu: %s |\n", goal, value < goal ? "met" : "**missed**");
}

static size_t with_headers(size_t bytes, size_t blocks)
{
    return bytes + blocks * ARENA_BLOCK_HEADER;
}

static void print_arena_table(const results_t *r)
{
    const arena_report_t *a = &r->arena;
    const side_arena_t *hs = a->handshake;
    const side_arena_t *rec = a->first_record;
    size_t peak[2];
    size_t session[2];
    for (int i = 0; i < 2; i++) {
        peak[i] = with_headers(rec[i].peak, rec[i].peak_blocks);
        session[i] = with_headers(rec[i].held, rec[i].held_blocks);
    }
    printf("| zq arena per connection, bytes (%zu-bit host) | client (A) | server (B) | goal |\n",
           8 * sizeof(void *));
    printf("|---|---:|---:|---|\n");
    printf("| handshake peak | %zu | %zu | |\n", hs[0].peak, hs[1].peak);
    printf("| handshake + first record each way, peak | %zu | %zu | |\n", rec[0].peak,
           rec[1].peak);
    printf("| ... with block headers (at most) | %zu | %zu |", peak[0], peak[1]);
    print_goal(max_size(peak[0], peak[1]), GOAL_HANDSHAKE_PEAK);
    printf("| in use when the handshake completes | %zu (%zu blocks) | %zu (%zu blocks) | |\n",
           hs[0].held, hs[0].held_blocks, hs[1].held, hs[1].held_blocks);
    printf("| established session, in use after the first record each way | %zu (%zu blocks) "
           "| %zu (%zu blocks) | |\n",
           rec[0].held, rec[0].held_blocks, rec[1].held, rec[1].held_blocks);
    printf("| ... with block headers | %zu | %zu |", session[0], session[1]);
    print_goal(max_size(session[0], session[1]), GOAL_SESSION);
    printf("| ... and the caller's dtls_t (%zu) | %zu | %zu | |\n", sizeof(dtls_t),
           session[0] + sizeof(dtls_t), session[1] + sizeof(dtls_t));
    printf("| left in the arena after dtls_free() | %zu | %zu | 0 |\n", a->left[0], a->left[1]);
    printf("\n- each side measured on its own: during any call on one connection only that side "
           "runs, so the arena's movement in the call is its own\n");
    printf("- the side that sent the last flight (the server in a full handshake) keeps it and "
           "the handshake state until the peer's first record proves it arrived (RFC 6347 "
           "§4.2.4, mbedTLS frees it in mbedtls_ssl_read)\n");
    printf("- baseline (2 identities + 2 contexts): %zu bytes in %zu blocks, with block "
           "headers %zu\n",
           a->baseline, a->baseline_blocks, with_headers(a->baseline, a->baseline_blocks));
    printf("- both handshakes at once in one arena (what this process needed above the "
           "baseline): %zu\n",
           a->both_peak);
    printf("- arena in use after all %d timed runs (hundreds of handshakes): %zu, baseline "
           "%zu\n",
           r->runs, a->after_runs, a->baseline);
    printf("- in lock step nothing arrives out of order: a peer that reorders or fragments its "
           "flights (Chromium's two-record ClientHello) makes the receiver hold up to "
           "MBEDTLS_SSL_DTLS_MAX_BUFFERING more during the handshake\n");
    printf("- record buffers (config/zq_mbedtls_config.h): MBEDTLS_SSL_IN_CONTENT_LEN %d, "
           "MBEDTLS_SSL_OUT_CONTENT_LEN %d, MBEDTLS_SSL_DTLS_MAX_BUFFERING %d\n",
           MBEDTLS_SSL_IN_CONTENT_LEN, MBEDTLS_SSL_OUT_CONTENT_LEN,
           MBEDTLS_SSL_DTLS_MAX_BUFFERING);
    printf("- outside the arena, caller-allocated: sizeof(dtls_t) %zu, sizeof(dtls_context_t) "
           "%zu, sizeof(dtls_identity_t) %zu\n",
           sizeof(dtls_t), sizeof(dtls_context_t), sizeof(dtls_identity_t));
    printf("- in use = bytes mbedTLS asked for; each block also costs a %zu-byte header here "
           "(half on 32-bit targets, whose structs are smaller too). \"At most\": the peaks of "
           "bytes and of blocks may fall at different moments\n",
           ARENA_BLOCK_HEADER);
}

int main(int argc, char **argv)
{
    const bench_stack_t *stacks[] = {
        &bench_zq,
#if defined(ZQ_BENCH_OPENSSL)
        &bench_openssl,
#endif
        NULL,
    };
    if (argc == 2 && strcmp(argv[1], "--stacks") == 0) { /* what this binary was built with */
        for (int i = 0; stacks[i] != NULL; i++) {
            printf("%s\n", stacks[i]->name);
        }
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "--count") == 0) {
        for (int i = 0; stacks[i] != NULL; i++) {
            if (strcmp(stacks[i]->name, argv[2]) == 0) {
                return count_mode(stacks[i], argv[3], strtoul(argv[4], NULL, 10));
            }
        }
        die("unknown stack (built without OpenSSL?)");
    }
    res.runs = 3;
    res.seconds = 1.0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            res.runs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            res.seconds = atof(argv[++i]);
        } else {
            die("usage: bench_dtls [--runs N] [--seconds S] | --stacks | --count STACK WHAT N");
        }
    }
    if (res.runs < 1 || res.runs > MAX_RUNS || !(res.seconds > 0)) {
        die("--runs 1..9, --seconds > 0");
    }
    res.stacks[0] = stacks[0];
    res.stacks[1] = stacks[1];
    for (int i = 0; i < 2 && res.stacks[i] != NULL; i++) {
        if (!res.stacks[i]->setup()) {
            die("setup failed");
        }
    }
    if (!measure_arena(&res.arena)) {
        die("arena measurement failed");
    }
    for (int i = 0; i < 2 && res.stacks[i] != NULL; i++) {
        const bench_stack_t *s = res.stacks[i];
        unsigned long datagrams;
        unsigned long bytes;
        s->traffic(&datagrams, &bytes);
        if (!s->handshakes(1)) { /* also fills lazy caches before timing */
            die("handshake failed");
        }
        s->traffic(&res.hs_datagrams[i], &res.hs_bytes[i]);
        res.hs_datagrams[i] -= datagrams;
        res.hs_bytes[i] -= bytes;
    }
    probe_suites(&res);
    run_all(&res);
    dtls_arena_stats_t after;
    (void)dtls_arena_stats(&after);
    res.arena.after_runs = after.in_use;
    print_speed_table(&res);
    printf("\n");
    print_arena_table(&res);
    return 0;
}

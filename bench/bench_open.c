/* bench_open: time from offer to open data channel, zq <-> zq in one process over real UDP on
 * 127.0.0.1 (bench_pair.h: two nodes, each with its own socket, driven by the port's poll()
 * loop; signalling through an in-process sig_router_t, no WebSocket).
 *
 *   bench_open [--connections N] [--summary FILE]
 *       Markdown table; FILE gets one line, "median p90" of offer -> both open, ms
 *
 * Each connection is a fresh pair of nodes on fresh sockets (each member keeps its
 * certificate, as a device does), joining one room: member 0 is in it first, hears member 1's
 * peer_joined and dials (offer, full ICE: its check list paced at Ta = 20 ms); member 1
 * answers (a full ICE agent, the DTLS client). Clock: CLOCK_MONOTONIC in ns, from the moment the dialer's node was
 * asked for the frame that turned out to be its offer (so the offer's own making counts) to
 * each side's NODE_EVENT_PEER_CONNECTED. One connection first warms caches and is not
 * counted. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_pair.h"
#include "bench_stats.h"

#define MAX_CONNECTIONS 1000
#define OPEN_CAP_MS 10000

typedef struct {
    double both;      /* offer -> both sides PEER_CONNECTED, ms */
    double dialer;    /* offer -> the dialer's PEER_CONNECTED */
    double answerer;  /* offer -> the answerer's PEER_CONNECTED */
    uint32_t dialer_own, answerer_own; /* the nodes' own elapsed_ms */
    unsigned long datagrams, bytes;    /* both ways, until both were open */
} sample_t;

static sample_t samples[MAX_CONNECTIONS];

static double ms_between(uint64_t from_ns, uint64_t to_ns)
{
    return (double)(to_ns - from_ns) / 1e6;
}

static bool connect_once(sample_t *s)
{
    bool ok = bench_pair_open(false, OPEN_CAP_MS);
    const bench_member_t *d = &bench_pair.m[0];
    const bench_member_t *a = &bench_pair.m[1];
    if (ok) {
        uint64_t last = d->connected_ns > a->connected_ns ? d->connected_ns : a->connected_ns;
        s->both = ms_between(d->offer_ns, last);
        s->dialer = ms_between(d->offer_ns, d->connected_ns);
        s->answerer = ms_between(d->offer_ns, a->connected_ns);
        s->dialer_own = d->elapsed_ms;
        s->answerer_own = a->elapsed_ms;
        s->datagrams = d->tx_datagrams + a->tx_datagrams;
        s->bytes = d->tx_bytes + a->tx_bytes;
    }
    bench_pair_close();
    return ok;
}

/* The q-quantile by nearest rank (p90 of 50 is the 45th smallest). */
static double quantile(double *v, int n, double q)
{
    bench_sort(v, n);
    int rank = (int)(q * n + 0.999999);
    rank = rank < 1 ? 1 : rank > n ? n : rank;
    return v[rank - 1];
}

typedef double (*field_fn)(const sample_t *s);
static double f_both(const sample_t *s) { return s->both; }
static double f_dialer(const sample_t *s) { return s->dialer; }
static double f_answerer(const sample_t *s) { return s->answerer; }
static double f_dialer_own(const sample_t *s) { return s->dialer_own; }
static double f_answerer_own(const sample_t *s) { return s->answerer_own; }
static double f_datagrams(const sample_t *s) { return (double)s->datagrams; }
static double f_bytes(const sample_t *s) { return (double)s->bytes; }

static void row(const char *label, field_fn f, int n, int decimals, double *med, double *p90)
{
    static double v[MAX_CONNECTIONS];
    double lo = 1e300;
    double hi = 0;
    for (int i = 0; i < n; i++) {
        v[i] = f(&samples[i]);
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    double m = quantile(v, n, 0.5);
    double p = quantile(v, n, 0.9);
    char a[32], b[32], c[32], d[32];
    (void)snprintf(a, sizeof a, "%.*f", decimals, m);
    (void)snprintf(b, sizeof b, "%.*f", decimals, p);
    (void)snprintf(c, sizeof c, "%.*f", decimals, lo);
    (void)snprintf(d, sizeof d, "%.*f", decimals, hi);
    (void)printf("| %s | %s | %s | %s | %s |\n", label, a, b, c, d);
    if (med != NULL) {
        *med = m;
        *p90 = p;
    }
}

static int usage(void)
{
    (void)fprintf(stderr, "usage: bench_open [--connections N] [--summary FILE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    int n = 50;
    const char *summary = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--connections") == 0 && i + 1 < argc) {
            n = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--summary") == 0 && i + 1 < argc) {
            summary = argv[++i];
        } else {
            return usage();
        }
    }
    if (n < 1 || n > MAX_CONNECTIONS || !bench_pair_setup()) {
        return n < 1 || n > MAX_CONNECTIONS ? usage() : 1;
    }
    sample_t warm;
    size_t baseline = bench_arena_in_use();
    if (!connect_once(&warm)) {
        (void)fprintf(stderr, "bench_open: the warm-up connection did not open\n");
        return 1;
    }
    int failed = 0;
    int got = 0;
    uint64_t t0 = bench_now_ns();
    while (got < n && failed < n) {
        if (connect_once(&samples[got])) {
            got++;
        } else {
            failed++;
        }
    }
    double wall = ms_between(t0, bench_now_ns()) / 1000.0;
    if (got == 0) {
        (void)fprintf(stderr, "bench_open: no connection opened\n");
        return 1;
    }
    (void)printf("| zq ↔ zq, %d connections, ms (or count) | median | p90 | min | max |\n", got);
    (void)printf("|---|---:|---:|---:|---:|\n");
    double med = 0;
    double p90 = 0;
    row("offer → both sides open", f_both, got, 2, &med, &p90);
    row("offer → dialer's channel open", f_dialer, got, 2, NULL, NULL);
    row("offer → answerer's channel open", f_answerer, got, 2, NULL, NULL);
    row("dialer's own elapsed_ms (offer sent → open)", f_dialer_own, got, 0, NULL, NULL);
    row("answerer's own elapsed_ms (offer received → open)", f_answerer_own, got, 0, NULL,
        NULL);
    row("datagrams, both ways, until both open", f_datagrams, got, 0, NULL, NULL);
    row("bytes, both ways, until both open", f_bytes, got, 0, NULL, NULL);
    (void)printf("\n- %d of %d connections opened (%d failed) in %.1f s, each on fresh nodes and "
                 "sockets, after one warm-up connection; DTLS arena %zu bytes before, %zu after\n",
                 got, got + failed, failed, wall, baseline, bench_arena_in_use());
    if (summary != NULL) {
        FILE *f = fopen(summary, "w");
        if (f != NULL) {
            (void)fprintf(f, "%.2f %.2f\n", med, p90);
            (void)fclose(f);
        }
    }
    return 0;
}

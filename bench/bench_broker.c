/* bench_broker: what zq's broker delivers per second between two nodes over the whole stack
 * (ICE, DTLS 1.2, SCTP, data channel, broker frames), next to ZeroQ's published figures.
 *
 *   bench_broker [--runs N] [--seconds S] [--summary FILE]   Markdown tables; FILE gets
 *                                                           "raw qos0" medians, msgs/s
 *   bench_broker --count CELL N     N units of CELL (raw, qos0, qos1, queue, rpc1, rpc8)
 *                                   inside bench_counted(), for valgrind --tool=callgrind
 *                                   --toggle-collect=bench_counted; prints "units N"
 *
 * Two nodes in one process and one thread (bench_pair.h): each has its own UDP socket on
 * 127.0.0.1, the port's poll() loop drives both, every datagram goes out with sendto() and
 * comes back with recvfrom(). Each run opens a fresh pair and waits for both brokers' hello
 * and sub before anything is timed. Member 0 produces (publishes, enqueues, requests), member 1
 * consumes (subscribes to both topics, consumes the queue with credit 8 and acks each job at
 * once, serves the service and replies at once). Every payload is a 64-byte JSON value (a
 * string: quotes and 62 characters), as brk_publish() takes it; the broker wraps it in its
 * envelope (id, topic, seq, epoch, timestamp), so frames on the channel are larger: the table
 * says how many bytes each message cost on the wire, both ways, UDP payload.
 *
 * Flow control is the application's, as brk.h asks: QoS 0 never refuses (its ring forgets the
 * oldest entries a slow subscriber has not been sent, and the subscriber hears BRK_EVENT_LOST),
 * so the producer publishes while its channel has room for two more frames (node_send_room(),
 * like bufferedAmount in a browser); QoS 1, enqueue and request until ZQ_ERR_WOULD_BLOCK, then
 * again after BRK_EVENT_WRITABLE. A unit is counted when the consumer's application sees it
 * (BRK_EVENT_MESSAGE), when the producer hears a job acked (its stats' jobs_done), or when a
 * reply comes back (BRK_EVENT_REPLY). Each cell runs for --seconds, then the loop runs 300 ms
 * more with nothing new produced so the next cell starts clean. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_pair.h"
#include "bench_stats.h"

#define MAX_RUNS 9
#define OPEN_CAP_MS 10000
#define QUIESCE_MS 300
#define QUEUE_CREDIT 8
#define TOPIC_Q0 "bench.q0"
#define TOPIC_Q1 "bench.q1"
#define QUEUE "bench.jobs"
#define SERVICE "bench.echo"
/* The ZeroQ figures (anchors.md, "Messaging"): its own README, in-process loopback channel,
 * no DTLS and no SCTP. */
#define ZEROQ_PUBLISH_PER_S 100000.0
#define ZEROQ_DELIVERED_PER_S 61000.0
#define GOAL_QOS0_PER_S 100000.0

/* 62 characters in quotes: a 64-byte JSON string. */
static const char payload[] = "\"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ\"";
_Static_assert(sizeof payload - 1 == 64, "the payload is 64 bytes");

/* ---- Cells ---------------------------------------------------------------------------------- */

typedef enum { CELL_RAW, CELL_QOS0, CELL_QOS1, CELL_QUEUE, CELL_RPC1, CELL_RPC8, CELLS } cell_t;

static const char *const cell_names[CELLS] = {"raw", "qos0", "qos1", "queue", "rpc1", "rpc8"};
static const char *const cell_labels[CELLS] = {
    ("bare data channel messages/s, zq's C loop: both nodes in one process (node_send → "
     "node_read), no page, no broker"),
    "pub/sub QoS 0, delivered/s",
    "pub/sub QoS 1, delivered/s",
    "queue jobs/s, each acked by the consumer at once (credit 8)",
    "request/reply round trips/s, 1 outstanding",
    "request/reply round trips/s, 8 outstanding",
};

typedef struct {
    cell_t cell;
    bool producing;        /* false while the loop settles after a cell */
    uint64_t units;        /* counted (see the file comment) */
    uint64_t calls;        /* publish/enqueue/request/send calls accepted */
    uint64_t lost;         /* messages a LOST event announced */
    uint64_t failed;       /* requests that failed */
    uint64_t would_block;  /* WOULD_BLOCK answers */
    uint64_t jobs_base;    /* the producer's jobs_done when the cell began */
    bool blocked;          /* waiting for BRK_EVENT_WRITABLE */
    uint32_t outstanding;  /* requests in flight */
    uint32_t depth;        /* requests to keep in flight */
    uint32_t retry[ZQ_BRK_MAX_HELD + ZQ_BRK_MAX_REQUESTS]; /* consumer handles to finish */
    bool retry_is_reply[ZQ_BRK_MAX_HELD + ZQ_BRK_MAX_REQUESTS];
    size_t n_retry;
    uint64_t goal_units;   /* stop once counted (0: no goal) */
    uint64_t end_ns;       /* stop then (0: no end) */
} cell_state_t;

static cell_state_t st;

static brk_t *producer(void)
{
    return &bench_pair.m[0].broker;
}

static brk_t *consumer(void)
{
    return &bench_pair.m[1].broker;
}

static size_t payload_len(void)
{
    return sizeof payload - 1;
}

/* ---- Member 0: the producer -------------------------------------------------------------------- */

/* Two more envelopes of this payload fit: so brk_publish() sends at once, never into the ring
 * only (where QoS 0 would be forgotten under a slow subscriber). An envelope is ~230 bytes. */
#define QOS0_ROOM 1024

static void publish_qos0(bench_member_t *m, uint64_t now)
{
    while (node_send_room(&m->node, (uint8_t)m->slot) >= QOS0_ROOM) {
        if (brk_publish(&m->broker, now, TOPIC_Q0, payload, payload_len(), BRK_QOS_0) != ZQ_OK) {
            st.would_block++;
            return;
        }
        st.calls++;
    }
}

/* Calls @p fn until WOULD_BLOCK; WRITABLE brings the producer back. */
static void until_blocked(zq_err_t (*fn)(bench_member_t *m, uint64_t now), bench_member_t *m,
                          uint64_t now)
{
    while (!st.blocked) {
        zq_err_t err = fn(m, now);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            st.blocked = true;
            st.would_block++;
        } else if (err != ZQ_OK) {
            (void)fprintf(stderr, "bench_broker: %s: %s\n", cell_names[st.cell],
                          zq_strerror(err));
            st.producing = false;
            return;
        } else {
            st.calls++;
        }
    }
}

static zq_err_t publish_qos1(bench_member_t *m, uint64_t now)
{
    return brk_publish(&m->broker, now, TOPIC_Q1, payload, payload_len(), BRK_QOS_1);
}

static zq_err_t enqueue(bench_member_t *m, uint64_t now)
{
    return brk_enqueue(&m->broker, now, QUEUE, payload, payload_len(), NULL);
}

static void request(bench_member_t *m, uint64_t now)
{
    while (st.outstanding < st.depth) {
        uint32_t handle;
        zq_err_t err = brk_request(&m->broker, now, SERVICE, payload, payload_len(), 5000, 0,
                                   &handle);
        if (err != ZQ_OK) {
            st.would_block += err == ZQ_ERR_WOULD_BLOCK;
            return;
        }
        st.calls++;
        st.outstanding++;
    }
}

static void send_raw(bench_member_t *m, uint64_t now)
{
    /* Text, as ZeroQ's frames are: 64 bytes of the payload's characters. */
    while (node_send(&m->node, now, (uint8_t)m->slot, (const uint8_t *)payload, payload_len(),
                     false) == ZQ_OK) {
        st.calls++;
    }
}

static void producer_pump(bench_member_t *m, uint64_t now)
{
    if (!st.producing || m->slot < 0) {
        return;
    }
    switch (st.cell) {
    case CELL_RAW:
        send_raw(m, now);
        break;
    case CELL_QOS0:
        publish_qos0(m, now);
        break;
    case CELL_QOS1:
        until_blocked(publish_qos1, m, now);
        break;
    case CELL_QUEUE:
        until_blocked(enqueue, m, now);
        st.units = brk_stats(&m->broker)->jobs_done - st.jobs_base;
        break;
    default:
        request(m, now);
        break;
    }
}

static void producer_event(bench_member_t *m, uint64_t now, const brk_event_t *ev)
{
    (void)m;
    (void)now;
    switch (ev->type) {
    case BRK_EVENT_WRITABLE:
        st.blocked = false;
        break;
    case BRK_EVENT_REPLY:
        st.outstanding--;
        st.units += ev->ok;
        st.failed += !ev->ok;
        break;
    case BRK_EVENT_REQUEST_FAILED:
        st.outstanding--;
        st.failed++;
        break;
    default:
        break;
    }
}

/* ---- Member 1: the consumer -------------------------------------------------------------------- */

static zq_err_t finish(brk_t *b, uint64_t now, uint32_t handle, bool reply)
{
    return reply ? brk_reply(b, now, handle, true, payload, payload_len())
                 : brk_job_done(b, now, handle, true);
}

/* Done or reply at once; one that found the channel full is tried again at the next turn. */
static void finish_now(brk_t *b, uint64_t now, uint32_t handle, bool reply)
{
    if (finish(b, now, handle, reply) == ZQ_ERR_WOULD_BLOCK &&
        st.n_retry < sizeof st.retry / sizeof st.retry[0]) {
        st.retry[st.n_retry] = handle;
        st.retry_is_reply[st.n_retry++] = reply;
    }
}

static void consumer_pump(bench_member_t *m, uint64_t now)
{
    size_t kept = 0;
    for (size_t i = 0; i < st.n_retry; i++) {
        if (finish(&m->broker, now, st.retry[i], st.retry_is_reply[i]) == ZQ_ERR_WOULD_BLOCK) {
            st.retry[kept] = st.retry[i];
            st.retry_is_reply[kept++] = st.retry_is_reply[i];
        }
    }
    st.n_retry = kept;
}

static void consumer_event(bench_member_t *m, uint64_t now, const brk_event_t *ev)
{
    switch (ev->type) {
    case BRK_EVENT_MESSAGE:
        st.units += st.producing || st.goal_units > 0;
        break;
    case BRK_EVENT_LOST:
        st.lost += ev->lost_to - ev->lost_from + 1;
        break;
    case BRK_EVENT_JOB:
        finish_now(&m->broker, now, ev->handle, false);
        break;
    case BRK_EVENT_REQUEST:
        finish_now(&m->broker, now, ev->handle, true);
        break;
    default:
        break;
    }
}

static void consumer_message(bench_member_t *m, uint64_t now, const node_message_t *msg)
{
    (void)m;
    (void)now;
    st.units += msg->msg.last;
}

static const bench_app_t producer_app = {NULL, producer_event, NULL, producer_pump};
static const bench_app_t consumer_app = {NULL, consumer_event, consumer_message, consumer_pump};

/* ---- Running a cell ---------------------------------------------------------------------------- */

static bool cell_done(void)
{
    return (st.goal_units > 0 && st.units >= st.goal_units) ||
           (st.end_ns > 0 && bench_now_ns() >= st.end_ns);
}

static bool subscriber_known(void)
{
    const bench_member_t *m = &bench_pair.m[0];
    return m->slot >= 0 && m->broker.peers[m->slot].n_topics >= 2 &&
           m->broker.peers[m->slot].n_services >= 1;
}

/* A fresh pair, brokers set up (raw: none), the producer knowing the consumer's wishes. */
static bool open_pair(bool brokers)
{
    memset(&st, 0, sizeof st);
    if (!bench_pair_open(brokers, OPEN_CAP_MS)) {
        for (unsigned i = 0; i < 2; i++) {
            const bench_member_t *m = &bench_pair.m[i];
            (void)fprintf(stderr, "bench_broker: member %u: slot %d%s\n", i, m->slot,
                          m->slot >= 0 && m->has_broker
                              ? (m->broker.peers[m->slot].zq ? ", hello in" : ", no hello")
                              : "");
        }
        (void)fprintf(stderr, "bench_broker: the pair did not connect (brokers: %s)\n",
                      brokers ? "yes" : "no");
        return false;
    }
    bench_pair.m[0].app = &producer_app; /* bench_pair_open() started the members afresh */
    bench_pair.m[1].app = &consumer_app;
    if (!brokers) {
        return true;
    }
    uint64_t now = bench_pair_now();
    if (brk_subscribe(consumer(), now, TOPIC_Q0) != ZQ_OK ||
        brk_subscribe(consumer(), now, TOPIC_Q1) != ZQ_OK ||
        brk_consume(consumer(), now, QUEUE, QUEUE_CREDIT) != ZQ_OK ||
        brk_serve(consumer(), now, SERVICE) != ZQ_OK) {
        return false;
    }
    return bench_pair_run(subscriber_known, OPEN_CAP_MS);
}

typedef struct {
    double per_s;          /* units per second */
    double calls_per_s;    /* calls accepted per second */
    double bytes_per_unit; /* UDP payload both ways */
    double datagrams_per_unit;
    uint64_t units, lost, failed, would_block;
} result_t;

static void begin_cell(cell_t cell, uint64_t goal_units, double seconds)
{
    cell_state_t fresh;
    memset(&fresh, 0, sizeof fresh);
    fresh.cell = cell;
    fresh.producing = true;
    fresh.depth = cell == CELL_RPC8 ? 8 : 1;
    fresh.goal_units = goal_units;
    fresh.jobs_base = bench_pair.m[0].has_broker ? brk_stats(producer())->jobs_done : 0;
    st = fresh;
    uint64_t t0 = bench_now_ns();
    st.end_ns = seconds > 0 ? t0 + (uint64_t)(seconds * 1e9) : 0;
    for (unsigned i = 0; i < 2; i++) {
        bench_pair.m[i].tx_bytes = 0;
        bench_pair.m[i].tx_datagrams = 0;
    }
}

static result_t run_cell(cell_t cell, double seconds)
{
    begin_cell(cell, 0, seconds);
    uint64_t t0 = bench_now_ns();
    /* The producer starts at once: its pump runs after the loop's first settle. */
    (void)bench_pair_run(cell_done, (uint64_t)(seconds * 1000) + 1000);
    double elapsed = (double)(bench_now_ns() - t0) / 1e9;
    result_t r;
    memset(&r, 0, sizeof r);
    r.units = st.units;
    r.per_s = (double)st.units / elapsed;
    r.calls_per_s = (double)st.calls / elapsed;
    double wire = (double)(bench_pair.m[0].tx_bytes + bench_pair.m[1].tx_bytes);
    double dgrams = (double)(bench_pair.m[0].tx_datagrams + bench_pair.m[1].tx_datagrams);
    r.bytes_per_unit = st.units > 0 ? wire / (double)st.units : 0;
    r.datagrams_per_unit = st.units > 0 ? dgrams / (double)st.units : 0;
    /* Settle: what is in flight arrives (and is not counted), acks and credits go back. */
    st.producing = false;
    (void)bench_pair_run(NULL, QUIESCE_MS);
    r.lost = st.lost;
    r.failed = st.failed;
    r.would_block = st.would_block;
    return r;
}

/* ---- Timed runs ------------------------------------------------------------------------------- */

typedef struct {
    int runs;
    double seconds;
    result_t r[MAX_RUNS][CELLS];
} results_t;

static results_t res;

static bool one_run(int run)
{
    if (!open_pair(false)) {
        return false;
    }
    res.r[run][CELL_RAW] = run_cell(CELL_RAW, res.seconds);
    bench_pair_close();
    if (!open_pair(true)) {
        return false;
    }
    for (int c = CELL_QOS0; c < CELLS; c++) {
        res.r[run][c] = run_cell((cell_t)c, res.seconds);
    }
    bench_pair_close();
    return true;
}

typedef double (*field_fn)(const result_t *r);
static double f_per_s(const result_t *r) { return r->per_s; }
static double f_calls(const result_t *r) { return r->calls_per_s; }
static double f_bytes(const result_t *r) { return r->bytes_per_unit; }
static double f_dgrams(const result_t *r) { return r->datagrams_per_unit; }

static double median(int cell, field_fn f)
{
    double v[MAX_RUNS];
    for (int i = 0; i < res.runs; i++) {
        v[i] = f(&res.r[i][cell]);
    }
    return bench_median(v, res.runs);
}

static void print_cell_row(int cell, const char *label, field_fn f, double zeroq,
                           const char *goal)
{
    double m = median(cell, f);
    char ref[32] = "—";
    char ratio[32] = "—";
    if (zeroq > 0) {
        (void)snprintf(ref, sizeof ref, "%.0f", zeroq);
        (void)snprintf(ratio, sizeof ratio, "%.2f", m / zeroq);
    }
    (void)printf("| %s | %.0f | %s | %s | %s |\n", label, m, ref, ratio, goal);
}

static void print_tables(void)
{
    (void)printf("| 64-byte payloads, zq ↔ zq in one process | zq (ICE + DTLS + SCTP + broker, "
                 "real UDP) | ZeroQ, published (no DTLS, no SCTP: in-process loopback) | "
                 "zq / ZeroQ | goal |\n");
    (void)printf("|---|---:|---:|---:|---|\n");
    print_cell_row(CELL_QOS0, "pub/sub QoS 0, publish() calls/s", f_calls, ZEROQ_PUBLISH_PER_S,
                   "");
    print_cell_row(CELL_QOS0, cell_labels[CELL_QOS0], f_per_s, ZEROQ_DELIVERED_PER_S,
                   "> 100,000/s (issue)");
    for (int c = CELL_QOS1; c < CELLS; c++) {
        print_cell_row(c, cell_labels[c], f_per_s, 0, "");
    }
    print_cell_row(CELL_RAW, cell_labels[CELL_RAW], f_per_s, 0, "");
    double goal = median(CELL_QOS0, f_per_s);
    (void)printf("\nMedians of %d runs of %.1f s per cell, each run on a fresh pair. ZeroQ's "
                 "figures are its README's (anchors.md): ~100,000 publish()/s and ~61,000 "
                 "delivered/s through an in-process loopback channel, no DTLS and no SCTP; it "
                 "has no QoS 1, acked queue or RPC figure. QoS 0 goal > 100,000/s: %s "
                 "(%.0f).\n\n",
                 res.runs, res.seconds, goal > GOAL_QOS0_PER_S ? "met" : "not met", goal);
    (void)printf("| per unit, medians | UDP bytes, both ways | datagrams, both ways |\n");
    (void)printf("|---|---:|---:|\n");
    for (int c = 0; c < CELLS; c++) {
        (void)printf("| %s | %.0f | %.2f |\n", cell_labels[c], median(c, f_bytes),
                     median(c, f_dgrams));
    }
    (void)printf("\n");
    for (int c = 0; c < CELLS; c++) {
        (void)printf("- %s, each run:", cell_names[c]);
        for (int i = 0; i < res.runs; i++) {
            const result_t *r = &res.r[i][c];
            (void)printf(" %.0f", r->per_s);
        }
        uint64_t lost = 0, failed = 0, wb = 0;
        for (int i = 0; i < res.runs; i++) {
            lost += res.r[i][c].lost;
            failed += res.r[i][c].failed;
            wb += res.r[i][c].would_block;
        }
        (void)printf(" (lost %" PRIu64 ", failed %" PRIu64 ", WOULD_BLOCK %" PRIu64 ")\n", lost,
                     failed, wb);
    }
}

/* ---- Counting instructions --------------------------------------------------------------------- */

long bench_counted(cell_t cell, unsigned long n);

BENCH_NOT_INLINED long bench_counted(cell_t cell, unsigned long n)
{
    begin_cell(cell, n, 0);
    bool ok = bench_pair_run(cell_done, 600000);
    return ok ? (long)st.units : -1;
}

static int count_mode(const char *what, unsigned long n)
{
    int cell = 0;
    while (cell < CELLS && strcmp(cell_names[cell], what) != 0) {
        cell++;
    }
    if (cell == CELLS || n == 0) {
        (void)fprintf(stderr, "bench_broker: --count raw|qos0|qos1|queue|rpc1|rpc8 N\n");
        return 2;
    }
    if (!open_pair(cell != CELL_RAW)) {
        return 1;
    }
    /* A short warm-up outside the counted region: caches, the congestion window. */
    (void)run_cell((cell_t)cell, 0.2);
    long got = bench_counted((cell_t)cell, n);
    bench_pair_close();
    if (got < 0) {
        return 1;
    }
    (void)printf("units %ld\n", got);
    return 0;
}

/* ---- Main --------------------------------------------------------------------------------------- */

static int usage(void)
{
    (void)fprintf(stderr, "usage: bench_broker [--runs N] [--seconds S] [--summary FILE]\n"
                          "       bench_broker --count raw|qos0|qos1|queue|rpc1|rpc8 N\n");
    return 2;
}

int main(int argc, char **argv)
{
    res.runs = 3;
    res.seconds = 2.0;
    const char *summary = NULL;
    if (!bench_pair_setup()) {
        return 1;
    }
    if (argc == 4 && strcmp(argv[1], "--count") == 0) {
        return count_mode(argv[2], strtoul(argv[3], NULL, 10));
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            res.runs = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            res.seconds = atof(argv[++i]);
        } else if (strcmp(argv[i], "--summary") == 0 && i + 1 < argc) {
            summary = argv[++i];
        } else {
            return usage();
        }
    }
    if (res.runs < 1 || res.runs > MAX_RUNS || res.seconds <= 0) {
        return usage();
    }
    for (int run = 0; run < res.runs; run++) {
        if (!one_run(run)) {
            return 1;
        }
    }
    print_tables();
    if (summary != NULL) {
        FILE *f = fopen(summary, "w");
        if (f != NULL) {
            (void)fprintf(f, "%.0f %.0f\n", median(CELL_RAW, f_per_s),
                          median(CELL_QOS0, f_per_s));
            (void)fclose(f);
        }
    }
    return 0;
}

/* bench_signal: load on `zq signal` (or several, sharing rooms), from N WebSocket clients in one
 * process, each on its own TCP connection.
 *
 *   bench_signal --server ws://127.0.0.1:8001 [--server ws://...]... [--server-pid PID]...
 *                [--clients 1000] [--rooms 50] [--seconds 5] [--rate 1000] [--window 1]
 *                [--sdp-bytes 2048] [--connect-window 16] [--timeout-ms 5000]
 *                [--label TEXT] [--summary FILE]
 *
 * Client k is member i = k / rooms of room r = k % rooms and goes to server (i + r) % S, so
 * every room with more members than one spans the servers (consecutive members sit on
 * different ones). The client is zq's own: the handshake of signal/ws.h (a fresh random
 * Sec-WebSocket-Key, the Accept checked), its connection (masked frames, pings answered),
 * the frames of signal/sig_client.h; the bench only moves bytes, with epoll, and keeps time
 * with CLOCK_MONOTONIC, read as each recv() returns.
 *
 * Phases, each waiting for the last:
 *  1. connect: every client connects and upgrades, at most --connect-window of them in
 *     flight per server (zq signal answers 503 beyond ZQ_SIGNAL_MAX_HTTP connections still
 *     in HTTP); timed from connect() to the welcome frame.
 *  2. join: in rounds, member i of every room joins in round i, and the round ends when each
 *     pair it makes with the earlier members was told: one peer_joined per pair, which on one
 *     server the earlier member hears and across a cluster's servers the smaller id. One join
 *     per room in flight, so the pairs are well defined on one server and on a cluster alike.
 *     Timed per pair (join sent to its peer_joined) and per join (to its last pair).
 *  3. offers: every member sends offers to the next member of its room (its last to its first),
 *     ZeroQ's shape {"type":"offer","peerId":B,"sdp":{"type":"offer","sdp":SDP}} with a
 *     --sdp-bytes fake SDP whose o= line carries the send time and the sender; timed to the
 *     partner's receipt, whose peerId must name the sender. Two cells of --seconds: closed loop
 *     (each sender keeps --window offers in flight: the server's ceiling) and open loop at
 *     --rate offers/s in all (latency below the ceiling; a sender with RATE_CAP_PER_SENDER in
 *     flight is skipped and counted). Offers in flight at the end are waited for, then lost.
 *  4. memory: each --server-pid's VmRSS (/proc/PID/status) before phase 1 and after phase 2.
 *
 * Prints Markdown tables; --summary FILE gets "key value" lines for signal_load.sh's ratios.
 * It only reports: an offer lost, a frame naming the wrong peer or a client refused is counted
 * and shown, never a failure. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "port/zq_port.h"
#include "signal/sig_client.h"
#include "signal/ws.h"
#include "signal/ws_url.h"

#define MAX_CLIENTS 4096
#define MAX_SERVERS 16
#define MAX_ROOMS 4096
#define HS_BUF 1024              /* the server's 101 answer, and what came with it */
#define ID_SLOTS 8192            /* id -> client hash, twice MAX_CLIENTS */
#define JOIN_SAMPLES (1u << 21)
#define OFFER_SAMPLES (1u << 22)
#define RATE_CAP_PER_SENDER 4
#define SDP_MAX 8000             /* below ZQ_SIG_SDP_MAX, escaped CRLFs included */
#define DRAIN_MS 2000
#define JOIN_QUIET_MS 1000
#define NO_PARTNER UINT32_MAX
#define NO_PID 0

/* ---- Clock and samples ----------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Latencies in ns (uint32: up to 4.29 s; longer ones are clamped). */
typedef struct {
    uint32_t *v;
    size_t n, cap;
    unsigned long over; /* samples that did not fit */
} series_t;

static uint32_t connect_v[MAX_CLIENTS], join_v[JOIN_SAMPLES], join_all_v[MAX_CLIENTS];
static uint32_t closed_v[OFFER_SAMPLES], rate_v[OFFER_SAMPLES];

static void series_add(series_t *s, uint64_t ns)
{
    if (s->n == s->cap) {
        s->over++;
        return;
    }
    s->v[s->n++] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a;
    uint32_t y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The q-quantile by nearest rank, in ms; sorts the series. -1 when empty. */
static double quantile_ms(series_t *s, double q)
{
    if (s->n == 0) {
        return -1;
    }
    qsort(s->v, s->n, sizeof *s->v, cmp_u32);
    size_t rank = (size_t)(q * (double)s->n + 0.999999);
    return (double)s->v[(rank > 0 ? rank : 1) - 1] / 1e6;
}

/* ---- Servers and clients ---------------------------------------------------------------- */

typedef struct {
    const char *url;
    zq_addr_t addr;
    char host[128];   /* Host field: as the URL wrote it, with the port */
    char target[256]; /* request-target */
    int pid;
    unsigned clients, in_flight, next; /* next: the first client index not yet started */
    long rss_before_kib, rss_after_kib;
    long cpu_ticks_at_start; /* of the cell being measured */
} bserver_t;

typedef enum { C_IDLE, C_CONNECTING, C_UPGRADING, C_OPEN, C_DEAD } cstate_t;

typedef struct {
    cstate_t state;
    int fd;
    unsigned server, room, member;
    bool in_flight;   /* counted in its server's connect window */
    bool want_write;  /* EPOLLOUT asked */
    bool welcomed, joined;
    uint64_t t_start; /* connect() */
    uint64_t t_join;  /* join sent */
    unsigned join_expect, join_told;
    uint32_t partner;
    unsigned outstanding;
    uint8_t nonce[16];
    size_t hs_len;
    char hs[HS_BUF];
    char id[ZQ_SIG_ID_MAX + 1];
    ws_conn_t ws;
} bclient_t;

typedef struct {
    const char *name;
    series_t lat;
    bool closed_loop, sending;
    uint64_t start, end;
    unsigned long sent, received, received_in_time, blocked, skipped;
    double server_cpu_s, bench_cpu_s;
} cell_t;

typedef struct {
    unsigned clients, rooms, window, connect_window, sdp_bytes;
    double seconds, rate;
    uint32_t timeout_ms;
    const char *label, *summary;
} options_t;

static options_t opt = {1000, 50, 1, 16, 2048, 5.0, 1000.0, 5000, NULL, NULL};
static bserver_t servers[MAX_SERVERS];
static unsigned server_count, pid_count;
static bclient_t clients[MAX_CLIENTS];
static uint32_t id_table[ID_SLOTS]; /* client index + 1; 0 empty */
static unsigned joined_in_room[MAX_ROOMS];
static int epfd = -1;
static uint8_t rxbuf[65536];
static sig_event_t event;
static char frame[ZQ_SIG_FRAME_MAX];
static char sdp[SDP_MAX + 1];
static size_t sdp_len, sdp_stamp; /* where the o= line's numbers start */
static cell_t *cell;               /* the offer cell running, or NULL */

static struct {
    series_t connect, join, join_all;
    unsigned welcomed, refused, lost, joined;
    unsigned long join_expected, join_told, join_unexpected, offer_wrong_peer, malformed;
} st = {
    .connect = {connect_v, 0, MAX_CLIENTS, 0},
    .join = {join_v, 0, JOIN_SAMPLES, 0},
    .join_all = {join_all_v, 0, MAX_CLIENTS, 0},
};

/* Masking keys (RFC 6455 §5.3) from xorshift64*, seeded by getrandom(): unpredictable enough for
 * a bench, without a system call per frame. The handshake nonces come from getrandom(). */
static uint64_t mask_state;

static int mask_fill(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; i++) {
        mask_state ^= mask_state >> 12;
        mask_state ^= mask_state << 25;
        mask_state ^= mask_state >> 27;
        out[i] = (unsigned char)((mask_state * 0x2545F4914F6CDD1Dull) >> 56);
    }
    return 0;
}

static const zq_rand_t mask_rand = {mask_fill, NULL};

/* ---- Ids ----------------------------------------------------------------------------- */

static uint32_t id_hash(const char *id)
{
    uint32_t h = 2166136261u;
    for (; *id != '\0'; id++) {
        h = (h ^ (uint8_t)*id) * 16777619u;
    }
    return h;
}

static void id_insert(uint32_t k)
{
    uint32_t i = id_hash(clients[k].id) & (ID_SLOTS - 1);
    while (id_table[i] != 0) {
        i = (i + 1) & (ID_SLOTS - 1);
    }
    id_table[i] = k + 1;
}

static int id_find(const char *id)
{
    uint32_t i = id_hash(id) & (ID_SLOTS - 1);
    for (; id_table[i] != 0; i = (i + 1) & (ID_SLOTS - 1)) {
        if (strcmp(clients[id_table[i] - 1].id, id) == 0) {
            return (int)(id_table[i] - 1);
        }
    }
    return -1;
}

/* ---- Socket plumbing ---------------------------------------------------------------------- */

static void ep_set(bclient_t *c, int op, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.u32 = (uint32_t)(c - clients)};
    (void)epoll_ctl(epfd, op, c->fd, &ev);
}

static void leave_window(bclient_t *c)
{
    if (c->in_flight) {
        c->in_flight = false;
        servers[c->server].in_flight--;
    }
}

/* The client is out of the run: refused before its welcome, or lost after. */
static void client_dead(bclient_t *c)
{
    if (c->state == C_DEAD) {
        return;
    }
    if (c->welcomed) {
        st.lost++;
    } else {
        st.refused++;
    }
    leave_window(c);
    if (c->fd >= 0) {
        zq_port_tcp_close(c->fd);
        c->fd = -1;
    }
    c->state = C_DEAD;
}

static void flush(bclient_t *c)
{
    const uint8_t *out;
    size_t n;
    while (ws_pending_output(&c->ws, &out, &n)) {
        size_t sent;
        zq_err_t err = zq_port_tcp_send(c->fd, out, n, &sent);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            break;
        }
        if (err != ZQ_OK) {
            client_dead(c);
            return;
        }
        ws_output_consumed(&c->ws, sent);
    }
    bool pending = ws_pending_output(&c->ws, &out, &n);
    if (pending != c->want_write) {
        c->want_write = pending;
        ep_set(c, EPOLL_CTL_MOD, EPOLLIN | (pending ? EPOLLOUT : 0u));
    }
}

static bool send_text(bclient_t *c, const char *text, size_t len)
{
    if (c->state != C_OPEN || ws_send_text(&c->ws, text, len) != ZQ_OK) {
        return false;
    }
    flush(c);
    return c->state == C_OPEN;
}

/* ---- Connect and upgrade ------------------------------------------------------------------ */

static void start_connect(bclient_t *c)
{
    bserver_t *s = &servers[c->server];
    c->t_start = now_ns();
    if (zq_port_tcp_connect_start(&c->fd, &s->addr) != ZQ_OK) {
        c->fd = -1;
        client_dead(c);
        return;
    }
    c->state = C_CONNECTING;
    c->in_flight = true;
    s->in_flight++;
    ep_set(c, EPOLL_CTL_ADD, EPOLLOUT);
}

/* Keeps each server's connect window full, in client order. */
static void refill_connects(void)
{
    for (unsigned s = 0; s < server_count; s++) {
        bserver_t *srv = &servers[s];
        while (srv->in_flight < opt.connect_window && srv->next < opt.clients) {
            bclient_t *c = &clients[srv->next++];
            if (c->server == s && c->state == C_IDLE) {
                start_connect(c);
            }
        }
    }
}

static void send_upgrade(bclient_t *c)
{
    bserver_t *s = &servers[c->server];
    if (zq_port_tcp_connect_finish(c->fd, &s->addr) != ZQ_OK) {
        c->fd = -1; /* closed by _finish() */
        client_dead(c);
        return;
    }
    ws_client_handshake_t hs = {.host = s->host, .path = s->target};
    if (getrandom(hs.nonce, sizeof hs.nonce, 0) != (ssize_t)sizeof hs.nonce) {
        client_dead(c);
        return;
    }
    memcpy(c->nonce, hs.nonce, sizeof c->nonce);
    uint8_t req[768];
    zq_writer_t w = zq_writer(req, sizeof req);
    size_t sent = 0;
    /* A fresh socket takes ~200 bytes at once: a short write is a failure here. */
    if (ws_client_request(&w, &hs) != ZQ_OK ||
        zq_port_tcp_send(c->fd, req, w.len, &sent) != ZQ_OK || sent != w.len) {
        client_dead(c);
        return;
    }
    c->state = C_UPGRADING;
    ep_set(c, EPOLL_CTL_MOD, EPOLLIN);
}

static void feed(bclient_t *c, uint64_t now, const uint8_t *data, size_t len);

static void read_upgrade(bclient_t *c, uint64_t now, size_t n)
{
    c->hs_len += n;
    size_t head = 0;
    zq_err_t err = ws_client_check_response(c->hs, c->hs_len, c->nonce, &head, NULL);
    if (err == ZQ_ERR_NEED_MORE && c->hs_len < sizeof c->hs) {
        return;
    }
    if (err != ZQ_OK) {
        client_dead(c); /* a 503, or not an upgrade */
        return;
    }
    c->state = C_OPEN;
    ws_conn_init(&c->ws, WS_ROLE_CLIENT, &mask_rand);
    feed(c, now, (const uint8_t *)c->hs + head, c->hs_len - head);
}

/* ---- Frames in ---------------------------------------------------------------------------- */

static void on_welcome(bclient_t *c, uint64_t now)
{
    if (c->welcomed) {
        return;
    }
    memcpy(c->id, event.peer, sizeof c->id);
    c->welcomed = true;
    st.welcomed++;
    series_add(&st.connect, now - c->t_start);
    id_insert((uint32_t)(c - clients));
    leave_window(c);
}

/* One peer_joined per pair, its latency from the newcomer's join. On one server the members
 * already there hear of the newcomer (router.h); across the servers of a cluster the member
 * with the smaller id hears of the other, whichever joined first (signal/cluster.h). */
static void on_peer_joined(bclient_t *c, uint64_t now)
{
    int k = id_find(event.peer);
    bclient_t *x = k >= 0 ? &clients[k] : NULL;
    bclient_t *newcomer = x != NULL && x->member > c->member ? x : c;
    if (x == NULL || !x->joined || x->room != c->room || x == c ||
        newcomer->join_told == newcomer->join_expect) {
        st.join_unexpected++;
        return;
    }
    series_add(&st.join, now - newcomer->t_join);
    st.join_told++;
    if (++newcomer->join_told == newcomer->join_expect) {
        series_add(&st.join_all, now - newcomer->t_join);
    }
}

static void send_offer(bclient_t *a);

/* The o= line: "o=- T S IN IP4 127.0.0.1", T the send time in ns (20 digits), S the sender. */
static bool read_stamp(const char *text, uint64_t *t, unsigned long *sender)
{
    const char *o = strstr(text, "\no=- ");
    char *end;
    if (o == NULL) {
        return false;
    }
    *t = strtoull(o + 5, &end, 10);
    *sender = strtoul(end, &end, 10);
    return *sender < opt.clients;
}

static void on_offer(bclient_t *b, uint64_t now)
{
    uint64_t t;
    unsigned long k;
    if (cell == NULL || !read_stamp(event.text, &t, &k)) {
        st.malformed++;
        return;
    }
    bclient_t *a = &clients[k];
    if (strcmp(event.peer, a->id) != 0 || a->partner != (uint32_t)(b - clients)) {
        st.offer_wrong_peer++;
    }
    series_add(&cell->lat, now - t);
    cell->received++;
    cell->received_in_time += now <= cell->end;
    if (a->outstanding > 0) {
        a->outstanding--;
    }
    if (cell->closed_loop && cell->sending) {
        send_offer(a);
    }
}

static void on_text(bclient_t *c, uint64_t now, const char *text, size_t len)
{
    if (sig_parse_frame(text, len, &event) != ZQ_OK) {
        st.malformed++;
        return;
    }
    switch (event.type) {
    case SIG_EVENT_WELCOME:
        on_welcome(c, now);
        break;
    case SIG_EVENT_PEER_JOINED:
        on_peer_joined(c, now);
        break;
    case SIG_EVENT_OFFER:
        on_offer(c, now);
        break;
    default:
        break; /* peer_left while closing, ice_servers */
    }
}

static void feed(bclient_t *c, uint64_t now, const uint8_t *data, size_t len)
{
    while (len > 0 && c->state == C_OPEN) {
        size_t used;
        if (ws_feed(&c->ws, data, len, &used) != ZQ_OK) {
            client_dead(c);
            return;
        }
        data += used;
        len -= used;
        ws_event_t ev;
        while (c->state == C_OPEN && ws_poll_event(&c->ws, &ev)) {
            if (ev.type == WS_EVENT_MESSAGE && ev.text) {
                on_text(c, now, (const char *)ev.data, ev.len);
            } else if (ev.type == WS_EVENT_CLOSED) {
                client_dead(c);
            }
        }
    }
}

static void readable(bclient_t *c)
{
    while (c->state == C_UPGRADING || c->state == C_OPEN) {
        bool upgrading = c->state == C_UPGRADING;
        uint8_t *buf = upgrading ? (uint8_t *)c->hs + c->hs_len : rxbuf;
        size_t cap = upgrading ? sizeof c->hs - c->hs_len : sizeof rxbuf;
        size_t n;
        zq_err_t err = zq_port_tcp_recv(c->fd, buf, cap, &n);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            break;
        }
        if (err != ZQ_OK) {
            client_dead(c);
            return;
        }
        uint64_t now = now_ns();
        if (upgrading) {
            read_upgrade(c, now, n);
        } else {
            feed(c, now, rxbuf, n);
        }
    }
    if (c->state == C_OPEN) {
        flush(c);
    }
}

/* One epoll_wait() and what it reported. */
static void pump(int timeout_ms)
{
    struct epoll_event ev[256];
    int n = epoll_wait(epfd, ev, 256, timeout_ms);
    for (int i = 0; i < n; i++) {
        bclient_t *c = &clients[ev[i].data.u32];
        if (c->state == C_CONNECTING) {
            send_upgrade(c);
        } else if (c->state == C_UPGRADING || c->state == C_OPEN) {
            if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
                readable(c);
            }
            if (c->state == C_OPEN && (ev[i].events & EPOLLOUT)) {
                flush(c);
            }
        }
    }
}

/* ---- Server figures ----------------------------------------------------------------------- */

static long rss_kib(int pid)
{
    char path[64], line[256];
    long kib = -1;
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
        }
    }
    fclose(f);
    return kib;
}

/* utime + stime of @p pid, in clock ticks (/proc/PID/stat fields 14 and 15). */
static long cpu_ticks(int pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    char *ok = fgets(line, sizeof line, f);
    fclose(f);
    char *p = ok != NULL ? strrchr(line, ')') : NULL;
    if (p == NULL) {
        return -1;
    }
    long utime = 0, stime = 0;
    /* after ")": state, then fields 4..13, then utime and stime */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &utime, &stime) != 2) {
        return -1;
    }
    return utime + stime;
}

static double bench_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double servers_cpu_s(bool start)
{
    double total = 0;
    for (unsigned s = 0; s < server_count; s++) {
        if (servers[s].pid == NO_PID) {
            return -1;
        }
        long t = cpu_ticks(servers[s].pid);
        if (start) {
            servers[s].cpu_ticks_at_start = t;
        }
        total += (double)(t - servers[s].cpu_ticks_at_start);
    }
    return total / (double)sysconf(_SC_CLK_TCK);
}

/* ---- Phases --------------------------------------------------------------------------------- */

static bool past(uint64_t deadline)
{
    return now_ns() >= deadline;
}

static uint64_t deadline_in_ms(uint64_t ms)
{
    return now_ns() + ms * 1000000u;
}

static void phase_connect(void)
{
    unsigned done_before;
    uint64_t quiet_until = deadline_in_ms(opt.timeout_ms);
    do {
        done_before = st.welcomed + st.refused;
        refill_connects();
        pump(10);
        if (st.welcomed + st.refused != done_before) {
            quiet_until = deadline_in_ms(opt.timeout_ms); /* progress: wait on */
        }
    } while (st.welcomed + st.refused < opt.clients && !past(quiet_until));
}

static unsigned members_of(unsigned room)
{
    return room < opt.clients ? (opt.clients - room + opt.rooms - 1) / opt.rooms : 0;
}

static void join_one(bclient_t *c)
{
    char text[32 + ZQ_SIG_ROOM_MAX];
    char room[32];
    snprintf(room, sizeof room, "bench-%u", c->room);
    size_t len = sig_write_join(room, text, sizeof text);
    c->join_expect = joined_in_room[c->room];
    c->t_join = now_ns();
    if (len == 0 || !send_text(c, text, len)) {
        return;
    }
    c->joined = true;
    joined_in_room[c->room]++;
    st.joined++;
    st.join_expected += c->join_expect;
}

/* Round i: member i of every room joins; the round ends when the rooms have heard of them. */
static void phase_join(void)
{
    unsigned rounds = members_of(0);
    for (unsigned i = 0; i < rounds; i++) {
        for (unsigned r = 0; r < opt.rooms; r++) {
            unsigned k = i * opt.rooms + r;
            if (k < opt.clients && clients[k].state == C_OPEN) {
                join_one(&clients[k]);
            }
        }
        /* A round that stops making progress for JOIN_QUIET_MS ends too: a cluster that
         * loses peer_joined costs seconds, not rounds x --timeout-ms. */
        uint64_t deadline = deadline_in_ms(opt.timeout_ms);
        uint64_t quiet = deadline_in_ms(JOIN_QUIET_MS);
        while (st.join_told < st.join_expected && !past(deadline) && !past(quiet)) {
            unsigned long told = st.join_told;
            pump(10);
            if (st.join_told != told) {
                quiet = deadline_in_ms(JOIN_QUIET_MS);
            }
        }
    }
    pump(50); /* the last round's stray frames, if any */
}

/* Each joined member's partner: the next joined member of its room, the last's the first. */
static void pick_partners(void)
{
    for (unsigned k = 0; k < opt.clients; k++) {
        clients[k].partner = NO_PARTNER;
        if (!clients[k].joined) {
            continue;
        }
        unsigned m = members_of(clients[k].room);
        for (unsigned step = 1; step < m; step++) {
            unsigned j = ((clients[k].member + step) % m) * opt.rooms + clients[k].room;
            if (clients[j].joined) {
                clients[k].partner = j;
                break;
            }
        }
    }
}

/* A fake SDP of about --sdp-bytes, shaped like a data-channel-only offer. */
static void build_sdp(void)
{
    static const char head[] =
        "v=0\r\no=- ";
    static const char tail[] =
        " IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\na=extmap-allow-mixed\r\n"
        "a=msid-semantic: WMS\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
        "c=IN IP4 0.0.0.0\r\na=ice-ufrag:Zq7b\r\na=ice-pwd:0123456789abcdefghijklmn\r\n"
        "a=ice-options:trickle\r\na=fingerprint:sha-256 "
        "5A:3C:9E:11:42:7D:B0:6F:88:21:C4:D3:0A:9B:E7:55:13:6C:F2:48:A1:0D:3E:77:B9:CC:20:"
        "5F:81:6A:D4:E0\r\na=setup:actpass\r\na=mid:0\r\na=sctp-port:5000\r\n"
        "a=max-message-size:262144\r\n";
    size_t n = 0;
    memcpy(sdp, head, sizeof head - 1);
    n += sizeof head - 1;
    sdp_stamp = n;
    n += (size_t)snprintf(sdp + n, sizeof sdp - n, "%020u %05u", 0u, 0u);
    memcpy(sdp + n, tail, sizeof tail - 1);
    n += sizeof tail - 1;
    for (unsigned i = 1; n + 100 < opt.sdp_bytes && n + 100 < SDP_MAX; i++) {
        n += (size_t)snprintf(sdp + n, sizeof sdp - n,
                              "a=candidate:%u 1 udp %u 192.168.%u.%u %u typ host generation 0\r\n",
                              1000000000u + i, 2122260223u - i, i / 250, i % 250 + 1,
                              50000u + i);
    }
    sdp_len = n;
}

static void stamp_sdp(uint64_t t, unsigned sender)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%020" PRIu64 " %05u", t, sender);
    memcpy(sdp + sdp_stamp, digits, 26);
}

static void send_offer(bclient_t *a)
{
    if (a->partner == NO_PARTNER || a->state != C_OPEN) {
        return;
    }
    stamp_sdp(now_ns(), (unsigned)(a - clients));
    size_t len = sig_write_description(true, clients[a->partner].id, sdp, sdp_len, frame,
                                       sizeof frame);
    if (len == 0 || !send_text(a, frame, len)) {
        cell->blocked++;
        return;
    }
    a->outstanding++;
    cell->sent++;
}

/* Open loop: the offers due by now at --rate, round robin over the senders with room. */
static void send_due(uint64_t now, unsigned *next)
{
    double due = (double)(now - cell->start) / 1e9 * opt.rate;
    while ((double)(cell->sent + cell->blocked + cell->skipped) < due) {
        unsigned tried = 0;
        while (tried < opt.clients &&
               (clients[*next].partner == NO_PARTNER ||
                clients[*next].outstanding >= RATE_CAP_PER_SENDER)) {
            *next = (*next + 1) % opt.clients;
            tried++;
        }
        if (tried == opt.clients) {
            cell->skipped++;
            continue;
        }
        send_offer(&clients[*next]);
        *next = (*next + 1) % opt.clients;
    }
}

static void run_cell(cell_t *c)
{
    cell = c;
    for (unsigned k = 0; k < opt.clients; k++) {
        clients[k].outstanding = 0;
    }
    double cpu0 = bench_cpu_s();
    (void)servers_cpu_s(true);
    c->sending = true;
    c->start = now_ns();
    c->end = c->start + (uint64_t)(opt.seconds * 1e9);
    for (unsigned w = 0; c->closed_loop && w < opt.window; w++) {
        for (unsigned k = 0; k < opt.clients; k++) {
            send_offer(&clients[k]);
        }
    }
    unsigned next = 0;
    while (!past(c->end)) {
        pump(1);
        if (!c->closed_loop) {
            send_due(now_ns(), &next);
        }
    }
    c->sending = false;
    c->server_cpu_s = servers_cpu_s(false);
    c->bench_cpu_s = bench_cpu_s() - cpu0;
    uint64_t drain = deadline_in_ms(DRAIN_MS);
    while (c->received < c->sent && !past(drain)) {
        pump(10);
    }
    cell = NULL;
}

static void close_all(void)
{
    for (unsigned k = 0; k < opt.clients; k++) {
        bclient_t *c = &clients[k];
        if (c->state == C_OPEN && ws_close(&c->ws, WS_CLOSE_NORMAL, NULL) == ZQ_OK) {
            flush(c);
        }
        if (c->fd >= 0) {
            zq_port_tcp_close(c->fd);
            c->fd = -1;
        }
    }
}

/* ---- Report ----------------------------------------------------------------------------- */

static FILE *summary;

static void put(const char *key, double v)
{
    if (summary != NULL) {
        fprintf(summary, "%s %.6g\n", key, v);
    }
}

static void fmt_ms(char *out, size_t cap, double ms)
{
    if (ms < 0) {
        snprintf(out, cap, "—");
    } else {
        snprintf(out, cap, ms < 10 ? "%.3f" : "%.1f", ms);
    }
}

static void latency_row(const char *label, const char *key, series_t *s)
{
    double p50 = quantile_ms(s, 0.50);
    double p99 = quantile_ms(s, 0.99);
    char a[32], b[32], key50[64], key99[64];
    fmt_ms(a, sizeof a, p50);
    fmt_ms(b, sizeof b, p99);
    printf("| %s | %s | %s | %zu |\n", label, a, b, s->n);
    snprintf(key50, sizeof key50, "%s_p50_ms", key);
    snprintf(key99, sizeof key99, "%s_p99_ms", key);
    put(key50, p50);
    put(key99, p99);
}

static unsigned long senders(void)
{
    unsigned long n = 0;
    for (unsigned k = 0; k < opt.clients; k++) {
        n += clients[k].partner != NO_PARTNER;
    }
    return n;
}

static void print_latencies(cell_t *closed, cell_t *rated)
{
    char label[160];
    printf("| latency | p50 ms | p99 ms | samples |\n|---|---:|---:|---:|\n");
    snprintf(label, sizeof label,
             "connect → welcome (TCP connect + upgrade, %u in flight per server)",
             opt.connect_window);
    latency_row(label, "connect", &st.connect);
    latency_row("join → peer_joined, per receiver", "join", &st.join);
    latency_row("join → the whole room told (last receiver)", "join_all", &st.join_all);
    snprintf(label, sizeof label, "offer relay, closed loop (%u in flight per sender)",
             opt.window);
    latency_row(label, "offer_closed", &closed->lat);
    if (opt.rate > 0) {
        snprintf(label, sizeof label, "offer relay, open loop at %.0f offers/s", opt.rate);
        latency_row(label, "offer_rate", &rated->lat);
    }
}

static void cell_rows(cell_t *c, const char *key)
{
    char k[64];
    double fps = (double)c->received_in_time / opt.seconds;
    printf("| offers relayed/s, %s | %.0f |\n", c->name, fps);
    snprintf(k, sizeof k, "%s_fps", key);
    put(k, fps);
    if (c->server_cpu_s >= 0 && c->received_in_time > 0) {
        double us = c->server_cpu_s * 1e6 / (double)c->received_in_time;
        printf("| server CPU per relayed offer, %s | %.1f µs (%.2f s of %.1f s, all servers) |\n",
               c->name, us, c->server_cpu_s, opt.seconds);
        snprintf(k, sizeof k, "%s_server_us", key);
        put(k, us);
    }
    printf("| bench CPU, %s | %.2f s of %.1f s |\n", c->name, c->bench_cpu_s, opt.seconds);
    printf("| offers lost / not sent (output full) / skipped (senders at cap), %s | "
           "%lu / %lu / %lu |\n",
           c->name, c->sent - (c->received < c->sent ? c->received : c->sent), c->blocked,
           c->skipped);
}

static void print_memory(void)
{
    long before = 0, after = 0;
    for (unsigned s = 0; s < server_count; s++) {
        if (servers[s].pid == NO_PID || servers[s].rss_before_kib < 0) {
            return;
        }
        before += servers[s].rss_before_kib;
        after += servers[s].rss_after_kib;
        printf("| server %u RSS before → after (%u clients) | %.1f → %.1f MiB |\n", s,
               servers[s].clients, (double)servers[s].rss_before_kib / 1024,
               (double)servers[s].rss_after_kib / 1024);
    }
    double per = st.joined > 0 ? (double)(after - before) / st.joined : 0;
    printf("| server memory per member (RSS growth / %u members) | %.1f KiB |\n", st.joined, per);
    put("rss_before_kib", (double)before);
    put("rss_after_kib", (double)after);
    put("rss_per_member_kib", per);
}

static void report(cell_t *closed, cell_t *rated)
{
    printf("## zq signal under load%s%s: %u clients, %u rooms, %u server%s (%ld cores)\n\n",
           opt.label != NULL ? ", " : "", opt.label != NULL ? opt.label : "", opt.clients,
           opt.rooms, server_count, server_count == 1 ? "" : "s", sysconf(_SC_NPROCESSORS_ONLN));
    print_latencies(closed, rated);
    printf("\n| measure | value |\n|---|---:|\n");
    cell_rows(closed, "offer_closed");
    if (opt.rate > 0) {
        cell_rows(rated, "offer_rate");
    }
    print_memory();
    printf("| clients welcomed / refused / lost later | %u / %u / %u |\n", st.welcomed,
           st.refused, st.lost);
    printf("| peer_joined missing / unexpected | %lu / %lu |\n",
           st.join_expected - st.join_told, st.join_unexpected);
    printf("| offers naming the wrong sender / malformed frames | %lu / %lu |\n",
           st.offer_wrong_peer, st.malformed);
    printf("\nOffers carry a %zu-byte SDP (frame %zu bytes) from %lu senders, each to the next "
           "member of its room; %.1f s per cell.\n",
           sdp_len, sig_write_description(true, clients[0].id, sdp, sdp_len, frame, sizeof frame),
           senders(), opt.seconds);
    put("clients", opt.clients);
    put("welcomed", st.welcomed);
    put("join_missing", (double)(st.join_expected - st.join_told));
    put("offer_wrong_peer", (double)st.offer_wrong_peer);
}

/* ---- Setup ------------------------------------------------------------------------------ */

static int usage(const char *why)
{
    fprintf(stderr,
            "bench_signal: %s\n"
            "usage: bench_signal --server ws://HOST:PORT [--server ...] [--server-pid PID]...\n"
            "       [--clients N] [--rooms N] [--seconds S] [--rate OFFERS_PER_S (0: none)]\n"
            "       [--window N] [--sdp-bytes N] [--connect-window N] [--timeout-ms MS]\n"
            "       [--label TEXT] [--summary FILE]\n",
            why);
    return 2;
}

static int add_server(const char *url)
{
    if (server_count == MAX_SERVERS) {
        return usage("too many --server");
    }
    bserver_t *s = &servers[server_count];
    ws_url_t u;
    const char *why = "not a ws:// URL";
    if (ws_url_parse(url, strlen(url), &u, &why) != ZQ_OK || u.secure ||
        u.addr.family == ZQ_AF_NONE) {
        return usage(u.secure ? "wss:// is not benched" : "--server wants ws://IP:PORT[/path]");
    }
    char host[96];
    if (ws_url_copy_host(&u, host, sizeof host) != ZQ_OK ||
        ws_url_copy_target(&u, s->target, sizeof s->target) != ZQ_OK) {
        return usage("--server URL too long");
    }
    snprintf(s->host, sizeof s->host, u.addr.family == ZQ_AF_INET6 ? "[%s]:%u" : "%s:%u", host,
             (unsigned)u.port);
    s->url = url;
    s->addr = u.addr;
    server_count++;
    return -1;
}

static bool number(const char *text, double lo, double hi, double *out)
{
    char *end;
    *out = strtod(text, &end);
    return end != text && *end == '\0' && *out >= lo && *out <= hi;
}

/* The numeric options, in parse_option()'s table order. */
static void set_option(size_t which, double v)
{
    switch (which) {
    case 0:
        servers[pid_count++].pid = (int)v;
        break;
    case 1:
        opt.clients = (unsigned)v;
        break;
    case 2:
        opt.rooms = (unsigned)v;
        break;
    case 3:
        opt.seconds = v;
        break;
    case 4:
        opt.rate = v;
        break;
    case 5:
        opt.window = (unsigned)v;
        break;
    case 6:
        opt.sdp_bytes = (unsigned)v;
        break;
    case 7:
        opt.connect_window = (unsigned)v;
        break;
    default:
        opt.timeout_ms = (uint32_t)v;
        break;
    }
}

static int parse_option(const char *name, const char *value)
{
    double v;
    if (strcmp(name, "--server") == 0) {
        return add_server(value);
    }
    if (strcmp(name, "--label") == 0 || strcmp(name, "--summary") == 0) {
        *(name[2] == 'l' ? &opt.label : &opt.summary) = value;
        return -1;
    }
    static const struct {
        const char *name;
        double lo, hi;
    } ranges[] = {
        {"--server-pid", 1, 4194304}, {"--clients", 1, MAX_CLIENTS}, {"--rooms", 1, MAX_ROOMS},
        {"--seconds", 0.1, 3600},     {"--rate", 0, 1e7},            {"--window", 1, 64},
        {"--sdp-bytes", 200, SDP_MAX}, {"--connect-window", 1, MAX_CLIENTS},
        {"--timeout-ms", 10, 600000},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        if (strcmp(name, ranges[i].name) != 0) {
            continue;
        }
        if (!number(value, ranges[i].lo, ranges[i].hi, &v)) {
            return usage("a number out of range");
        }
        if (i == 0 && pid_count == MAX_SERVERS) {
            return usage("too many --server-pid");
        }
        set_option(i, v);
        return -1;
    }
    return usage("unknown option");
}

static int parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            return usage("an option without its value");
        }
        int status = parse_option(argv[i], argv[i + 1]);
        if (status >= 0) {
            return status;
        }
    }
    if (server_count == 0) {
        return usage("no --server");
    }
    if (pid_count != 0 && pid_count != server_count) {
        return usage("one --server-pid per --server, in the same order");
    }
    return -1;
}

/* Client k: member k / rooms of room k % rooms, on server (member + room) % servers. */
static void place_clients(void)
{
    for (unsigned k = 0; k < opt.clients; k++) {
        bclient_t *c = &clients[k];
        c->fd = -1;
        c->room = k % opt.rooms;
        c->member = k / opt.rooms;
        c->server = (c->member + c->room) % server_count;
        c->partner = NO_PARTNER;
        servers[c->server].clients++;
    }
}

/* Every client's socket and the epoll fd under RLIMIT_NOFILE: the soft limit up to the hard. */
static void raise_fd_limit(void)
{
    struct rlimit lim;
    rlim_t need = (rlim_t)opt.clients + 64;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < need) {
        lim.rlim_cur = lim.rlim_max < need ? lim.rlim_max : need;
        (void)setrlimit(RLIMIT_NOFILE, &lim);
    }
}

int main(int argc, char **argv)
{
    int status = parse_args(argc, argv);
    if (status >= 0) {
        return status;
    }
    if (opt.rooms > opt.clients) {
        opt.rooms = opt.clients;
    }
    (void)zq_port_init();
    signal(SIGPIPE, SIG_IGN);
    raise_fd_limit();
    if (getrandom(&mask_state, sizeof mask_state, 0) != (ssize_t)sizeof mask_state) {
        mask_state = now_ns();
    }
    mask_state |= 1;
    epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0) {
        perror("bench_signal: epoll_create1");
        return 1;
    }
    if (opt.summary != NULL && (summary = fopen(opt.summary, "w")) == NULL) {
        perror(opt.summary);
        return 1;
    }
    place_clients();
    build_sdp();
    for (unsigned s = 0; s < pid_count; s++) {
        servers[s].rss_before_kib = rss_kib(servers[s].pid);
    }
    phase_connect();
    phase_join();
    for (unsigned s = 0; s < pid_count; s++) {
        servers[s].rss_after_kib = rss_kib(servers[s].pid);
    }
    pick_partners();
    static cell_t closed = {.name = "closed loop", .closed_loop = true,
                            .lat = {closed_v, 0, OFFER_SAMPLES, 0}};
    static char rated_name[64];
    snprintf(rated_name, sizeof rated_name, "open loop at %.0f/s", opt.rate);
    static cell_t rated = {.lat = {rate_v, 0, OFFER_SAMPLES, 0}};
    rated.name = rated_name;
    run_cell(&closed);
    if (opt.rate > 0) {
        run_cell(&rated);
    }
    close_all();
    report(&closed, &rated);
    if (summary != NULL) {
        fclose(summary);
    }
    return 0;
}

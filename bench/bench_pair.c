/* Two zq nodes in one process over real UDP on 127.0.0.1 (see bench_pair.h). */
#include "bench_pair.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "port/zq_port.h"
#include "stack/peer/peer_internal.h"

bench_pair_t bench_pair;

/* mbedTLS's heap for both members: ~13 KiB per handshake and ~6 KiB per session each, plus
 * the identities (README, "DTLS"), with room to spare. */
static uint8_t arena[256 * 1024];

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t bench_pair_now(void)
{
    return zq_loop_now(&bench_pair.loop);
}

size_t bench_arena_in_use(void)
{
    dtls_arena_stats_t st;
    return dtls_arena_stats(&st) == ZQ_OK ? st.in_use : 0;
}

/* ---- Signalling: the router's frames go to the member's inbox ------------------------------ */

static void router_send(void *ctx, unsigned client, const char *frame, size_t len)
{
    bench_pair_t *p = ctx;
    for (unsigned i = 0; i < 2; i++) {
        bench_member_t *m = &p->m[i];
        if (m->client != client) {
            continue;
        }
        if (m->inbox_count == BENCH_INBOX || len > sizeof m->inbox[0].text) {
            p->inbox_overflow++;
            return;
        }
        memcpy(m->inbox[m->inbox_count].text, frame, len);
        m->inbox[m->inbox_count++].len = len;
        return;
    }
}

static void deliver_inbox(bench_member_t *m, uint64_t now)
{
    for (size_t k = 0; k < m->inbox_count; k++) {
        node_handle_signal(&m->node, now, m->inbox[k].text, m->inbox[k].len);
    }
    m->inbox_count = 0;
}

/* The node's frames go to the router at once; an offer's time is the time its node wrote it. */
static void flush_signal(bench_member_t *m, uint64_t now)
{
    char frame[ZQ_SIG_FRAME_MAX];
    for (;;) {
        uint64_t t = bench_now_ns();
        size_t len = node_poll_signal(&m->node, now, frame, sizeof frame);
        if (len == 0) {
            return;
        }
        if (m->offer_ns == 0 && strstr(frame, "\"type\":\"offer\"") != NULL) {
            m->offer_ns = t;
        }
        sig_router_frame(&bench_pair.router, now, m->client, frame, len);
    }
}

/* ---- The loop driver: one per member --------------------------------------------------------- */

static void drv_datagram(void *obj, uint64_t now, const zq_addr_t *local,
                         const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    bench_member_t *m = obj;
    (void)node_handle_datagram(&m->node, now, local, remote, data, len);
}

static uint64_t drv_next_timeout(void *obj)
{
    bench_member_t *m = obj;
    if (m->inbox_count > 0) {
        return 0; /* signalling waits: handled at the loop's next turn, before poll() */
    }
    uint64_t t = node_next_timeout(&m->node);
    return m->has_broker ? zq_time_min(t, brk_next_timeout(&m->broker)) : t;
}

static void drv_timeout(void *obj, uint64_t now)
{
    bench_member_t *m = obj;
    deliver_inbox(m, now);
    if (node_next_timeout(&m->node) <= now) {
        node_handle_timeout(&m->node, now);
    }
    if (m->has_broker && brk_next_timeout(&m->broker) <= now) {
        brk_handle_timeout(&m->broker, now);
    }
}

static bool drv_transmit(void *obj, zq_addr_t *local, zq_addr_t *remote, const uint8_t **data,
                         size_t *len)
{
    bench_member_t *m = obj;
    peer_transmit_t tx;
    if (!node_poll_transmit(&m->node, zq_loop_now(&bench_pair.loop), &tx)) {
        return false;
    }
    *local = tx.local;
    *remote = tx.remote;
    *data = tx.data;
    *len = tx.len;
    m->tx_datagrams++;
    m->tx_bytes += tx.len;
    return true;
}

static void node_event(bench_member_t *m, uint64_t now, const node_event_t *ev)
{
    if (ev->type == NODE_EVENT_PEER_CONNECTED && m->slot < 0) {
        m->slot = ev->peer;
        m->connected_ns = bench_now_ns();
        m->elapsed_ms = ev->elapsed_ms;
    }
    if (m->has_broker) {
        brk_handle_node_event(&m->broker, now, ev);
    }
    if (m->app != NULL && m->app->on_node_event != NULL) {
        m->app->on_node_event(m, now, ev);
    }
}

static void read_channel(bench_member_t *m, uint64_t now)
{
    if (m->has_broker) {
        brk_event_t bev;
        while (brk_poll_event(&m->broker, now, &bev)) {
            if (m->app != NULL && m->app->on_brk_event != NULL) {
                m->app->on_brk_event(m, now, &bev);
            }
        }
        return;
    }
    node_message_t msg;
    while (node_read(&m->node, now, &msg)) {
        if (m->app != NULL && m->app->on_message != NULL) {
            m->app->on_message(m, now, &msg);
        }
    }
}

static void drv_after_io(void *obj, uint64_t now)
{
    bench_member_t *m = obj;
    deliver_inbox(m, now);
    /* Reading can open a channel and so make new node events: go round until none is left,
     * as `zq echo` does. */
    bool again;
    do {
        node_event_t ev;
        while (node_poll_event(&m->node, &ev)) {
            node_event(m, now, &ev);
        }
        read_channel(m, now);
        if (m->app != NULL && m->app->pump != NULL) {
            m->app->pump(m, now);
        }
        again = node_events_pending(&m->node) > 0;
    } while (again);
    flush_signal(m, now);
    if (bench_pair.done != NULL && bench_pair.done()) {
        zq_loop_stop(&bench_pair.loop);
    }
}

static const zq_driver_t member_driver = {
    .handle_datagram = drv_datagram,
    .handle_timeout = drv_timeout,
    .next_timeout = drv_next_timeout,
    .poll_transmit = drv_transmit,
    .after_io = drv_after_io,
};

/* ---- Setting up and tearing down ------------------------------------------------------------ */

bool bench_pair_setup(void)
{
    (void)zq_port_init();
    dtls_arena_init(arena, sizeof arena);
    bench_pair.rand = zq_port_rand();
    for (unsigned i = 0; i < 2; i++) {
        bench_member_t *m = &bench_pair.m[i];
        dtls_config_t cfg;
        dtls_config_default(&cfg);
        cfg.rand = bench_pair.rand;
        if (dtls_identity_generate(&m->identity, &bench_pair.rand) != ZQ_OK ||
            dtls_context_init(&m->dtls, &cfg, &m->identity) != ZQ_OK) {
            (void)fprintf(stderr, "bench: cannot make a DTLS identity\n");
            return false;
        }
        m->sock = ZQ_SOCKET_INVALID;
    }
    return true;
}

static bool start_member(bench_member_t *m, unsigned index, bool broker)
{
    /* Everything but the identity is fresh for each pair: no state of an earlier run. */
    size_t keep = offsetof(bench_member_t, sock);
    memset((uint8_t *)m + keep, 0, sizeof *m - keep);
    m->index = index;
    m->slot = -1;
    zq_addr_t want = zq_addr_v4(127, 0, 0, 1, 0);
    if (zq_port_udp_open(&m->sock, &want, &m->addr) != ZQ_OK) {
        m->sock = ZQ_SOCKET_INVALID;
        return false;
    }
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, BENCH_ROOM, sizeof BENCH_ROOM);
    cfg.rand = bench_pair.rand;
    cfg.dtls = &m->dtls;
    cfg.hosts[0] = m->addr;
    cfg.n_hosts = 1;
    if (node_init(&m->node, &cfg) != ZQ_OK) {
        return false;
    }
    m->has_broker = broker;
    if (broker) {
        brk_config_t bc;
        brk_config_default(&bc);
        bc.rand = bench_pair.rand;
        if (brk_init(&m->broker, &m->node, &bc) != ZQ_OK) {
            return false;
        }
    }
    size_t id;
    return zq_loop_add_driver(&bench_pair.loop, &member_driver, m, &id) == ZQ_OK &&
           zq_loop_add_socket(&bench_pair.loop, id, m->sock, &m->addr) == ZQ_OK;
}

static bool join(bench_member_t *m)
{
    if (sig_router_connect(&bench_pair.router, bench_pair_now(), 0, NULL, &m->client) != ZQ_OK) {
        return false;
    }
    node_signal_connected(&m->node);
    return true;
}

static bool hello_done(const bench_member_t *m)
{
    return !m->has_broker || (m->broker.peers[m->slot].zq && m->broker.peers[m->slot].sub_received);
}

static bool open_done(void)
{
    for (unsigned i = 0; i < 2; i++) {
        const bench_member_t *m = &bench_pair.m[i];
        if (m->slot < 0 || !hello_done(m)) {
            return false;
        }
    }
    return true;
}

bool bench_pair_open(bool brokers, uint64_t cap_ms)
{
    bench_pair_t *p = &bench_pair;
    zq_loop_init(&p->loop);
    sig_router_init(&p->router, &p->rand, router_send, p);
    p->inbox_overflow = 0;
    for (unsigned i = 0; i < 2; i++) {
        if (!start_member(&p->m[i], i, brokers)) {
            (void)fprintf(stderr, "bench: cannot start member %u\n", i);
            return false;
        }
    }
    /* Member 0 first: it is in the room when member 1 joins, so it dials. */
    if (!join(&p->m[0]) || !join(&p->m[1])) {
        return false;
    }
    return bench_pair_run(open_done, cap_ms);
}

bool bench_pair_run(bool (*done)(void), uint64_t cap_ms)
{
    bench_pair.done = done;
    if (done != NULL && done()) {
        return true;
    }
    (void)zq_loop_run(&bench_pair.loop, bench_pair_now() + cap_ms);
    bench_pair.done = NULL;
    return done != NULL && done();
}

void bench_pair_close(void)
{
    uint64_t now = bench_pair_now();
    for (unsigned i = 0; i < 2; i++) {
        bench_member_t *m = &bench_pair.m[i];
        node_close(&m->node, now);
        /* The ABORTs and close_notify are not sent: the sockets close now, and this frees
         * each draining peer's DTLS session. */
        peer_transmit_t tx;
        while (node_poll_transmit(&m->node, now, &tx)) {
        }
        if (m->sock != ZQ_SOCKET_INVALID) {
            zq_port_udp_close(m->sock);
            m->sock = ZQ_SOCKET_INVALID;
        }
    }
}


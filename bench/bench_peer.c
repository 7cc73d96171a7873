/* bench_peer: the zq side of `scripts/bench browser`'s one-way rows. A zq node hosted as
 * `zq echo` hosts one (host/host.h on node_host.h's loop driver, the same stack and
 * buffers), joined to a `zq signal` room; instead of echoing it counts what a peer sends and
 * sends on request, so one direction at a time is measured, at the receiver.
 *
 *   bench_peer --signal ws://127.0.0.1:PORT/ws --room NAME
 *
 * On each peer's channel, a text message starting "zq-bench " is a command; every other
 * message is data, counted and dropped:
 *
 *   zq-bench mark          -> zq-bench mark <messages> <bytes> <microseconds>: data received so
 *                             far (whole messages; bytes as pieces arrive) and this process's
 *                             CLOCK_MONOTONIC. A page sends one before and one after a burst:
 *                             the difference is what arrived between the two, on our clock.
 *   zq-bench send SIZE MS  -> binary messages of SIZE bytes for MS ms, each as soon as the
 *                             channel takes it (node_send until ZQ_ERR_WOULD_BLOCK, again at
 *                             NODE_EVENT_WRITABLE; over ZQ_PEER_SEND_BUFFER / 4 in parts, as
 *                             zq echo relays them), then zq-bench sent <messages> <bytes>.
 *
 * bench/browser/bench.mjs's Chromium peer answers the same commands in JavaScript, so a page
 * measures zq and Chromium with the same code. Exits on SIGTERM or SIGINT. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "node/node.h"
#include "cli/cli.h"
#include "port/posix/loop.h"
#include "cli/node_host.h"
#include "port/zq_port.h"
#include "stack/dtls/dtls.h"

#define CMD "bench_peer"
#define PREFIX "zq-bench "
#define SEND_MAX (256u * 1024u) /* Chromium's max-message-size */
#define WHOLE_MAX (ZQ_PEER_SEND_BUFFER / 4)

typedef struct {
    uint64_t rx_messages;
    uint64_t rx_bytes;
    bool sending;
    uint32_t size;          /* of each message sent */
    uint64_t until;         /* ms, the loop's clock */
    size_t part_done;       /* bytes of the current large message sent */
    uint64_t tx_messages;
    uint64_t tx_bytes;
    char reply[96];         /* a reply that found no room yet */
    size_t reply_len;
} bench_peer_t;

typedef struct {
    const char *signal;
    const char *room;
    zq_loop_t loop;
    zq_rand_t rand;
    dtls_identity_t identity;
    dtls_context_t dtls;
    node_t node;
    zq_node_host_t nh;
    bench_peer_t peers[ZQ_NODE_MAX_PEERS];
} app_t;

static app_t app; /* large (node, WebSocket buffers): static */
static uint8_t payload[SEND_MAX];

static uint64_t monotonic_us(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* ---- Sending ------------------------------------------------------------------------------- */

/* The reply waiting for room, if any; true when none is left. */
static bool flush_reply(app_t *a, uint64_t now, uint8_t peer)
{
    bench_peer_t *p = &a->peers[peer];
    if (p->reply_len == 0) {
        return true;
    }
    zq_err_t err = node_send(&a->node, now, peer, (const uint8_t *)p->reply, p->reply_len, false);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        return false;
    }
    p->reply_len = 0;
    return true;
}

static void queue_reply(app_t *a, uint64_t now, uint8_t peer, const char *text)
{
    bench_peer_t *p = &a->peers[peer];
    size_t len = strlen(text);
    if (len < sizeof p->reply) {
        memcpy(p->reply, text, len);
        p->reply_len = len;
    }
    (void)flush_reply(a, now, peer);
}

/* One message of p->size; false when the channel has no room (the rest goes at WRITABLE). */
static bool send_one(app_t *a, uint64_t now, uint8_t peer, bench_peer_t *p)
{
    if (p->size <= WHOLE_MAX) {
        zq_err_t err = node_send(&a->node, now, peer, payload, p->size, true);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return false;
        }
        if (err != ZQ_OK) {
            p->sending = false; /* the channel is closing, or the size is refused */
            return false;
        }
    } else {
        while (p->part_done < p->size) {
            size_t took = 0;
            zq_err_t err = node_send_part(&a->node, now, peer, payload + p->part_done,
                                          p->size - p->part_done, true, p->part_done == 0, false,
                                          &took);
            p->part_done += took;
            if (err == ZQ_ERR_WOULD_BLOCK || (err == ZQ_OK && p->part_done < p->size)) {
                return false; /* the rest when room returns */
            }
            if (err != ZQ_OK) {
                p->sending = false; /* refused: over the peer's max-message-size */
                return false;
            }
        }
        size_t took = 0;
        if (node_send_part(&a->node, now, peer, NULL, 0, true, false, true, &took) ==
            ZQ_ERR_WOULD_BLOCK) {
            return false;
        }
        p->part_done = 0;
    }
    p->tx_messages++;
    p->tx_bytes += p->size;
    return true;
}

static void pump_send(app_t *a, uint64_t now, uint8_t peer)
{
    bench_peer_t *p = &a->peers[peer];
    if (!flush_reply(a, now, peer) || !p->sending) {
        return;
    }
    /* A message begun is finished before the time is checked: only whole ones are counted. */
    while (p->sending && (p->part_done > 0 || now < p->until)) {
        if (!send_one(a, now, peer, p)) {
            return;
        }
    }
    p->sending = false;
    char text[96];
    (void)snprintf(text, sizeof text, PREFIX "sent %" PRIu64 " %" PRIu64, p->tx_messages,
                   p->tx_bytes);
    queue_reply(a, now, peer, text);
}

/* ---- Receiving ----------------------------------------------------------------------------- */

static void handle_command(app_t *a, uint64_t now, uint8_t peer, const char *cmd)
{
    bench_peer_t *p = &a->peers[peer];
    char text[96];
    unsigned long size = 0, ms = 0;
    if (strcmp(cmd, "mark") == 0) {
        (void)snprintf(text, sizeof text, PREFIX "mark %" PRIu64 " %" PRIu64 " %" PRIu64,
                       p->rx_messages, p->rx_bytes, monotonic_us());
        queue_reply(a, now, peer, text);
    } else if (sscanf(cmd, "send %lu %lu", &size, &ms) == 2 && size >= 1 && size <= SEND_MAX &&
               ms <= 600000 && !p->sending) {
        p->sending = true;
        p->size = (uint32_t)size;
        p->until = now + ms;
        p->part_done = 0;
        p->tx_messages = 0;
        p->tx_bytes = 0;
    } else {
        (void)fprintf(stderr, CMD ": peer %s: unknown command '%s'\n",
                      node_peer_id(&a->node, peer), cmd);
    }
}

static void read_all(app_t *a, uint64_t now)
{
    node_message_t m;
    while (node_read(&a->node, now, &m)) {
        if (m.peer >= ZQ_NODE_MAX_PEERS) {
            continue;
        }
        const dc_message_t *msg = &m.msg;
        size_t plen = sizeof PREFIX - 1;
        if (!msg->binary && msg->first && msg->last && msg->len > plen && msg->len < 96 &&
            memcmp(msg->data, PREFIX, plen) == 0) {
            char cmd[96];
            memcpy(cmd, msg->data + plen, msg->len - plen);
            cmd[msg->len - plen] = '\0';
            handle_command(a, now, m.peer, cmd);
            continue;
        }
        bench_peer_t *p = &a->peers[m.peer];
        p->rx_bytes += msg->len;
        p->rx_messages += msg->last;
    }
}

/* ---- The host's callbacks ---------------------------------------------------------------- */

static void on_node_event(void *ctx, uint64_t now, const node_event_t *ev)
{
    app_t *a = ctx;
    (void)now;
    if (ev->peer >= ZQ_NODE_MAX_PEERS) {
        return;
    }
    if (ev->type == NODE_EVENT_PEER_CONNECTED) {
        memset(&a->peers[ev->peer], 0, sizeof a->peers[ev->peer]);
        (void)fprintf(stderr, CMD ": peer %s connected\n", node_peer_id(&a->node, ev->peer));
    } else if (ev->type == NODE_EVENT_PEER_GONE) {
        a->peers[ev->peer].sending = false;
        (void)fprintf(stderr, CMD ": peer %s gone\n", node_peer_id(&a->node, ev->peer));
    }
}

static void on_read(void *ctx, uint64_t now)
{
    app_t *a = ctx;
    read_all(a, now);
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (a->node.peers[i].used && a->node.peers[i].open) {
            pump_send(a, now, i);
        }
    }
}

/* A source's end time is a deadline too: its "sent" must not wait for the next datagram. */
static uint64_t next_timeout(void *ctx)
{
    app_t *a = ctx;
    uint64_t t = ZQ_TIME_NEVER;
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (a->peers[i].sending) {
            t = zq_time_min(t, a->peers[i].until);
        }
    }
    return t;
}

static const zq_host_callbacks_t callbacks = {
    .on_node_event = on_node_event,
    .on_read = on_read,
    .next_timeout = next_timeout,
};

/* What each peer's SCTP receiver and sender counted, on stderr at exit: a stalled cell can
 * then be told apart from a slow one. */
static void report_peers(const app_t *a)
{
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        const node_peer_t *np = &a->node.peers[i];
        if (!np->used) {
            continue;
        }
        const sctp_assoc_t *s = &np->peer.sctp;
        (void)fprintf(stderr,
                      CMD ": peer %s: rx packets %" PRIu32 ", dup TSNs %" PRIu32
                      ", out of window %" PRIu32 ", compactions %" PRIu32 "; cum TSN %" PRIu32
                      ", highest %" PRIu32 ", waiting %u, readable %u, last rwnd %" PRIu32
                      ", ring free %" PRIu32 " of %" PRIu32 "; tx packets %" PRIu32 ", retransmissions %" PRIu32 ", T3 %" PRIu32
                      "\n",
                      np->id, s->stats.rx_packets, s->stats.rx_dup_tsns,
                      s->stats.rx_out_of_window, s->stats.rx_compactions, s->peer_cum_tsn,
                      s->highest_rx_tsn, (unsigned)s->n_waiting, (unsigned)s->rq_count,
                      s->last_rwnd, s->in.cap - s->in.used, s->in.cap, s->stats.tx_packets, s->stats.retransmissions,
                      s->stats.t3_expirations);
    }
}

/* ---- Main ---------------------------------------------------------------------------------- */

static int usage(void)
{
    (void)fprintf(stderr, "usage: " CMD " --signal ws://HOST:PORT/ws --room NAME\n");
    return 2;
}

static int start(app_t *a)
{
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, a->room, strlen(a->room) + 1);
    a->rand = zq_port_rand();
    if (!zq_node_host_identity(&a->rand, &a->identity, &a->dtls)) {
        (void)fprintf(stderr, CMD ": cannot make a DTLS certificate\n");
        return 1;
    }
    cfg.rand = a->rand;
    cfg.dtls = &a->dtls;
    zq_addr_t any = zq_cli_any_addr(ZQ_AF_INET4, 0);
    if (zq_node_host_open_udp(&a->nh, &any, &cfg) == 0 || node_init(&a->node, &cfg) != ZQ_OK ||
        zq_node_host_drive(&a->nh, &a->loop, &cfg, NULL, a) != ZQ_OK) {
        (void)fprintf(stderr, CMD ": cannot start the node\n");
        return 1;
    }
    zq_host_config_t hcfg;
    zq_host_config_default(&hcfg);
    hcfg.rand = a->rand;
    zq_host_init(&a->nh.host, &a->node, NULL, &hcfg, &callbacks, a);
    const char *why = NULL;
    if (zq_sig_link_init(&a->nh.sig, CMD, &a->loop, &a->nh.host, a->signal, &why) != ZQ_OK ||
        zq_sig_link_open(&a->nh.sig, &why) != ZQ_OK) {
        (void)fprintf(stderr, CMD ": %s: %s\n", a->signal, why ? why : "cannot connect");
        return 1;
    }
    (void)fprintf(stderr, CMD ": connected to %s, joining '%s'\n", a->signal, a->room);
    return 0;
}

int main(int argc, char **argv)
{
    app_t *a = &app;
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (zq_cli_take_value(argc, argv, &i, "--signal", &v) && v != NULL) {
            a->signal = v;
        } else if (zq_cli_take_value(argc, argv, &i, "--room", &v) && v != NULL) {
            a->room = v;
        } else {
            return usage();
        }
    }
    if (a->signal == NULL || a->room == NULL || a->room[0] == '\0' ||
        strlen(a->room) > ZQ_SIG_ROOM_MAX) {
        return usage();
    }
    for (size_t i = 0; i < sizeof payload; i++) {
        payload[i] = (uint8_t)(i * 131u + 7u);
    }
    zq_loop_init(&a->loop);
    int rc = start(a);
    if (rc == 0) {
        zq_loop_stop_on_signals(&a->loop);
        zq_err_t err = zq_loop_run(&a->loop, ZQ_TIME_NEVER);
        zq_loop_stop_on_signals(NULL);
        report_peers(a);
        node_close(&a->node, zq_loop_now(&a->loop));
        (void)zq_loop_run(&a->loop, zq_loop_now(&a->loop) + 100);
        zq_sig_link_close(&a->nh.sig);
        rc = err == ZQ_OK ? 0 : 1;
    }
    zq_node_host_close_udp(&a->nh);
    return rc;
}

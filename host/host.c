/* The sans-IO host (see host.h). */
#include "host/host.h"

#include <string.h>

#include "zq/time.h"

void zq_host_config_default(zq_host_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->reconnect_first_ms = 1000;
    cfg->reconnect_max_ms = 30000;
}

void zq_host_init(zq_host_t *h, node_t *node, brk_t *brk, const zq_host_config_t *cfg,
                  const zq_host_callbacks_t *cb, void *ctx)
{
    memset(h, 0, sizeof *h);
    h->node = node;
    h->brk = brk;
    h->cb = *cb;
    h->ctx = ctx;
    h->rand = cfg->rand;
    zq_backoff_init(&h->backoff, cfg->reconnect_first_ms, cfg->reconnect_max_ms);
    h->reconnect_at = ZQ_TIME_NEVER;
}

/* ---- Settling ----------------------------------------------------------------------------- */

static void drain_node_events(zq_host_t *h, uint64_t now)
{
    node_event_t ev;
    while (node_poll_event(h->node, &ev)) {
        if (h->cb.on_node_event != NULL) {
            h->cb.on_node_event(h->ctx, now, &ev);
        }
        if (h->brk != NULL) {
            brk_handle_node_event(h->brk, now, &ev);
        }
    }
}

static void drain_broker_events(zq_host_t *h, uint64_t now)
{
    brk_event_t ev;
    while (h->brk != NULL && brk_poll_event(h->brk, now, &ev)) {
        if (h->cb.on_event != NULL) {
            h->cb.on_event(h->ctx, now, &ev);
        }
    }
}

/* Reading (the broker's inside brk_poll_event, the application's in on_read) can open a
 * channel and so make node events: round until a round leaves none, or a connect would only
 * be noticed at the next input. */
static void drain(zq_host_t *h, uint64_t now)
{
    do {
        drain_node_events(h, now);
        drain_broker_events(h, now);
        if (h->cb.on_read != NULL) {
            h->cb.on_read(h->ctx, now);
        }
    } while (node_events_pending(h->node) > 0);
}

void zq_host_settle(zq_host_t *h, uint64_t now)
{
    drain(h, now);
    if (h->cb.on_idle != NULL) {
        h->cb.on_idle(h->ctx, now);
        drain(h, now); /* what the application's calls made due */
    }
}

/* ---- Inputs ------------------------------------------------------------------------------- */

void zq_host_handle_datagram(zq_host_t *h, uint64_t now, const zq_addr_t *local,
                             const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    (void)node_handle_datagram(h->node, now, local, remote, data, len); /* counted in stats */
    zq_host_settle(h, now);
}

void zq_host_handle_timeout(zq_host_t *h, uint64_t now)
{
    node_handle_timeout(h->node, now);
    if (h->brk != NULL && brk_next_timeout(h->brk) <= now) {
        brk_handle_timeout(h->brk, now);
    }
    zq_host_settle(h, now); /* on_idle runs at the application's own deadline here */
}

void zq_host_handle_signal(zq_host_t *h, uint64_t now, const char *text, size_t len)
{
    node_handle_signal(h->node, now, text, len);
    zq_host_settle(h, now);
}

/* ---- Outputs ------------------------------------------------------------------------------ */

bool zq_host_poll_transmit(zq_host_t *h, uint64_t now, peer_transmit_t *tx)
{
    return node_poll_transmit(h->node, now, tx);
}

bool zq_host_poll_signal(zq_host_t *h, uint64_t now, const char **frame, size_t *len)
{
    if (!h->signal_up) {
        return false; /* the node keeps what it owes the server (a join) for the next link */
    }
    if (h->frame_len == 0) {
        h->frame_len = node_poll_signal(h->node, now, h->frame, sizeof h->frame);
    }
    *frame = h->frame;
    *len = h->frame_len;
    return h->frame_len > 0;
}

void zq_host_signal_sent(zq_host_t *h)
{
    h->frame_len = 0;
}

uint64_t zq_host_next_timeout(const zq_host_t *h)
{
    uint64_t t = node_next_timeout(h->node);
    if (!h->signal_up) {
        t = zq_time_min(t, h->reconnect_at);
    }
    if (h->brk != NULL) {
        t = zq_time_min(t, brk_next_timeout(h->brk));
    }
    return h->cb.next_timeout != NULL ? zq_time_min(t, h->cb.next_timeout(h->ctx)) : t;
}

/* ---- The signalling connection ------------------------------------------------------------ */

bool zq_host_signal_due(const zq_host_t *h, uint64_t now)
{
    return !h->signal_up && h->reconnect_at <= now;
}

void zq_host_signal_opened(zq_host_t *h, uint64_t now)
{
    (void)now;
    h->signal_up = true;
    h->reconnect_at = ZQ_TIME_NEVER;
    h->frame_len = 0;
    zq_backoff_reset(&h->backoff);
    node_signal_connected(h->node);
}

void zq_host_hosts_changed(zq_host_t *h, uint64_t now, const zq_addr_t *hosts, uint8_t n_hosts)
{
    node_set_hosts(h->node, now, hosts, n_hosts);
    h->signal_up = false;
    h->reconnect_at = now;
    h->frame_len = 0;
    zq_host_settle(h, now); /* the peers' PEER_GONE reach the application */
}

/* ZeroQ's backoff (zeroq-wire.md §4); peers stay up meanwhile. */
uint32_t zq_host_signal_down(zq_host_t *h, uint64_t now)
{
    uint32_t wait = zq_backoff_next(&h->backoff, &h->rand);
    h->signal_up = false;
    h->reconnect_at = now + wait;
    h->frame_len = 0;
    return wait;
}

/* ---- TURN over TCP: the port's stream to the node's TURN server ------------------------- */

bool zq_host_relay_stream_target(const zq_host_t *h, zq_addr_t *server)
{
    return node_relay_stream_target(h->node, server);
}

void zq_host_relay_stream_opened(zq_host_t *h, uint64_t now)
{
    node_relay_stream_opened(h->node, now);
    zq_host_settle(h, now);
}

void zq_host_relay_stream_closed(zq_host_t *h, uint64_t now)
{
    node_relay_stream_closed(h->node, now);
    zq_host_settle(h, now);
}

void zq_host_handle_relay_stream(zq_host_t *h, uint64_t now, const uint8_t *data, size_t len)
{
    node_relay_stream_input(h->node, now, data, len);
    zq_host_settle(h, now);
}

bool zq_host_poll_relay_stream(zq_host_t *h, const uint8_t **data, size_t *len)
{
    return node_relay_stream_output(h->node, data, len);
}

void zq_host_relay_stream_sent(zq_host_t *h, uint64_t now, size_t len)
{
    node_relay_stream_sent(h->node, now, len);
}

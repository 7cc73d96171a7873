/* A node's link to its signalling server (see sig_link.h). */
#include "cli/sig_link.h"

#include <inttypes.h>
#include <stdio.h>

#define CONNECT_TIMEOUT_MS 3000
#define RECONNECT_MAX_MS 30000

static void on_text(void *ctx, uint64_t now, const char *text, size_t len)
{
    zq_sig_link_t *l = ctx;
    node_handle_signal(l->node, now, text, len);
}

static void on_closed(void *ctx, uint64_t now, uint16_t code, const char *reason)
{
    zq_sig_link_t *l = ctx;
    (void)fprintf(stderr, "zq %s: signalling closed (%u%s%s); reconnecting in %" PRIu32 " s\n",
                  l->cmd, (unsigned)code, reason[0] ? ": " : "", reason, l->backoff_ms / 1000);
    l->reconnect_at = now + l->backoff_ms;
    l->frame_len = 0;
}

zq_err_t zq_sig_link_init(zq_sig_link_t *l, const char *cmd, zq_loop_t *loop, node_t *node,
                          const char *url, const char **why)
{
    l->cmd = cmd;
    l->loop = loop;
    l->node = node;
    l->reconnect_at = ZQ_TIME_NEVER;
    l->backoff_ms = 1000;
    l->frame_len = 0;
    return zq_ws_url_parse(url, &l->url, why);
}

zq_err_t zq_sig_link_open(zq_sig_link_t *l, const char **why)
{
    static const zq_ws_client_callbacks_t cb = {on_text, on_closed};
    zq_err_t err = zq_ws_client_open(&l->ws, l->loop, &l->url, &cb, l, CONNECT_TIMEOUT_MS, why);
    if (err == ZQ_OK) {
        node_signal_connected(l->node);
        l->reconnect_at = ZQ_TIME_NEVER;
        l->backoff_ms = 1000;
    }
    return err;
}

/* ZeroQ's backoff (zeroq-wire.md §4): 1 s doubling to 30 s; peers stay up meanwhile. */
void zq_sig_link_timeout(zq_sig_link_t *l, uint64_t now)
{
    if (l->reconnect_at > now) {
        return;
    }
    const char *why = NULL;
    if (zq_sig_link_open(l, &why) == ZQ_OK) {
        (void)fprintf(stderr, "zq %s: signalling reconnected\n", l->cmd);
        return;
    }
    l->backoff_ms = l->backoff_ms * 2 > RECONNECT_MAX_MS ? RECONNECT_MAX_MS : l->backoff_ms * 2;
    l->reconnect_at = now + l->backoff_ms;
    (void)fprintf(stderr, "zq %s: %s; next try in %" PRIu32 " s\n", l->cmd, why,
                  l->backoff_ms / 1000);
}

uint64_t zq_sig_link_next_timeout(const zq_sig_link_t *l)
{
    return l->reconnect_at;
}

void zq_sig_link_flush(zq_sig_link_t *l, uint64_t now)
{
    while (zq_ws_client_is_open(&l->ws)) {
        if (l->frame_len == 0) {
            l->frame_len = node_poll_signal(l->node, now, l->frame, sizeof l->frame);
        }
        if (l->frame_len == 0 ||
            zq_ws_client_send_text(&l->ws, l->frame, l->frame_len) == ZQ_ERR_WOULD_BLOCK) {
            return;
        }
        l->frame_len = 0;
    }
}

void zq_sig_link_close(zq_sig_link_t *l)
{
    zq_ws_client_close(&l->ws);
}

bool zq_sig_link_note_slots(const zq_sig_link_t *l, const node_event_t *ev)
{
    if (ev->type == NODE_EVENT_PEER_REFUSED) {
        (void)fprintf(stderr, "zq %s: a member of the room waits: all %d peer slots are taken "
                              "(ZQ_NODE_MAX_PEERS); it is told, and dialed when one frees\n",
                      l->cmd, ZQ_NODE_MAX_PEERS);
    } else if (ev->type == NODE_EVENT_WAITING) {
        (void)fprintf(stderr, "zq %s: a member of the room has no peer slot for us yet; it "
                              "dials us when it has\n",
                      l->cmd);
    }
    return ev->type == NODE_EVENT_PEER_REFUSED || ev->type == NODE_EVENT_WAITING;
}

/* A hosted node's link to its signalling server (see sig_link.h). */
#include "cli/sig_link.h"

#include <inttypes.h>
#include <stdio.h>

#define CONNECT_TIMEOUT_MS 3000

/* A wait in seconds with a tenth: the backoff's jitter makes them uneven. */
static void say_wait(uint32_t wait_ms, char *out, size_t cap)
{
    (void)snprintf(out, cap, "%" PRIu32 ".%" PRIu32 " s", wait_ms / 1000, wait_ms % 1000 / 100);
}

static void on_text(void *ctx, uint64_t now, const char *text, size_t len)
{
    zq_sig_link_t *l = ctx;
    zq_host_handle_signal(l->host, now, text, len);
}

static void on_closed(void *ctx, uint64_t now, uint16_t code, const char *reason)
{
    zq_sig_link_t *l = ctx;
    char wait[32];
    say_wait(zq_host_signal_down(l->host, now), wait, sizeof wait);
    (void)fprintf(stderr, "zq %s: signalling closed (%u%s%s); reconnecting in %s\n", l->cmd,
                  (unsigned)code, reason[0] ? ": " : "", reason, wait);
}

zq_err_t zq_sig_link_init(zq_sig_link_t *l, const char *cmd, zq_loop_t *loop, zq_host_t *host,
                          const char *url, const char **why)
{
    l->cmd = cmd;
    l->loop = loop;
    l->host = host;
    return zq_ws_url_parse(url, &l->url, why);
}

zq_err_t zq_sig_link_open(zq_sig_link_t *l, const char **why)
{
    static const zq_ws_client_callbacks_t cb = {on_text, on_closed};
    zq_err_t err = zq_ws_client_open(&l->ws, l->loop, &l->url, &cb, l, CONNECT_TIMEOUT_MS, why);
    if (err == ZQ_OK) {
        zq_host_signal_opened(l->host, zq_loop_now(l->loop));
    }
    return err;
}

void zq_sig_link_timeout(zq_sig_link_t *l, uint64_t now)
{
    if (!zq_host_signal_due(l->host, now)) {
        return;
    }
    const char *why = NULL;
    if (zq_sig_link_open(l, &why) == ZQ_OK) {
        (void)fprintf(stderr, "zq %s: signalling reconnected\n", l->cmd);
        return;
    }
    char wait[32];
    say_wait(zq_host_signal_down(l->host, zq_loop_now(l->loop)), wait, sizeof wait);
    (void)fprintf(stderr, "zq %s: %s; next try in %s\n", l->cmd, why, wait);
}

void zq_sig_link_flush(zq_sig_link_t *l, uint64_t now)
{
    const char *frame;
    size_t len;
    while (zq_ws_client_is_open(&l->ws) && zq_host_poll_signal(l->host, now, &frame, &len)) {
        if (zq_ws_client_send_text(&l->ws, frame, len) == ZQ_ERR_WOULD_BLOCK) {
            return;
        }
        zq_host_signal_sent(l->host);
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

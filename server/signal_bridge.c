/* The bridge between `zq signal`'s WebSocket clients and the sans-IO room router
 * (signal/router.h): a client joins the router once upgraded, its text messages go in, the
 * router's frames come out to the right socket, and it leaves when its socket closes. The
 * connect, join and leave log lines are written here, where the router's view is known. */
#include <string.h>

#include "server/signal_server.h"

void wsc_attach(signal_server_t *srv, wsc_t *s, const char *token, uint64_t now)
{
    unsigned client;
    srv->attaching = s;
    zq_err_t err = sig_router_connect(&srv->router, now, signal_unix_now(), token, &client);
    srv->attaching = NULL;
    if (err != ZQ_OK) {
        wsc_close(srv, s, now, 1013, "server full, try again later"); /* IANA: Try Again Later */
        return;
    }
    s->client = (int)client;
    srv->by_client[client] = s;
    memcpy(s->id, srv->router.clients[client].id, sizeof s->id);
    char addr[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(&s->peer, addr, sizeof addr);
    signal_say("%s connected from %s", s->id, addr);
}

void signal_router_send(void *ctx, unsigned client, const char *frame, size_t len)
{
    signal_server_t *srv = ctx;
    wsc_t *s = client < ZQ_SIG_MAX_CLIENTS ? srv->by_client[client] : NULL;
    if (s == NULL) {
        s = srv->attaching; /* the welcome, sent before connect() returns the index */
    }
    if (s == NULL || s->state != WSC_OPEN || s->doomed) {
        return;
    }
    zq_err_t err = ws_send_text(&s->ws, frame, len);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        wsc_flush(srv, s);
        err = s->doomed ? ZQ_ERR_CLOSED : ws_send_text(&s->ws, frame, len);
    }
    if (err != ZQ_OK) {
        /* 64 KiB of frames unread: the client stopped reading. Holding more for it is what
         * static buffers cannot do, and dropping frames silently would break its session. */
        wsc_doom(srv, s, 0, "too slow: its output buffer is full");
        return;
    }
    wsc_flush(srv, s);
}

static void log_join(signal_server_t *srv, wsc_t *s, uint32_t refused_before)
{
    const sig_client_slot_t *c = &srv->router.clients[s->client];
    char room[ZQ_SIG_ROOM_MAX + 1];
    if (srv->router.refused_joins != refused_before) {
        signal_say("%s: join refused (no valid room token: missing, wrong or expired)", s->id);
    } else if (c->joined && strcmp(c->room, s->room) != 0) {
        memcpy(s->room, c->room, sizeof s->room);
        signal_say("%s joined room \"%s\"", s->id, signal_printable(c->room, room, sizeof room));
    }
}

void wsc_on_message(signal_server_t *srv, wsc_t *s, uint64_t now, const ws_event_t *ev)
{
    if (!ev->text) {
        wsc_doom(srv, s, WS_CLOSE_UNSUPPORTED_DATA, "binary message: signalling is JSON text");
        return;
    }
    uint32_t refused = srv->router.refused_joins;
    sig_router_frame(&srv->router, now, (unsigned)s->client, (const char *)ev->data, ev->len);
    if (s->client >= 0) {
        log_join(srv, s, refused);
    }
}

void wsc_leave(signal_server_t *srv, wsc_t *s, const char *why)
{
    if (s->client < 0) {
        return;
    }
    unsigned client = (unsigned)s->client;
    s->client = -1;
    srv->by_client[client] = NULL;
    signal_say("%s left: %s", s->id, why);
    sig_router_disconnect(&srv->router, client);
}

/* `zq signal`'s WebSocket upgrade (RFC 6455 §4.2): an HTTP connection that asks for one, from
 * an allowed Origin, gets the 101 answer and becomes a WebSocket client slot (signal_ws.c)
 * joined to the router (signal_bridge.c); a refused one gets its HTTP status. */
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>

#include "server/signal_server.h"

/* RFC 6455 §10.2: the Origin check keeps other web pages' scripts from using the server
 * through a visitor's browser. Browsers always send Origin on an upgrade; a request without
 * one comes from a program (a device, zq), which could send any Origin it liked, so checking
 * it would stop nobody: it is allowed. */
bool signal_origin_allowed(const signal_server_t *srv, const http_request_t *req)
{
    const char *v;
    size_t n;
    if (srv->origin_count == 0 || !http_header(req, "Origin", &v, &n)) {
        return true;
    }
    for (size_t i = 0; i < srv->origin_count; i++) {
        if (strlen(srv->origins[i]) == n && strncasecmp(srv->origins[i], v, n) == 0) {
            return true;
        }
    }
    return false;
}

static wsc_t *free_wsc(signal_server_t *srv)
{
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (srv->ws[i].state == WSC_FREE) {
            return &srv->ws[i];
        }
    }
    return NULL;
}

static void wsc_start(signal_server_t *srv, wsc_t *s, const http_conn_t *h)
{
    memset(s, 0, offsetof(wsc_t, ws)); /* ws_conn_init() clears the big rest */
    ws_conn_init(&s->ws, WS_ROLE_SERVER, NULL);
    s->state = WSC_OPEN;
    s->fd = h->fd;
    s->peer = h->peer;
    s->client = -1;
    wsc_watch(srv, s, EPOLLIN);
}

static void upgrade(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                    uint64_t now)
{
    wsc_t *s = free_wsc(srv);
    uint8_t head[512];
    zq_writer_t w = zq_writer(head, sizeof head);
    if (s == NULL) {
        http_conn_reply(srv, h, now, 503, "Retry-After: 5\r\n");
        return;
    }
    if (ws_server_response(&w, req, NULL) != ZQ_OK) {
        http_conn_reply(srv, h, now, 400, NULL);
        return;
    }
    /* A fresh connection's send buffer always takes a 200-byte head; if it does not, the
     * client is gone or broken. */
    size_t sent = 0;
    if (zq_port_tcp_send(h->fd, head, w.len, &sent) != ZQ_OK || sent != w.len) {
        http_conn_close(h);
        return;
    }
    char token_buf[SIG_TOKEN_TEXT_MAX + 1];
    size_t token_len;
    const char *token = http_query_param(req, "token", token_buf, sizeof token_buf,
                                         &token_len) == ZQ_OK ? token_buf : NULL;
    wsc_start(srv, s, h);
    wsc_attach(srv, s, token, now);
    /* Frames the client sent right behind its request (§4.1 lets it) are WebSocket input. */
    wsc_feed(srv, s, now, (const uint8_t *)h->buf + req->head_len, h->len - req->head_len);
    h->state = HTTP_FREE; /* the fd now belongs to the WebSocket */
    h->fd = -1;
    if (s->state != WSC_FREE && !s->doomed) {
        wsc_flush(srv, s);
    }
}

void signal_try_upgrade(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                        uint64_t now)
{
    const char *v;
    size_t n;
    if (http_is_websocket_upgrade(req)) {
        if (signal_origin_allowed(srv, req)) {
            upgrade(srv, h, req, now);
        } else {
            http_conn_reply(srv, h, now, 403, NULL);
        }
    } else if (http_header(req, "Sec-WebSocket-Version", &v, &n) &&
               !(n == 2 && memcmp(v, "13", 2) == 0)) {
        http_conn_reply(srv, h, now, 426, "Sec-WebSocket-Version: 13\r\n"); /* §4.2.2, §4.4 */
    } else {
        http_conn_reply(srv, h, now, 400, NULL);
    }
}

/* A WebSocket client over the port's TCP (see ws_client.h): URL parsing, the blocking open,
 * then the loop's readable/writable callbacks feeding signal/ws.h's connection. */
#include "port/posix/ws_client.h"

#include <stdio.h>
#include <string.h>

#include "port/ws/ws_socket.h"
#include "port/posix/resolve.h"
#include "port/posix/ws_tls.h"
#include "signal/http.h"
#include "signal/ws_url.h"

/* Reads per wake-up before the loop gets to its other fds and timers again. */
#define READS_PER_WAKE 16

/* ---- URL: signal/ws_url.h's parts, copied into this client's buffers ----------------------- */

zq_err_t zq_ws_url_parse(const char *url, zq_ws_url_t *out, const char **why)
{
    static const char *ignored;
    if (why == NULL) {
        why = &ignored;
    }
    memset(out, 0, sizeof *out);
    ws_url_t u;
    zq_err_t err = ws_url_parse(url, strlen(url), &u, why);
    if (err != ZQ_OK) {
        return err;
    }
    if (ws_url_copy_host(&u, out->host, sizeof out->host) != ZQ_OK) {
        *why = "the host name is too long";
        return ZQ_ERR_TOO_LONG;
    }
    if (ws_url_copy_target(&u, out->path, sizeof out->path) != ZQ_OK) {
        *why = "the path is too long";
        return ZQ_ERR_TOO_LONG;
    }
    out->secure = u.secure;
    out->port = u.port;
    out->addr = u.addr;
    return ZQ_OK;
}

/* ---- Opening: connect, then port/bsd's §4.1 handshake, each bounded by the timeout ---------- */

/* A name gets a second try in its other family when the first address refuses: "localhost"
 * is ::1 first on most hosts, while servers often listen on 127.0.0.1 only (zq signal's
 * default). A sequential form of RFC 8305's fallback, enough for a command-line client. */
static zq_err_t connect_url(const zq_ws_url_t *url, uint32_t timeout_ms, zq_socket_t *sock,
                            const char **why)
{
    if (url->addr.family != ZQ_AF_NONE) {
        return zq_ws_socket_connect(&url->addr, timeout_ms, sock, why);
    }
    zq_addr_t addr;
    if (zq_posix_resolve(url->host, ZQ_AF_NONE, &addr) != ZQ_OK) {
        *why = "the host name does not resolve";
        return ZQ_ERR_NOT_FOUND;
    }
    addr.port = url->port;
    zq_err_t err = zq_ws_socket_connect(&addr, timeout_ms, sock, why);
    uint8_t other = addr.family == ZQ_AF_INET6 ? ZQ_AF_INET4 : ZQ_AF_INET6;
    if (err == ZQ_ERR_IO && zq_posix_resolve(url->host, other, &addr) == ZQ_OK) {
        addr.port = url->port;
        err = zq_ws_socket_connect(&addr, timeout_ms, sock, why);
    }
    return err;
}

/* wss://: TLS first, to the URL's host (its name is what the certificate must show). */
static zq_err_t start_tls(zq_ws_client_t *c, uint32_t timeout_ms, const char **why)
{
    tls_client_config_t *cfg;
    zq_err_t err = zq_posix_tls_config(NULL, &cfg, why);
    if (err != ZQ_OK) {
        return err;
    }
    c->link.tls = &c->tls;
    return zq_ws_link_tls_handshake(&c->link, cfg, c->url.host, zq_port_now_ms() + timeout_ms,
                                    why);
}

static zq_err_t handshake(zq_ws_client_t *c, uint32_t timeout_ms, const char **why)
{
    char head[ZQ_HTTP_MAX_REQUEST];
    c->link = (zq_ws_link_t){.sock = c->sock, .tls = NULL};
    if (c->url.secure) {
        zq_err_t err = start_tls(c, timeout_ms, why);
        if (err != ZQ_OK) {
            return err;
        }
    }
    zq_ws_socket_target_t to = {.host = c->url.host, .port = c->url.port, .path = c->url.path};
    return zq_ws_socket_handshake(&c->link, &to, &c->rand, timeout_ms, head, sizeof head,
                                  c->why, sizeof c->why, why);
}

static void on_ready(void *ctx, int fd, uint64_t now);

zq_err_t zq_ws_client_open(zq_ws_client_t *c, zq_loop_t *loop, const zq_ws_url_t *url,
                           const zq_ws_client_callbacks_t *cb, void *ctx, uint32_t timeout_ms,
                           const char **why)
{
    static const char *ignored;
    why = why != NULL ? why : &ignored;
    if (c->state == ZQ_WS_CLIENT_OPEN) {
        *why = "this client is already open";
        return ZQ_ERR_STATE;
    }
    c->loop = loop;
    c->cb = *cb;
    c->ctx = ctx;
    c->url = *url;
    c->rand = zq_port_rand();
    c->want_write = false;
    c->sock = ZQ_SOCKET_INVALID;
    zq_err_t err = connect_url(url, timeout_ms, &c->sock, why);
    if (err == ZQ_OK) {
        err = handshake(c, timeout_ms, why);
    }
    if (err == ZQ_OK && zq_loop_add_fd(loop, c->sock, on_ready, c) != ZQ_OK) {
        *why = "the event loop watches as many fds as it can";
        err = ZQ_ERR_CAPACITY;
    }
    if (err != ZQ_OK) {
        if (*why == c->tls.why) { /* TLS's reason outlives its session */
            (void)snprintf(c->why, sizeof c->why, "%s", c->tls.why);
            *why = c->why;
        }
        tls_session_free(&c->tls);
        zq_port_tcp_close(c->sock);
        c->sock = ZQ_SOCKET_INVALID;
        return err;
    }
    ws_conn_init(&c->ws, WS_ROLE_CLIENT, &c->rand);
    c->state = ZQ_WS_CLIENT_OPEN;
    return ZQ_OK;
}

/* ---- Open: the loop's callbacks -------------------------------------------------------------- */

static void set_write_interest(zq_ws_client_t *c, bool on)
{
    if (c->want_write != on) {
        c->want_write = on;
        (void)zq_loop_set_fd_writable_interest(c->loop, c->sock, on);
    }
}

/* Writes what the socket takes; the rest waits for the loop's writable callback. */
static zq_err_t flush(zq_ws_client_t *c)
{
    zq_err_t err = zq_ws_socket_flush(&c->ws, &c->link);
    if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
        return err;
    }
    set_write_interest(c, err == ZQ_ERR_WOULD_BLOCK);
    return ZQ_OK;
}

static void release(zq_ws_client_t *c)
{
    zq_ws_link_end_tls(&c->link); /* close_notify (RFC 5246 §7.2.1) if the socket takes it */
    c->link.tls = NULL;
    zq_loop_remove_fd(c->loop, c->sock);
    zq_port_tcp_close(c->sock);
    c->sock = ZQ_SOCKET_INVALID;
    c->state = ZQ_WS_CLIENT_CLOSED;
}

/* The connection is over (§7.1.4): answer or close frame out if the socket takes it, then
 * TCP closed and the owner told, last, since it may open the client again. */
static void finish(zq_ws_client_t *c, uint64_t now, const ws_event_t *ev)
{
    size_t n = ev->len < sizeof c->reason ? ev->len : sizeof c->reason - 1;
    if (n > 0) {
        memcpy(c->reason, ev->data, n);
    }
    c->reason[n] = '\0';
    (void)flush(c);
    release(c);
    if (c->cb.on_closed != NULL) {
        c->cb.on_closed(c->ctx, now, ev->code, c->reason);
    }
}

/* Hands the events to the owner. @return false once the connection this call began with is
 * over: closed by a handler, or ended here (the owner may have opened a new one since, which
 * none of this connection's bytes may reach). */
static bool deliver(zq_ws_client_t *c, uint64_t now)
{
    ws_event_t ev;
    while (c->state == ZQ_WS_CLIENT_OPEN && ws_poll_event(&c->ws, &ev)) {
        if (ev.type == WS_EVENT_MESSAGE && ev.text && c->cb.on_text != NULL) {
            c->cb.on_text(c->ctx, now, (const char *)ev.data, ev.len);
        } else if (ev.type == WS_EVENT_CLOSED) {
            finish(c, now, &ev);
            return false;
        }
    }
    return c->state == ZQ_WS_CLIENT_OPEN;
}

static bool feed(zq_ws_client_t *c, uint64_t now, const uint8_t *data, size_t len)
{
    while (len > 0) {
        size_t used = 0;
        if (ws_feed(&c->ws, data, len, &used) != ZQ_OK) {
            return true; /* closed: its event was delivered already */
        }
        data += used;
        len -= used;
        if (!deliver(c, now)) {
            return false;
        }
    }
    return true;
}

static void transport_ended(zq_ws_client_t *c, uint64_t now)
{
    ws_transport_closed(&c->ws);
    if (deliver(c, now)) {
        ws_event_t ev = {.type = WS_EVENT_CLOSED, .code = WS_CLOSE_ABNORMAL};
        finish(c, now, &ev); /* no event (the handshake was over): ended all the same */
    }
}

static void on_ready(void *ctx, int fd, uint64_t now)
{
    zq_ws_client_t *c = ctx;
    (void)fd;
    uint8_t buf[4096];
    /* Over TLS the socket may have been drained into TLS's buffers, which do not make it
     * readable again: a TLS link is read until it has nothing (its buffers bound each read). */
    for (int i = 0; i < READS_PER_WAKE || c->link.tls != NULL; i++) {
        size_t len = 0;
        zq_err_t err = zq_ws_link_recv(&c->link, buf, sizeof buf, &len);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            break;
        }
        if (err != ZQ_OK) {
            transport_ended(c, now);
            return;
        }
        if (!feed(c, now, buf, len)) {
            return;
        }
    }
    if (flush(c) != ZQ_OK) {
        transport_ended(c, now);
    }
}

zq_err_t zq_ws_client_send_text(zq_ws_client_t *c, const char *text, size_t len)
{
    if (c->state != ZQ_WS_CLIENT_OPEN) {
        return ZQ_ERR_CLOSED;
    }
    zq_err_t err = zq_ws_socket_send_text(&c->ws, &c->link, text, len);
    const uint8_t *out;
    size_t n;
    set_write_interest(c, ws_pending_output(&c->ws, &out, &n) ||
                              zq_ws_link_pending_output(&c->link));
    return err;
}

bool zq_ws_client_is_open(const zq_ws_client_t *c)
{
    return c->state == ZQ_WS_CLIENT_OPEN;
}

void zq_ws_client_close(zq_ws_client_t *c)
{
    if (c->state != ZQ_WS_CLIENT_OPEN) {
        return;
    }
    (void)ws_close(&c->ws, WS_CLOSE_NORMAL, NULL); /* §7.1.2 */
    (void)flush(c);
    release(c);
}

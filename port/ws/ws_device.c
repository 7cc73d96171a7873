/* The signalling WebSocket of a device (see ws_device.h): URL, bounded open (TCP, TLS for
 * wss://, the upgrade), then signal/ws.h's connection over the link (port/ws/ws_link.h). */
#include "port/ws/ws_device.h"

#include <stdio.h>
#include <string.h>

#include "port/ws/ws_socket.h"
#include "signal/ws_url.h"

/* Socket reads per service before the loop gets back to its timers and the UDP socket. */
#define READS_PER_SERVICE 8
/* The upgrade request (host and path of zq_device_url_t: under 400 bytes), then the server's 101
 * answer (zq signal's is ~130 bytes; a proxy's a few hundred). */
#define HEAD_MAX 1024

/* ---- URL: signal/ws_url.h's parts, copied into this port's smaller buffers --------------- */

zq_err_t zq_device_url_parse(const char *url, zq_device_url_t *out, const char **why)
{
    memset(out, 0, sizeof *out);
    ws_url_t u;
    zq_err_t err = ws_url_parse(url, strlen(url), &u, why);
    if (err != ZQ_OK) {
        return err;
    }
#if !defined(ZQ_MBEDTLS_TLS)
    if (u.secure) {
        *why = "wss:// needs TLS, which this image's mbedTLS configuration leaves out "
               "(config/zq_mbedtls_tls.h): use ws://, or an image built with it";
        return ZQ_ERR_UNSUPPORTED;
    }
#endif
    if (u.addr.family == ZQ_AF_INET6) {
        *why = "IPv6 addresses are not supported here: use an IPv4 address or a name";
        return ZQ_ERR_UNSUPPORTED; /* resolve() and the runner's sockets are IPv4 */
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
    return ZQ_OK;
}

/* ---- Opening: connect, TLS for wss://, then ws_socket.c's handshake ------------------------- */

#if defined(ZQ_MBEDTLS_TLS)
/* TLS to the URL's host (its name, or its address, is what the certificate must show). */
static zq_err_t start_tls(zq_device_ws_t *c, const zq_device_url_t *url,
                          tls_client_config_t *trust, uint32_t timeout_ms, const char **why)
{
    if (trust == NULL) {
        *why = "wss:// without a trust store (the runner has no CA certificates to check the "
               "server against)";
        return ZQ_ERR_CRYPTO;
    }
    c->link.tls = &c->tls;
    return zq_ws_link_tls_handshake(&c->link, trust, url->host, zq_port_now_ms() + timeout_ms,
                                    why);
}
#endif

static zq_err_t handshake(zq_device_ws_t *c, const zq_device_url_t *url,
                          tls_client_config_t *trust, uint32_t timeout_ms, const char **why)
{
#if defined(ZQ_MBEDTLS_TLS)
    if (url->secure) {
        zq_err_t err = start_tls(c, url, trust, timeout_ms, why);
        if (err != ZQ_OK) {
            return err;
        }
    }
#else
    (void)trust; /* zq_device_url_parse() refused wss:// */
#endif
    char head[HEAD_MAX];
    zq_ws_socket_target_t to = {.host = url->host, .port = url->port, .path = url->path};
    return zq_ws_socket_handshake(&c->link, &to, &c->rand, timeout_ms, head, sizeof head, c->why,
                                  sizeof c->why, why);
}

/* Ends the link: TLS's close_notify (RFC 5246 §7.2.1) if the socket takes it, then TCP. */
static void release(zq_device_ws_t *c)
{
    zq_ws_link_end_tls(&c->link);
    c->link.tls = NULL;
    zq_port_tcp_close(c->link.sock);
    c->link.sock = ZQ_SOCKET_INVALID;
    c->open = false;
}

zq_err_t zq_device_ws_open(zq_device_ws_t *c, const zq_device_url_t *url, const zq_addr_t *addr,
                           tls_client_config_t *trust, uint32_t timeout_ms, const char **why)
{
    if (c->open) {
        zq_device_ws_close(c);
    }
    c->link = (zq_ws_link_t){.sock = ZQ_SOCKET_INVALID, .tls = NULL};
    c->rand = zq_port_rand();
    zq_err_t err = zq_ws_socket_connect(addr, timeout_ms, &c->link.sock, why);
    if (err == ZQ_OK) {
        err = handshake(c, url, trust, timeout_ms, why);
    }
    if (err != ZQ_OK) {
#if defined(ZQ_MBEDTLS_TLS)
        if (*why == c->tls.why) { /* TLS's reason outlives its session */
            (void)snprintf(c->why, sizeof c->why, "%s", c->tls.why);
            *why = c->why;
        }
        tls_session_free(&c->tls); /* no close_notify: the session never opened */
        c->link.tls = NULL;
#endif
        release(c);
        return err;
    }
    ws_conn_init(&c->ws, WS_ROLE_CLIENT, &c->rand);
    c->open = true;
    return ZQ_OK;
}

/* ---- Open ---------------------------------------------------------------------------------- */

bool zq_device_ws_wants_write(zq_device_ws_t *c)
{
    const uint8_t *out;
    size_t n;
    return c->open &&
           (ws_pending_output(&c->ws, &out, &n) || zq_ws_link_pending_output(&c->link));
}

bool zq_device_ws_has_input(const zq_device_ws_t *c)
{
    return c->open && c->link.tls != NULL && tls_session_has_plaintext(c->link.tls);
}

/* Writes what the socket takes now; the rest when the runner sees it writable. */
static zq_err_t flush(zq_device_ws_t *c)
{
    zq_err_t err = zq_ws_socket_flush(&c->ws, &c->link);
    return err == ZQ_ERR_WOULD_BLOCK ? ZQ_OK : err;
}

/* The connection is over (§7.1.4): the answer to a close goes out if it fits, then the link. */
static zq_err_t finish(zq_device_ws_t *c, uint16_t code, uint16_t *out_code)
{
    (void)flush(c);
    release(c);
    *out_code = code;
    return ZQ_ERR_CLOSED;
}

/* Hands out the connection's events. @return ZQ_ERR_CLOSED once it ended. */
static zq_err_t deliver(zq_device_ws_t *c, uint64_t now, zq_device_ws_text_fn on_text, void *ctx,
                        uint16_t *code)
{
    ws_event_t ev;
    while (ws_poll_event(&c->ws, &ev)) {
        if (ev.type == WS_EVENT_MESSAGE && ev.text) {
            on_text(ctx, now, (const char *)ev.data, ev.len);
        } else if (ev.type == WS_EVENT_CLOSED) {
            return finish(c, ev.code, code);
        }
    }
    return ZQ_OK;
}

static zq_err_t feed(zq_device_ws_t *c, uint64_t now, const uint8_t *data, size_t len,
                     zq_device_ws_text_fn on_text, void *ctx, uint16_t *code)
{
    while (len > 0) {
        size_t used = 0;
        zq_err_t fed = ws_feed(&c->ws, data, len, &used);
        zq_err_t err = deliver(c, now, on_text, ctx, code);
        if (err != ZQ_OK || fed != ZQ_OK) {
            return err != ZQ_OK ? err : finish(c, WS_CLOSE_ABNORMAL, code);
        }
        data += used;
        len -= used;
    }
    return ZQ_OK;
}

static zq_err_t transport_ended(zq_device_ws_t *c, uint64_t now, zq_device_ws_text_fn on_text,
                                void *ctx, uint16_t *code)
{
    ws_transport_closed(&c->ws);
    zq_err_t err = deliver(c, now, on_text, ctx, code);
    return err != ZQ_OK ? err : finish(c, WS_CLOSE_ABNORMAL, code);
}

zq_err_t zq_device_ws_service(zq_device_ws_t *c, uint64_t now, bool readable,
                              zq_device_ws_text_fn on_text, void *ctx, uint16_t *code)
{
    if (!c->open) {
        *code = WS_CLOSE_ABNORMAL;
        return ZQ_ERR_CLOSED;
    }
    zq_err_t err = ZQ_OK;
    uint8_t buf[512];
    readable = readable || zq_device_ws_has_input(c);
    for (int i = 0; err == ZQ_OK && readable && i < READS_PER_SERVICE; i++) {
        size_t len = 0;
        zq_err_t rx = zq_ws_link_recv(&c->link, buf, sizeof buf, &len);
        if (rx == ZQ_ERR_WOULD_BLOCK) {
            break;
        }
        err = rx == ZQ_OK ? feed(c, now, buf, len, on_text, ctx, code)
                          : transport_ended(c, now, on_text, ctx, code);
    }
    if (err == ZQ_OK && flush(c) != ZQ_OK) {
        err = transport_ended(c, now, on_text, ctx, code);
    }
    return err;
}

/* A failed write shows up as the socket's reset or end on the next service. */
zq_err_t zq_device_ws_send_text(zq_device_ws_t *c, const char *text, size_t len)
{
    return c->open ? zq_ws_socket_send_text(&c->ws, &c->link, text, len) : ZQ_ERR_CLOSED;
}

void zq_device_ws_close(zq_device_ws_t *c)
{
    if (!c->open) {
        return;
    }
    (void)ws_close(&c->ws, WS_CLOSE_NORMAL, NULL);
    (void)flush(c);
    release(c);
}

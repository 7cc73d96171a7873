/* A WebSocket client over the port's TCP (see ws_client.h): URL parsing, the blocking open,
 * then the loop's readable/writable callbacks feeding signal/ws.h's connection. */
#include "port/posix/ws_client.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "port/bsd/ws_socket.h"
#include "cli/cli.h"
#include "signal/http.h"

/* Reads per wake-up before the loop gets to its other fds and timers again. */
#define READS_PER_WAKE 16

/* ---- URL (RFC 6455 §3: ws-URI = "ws:" "//" host [ ":" port ] path [ "?" query ]) ------------- */

static zq_err_t parse_scheme(const char *url, const char **rest, const char **why)
{
    /* RFC 3986 §3.1: schemes are case-insensitive. */
    if (strncasecmp(url, "ws://", 5) == 0) {
        *rest = url + 5;
        return ZQ_OK;
    }
    if (strncasecmp(url, "wss://", 6) == 0) {
        *why = "wss:// is not supported, use ws:// (TLS to the signalling server is a reverse "
               "proxy's job)";
        return ZQ_ERR_UNSUPPORTED;
    }
    *why = "a WebSocket URL starts with ws://";
    return ZQ_ERR_MALFORMED;
}

/* A registered name (RFC 3986 §3.2.2) as DNS spells it: letters, digits, '-', '.', '_'. */
static bool name_ok(const char *host, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char ch = host[i];
        bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                     (ch >= '0' && ch <= '9');
        if (!alnum && ch != '-' && ch != '.' && ch != '_') {
            return false;
        }
    }
    return true;
}

static zq_err_t parse_port(const char *text, size_t len, uint16_t *port, const char **why)
{
    char digits[8];
    uint32_t value;
    if (len == 0 || len >= sizeof digits) {
        *why = "the port must be 1-65535";
        return ZQ_ERR_MALFORMED;
    }
    memcpy(digits, text, len);
    digits[len] = '\0';
    if (zq_cli_parse_u32(digits, 1, 65535, &value) != ZQ_OK) {
        *why = "the port must be 1-65535";
        return ZQ_ERR_MALFORMED;
    }
    *port = (uint16_t)value;
    return ZQ_OK;
}

/* Splits "host[:port]" or "[v6][:port]" into the host and what follows it (NULL: no port). */
static zq_err_t split_host(const char *auth, size_t len, const char **host, size_t *host_len,
                           const char **port, const char **why)
{
    const char *end = auth + len;
    *port = NULL;
    if (len > 0 && auth[0] == '[') {
        const char *close = memchr(auth, ']', len);
        if (close == NULL || (close + 1 != end && close[1] != ':')) {
            *why = "an IPv6 host is written [address] or [address]:port";
            return ZQ_ERR_MALFORMED;
        }
        *host = auth + 1;
        *host_len = (size_t)(close - *host);
        *port = close + 1 != end ? close + 2 : NULL;
        return ZQ_OK;
    }
    const char *colon = memchr(auth, ':', len);
    *host = auth;
    *host_len = colon != NULL ? (size_t)(colon - auth) : len;
    if (colon != NULL && memchr(colon + 1, ':', (size_t)(end - colon - 1)) != NULL) {
        *why = "an IPv6 host must be in brackets: ws://[::1]:8080";
        return ZQ_ERR_MALFORMED;
    }
    *port = colon != NULL ? colon + 1 : NULL;
    return ZQ_OK;
}

/* A numeric host fills out->addr now; a name is resolved at open. */
static zq_err_t check_host(const char *host, size_t len, bool bracketed, zq_ws_url_t *out,
                           const char **why)
{
    if (len == 0) {
        *why = "the URL has no host";
        return ZQ_ERR_MALFORMED;
    }
    if (len >= sizeof out->host) {
        *why = "the host name is too long";
        return ZQ_ERR_TOO_LONG;
    }
    zq_addr_t ip;
    bool numeric = zq_addr_parse_ip(host, len, &ip) == ZQ_OK;
    if (bracketed && (!numeric || ip.family != ZQ_AF_INET6)) {
        *why = "the host in brackets is not an IPv6 address";
        return ZQ_ERR_MALFORMED;
    }
    if (!numeric && !name_ok(host, len)) {
        *why = "the host has characters a host name cannot have";
        return ZQ_ERR_MALFORMED;
    }
    memcpy(out->host, host, len);
    out->host[len] = '\0';
    if (numeric) {
        out->addr = ip;
    }
    return ZQ_OK;
}

static zq_err_t parse_authority(const char *auth, size_t len, zq_ws_url_t *out, const char **why)
{
    if (memchr(auth, '@', len) != NULL) {
        *why = "user information (user@host) is not supported in a ws:// URL";
        return ZQ_ERR_MALFORMED;
    }
    const char *host;
    size_t host_len;
    const char *port;
    zq_err_t err = split_host(auth, len, &host, &host_len, &port, why);
    if (err == ZQ_OK) {
        err = check_host(host, host_len, len > 0 && auth[0] == '[', out, why);
    }
    if (err != ZQ_OK) {
        return err;
    }
    out->port = 80; /* §3: the default port of ws */
    if (port != NULL) {
        err = parse_port(port, (size_t)(auth + len - port), &out->port, why);
    }
    out->addr.port = out->port;
    return err;
}

/* The request-target (§3: path and query; "/" if empty), visible ASCII only (RFC 9112 §3.2). */
static zq_err_t parse_target(const char *p, zq_ws_url_t *out, const char **why)
{
    if (strchr(p, '#') != NULL) {
        *why = "a WebSocket URL has no fragment (RFC 6455 §3)";
        return ZQ_ERR_MALFORMED;
    }
    for (const char *q = p; *q != '\0'; q++) {
        if (*q < 0x21 || *q > 0x7E) {
            *why = "the path has spaces or control characters";
            return ZQ_ERR_MALFORMED;
        }
    }
    int n = snprintf(out->path, sizeof out->path, "%s%s", *p == '/' ? "" : "/", p);
    if (n < 0 || (size_t)n >= sizeof out->path) {
        *why = "the path is too long";
        return ZQ_ERR_TOO_LONG;
    }
    return ZQ_OK;
}

zq_err_t zq_ws_url_parse(const char *url, zq_ws_url_t *out, const char **why)
{
    static const char *ignored;
    if (why == NULL) {
        why = &ignored;
    }
    memset(out, 0, sizeof *out);
    const char *rest;
    zq_err_t err = parse_scheme(url, &rest, why);
    if (err != ZQ_OK) {
        return err;
    }
    size_t auth_len = strcspn(rest, "/?#");
    err = parse_authority(rest, auth_len, out, why);
    if (err == ZQ_OK) {
        err = parse_target(rest + auth_len, out, why);
    }
    return err;
}

/* ---- Opening: connect, then port/bsd's §4.1 handshake, each bounded by the timeout ---------- */

/* A name gets a second try in its other family when the first address refuses: "localhost"
 * is ::1 first on most hosts, while servers often listen on 127.0.0.1 only (zq signal's
 * default). A sequential form of RFC 8305's fallback, enough for a command-line client. */
static zq_err_t connect_url(const zq_ws_url_t *url, uint32_t timeout_ms, zq_socket_t *sock,
                            const char **why)
{
    if (url->addr.family != ZQ_AF_NONE) {
        return zq_bsd_ws_connect(&url->addr, timeout_ms, sock, why);
    }
    zq_addr_t addr;
    if (zq_cli_resolve(url->host, url->port, ZQ_AF_NONE, &addr) != ZQ_OK) {
        *why = "the host name does not resolve";
        return ZQ_ERR_NOT_FOUND;
    }
    addr.port = url->port;
    zq_err_t err = zq_bsd_ws_connect(&addr, timeout_ms, sock, why);
    uint8_t other = addr.family == ZQ_AF_INET6 ? ZQ_AF_INET4 : ZQ_AF_INET6;
    if (err == ZQ_ERR_IO && zq_cli_resolve(url->host, url->port, other, &addr) == ZQ_OK) {
        addr.port = url->port;
        err = zq_bsd_ws_connect(&addr, timeout_ms, sock, why);
    }
    return err;
}

static zq_err_t handshake(zq_ws_client_t *c, uint32_t timeout_ms, const char **why)
{
    char head[ZQ_HTTP_MAX_REQUEST];
    zq_bsd_ws_target_t to = {.host = c->url.host, .port = c->url.port, .path = c->url.path};
    return zq_bsd_ws_handshake(c->sock, &to, &c->rand, timeout_ms, head, sizeof head, c->why,
                               sizeof c->why, why);
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
    zq_err_t err = zq_bsd_ws_flush(&c->ws, c->sock);
    if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
        return err;
    }
    set_write_interest(c, err == ZQ_ERR_WOULD_BLOCK);
    return ZQ_OK;
}

static void release(zq_ws_client_t *c)
{
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
    for (int i = 0; i < READS_PER_WAKE; i++) {
        size_t len = 0;
        zq_err_t err = zq_port_tcp_recv(c->sock, buf, sizeof buf, &len);
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
    zq_err_t err = zq_bsd_ws_send_text(&c->ws, c->sock, text, len);
    const uint8_t *out;
    size_t n;
    set_write_interest(c, ws_pending_output(&c->ws, &out, &n));
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

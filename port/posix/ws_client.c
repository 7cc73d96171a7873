/* A WebSocket client over the port's TCP (see ws_client.h): URL parsing, the blocking open,
 * then the loop's readable/writable callbacks feeding signal/ws.h's connection. */
#include "port/posix/ws_client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "port/posix/cli.h"
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

/* ---- Opening: connect and the §4.1 handshake, each bounded by the timeout -------------------- */

static zq_err_t connect_to(const zq_addr_t *addr, uint32_t timeout_ms, zq_socket_t *sock,
                           const char **why)
{
    zq_err_t err = zq_port_tcp_connect(sock, addr, timeout_ms);
    if (err == ZQ_ERR_TIMEOUT) {
        *why = "no answer to the TCP connect within the timeout";
    } else if (err != ZQ_OK) {
        *why = "connection refused";
        err = ZQ_ERR_IO;
    }
    return err;
}

/* A name gets a second try in its other family when the first address refuses: "localhost"
 * is ::1 first on most hosts, while servers often listen on 127.0.0.1 only (zq signal's
 * default). A sequential form of RFC 8305's fallback, enough for a command-line client. */
static zq_err_t connect_url(const zq_ws_url_t *url, uint32_t timeout_ms, zq_socket_t *sock,
                            const char **why)
{
    if (url->addr.family != ZQ_AF_NONE) {
        return connect_to(&url->addr, timeout_ms, sock, why);
    }
    zq_addr_t addr;
    if (zq_cli_resolve(url->host, url->port, ZQ_AF_NONE, &addr) != ZQ_OK) {
        *why = "the host name does not resolve";
        return ZQ_ERR_NOT_FOUND;
    }
    addr.port = url->port;
    zq_err_t err = connect_to(&addr, timeout_ms, sock, why);
    uint8_t other = addr.family == ZQ_AF_INET6 ? ZQ_AF_INET4 : ZQ_AF_INET6;
    if (err == ZQ_ERR_IO && zq_cli_resolve(url->host, url->port, other, &addr) == ZQ_OK) {
        addr.port = url->port;
        err = connect_to(&addr, timeout_ms, sock, why);
    }
    return err;
}

/* Waits until @p sock is ready for @p events, or ZQ_ERR_TIMEOUT at @p deadline. */
static zq_err_t wait_ready(zq_socket_t sock, short events, uint64_t deadline)
{
    for (;;) {
        uint64_t now = zq_port_now_ms();
        if (now >= deadline) {
            return ZQ_ERR_TIMEOUT;
        }
        struct pollfd p = {.fd = sock, .events = events};
        int n = poll(&p, 1, (int)(deadline - now));
        if (n > 0) {
            return ZQ_OK; /* also on POLLHUP/POLLERR: the next call says what happened */
        }
        if (n < 0 && errno != EINTR) {
            return ZQ_ERR_IO;
        }
    }
}

static zq_err_t send_all(zq_socket_t sock, const uint8_t *data, size_t len, uint64_t deadline)
{
    while (len > 0) {
        zq_err_t err = wait_ready(sock, POLLOUT, deadline);
        size_t sent = 0;
        if (err == ZQ_OK) {
            err = zq_port_tcp_send(sock, data, len, &sent);
        }
        if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
            return err;
        }
        data += sent;
        len -= sent;
    }
    return ZQ_OK;
}

/* Host field (RFC 9112 §3.2, RFC 6455 §4.1 item 4): brackets around IPv6, the port unless 80. */
static void host_field(const zq_ws_url_t *url, char *out, size_t cap)
{
    bool v6 = strchr(url->host, ':') != NULL;
    int n = snprintf(out, cap, "%s%s%s", v6 ? "[" : "", url->host, v6 ? "]" : "");
    if (url->port != 80 && n > 0 && (size_t)n < cap) {
        (void)snprintf(out + n, cap - (size_t)n, ":%u", (unsigned)url->port);
    }
}

static zq_err_t send_request(zq_ws_client_t *c, const uint8_t nonce[16], uint64_t deadline)
{
    char host[sizeof c->url.host + 16];
    host_field(&c->url, host, sizeof host);
    ws_client_handshake_t hs = {.host = host, .path = c->url.path};
    memcpy(hs.nonce, nonce, sizeof hs.nonce);
    uint8_t req[sizeof host + sizeof c->url.path + 256];
    zq_writer_t w = zq_writer(req, sizeof req);
    if (ws_client_request(&w, &hs) != ZQ_OK) {
        return ZQ_ERR_INVALID_ARG;
    }
    return send_all(c->sock, req, w.len, deadline);
}

/* How many of the @p n new bytes at buf[have..] belong to the head: up to and including the
 * blank line that ends it, or all of them. Sets *done when the blank line is among them. */
static size_t head_part(const char *buf, size_t have, size_t n, bool *done)
{
    size_t from = have >= 3 ? have - 3 : 0;
    for (size_t i = from; i + 4 <= have + n; i++) {
        if (memcmp(buf + i, "\r\n\r\n", 4) == 0) {
            *done = true;
            return i + 4 - have;
        }
    }
    *done = false;
    return n;
}

/* Reads the answer's head and not one byte more: frames sent right after it stay in the
 * socket, so the loop finds it readable and on_text sees them, never the open call. */
static zq_err_t read_head(zq_socket_t sock, char *buf, size_t cap, uint64_t deadline,
                          size_t *have)
{
    bool done = false;
    *have = 0;
    while (!done) {
        if (*have == cap) {
            return ZQ_ERR_TOO_LONG;
        }
        zq_err_t err = wait_ready(sock, POLLIN, deadline);
        if (err != ZQ_OK) {
            return err;
        }
        ssize_t n = recv(sock, buf + *have, cap - *have, MSG_PEEK);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
            return ZQ_ERR_CLOSED;
        }
        size_t take = n > 0 ? head_part(buf, *have, (size_t)n, &done) : 0;
        size_t got = 0;
        if (take > 0 && (zq_port_tcp_recv(sock, (uint8_t *)buf + *have, take, &got) != ZQ_OK ||
                         got != take)) {
            return ZQ_ERR_CLOSED;
        }
        *have += take;
    }
    return ZQ_OK;
}

static zq_err_t explain_answer(zq_ws_client_t *c, zq_err_t err, int status, const char **why)
{
    if (err == ZQ_ERR_UNSUPPORTED && status != 101) {
        (void)snprintf(c->why, sizeof c->why, "the server answered %d %s, not a WebSocket upgrade",
                       status, http_reason(status));
        *why = c->why;
    } else if (err == ZQ_ERR_UNSUPPORTED) {
        *why = "the server's 101 answer is not a plain WebSocket upgrade";
    } else if (err == ZQ_ERR_INTEGRITY) {
        *why = "the server's Sec-WebSocket-Accept does not match our key (RFC 6455 §4.1)";
    } else if (err == ZQ_ERR_TOO_LONG) {
        *why = "the server's answer has an over-long head";
    } else {
        *why = "the server's answer is not HTTP";
    }
    return ZQ_ERR_MALFORMED;
}

static zq_err_t handshake(zq_ws_client_t *c, uint32_t timeout_ms, const char **why)
{
    uint64_t deadline = zq_port_now_ms() + timeout_ms;
    uint8_t nonce[16];
    if (zq_rand_bytes(&c->rand, nonce, sizeof nonce) != ZQ_OK) {
        *why = "the random source failed";
        return ZQ_ERR_CRYPTO;
    }
    char head[ZQ_HTTP_MAX_REQUEST];
    size_t have = 0;
    zq_err_t err = send_request(c, nonce, deadline);
    if (err == ZQ_OK) {
        err = read_head(c->sock, head, sizeof head, deadline, &have);
    }
    if (err == ZQ_ERR_TIMEOUT) {
        *why = "no answer to the WebSocket upgrade within the timeout";
        return err;
    }
    if (err == ZQ_ERR_CLOSED || err == ZQ_ERR_IO) {
        *why = "the server closed the connection during the WebSocket handshake";
        return ZQ_ERR_IO;
    }
    int status = 0;
    size_t used = 0;
    if (err == ZQ_OK) {
        err = ws_client_check_response(head, have, nonce, &used, &status);
    }
    return err == ZQ_OK ? ZQ_OK : explain_answer(c, err, status, why);
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
    const uint8_t *out;
    size_t n;
    while (ws_pending_output(&c->ws, &out, &n)) {
        size_t sent = 0;
        zq_err_t err = zq_port_tcp_send(c->sock, out, n, &sent);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            set_write_interest(c, true);
            return ZQ_OK;
        }
        if (err != ZQ_OK) {
            return err;
        }
        ws_output_consumed(&c->ws, sent);
    }
    set_write_interest(c, false);
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
    zq_err_t err = ws_send_text(&c->ws, text, len);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        (void)flush(c);
        err = ws_send_text(&c->ws, text, len);
    }
    if (err == ZQ_ERR_STATE || err == ZQ_ERR_CLOSED) {
        return ZQ_ERR_CLOSED;
    }
    if (err == ZQ_OK) {
        /* A failed write is not reported here: the socket turns readable with the reset or
         * the end of stream, and the loop's callback ends the connection with on_closed. */
        (void)flush(c);
    }
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

/* The socket side of a WebSocket client, for every port (see ws_socket.h). */
#include "port/ws/ws_socket.h"

#include <stdbool.h>
#include <stdio.h>

#include "signal/http.h"

/* ---- Opening: connect, then the §4.1 handshake, each bounded by a timeout -------------------- */

zq_err_t zq_ws_socket_connect(const zq_addr_t *addr, uint32_t timeout_ms, zq_socket_t *sock,
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

static zq_err_t send_all(zq_ws_link_t *link, const uint8_t *data, size_t len,
                         uint64_t deadline)
{
    while (len > 0 || zq_ws_link_pending_output(link)) {
        zq_err_t err = zq_ws_link_wait(link, true, deadline);
        size_t sent = 0;
        if (err == ZQ_OK) {
            err = len > 0 ? zq_ws_link_send(link, data, len, &sent) : zq_ws_link_flush(link);
        }
        if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
            return err;
        }
        data += sent;
        len -= sent;
    }
    return ZQ_OK;
}

/* Host field (RFC 9112 §3.2, RFC 6455 §4.1 item 4): brackets around IPv6, the port unless it
 * is the scheme's default (80, or 443 over TLS). */
static void host_field(const zq_ws_link_t *link, const zq_ws_socket_target_t *to, char *out,
                       size_t cap)
{
    bool v6 = strchr(to->host, ':') != NULL;
    int n = snprintf(out, cap, "%s%s%s", v6 ? "[" : "", to->host, v6 ? "]" : "");
    if (to->port != (link->tls != NULL ? 443 : 80) && n > 0 && (size_t)n < cap) {
        (void)snprintf(out + n, cap - (size_t)n, ":%u", (unsigned)to->port);
    }
}

static zq_err_t send_request(zq_ws_link_t *link, const zq_ws_socket_target_t *to,
                             const uint8_t nonce[16], char *scratch, size_t cap,
                             uint64_t deadline)
{
    char host[256 + 16]; /* a DNS name's 253 characters, brackets and ":65535" */
    host_field(link, to, host, sizeof host);
    ws_client_handshake_t hs = {.host = host, .path = to->path};
    memcpy(hs.nonce, nonce, sizeof hs.nonce);
    zq_writer_t w = zq_writer((uint8_t *)scratch, cap);
    if (ws_client_request(&w, &hs) != ZQ_OK) {
        return ZQ_ERR_INVALID_ARG;
    }
    return send_all(link, (const uint8_t *)scratch, w.len, deadline);
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

/* The next bytes of the head: over TCP a peek, then exactly the head's part; over TLS one byte
 * at a time (TLS keeps the rest decrypted for the caller's first read). */
static zq_err_t read_head_part(zq_ws_link_t *link, char *buf, size_t cap, size_t *have,
                               bool *done)
{
    size_t n = 0;
    if (link->tls != NULL) {
        zq_err_t err = zq_ws_link_recv(link, (uint8_t *)buf + *have, 1, &n);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return ZQ_OK;
        }
        if (err != ZQ_OK) {
            return ZQ_ERR_CLOSED;
        }
        (void)head_part(buf, *have, n, done);
        *have += n;
        return ZQ_OK;
    }
    zq_err_t err = zq_port_tcp_peek(link->sock, (uint8_t *)buf + *have, cap - *have, &n);
    if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
        return ZQ_ERR_CLOSED;
    }
    size_t take = n > 0 ? head_part(buf, *have, n, done) : 0;
    size_t got = 0;
    if (take > 0 && (zq_port_tcp_recv(link->sock, (uint8_t *)buf + *have, take, &got) != ZQ_OK ||
                     got != take)) {
        return ZQ_ERR_CLOSED;
    }
    *have += take;
    return ZQ_OK;
}

/* Reads the answer's head and not one byte more: frames sent right after it stay for the
 * caller's loop. */
static zq_err_t read_head(zq_ws_link_t *link, char *buf, size_t cap, uint64_t deadline,
                          size_t *have)
{
    bool done = false;
    *have = 0;
    while (!done) {
        if (*have == cap) {
            return ZQ_ERR_TOO_LONG;
        }
        zq_err_t err = zq_ws_link_wait(link, false, deadline);
        if (err == ZQ_OK) {
            err = read_head_part(link, buf, cap, have, &done);
        }
        if (err != ZQ_OK) {
            return err;
        }
    }
    return ZQ_OK;
}

static zq_err_t explain_answer(zq_err_t err, int status, char *why_buf, size_t why_cap,
                               const char **why)
{
    if (err == ZQ_ERR_UNSUPPORTED && status != 101) {
        (void)snprintf(why_buf, why_cap, "the server answered %d %s, not a WebSocket upgrade",
                       status, http_reason(status));
        *why = why_buf;
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

zq_err_t zq_ws_socket_handshake(zq_ws_link_t *link, const zq_ws_socket_target_t *to,
                                zq_rand_t *rand, uint32_t timeout_ms, char *scratch,
                                size_t scratch_cap, char *why_buf, size_t why_cap,
                                const char **why)
{
    uint64_t deadline = zq_port_now_ms() + timeout_ms;
    uint8_t nonce[16];
    if (zq_rand_bytes(rand, nonce, sizeof nonce) != ZQ_OK) {
        *why = "the random source failed";
        return ZQ_ERR_CRYPTO;
    }
    size_t have = 0;
    zq_err_t err = send_request(link, to, nonce, scratch, scratch_cap, deadline);
    if (err == ZQ_OK) {
        err = read_head(link, scratch, scratch_cap, deadline, &have);
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
        err = ws_client_check_response(scratch, have, nonce, &used, &status);
    }
    return err == ZQ_OK ? ZQ_OK : explain_answer(err, status, why_buf, why_cap, why);
}

/* ---- Open: output as the socket takes it ----------------------------------------------------- */

zq_err_t zq_ws_socket_flush(ws_conn_t *ws, zq_ws_link_t *link)
{
    const uint8_t *out;
    size_t n;
    while (ws_pending_output(ws, &out, &n)) {
        size_t sent = 0;
        zq_err_t err = zq_ws_link_send(link, out, n, &sent);
        if (err != ZQ_OK) {
            return err;
        }
        ws_output_consumed(ws, sent);
    }
    zq_err_t err = zq_ws_link_flush(link);
    return err == ZQ_OK && zq_ws_link_pending_output(link) ? ZQ_ERR_WOULD_BLOCK : err;
}

zq_err_t zq_ws_socket_send_text(ws_conn_t *ws, zq_ws_link_t *link, const char *text,
                                size_t len)
{
    zq_err_t err = ws_send_text(ws, text, len);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        (void)zq_ws_socket_flush(ws, link);
        err = ws_send_text(ws, text, len);
    }
    if (err == ZQ_ERR_STATE || err == ZQ_ERR_CLOSED) {
        return ZQ_ERR_CLOSED;
    }
    if (err == ZQ_OK) {
        /* A failed write is not reported here: the socket turns readable with the reset or
         * the end of stream, and reading it ends the connection. */
        (void)zq_ws_socket_flush(ws, link);
    }
    return err;
}

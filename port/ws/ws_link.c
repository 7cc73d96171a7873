/* The WebSocket's byte stream, plain or TLS (see ws_link.h). Where the mbedTLS configuration
 * has no TLS client (the devices' for now), no link has a session: tls is always NULL. */
#include "port/ws/ws_link.h"

zq_err_t zq_ws_link_flush(zq_ws_link_t *l)
{
    const uint8_t *out;
    size_t n;
    while (l->tls != NULL && tls_session_output(l->tls, &out, &n)) {
        size_t sent = 0;
        zq_err_t err = zq_port_tcp_send(l->sock, out, n, &sent);
        if (err != ZQ_OK) {
            return err;
        }
        tls_session_output_consumed(l->tls, sent);
    }
    return ZQ_OK;
}

bool zq_ws_link_pending_output(const zq_ws_link_t *l)
{
    const uint8_t *out;
    size_t n;
    return l->tls != NULL && tls_session_output(l->tls, &out, &n);
}

static bool pending_input(const zq_ws_link_t *l)
{
    return l->tls != NULL && tls_session_has_plaintext(l->tls);
}

/* Ciphertext from the socket into TLS, no more than TLS has room for (what the socket keeps
 * waits there for the next read). @return ZQ_OK (some fed, or TLS full of unread input),
 * ZQ_ERR_WOULD_BLOCK, or the socket's end (ZQ_ERR_CLOSED) or error. */
static zq_err_t feed_from_socket(zq_ws_link_t *l)
{
    uint8_t buf[TLS_IO_BUF];
    size_t room = tls_session_input_room(l->tls);
    if (room == 0) {
        return ZQ_OK; /* TLS has unread input: let it take that first */
    }
    size_t got = 0;
    zq_err_t err = zq_port_tcp_recv(l->sock, buf, room < sizeof buf ? room : sizeof buf, &got);
    if (err == ZQ_OK) {
        (void)tls_session_feed(l->tls, buf, got); /* all of it: got <= room */
    }
    return err;
}

zq_err_t zq_ws_link_wait(const zq_ws_link_t *l, bool write, uint64_t deadline)
{
    if (!write && pending_input(l)) {
        return ZQ_OK;
    }
    return zq_port_tcp_wait(l->sock, write, deadline);
}

zq_err_t zq_ws_link_tls_begin(zq_ws_link_t *l, tls_client_config_t *cfg, const char *host,
                              const char **why)
{
    if (tls_client_start(l->tls, cfg, host) != ZQ_OK) {
        *why = "TLS could not start (the mbedTLS arena is full, or the host name is too long)";
        return ZQ_ERR_CRYPTO;
    }
    return ZQ_OK;
}

zq_err_t zq_ws_link_tls_step(zq_ws_link_t *l, const char **why)
{
    for (;;) {
        zq_err_t err = tls_session_handshake(l->tls, why);
        zq_err_t out = zq_ws_link_flush(l); /* the flight, or the alert of a failure */
        if (out != ZQ_OK && out != ZQ_ERR_WOULD_BLOCK) {
            *why = "the connection failed during the TLS handshake";
            return ZQ_ERR_IO;
        }
        if (err != ZQ_ERR_WOULD_BLOCK) {
            return err; /* open (its last flight may still wait for the socket), or refused */
        }
        if (out == ZQ_ERR_WOULD_BLOCK) {
            return ZQ_ERR_WOULD_BLOCK; /* the socket takes no more now */
        }
        zq_err_t in = feed_from_socket(l);
        if (in == ZQ_ERR_WOULD_BLOCK) {
            return in;
        }
        if (in != ZQ_OK) {
            *why = "the server closed the connection during the TLS handshake";
            return ZQ_ERR_IO;
        }
    }
}

/* Waits until the socket took every byte TLS has for it. */
static zq_err_t flush_by(zq_ws_link_t *l, uint64_t deadline)
{
    while (zq_ws_link_pending_output(l)) {
        zq_err_t err = zq_port_tcp_wait(l->sock, true, deadline);
        err = err == ZQ_OK ? zq_ws_link_flush(l) : err;
        if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
            return err;
        }
    }
    return ZQ_OK;
}

zq_err_t zq_ws_link_tls_handshake(zq_ws_link_t *l, tls_client_config_t *cfg, const char *host,
                                  uint64_t deadline, const char **why)
{
    zq_err_t err = zq_ws_link_tls_begin(l, cfg, host, why);
    while (err == ZQ_OK || err == ZQ_ERR_WOULD_BLOCK) {
        err = zq_ws_link_tls_step(l, why);
        zq_err_t w = ZQ_OK;
        if (err == ZQ_OK) {
            w = flush_by(l, deadline);
            if (w == ZQ_OK) {
                return ZQ_OK;
            }
        } else if (err == ZQ_ERR_WOULD_BLOCK) {
            w = zq_port_tcp_wait(l->sock, zq_ws_link_pending_output(l), deadline);
        }
        if (w == ZQ_ERR_TIMEOUT) {
            *why = "no TLS handshake within the timeout";
            return w;
        }
        if (w != ZQ_OK) {
            *why = "the connection failed during the TLS handshake";
            return ZQ_ERR_IO;
        }
    }
    return err;
}

zq_err_t zq_ws_link_send(zq_ws_link_t *l, const uint8_t *data, size_t len, size_t *sent)
{
    *sent = 0;
    if (l->tls == NULL) {
        return zq_port_tcp_send(l->sock, data, len, sent);
    }
    zq_err_t err = zq_ws_link_flush(l);
    if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
        return err;
    }
    while (*sent < len) {
        size_t taken = 0;
        err = tls_session_write(l->tls, data + *sent, len - *sent, &taken);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            break;
        }
        if (err != ZQ_OK) {
            return err == ZQ_ERR_CLOSED ? ZQ_ERR_CLOSED : ZQ_ERR_IO;
        }
        *sent += taken;
        err = zq_ws_link_flush(l);
        if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
            return err;
        }
    }
    return *sent > 0 ? ZQ_OK : ZQ_ERR_WOULD_BLOCK;
}

zq_err_t zq_ws_link_recv(zq_ws_link_t *l, uint8_t *buf, size_t cap, size_t *got)
{
    *got = 0;
    if (l->tls == NULL) {
        return zq_port_tcp_recv(l->sock, buf, cap, got); /* ZQ_ERR_CLOSED at its end */
    }
    for (;;) {
        zq_err_t err = tls_session_read(l->tls, buf, cap, got);
        if (err != ZQ_ERR_WOULD_BLOCK) {
            return err == ZQ_ERR_CRYPTO ? ZQ_ERR_IO : err;
        }
        (void)zq_ws_link_flush(l); /* a renegotiation refusal or alert mbedTLS queued */
        err = feed_from_socket(l);
        if (err != ZQ_OK) {
            return err;
        }
    }
}

void zq_ws_link_end_tls(zq_ws_link_t *l)
{
    if (l->tls == NULL) {
        return;
    }
    tls_session_close_notify(l->tls);
    (void)zq_ws_link_flush(l);
    tls_session_free(l->tls);
}

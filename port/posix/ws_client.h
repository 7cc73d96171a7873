/**
 * @file ws_client.h
 * @brief A WebSocket client for programs (RFC 6455 over the port's TCP): a `ws://` URL, a
 *        connect and opening handshake bounded by a timeout, then text messages in and out on
 *        a zq_loop_t.
 *
 * The protocol is signal/ws.h's sans-IO connection; this file only moves its bytes. Opening
 * waits (connect and handshake, at most @c timeout_ms each); after that nothing waits: the
 * socket is one of the loop's extra fds, received messages arrive through callbacks from the
 * loop, and sends queue in the connection's output buffer and go out as the socket takes them.
 *
 * @code
 * static zq_loop_t loop;
 * static zq_ws_client_t ws;                  // holds two 64 KiB buffers: make it static
 * zq_ws_url_t url;
 * const char *why;
 * if (zq_ws_url_parse("ws://127.0.0.1:8080/ws", &url, &why) != ZQ_OK) die(why);
 * zq_ws_client_callbacks_t cb = {.on_text = got_text, .on_closed = got_closed};
 * if (zq_ws_client_open(&ws, &loop, &url, &cb, NULL, 5000, &why) != ZQ_OK) die(why);
 * zq_ws_client_send_text(&ws, "{\"type\":\"join\",\"topicId\":\"lab\"}", 32);
 * zq_loop_run(&loop, ZQ_TIME_NEVER);
 * zq_ws_client_close(&ws);
 * @endcode
 *
 * `wss://` runs the WebSocket over TLS 1.2 (stack/tls/tls_client.h): the server's chain is
 * checked against the CA bundle in $SSL_CERT_FILE (OpenSSL's variable; default Debian's
 * /etc/ssl/certs/ca-certificates.crt), its name against the URL's host, and, if $ZQ_TLS_PIN
 * is set ("sha256/" and the base64 of the SHA-256 of the server key's SubjectPublicKeyInfo,
 * curl's --pinnedpubkey form), its key against the pin (port/posix/ws_tls.c).
 */
#ifndef ZQ_PORT_POSIX_WS_CLIENT_H
#define ZQ_PORT_POSIX_WS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port/posix/loop.h"
#include "port/zq_port.h"
#include "port/ws/ws_link.h"
#include "signal/ws.h"
#include "stack/tls/tls_client.h"
#include "zq/addr.h"
#include "zq/err.h"
#include "zq/rand.h"

/** A parsed `ws://host[:port][/path][?query]` or `wss://` URL. */
typedef struct {
    bool secure;     /**< wss:// */
    char host[256];  /**< as written, IPv6 without its brackets: "::1", "signal.local" */
    uint16_t port;   /**< 80 (wss: 443) when the URL names none (RFC 6455 §3) */
    char path[512];  /**< request-target: path and query, "/" when the URL has none */
    zq_addr_t addr;  /**< the host's address if it is a numeric IP (with port); else family
                          ZQ_AF_NONE and zq_ws_client_open() resolves the name */
} zq_ws_url_t;

/**
 * Parses @p url with signal/ws_url.h's ws_url_parse(), into this client's buffers: the scheme
 * is case-insensitive; the host may be a name, an IPv4 address or an [IPv6] address; a
 * fragment is refused (RFC 6455 §3), as are user information, an empty host, a port outside
 * 1-65535 and a path with spaces or control characters.
 * @param why set on failure to a static English reason.
 * @return ZQ_OK; ZQ_ERR_MALFORMED otherwise; ZQ_ERR_TOO_LONG for a host or path that does not
 *         fit.
 */
zq_err_t zq_ws_url_parse(const char *url, zq_ws_url_t *out, const char **why);

typedef struct {
    /** A whole text message (valid UTF-8, not NUL-terminated; @p text lives during the call).
     *  Binary messages are dropped: signalling is JSON text. */
    void (*on_text)(void *ctx, uint64_t now, const char *text, size_t len);
    /** The connection ended without zq_ws_client_close(): the server closed it (its @p code,
     *  1005 if it gave none), TCP ended or was reset (1006), or the server broke the protocol
     *  (the code we failed it with, e.g. 1002). @p reason is NUL-terminated, possibly "".
     *  The client is closed when this runs; it may be opened again from here. */
    void (*on_closed)(void *ctx, uint64_t now, uint16_t code, const char *reason);
} zq_ws_client_callbacks_t;

typedef enum { ZQ_WS_CLIENT_CLOSED = 0, ZQ_WS_CLIENT_OPEN } zq_ws_client_state_t;

/** One client connection. Caller-allocated (about 130 KiB: ws_conn_t's two buffers); a zeroed
 *  one is closed. Plain data, but it must not move while open (the loop holds its address). */
typedef struct zq_ws_client {
    zq_ws_client_state_t state;
    zq_socket_t sock;
    zq_ws_link_t link;                /* sock, and tls for wss:// */
    tls_session_t tls;
    zq_loop_t *loop;                  /* borrowed */
    zq_ws_client_callbacks_t cb;
    void *ctx;                        /* borrowed */
    zq_ws_url_t url;
    zq_rand_t rand;                   /* masking keys (§5.3); ws keeps a copy too */
    bool want_write;                  /* writable interest set on the loop */
    char why[224];                    /* a reason built at open, e.g. with the HTTP status */
    char reason[WS_MAX_CONTROL_PAYLOAD]; /* the close reason handed to on_closed */
    ws_conn_t ws;
} zq_ws_client_t;

/**
 * Resolves the URL's host if needed (zq_posix_resolve(); when a name's first address refuses, its
 * first address of the other family is tried), connects (at most @p timeout_ms), does the
 * opening handshake (§4.1, a fresh random Sec-WebSocket-Key; at most @p timeout_ms more), and
 * adds the socket to @p loop. @p cb is copied; @p loop, @p ctx and @p c are borrowed while open.
 * Opening reads nothing past the server's handshake answer: frames that followed it are read
 * by the loop and reach on_text from there, never during this call.
 * @param why set on failure to a reason in English (static, or in @p c until its next open).
 * For `wss://` the TLS handshake comes between the two (same timeout).
 * @return ZQ_OK; ZQ_ERR_NOT_FOUND (the name does not resolve); ZQ_ERR_IO (connection refused or
 *         unreachable, or the server closed during the handshake); ZQ_ERR_TIMEOUT;
 *         ZQ_ERR_INTEGRITY (wss: the server's certificate was refused, *why says why);
 *         ZQ_ERR_CRYPTO (wss: no CA bundle, or TLS failed);
 *         ZQ_ERR_MALFORMED (the answer was not a WebSocket upgrade: *why names its status,
 *         e.g. "the server answered 404 Not Found, not a WebSocket upgrade"); ZQ_ERR_CAPACITY
 *         (the loop watches ZQ_LOOP_MAX_FDS fds already); ZQ_ERR_STATE if @p c is open.
 */
zq_err_t zq_ws_client_open(zq_ws_client_t *c, zq_loop_t *loop, const zq_ws_url_t *url,
                           const zq_ws_client_callbacks_t *cb, void *ctx, uint32_t timeout_ms,
                           const char **why);

/**
 * Queues one text message (valid UTF-8) and writes out what the socket takes.
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK if the output buffer is full (the loop drains it; retry
 *         later); ZQ_ERR_TOO_LONG beyond ZQ_WS_TX_BUFFER; ZQ_ERR_INVALID_ARG for text that is
 *         not UTF-8; ZQ_ERR_CLOSED if the client is not open.
 */
zq_err_t zq_ws_client_send_text(zq_ws_client_t *c, const char *text, size_t len);

bool zq_ws_client_is_open(const zq_ws_client_t *c);

/** Sends a close (1000) if it can, writes what the socket takes at once, stops watching the
 *  socket and closes it. on_closed is not called. Nothing happens if @p c is closed. */
void zq_ws_client_close(zq_ws_client_t *c);

#endif /* ZQ_PORT_POSIX_WS_CLIENT_H */

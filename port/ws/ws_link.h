/**
 * @file ws_link.h
 * @brief The byte stream under a WebSocket client: a TCP socket, or TLS over one (`wss://`,
 *        stack/tls/tls_client.h), with the same calls for both.
 *
 * The TLS session is sans-IO; this file moves its ciphertext to and from the socket. Reads
 * hand out plaintext; a write takes what TLS accepts and flushes what the socket takes.
 */
#ifndef ZQ_PORT_WS_WS_LINK_H
#define ZQ_PORT_WS_WS_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port/zq_port.h"
#include "stack/tls/tls_client.h"
#include "zq/err.h"

typedef struct {
    zq_socket_t sock;
    tls_session_t *tls; /**< NULL: plain ws:// */
} zq_ws_link_t;

/** Starts TLS as a client of @p host on @p l->tls (caller-allocated), not yet handshaking.
 *  @return ZQ_OK; ZQ_ERR_CRYPTO with *why. */
zq_err_t zq_ws_link_tls_begin(zq_ws_link_t *l, tls_client_config_t *cfg, const char *host,
                              const char **why);

/**
 * The handshake as far as the socket allows now, never waiting: for a caller on a poll loop,
 * at each readiness of the socket.
 * @return ZQ_OK once the session is open (its last flight may still wait: see
 *         zq_ws_link_pending_output()); ZQ_ERR_WOULD_BLOCK (wait for the socket: to write if
 *         output is pending, else to read); ZQ_ERR_IO (the socket failed or closed);
 *         ZQ_ERR_INTEGRITY (the certificate was refused); ZQ_ERR_CRYPTO. *why says which.
 */
zq_err_t zq_ws_link_tls_step(zq_ws_link_t *l, const char **why);

/**
 * The TLS handshake on a connected socket, by @p deadline (zq_port_now_ms()), waiting.
 * @return ZQ_OK; ZQ_ERR_TIMEOUT; ZQ_ERR_IO (the socket failed or closed); ZQ_ERR_INTEGRITY (the
 *         certificate was refused: *why says why); ZQ_ERR_CRYPTO.
 */
zq_err_t zq_ws_link_tls_handshake(zq_ws_link_t *l, tls_client_config_t *cfg, const char *host,
                                  uint64_t deadline, const char **why);

/** Waits until the link can be read (decrypted bytes may already wait in TLS: then at once)
 *  or written. */
zq_err_t zq_ws_link_wait(const zq_ws_link_t *l, bool write, uint64_t deadline);

/** Sends from @p data; @p sent may be short. @return ZQ_OK, ZQ_ERR_WOULD_BLOCK (nothing
 *  taken), or the error that ends the link. */
zq_err_t zq_ws_link_send(zq_ws_link_t *l, const uint8_t *data, size_t len, size_t *sent);

/** Receives plaintext. @return ZQ_OK with @p got > 0; ZQ_ERR_WOULD_BLOCK; ZQ_ERR_CLOSED (the
 *  peer ended the stream); another error that ends the link. */
zq_err_t zq_ws_link_recv(zq_ws_link_t *l, uint8_t *buf, size_t cap, size_t *got);

/** Writes pending TLS output the socket takes. @return ZQ_OK (none left), ZQ_ERR_WOULD_BLOCK
 *  (some left), or the socket's error. */
zq_err_t zq_ws_link_flush(zq_ws_link_t *l);

/** True if TLS output waits to be sent. */
bool zq_ws_link_pending_output(const zq_ws_link_t *l);

/** Sends TLS's close_notify if it can, then frees the session (not the socket). */
void zq_ws_link_end_tls(zq_ws_link_t *l);

#endif /* ZQ_PORT_WS_WS_LINK_H */

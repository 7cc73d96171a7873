/**
 * @file ws_socket.h
 * @brief The socket side of a WebSocket client over port/zq_port.h's TCP, shared by
 *        port/posix's ws_client.c and the devices' ws_device.c (port/esp32, port/lwip): the
 *        connect and the opening handshake, each bounded by a timeout, and writing a
 *        connection's output as the socket takes it.
 *
 * Each user keeps what differs: its URL form, how it resolves names, and how the open
 * connection is driven (the POSIX loop's callbacks, a device runner's service calls).
 */
#ifndef ZQ_PORT_WS_WS_SOCKET_H
#define ZQ_PORT_WS_WS_SOCKET_H

#include <stddef.h>
#include <stdint.h>

#include "port/ws/ws_link.h"
#include "port/zq_port.h"
#include "signal/ws.h"
#include "zq/addr.h"
#include "zq/err.h"
#include "zq/rand.h"

/** Where a client's upgrade request goes: the URL's host (IPv6 without brackets), port and
 *  request-target. */
typedef struct {
    const char *host;
    uint16_t port;
    const char *path;
} zq_ws_socket_target_t;

/** Connects to @p addr, at most @p timeout_ms. @param why set on failure to a static reason.
 *  @return ZQ_OK; ZQ_ERR_TIMEOUT; ZQ_ERR_IO (refused or unreachable). */
zq_err_t zq_ws_socket_connect(const zq_addr_t *addr, uint32_t timeout_ms, zq_socket_t *sock,
                           const char **why);

/**
 * Sends the upgrade request (RFC 6455 §4.1, a fresh Sec-WebSocket-Key from @p rand) on @p link
 * (TCP, or TLS already open on it) and reads the server's answer, at most @p timeout_ms in all.
 * Nothing past the answer's head is read: frames that followed it stay in the socket (or in
 * TLS's decrypted input) for the caller's first read.
 * @param scratch holds the request, then the answer's head (its size bounds both).
 * @param why_buf set with the HTTP status when the server refuses the upgrade.
 * @param why set on failure to a reason in English (static, or @p why_buf).
 * @return ZQ_OK; ZQ_ERR_TIMEOUT; ZQ_ERR_IO (the server closed the connection); ZQ_ERR_MALFORMED
 *         (not a WebSocket upgrade); ZQ_ERR_CRYPTO (the random source failed).
 */
zq_err_t zq_ws_socket_handshake(zq_ws_link_t *link, const zq_ws_socket_target_t *to,
                                zq_rand_t *rand, uint32_t timeout_ms, char *scratch,
                                size_t scratch_cap, char *why_buf, size_t why_cap,
                                const char **why);

/** Writes @p ws's output as far as @p link takes it now. @return ZQ_OK (all written);
 *  ZQ_ERR_WOULD_BLOCK (some waits for the socket to be writable); an error of
 *  zq_ws_link_send(). */
zq_err_t zq_ws_socket_flush(ws_conn_t *ws, zq_ws_link_t *link);

/** Queues a text message on @p ws (making room by writing first if needed) and writes what
 *  @p link takes. @return as ws_send_text(), with ZQ_ERR_CLOSED for a connection not open. */
zq_err_t zq_ws_socket_send_text(ws_conn_t *ws, zq_ws_link_t *link, const char *text,
                                size_t len);

#endif /* ZQ_PORT_WS_WS_SOCKET_H */

/**
 * @file ws_device.h
 * @brief A device's WebSocket client to the signalling server (port/esp32, port/lwip): a
 *        `ws://` or `wss://` URL, a bounded connect, TLS handshake and opening handshake, then
 *        signal/ws.h's sans-IO connection over the port's TCP (port/ws/ws_link.h: plain, or
 *        TLS), serviced by the device's runner.
 *
 * The same job as port/posix/ws_client.c, without a loop object: the runner asks whether the
 * socket needs watching for writes, and calls zq_device_ws_service() when it is ready (the
 * ESP32's select(), or every turn of an lwIP board's loop). The runner resolves the host: a
 * name through its resolver, an address literal through zq_addr_parse_ip(). IPv4 only.
 *
 * `wss://` needs an mbedTLS configuration with TLS (config/zq_mbedtls_tls.h, ZQ_MBEDTLS_TLS:
 * the lwIP firmware's zq_firmware_wss image) and a trust store from the runner
 * (stack/tls/tls_client.h: the server's chain, name and dates are checked, and optionally its
 * key pinned). Without that configuration a `wss://` URL is refused with a reason, and the
 * connection holds no TLS session (tls_session_t, ~9 KiB).
 */
#ifndef ZQ_PORT_WS_WS_DEVICE_H
#define ZQ_PORT_WS_WS_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port/ws/ws_link.h"
#include "port/zq_port.h"
#include "signal/ws.h"
#include "stack/tls/tls_client.h"
#include "zq/addr.h"

typedef struct {
    bool secure;    /**< wss://: TLS to the server, its certificate checked against @c host */
    char host[96];  /**< a name or a dotted IPv4 address */
    uint16_t port;  /**< 80 (443 for wss://) if the URL names none (RFC 6455 §3) */
    char path[96];  /**< request-target, "/" if the URL has none */
} zq_device_url_t;

/** Parses `ws://` or `wss://host[:port][/path]` with signal/ws_url.h's rules, into this port's
 *  buffers. @param why a static reason on failure.
 *  @return ZQ_OK, ZQ_ERR_UNSUPPORTED (wss:// in a build without TLS, IPv6 literals),
 *          ZQ_ERR_MALFORMED, ZQ_ERR_TOO_LONG. */
zq_err_t zq_device_url_parse(const char *url, zq_device_url_t *out, const char **why);

typedef struct {
    bool open;
    zq_ws_link_t link;   /* the socket, and the TLS session over it for wss:// */
    zq_rand_t rand;      /* masking keys (§5.3) */
    char why[224];       /* a reason built at open: the server's HTTP status, TLS's refusal */
    ws_conn_t ws;        /* large: ZQ_WS_MAX_MESSAGE + ZQ_WS_TX_BUFFER */
#if defined(ZQ_MBEDTLS_TLS)
    tls_session_t tls;   /* wss:// (~9 KiB, and mbedTLS's from the arena while open) */
#endif
} zq_device_ws_t;

/** Called with each whole text message (@p text lives during the call). */
typedef void (*zq_device_ws_text_fn)(void *ctx, uint64_t now, const char *text, size_t len);

/**
 * Connects to @p addr (the URL's host, resolved by the caller, and its port), then for
 * `wss://` does the TLS handshake (its certificate checked against @p trust and the URL's
 * host), then the opening handshake (§4.1), each bounded by @p timeout_ms; the only calls here
 * that wait. Nothing past the server's answer is read: frames that followed it wait in the
 * socket, or decrypted in TLS (zq_device_ws_has_input()), for the first service.
 * @param trust the trust store for `wss://` (read-only, shared by every open; it must outlive
 *        the connection); NULL for `ws://`.
 * @param why set on failure to a reason (static, or in @p c until its next open).
 * @return ZQ_OK; ZQ_ERR_TIMEOUT; ZQ_ERR_IO (refused, or closed during a handshake);
 *         ZQ_ERR_MALFORMED (not a WebSocket upgrade); ZQ_ERR_INTEGRITY (the server's
 *         certificate was refused); ZQ_ERR_CRYPTO (TLS failed otherwise, or no trust store).
 */
zq_err_t zq_device_ws_open(zq_device_ws_t *c, const zq_device_url_t *url, const zq_addr_t *addr,
                           tls_client_config_t *trust, uint32_t timeout_ms, const char **why);

/** Whether output waits for the socket to take it (watch it for writing). */
bool zq_device_ws_wants_write(zq_device_ws_t *c);

/** Whether decrypted bytes wait in TLS, which leave the socket unreadable: service the
 *  connection without waiting on the socket. Never for `ws://`. */
bool zq_device_ws_has_input(const zq_device_ws_t *c);

/**
 * Reads what the socket has (when @p readable), hands each text message to @p on_text, and
 * writes what output the socket takes.
 * @return ZQ_OK while open; ZQ_ERR_CLOSED once the connection is over (the socket is closed,
 *         @p code says why: the server's close code, or 1006 when TCP just ended).
 */
zq_err_t zq_device_ws_service(zq_device_ws_t *c, uint64_t now, bool readable,
                              zq_device_ws_text_fn on_text, void *ctx, uint16_t *code);

/** Queues a text message and writes what the socket takes. @return ZQ_OK,
 *  ZQ_ERR_WOULD_BLOCK (retry after the output drains), ZQ_ERR_TOO_LONG, ZQ_ERR_CLOSED. */
zq_err_t zq_device_ws_send_text(zq_device_ws_t *c, const char *text, size_t len);

/** Sends a close (1000) if it fits and closes the socket; nothing if closed already. */
void zq_device_ws_close(zq_device_ws_t *c);

#endif /* ZQ_PORT_WS_WS_DEVICE_H */

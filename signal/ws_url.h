/**
 * @file ws_url.h
 * @brief The one `ws://` URL parser (RFC 6455 §3), sans-IO: both WebSocket clients (POSIX and
 *        ESP32) cut the signalling server's URL with it, then copy the parts into buffers of
 *        their own size.
 *
 *   ws-URI = "ws:" "//" host [ ":" port ] path [ "?" query ]
 *
 * @code
 * ws_url_t u;
 * const char *why;
 * if (ws_url_parse(text, strlen(text), &u, &why) != ZQ_OK) die(why);
 * char host[96], target[96];
 * if (ws_url_copy_host(&u, host, sizeof host) != ZQ_OK ||
 *     ws_url_copy_target(&u, target, sizeof target) != ZQ_OK) die("too long");
 * @endcode
 */
#ifndef ZQ_SIGNAL_WS_URL_H
#define ZQ_SIGNAL_WS_URL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/addr.h"
#include "zq/err.h"

/** A `ws://` or `wss://` URL's parts. The spans borrow the parsed text: it must outlive them. */
typedef struct {
    bool secure;        /**< wss://: TLS under the WebSocket (RFC 6455 §3) */
    const char *host;   /**< as written, an IPv6 address without its brackets */
    size_t host_len;    /**< 1 or more */
    uint16_t port;      /**< 1-65535; 80 (443 for wss://) when the URL names none (§3) */
    zq_addr_t addr;     /**< a numeric host's address, with the port; else ZQ_AF_NONE */
    const char *target; /**< path and query as written, visible ASCII; may be empty */
    size_t target_len;
} ws_url_t;

/**
 * Parses @p url[0..@p len). The scheme is case-insensitive (RFC 3986 §3.1); the host is a name
 * (letters, digits, '-', '.', '_'), an IPv4 address or an [IPv6] address. Refused: a fragment
 * (RFC 6455 §3), user information, an empty host, a port outside 1-65535, and a path with
 * spaces or control characters (RFC 9112 §3.2).
 * @param why set on failure to a static English reason; may be NULL.
 * @return ZQ_OK; ZQ_ERR_MALFORMED otherwise. @p out is meaningful only on ZQ_OK; its secure
 *         flag says the scheme was `wss://` (the client must then speak TLS, or refuse).
 */
zq_err_t ws_url_parse(const char *url, size_t len, ws_url_t *out, const char **why);

/** The host as a C string in @p out[@p cap]. @return ZQ_OK, or ZQ_ERR_TOO_LONG (then "" ). */
zq_err_t ws_url_copy_host(const ws_url_t *u, char *out, size_t cap);

/** The request-target as a C string in @p out[@p cap]: the path and query, with the "/" that
 *  an empty path stands for. @return ZQ_OK, or ZQ_ERR_TOO_LONG (then ""). */
zq_err_t ws_url_copy_target(const ws_url_t *u, char *out, size_t cap);

#endif /* ZQ_SIGNAL_WS_URL_H */

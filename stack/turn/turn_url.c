/* STUN and TURN server URIs (RFC 7064 §3.1, RFC 7065 §3.1), as RTCIceServer.urls carries them:
 *
 *   stun:host[:port]    turn:host[:port][?transport=udp|tcp]    turns:host[:port][?transport=tcp]
 *
 * The host must be an IP literal ([v6] in brackets): this layer resolves nothing. */
#include <string.h>

#include "stack/turn/turn.h"
#include "zq/text.h"

static bool starts_with(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

/* RFC 7065 §3.1: transport is "udp" / "tcp" / transport-ext; only the two are known. */
static zq_err_t parse_query(const char *q, size_t len, turn_url_t *out)
{
    static const char key[] = "transport=";
    if (!starts_with(q, len, key)) {
        return ZQ_ERR_MALFORMED;
    }
    q += sizeof key - 1;
    len -= sizeof key - 1;
    if (len == 3 && memcmp(q, "udp", 3) == 0) {
        out->transport = TURN_PROTOCOL_UDP;
    } else if (len == 3 && memcmp(q, "tcp", 3) == 0) {
        out->transport = TURN_PROTOCOL_TCP;
    } else {
        return ZQ_ERR_UNSUPPORTED;
    }
    return ZQ_OK;
}

/* host[:port]: an IPv4 literal, or an IPv6 one in brackets (RFC 3986 §3.2.2). */
static zq_err_t parse_host_port(const char *s, size_t len, uint16_t default_port, zq_addr_t *out)
{
    const char *host = s;
    size_t host_len = len;
    const char *port = NULL;
    if (len > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', len);
        if (close == NULL) {
            return ZQ_ERR_MALFORMED;
        }
        host = s + 1;
        host_len = (size_t)(close - host);
        port = close + 1 < s + len ? close + 1 : NULL;
        if (port != NULL && *port != ':') {
            return ZQ_ERR_MALFORMED;
        }
    } else {
        port = memchr(s, ':', len);
        host_len = port != NULL ? (size_t)(port - s) : len;
    }
    if (host_len == 0) {
        return ZQ_ERR_MALFORMED;
    }
    if (zq_addr_parse_ip(host, host_len, out) != ZQ_OK) {
        return ZQ_ERR_UNSUPPORTED; /* a name: the caller resolves it, or skips the server */
    }
    out->port = default_port;
    if (port == NULL) {
        return ZQ_OK;
    }
    port++; /* past ':' */
    uint64_t value;
    if (zq_parse_udec(port, (size_t)(s + len - port), 65535, &value) != ZQ_OK || value == 0) {
        return ZQ_ERR_MALFORMED;
    }
    out->port = (uint16_t)value;
    return ZQ_OK;
}

zq_err_t turn_url_parse(const char *url, size_t len, turn_url_t *out)
{
    turn_url_t u = {.transport = TURN_PROTOCOL_UDP};
    size_t skip;
    uint16_t default_port;
    if (url == NULL || out == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (starts_with(url, len, "stun:")) {
        u.scheme = TURN_URL_STUN, skip = 5, default_port = 3478;
    } else if (starts_with(url, len, "turn:")) {
        u.scheme = TURN_URL_TURN, skip = 5, default_port = 3478;
    } else if (starts_with(url, len, "turns:")) {
        /* RFC 7065 §3.1: turns is TLS, over TCP unless transport says otherwise */
        u.scheme = TURN_URL_TURNS, skip = 6, default_port = 5349, u.transport = TURN_PROTOCOL_TCP;
    } else {
        return ZQ_ERR_UNSUPPORTED;
    }
    const char *rest = url + skip;
    size_t rest_len = len - skip;
    const char *q = memchr(rest, '?', rest_len);
    size_t hp_len = q != NULL ? (size_t)(q - rest) : rest_len;
    if (q != NULL && u.scheme == TURN_URL_STUN) {
        return ZQ_ERR_MALFORMED; /* RFC 7064 §3.1: a stun URI has no query */
    }
    zq_err_t err = parse_host_port(rest, hp_len, default_port, &u.server);
    if (err == ZQ_OK && q != NULL) {
        err = parse_query(q + 1, (size_t)(rest + rest_len - q - 1), &u);
    }
    if (err == ZQ_OK) {
        *out = u;
    }
    return err;
}

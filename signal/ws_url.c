/* The ws:// URL (see ws_url.h): scheme, authority, request-target, each checked in turn. */
#include "signal/ws_url.h"

#include <string.h>

#include "zq/ascii.h"
#include "zq/text.h"

#define WS_DEFAULT_PORT 80   /* RFC 6455 §3 */
#define WSS_DEFAULT_PORT 443 /* RFC 6455 §3 */

/* RFC 3986 §3.1: schemes are case-insensitive. */
static bool has_prefix_nocase(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    if (len < n) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (zq_ascii_lower(s[i]) != prefix[i]) {
            return false;
        }
    }
    return true;
}

static zq_err_t parse_scheme(const char *url, size_t len, ws_url_t *out, size_t *skip,
                             const char **why)
{
    if (has_prefix_nocase(url, len, "ws://")) {
        *skip = 5;
        return ZQ_OK;
    }
    if (has_prefix_nocase(url, len, "wss://")) {
        out->secure = true;
        *skip = 6;
        return ZQ_OK;
    }
    *why = "a WebSocket URL starts with ws:// or wss://";
    return ZQ_ERR_MALFORMED;
}

/* A registered name (RFC 3986 §3.2.2) as DNS spells it: letters, digits, '-', '.', '_'. */
static bool name_ok(const char *host, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char ch = host[i];
        if (!zq_ascii_is_alpha(ch) && !zq_ascii_is_digit(ch) && ch != '-' && ch != '.' &&
            ch != '_') {
            return false;
        }
    }
    return true;
}

/* Splits "host[:port]" or "[v6][:port]" into the host and its port text (NULL: no port). */
static zq_err_t split_host(const char *auth, size_t len, ws_url_t *out, const char **port,
                           const char **why)
{
    const char *end = auth + len;
    *port = NULL;
    if (len > 0 && auth[0] == '[') {
        const char *close = memchr(auth, ']', len);
        if (close == NULL || (close + 1 != end && close[1] != ':')) {
            *why = "an IPv6 host is written [address] or [address]:port";
            return ZQ_ERR_MALFORMED;
        }
        out->host = auth + 1;
        out->host_len = (size_t)(close - out->host);
        *port = close + 1 != end ? close + 2 : NULL;
        return ZQ_OK;
    }
    const char *colon = memchr(auth, ':', len);
    out->host = auth;
    out->host_len = colon != NULL ? (size_t)(colon - auth) : len;
    if (colon != NULL && memchr(colon + 1, ':', (size_t)(end - colon - 1)) != NULL) {
        *why = "an IPv6 host must be in brackets: ws://[::1]:8080";
        return ZQ_ERR_MALFORMED;
    }
    *port = colon != NULL ? colon + 1 : NULL;
    return ZQ_OK;
}

/* A numeric host gets its address now; a name is the client's to resolve. */
static zq_err_t check_host(ws_url_t *out, bool bracketed, const char **why)
{
    if (out->host_len == 0) {
        *why = "the URL has no host";
        return ZQ_ERR_MALFORMED;
    }
    zq_addr_t ip;
    bool numeric = zq_addr_parse_ip(out->host, out->host_len, &ip) == ZQ_OK;
    if (bracketed && (!numeric || ip.family != ZQ_AF_INET6)) {
        *why = "the host in brackets is not an IPv6 address";
        return ZQ_ERR_MALFORMED;
    }
    if (!numeric && !name_ok(out->host, out->host_len)) {
        *why = "the host has characters a host name cannot have";
        return ZQ_ERR_MALFORMED;
    }
    if (numeric) {
        out->addr = ip;
    }
    return ZQ_OK;
}

static zq_err_t parse_port(const char *text, size_t len, uint16_t *port, const char **why)
{
    if (zq_parse_port(text, len, port) != ZQ_OK || *port == 0) {
        *why = "the port must be 1-65535";
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

static zq_err_t parse_authority(const char *auth, size_t len, ws_url_t *out, const char **why)
{
    if (memchr(auth, '@', len) != NULL) {
        *why = "user information (user@host) is not supported in a ws:// URL";
        return ZQ_ERR_MALFORMED;
    }
    const char *port;
    zq_err_t err = split_host(auth, len, out, &port, why);
    if (err == ZQ_OK) {
        err = check_host(out, len > 0 && auth[0] == '[', why);
    }
    if (err != ZQ_OK) {
        return err;
    }
    out->port = out->secure ? WSS_DEFAULT_PORT : WS_DEFAULT_PORT;
    if (port != NULL) {
        err = parse_port(port, (size_t)(auth + len - port), &out->port, why);
    }
    out->addr.port = out->port;
    return err;
}

/* The request-target: visible ASCII only (RFC 9112 §3.2), and no fragment (RFC 6455 §3). */
static zq_err_t parse_target(const char *p, size_t len, ws_url_t *out, const char **why)
{
    if (memchr(p, '#', len) != NULL) {
        *why = "a WebSocket URL has no fragment (RFC 6455 §3)";
        return ZQ_ERR_MALFORMED;
    }
    for (size_t i = 0; i < len; i++) {
        if (p[i] < 0x21 || p[i] > 0x7E) {
            *why = "the path has spaces or control characters";
            return ZQ_ERR_MALFORMED;
        }
    }
    out->target = p;
    out->target_len = len;
    return ZQ_OK;
}

/* The authority ends at the first '/', '?' or '#' (RFC 3986 §3.2). */
static size_t authority_len(const char *s, size_t len)
{
    size_t n = 0;
    while (n < len && s[n] != '/' && s[n] != '?' && s[n] != '#') {
        n++;
    }
    return n;
}

zq_err_t ws_url_parse(const char *url, size_t len, ws_url_t *out, const char **why)
{
    static const char *ignored;
    if (why == NULL) {
        why = &ignored;
    }
    memset(out, 0, sizeof *out);
    size_t at = 0;
    zq_err_t err = parse_scheme(url, len, out, &at, why);
    if (err != ZQ_OK) {
        return err;
    }
    size_t auth_len = authority_len(url + at, len - at);
    err = parse_authority(url + at, auth_len, out, why);
    if (err == ZQ_OK) {
        at += auth_len;
        err = parse_target(url + at, len - at, out, why);
    }
    return err;
}

static zq_err_t copy_end(zq_writer_t *w)
{
    bool fits = !w->failed;
    (void)zq_text_end(w);
    return fits ? ZQ_OK : ZQ_ERR_TOO_LONG;
}

zq_err_t ws_url_copy_host(const ws_url_t *u, char *out, size_t cap)
{
    zq_writer_t w = zq_text_writer(out, cap);
    zq_write_bytes(&w, u->host, u->host_len);
    return copy_end(&w);
}

zq_err_t ws_url_copy_target(const ws_url_t *u, char *out, size_t cap)
{
    zq_writer_t w = zq_text_writer(out, cap);
    if (u->target_len == 0 || u->target[0] != '/') {
        zq_write_char(&w, '/'); /* "ws://h" and "ws://h?q" ask for "/" and "/?q" */
    }
    zq_write_bytes(&w, u->target, u->target_len);
    return copy_end(&w);
}

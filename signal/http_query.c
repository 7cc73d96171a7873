/* A request's query parameters (RFC 3986 §3.4): "name=value" pairs split by '&', each value
 * percent-decoded (§2.1) into the caller's buffer. The walk is bounded by the query's length;
 * nothing is kept. A '+' stays a '+': it means a space only in HTML form bodies. */
#include <string.h>

#include "signal/http.h"
#include "signal/http_internal.h"
#include "zq/hex.h"

int http_percent_next(const char *s, size_t len, size_t *i)
{
    if (s[*i] != '%') {
        return (uint8_t)s[(*i)++];
    }
    if (len - *i < 3) {
        *i = len;
        return -1;
    }
    int hi = zq_hex_digit(s[*i + 1]), lo = zq_hex_digit(s[*i + 2]);
    *i += 3;
    return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
}

/* The value s[0..len) decoded into out (NUL-terminated); a decoded NUL or control character
 * is refused, as no parameter zq reads may hold one. */
static zq_err_t decode_value(const char *s, size_t len, char *out, size_t cap, size_t *out_len)
{
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        int c = http_percent_next(s, len, &i);
        if (c < 0x20 || c == 0x7F) {
            return ZQ_ERR_MALFORMED;
        }
        if (n + 1 >= cap) {
            return ZQ_ERR_TOO_LONG;
        }
        out[n++] = (char)c;
    }
    out[n] = '\0';
    *out_len = n;
    return ZQ_OK;
}

zq_err_t http_query_param(const http_request_t *req, const char *name, char *out, size_t cap,
                          size_t *out_len)
{
    size_t name_len = strlen(name);
    if (cap == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    out[0] = '\0';
    const char *p = req->query;
    const char *end = p != NULL ? p + req->query_len : NULL;
    while (p != NULL && p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp != NULL ? amp : end;
        size_t n = (size_t)(stop - p);
        if (n > name_len && p[name_len] == '=' && memcmp(p, name, name_len) == 0) {
            return decode_value(p + name_len + 1, n - name_len - 1, out, cap, out_len);
        }
        p = amp != NULL ? amp + 1 : NULL;
    }
    return ZQ_ERR_NOT_FOUND;
}

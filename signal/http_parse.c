/* HTTP/1.1 message heads (RFC 9112 §2-§6): a line-by-line walk over at most
 * ZQ_HTTP_MAX_REQUEST bytes. Each complete line is checked as soon as it is there, so garbage
 * is refused early instead of after the whole limit has been read. */
#include <string.h>

#include "signal/http.h"
#include "signal/http_internal.h"
#include "zq/ascii.h"
#include "zq/base64.h"
#include "zq/text.h"

bool http_is_tchar(char c)
{
    if (zq_ascii_is_alpha(c) || zq_ascii_is_digit(c)) {
        return true;
    }
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

bool http_ascii_ieq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (zq_ascii_lower(a[i]) != zq_ascii_lower(b[i])) {
            return false;
        }
    }
    return true;
}

static bool is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* RFC 9110 §5.5: field-vchar = VCHAR / obs-text, with SP and HTAB between. */
static bool is_field_char(char c)
{
    uint8_t b = (uint8_t)c;
    return b == '\t' || (b >= 0x20 && b != 0x7F);
}

/* ---- Lines (§2.2) ------------------------------------------------------------------------- */

typedef struct {
    const char *buf; /* start of the message */
    const char *p;   /* next line */
    const char *end; /* min(len, ZQ_HTTP_MAX_REQUEST) */
    bool capped;     /* the input was cut at ZQ_HTTP_MAX_REQUEST */
} lines_t;

static lines_t lines_start(const char *buf, size_t len)
{
    lines_t l = {buf, buf, buf + (len < ZQ_HTTP_MAX_REQUEST ? len : ZQ_HTTP_MAX_REQUEST),
                 len >= ZQ_HTTP_MAX_REQUEST};
    return l;
}

/* The next line without its CRLF. A lone CR or LF is refused: they are how requests are
 * smuggled past a proxy that splits lines differently. */
static zq_err_t next_line(lines_t *l, const char **line, size_t *line_len)
{
    for (const char *q = l->p; q < l->end; q++) {
        if (*q == '\n') {
            return ZQ_ERR_MALFORMED;
        }
        if (*q != '\r') {
            continue;
        }
        if (q + 1 == l->end) {
            break;
        }
        if (q[1] != '\n') {
            return ZQ_ERR_MALFORMED;
        }
        *line = l->p;
        *line_len = (size_t)(q - l->p);
        l->p = q + 2;
        return ZQ_OK;
    }
    return l->capped ? ZQ_ERR_TOO_LONG : ZQ_ERR_NEED_MORE;
}

/* ---- Field lines (§5) --------------------------------------------------------------------- */

zq_err_t http_parse_field(const char *line, size_t len, http_header_t *out)
{
    size_t colon = 0;
    while (colon < len && http_is_tchar(line[colon])) {
        colon++;
    }
    /* §5.1: no whitespace between name and colon; §5.2: a leading space is obs-fold. */
    if (colon == 0 || colon == len || line[colon] != ':') {
        return ZQ_ERR_MALFORMED;
    }
    size_t v = colon + 1, v_end = len;
    while (v < v_end && is_ows(line[v])) {
        v++;
    }
    while (v_end > v && is_ows(line[v_end - 1])) {
        v_end--;
    }
    for (size_t i = v; i < v_end; i++) {
        if (!is_field_char(line[i])) {
            return ZQ_ERR_MALFORMED;
        }
    }
    out->name = line;
    out->name_len = colon;
    out->value = line + v;
    out->value_len = v_end - v;
    return ZQ_OK;
}

/* Field lines up to the blank line that ends the head. */
static zq_err_t parse_fields(lines_t *l, http_header_t *headers, size_t *n, size_t *head_len)
{
    *n = 0;
    for (;;) {
        const char *line;
        size_t len;
        zq_err_t err = next_line(l, &line, &len);
        if (err != ZQ_OK) {
            return err;
        }
        if (len == 0) {
            *head_len = (size_t)(l->p - l->buf);
            return ZQ_OK;
        }
        if (*n == ZQ_HTTP_MAX_HEADERS) {
            return ZQ_ERR_TOO_LONG;
        }
        err = http_parse_field(line, len, &headers[*n]);
        if (err != ZQ_OK) {
            return err;
        }
        (*n)++;
    }
}

/* §2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive. */
static zq_err_t parse_version(const char *s, size_t len, uint8_t *minor)
{
    if (len != 8 || memcmp(s, "HTTP/", 5) != 0 || s[6] != '.' || s[5] < '0' || s[5] > '9' ||
        s[7] < '0' || s[7] > '9') {
        return ZQ_ERR_MALFORMED;
    }
    *minor = (uint8_t)(s[7] - '0');
    return s[5] == '1' ? ZQ_OK : ZQ_ERR_UNSUPPORTED;
}

/* ---- Requests (§3) ------------------------------------------------------------------------ */

/* request-target characters: visible ASCII; anything else must be percent-encoded. */
static bool target_chars_ok(const char *t, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (t[i] < 0x21 || t[i] > 0x7E || t[i] == '#') {
            return false;
        }
    }
    return len > 0;
}

/* §3.2.1 origin-form: absolute-path [ "?" query ]. */
static void split_query(http_request_t *req, const char *t, size_t len)
{
    const char *q = memchr(t, '?', len);
    req->path = t;
    req->path_len = q != NULL ? (size_t)(q - t) : len;
    req->query = q != NULL ? q + 1 : NULL;
    req->query_len = q != NULL ? len - req->path_len - 1 : 0;
}

/* §3.2.2 absolute-form "http://authority/path?query": a server must accept it; only the path
 * and query matter here. */
static bool split_absolute(http_request_t *req, const char *t, size_t len)
{
    size_t skip = len >= 7 && http_ascii_ieq(t, "http://", 7)    ? 7
                  : len >= 8 && http_ascii_ieq(t, "https://", 8) ? 8
                                                                 : 0;
    if (skip == 0) {
        return false;
    }
    size_t i = skip;
    while (i < len && t[i] != '/' && t[i] != '?') {
        i++;
    }
    if (i == skip) {
        return false; /* no authority */
    }
    if (i == len || t[i] == '?') {
        split_query(req, t + i, len - i);
        req->path = "/"; /* §3.2.2: an empty path means "/" */
        req->path_len = 1;
        return true;
    }
    split_query(req, t + i, len - i);
    return true;
}

static zq_err_t parse_target(http_request_t *req, const char *t, size_t len)
{
    if (!target_chars_ok(t, len)) {
        return ZQ_ERR_MALFORMED;
    }
    if (t[0] == '/') {
        split_query(req, t, len);
        return ZQ_OK;
    }
    /* §3.2.4: asterisk-form only for OPTIONS. */
    if (len == 1 && t[0] == '*' && req->method_len == 7 &&
        memcmp(req->method, "OPTIONS", 7) == 0) {
        split_query(req, t, len);
        return ZQ_OK;
    }
    return split_absolute(req, t, len) ? ZQ_OK : ZQ_ERR_MALFORMED;
}

/* §3: request-line = method SP request-target SP HTTP-version */
static zq_err_t parse_request_line(http_request_t *req, const char *line, size_t len)
{
    const char *sp1 = memchr(line, ' ', len);
    if (sp1 == NULL) {
        return ZQ_ERR_MALFORMED;
    }
    size_t rest = len - (size_t)(sp1 + 1 - line);
    const char *sp2 = memchr(sp1 + 1, ' ', rest);
    if (sp2 == NULL) {
        return ZQ_ERR_MALFORMED;
    }
    req->method = line;
    req->method_len = (size_t)(sp1 - line);
    for (size_t i = 0; i < req->method_len; i++) {
        if (!http_is_tchar(line[i])) {
            return ZQ_ERR_MALFORMED;
        }
    }
    if (req->method_len == 0) {
        return ZQ_ERR_MALFORMED;
    }
    zq_err_t err = parse_target(req, sp1 + 1, (size_t)(sp2 - sp1 - 1));
    if (err != ZQ_OK) {
        return err;
    }
    return parse_version(sp2 + 1, len - (size_t)(sp2 + 1 - line), &req->version_minor);
}

static size_t count_headers(const http_header_t *h, size_t n, const char *name)
{
    size_t len = strlen(name), count = 0;
    for (size_t i = 0; i < n; i++) {
        count += h[i].name_len == len && http_ascii_ieq(h[i].name, name, len);
    }
    return count;
}

zq_err_t http_parse_request(const char *buf, size_t len, http_request_t *req)
{
    if (buf == NULL || req == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(req, 0, sizeof *req);
    lines_t l = lines_start(buf, len);
    const char *line;
    size_t line_len = 0;
    zq_err_t err;
    do { /* §2.2: ignore empty lines before the request line */
        err = next_line(&l, &line, &line_len);
    } while (err == ZQ_OK && line_len == 0);
    if (err == ZQ_OK) {
        err = parse_request_line(req, line, line_len);
    }
    if (err == ZQ_OK) {
        err = parse_fields(&l, req->headers, &req->n_headers, &req->head_len);
    }
    if (err != ZQ_OK) {
        return err;
    }
    /* §3.2: an HTTP/1.1 request carries exactly one Host. */
    size_t hosts = count_headers(req->headers, req->n_headers, "Host");
    if (req->version_minor >= 1 ? hosts != 1 : hosts > 1) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

/* ---- Responses (§4) ----------------------------------------------------------------------- */

/* status-line = HTTP-version SP status-code SP [ reason-phrase ] */
static zq_err_t parse_status_line(http_response_t *res, const char *line, size_t len)
{
    /* "HTTP/1.1 101" is 12 bytes; a reason phrase, possibly empty, follows one SP. */
    if (len < 12 || line[8] != ' ' || (len > 12 && line[12] != ' ')) {
        return ZQ_ERR_MALFORMED;
    }
    zq_err_t err = parse_version(line, 8, &res->version_minor);
    if (err != ZQ_OK) {
        return err;
    }
    uint64_t code;
    if (zq_parse_udec(line + 9, 3, 599, &code) != ZQ_OK || code < 100) {
        return ZQ_ERR_MALFORMED;
    }
    res->status = (uint16_t)code;
    res->reason = len > 12 ? line + 13 : line + 12;
    res->reason_len = len > 12 ? len - 13 : 0;
    for (size_t i = 0; i < res->reason_len; i++) {
        if (!is_field_char(res->reason[i])) {
            return ZQ_ERR_MALFORMED;
        }
    }
    return ZQ_OK;
}

zq_err_t http_parse_response(const char *buf, size_t len, http_response_t *res)
{
    if (buf == NULL || res == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(res, 0, sizeof *res);
    lines_t l = lines_start(buf, len);
    const char *line;
    size_t line_len;
    zq_err_t err = next_line(&l, &line, &line_len);
    if (err == ZQ_OK) {
        err = parse_status_line(res, line, line_len);
    }
    if (err == ZQ_OK) {
        err = parse_fields(&l, res->headers, &res->n_headers, &res->head_len);
    }
    return err;
}

/* ---- Field lookups ------------------------------------------------------------------------ */

static bool find_header(const http_header_t *h, size_t n, const char *name, const char **value,
                        size_t *len)
{
    size_t name_len = strlen(name);
    for (size_t i = 0; i < n; i++) {
        if (h[i].name_len == name_len && http_ascii_ieq(h[i].name, name, name_len)) {
            *value = h[i].value;
            *len = h[i].value_len;
            return true;
        }
    }
    return false;
}

bool http_header(const http_request_t *req, const char *name, const char **value, size_t *len)
{
    return find_header(req->headers, req->n_headers, name, value, len);
}

bool http_response_header(const http_response_t *res, const char *name, const char **value,
                          size_t *len)
{
    return find_header(res->headers, res->n_headers, name, value, len);
}

/* Does the comma-separated list @p v[0..len) hold @p token? (RFC 9110 §5.6.1: empty elements
 * and OWS around them are allowed.) */
static bool list_has_token(const char *v, size_t len, const char *token, size_t token_len)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (is_ows(v[i]) || v[i] == ',')) {
            i++;
        }
        size_t start = i;
        while (i < len && v[i] != ',') {
            i++;
        }
        size_t end = i;
        while (end > start && is_ows(v[end - 1])) {
            end--;
        }
        if (end - start == token_len && http_ascii_ieq(v + start, token, token_len)) {
            return true;
        }
    }
    return false;
}

bool http_headers_have_token(const http_header_t *headers, size_t n, const char *name,
                             const char *token)
{
    size_t name_len = strlen(name), token_len = strlen(token);
    for (size_t i = 0; i < n; i++) {
        if (headers[i].name_len == name_len && http_ascii_ieq(headers[i].name, name, name_len) &&
            list_has_token(headers[i].value, headers[i].value_len, token, token_len)) {
            return true;
        }
    }
    return false;
}

bool http_path_is(const http_request_t *req, const char *path)
{
    size_t len = strlen(path);
    return req->path_len == len && memcmp(req->path, path, len) == 0;
}

zq_err_t http_content_length(const http_request_t *req, size_t *out)
{
    if (count_headers(req->headers, req->n_headers, "Transfer-Encoding") > 0) {
        return ZQ_ERR_UNSUPPORTED;
    }
    bool seen = false;
    size_t len = 0;
    for (size_t i = 0; i < req->n_headers; i++) {
        const http_header_t *h = &req->headers[i];
        if (h->name_len != 14 || !http_ascii_ieq(h->name, "Content-Length", 14)) {
            continue;
        }
        uint64_t v; /* §6.3: Content-Length = 1*DIGIT, too long past what a size_t holds */
        zq_err_t err = zq_parse_udec(h->value, h->value_len, SIZE_MAX, &v);
        if (err != ZQ_OK) {
            return err;
        }
        if (seen && v != len) {
            return ZQ_ERR_MALFORMED; /* §6.3: conflicting lengths are unrecoverable */
        }
        seen = true;
        len = (size_t)v;
    }
    *out = len;
    return ZQ_OK;
}

/* ---- WebSocket opening handshake (RFC 6455 §4.2.1) ---------------------------------------- */

static bool key_is_16_bytes(const char *key, size_t len)
{
    uint8_t raw[ZQ_BASE64_DECODED_MAX(24)];
    size_t n;
    return len == 24 && zq_base64_decode(key, len, raw, sizeof raw, &n) == ZQ_OK && n == 16;
}

bool http_is_websocket_upgrade(const http_request_t *req)
{
    const char *v;
    size_t len;
    if (req->method_len != 3 || memcmp(req->method, "GET", 3) != 0 || req->version_minor < 1 ||
        !http_headers_have_token(req->headers, req->n_headers, "Upgrade", "websocket") ||
        !http_headers_have_token(req->headers, req->n_headers, "Connection", "upgrade")) {
        return false;
    }
    if (!http_header(req, "Sec-WebSocket-Version", &v, &len) || len != 2 ||
        memcmp(v, "13", 2) != 0) {
        return false;
    }
    return count_headers(req->headers, req->n_headers, "Sec-WebSocket-Key") == 1 &&
           http_header(req, "Sec-WebSocket-Key", &v, &len) && key_is_16_bytes(v, len);
}

/* libFuzzer target for the HTTP/1.1 head parsers (RFC 9112) and the static-file helpers.
 * Whatever arrives is refused or parsed into spans inside the input; a complete head is not
 * complete one byte earlier; the safe path of any parsed path stays inside the served tree;
 * a query parameter decodes to no more bytes than its text, with no control character; and a
 * request that passes as a WebSocket upgrade gets a 101 its own client accepts. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "signal/http.h"
#include "signal/ws.h"
#include "zq/base64.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool ok)
{
    if (!ok) {
        __builtin_trap();
    }
}

static const char *base;
static size_t base_len;

static bool inside(const char *p, size_t len)
{
    return p >= base && len <= base_len && (size_t)(p - base) <= base_len - len;
}

static bool is_token(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (p[i] <= 0x20 || p[i] >= 0x7F || p[i] == ':' || p[i] == '"' || p[i] == '(') {
            return false;
        }
    }
    return len > 0;
}

static void check_headers(const http_header_t *h, size_t n, size_t head_len)
{
    require(n <= ZQ_HTTP_MAX_HEADERS);
    for (size_t i = 0; i < n; i++) {
        require(inside(h[i].name, h[i].name_len) && is_token(h[i].name, h[i].name_len));
        require(inside(h[i].value, h[i].value_len));
        require((size_t)(h[i].value + h[i].value_len - base) <= head_len);
        require(memchr(h[i].value, '\r', h[i].value_len) == NULL);
        require(memchr(h[i].value, '\n', h[i].value_len) == NULL);
    }
}

/* A sanitised path is relative, has no empty, "." or ".." segment, no backslash or control. */
static void check_safe_path(const char *path, size_t len)
{
    char out[256];
    zq_err_t err = http_safe_path(path, len, out, sizeof out);
    require(err == ZQ_OK || err == ZQ_ERR_MALFORMED || err == ZQ_ERR_NO_SPACE);
    if (err != ZQ_OK) {
        return;
    }
    size_t n = strlen(out);
    require(n > 0 && out[0] != '/' && out[n - 1] != '/');
    bool seg_start = true;
    for (size_t i = 0; i < n; i++) {
        require((uint8_t)out[i] >= 0x20 && out[i] != 0x7F && out[i] != '\\');
        require(!(seg_start && (out[i] == '.' || out[i] == '/')));
        seg_start = out[i] == '/';
    }
    (void)http_content_type(out);
}

/* The server's 101 for an upgrade it accepted satisfies the client that sent the key. */
static void check_upgrade(const http_request_t *req)
{
    const char *key;
    size_t key_len;
    require(http_header(req, "Sec-WebSocket-Key", &key, &key_len));
    uint8_t nonce[18];
    size_t nonce_len;
    require(zq_base64_decode(key, key_len, nonce, sizeof nonce, &nonce_len) == ZQ_OK &&
            nonce_len == 16);
    static char res[512];
    zq_writer_t w = zq_writer((uint8_t *)res, sizeof res);
    require(ws_server_response(&w, req, NULL) == ZQ_OK);
    size_t consumed;
    require(ws_client_check_response(res, w.len, nonce, &consumed, NULL) == ZQ_OK);
    require(consumed == w.len);
}

/* The parameters zq reads (room, token) decode whole or not at all, never into more bytes than
 * the query holds, and never with a control byte (which could end a C string or a log line). */
static void check_query(const http_request_t *r)
{
    static const char *const names[] = {"room", "token", ""};
    char small[8];
    char out[ZQ_HTTP_MAX_REQUEST];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t n = 0;
        zq_err_t err = http_query_param(r, names[k], out, sizeof out, &n);
        require(err == ZQ_OK || err == ZQ_ERR_NOT_FOUND || err == ZQ_ERR_MALFORMED);
        if (err == ZQ_OK) {
            require(n <= r->query_len && strlen(out) == n);
            for (size_t i = 0; i < n; i++) {
                require((uint8_t)out[i] >= 0x20 && out[i] != 0x7F);
            }
        }
        zq_err_t small_err = http_query_param(r, names[k], small, sizeof small, &n);
        require(err != ZQ_OK || small_err == ZQ_OK || small_err == ZQ_ERR_TOO_LONG);
        require(err == ZQ_OK || small_err == err || small_err == ZQ_ERR_TOO_LONG);
    }
}

static http_request_t req;
static http_response_t res;

static void fuzz_request(const char *text, size_t size)
{
    zq_err_t err = http_parse_request(text, size, &req);
    require(err == ZQ_OK || err == ZQ_ERR_NEED_MORE || err == ZQ_ERR_TOO_LONG ||
            err == ZQ_ERR_MALFORMED || err == ZQ_ERR_UNSUPPORTED);
    if (err != ZQ_OK) {
        return;
    }
    require(req.head_len >= 4 && req.head_len <= size && req.head_len <= ZQ_HTTP_MAX_REQUEST);
    require(memcmp(text + req.head_len - 4, "\r\n\r\n", 4) == 0);
    require(inside(req.method, req.method_len) && is_token(req.method, req.method_len));
    require(inside(req.path, req.path_len) || (req.path_len == 1 && req.path[0] == '/'));
    require(req.query == NULL || inside(req.query, req.query_len));
    check_headers(req.headers, req.n_headers, req.head_len);
    require(http_parse_request(text, req.head_len - 1, &req) != ZQ_OK);
    require(http_parse_request(text, size, &req) == ZQ_OK);

    size_t body;
    err = http_content_length(&req, &body);
    require(err == ZQ_OK || err == ZQ_ERR_MALFORMED || err == ZQ_ERR_UNSUPPORTED ||
            err == ZQ_ERR_TOO_LONG);
    check_safe_path(req.path, req.path_len);
    check_query(&req);
    if (http_is_websocket_upgrade(&req)) {
        check_upgrade(&req);
    }
}

static void fuzz_response(const char *text, size_t size)
{
    zq_err_t err = http_parse_response(text, size, &res);
    require(err == ZQ_OK || err == ZQ_ERR_NEED_MORE || err == ZQ_ERR_TOO_LONG ||
            err == ZQ_ERR_MALFORMED || err == ZQ_ERR_UNSUPPORTED);
    if (err != ZQ_OK) {
        return;
    }
    require(res.status >= 100 && res.status <= 599);
    require(inside(res.reason, res.reason_len));
    check_headers(res.headers, res.n_headers, res.head_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    base = text;
    base_len = size;
    fuzz_request(text, size);
    fuzz_response(text, size);
    check_safe_path(text, size);
    return 0;
}

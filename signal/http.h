/**
 * @file http.h
 * @brief HTTP/1.1 message heads (RFC 9112) for the signalling server: a bounded request
 *        parser, a response-head parser (for the WebSocket client), a response builder, and
 *        the static-file helpers (a path sanitiser and content types).
 *
 * The signalling server answers three kinds of request on one port: the WebSocket upgrade,
 * two small JSON APIs, and static files. It reads bytes until http_parse_request() stops
 * saying ZQ_ERR_NEED_MORE, then answers from the parsed head:
 *
 * @code
 * http_request_t req;
 * zq_err_t err = http_parse_request(buf, len, &req);
 * if (err == ZQ_ERR_NEED_MORE) return;                      // read more, call again
 * if (err == ZQ_ERR_TOO_LONG) reply(431); if (err != ZQ_OK) reply(400);
 * if (http_is_websocket_upgrade(&req)) ws_server_response(...);
 * else if (http_path_is(&req, "/api/topics")) ...;
 * else if (http_safe_path(req.path, req.path_len, file, sizeof file) == ZQ_OK) ...;
 * @endcode
 *
 * Everything parsed points into the caller's buffer and lives as long as it. The body, if
 * any, starts at req.head_len. Only what the signalling server needs is supported: requests
 * with a body must use Content-Length (Transfer-Encoding makes http_content_length() say
 * ZQ_ERR_UNSUPPORTED, so the server answers 501 rather than guess, RFC 9112 §6.1), and every
 * response closes the connection.
 *
 * Strictness: lines end in CRLF (a bare CR or LF is refused, §2.2); no whitespace between a
 * field name and its colon (§5.1) or before the first field line (§2.2); no obsolete line
 * folding (§5.2); an HTTP/1.1 request has exactly one Host (§3.2); at most one distinct
 * Content-Length (§6.3). Empty lines before the request line are skipped (§2.2).
 */
#ifndef ZQ_HTTP_H
#define ZQ_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/bytes.h"
#include "zq/config.h"
#include "zq/err.h"

/** One field line: name and value (without surrounding whitespace), borrowed. */
typedef struct {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
} http_header_t;

typedef struct {
    const char *method; /**< a token (§3.1), case-sensitive: "GET" */
    size_t method_len;
    const char *path; /**< the absolute path, still percent-encoded: "/ws"; for the absolute
                           form "http://h/p" the path "/p"; "*" for OPTIONS * */
    size_t path_len;
    const char *query; /**< after '?', without it; NULL if there is no '?' */
    size_t query_len;
    uint8_t version_minor; /**< HTTP/1.x */
    size_t head_len;       /**< bytes up to and including the blank line */
    http_header_t headers[ZQ_HTTP_MAX_HEADERS];
    size_t n_headers;
} http_request_t;

typedef struct {
    uint16_t status; /**< 100..599 */
    const char *reason;
    size_t reason_len;
    uint8_t version_minor;
    size_t head_len; /**< bytes up to and including the blank line */
    http_header_t headers[ZQ_HTTP_MAX_HEADERS];
    size_t n_headers;
} http_response_t;

/**
 * Parses the head of one request from @p buf[0..len).
 * @return ZQ_OK; ZQ_ERR_NEED_MORE if the head is not complete yet (every complete line so far
 *         is valid); ZQ_ERR_TOO_LONG if it is longer than ZQ_HTTP_MAX_REQUEST or has more than
 *         ZQ_HTTP_MAX_HEADERS field lines; ZQ_ERR_UNSUPPORTED for an HTTP major version other
 *         than 1 (answer 505); ZQ_ERR_MALFORMED otherwise (answer 400).
 */
zq_err_t http_parse_request(const char *buf, size_t len, http_request_t *req);

/** As http_parse_request(), for a response head ("HTTP/1.1 101 Switching Protocols"). */
zq_err_t http_parse_response(const char *buf, size_t len, http_response_t *res);

/**
 * The value of the first field named @p name (case-insensitive, §5.1) in @p req.
 * @return false if there is none.
 */
bool http_header(const http_request_t *req, const char *name, const char **value, size_t *len);

/** As http_header(), for a response. */
bool http_response_header(const http_response_t *res, const char *name, const char **value,
                          size_t *len);

/** True if any field named @p name holds @p token (case-insensitive) in its comma-separated
 *  list (§5.3: repeated fields are one list), e.g. "Connection: keep-alive, Upgrade". */
bool http_headers_have_token(const http_header_t *headers, size_t n, const char *name,
                             const char *token);

/**
 * The first query parameter @p name ("room" for "?room=lab&token=..."), percent-decoded into
 * @p out[@p cap] with a NUL, its length in @p out_len.
 * @return ZQ_OK; ZQ_ERR_NOT_FOUND when the query has no such parameter ("name" without '='
 *         included); ZQ_ERR_TOO_LONG when it does not fit; ZQ_ERR_MALFORMED for a bad escape
 *         or a decoded control character.
 */
zq_err_t http_query_param(const http_request_t *req, const char *name, char *out, size_t cap,
                          size_t *out_len);

/** True if the request path (without query) is exactly @p path. */
bool http_path_is(const http_request_t *req, const char *path);

/**
 * The body length from Content-Length (§6.3); 0 if there is neither Content-Length nor
 * Transfer-Encoding.
 * @return ZQ_ERR_UNSUPPORTED if Transfer-Encoding is present (answer 501), ZQ_ERR_MALFORMED
 *         for a bad or conflicting Content-Length, ZQ_ERR_TOO_LONG beyond SIZE_MAX.
 */
zq_err_t http_content_length(const http_request_t *req, size_t *out);

/**
 * True for a valid WebSocket opening handshake (RFC 6455 §4.2.1): GET, HTTP/1.1 or later,
 * "Upgrade: websocket", "Connection" holding "upgrade", "Sec-WebSocket-Version: 13" and one
 * Sec-WebSocket-Key of 16 base64-encoded bytes. A request with "Upgrade: websocket" that
 * fails this should be answered 400, or 426 with "Sec-WebSocket-Version: 13" if only the
 * version is wrong (§4.4).
 */
bool http_is_websocket_upgrade(const http_request_t *req);

/** The standard reason phrase of @p status ("Not Found"), or "Unknown". Static storage. */
const char *http_reason(int status);

/**
 * Writes a response head to @p w: status line, Content-Type (if not NULL), Content-Length,
 * "Connection: close", "Cache-Control: no-store", then @p extra_headers (NULL, or whole
 * field lines each ending in CRLF, e.g. "Allow: GET\r\n"), then the blank line. The body, of
 * @p content_length bytes, is the caller's to write next.
 * @return ZQ_ERR_INVALID_ARG for a status outside 100..599, a content type with CR or LF, or
 *         @p extra_headers that are not CRLF-terminated field lines; ZQ_ERR_NO_SPACE if @p w
 *         fills (the writer is then failed).
 */
zq_err_t http_response_head(zq_writer_t *w, int status, const char *content_type,
                            size_t content_length, const char *extra_headers);

/** A whole response: http_response_head() and then the @p body_len bytes of @p body. */
zq_err_t http_response(zq_writer_t *w, int status, const char *content_type, const void *body,
                       size_t body_len, const char *extra_headers);

/**
 * Turns a request path (still percent-encoded, from http_request_t::path) into a relative file
 * path under the static-file root, NUL-terminated in @p out: "/" becomes "index.html",
 * "/app/" becomes "app/index.html", "/a%20b.js" becomes "a b.js".
 *
 * Refused (ZQ_ERR_MALFORMED, answer 404 or 400): anything not starting with '/', a bad
 * percent escape, a decoded NUL, control character or backslash, invalid UTF-8, an empty
 * segment ("//"), and any segment starting with '.' (so "..", "." and hidden files such as
 * ".git" or ".env", also when spelled "%2e%2e"). A decoded "%2F" is a separator like '/'.
 * @return ZQ_ERR_NO_SPACE if the result and its NUL do not fit @p cap.
 */
zq_err_t http_safe_path(const char *path, size_t len, char *out, size_t cap);

/** The Content-Type for a file name by its extension (case-insensitive): html, js, mjs, css,
 *  json, svg, png, ico, txt, map, wasm; "application/octet-stream" otherwise. Static. */
const char *http_content_type(const char *file_name);

#endif /* ZQ_HTTP_H */

/* HTTP/1.1 responses (RFC 9112 §4, §6): one status line, the fields every signalling-server
 * answer carries, the caller's extra fields, and the body. Every response closes the
 * connection (§9.6), so no request is ever read after a body of unknown framing. */
#include <string.h>

#include "signal/http.h"
#include "signal/http_internal.h"
#include "zq/text.h"

const char *http_reason(int status)
{
    /* RFC 9110 §15, the codes the signalling server uses. */
    switch (status) {
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 426: return "Upgrade Required";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
    }
}

static bool value_ok(const char *s)
{
    for (; *s != '\0'; s++) {
        if ((uint8_t)*s < 0x20 || *s == 0x7F) {
            return false;
        }
    }
    return true;
}

bool http_field_lines_ok(const char *s)
{
    while (*s != '\0') {
        const char *cr = strchr(s, '\r');
        http_header_t h;
        if (cr == NULL || cr[1] != '\n' || http_parse_field(s, (size_t)(cr - s), &h) != ZQ_OK) {
            return false;
        }
        s = cr + 2;
    }
    return true;
}

zq_err_t http_response_head(zq_writer_t *w, int status, const char *content_type,
                            size_t content_length, const char *extra_headers)
{
    if (status < 100 || status > 599 || (content_type != NULL && !value_ok(content_type)) ||
        (extra_headers != NULL && !http_field_lines_ok(extra_headers))) {
        return ZQ_ERR_INVALID_ARG;
    }
    zq_write_str(w, "HTTP/1.1 ");
    zq_write_udec(w, (uint64_t)status);
    zq_write_char(w, ' ');
    zq_write_str(w, http_reason(status));
    zq_write_str(w, "\r\n");
    if (content_type != NULL) {
        zq_write_str(w, "Content-Type: ");
        zq_write_str(w, content_type);
        zq_write_str(w, "\r\n");
    }
    /* §6.3: a 1xx or 204 response carries no Content-Length. */
    if (status >= 200 && status != 204) {
        zq_write_str(w, "Content-Length: ");
        zq_write_udec(w, content_length);
        zq_write_str(w, "\r\n");
    }
    zq_write_str(w, "Connection: close\r\nCache-Control: no-store\r\n");
    if (extra_headers != NULL) {
        zq_write_str(w, extra_headers);
    }
    zq_write_str(w, "\r\n");
    return w->failed ? ZQ_ERR_NO_SPACE : ZQ_OK;
}

zq_err_t http_response(zq_writer_t *w, int status, const char *content_type, const void *body,
                       size_t body_len, const char *extra_headers)
{
    if (body == NULL && body_len > 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    zq_err_t err = http_response_head(w, status, content_type, body_len, extra_headers);
    if (err != ZQ_OK) {
        return err;
    }
    zq_write_bytes(w, body, body_len);
    return w->failed ? ZQ_ERR_NO_SPACE : ZQ_OK;
}

/* Static files: request paths to safe relative file names, and their media types. The path
 * rules keep every request inside the served directory whatever the encoding (RFC 3986 §2.1
 * percent-encoding, §3.3 segments). */
#include <string.h>

#include "signal/http.h"
#include "signal/http_internal.h"
#include "zq/utf8.h"

/* Bytes never allowed in a file name here: NUL and controls end or confuse C and terminals,
 * a backslash is a separator on Windows. */
static bool forbidden(int c)
{
    return c < 0x20 || c == 0x7F || c == '\\';
}

zq_err_t http_safe_path(const char *path, size_t len, char *out, size_t cap)
{
    if (path == NULL || out == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (len == 0 || path[0] != '/') {
        return ZQ_ERR_MALFORMED;
    }
    if (cap == 0) {
        return ZQ_ERR_NO_SPACE;
    }
    zq_writer_t w = zq_writer((uint8_t *)out, cap - 1); /* room for the NUL */
    zq_utf8_t utf8 = {0};
    size_t seg_len = 0;
    for (size_t i = 1; i < len;) {
        int c = http_percent_next(path, len, &i);
        if (c < 0 || forbidden(c)) {
            return ZQ_ERR_MALFORMED;
        }
        if (c == '/' ? seg_len == 0 : c == '.' && seg_len == 0) {
            return ZQ_ERR_MALFORMED; /* "//", or a segment starting with '.' */
        }
        seg_len = c == '/' ? 0 : seg_len + 1;
        uint8_t b = (uint8_t)c;
        if (!zq_utf8_feed(&utf8, &b, 1)) {
            return ZQ_ERR_MALFORMED;
        }
        zq_write_u8(&w, b);
    }
    if (!zq_utf8_complete(&utf8)) {
        return ZQ_ERR_MALFORMED;
    }
    if (seg_len == 0) {
        zq_write_bytes(&w, "index.html", 10); /* "/" and "/dir/" name a directory */
    }
    if (w.failed) {
        return ZQ_ERR_NO_SPACE;
    }
    out[w.len] = '\0';
    return ZQ_OK;
}

const char *http_content_type(const char *file_name)
{
    static const struct {
        const char *ext;
        const char *type;
    } types[] = {
        {"html", "text/html; charset=utf-8"},
        {"js", "text/javascript; charset=utf-8"}, /* RFC 9239 §6 */
        {"mjs", "text/javascript; charset=utf-8"},
        {"css", "text/css; charset=utf-8"},
        {"json", "application/json"},
        {"map", "application/json"},
        {"svg", "image/svg+xml"},
        {"png", "image/png"},
        {"ico", "image/x-icon"},
        {"txt", "text/plain; charset=utf-8"},
        {"wasm", "application/wasm"},
    };
    const char *slash = strrchr(file_name, '/');
    const char *dot = strrchr(slash != NULL ? slash : file_name, '.');
    if (dot != NULL) {
        size_t n = strlen(dot + 1);
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
            if (strlen(types[i].ext) == n && http_ascii_ieq(dot + 1, types[i].ext, n)) {
                return types[i].type;
            }
        }
    }
    return "application/octet-stream";
}

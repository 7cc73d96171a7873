/* Shared by the HTTP parser and builder; not part of the API. */
#ifndef ZQ_HTTP_INTERNAL_H
#define ZQ_HTTP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "signal/http.h"

/** RFC 9110 §5.6.2: tchar. */
bool http_is_tchar(char c);

/** ASCII case-insensitive equality of @p a[0..n) and @p b[0..n). */
bool http_ascii_ieq(const char *a, const char *b, size_t n);

/** Parses one field line without its CRLF (RFC 9112 §5: field-name ":" OWS field-value OWS)
 *  into @p out; ZQ_ERR_MALFORMED if it is not one. */
zq_err_t http_parse_field(const char *line, size_t len, http_header_t *out);

/** True if @p s (NUL-terminated) is zero or more whole field lines, each ending in CRLF:
 *  caller-supplied fields can then neither end a head early nor smuggle a second message. */
bool http_field_lines_ok(const char *s);

/** The next byte of @p s[*i..len), a %XX escape decoded (RFC 3986 §2.1); -1 for a bad
 *  escape. Advances *i past what it read. */
int http_percent_next(const char *s, size_t len, size_t *i);

#endif /* ZQ_HTTP_INTERNAL_H */

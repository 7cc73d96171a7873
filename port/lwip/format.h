/**
 * @file format.h
 * @brief vsnprintf() without the C library's: newlib-nano's formatter references malloc and
 *        realloc (for asprintf's growing buffers), so an image that calls its snprintf links
 *        the C heap. The lwIP port's images take these instead (libc_format.c defines
 *        snprintf and vsnprintf over them), and so link no heap at all.
 *
 * C99's semantics (7.19.6.1) for what zq formats: flags '-' and '0', a width and a precision
 * (digits or '*'), the length modifiers hh, h, l, ll, z, and the conversions d, i, u, x, X, c,
 * s, p and %. The output is truncated to @p cap - 1 bytes and NUL-terminated (when @p cap > 0);
 * the return value is the length the whole output would have had. Anything else in a format
 * (floating point, %n) is written out as it stands, never interpreted.
 */
#ifndef ZQ_PORT_LWIP_FORMAT_H
#define ZQ_PORT_LWIP_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

int zq_vsnprintf(char *out, size_t cap, const char *fmt, va_list ap);

#endif /* ZQ_PORT_LWIP_FORMAT_H */

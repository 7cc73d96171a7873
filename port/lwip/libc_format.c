/* The C library's snprintf and vsnprintf, for an lwIP board's image: zq's own (format.h),
 * so that the image links no formatter that references the heap. Only the image links this
 * file; its definitions take the place of the C library's, which the linker then never pulls
 * in (a static link takes a library member only for a symbol still undefined). */
#include <stdio.h>

#include "port/lwip/format.h"

int vsnprintf(char *out, size_t cap, const char *fmt, va_list ap)
{
    return zq_vsnprintf(out, cap, fmt, ap);
}

int snprintf(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = zq_vsnprintf(out, cap, fmt, ap);
    va_end(ap);
    return n;
}

/* printf-style formatting with no C library underneath (see format.h): a bounded writer that
 * counts what it could not store. */
#include "port/lwip/format.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    char *out;
    size_t cap;
    size_t len; /* what the whole output takes, stored or not */
} sink_t;

typedef struct {
    bool left;  /* '-' */
    bool zero;  /* '0' */
    int width;
    int precision; /* -1: none */
    int length;    /* 'H' hh, 'h', 'l', 'L' ll, 'z', 0 */
} spec_t;

static void put(sink_t *s, char c)
{
    if (s->len + 1 < s->cap) {
        s->out[s->len] = c;
    }
    s->len++;
}

static void put_n(sink_t *s, char c, int n)
{
    for (int i = 0; i < n; i++) {
        put(s, c);
    }
}

/* @p body (of @p n bytes) with @p prefix ("-", "0x" or "") padded to the spec's width. */
static void put_field(sink_t *s, const spec_t *sp, const char *prefix, const char *body, int n,
                      int zeros)
{
    int plen = (int)strlen(prefix);
    int pad = sp->width - plen - zeros - n;
    if (!sp->left) {
        put_n(s, ' ', pad);
    }
    for (int i = 0; i < plen; i++) {
        put(s, prefix[i]);
    }
    put_n(s, '0', zeros);
    for (int i = 0; i < n; i++) {
        put(s, body[i]);
    }
    if (sp->left) {
        put_n(s, ' ', pad);
    }
}

static void put_unsigned(sink_t *s, const spec_t *sp, uintmax_t v, unsigned base, bool upper,
                         const char *prefix)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char text[24];
    int n = 0;
    while (v > 0) {
        text[sizeof text - 1 - (size_t)n++] = digits[v % base];
        v /= base;
    }
    int want = sp->precision >= 0 ? sp->precision : 1; /* "%.0u" of 0 is empty (7.19.6.1) */
    int zeros = want > n ? want - n : 0;
    if (sp->zero && !sp->left && sp->precision < 0) {
        int room = sp->width - (int)strlen(prefix) - n;
        zeros = room > zeros ? room : zeros;
    }
    put_field(s, sp, prefix, text + sizeof text - n, n, zeros);
}

static uintmax_t take_unsigned(const spec_t *sp, va_list *ap)
{
    switch (sp->length) {
    case 'H':
        return (unsigned char)va_arg(*ap, unsigned);
    case 'h':
        return (unsigned short)va_arg(*ap, unsigned);
    case 'l':
        return va_arg(*ap, unsigned long);
    case 'L':
        return va_arg(*ap, unsigned long long);
    case 'z':
        return va_arg(*ap, size_t);
    default:
        return va_arg(*ap, unsigned);
    }
}

static intmax_t take_signed(const spec_t *sp, va_list *ap)
{
    switch (sp->length) {
    case 'H':
        return (signed char)va_arg(*ap, int);
    case 'h':
        return (short)va_arg(*ap, int);
    case 'l':
        return va_arg(*ap, long);
    case 'L':
        return va_arg(*ap, long long);
    case 'z':
        return (intmax_t)va_arg(*ap, size_t);
    default:
        return va_arg(*ap, int);
    }
}

static void put_string(sink_t *s, const spec_t *sp, const char *str)
{
    if (str == NULL) {
        str = "(null)";
    }
    size_t n = sp->precision >= 0 ? strnlen(str, (size_t)sp->precision) : strlen(str);
    put_field(s, sp, "", str, (int)n, 0);
}

/* Reads flags, width, precision and length at @p f; returns what follows them. */
static const char *read_spec(const char *f, spec_t *sp, va_list *ap)
{
    memset(sp, 0, sizeof *sp);
    sp->precision = -1;
    for (;; f++) {
        if (*f == '-') {
            sp->left = true;
        } else if (*f == '0') {
            sp->zero = true;
        } else {
            break;
        }
    }
    if (*f == '*') {
        sp->width = va_arg(*ap, int);
        if (sp->width < 0) {
            sp->left = true;
            sp->width = -sp->width;
        }
        f++;
    }
    while (*f >= '0' && *f <= '9') {
        sp->width = sp->width * 10 + (*f++ - '0');
    }
    if (*f == '.') {
        f++;
        sp->precision = 0;
        if (*f == '*') {
            int p = va_arg(*ap, int);
            sp->precision = p < 0 ? -1 : p;
            f++;
        }
        while (*f >= '0' && *f <= '9') {
            sp->precision = sp->precision * 10 + (*f++ - '0');
        }
    }
    if (f[0] == 'h' || f[0] == 'l') {
        sp->length = f[1] == f[0] ? (f[0] == 'h' ? 'H' : 'L') : f[0];
        f += f[1] == f[0] ? 2 : 1;
    } else if (f[0] == 'z') {
        sp->length = 'z';
        f++;
    }
    return f;
}

/* One conversion @p c; false for one this does not know (written out as it stands). */
static bool convert(sink_t *s, const spec_t *sp, char c, va_list *ap)
{
    char ch;
    switch (c) {
    case 'd':
    case 'i': {
        intmax_t v = take_signed(sp, ap);
        uintmax_t mag = v < 0 ? (uintmax_t)0 - (uintmax_t)v : (uintmax_t)v;
        put_unsigned(s, sp, mag, 10, false, v < 0 ? "-" : "");
        return true;
    }
    case 'u':
        put_unsigned(s, sp, take_unsigned(sp, ap), 10, false, "");
        return true;
    case 'x':
    case 'X':
        put_unsigned(s, sp, take_unsigned(sp, ap), 16, c == 'X', "");
        return true;
    case 'p':
        put_unsigned(s, sp, (uintptr_t)va_arg(*ap, void *), 16, false, "0x");
        return true;
    case 'c':
        ch = (char)va_arg(*ap, int);
        put_field(s, sp, "", &ch, 1, 0);
        return true;
    case 's':
        put_string(s, sp, va_arg(*ap, const char *));
        return true;
    case '%':
        put(s, '%');
        return true;
    default:
        return false;
    }
}

int zq_vsnprintf(char *out, size_t cap, const char *fmt, va_list ap)
{
    sink_t s = {out, cap, 0};
    va_list args;
    va_copy(args, ap);
    for (const char *f = fmt; *f != '\0'; f++) {
        if (*f != '%') {
            put(&s, *f);
            continue;
        }
        const char *start = f;
        spec_t sp;
        f = read_spec(f + 1, &sp, &args);
        if (*f == '\0' || !convert(&s, &sp, *f, &args)) {
            for (; start <= f && *start != '\0'; start++) {
                put(&s, *start); /* not ours to interpret */
            }
            if (*f == '\0') {
                break;
            }
        }
    }
    va_end(args);
    if (cap > 0) {
        out[s.len < cap ? s.len : cap - 1] = '\0';
    }
    return s.len > INT32_MAX ? INT32_MAX : (int)s.len;
}

/* JSON writing (RFC 8259): values appended to a zq_writer_t, with one bit per open level for
 * "object or array" and one for "needs a comma", so commas and balance are the writer's job. */
#include <float.h>
#include <string.h>

#include "zq/json.h"
#include "core/json_internal.h"
#include "zq/utf8.h"
#include "zq/hex.h"
#include "zq/text.h"

static void fail(json_writer_t *w, zq_err_t err)
{
    if (w->err == ZQ_OK) {
        w->err = err;
    }
}

/* A write that did not fit (zq/text.h writes numbers whole or not at all) is NO_SPACE here. */
static void note_room(json_writer_t *w)
{
    if (w->out.failed) {
        fail(w, ZQ_ERR_NO_SPACE);
    }
}

static void put(json_writer_t *w, const void *s, size_t n)
{
    if (w->err != ZQ_OK) {
        return;
    }
    zq_write_bytes(&w->out, s, n);
    note_room(w);
}

static void put_char(json_writer_t *w, char c)
{
    put(w, &c, 1);
}

static bool level_bit(const uint32_t *bits, unsigned level)
{
    return (bits[level / 32] >> (level % 32) & 1u) != 0;
}

static void set_level_bit(uint32_t *bits, unsigned level, bool on)
{
    uint32_t mask = 1u << (level % 32);
    bits[level / 32] = on ? bits[level / 32] | mask : bits[level / 32] & ~mask;
}

static bool in_object(const json_writer_t *w)
{
    return w->depth > 0 && level_bit(w->is_object, w->depth - 1u);
}

void json_writer_init(json_writer_t *w, void *buf, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->out = zq_writer(buf, buf != NULL ? cap : 0);
}

/* Every value goes through here: one value at the top level, a key before each value in an
 * object (§4), a comma between array elements (§5). */
static bool begin_value(json_writer_t *w)
{
    if (w->err != ZQ_OK) {
        return false;
    }
    if (w->depth == 0) {
        if (w->root_done) {
            fail(w, ZQ_ERR_STATE);
            return false;
        }
        w->root_done = true;
        return true;
    }
    if (in_object(w)) {
        if (!w->want_value) {
            fail(w, ZQ_ERR_STATE);
            return false;
        }
        w->want_value = false;
        return true;
    }
    if (level_bit(w->has_items, w->depth - 1u)) {
        put_char(w, ',');
    }
    set_level_bit(w->has_items, w->depth - 1u, true);
    return w->err == ZQ_OK;
}

static void open_level(json_writer_t *w, bool object)
{
    if (!begin_value(w)) {
        return;
    }
    if (w->depth == ZQ_JSON_MAX_DEPTH) {
        fail(w, ZQ_ERR_TOO_LONG);
        return;
    }
    put_char(w, object ? '{' : '[');
    set_level_bit(w->is_object, w->depth, object);
    set_level_bit(w->has_items, w->depth, false);
    w->depth++;
}

static void close_level(json_writer_t *w, bool object)
{
    if (w->err != ZQ_OK) {
        return;
    }
    if (w->depth == 0 || in_object(w) != object || w->want_value) {
        fail(w, ZQ_ERR_STATE);
        return;
    }
    put_char(w, object ? '}' : ']');
    w->depth--;
}

void json_object_begin(json_writer_t *w)
{
    open_level(w, true);
}

void json_object_end(json_writer_t *w)
{
    close_level(w, true);
}

void json_array_begin(json_writer_t *w)
{
    open_level(w, false);
}

void json_array_end(json_writer_t *w)
{
    close_level(w, false);
}

/* §7: '"', '\\' and U+0000..U+001F must be escaped; the short forms where they exist. */
static void put_escape(json_writer_t *w, uint8_t c)
{
    static const char from[] = "\"\\\b\f\n\r\t";
    static const char to[] = "\"\\bfnrt";
    const char *hit = memchr(from, c, sizeof from - 1);
    if (hit != NULL && c != 0) {
        char esc[2] = {'\\', to[hit - from]};
        put(w, esc, 2);
        return;
    }
    char u[6] = {'\\', 'u', '0', '0', zq_hex_char(c >> 4), zq_hex_char(c)};
    put(w, u, 6);
}

/* The length of the run at s[0..n) that needs no escaping; stops at invalid UTF-8. */
static size_t plain_run(const uint8_t *s, size_t n, bool *bad)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x20 || c == '"' || c == '\\') {
            break;
        }
        size_t k = c < 0x80 ? 1 : zq_utf8_sequence(s + i, n - i);
        if (k == 0) {
            *bad = true;
            break;
        }
        i += k;
    }
    return i;
}

static void put_string(json_writer_t *w, const char *s, size_t len)
{
    if (s == NULL && len > 0) {
        fail(w, ZQ_ERR_INVALID_ARG);
        return;
    }
    const uint8_t *p = (const uint8_t *)s;
    put_char(w, '"');
    size_t i = 0;
    while (i < len && w->err == ZQ_OK) {
        bool bad = false;
        size_t run = plain_run(p + i, len - i, &bad);
        put(w, p + i, run);
        i += run;
        if (bad) {
            fail(w, ZQ_ERR_MALFORMED);
        } else if (i < len) {
            put_escape(w, p[i++]);
        }
    }
    put_char(w, '"');
}

void json_key_n(json_writer_t *w, const char *name, size_t len)
{
    if (w->err != ZQ_OK) {
        return;
    }
    if (!in_object(w) || w->want_value) {
        fail(w, ZQ_ERR_STATE);
        return;
    }
    if (level_bit(w->has_items, w->depth - 1u)) {
        put_char(w, ',');
    }
    set_level_bit(w->has_items, w->depth - 1u, true);
    put_string(w, name, len);
    put_char(w, ':');
    w->want_value = true;
}

void json_key(json_writer_t *w, const char *name)
{
    json_key_n(w, name, name != NULL ? strlen(name) : 0);
}

void json_string(json_writer_t *w, const char *s, size_t len)
{
    if (begin_value(w)) {
        put_string(w, s, len);
    }
}

static void put_udec(json_writer_t *w, uint64_t v)
{
    if (w->err == ZQ_OK) {
        zq_write_udec(&w->out, v);
        note_room(w);
    }
}

static void put_sdec(json_writer_t *w, int64_t v)
{
    if (w->err == ZQ_OK) {
        zq_write_sdec(&w->out, v);
        note_room(w);
    }
}

void json_uint64(json_writer_t *w, uint64_t v)
{
    if (begin_value(w)) {
        put_udec(w, v);
    }
}

void json_int64(json_writer_t *w, int64_t v)
{
    if (begin_value(w)) {
        put_sdec(w, v);
    }
}

/* ---- Doubles ------------------------------------------------------------------------------ */

#define DOUBLE_DIGITS 15 /* every 15-digit decimal survives a round trip through a double */

/* floor(log10(x)) for finite x > 0, by a binary search over powers of ten (no libm). It may be
 * off by one next to a power of ten; double_digits() corrects that. */
static int decimal_exponent(double x)
{
    static const double big[] = {1e256, 1e128, 1e64, 1e32, 1e16, 1e8, 1e4, 1e2, 1e1};
    static const int big_exp[] = {256, 128, 64, 32, 16, 8, 4, 2, 1};
    int e = 0;
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        if (x >= 1.0 && x >= big[i]) {
            x /= big[i];
            e += big_exp[i];
        } else if (x < 1.0 && x * big[i] < 10.0) {
            x *= big[i];
            e -= big_exp[i];
        }
    }
    return e;
}

/* x (finite, > 0) as m × 10^(e - 14) with 10^14 <= m < 10^15, rounded to nearest. */
static uint64_t double_digits(double x, int *e)
{
    const uint64_t lo = 100000000000000ull, hi = 1000000000000000ull;
    *e = decimal_exponent(x);
    for (int tries = 0; tries < 3; tries++) {
        uint64_t m = (uint64_t)(json_scale10(x, DOUBLE_DIGITS - 1 - *e) + 0.5);
        if (m >= hi) {
            (*e)++;
        } else if (m < lo) {
            (*e)--;
        } else if (*e == 308 && m > 179769313486231ull) {
            return 179769313486231ull; /* rounding DBL_MAX up would leave the double range */
        } else {
            return m;
        }
    }
    /* Only rounding up to exactly 10^15 gets here: 9.99...95 → 1.0 × 10^(e+1). */
    return lo;
}

/* Writes digits d[0..n) whose first digit has weight 10^e, in JavaScript's choice of form
 * (positional for 10^-7 < |v| < 10^21) so browsers and zq print the same thing. */
static void put_decimal(json_writer_t *w, const char *d, size_t n, int e)
{
    if (e >= 0 && e < 21) {
        size_t int_digits = (size_t)e + 1;
        put(w, d, n < int_digits ? n : int_digits);
        for (size_t i = n; i < int_digits; i++) {
            put_char(w, '0');
        }
        if (n > int_digits) {
            put_char(w, '.');
            put(w, d + int_digits, n - int_digits);
        }
    } else if (e < 0 && e > -7) {
        put(w, "0.", 2);
        for (int i = -1; i > e; i--) {
            put_char(w, '0');
        }
        put(w, d, n);
    } else {
        put(w, d, 1);
        if (n > 1) {
            put_char(w, '.');
            put(w, d + 1, n - 1);
        }
        put_char(w, 'e');
        put_sdec(w, e);
    }
}

void json_double(json_writer_t *w, double v)
{
    if (v != v || v > DBL_MAX || v < -DBL_MAX) {
        fail(w, ZQ_ERR_INVALID_ARG); /* §6: NaN and Infinity are not permitted */
        return;
    }
    if (!begin_value(w)) {
        return;
    }
    double mag = v < 0 ? -v : v;
    if (mag < 18446744073709551616.0 && mag == (double)(uint64_t)mag) {
        if (v < 0 && mag != 0) {
            put_char(w, '-');
        }
        put_udec(w, (uint64_t)mag); /* whole numbers exactly: "3", "0" */
        return;
    }
    int e;
    uint64_t m = double_digits(mag, &e);
    char d[20];
    zq_writer_t digits = zq_writer((uint8_t *)d, sizeof d);
    zq_write_udec(&digits, m); /* exactly DOUBLE_DIGITS: m is in [10^14, 10^15) */
    size_t n = digits.len;
    while (n > 1 && d[n - 1] == '0') {
        n--;
    }
    if (v < 0) {
        put_char(w, '-');
    }
    put_decimal(w, d, n, e);
}

void json_bool(json_writer_t *w, bool v)
{
    if (begin_value(w)) {
        put(w, v ? "true" : "false", v ? 4 : 5);
    }
}

void json_null(json_writer_t *w)
{
    if (begin_value(w)) {
        put(w, "null", 4);
    }
}

void json_raw(json_writer_t *w, json_value_t v)
{
    if (v.p == NULL || v.len == 0) {
        fail(w, ZQ_ERR_INVALID_ARG);
        return;
    }
    if (begin_value(w)) {
        put(w, v.p, v.len);
    }
}

size_t json_finish(const json_writer_t *w)
{
    if (w->err != ZQ_OK || w->depth != 0 || !w->root_done) {
        return 0;
    }
    return w->out.len;
}

zq_err_t json_writer_error(const json_writer_t *w)
{
    return w->err;
}

/* Protocol text on a zq_writer_t (see include/zq/text.h): the one decimal formatter, the one
 * hexadecimal one and the one decimal reader of zq. */
#include "zq/text.h"

#include <string.h>

#include "zq/ascii.h"
#include "zq/hex.h"

void zq_write_char(zq_writer_t *w, char c)
{
    zq_write_bytes(w, &c, 1);
}

void zq_write_str(zq_writer_t *w, const char *s)
{
    zq_write_bytes(w, s, strlen(s));
}

/* The decimal digits of v, most significant first, end at buf + 20 (UINT64_MAX has 20);
 * returns where they start. Once v fits 32 bits the loop divides in 32 bits: on the 32-bit
 * targets a 64-bit division is a library call, and most numbers zq writes (ports, lengths,
 * priorities) never need one. */
static char *decimal_digits(uint64_t v, char buf[20])
{
    char *p = buf + 20;
    for (; v > UINT32_MAX; v /= 10u) {
        *--p = (char)('0' + (int)(v % 10u));
    }
    uint32_t v32 = (uint32_t)v;
    do {
        *--p = (char)('0' + (int)(v32 % 10u));
        v32 /= 10u;
    } while (v32 != 0);
    return p;
}

void zq_write_udec(zq_writer_t *w, uint64_t v)
{
    char buf[20];
    const char *p = decimal_digits(v, buf);
    zq_write_bytes(w, p, (size_t)(buf + 20 - p));
}

void zq_write_sdec(zq_writer_t *w, int64_t v)
{
    /* The magnitude in unsigned arithmetic: -INT64_MIN does not fit an int64_t. */
    uint64_t mag = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
    char buf[21];
    char *p = decimal_digits(mag, buf + 1);
    if (v < 0) {
        *--p = '-';
    }
    zq_write_bytes(w, p, (size_t)(buf + 21 - p));
}

void zq_write_hex(zq_writer_t *w, uint32_t v)
{
    char buf[8];
    char *p = buf + 8;
    do {
        *--p = zq_hex_char(v);
        v >>= 4;
    } while (v != 0);
    zq_write_bytes(w, p, (size_t)(buf + 8 - p));
}

zq_writer_t zq_text_writer(char *buf, size_t cap)
{
    if (buf == NULL || cap == 0) {
        zq_writer_t none = {NULL, 0, 0, true};
        return none;
    }
    return zq_writer((uint8_t *)buf, cap - 1);
}

size_t zq_text_end(zq_writer_t *w)
{
    if (w->data == NULL) {
        return 0; /* zq_text_writer() had no byte, not even for the NUL */
    }
    if (w->failed) {
        w->data[0] = '\0';
        return 0;
    }
    w->data[w->len] = '\0';
    return w->len;
}

zq_err_t zq_parse_udec(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    if (len == 0) {
        return ZQ_ERR_MALFORMED;
    }
    /* v * 10 + d stays within max while v < max / 10, or v == max / 10 and d <= max % 10:
     * the two divisions once, not one per digit. */
    const uint64_t max_tens = max / 10u;
    const unsigned max_units = (unsigned)(max % 10u);
    uint64_t v = 0;
    bool over = false;
    for (size_t i = 0; i < len; i++) {
        if (!zq_ascii_is_digit(s[i])) {
            return ZQ_ERR_MALFORMED; /* checked to the end: a non-digit wins over a big value */
        }
        unsigned d = (unsigned)(s[i] - '0');
        over = over || v > max_tens || (v == max_tens && d > max_units);
        v = over ? v : v * 10u + d;
    }
    if (over) {
        return ZQ_ERR_TOO_LONG;
    }
    *out = v;
    return ZQ_OK;
}

zq_err_t zq_parse_port(const char *s, size_t len, uint16_t *out)
{
    uint64_t v;
    if (len > 5 || zq_parse_udec(s, len, UINT16_MAX, &v) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    *out = (uint16_t)v;
    return ZQ_OK;
}

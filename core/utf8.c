/* UTF-8 validation by RFC 3629 §4's table of well-formed byte sequences:
 *
 *   U+0000..U+007F      00..7F
 *   U+0080..U+07FF      C2..DF 80..BF
 *   U+0800..U+0FFF      E0     A0..BF 80..BF
 *   U+1000..U+CFFF      E1..EC 80..BF 80..BF
 *   U+D000..U+D7FF      ED     80..9F 80..BF        (no surrogates)
 *   U+E000..U+FFFF      EE..EF 80..BF 80..BF
 *   U+10000..U+3FFFF    F0     90..BF 80..BF 80..BF
 *   U+40000..U+FFFFF    F1..F3 80..BF 80..BF 80..BF
 *   U+100000..U+10FFFF  F4     80..8F 80..BF 80..BF
 *
 * Only the first continuation byte has a range other than 80..BF. */
#include "zq/utf8.h"

/* Continuation bytes after @p lead, and the range of the first one; false if @p lead cannot
 * start a sequence (80..C1 are continuations or overlong leads, F5..FF are beyond U+10FFFF). */
static bool lead_info(uint8_t lead, uint8_t *need, uint8_t *lo, uint8_t *hi)
{
    *lo = 0x80;
    *hi = 0xBF;
    if (lead < 0x80) {
        *need = 0;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
        *need = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        *need = 2;
        *lo = lead == 0xE0 ? 0xA0 : 0x80;
        *hi = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        *need = 3;
        *lo = lead == 0xF0 ? 0x90 : 0x80;
        *hi = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
        return false;
    }
    return true;
}

size_t zq_utf8_sequence(const uint8_t *p, size_t n)
{
    uint8_t need, lo, hi;
    if (n == 0 || !lead_info(p[0], &need, &lo, &hi) || (size_t)need + 1 > n) {
        return 0;
    }
    for (size_t i = 1; i <= need; i++) {
        if (p[i] < lo || p[i] > hi) {
            return 0;
        }
        lo = 0x80;
        hi = 0xBF;
    }
    return (size_t)need + 1;
}

static bool feed_byte(zq_utf8_t *s, uint8_t b)
{
    if (s->need == 0) {
        return lead_info(b, &s->need, &s->lo, &s->hi);
    }
    if (b < s->lo || b > s->hi) {
        return false;
    }
    s->need--;
    s->lo = 0x80;
    s->hi = 0xBF;
    return true;
}

bool zq_utf8_feed(zq_utf8_t *s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n && !s->bad; i++) {
        /* ASCII outside a sequence is the common case: skip the table. */
        if (s->need == 0 && p[i] < 0x80) {
            continue;
        }
        s->bad = !feed_byte(s, p[i]);
    }
    return !s->bad;
}

bool zq_utf8_valid(const uint8_t *p, size_t n)
{
    zq_utf8_t s = {0};
    return zq_utf8_feed(&s, p, n) && zq_utf8_complete(&s);
}

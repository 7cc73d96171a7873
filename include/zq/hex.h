/**
 * @file hex.h
 * @brief Hexadecimal digits, both ways: the one place zq reads and writes them (fingerprints,
 *        percent-escapes, JSON \u escapes, IPv6 text, ids, key logs).
 */
#ifndef ZQ_HEX_H
#define ZQ_HEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** The value of hex digit @p c, either case, or -1 when @p c is not one. */
static inline int zq_hex_digit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c = (char)(c | 0x20); /* 'A'-'F' to 'a'-'f'; nothing else lands there */
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/** The lower-case hex digit of the low 4 bits of @p v. */
static inline char zq_hex_char(unsigned v)
{
    return "0123456789abcdef"[v & 0xfu];
}

/** Writes @p n bytes as 2 * @p n lower-case hex digits (no NUL). @return 2 * @p n. */
static inline size_t zq_hex_encode(char *out, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = zq_hex_char(in[i] >> 4);
        out[2 * i + 1] = zq_hex_char(in[i]);
    }
    return 2 * n;
}

/** Reads 2 * @p n hex digits of @p text (either case) into @p n bytes of @p out.
 *  @return false at the first character that is no hex digit (@p out then holds a part). */
static inline bool zq_hex_decode(uint8_t *out, const char *text, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = zq_hex_digit(text[2 * i]);
        int lo = zq_hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return false;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

#endif /* ZQ_HEX_H */

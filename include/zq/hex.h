/**
 * @file hex.h
 * @brief Hexadecimal digits, both ways: the one place zq reads and writes them (fingerprints,
 *        percent-escapes, JSON \u escapes, IPv6 text, ids, key logs).
 */
#ifndef ZQ_HEX_H
#define ZQ_HEX_H

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

#endif /* ZQ_HEX_H */

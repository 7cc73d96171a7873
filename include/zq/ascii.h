/**
 * @file ascii.h
 * @brief ASCII letters, digits and case: the one place zq classifies protocol text (SDP, ICE
 *        candidates, HTTP heads, JSON numbers). <ctype.h> would follow the C locale and take
 *        an int that must not be a negative char; protocol grammars are ASCII, whatever the
 *        locale (RFC 5234 §2.3: literals are case-insensitive ASCII).
 */
#ifndef ZQ_ASCII_H
#define ZQ_ASCII_H

#include <stdbool.h>

/** @p c in lower case if it is an ASCII capital, else @p c itself. */
static inline char zq_ascii_lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static inline bool zq_ascii_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static inline bool zq_ascii_is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

#endif /* ZQ_ASCII_H */

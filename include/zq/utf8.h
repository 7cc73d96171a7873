/**
 * @file utf8.h
 * @brief The one UTF-8 validator of zq (RFC 3629 §4), whole-buffer and incremental.
 *
 * JSON strings (RFC 8259 §8.1), WebSocket text messages (RFC 6455 §8.1) and HTTP paths all need
 * the same check: no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF.
 * WebSocket text arrives in fragments split at arbitrary bytes, hence the incremental form.
 */
#ifndef ZQ_UTF8_H
#define ZQ_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Incremental validator state. Zero-initialise (`zq_utf8_t s = {0};`) to start. */
typedef struct {
    uint8_t need; /**< continuation bytes still expected */
    uint8_t lo;   /**< allowed range of the next continuation byte (RFC 3629 §4 table) */
    uint8_t hi;
    bool bad;     /**< sticky: an invalid byte was seen */
} zq_utf8_t;

/** Length (1..4) of the valid UTF-8 sequence at the start of @p p[0..n), or 0 if there is none
 *  (invalid or cut short). Never reads past @p n. */
size_t zq_utf8_sequence(const uint8_t *p, size_t n);

/** Feeds @p n more bytes; returns false as soon as the stream so far cannot be valid UTF-8. */
bool zq_utf8_feed(zq_utf8_t *s, const uint8_t *p, size_t n);

/** True if everything fed is valid and ends on a character boundary. */
static inline bool zq_utf8_complete(const zq_utf8_t *s)
{
    return !s->bad && s->need == 0;
}

/** True if @p p[0..n) is entirely valid UTF-8. */
bool zq_utf8_valid(const uint8_t *p, size_t n);

#endif /* ZQ_UTF8_H */

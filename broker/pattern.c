/* Topic patterns (PROTOCOL.md §3), matched in one pass over both strings, level by level.
 *
 * A level is the bytes between two '.' (or an end); "a..b" has three levels and "" has one.
 * Each pattern level but the last matches exactly one topic level: "+" any, anything else
 * byte for byte. The last pattern level decides how the topic must end:
 *
 *   "#"          whatever is left, including nothing: "a.#" matches "a" (MQTT 4.7.1.2)
 *   "+"          exactly one more level
 *   "<bytes>*"   the rest of the topic (any levels) starts with <bytes>: "log*", "news.*", "*"
 *   otherwise    exactly one more level, equal to it
 *
 * A level is a wildcard only when it is exactly "+" or "#", so in "a.+*" the last level "+*"
 * is the plain prefix "+" (the topic must start with "a.+"), and "#*" is the plain prefix "#".
 *
 * Why no backtracking: with '#' only last and '*' only as the final byte, every pattern level
 * but the last consumes exactly one topic level, so a match never has to choose where a
 * wildcard ends. Each byte of either string is looked at a bounded number of times, and a
 * hostile subscription cannot make matching slower than its length.
 */
#include "broker/pattern.h"

#include <stdint.h>
#include <string.h>

#include "zq/utf8.h"

/* End of the level that starts at @p from: the offset of the next '.' or @p len. */
static size_t level_end(const char *s, size_t len, size_t from)
{
    if (from >= len) {
        return len;
    }
    const char *dot = memchr(s + from, '.', len - from);
    return dot != NULL ? (size_t)(dot - s) : len;
}

static bool is_level(const char *level, size_t n, char wildcard)
{
    return n == 1 && level[0] == wildcard;
}

static bool bytes_equal(const char *a, const char *b, size_t n)
{
    return n == 0 || memcmp(a, b, n) == 0;
}

/* C0 controls and DEL: they have no business in a topic name and make logs lie. */
static bool has_control_byte(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        uint8_t b = (uint8_t)s[i];
        if (b < 0x20 || b == 0x7F) {
            return true;
        }
    }
    return false;
}

zq_err_t brk_pattern_check(const char *pattern, size_t len)
{
    if (pattern == NULL || len == 0 || has_control_byte(pattern, len) ||
        !zq_utf8_valid((const uint8_t *)pattern, len)) {
        return ZQ_ERR_MALFORMED;
    }
    for (size_t from = 0;;) {
        size_t end = level_end(pattern, len, from);
        if (end == len) {
            return ZQ_OK;
        }
        /* A '#' level anywhere but last would need backtracking ("a.#.b"): MQTT refuses it too. */
        if (is_level(pattern + from, end - from, '#')) {
            return ZQ_ERR_MALFORMED;
        }
        from = end + 1;
    }
}

/* Whether one pattern level (not the last) matches one topic level. */
static bool level_matches(const char *level, size_t n, const char *topic_level, size_t tn)
{
    return is_level(level, n, '+') || (n == tn && bytes_equal(level, topic_level, n));
}

/* The last pattern level @p level against the rest of the topic from offset @p t; t > tlen
 * means the topic has no level left (its last one matched the level before). */
static bool last_level_matches(const char *level, size_t n, bool prefix, const char *topic,
                               size_t tlen, size_t t)
{
    if (prefix) {
        return t <= tlen && tlen - t >= n - 1 && bytes_equal(topic + t, level, n - 1);
    }
    if (is_level(level, n, '#')) {
        return true;
    }
    if (t > tlen || level_end(topic, tlen, t) != tlen) {
        return false;
    }
    return level_matches(level, n, topic + t, tlen - t);
}

bool brk_pattern_match(const char *pattern, size_t plen, const char *topic, size_t tlen)
{
    /* Empty strings may come as NULL: give them an address so offsets stay defined. */
    pattern = plen == 0 ? "" : pattern;
    topic = tlen == 0 ? "" : topic;
    bool prefix = plen > 0 && pattern[plen - 1] == '*';
    size_t p = 0, t = 0; /* starts of the current pattern and topic levels */
    for (;;) {
        size_t pe = level_end(pattern, plen, p);
        if (pe == plen) {
            return last_level_matches(pattern + p, pe - p, prefix, topic, tlen, t);
        }
        if (t > tlen) {
            return false;
        }
        size_t te = level_end(topic, tlen, t);
        if (!level_matches(pattern + p, pe - p, topic + t, te - t)) {
            return false;
        }
        p = pe + 1;
        t = te + 1; /* tlen + 1 after the topic's last level: none left */
    }
}

bool brk_pattern_is_exact(const char *pattern, size_t len)
{
    if (len == 0) {
        return true;
    }
    if (pattern[len - 1] == '*') {
        return false;
    }
    for (size_t from = 0;;) {
        size_t end = level_end(pattern, len, from);
        const char *level = pattern + from;
        if (is_level(level, end - from, '+') || is_level(level, end - from, '#')) {
            return false;
        }
        if (end == len) {
            return true;
        }
        from = end + 1;
    }
}

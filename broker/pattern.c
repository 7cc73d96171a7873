/* Topic patterns (PROTOCOL.md §3), matched in one pass over both strings, level by level.
 *
 * Levels. MQTT's names split at '/' (MQTT 3.1.1 §4.7.1, MQTT 5 §4.7.1), ZeroQ's at '.', and
 * no byte tells which a string is. So the pattern decides: its levels end at '/' when it has
 * one, else at '.', and the topic is split at the same byte. Each subscriber gets the reading
 * it wrote: under "sensors/#" a '.' is a plain byte, as in MQTT ("v1.2/#" matches "v1.2", and
 * "sensors.kitchen" is one level, not under "sensors/#"); under "news.#" a '/' is a plain byte,
 * as it always was in zq ("news/eu" is one level, not under "news.#"). Splitting the topic at
 * its own separator instead would let "a.b" match "a/b": an exact pattern would match a name
 * other than itself. A pattern of one level has no separator to give: "#", "*", "log*" and an
 * exact name do not need one, and "+" takes the topic's own ('/' if it has one, else '.'), so
 * it matches neither "a/b" nor "a.b".
 *
 * A level is the bytes between two separators (or an end); "a..b" has three levels, "/a" two
 * ("" and "a", as in MQTT) and "" one. Each pattern level but the last matches exactly one
 * topic level: "+" any, anything else byte for byte. The last pattern level decides how the
 * topic must end:
 *
 *   "#"          whatever is left, including nothing: "a/#" matches "a" (MQTT 3.1.1 §4.7.1.2)
 *   "+"          exactly one more level
 *   "<bytes>*"   the rest of the topic (any levels) starts with <bytes>: "log*", "news.*", "*"
 *   otherwise    exactly one more level, equal to it
 *
 * Where wildcards may be (brk_pattern_problem): '+' and '#' only as whole levels, '#' only as
 * the last (MQTT 3.1.1 §4.7.1.2-3). zq used to read "sensors#" or "a.+*" as plain bytes, a
 * literal nobody publishes on: a subscriber that never hears why. They are refused with a
 * reason that says how to write them. '*' is no MQTT wildcard; as the pattern's last byte it
 * marks a prefix (zmqcat's), anywhere else it is a plain byte.
 *
 * Why no backtracking: with '#' only last and '*' only as the final byte, every pattern level
 * but the last consumes exactly one topic level, so a match never has to choose where a
 * wildcard ends. Finding the separator reads each string once; after that each byte of either
 * is looked at a bounded number of times, and a hostile subscription cannot make matching
 * slower than its length.
 */
#include "broker/pattern.h"

#include <stdint.h>
#include <string.h>

#include "zq/utf8.h"

/* The reasons, word for word those of web/zq/match.js (tests/web/fixtures/patterns.json has
 * each, for both sides). */
static const char EMPTY[] = "it is empty: '#' matches every topic";
static const char CONTROL[] = "it has a control character (U+0000 to U+001F, or U+007F)";
static const char NOT_UTF8[] = "it is not valid UTF-8";
static const char HASH_IN_LEVEL[] =
    "'#' must be a whole level, and the last one: write 'sensors/#' (or 'sensors.#')";
static const char HASH_NOT_LAST[] =
    "'#' only as the last level: write 'sensors/#', or '+' for one level ('sensors/+/temp')";
static const char PLUS_IN_LEVEL[] = "'+' must be a whole level: write 'sensors/+/temp'; a prefix "
                                    "is plain characters and a final '*' ('sensors/kit*')";
static const char WILDCARD_IN_TOPIC[] =
    "'+' and '#' are wildcards, for patterns only: name one topic, such as 'sensors/kitchen'";

static bool has_byte(const char *s, size_t len, char c)
{
    return len > 0 && memchr(s, c, len) != NULL;
}

/* A string's own separator: '/' when it has one, else '.' when it has one, else 0. */
static char own_separator(const char *s, size_t len)
{
    return has_byte(s, len, '/') ? '/' : has_byte(s, len, '.') ? '.' : 0;
}

/* The separator both strings are split at (the header comment says why the pattern decides).
 * When neither has one, '.' is as good as any byte that is in neither. */
static char separator(const char *pattern, size_t plen, const char *topic, size_t tlen)
{
    char sep = own_separator(pattern, plen);
    sep = sep != 0 ? sep : own_separator(topic, tlen);
    return sep != 0 ? sep : '.';
}

/* End of the level that starts at @p from: the offset of the next @p sep or @p len. */
static size_t level_end(const char *s, size_t len, size_t from, char sep)
{
    if (from >= len) {
        return len;
    }
    const char *at = memchr(s + from, sep, len - from);
    return at != NULL ? (size_t)(at - s) : len;
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

/* A wildcard must be a whole level (MQTT 3.1.1 §4.7.1.2-3), and a '#' level the last: one
 * before another level would need backtracking ("a/#/b"), and MQTT refuses it too. */
static const char *level_problem(const char *level, size_t n, bool last)
{
    if (has_byte(level, n, '#')) {
        return n != 1 ? HASH_IN_LEVEL : last ? NULL : HASH_NOT_LAST;
    }
    return n != 1 && has_byte(level, n, '+') ? PLUS_IN_LEVEL : NULL;
}

const char *brk_pattern_problem(const char *pattern, size_t len)
{
    if (pattern == NULL || len == 0) {
        return EMPTY;
    }
    if (has_control_byte(pattern, len)) {
        return CONTROL;
    }
    if (!zq_utf8_valid((const uint8_t *)pattern, len)) {
        return NOT_UTF8;
    }
    char sep = separator(pattern, len, NULL, 0);
    for (size_t from = 0;;) {
        size_t end = level_end(pattern, len, from, sep);
        const char *why = level_problem(pattern + from, end - from, end == len);
        if (why != NULL || end == len) {
            return why;
        }
        from = end + 1;
    }
}

zq_err_t brk_pattern_check(const char *pattern, size_t len)
{
    return brk_pattern_problem(pattern, len) == NULL ? ZQ_OK : ZQ_ERR_MALFORMED;
}

/* Anywhere, not only as a whole level: a topic "c++" could be published but never subscribed
 * to by name, since the pattern "c++" is refused. */
const char *brk_topic_problem(const char *topic, size_t len)
{
    return has_byte(topic, len, '+') || has_byte(topic, len, '#') ? WILDCARD_IN_TOPIC : NULL;
}

/* Whether one pattern level (not the last) matches one topic level. */
static bool level_matches(const char *level, size_t n, const char *topic_level, size_t tn)
{
    return is_level(level, n, '+') || (n == tn && bytes_equal(level, topic_level, n));
}

/* The topic being matched: its bytes and the separator its levels end at. */
typedef struct {
    const char *s;
    size_t len;
    char sep;
} topic_t;

/* The last pattern level @p level against the rest of the topic from offset @p t; t > len
 * means the topic has no level left (its last one matched the level before). */
static bool last_level_matches(const char *level, size_t n, bool prefix, const topic_t *tp,
                               size_t t)
{
    if (prefix) {
        return t <= tp->len && tp->len - t >= n - 1 && bytes_equal(tp->s + t, level, n - 1);
    }
    if (is_level(level, n, '#')) {
        return true;
    }
    if (t > tp->len || level_end(tp->s, tp->len, t, tp->sep) != tp->len) {
        return false;
    }
    return level_matches(level, n, tp->s + t, tp->len - t);
}

bool brk_pattern_match(const char *pattern, size_t plen, const char *topic, size_t tlen)
{
    /* Empty strings may come as NULL: give them an address so offsets stay defined. */
    pattern = plen == 0 ? "" : pattern;
    topic = tlen == 0 ? "" : topic;
    const topic_t tp = {topic, tlen, separator(pattern, plen, topic, tlen)};
    bool prefix = plen > 0 && pattern[plen - 1] == '*';
    size_t p = 0, t = 0; /* starts of the current pattern and topic levels */
    for (;;) {
        size_t pe = level_end(pattern, plen, p, tp.sep);
        if (pe == plen) {
            return last_level_matches(pattern + p, pe - p, prefix, &tp, t);
        }
        if (t > tlen) {
            return false;
        }
        size_t te = level_end(topic, tlen, t, tp.sep);
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
    char sep = separator(pattern, len, NULL, 0);
    for (size_t from = 0;;) {
        size_t end = level_end(pattern, len, from, sep);
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

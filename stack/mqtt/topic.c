/* Topic names and filters (MQTT 4.7; 3.1.1 §4.7). Levels are separated by '/'; in a filter
 * '+' stands for one whole level and '#', alone in the last level, for any number of levels
 * including none (so "sport/#" matches "sport" too, §4.7.1.2). Topics beginning with '$' are
 * the server's: a filter that begins with a wildcard does not match them (MQTT-4.7.2-1).
 * Both are 1..ZQ_MQTT_TOPIC_MAX bytes of UTF-8 without U+0000 (MQTT-4.7.3-1, -2). */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

/* The rules for a wildcard at s[i] in a filter: alone in its level, '#' last (4.7.1.2-3). */
static bool wildcard_ok(const uint8_t *s, size_t len, size_t i)
{
    bool starts_level = i == 0 || s[i - 1] == '/';
    bool ends_level = i + 1 == len || s[i + 1] == '/';
    if (s[i] == '#') {
        return starts_level && i + 1 == len;
    }
    return starts_level && ends_level;
}

bool mqtt_topic_check(const uint8_t *s, size_t len, bool filter)
{
    if (len == 0 || len > ZQ_MQTT_TOPIC_MAX || !mqtt_utf8_ok(s, len)) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if ((s[i] == '+' || s[i] == '#') && (!filter || !wildcard_ok(s, len, i))) {
            return false;
        }
    }
    return true;
}

bool mqtt_topic_filter_valid(const char *filter, size_t len)
{
    return filter != NULL && mqtt_topic_check((const uint8_t *)filter, len, true);
}

bool mqtt_topic_name_valid(const char *topic, size_t len)
{
    return topic != NULL && mqtt_topic_check((const uint8_t *)topic, len, false);
}

/* A cursor over the levels of a topic or filter. */
typedef struct {
    const char *s;
    size_t len, pos;
    bool done; /* the last level was taken */
} levels_t;

static void take_level(levels_t *l, const char **start, size_t *n)
{
    const char *p = l->s + l->pos;
    const char *slash = memchr(p, '/', l->len - l->pos);
    *start = p;
    *n = slash != NULL ? (size_t)(slash - p) : l->len - l->pos;
    l->pos += *n + 1;
    l->done = slash == NULL;
}

static bool is_level(const char *s, size_t n, char c)
{
    return n == 1 && s[0] == c;
}

bool mqtt_topic_matches_len(const char *filter, size_t filter_len, const char *topic,
                            size_t topic_len)
{
    if (!mqtt_topic_filter_valid(filter, filter_len) || !mqtt_topic_name_valid(topic, topic_len)) {
        return false;
    }
    if (topic[0] == '$' && (filter[0] == '+' || filter[0] == '#')) {
        return false; /* MQTT-4.7.2-1 */
    }
    levels_t f = {filter, filter_len, 0, false}, t = {topic, topic_len, 0, false};
    for (;;) {
        const char *fl, *tl;
        size_t fn, tn;
        take_level(&f, &fl, &fn);
        if (is_level(fl, fn, '#')) {
            return true; /* the rest of the topic, or none of it */
        }
        if (t.done) {
            return false; /* the filter wants a level the topic lacks */
        }
        take_level(&t, &tl, &tn);
        if (!is_level(fl, fn, '+') && (fn != tn || memcmp(fl, tl, fn) != 0)) {
            return false;
        }
        if (f.done) {
            return t.done;
        }
    }
}

bool mqtt_topic_matches(const char *filter, const char *topic)
{
    if (filter == NULL || topic == NULL) {
        return false;
    }
    return mqtt_topic_matches_len(filter, strlen(filter), topic, strlen(topic));
}

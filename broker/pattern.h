/**
 * @file pattern.h
 * @brief Topic patterns (broker/PROTOCOL.md §3): exact, prefix, and MQTT-style wildcards over
 *        levels split at '/' (MQTT's names) or '.' (ZeroQ's). Pure functions over byte
 *        strings; no allocation.
 *
 *   "news"               only "news"
 *   "news.+"             "news.eu", "news.us"; not "news", not "news.eu.fr"
 *   "news.#"             "news", "news.eu", "news.eu.fr" (zero or more levels after "news")
 *   "sensors/#"          "sensors", "sensors/kitchen", "sensors/kitchen/temp"
 *   "+/status"           "v1.2/status" (under a pattern with a '/', a '.' is a plain byte)
 *   "#"                  every topic
 *   "sensors.+.temp"     "sensors.kitchen.temp"
 *   "log*"               every topic starting with "log": "log", "logs", "log.x", "log/x"
 *   "*"                  every topic
 *
 * A pattern's levels are split at '/' when it has one, else at '.'; the topic is split at the
 * same separator, so "sensors.#" does not match "sensors/kitchen" (one dotted level) and
 * "sensors/#" does not match "sensors.kitchen" (one MQTT level). A pattern of one level (no
 * '/', no '.') splits the topic at the topic's own: '/' if it has one, else '.'.
 *
 * '+' and '#' must each be a whole level, '#' only the last (MQTT 3.1.1 §4.7.1): anything else
 * is refused, with a reason that says how to write it. '*' is a prefix marker only as the
 * pattern's last byte; elsewhere it is a plain byte. An empty level ("a..b", "/a") is a level
 * like any other, as in MQTT.
 */
#ifndef ZQ_BRK_PATTERN_H
#define ZQ_BRK_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#include "zq/err.h"

/** Why @p pattern cannot be subscribed to, in one sentence that says how to write it instead
 *  (static text; web/zq/match.js gives the same): empty, a control byte (C0 or DEL), not UTF-8,
 *  or a '+' or '#' that is not a whole level, or a '#' level that is not the last.
 *  @return NULL when the pattern is usable. */
const char *brk_pattern_problem(const char *pattern, size_t len);

/** brk_pattern_problem() as an error: ZQ_OK when it has none, else ZQ_ERR_MALFORMED. */
zq_err_t brk_pattern_check(const char *pattern, size_t len);

/** Why @p topic cannot be published on: it has a '+' or a '#' (MQTT 3.1.1 §4.7.1.1: wildcards
 *  are for patterns only; no exact pattern could name it). Static text, as zq.js's.
 *  @return NULL when it can (the broker's other name rules still apply). */
const char *brk_topic_problem(const char *topic, size_t len);

/** Whether @p topic matches @p pattern (a checked pattern). Both are byte strings with
 *  lengths (not NUL-terminated). Linear in their lengths; no recursion. */
bool brk_pattern_match(const char *pattern, size_t plen, const char *topic, size_t tlen);

/** Whether @p pattern has no wildcard at all (an exact topic): such patterns match only
 *  themselves, so they can be looked up directly (e.g. the last-value cache). */
bool brk_pattern_is_exact(const char *pattern, size_t len);

#endif /* ZQ_BRK_PATTERN_H */

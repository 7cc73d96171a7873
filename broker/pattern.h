/**
 * @file pattern.h
 * @brief Topic patterns (broker/PROTOCOL.md §3): exact, prefix, and MQTT-style wildcards over
 *        '.'-separated levels. Pure functions over byte strings; no allocation.
 *
 *   "news"            only "news"
 *   "news.+"          "news.eu", "news.us"; not "news", not "news.eu.fr"
 *   "news.#"          "news", "news.eu", "news.eu.fr" (zero or more levels after "news")
 *   "#"               every topic
 *   "sensors.+.temp"  "sensors.kitchen.temp"
 *   "log*"            every topic starting with "log": "log", "logs", "log.x" (zmqcat's prefix)
 *   "*"               every topic
 *
 * '+' and '#' are wildcards only when they are a whole level; '#' only as the last level. '*'
 * is a prefix marker only as the pattern's last byte; elsewhere it is a plain byte. An empty
 * level ("a..b") is a level like any other, as in MQTT.
 */
#ifndef ZQ_BRK_PATTERN_H
#define ZQ_BRK_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

#include "zq/err.h"

/** Whether @p pattern is usable: non-empty, no '#' except as a whole last level, valid UTF-8,
 *  no control bytes. @return ZQ_OK or ZQ_ERR_MALFORMED. */
zq_err_t brk_pattern_check(const char *pattern, size_t len);

/** Whether @p topic matches @p pattern (a checked pattern). Both are byte strings with
 *  lengths (not NUL-terminated). Linear in their lengths; no recursion. */
bool brk_pattern_match(const char *pattern, size_t plen, const char *topic, size_t tlen);

/** Whether @p pattern has no wildcard at all (an exact topic): such patterns can be looked
 *  up directly (e.g. the last-value cache). */
bool brk_pattern_is_exact(const char *pattern, size_t len);

#endif /* ZQ_BRK_PATTERN_H */

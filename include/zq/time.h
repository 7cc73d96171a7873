/**
 * @file time.h
 * @brief zq's one timer model: every layer takes `now` in monotonic milliseconds.
 *
 * Time only moves forward. A layer's next_timeout() returns the earliest `now` at which its
 * handle_timeout() has work, or ZQ_TIME_NEVER; composers return the minimum over their parts.
 */
#ifndef ZQ_TIME_H
#define ZQ_TIME_H

#include <stdint.h>

#define ZQ_TIME_NEVER UINT64_MAX

static inline uint64_t zq_time_min(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

#endif /* ZQ_TIME_H */

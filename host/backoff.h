/**
 * @file backoff.h
 * @brief When to try the signalling server again after it went away: ZeroQ's schedule
 *        (docs/zeroq-wire.md §4: 1 s, doubling, at most 30 s), each wait jittered so that a room
 *        of devices a restarted server dropped at once does not come back at once.
 *
 * A wait is drawn between three quarters of the step and the step itself: never longer than
 * the bound, never shorter than 3/4 of the first step. A success starts the schedule over.
 *
 * @code
 * zq_backoff_t b;
 * zq_backoff_init(&b, 1000, 30000);
 * uint64_t retry_at = now + zq_backoff_next(&b, &rand);   // connection lost, or a retry failed
 * zq_backoff_reset(&b);                                   // connected again
 * @endcode
 */
#ifndef ZQ_HOST_BACKOFF_H
#define ZQ_HOST_BACKOFF_H

#include <stdint.h>

#include "zq/rand.h"

typedef struct {
    uint32_t first_ms; /* the first step */
    uint32_t max_ms;   /* no step is longer */
    uint32_t step_ms;  /* the step the next wait is drawn from */
} zq_backoff_t;

/** Starts the schedule at @p first_ms (>= 1), steps bounded by @p max_ms (>= first_ms). */
void zq_backoff_init(zq_backoff_t *b, uint32_t first_ms, uint32_t max_ms);

/** The wait before the next try, in ms, in [3/4 step, step]; the step then doubles, up to the
 *  bound. A random source that fails gives the step itself: a wait, never a spin. */
uint32_t zq_backoff_next(zq_backoff_t *b, const zq_rand_t *rand);

/** A try succeeded: the next wait is drawn from the first step again. */
void zq_backoff_reset(zq_backoff_t *b);

#endif /* ZQ_HOST_BACKOFF_H */

/* The reconnect backoff (see backoff.h). */
#include "host/backoff.h"

void zq_backoff_init(zq_backoff_t *b, uint32_t first_ms, uint32_t max_ms)
{
    b->first_ms = first_ms;
    b->max_ms = max_ms;
    b->step_ms = first_ms;
}

uint32_t zq_backoff_next(zq_backoff_t *b, const zq_rand_t *rand)
{
    uint32_t step = b->step_ms;
    uint32_t off = 0;
    if (zq_rand_below(rand, step / 4 + 1, &off) != ZQ_OK) {
        off = 0;
    }
    b->step_ms = step > b->max_ms / 2 ? b->max_ms : step * 2;
    return step - off;
}

void zq_backoff_reset(zq_backoff_t *b)
{
    b->step_ms = b->first_ms;
}

/* What the fuzz targets share: an invariant check that crashes with its line, and a seeded,
 * repeatable random source (a linear congruential generator, Numerical Recipes' constants),
 * so that one input always runs the same way. Header only: each target is one binary. */
#ifndef ZQ_FUZZ_SUPPORT_H
#define ZQ_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* An invariant violation is a crash, with the line that caught it. */
#define check(ok)                                                       \
    do {                                                                \
        if (!(ok)) {                                                    \
            fprintf(stderr, "invariant failed at line %d\n", __LINE__); \
            abort();                                                    \
        }                                                               \
    } while (0)

/* zq_rand_t's fill over a uint32_t state at @p ctx. */
static inline int fuzz_counter_rand(void *ctx, unsigned char *out, size_t len)
{
    uint32_t *state = ctx;
    for (size_t i = 0; i < len; i++) {
        *state = *state * 1664525u + 1013904223u;
        out[i] = (unsigned char)(*state >> 24);
    }
    return 0;
}

#endif

/* A deterministic random source for tests: the same seed replays the same run. */
#ifndef ZQ_TEST_RAND_H
#define ZQ_TEST_RAND_H

#include <stdint.h>

#include "zq/rand.h"

typedef struct {
    uint64_t state;
} test_rand_t;

/** A zq_rand_t over @p r, seeded with @p seed (xorshift64*: fine for tests, not for keys). */
zq_rand_t test_rand(test_rand_t *r, uint64_t seed);

/** The next 64 random bits. */
uint64_t test_rand_next(test_rand_t *r);

#endif

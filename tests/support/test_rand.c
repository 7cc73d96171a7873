#include "test_rand.h"

uint64_t test_rand_next(test_rand_t *r)
{
    uint64_t x = r->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static int fill(void *ctx, unsigned char *out, size_t len)
{
    test_rand_t *r = ctx;
    for (size_t i = 0; i < len; i++) {
        out[i] = (unsigned char)(test_rand_next(r) >> 56);
    }
    return 0;
}

zq_rand_t test_rand(test_rand_t *r, uint64_t seed)
{
    r->state = seed != 0 ? seed : 0x9E3779B97F4A7C15ULL;
    zq_rand_t rand = {fill, r};
    return rand;
}

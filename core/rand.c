#include "zq/rand.h"

zq_err_t zq_rand_below(const zq_rand_t *rand, uint32_t bound, uint32_t *out)
{
    if (bound == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    /* Reject the top partial range so every value is equally likely. */
    uint32_t limit = UINT32_MAX - UINT32_MAX % bound;
    for (;;) {
        uint8_t b[4];
        zq_err_t err = zq_rand_bytes(rand, b, sizeof b);
        if (err != ZQ_OK) {
            return err;
        }
        uint32_t v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        if (v < limit) {
            *out = v % bound;
            return ZQ_OK;
        }
    }
}

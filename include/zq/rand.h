/**
 * @file rand.h
 * @brief Randomness as an injected dependency.
 *
 * The portable core never reads an entropy source. Whoever creates a context hands it a
 * zq_rand_t; the port supplies one over the OS (getrandom, esp_fill_random), and tests supply a
 * deterministic one so a run can be replayed. The function has mbedTLS's f_rng shape, so the
 * same object serves mbedTLS directly.
 */
#ifndef ZQ_RAND_H
#define ZQ_RAND_H

#include <stddef.h>
#include <stdint.h>

#include "zq/err.h"

/** Fills @p out with @p len random bytes; returns 0 on success (mbedTLS f_rng convention). */
typedef int (*zq_rand_fn)(void *ctx, unsigned char *out, size_t len);

typedef struct {
    zq_rand_fn fill; /**< required */
    void *ctx;       /**< passed to @c fill; borrowed, must outlive every user */
} zq_rand_t;

static inline zq_err_t zq_rand_bytes(const zq_rand_t *rand, void *out, size_t len)
{
    return rand->fill(rand->ctx, (unsigned char *)out, len) == 0 ? ZQ_OK : ZQ_ERR_CRYPTO;
}

/** A uniformly random value in [0, bound) (bound > 0), by rejection sampling. */
zq_err_t zq_rand_below(const zq_rand_t *rand, uint32_t bound, uint32_t *out);

#endif /* ZQ_RAND_H */

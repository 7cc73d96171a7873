/* The kernel's random bytes, for the port's zq_rand_t and for PSA Crypto (psa_random.c). */
#ifndef ZQ_PORT_POSIX_PSA_RANDOM_H
#define ZQ_PORT_POSIX_PSA_RANDOM_H

#include <stddef.h>

/** Fills @p out from getrandom(2), retrying partial reads; 0, or -1 with errno set. The
 *  signature is mbedTLS's f_rng (and zq_rand_fn). */
int zq_posix_getrandom(void *ctx, unsigned char *out, size_t len);

#endif

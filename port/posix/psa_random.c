/* PSA Crypto's random generator on Linux: mbedTLS calls mbedtls_psa_external_get_random()
 * (MBEDTLS_PSA_CRYPTO_EXTERNAL_RNG, config/zq_mbedtls_config.h) for every random byte it needs
 * itself, which on mbedTLS 4 includes each handshake's randoms and ECDHE keys. getrandom(2)
 * is the kernel's CSPRNG; no DRBG of mbedTLS's own runs on top of it. Its own library
 * (zq_psa_random) because every program that links mbedTLS needs it, tests included. */
#include <errno.h>
#include <sys/random.h>

#include "port/posix/psa_random.h"
#include "psa/crypto.h"

int zq_posix_getrandom(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    size_t done = 0;
    while (done < len) {
        /* getrandom() returns at most 32 MiB - 1 per call and may be interrupted by a signal
         * before it filled the buffer: both are partial reads, not failures. */
        ssize_t n = getrandom(out + done, len - done, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

psa_status_t mbedtls_psa_external_get_random(mbedtls_psa_external_random_context_t *context,
                                             uint8_t *output, size_t output_size,
                                             size_t *output_length)
{
    (void)context;
    if (zq_posix_getrandom(NULL, output, output_size) != 0) {
        *output_length = 0;
        return PSA_ERROR_INSUFFICIENT_ENTROPY;
    }
    *output_length = output_size;
    return PSA_SUCCESS;
}

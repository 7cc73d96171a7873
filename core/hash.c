/* One-shot hashes over PSA Crypto (include/zq/crypto.h says why PSA). */
#include "zq/crypto.h"

/* zq's protocols need these two hashes: refuse a build whose mbedTLS lacks them rather than
 * return a digest that was never computed. */
#if !defined(PSA_WANT_ALG_SHA_1) || !defined(PSA_WANT_ALG_SHA_256)
#error "zq needs SHA-1 (STUN, RFC 8489 §14.5; WebSocket, RFC 6455 §4.2.2) and SHA-256 (PSA_WANT_ALG_SHA_1, PSA_WANT_ALG_SHA_256)"
#endif

void zq_sha1(const uint8_t *data, size_t len, uint8_t digest[ZQ_SHA1_LEN])
{
    size_t out_len;
    (void)psa_hash_compute(PSA_ALG_SHA_1, data, len, digest, ZQ_SHA1_LEN, &out_len);
}

void zq_sha256(const uint8_t *data, size_t len, uint8_t digest[ZQ_SHA256_LEN])
{
    size_t out_len;
    (void)psa_hash_compute(PSA_ALG_SHA_256, data, len, digest, ZQ_SHA256_LEN, &out_len);
}

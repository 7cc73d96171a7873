/* HMAC (RFC 2104) over PSA Crypto's hashes: one construction for STUN's HMAC-SHA1 and SCTP's
 * and the signalling tokens' HMAC-SHA256, both hashes with 64-byte blocks. */
#include <string.h>

#include "zq/crypto.h"

/* RFC 2104 §2: H(K XOR opad, H(K XOR ipad, text)), with keys longer than the block hashed
 * first. B = 64 for SHA-1 and SHA-256. */
#define HMAC_BLOCK 64

static void start_keyed(psa_hash_operation_t *op, psa_algorithm_t alg,
                        const uint8_t block[HMAC_BLOCK], uint8_t pad_byte)
{
    uint8_t pad[HMAC_BLOCK];
    for (size_t i = 0; i < HMAC_BLOCK; i++) {
        pad[i] = block[i] ^ pad_byte;
    }
    *op = psa_hash_operation_init();
    (void)psa_hash_setup(op, alg);
    (void)psa_hash_update(op, pad, HMAC_BLOCK);
    memset(pad, 0, sizeof pad);
}

static void hmac_start(psa_hash_operation_t *inner, psa_hash_operation_t *outer,
                       psa_algorithm_t alg, const uint8_t *key, size_t key_len)
{
    uint8_t block[HMAC_BLOCK] = {0};
    if (key_len > HMAC_BLOCK) {
        /* Into a digest-sized buffer: PSA leaves the rest of an output buffer unspecified,
         * and the block's rest must be zeros. */
        uint8_t digest[PSA_HASH_MAX_SIZE];
        size_t n;
        (void)psa_hash_compute(alg, key, key_len, digest, sizeof digest, &n);
        memcpy(block, digest, n);
    } else if (key_len > 0) {
        memcpy(block, key, key_len);
    }
    start_keyed(inner, alg, block, 0x36);
    start_keyed(outer, alg, block, 0x5c);
    memset(block, 0, sizeof block);
}

static void hmac_finish(psa_hash_operation_t *inner, psa_hash_operation_t *outer, uint8_t *mac,
                        size_t mac_len)
{
    uint8_t inner_digest[PSA_HASH_MAX_SIZE];
    size_t n;
    (void)psa_hash_finish(inner, inner_digest, sizeof inner_digest, &n);
    (void)psa_hash_update(outer, inner_digest, n);
    (void)psa_hash_finish(outer, mac, mac_len, &n);
}

void zq_hmac_sha1_start(zq_hmac_sha1_t *h, const uint8_t *key, size_t key_len)
{
    hmac_start(&h->inner, &h->outer, PSA_ALG_SHA_1, key, key_len);
}

void zq_hmac_sha1_update(zq_hmac_sha1_t *h, const uint8_t *data, size_t len)
{
    (void)psa_hash_update(&h->inner, data, len);
}

void zq_hmac_sha1_finish(zq_hmac_sha1_t *h, uint8_t mac[ZQ_SHA1_LEN])
{
    hmac_finish(&h->inner, &h->outer, mac, ZQ_SHA1_LEN);
}

void zq_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                    uint8_t mac[ZQ_SHA256_LEN])
{
    psa_hash_operation_t inner, outer;
    hmac_start(&inner, &outer, PSA_ALG_SHA_256, key, key_len);
    (void)psa_hash_update(&inner, data, len);
    hmac_finish(&inner, &outer, mac, ZQ_SHA256_LEN);
}

int zq_consttime_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
    uint8_t diff = 0;
    for (size_t i = 0; i < len; i++) {
        diff |= (uint8_t)(a[i] ^ b[i]);
    }
    return diff == 0;
}

#include <string.h>

#include "zq/crypto.h"

/* RFC 2104 §2: H(K XOR opad, H(K XOR ipad, text)), with keys longer than the block hashed first. */
#define SHA1_BLOCK 64

static void start_keyed(psa_hash_operation_t *op, const uint8_t block[SHA1_BLOCK],
                        uint8_t pad_byte)
{
    uint8_t pad[SHA1_BLOCK];
    for (size_t i = 0; i < SHA1_BLOCK; i++) {
        pad[i] = block[i] ^ pad_byte;
    }
    *op = psa_hash_operation_init();
    (void)psa_hash_setup(op, PSA_ALG_SHA_1);
    (void)psa_hash_update(op, pad, SHA1_BLOCK);
    memset(pad, 0, sizeof pad);
}

void zq_hmac_sha1_start(zq_hmac_sha1_t *h, const uint8_t *key, size_t key_len)
{
    uint8_t block[SHA1_BLOCK] = {0};
    if (key_len > SHA1_BLOCK) {
        zq_sha1(key, key_len, block);
    } else if (key_len > 0) {
        memcpy(block, key, key_len);
    }
    start_keyed(&h->inner, block, 0x36);
    start_keyed(&h->outer, block, 0x5c);
    memset(block, 0, sizeof block);
}

void zq_hmac_sha1_update(zq_hmac_sha1_t *h, const uint8_t *data, size_t len)
{
    (void)psa_hash_update(&h->inner, data, len);
}

void zq_hmac_sha1_finish(zq_hmac_sha1_t *h, uint8_t mac[ZQ_SHA1_LEN])
{
    uint8_t inner_digest[ZQ_SHA1_LEN];
    size_t n;
    (void)psa_hash_finish(&h->inner, inner_digest, sizeof inner_digest, &n);
    (void)psa_hash_update(&h->outer, inner_digest, sizeof inner_digest);
    (void)psa_hash_finish(&h->outer, mac, ZQ_SHA1_LEN, &n);
}

int zq_consttime_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
    uint8_t diff = 0;
    for (size_t i = 0; i < len; i++) {
        diff |= (uint8_t)(a[i] ^ b[i]);
    }
    return diff == 0;
}

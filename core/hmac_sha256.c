#include <string.h>

#include "zq/crypto.h"

/* RFC 2104 §2 with SHA-256 (64-byte blocks): H(K ^ opad, H(K ^ ipad, text)). */
#define SHA256_BLOCK 64

static void keyed_hash(const uint8_t block[SHA256_BLOCK], uint8_t pad_byte, const uint8_t *data,
                       size_t len, uint8_t out[ZQ_SHA256_LEN])
{
    uint8_t pad[SHA256_BLOCK];
    for (size_t i = 0; i < SHA256_BLOCK; i++) {
        pad[i] = block[i] ^ pad_byte;
    }
    psa_hash_operation_t op = psa_hash_operation_init();
    size_t n;
    (void)psa_hash_setup(&op, PSA_ALG_SHA_256);
    (void)psa_hash_update(&op, pad, sizeof pad);
    (void)psa_hash_update(&op, data, len);
    (void)psa_hash_finish(&op, out, ZQ_SHA256_LEN, &n);
    memset(pad, 0, sizeof pad);
}

void zq_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                    uint8_t mac[ZQ_SHA256_LEN])
{
    uint8_t block[SHA256_BLOCK] = {0};
    if (key_len > SHA256_BLOCK) {
        zq_sha256(key, key_len, block);
    } else if (key_len > 0) {
        memcpy(block, key, key_len);
    }
    uint8_t inner[ZQ_SHA256_LEN];
    keyed_hash(block, 0x36, data, len, inner);
    keyed_hash(block, 0x5c, inner, sizeof inner, mac);
    memset(block, 0, sizeof block);
}

#include <string.h>

#include "zq/crypto.h"

/* RFC 2104 §2: H(K XOR opad, H(K XOR ipad, text)), with keys longer than the block hashed first. */
#define SHA1_BLOCK 64

void zq_hmac_sha1_start(zq_hmac_sha1_t *h, const uint8_t *key, size_t key_len)
{
    uint8_t block[SHA1_BLOCK] = {0};
    if (key_len > SHA1_BLOCK) {
        (void)mbedtls_sha1(key, key_len, block);
    } else if (key_len > 0) {
        memcpy(block, key, key_len);
    }
    uint8_t pad[SHA1_BLOCK];
    mbedtls_sha1_init(&h->inner);
    mbedtls_sha1_init(&h->outer);
    for (size_t i = 0; i < SHA1_BLOCK; i++) {
        pad[i] = block[i] ^ 0x36;
    }
    (void)mbedtls_sha1_starts(&h->inner);
    (void)mbedtls_sha1_update(&h->inner, pad, SHA1_BLOCK);
    for (size_t i = 0; i < SHA1_BLOCK; i++) {
        pad[i] = block[i] ^ 0x5c;
    }
    (void)mbedtls_sha1_starts(&h->outer);
    (void)mbedtls_sha1_update(&h->outer, pad, SHA1_BLOCK);
    memset(block, 0, sizeof block);
    memset(pad, 0, sizeof pad);
}

void zq_hmac_sha1_update(zq_hmac_sha1_t *h, const uint8_t *data, size_t len)
{
    (void)mbedtls_sha1_update(&h->inner, data, len);
}

void zq_hmac_sha1_finish(zq_hmac_sha1_t *h, uint8_t mac[ZQ_SHA1_LEN])
{
    uint8_t inner_digest[ZQ_SHA1_LEN];
    (void)mbedtls_sha1_finish(&h->inner, inner_digest);
    (void)mbedtls_sha1_update(&h->outer, inner_digest, sizeof inner_digest);
    (void)mbedtls_sha1_finish(&h->outer, mac);
    mbedtls_sha1_free(&h->inner);
    mbedtls_sha1_free(&h->outer);
}

int zq_consttime_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
    uint8_t diff = 0;
    for (size_t i = 0; i < len; i++) {
        diff |= (uint8_t)(a[i] ^ b[i]);
    }
    return diff == 0;
}

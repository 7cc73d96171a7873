/**
 * @file crypto.h
 * @brief The few hashes zq's own protocols need, each without any allocation.
 *
 * HMAC-SHA1 runs over mbedTLS's SHA-1 context on the stack (mbedtls_md_setup() would allocate).
 * It is incremental because STUN authenticates a message whose header length field must be
 * rewritten first (RFC 8489 §14.5): the caller feeds the patched header, then the rest.
 * CRC-32 is table-driven from flash (the table is const).
 */
#ifndef ZQ_CRYPTO_H
#define ZQ_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include "mbedtls/sha1.h"

#define ZQ_SHA1_LEN 20
#define ZQ_SHA256_LEN 32

/** An HMAC-SHA1 computation in progress (RFC 2104). Plain data: copy or drop it freely. */
typedef struct {
    mbedtls_sha1_context inner;
    mbedtls_sha1_context outer;
} zq_hmac_sha1_t;

void zq_hmac_sha1_start(zq_hmac_sha1_t *h, const uint8_t *key, size_t key_len);
void zq_hmac_sha1_update(zq_hmac_sha1_t *h, const uint8_t *data, size_t len);
void zq_hmac_sha1_finish(zq_hmac_sha1_t *h, uint8_t mac[ZQ_SHA1_LEN]);

/** HMAC-SHA256 of @p len bytes in one call (RFC 2104 over mbedTLS's SHA-256, no allocation).
 *  Used for SCTP's state cookie. */
void zq_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                    uint8_t mac[ZQ_SHA256_LEN]);

/** CRC-32 (ISO-HDLC, the polynomial of Ethernet and zlib). Start with crc = 0. */
uint32_t zq_crc32_update(uint32_t crc, const uint8_t *data, size_t len);

/** Compares two equal-length byte strings in time independent of where they differ. */
int zq_consttime_equal(const uint8_t *a, const uint8_t *b, size_t len);

#endif /* ZQ_CRYPTO_H */

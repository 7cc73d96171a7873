/**
 * @file crypto.h
 * @brief The few hashes zq's own protocols need, each without any allocation.
 *
 * Every hash goes through PSA Crypto's hash API, the one interface mbedTLS 3.6 and mbedTLS 4
 * (TF-PSA-Crypto) both offer: mbedTLS 4 keeps its SHA-1 and SHA-256 modules private. The
 * operations live on the caller's stack; no key slot is used (HMAC is built here over the hash,
 * RFC 2104, not through psa_mac_*, which would import the key into a slot). The hashes are
 * compile-time requirements (crypto.c refuses a configuration without them), so they cannot fail
 * at run time and return nothing.
 *
 * HMAC-SHA1 is incremental because STUN authenticates a message whose header length field must
 * be rewritten first (RFC 8489 §14.5): the caller feeds the patched header, then the rest.
 * CRC-32 is table-driven from flash (the table is const).
 */
#ifndef ZQ_CRYPTO_H
#define ZQ_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include "psa/crypto.h"

#define ZQ_SHA1_LEN 20
#define ZQ_SHA256_LEN 32

/** An HMAC-SHA1 computation in progress (RFC 2104): start, update, then finish, which releases
 *  it (a PSA operation is not copied or dropped half-way). */
typedef struct {
    psa_hash_operation_t inner;
    psa_hash_operation_t outer;
} zq_hmac_sha1_t;

/** SHA-1 of @p len bytes (RFC 3174): the WebSocket handshake's accept key (RFC 6455 §4.2.2). */
void zq_sha1(const uint8_t *data, size_t len, uint8_t digest[ZQ_SHA1_LEN]);

/** SHA-256 of @p len bytes: DTLS certificate fingerprints (RFC 8122 §5). */
void zq_sha256(const uint8_t *data, size_t len, uint8_t digest[ZQ_SHA256_LEN]);

void zq_hmac_sha1_start(zq_hmac_sha1_t *h, const uint8_t *key, size_t key_len);
void zq_hmac_sha1_update(zq_hmac_sha1_t *h, const uint8_t *data, size_t len);
void zq_hmac_sha1_finish(zq_hmac_sha1_t *h, uint8_t mac[ZQ_SHA1_LEN]);

/** HMAC-SHA256 of @p len bytes in one call (RFC 2104 over PSA's SHA-256, no allocation).
 *  Used for SCTP's state cookie. */
void zq_hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len,
                    uint8_t mac[ZQ_SHA256_LEN]);

/** CRC-32 (ISO-HDLC, the polynomial of Ethernet and zlib). Start with crc = 0. */
uint32_t zq_crc32_update(uint32_t crc, const uint8_t *data, size_t len);

/** Compares two equal-length byte strings in time independent of where they differ. */
int zq_consttime_equal(const uint8_t *a, const uint8_t *b, size_t len);

#endif /* ZQ_CRYPTO_H */

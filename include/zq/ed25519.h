/**
 * @file ed25519.h
 * @brief Ed25519 signatures (RFC 8032 §5.1), signing only: what a NATS nkey proves its
 *        identity with (the server's nonce, signed). mbedTLS 3.6 has no EdDSA.
 *
 * Pure computation on the caller's stack: no allocation, no randomness (Ed25519 is
 * deterministic, RFC 8032 §5.1.6), SHA-512 through PSA. The secret's bits steer no branch and
 * no memory index (the ladder swaps by masks; the scalar reductions subtract by masks). Where
 * the mbedTLS configuration has no SHA-512 (the devices'), the calls say ZQ_ERR_UNSUPPORTED.
 */
#ifndef ZQ_ED25519_H
#define ZQ_ED25519_H

#include <stddef.h>
#include <stdint.h>

#include "zq/err.h"

#define ZQ_ED25519_SEED_LEN 32
#define ZQ_ED25519_PUBLIC_LEN 32
#define ZQ_ED25519_SIG_LEN 64

/** The public key of the 32-byte private key @p seed (RFC 8032 §5.1.5).
 *  @return ZQ_OK; ZQ_ERR_UNSUPPORTED. */
zq_err_t zq_ed25519_public(const uint8_t seed[ZQ_ED25519_SEED_LEN],
                           uint8_t pub[ZQ_ED25519_PUBLIC_LEN]);

/** The signature of @p len bytes of @p msg under @p seed (RFC 8032 §5.1.6).
 *  @return ZQ_OK; ZQ_ERR_UNSUPPORTED. */
zq_err_t zq_ed25519_sign(const uint8_t seed[ZQ_ED25519_SEED_LEN], const uint8_t *msg, size_t len,
                         uint8_t sig[ZQ_ED25519_SIG_LEN]);

#endif /* ZQ_ED25519_H */

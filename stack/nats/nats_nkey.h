/**
 * @file nats_nkey.h
 * @brief A NATS user's nkey (an Ed25519 key in NATS's text form) and .creds file: what
 *        CONNECT proves the user with, by signing the nonce of the server's INFO.
 *
 * The text form (NATS's nkeys, as `nk` and `nsc` write it): RFC 4648 §6 base32 without
 * padding of prefix bytes, the 32 key bytes and a CRC-16 (the XMODEM one: polynomial 0x1021,
 * start 0) of what precedes it, little-endian. A user's public key has the prefix byte
 * 20 << 3 (it reads "U..."); a seed has two, 18 << 3 | 20 >> 5 and (20 & 31) << 3 ("SU...").
 * A .creds file holds the user's JWT and seed between "-----BEGIN NATS USER JWT-----" and
 * "-----BEGIN USER NKEY SEED-----" lines and their ends.
 *
 * Pure computation on caller memory (core/ed25519.c signs); a build without SHA-512 (the
 * devices') has no nkeys and says ZQ_ERR_UNSUPPORTED.
 */
#ifndef ZQ_NATS_NKEY_H
#define ZQ_NATS_NKEY_H

#include <stddef.h>
#include <stdint.h>

#include "zq/ed25519.h"
#include "zq/err.h"

#define NATS_NKEY_PUBLIC_LEN 56 /* base32 of 1 + 32 + 2 bytes */
#define NATS_NKEY_SEED_LEN 58   /* base32 of 2 + 32 + 2 bytes */
#define NATS_NKEY_SIG_LEN 86    /* base64url, unpadded, of 64 bytes */
/** The longest user JWT a .creds file may hold (nsc's are well under 2 KiB). */
#define NATS_JWT_MAX 4096

typedef struct {
    uint8_t seed[ZQ_ED25519_SEED_LEN];
    char public_key[NATS_NKEY_PUBLIC_LEN + 1]; /**< "U...", NUL-terminated */
} nats_nkey_t;

/**
 * A user's seed ("SU..." and 56 more characters; surrounding whitespace ignored) into @p k,
 * with its public key.
 * @return ZQ_OK; ZQ_ERR_MALFORMED (not base32 of the right length, or the CRC differs);
 *         ZQ_ERR_INVALID_ARG (the seed of another kind: an account's "SA...", an operator's
 *         "SO..."); ZQ_ERR_UNSUPPORTED (no Ed25519 here).
 */
zq_err_t nats_nkey_from_seed(nats_nkey_t *k, const char *text, size_t len);

/** CONNECT's "sig": base64url without padding of the Ed25519 signature of the @p len bytes
 *  of @p nonce (INFO's text, as sent). @return ZQ_OK; ZQ_ERR_UNSUPPORTED. */
zq_err_t nats_nkey_sign(const nats_nkey_t *k, const char *nonce, size_t len,
                        char sig[NATS_NKEY_SIG_LEN + 1]);

/**
 * A .creds file's JWT (into @p jwt, NUL-terminated) and seed (into @p k).
 * @return ZQ_OK; ZQ_ERR_MALFORMED (a block missing, or a JWT that is not three base64url
 *         parts); ZQ_ERR_TOO_LONG (a JWT over @p jwt_cap - 1); the seed's errors as
 *         nats_nkey_from_seed().
 */
zq_err_t nats_creds_parse(const char *text, size_t len, char *jwt, size_t jwt_cap,
                          nats_nkey_t *k);

#endif /* ZQ_NATS_NKEY_H */

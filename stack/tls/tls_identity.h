/**
 * @file tls_identity.h
 * @brief A certificate chain and its private key, for the side of a TLS 1.2 session that
 *        proves who it is: zq signal's server (tls_server.h) and a client a server asks for a
 *        certificate (RFC 5246 §7.4.6: NATS's `verify`, mosquitto's `require_certificate`).
 */
#ifndef ZQ_TLS_IDENTITY_H
#define ZQ_TLS_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>

#include "mbedtls/pk.h"
#include "mbedtls/x509_crt.h"
#include "zq/err.h"
#include "zq/rand.h"

typedef struct {
    mbedtls_x509_crt chain; /**< the leaf first, then its intermediates */
    mbedtls_pk_context key;
    char why[256];          /**< what tls_identity_load() refused */
    bool ready;
} tls_identity_t;

/**
 * Parses @p chain (PEM: the certificate, then the intermediates the peer needs, as Let's
 * Encrypt's fullchain.pem) and @p key (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC, unencrypted) and
 * checks that the key is the certificate's and that the chain fits one record. Both texts end
 * with a NUL, which the lengths leave out (what mbedTLS's PEM parser asks); both are parsed
 * into the arena, not borrowed.
 * @return ZQ_OK; ZQ_ERR_INVALID_ARG with id->why; ZQ_ERR_UNSUPPORTED (a build without TLS).
 */
zq_err_t tls_identity_load(tls_identity_t *id, const zq_rand_t *rand, const char *chain,
                           size_t chain_len, const char *key, size_t key_len);
void tls_identity_free(tls_identity_t *id);

#endif /* ZQ_TLS_IDENTITY_H */

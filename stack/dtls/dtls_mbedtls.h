/* Where mbedTLS 3.6 and mbedTLS 4 differ in the TLS and X.509 calls zq makes: mbedTLS 4 takes
 * every random byte from PSA Crypto's generator (which the port supplies,
 * mbedtls_psa_external_get_random), so its calls lost their RNG arguments. Everything else in
 * stack/dtls is one code path: keys, hashes and signatures go through PSA Crypto in both.
 * Not part of the public API. */
#ifndef ZQ_DTLS_MBEDTLS_H
#define ZQ_DTLS_MBEDTLS_H

#include "mbedtls/build_info.h"
#include "mbedtls/pk.h"
#include "mbedtls/ssl.h"
#include "mbedtls/ssl_cookie.h"
#include "mbedtls/x509_crt.h"
#include "zq/rand.h"

#if MBEDTLS_VERSION_MAJOR >= 4
#define DTLS_MBEDTLS_PSA_RNG 1 /* mbedTLS 4: the TLS layer draws from PSA's RNG only */
#else
#define DTLS_MBEDTLS_PSA_RNG 0
#endif

/* The generator of the handshake's randoms and ECDHE keys: the caller's on 3.6, PSA's on 4. */
static inline void dtls_mbedtls_conf_rng(mbedtls_ssl_config *conf, const zq_rand_t *rand)
{
#if DTLS_MBEDTLS_PSA_RNG
    (void)conf;
    (void)rand;
#else
    mbedtls_ssl_conf_rng(conf, rand->fill, rand->ctx);
#endif
}

/* The HelloVerifyRequest cookie key (RFC 6347 §4.2.1) is drawn at setup. */
static inline int dtls_mbedtls_cookie_setup(mbedtls_ssl_cookie_ctx *cookies, const zq_rand_t *rand)
{
#if DTLS_MBEDTLS_PSA_RNG
    (void)rand;
    return mbedtls_ssl_cookie_setup(cookies);
#else
    return mbedtls_ssl_cookie_setup(cookies, rand->fill, rand->ctx);
#endif
}

static inline int dtls_mbedtls_write_crt_der(mbedtls_x509write_cert *w, uint8_t *buf,
                                             size_t size, const zq_rand_t *rand)
{
#if DTLS_MBEDTLS_PSA_RNG
    (void)rand;
    return mbedtls_x509write_crt_der(w, buf, size);
#else
    return mbedtls_x509write_crt_der(w, buf, size, rand->fill, rand->ctx);
#endif
}

static inline int dtls_mbedtls_parse_key(mbedtls_pk_context *pk, const uint8_t *der, size_t len,
                                         const zq_rand_t *rand)
{
#if DTLS_MBEDTLS_PSA_RNG
    (void)rand;
    return mbedtls_pk_parse_key(pk, der, len, NULL, 0);
#else
    return mbedtls_pk_parse_key(pk, der, len, NULL, 0, rand->fill, rand->ctx);
#endif
}

static inline int dtls_mbedtls_check_pair(const mbedtls_pk_context *pub,
                                          const mbedtls_pk_context *prv, const zq_rand_t *rand)
{
#if DTLS_MBEDTLS_PSA_RNG
    (void)rand;
    return mbedtls_pk_check_pair(pub, prv);
#else
    return mbedtls_pk_check_pair(pub, prv, rand->fill, rand->ctx);
#endif
}

#endif

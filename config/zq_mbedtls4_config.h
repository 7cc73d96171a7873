/**
 * @file zq_mbedtls4_config.h
 * @brief zq's mbedTLS 4 configuration (the TLS and X.509 half; the crypto half is
 *        zq_tfpsa_config.h): the same DTLS 1.2 as zq_mbedtls_config.h gives mbedTLS 3.6.
 *
 * Used as MBEDTLS_CONFIG_FILE when zq is built against mbedTLS 4 (README.md, "mbedTLS 4").
 */
#ifndef ZQ_MBEDTLS4_CONFIG_H
#define ZQ_MBEDTLS4_CONFIG_H

#define MBEDTLS_CONFIG_VERSION 0x04000000

/* ---- Certificates: the self-signed identity and the peer's leaf ---------------------------- */
#define MBEDTLS_X509_USE_C
#define MBEDTLS_X509_CRT_PARSE_C
#define MBEDTLS_X509_CREATE_C
#define MBEDTLS_X509_CRT_WRITE_C

/* ---- DTLS 1.2 (RFC 6347), as zq_mbedtls_config.h ----------------------------------------- */
#define MBEDTLS_SSL_TLS_C
#define MBEDTLS_SSL_CLI_C
#define MBEDTLS_SSL_SRV_C
#define MBEDTLS_SSL_PROTO_TLS1_2
#define MBEDTLS_SSL_PROTO_DTLS
#define MBEDTLS_SSL_DTLS_HELLO_VERIFY
#define MBEDTLS_SSL_COOKIE_C
#define MBEDTLS_SSL_DTLS_ANTI_REPLAY
#define MBEDTLS_SSL_DTLS_BADMAC_LIMIT
#define MBEDTLS_SSL_EXTENDED_MASTER_SECRET
#define MBEDTLS_SSL_DTLS_SRTP /* RFC 5764 §4.1.1 negotiated, no SRTP sent (zq_mbedtls_config.h) */
#define MBEDTLS_KEY_EXCHANGE_ECDHE_ECDSA_ENABLED
#define MBEDTLS_SSL_CIPHERSUITES                        \
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,    \
        MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
#define MBEDTLS_SSL_IN_CONTENT_LEN 1536
#define MBEDTLS_SSL_OUT_CONTENT_LEN 1280
#define MBEDTLS_SSL_DTLS_MAX_BUFFERING 4096

#if defined(ZQ_MBEDTLS_HOST)
#define MBEDTLS_ERROR_C /* mbedtls_strerror() for readable failures in tests */
#endif

#endif /* ZQ_MBEDTLS4_CONFIG_H */

/**
 * @file zq_mbedtls_dtls.h
 * @brief The TLS half of zq's mbedTLS configuration, one list for both versions: included by
 *        zq_mbedtls_config.h (mbedTLS 3.6) and zq_mbedtls4_config.h (mbedTLS 4), whose option
 *        names for certificates and DTLS are the same.
 *
 * X.509 write (the self-signed identity) and parse (the peer's certificate); DTLS 1.2 in both
 * roles with ECDHE-ECDSA (RFC 8827 §6.5), cookies, anti-replay, use_srtp; record buffers.
 */
#ifndef ZQ_MBEDTLS_DTLS_H
#define ZQ_MBEDTLS_DTLS_H

/* ---- Certificates ------------------------------------------------------------------------- */
#define MBEDTLS_X509_USE_C
#define MBEDTLS_X509_CRT_PARSE_C
#define MBEDTLS_X509_CREATE_C
#define MBEDTLS_X509_CRT_WRITE_C

/* ---- DTLS 1.2 (RFC 6347) ------------------------------------------------------------------ */
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
/* use_srtp (RFC 5764 §4.1.1) negotiated though no SRTP is ever sent: RFC 8827 §6.5 makes
 * DTLS-SRTP mandatory for WebRTC endpoints, and Pion fails a handshake without it. */
#define MBEDTLS_SSL_DTLS_SRTP
#define MBEDTLS_KEY_EXCHANGE_ECDHE_ECDSA_ENABLED
#define MBEDTLS_SSL_CIPHERSUITES                        \
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,    \
        MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256
/* Record buffers: a DTLS record never exceeds one datagram (ZQ_DTLS_MTU, 1200 by default), but
 * a peer may send up to its own MTU, so the input side keeps room for a full Ethernet frame. */
#ifndef MBEDTLS_SSL_IN_CONTENT_LEN /* zq_mbedtls_tls.h's ZQ_TLS_FULL_RECORDS: 16 KiB */
#define MBEDTLS_SSL_IN_CONTENT_LEN 1536
#endif
/* Also the largest handshake message a TLS server sends (mbedTLS fragments them only over
 * DTLS): its Certificate message, so at 1,280 `zq signal --tls-cert` takes one leaf. */
#ifndef MBEDTLS_SSL_OUT_CONTENT_LEN
#define MBEDTLS_SSL_OUT_CONTENT_LEN 1280
#endif
/* Out-of-order handshake messages kept for later: Chromium's 1,413-byte ClientHello in two
 * fragments, or a peer's whole second flight, fits. */
#define MBEDTLS_SSL_DTLS_MAX_BUFFERING 4096

#endif /* ZQ_MBEDTLS_DTLS_H */

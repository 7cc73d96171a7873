/**
 * @file zq_mbedtls_tls.h
 * @brief What TLS adds to zq's mbedTLS 3.6 configuration: a TLS 1.2 client for `wss://` and
 *        `turns:` that meets servers on the internet as they are (stack/tls/tls_client.h),
 *        and the server of `zq signal --tls-cert` (stack/tls/tls_server.h).
 *
 * Included by zq_mbedtls_config.h before the DTLS half: on the host, and in a device image
 * built with ZQ_MBEDTLS_WITH_TLS (the lwIP firmware's zq_firmware_wss; the device's wss://
 * client, port/ws/ws_device.h). A device keeps its 1,536 and 1,280-byte records.
 *
 * Web PKI chains are RSA (ISRG Root X1, 4,096 bits) or ECDSA P-256/P-384, signed with SHA-256
 * or SHA-384; servers offer ECDHE with RSA or ECDSA keys.
 *
 * Records: a peer may send 16 KiB records (RFC 5246 §6.2.1) unless the client asked for
 * smaller ones (RFC 6066 §4's max_fragment_length) and the server agreed. zq's client asks for
 * 1 KiB; browsers ask for nothing, and their ClientHello alone is over 1.5 KiB. mbedTLS has one
 * record size for every context of a build, TLS and DTLS alike: ZQ_TLS_FULL_RECORDS (CMake's
 * default on the host) gives 16 KiB in and 4 KiB out, 17,664 B more per session than the
 * device's 1,536 and 1,280 (zq_mbedtls_dtls.h); without it, the TLS client reaches servers
 * that grant 1 KiB records and the server serves clients that send no more than 1.5 KiB.
 */
#ifndef ZQ_MBEDTLS_TLS_H
#define ZQ_MBEDTLS_TLS_H

#define ZQ_MBEDTLS_TLS 1

#define MBEDTLS_RSA_C
#define MBEDTLS_PKCS1_V15
#define MBEDTLS_PKCS1_V21
#define MBEDTLS_SHA384_C
#define MBEDTLS_SHA512_C
#define MBEDTLS_ECP_DP_SECP384R1_ENABLED
#define MBEDTLS_KEY_EXCHANGE_ECDHE_RSA_ENABLED
#define MBEDTLS_SSL_SERVER_NAME_INDICATION          /* RFC 6066 §3: virtual hosts need it */
#define MBEDTLS_SSL_MAX_FRAGMENT_LENGTH             /* RFC 6066 §4: ask for 1 KiB records */
#define MBEDTLS_SSL_ALPN                            /* RFC 7301: the server says http/1.1 */
#define MBEDTLS_X509_TRUSTED_CERTIFICATE_CALLBACK   /* CAs parsed one at a time from a bundle */
#define MBEDTLS_BASE64_C                            /* the bundle's PEM (tls_anchors.c) */
/* A certificate's validity period (RFC 5280 §4.1.2.5) is checked against the wall clock, which
 * mbedTLS reads from libc on the host; an lwIP board's comes from its port
 * (zq_mbedtls_lwip_config.h), and must be set before a wss:// client starts. */
#define MBEDTLS_HAVE_TIME
#define MBEDTLS_HAVE_TIME_DATE
#undef MBEDTLS_MPI_MAX_SIZE
#define MBEDTLS_MPI_MAX_SIZE 512                    /* RSA-4096 */
#if defined(ZQ_TLS_FULL_RECORDS)
#define MBEDTLS_SSL_IN_CONTENT_LEN 16384
/* A server's Certificate message goes out whole in one record (mbedTLS fragments handshake
 * messages only over DTLS): 4 KiB takes a leaf and an intermediate of a public CA. */
#define MBEDTLS_SSL_OUT_CONTENT_LEN 4096
#elif defined(ZQ_MBEDTLS_WITH_TLS)
/* A device's wss:// client. mbedTLS reassembles a TLS handshake message whole in its input
 * buffer, however small the records (ssl_msg.c, 3.6.6): the server's Certificate message, a
 * leaf and an intermediate of a public CA (2.5 to 4 KiB; a single ECDSA leaf is ~600 B), must
 * fit, so 4 KiB in, though the records are 1 KiB. Once the handshake is over the session's
 * buffers shrink to the 1 KiB records granted (MBEDTLS_SSL_VARIABLE_BUFFER_LENGTH); a DTLS
 * session, which negotiates no record size, keeps 4 KiB: 2,560 B more per peer than without
 * TLS (README, Security). */
#define MBEDTLS_SSL_IN_CONTENT_LEN 4096
#define MBEDTLS_SSL_VARIABLE_BUFFER_LENGTH
#endif

#endif /* ZQ_MBEDTLS_TLS_H */

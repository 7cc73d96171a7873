/**
 * @file zq_mbedtls_tls.h
 * @brief What `wss://` signalling adds to zq's mbedTLS 3.6 configuration: a TLS 1.2 client
 *        that meets servers on the internet as they are (stack/tls/tls_client.h).
 *
 * Included by zq_mbedtls_config.h before the DTLS half, on the host only for now (the device
 * configurations leave it out until a device port has a `wss://` client; README, Security).
 *
 * Web PKI chains are RSA (ISRG Root X1, 4,096 bits) or ECDSA P-256/P-384, signed with SHA-256
 * or SHA-384; servers offer ECDHE with RSA or ECDSA keys.
 *
 * Records: a server may send 16 KiB records (RFC 5246 §6.2.1) unless the client asked for
 * smaller ones (RFC 6066 §4's max_fragment_length) and it agreed. The client asks for 1 KiB,
 * so the input buffer stays the DTLS one (1,536 bytes, zq_mbedtls_dtls.h): mbedTLS has one
 * record size for every context of a build, and a full record would cost every DTLS session
 * 14.8 KiB more. -DZQ_TLS_FULL_RECORDS=ON builds with 16 KiB records, for servers that ignore
 * the request (README, Security, says which do).
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
/* A certificate's validity period (RFC 5280 §4.1.2.5) is checked against the wall clock, which
 * mbedTLS reads from libc here; a device needs its clock set (SNTP) before it can do the same. */
#define MBEDTLS_HAVE_TIME
#define MBEDTLS_HAVE_TIME_DATE
#undef MBEDTLS_MPI_MAX_SIZE
#define MBEDTLS_MPI_MAX_SIZE 512                    /* RSA-4096 */
#if defined(ZQ_TLS_FULL_RECORDS)
#define MBEDTLS_SSL_IN_CONTENT_LEN 16384
#endif

#endif /* ZQ_MBEDTLS_TLS_H */

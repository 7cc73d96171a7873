/**
 * @file zq_tfpsa_config.h
 * @brief zq's TF-PSA-Crypto 1.x configuration (mbedTLS 4's crypto half), the counterpart of the
 *        crypto part of zq_mbedtls_config.h for mbedTLS 3.6: what a WebRTC data channel needs.
 *
 * Used as TF_PSA_CRYPTO_CONFIG_FILE when zq is built against mbedTLS 4 (README.md, "mbedTLS 4").
 * ECDHE-ECDSA on P-256 (RFC 8827 §6.5), AES-128-GCM and ChaCha20-Poly1305, the TLS 1.2 PRF over
 * SHA-256 (RFC 5246 §5), SHA-1 for STUN (RFC 8489 §14.5), keys parsed and written by PK, an
 * allocator over a static arena, and randomness from the port (MBEDTLS_PSA_CRYPTO_EXTERNAL_RNG:
 * mbedtls_psa_external_get_random()).
 */
#ifndef ZQ_TFPSA_CONFIG_H
#define ZQ_TFPSA_CONFIG_H

#define TF_PSA_CRYPTO_CONFIG_VERSION 0x01000000

/* ---- Mechanisms --------------------------------------------------------------------------- */
#define PSA_WANT_ALG_SHA_1 1
#define PSA_WANT_ALG_SHA_256 1
#define PSA_WANT_ALG_MD5 1 /* TURN's long-term credential key (RFC 8489 §9.2.2), on every node */
#define PSA_WANT_ALG_HMAC 1
#define PSA_WANT_ALG_TLS12_PRF 1
#define PSA_WANT_ALG_ECDH 1
#define PSA_WANT_ALG_ECDSA 1
#define PSA_WANT_ALG_DETERMINISTIC_ECDSA 1 /* RFC 6979: signing needs no fresh randomness */
#define PSA_WANT_ALG_GCM 1
#define PSA_WANT_ALG_CHACHA20_POLY1305 1
#define PSA_WANT_ECC_SECP_R1_256 1
#define PSA_WANT_KEY_TYPE_AES 1
#define PSA_WANT_KEY_TYPE_CHACHA20 1
#define PSA_WANT_KEY_TYPE_DERIVE 1
#define PSA_WANT_KEY_TYPE_HMAC 1
#define PSA_WANT_KEY_TYPE_RAW_DATA 1
#define PSA_WANT_KEY_TYPE_ECC_PUBLIC_KEY 1
#define PSA_WANT_KEY_TYPE_ECC_KEY_PAIR_BASIC 1
#define PSA_WANT_KEY_TYPE_ECC_KEY_PAIR_IMPORT 1
#define PSA_WANT_KEY_TYPE_ECC_KEY_PAIR_EXPORT 1
#define PSA_WANT_KEY_TYPE_ECC_KEY_PAIR_GENERATE 1

/* ---- Platform: no libc heap, the port's randomness, no wall clock ------------------------- */
#define MBEDTLS_PLATFORM_C
#define MBEDTLS_PLATFORM_MEMORY
#define MBEDTLS_MEMORY_BUFFER_ALLOC_C
#define MBEDTLS_MEMORY_ALIGN_MULTIPLE 8 /* as in zq_mbedtls_config.h: 8-byte members */
#define MBEDTLS_PSA_CRYPTO_C
#define MBEDTLS_PSA_CRYPTO_EXTERNAL_RNG
/* mbedTLS 4 keeps every key in a PSA slot: the identity's, and per connection its two record
 * keys plus, during a handshake, the ECDHE key and the peer's public key. On a device the slots
 * are a fixed table sized for ZQ_NODE_MAX_PEERS = 4 (1 + 4 x 2 + 4 x 2 = 17, rounded up); the
 * host's tests run many nodes in one process, so there the table grows from the arena. */
#if defined(ZQ_MBEDTLS_HOST)
#define MBEDTLS_PSA_KEY_STORE_DYNAMIC
#else
#define MBEDTLS_PSA_KEY_SLOT_COUNT 20
#endif
#define MBEDTLS_HAVE_ASM

/* ---- Implementation choices, as on mbedTLS 3.6 -------------------------------------------- */
#define MBEDTLS_ECP_NIST_OPTIM
#define MBEDTLS_ECP_WINDOW_SIZE 2
#define MBEDTLS_ECP_FIXED_POINT_OPTIM 0
#define MBEDTLS_MPI_MAX_SIZE 32
#define MBEDTLS_MPI_WINDOW_SIZE 2
#define MBEDTLS_AES_ROM_TABLES
#define MBEDTLS_AES_FEWER_TABLES

/* ---- Keys --------------------------------------------------------------------------------- */
#define MBEDTLS_MD_C
#define MBEDTLS_PK_C
#define MBEDTLS_PK_PARSE_C
#define MBEDTLS_PK_WRITE_C
#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_ASN1_WRITE_C

/* ---- Host-only: tests, tools, measurements (see zq_mbedtls_config.h) ---------------------- */
#if defined(ZQ_MBEDTLS_HOST)
#define MBEDTLS_MEMORY_DEBUG
#define MBEDTLS_BASE64_C
#define MBEDTLS_PEM_PARSE_C
#define MBEDTLS_PEM_WRITE_C
#if defined(__x86_64__) || defined(__i386__)
#define MBEDTLS_AESNI_C
#endif
#if defined(__aarch64__)
#define MBEDTLS_AESCE_C
#endif
#endif

#endif /* ZQ_TFPSA_CONFIG_H */

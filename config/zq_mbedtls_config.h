/**
 * @file zq_mbedtls_config.h
 * @brief zq's own mbedTLS 3.6 configuration: exactly what a WebRTC data channel needs.
 *
 * DTLS 1.2 (RFC 6347) in both roles with ECDHE-ECDSA on P-256 (RFC 8827 §6.5 requires ECDSA
 * P-256 support of every WebRTC endpoint), AES-128-GCM and ChaCha20-Poly1305 record protection,
 * SHA-256 for the PRF and fingerprints, SHA-1 for STUN's HMAC-SHA1 (RFC 8489 §14.5), X.509
 * write (self-signed identity) and parse (the peer's certificate), and an allocator over a
 * static arena (MBEDTLS_MEMORY_BUFFER_ALLOC_C), so the node runs with zero heap after init.
 *
 * Used by the host build and the cross-compiled footprint builds. ZQ_MBEDTLS_HOST (set by
 * CMake wherever the tests are built: natively, or for a qemu-user target) adds what tests and
 * tools need and a device does not.
 */
#ifndef ZQ_MBEDTLS_CONFIG_H
#define ZQ_MBEDTLS_CONFIG_H

/* ---- Platform: no libc heap, no OS entropy, no wall clock --------------------------------- */
#define MBEDTLS_PLATFORM_C
#define MBEDTLS_PLATFORM_MEMORY
#define MBEDTLS_MEMORY_BUFFER_ALLOC_C
/* The arena's default alignment is 4, which misaligns 8-byte members (pointers on 64-bit hosts,
 * uint64_t on 32-bit ABIs that align it to 8): UBSan reports it, some cores fault on it. */
#define MBEDTLS_MEMORY_ALIGN_MULTIPLE 8
#define MBEDTLS_NO_PLATFORM_ENTROPY
#define MBEDTLS_HAVE_ASM

/* ---- PSA Crypto: zq's hashes and keys, as on mbedTLS 4 (include/zq/crypto.h) -------------- */
#define MBEDTLS_PSA_CRYPTO_C
/* Randomness comes from the port: mbedtls_psa_external_get_random() (port/posix/psa_random.c),
 * so no entropy module or DRBG of mbedTLS's own is built. */
#define MBEDTLS_PSA_CRYPTO_EXTERNAL_RNG
/* On 3.6 only the identity's key passes through a slot, for a moment (dtls_identity.c): the TLS
 * layer keeps its keys in its own contexts (no MBEDTLS_USE_PSA_CRYPTO). */
#define MBEDTLS_PSA_KEY_SLOT_COUNT 4

/* ---- Big numbers and elliptic curves: P-256 only ------------------------------------------ */
#define MBEDTLS_BIGNUM_C
#define MBEDTLS_MPI_MAX_SIZE 32        /* P-256 needs 32-byte numbers; the default is 1024 */
#define MBEDTLS_MPI_WINDOW_SIZE 2
#define MBEDTLS_ECP_C
#define MBEDTLS_ECP_DP_SECP256R1_ENABLED
#define MBEDTLS_ECP_NIST_OPTIM
#define MBEDTLS_ECP_WINDOW_SIZE 2       /* fewer precomputed points: less RAM per operation */
#define MBEDTLS_ECP_FIXED_POINT_OPTIM 0 /* no per-curve comb table kept in RAM */
#define MBEDTLS_ECDH_C
#define MBEDTLS_ECDSA_C
#define MBEDTLS_ECDSA_DETERMINISTIC     /* RFC 6979: signing needs no fresh randomness */

/* ---- Hashes, MACs, random generator ------------------------------------------------------- */
#define MBEDTLS_MD_C
#define MBEDTLS_SHA1_C
#define MBEDTLS_SHA224_C
#define MBEDTLS_SHA256_C
/* TURN's long-term credential key is MD5(username:realm:password) (RFC 8489 §9.2.2): a node
 * that relays needs it, a device as much as the host (a device without it could never
 * answer the server's 401). */
#define MBEDTLS_MD5_C
#define MBEDTLS_HMAC_DRBG_C

/* ---- Record protection -------------------------------------------------------------------- */
#define MBEDTLS_CIPHER_C
#define MBEDTLS_AES_C
#define MBEDTLS_AES_ROM_TABLES          /* tables in flash, not RAM */
#define MBEDTLS_AES_FEWER_TABLES
#define MBEDTLS_GCM_C
#define MBEDTLS_CHACHA20_C
#define MBEDTLS_POLY1305_C
#define MBEDTLS_CHACHAPOLY_C

/* ---- Keys --------------------------------------------------------------------------------- */
#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_ASN1_WRITE_C
#define MBEDTLS_OID_C
#define MBEDTLS_PK_C
#define MBEDTLS_PK_PARSE_C
#define MBEDTLS_PK_WRITE_C

/* ---- Certificates and DTLS 1.2: the TLS half, the same on mbedTLS 4 ----------------------- */
/* ZQ_MBEDTLS_WITH_TLS: a device image whose signalling is wss:// (firmware/zq_image.cmake's
 * zq_firmware_wss); the host always has TLS. */
#if defined(ZQ_MBEDTLS_HOST) || defined(ZQ_MBEDTLS_WITH_TLS)
#include "zq_mbedtls_tls.h" /* wss:// signalling */
#endif
#include "zq_mbedtls_dtls.h"

/* ---- Host-only: tests, tools, measurements ------------------------------------------------ */
#if defined(ZQ_MBEDTLS_HOST)
#define MBEDTLS_MEMORY_DEBUG    /* arena peak and in-use counters for the memory reports */
#define MBEDTLS_ERROR_C         /* mbedtls_strerror() for readable failures in tests */
#define MBEDTLS_BASE64_C
#define MBEDTLS_PEM_PARSE_C     /* reading OpenSSL's PEM keys in interop tests */
#define MBEDTLS_PEM_WRITE_C
#if defined(__x86_64__) || defined(__i386__)
#define MBEDTLS_AESNI_C
#endif
#if defined(__aarch64__)
#define MBEDTLS_AESCE_C
#endif
#endif

#endif /* ZQ_MBEDTLS_CONFIG_H */

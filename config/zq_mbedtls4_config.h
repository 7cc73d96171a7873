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

/* ---- Certificates and DTLS 1.2: the same list as on mbedTLS 3.6 --------------------------- */
#include "zq_mbedtls_dtls.h"

#if defined(ZQ_MBEDTLS_HOST)
#define MBEDTLS_ERROR_C /* mbedtls_strerror() for readable failures in tests */
#endif

#endif /* ZQ_MBEDTLS4_CONFIG_H */

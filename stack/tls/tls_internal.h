/* What the files of stack/tls share; not part of the API. */
#ifndef ZQ_TLS_INTERNAL_H
#define ZQ_TLS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mbedtls/ssl.h"
#include "mbedtls/x509_crt.h"
#include "stack/tls/tls_session.h"
#include "zq/err.h"
#include "zq/rand.h"

/** mbedtls_ssl_config_defaults() for a stream in @p endpoint's role (MBEDTLS_SSL_IS_CLIENT or
 *  _SERVER), then what both roles share: TLS 1.2 only, ECDHE with AEAD suites, P-256 and
 *  P-384, @p rand's randomness. @return ZQ_OK, or ZQ_ERR_CRYPTO with @p conf freed. */
zq_err_t tls_conf_init(mbedtls_ssl_config *conf, int endpoint, const zq_rand_t *rand);

/** Sets @p t up with @p conf (which must outlive it) over its two buffers, ready to handshake.
 *  @return ZQ_OK; ZQ_ERR_CRYPTO when the arena cannot hold the session. */
zq_err_t tls_session_setup(tls_session_t *t, const mbedtls_ssl_config *conf);

/** True if @p bundle holds at least one PEM certificate block. */
bool tls_anchors_any(const char *bundle, size_t len);

/** mbedtls_x509_crt_ca_cb_t over a tls_client_config_t's bundle: the bundle's certificates
 *  whose subject is @p child's issuer, parsed into a list mbedTLS frees. */
int tls_anchors_find(void *cfg, const mbedtls_x509_crt *child, mbedtls_x509_crt **candidates);

/** mbedTLS's error @p ret in English: mbedtls_strerror() where the configuration has it
 *  (MBEDTLS_ERROR_C: the host), else the few a device's user meets, or "mbedTLS error". */
void tls_error_text(int ret, char *out, size_t cap);

/** A reason in English for mbedTLS's verification @p flags. */
void tls_explain_verify(uint32_t flags, bool pin_failed, char *out, size_t cap);

#endif /* ZQ_TLS_INTERNAL_H */

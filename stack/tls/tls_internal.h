/* What tls_client.c and tls_anchors.c share; not part of the API. */
#ifndef ZQ_TLS_INTERNAL_H
#define ZQ_TLS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mbedtls/x509_crt.h"

/** True if @p bundle holds at least one PEM certificate block. */
bool tls_anchors_any(const char *bundle, size_t len);

/** mbedtls_x509_crt_ca_cb_t over a tls_client_config_t's bundle: the bundle's certificates
 *  whose subject is @p child's issuer, parsed into a list mbedTLS frees. */
int tls_anchors_find(void *cfg, const mbedtls_x509_crt *child, mbedtls_x509_crt **candidates);

/** A reason in English for mbedTLS's verification @p flags. */
void tls_explain_verify(uint32_t flags, bool pin_failed, char *out, size_t cap);

#endif /* ZQ_TLS_INTERNAL_H */

/* Shared by the DTLS files; not part of the public API. */
#ifndef ZQ_DTLS_INTERNAL_H
#define ZQ_DTLS_INTERNAL_H

#include "stack/dtls/dtls.h"

/** Whether @p data is a run of complete DTLS records (header checks only). */
bool dtls_datagram_well_formed(const uint8_t *data, size_t len);

/** mbedTLS's key-export callback: one NSS key-log line per handshake (dtls_keylog.c). */
void dtls_export_keys(void *p_expkey, mbedtls_ssl_key_export_type type,
                      const unsigned char *secret, size_t secret_len,
                      const unsigned char client_random[32],
                      const unsigned char server_random[32], mbedtls_tls_prf_types tls_prf_type);

#endif

/* NSS key-log lines (the SSLKEYLOGFILE format Wireshark reads): for TLS 1.2,
 *     CLIENT_RANDOM <client random, 64 hex> <master secret, 96 hex>
 * With it, tshark decrypts zq's DTLS and shows the SCTP and DCEP inside. */
#include "stack/dtls/dtls_internal.h"
#include "zq/hex.h"

void dtls_export_keys(void *p_expkey, mbedtls_ssl_key_export_type type,
                      const unsigned char *secret, size_t secret_len,
                      const unsigned char client_random[32],
                      const unsigned char server_random[32], mbedtls_tls_prf_types tls_prf_type)
{
    static const char label[] = "CLIENT_RANDOM ";
    const dtls_t *d = p_expkey;
    char line[sizeof label + 64 + 1 + 2 * 48 + 1];
    (void)server_random;
    (void)tls_prf_type;
    if (type != MBEDTLS_SSL_KEY_EXPORT_TLS12_MASTER_SECRET || secret_len != 48 ||
        d->ctx->cfg.keylog == NULL) {
        return;
    }
    size_t at = sizeof label - 1;
    for (size_t i = 0; i < at; i++) {
        line[i] = label[i];
    }
    at += zq_hex_encode(line + at, client_random, 32);
    line[at++] = ' ';
    at += zq_hex_encode(line + at, secret, secret_len);
    line[at] = '\0';
    d->ctx->cfg.keylog(d->ctx->cfg.keylog_ctx, line);
}

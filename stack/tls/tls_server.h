/**
 * @file tls_server.h
 * @brief The server side of TLS 1.2 (RFC 5246) for `zq signal --tls-cert`: https:// and wss://
 *        for browsers and zq's own clients, sans-IO, over mbedTLS 3.6 on a static arena.
 *
 * tls_server_start() sets a tls_session_t (tls_session.h, which carries its bytes) up as a
 * server with the certificate chain and key of a tls_server_config_t. Suites as the client's
 * (RFC 9325 §4.2: ECDHE, AEAD), with an RSA or an ECDSA key; no client certificates; ALPN
 * answers "http/1.1" (RFC 7301), the only protocol served. A client's max_fragment_length
 * (RFC 6066 §4) is honoured, so zq's own clients get 1 KiB records; browsers ask for none and
 * may send 16 KiB records, which only a build with 16 KiB input records takes
 * (config/zq_mbedtls_tls.h; tls_server_takes_full_records()).
 */
#ifndef ZQ_TLS_SERVER_H
#define ZQ_TLS_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "mbedtls/pk.h"
#include "mbedtls/ssl.h"
#include "mbedtls/x509_crt.h"
#include "stack/tls/tls_identity.h"
#include "stack/tls/tls_session.h"
#include "zq/err.h"
#include "zq/rand.h"

/** The server's identity and settings, shared by every session. Read-only once set up. */
typedef struct {
    mbedtls_ssl_config conf;
    tls_identity_t identity;
    char why[256];          /**< what tls_server_config_init() refused */
    bool ready;
} tls_server_config_t;

/**
 * Loads the server's identity from @p chain and @p key (tls_identity_load(): PEM texts,
 * NUL-ended, the certificate first, then the intermediates a client needs).
 * @return ZQ_OK; ZQ_ERR_INVALID_ARG with cfg->why when a file is not what it should be;
 *         ZQ_ERR_CRYPTO (the arena is full, or mbedTLS refused the settings).
 */
zq_err_t tls_server_config_init(tls_server_config_t *cfg, const zq_rand_t *rand,
                                const char *chain, size_t chain_len, const char *key,
                                size_t key_len);
void tls_server_config_free(tls_server_config_t *cfg);

/** Starts @p t as a server with @p cfg (which must outlive it).
 *  @return ZQ_OK; ZQ_ERR_CRYPTO (the arena cannot hold another session). */
zq_err_t tls_server_start(tls_session_t *t, const tls_server_config_t *cfg);

/** True if this build takes 16 KiB records, what a browser sends (RFC 5246 §6.2.1). */
bool tls_server_takes_full_records(void);

#endif /* ZQ_TLS_SERVER_H */

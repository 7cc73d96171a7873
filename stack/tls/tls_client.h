/**
 * @file tls_client.h
 * @brief A TLS 1.2 client (RFC 5246) for `wss://` signalling, sans-IO, over mbedTLS 3.6 on the
 *        same static arena as DTLS.
 *
 * tls_client_start() sets a tls_session_t (tls_session.h, which carries its bytes) up as a
 * client. Nothing here waits, reads a clock or touches a socket.
 *
 * The server is checked as a browser would: its chain up to a trust anchor from a CA bundle
 * (PEM text, e.g. Debian's /etc/ssl/certs/ca-certificates.crt, which the port reads), its
 * validity period, and its name against the URL's host (RFC 6125 §6: a DNS name by mbedTLS,
 * which also sends it as SNI, RFC 6066 §3; an IP literal against the iPAddress names here, and
 * never as SNI). Optionally the leaf
 * key is pinned too: the SHA-256 of its SubjectPublicKeyInfo must match (RFC 7469 §2.4's
 * digest, without HPKP's header). The bundle is not parsed up front: for each certificate in
 * the chain the anchors callback (tls_anchors.c) parses only the bundle's certificates whose
 * subject is that certificate's issuer, so the arena never holds the whole bundle.
 *
 * Records: the client asks for 1 KiB records (RFC 6066 §4's max_fragment_length), which a
 * server may ignore and send up to 16 KiB (config/zq_mbedtls_tls.h says what this costs).
 */
#ifndef ZQ_TLS_CLIENT_H
#define ZQ_TLS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mbedtls/ssl.h"
#include "stack/tls/tls_identity.h"
#include "stack/tls/tls_session.h"
#include "zq/err.h"
#include "zq/rand.h"

#define TLS_PIN_LEN 32

/** A trust store that installs itself on an mbedTLS configuration: ESP-IDF's
 *  esp_crt_bundle_attach() (the certificate bundle in flash; esp_err_t is an int), which sets
 *  a verification callback and its CA source. @return 0 on success. */
typedef int (*tls_trust_attach_fn)(void *conf);

/** What every connection to servers of one trust store shares. Read-only once set up. */
typedef struct {
    mbedtls_ssl_config conf;
    /* The attached trust store's verification callback, which each session's own checks
     * (the IP, the pin) call first: a session's callback replaces the configuration's. */
    int (*chain_verify)(void *ctx, mbedtls_x509_crt *crt, int depth, uint32_t *flags);
    void *chain_verify_ctx;
    const char *bundle;     /**< the CA bundle's PEM text, borrowed */
    size_t bundle_len;
    uint32_t anchors_parsed; /**< bundle certificates parsed while verifying, all sessions */
    bool has_pin;
    uint8_t pin[TLS_PIN_LEN];
    bool ready;
} tls_client_config_t;

/**
 * Sets up a client that trusts the certificates in @p bundle (PEM text, borrowed: it must
 * outlive every session), optionally pinning the server's key to @p pin (SHA-256 of the leaf's
 * SubjectPublicKeyInfo; NULL for none). TLS 1.2 only, ECDHE with AES-GCM or ChaCha20-Poly1305.
 * @return ZQ_OK; ZQ_ERR_INVALID_ARG when the bundle holds no certificate; ZQ_ERR_CRYPTO.
 */
zq_err_t tls_client_config_init(tls_client_config_t *cfg, const zq_rand_t *rand,
                                const char *bundle, size_t bundle_len,
                                const uint8_t pin[TLS_PIN_LEN]);

/**
 * Sets up a client whose trust store @p attach installs (ESP-IDF's certificate bundle), with
 * the same checks of the name, the IP and the optional @p pin as tls_client_config_init().
 * @return ZQ_OK; ZQ_ERR_INVALID_ARG when @p attach fails; ZQ_ERR_CRYPTO.
 */
zq_err_t tls_client_config_init_attached(tls_client_config_t *cfg, const zq_rand_t *rand,
                                         tls_trust_attach_fn attach,
                                         const uint8_t pin[TLS_PIN_LEN]);
void tls_client_config_free(tls_client_config_t *cfg);

/** Presents @p id (borrowed: it must outlive @p cfg) to a server that asks for a client
 *  certificate (RFC 5246 §7.4.4, §7.4.6); without one the client answers such a request with
 *  an empty Certificate message, and the server decides.
 *  @return ZQ_OK; ZQ_ERR_CRYPTO; ZQ_ERR_UNSUPPORTED (a build without TLS). */
zq_err_t tls_client_config_identity(tls_client_config_t *cfg, tls_identity_t *id);

/** Starts @p t as a client of @p host (a DNS name or an IP literal; the certificate must name
 *  it); @p cfg must outlive the session.
 *  @return ZQ_OK; ZQ_ERR_CRYPTO (the arena is exhausted, or the name is refused). */
zq_err_t tls_client_start(tls_session_t *t, tls_client_config_t *cfg, const char *host);

#endif /* ZQ_TLS_CLIENT_H */

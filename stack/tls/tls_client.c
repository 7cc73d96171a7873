/* The sans-IO TLS 1.2 client (see tls_client.h): its trust store and its checks of the server.
 * Built where the mbedTLS configuration has TLS (config/zq_mbedtls_tls.h). */
#include "stack/tls/tls_client.h"

#include "mbedtls/build_info.h"

#if defined(ZQ_MBEDTLS_TLS)

#include <stdio.h>
#include <string.h>

#include "mbedtls/error.h"
#include "mbedtls/x509_crt.h"
#include "stack/tls/tls_internal.h"
#include "zq/addr.h"
#include "zq/crypto.h"

/* ---- The shared configuration ------------------------------------------------------------ */

/* An IP literal in the URL: RFC 6066 §3 keeps it out of SNI, and RFC 6125 §6.2.1 matches it
 * against the certificate's iPAddress names, byte for byte. mbedTLS would send it as SNI, so
 * the session has no host name and this check stands in for mbedTLS's. */
static bool names_ip(const mbedtls_x509_crt *crt, const zq_addr_t *ip)
{
    size_t len = ip->family == ZQ_AF_INET4 ? 4 : 16;
    for (const mbedtls_x509_sequence *san = &crt->subject_alt_names; san != NULL;
         san = san->next) {
        if (san->buf.tag == (MBEDTLS_ASN1_CONTEXT_SPECIFIC | MBEDTLS_X509_SAN_IP_ADDRESS) &&
            san->buf.len == len && memcmp(san->buf.p, ip->ip, len) == 0) {
            return true;
        }
    }
    return false;
}

/* Depth 0 is the server's own certificate: its IP when the URL names one, and with a pin its
 * key must be the pinned one. */
static int verify_leaf(void *ctx, mbedtls_x509_crt *crt, int depth, uint32_t *flags)
{
    tls_session_t *t = ctx;
    if (t->chain_verify != NULL) { /* an attached trust store's own check, first */
        int ret = t->chain_verify(t->chain_verify_ctx, crt, depth, flags);
        if (ret != 0) {
            return ret;
        }
    }
    if (depth != 0) {
        return 0;
    }
    if (t->ip.family != ZQ_AF_NONE && !names_ip(crt, &t->ip)) {
        *flags |= MBEDTLS_X509_BADCERT_CN_MISMATCH;
    }
    if (t->pin == NULL) {
        return 0;
    }
    uint8_t digest[ZQ_SHA256_LEN];
    zq_sha256(crt->pk_raw.p, crt->pk_raw.len, digest);
    if (!zq_consttime_equal(digest, t->pin, sizeof digest)) {
        t->pin_failed = true;
        *flags |= MBEDTLS_X509_BADCERT_OTHER;
    }
    return 0;
}

/* What both trust stores share: the role, the pin, and 1 KiB records. */
static zq_err_t config_common(tls_client_config_t *cfg, const zq_rand_t *rand,
                              const uint8_t pin[TLS_PIN_LEN])
{
    if (pin != NULL) {
        cfg->has_pin = true;
        memcpy(cfg->pin, pin, TLS_PIN_LEN);
    }
    if (tls_conf_init(&cfg->conf, MBEDTLS_SSL_IS_CLIENT, rand) != ZQ_OK) {
        return ZQ_ERR_CRYPTO;
    }
    mbedtls_ssl_conf_authmode(&cfg->conf, MBEDTLS_SSL_VERIFY_REQUIRED);
    /* RFC 6066 §4: 1 KiB records, which a device's 1,536-byte input buffer takes
     * (config/zq_mbedtls_dtls.h). A server that agrees sends nothing larger. */
    if (mbedtls_ssl_conf_max_frag_len(&cfg->conf, MBEDTLS_SSL_MAX_FRAG_LEN_1024) != 0) {
        mbedtls_ssl_config_free(&cfg->conf);
        return ZQ_ERR_CRYPTO;
    }
    return ZQ_OK;
}

zq_err_t tls_client_config_init(tls_client_config_t *cfg, const zq_rand_t *rand,
                                const char *bundle, size_t bundle_len,
                                const uint8_t pin[TLS_PIN_LEN])
{
    memset(cfg, 0, sizeof *cfg);
#if defined(MBEDTLS_X509_TRUSTED_CERTIFICATE_CALLBACK)
    if (!tls_anchors_any(bundle, bundle_len)) {
        return ZQ_ERR_INVALID_ARG;
    }
    cfg->bundle = bundle;
    cfg->bundle_len = bundle_len;
    if (config_common(cfg, rand, pin) != ZQ_OK) {
        return ZQ_ERR_CRYPTO;
    }
    mbedtls_ssl_conf_ca_cb(&cfg->conf, tls_anchors_find, cfg);
    cfg->ready = true;
    return ZQ_OK;
#else
    /* ESP-IDF's mbedTLS by default: its certificate bundle instead (attached, below). */
    (void)rand;
    (void)bundle;
    (void)bundle_len;
    (void)pin;
    return ZQ_ERR_UNSUPPORTED;
#endif
}

zq_err_t tls_client_config_init_attached(tls_client_config_t *cfg, const zq_rand_t *rand,
                                         tls_trust_attach_fn attach,
                                         const uint8_t pin[TLS_PIN_LEN])
{
    memset(cfg, 0, sizeof *cfg);
    if (config_common(cfg, rand, pin) != ZQ_OK) {
        return ZQ_ERR_CRYPTO;
    }
    if (attach(&cfg->conf) != 0) {
        mbedtls_ssl_config_free(&cfg->conf);
        return ZQ_ERR_INVALID_ARG;
    }
    cfg->chain_verify = cfg->conf.MBEDTLS_PRIVATE(f_vrfy);
    cfg->chain_verify_ctx = cfg->conf.MBEDTLS_PRIVATE(p_vrfy);
    cfg->ready = true;
    return ZQ_OK;
}

void tls_client_config_free(tls_client_config_t *cfg)
{
    if (cfg->ready) {
        mbedtls_ssl_config_free(&cfg->conf);
    }
    memset(cfg, 0, sizeof *cfg);
}

zq_err_t tls_client_config_identity(tls_client_config_t *cfg, tls_identity_t *id)
{
    return mbedtls_ssl_conf_own_cert(&cfg->conf, &id->chain, &id->key) == 0 ? ZQ_OK
                                                                            : ZQ_ERR_CRYPTO;
}

/* ---- A session ------------------------------------------------------------------------------ */

zq_err_t tls_client_start(tls_session_t *t, tls_client_config_t *cfg, const char *host)
{
    if (tls_session_setup(t, &cfg->conf) != ZQ_OK) {
        return ZQ_ERR_CRYPTO;
    }
    t->pin = cfg->has_pin ? cfg->pin : NULL;
    t->chain_verify = cfg->chain_verify;
    t->chain_verify_ctx = cfg->chain_verify_ctx;
    if (zq_addr_parse_ip(host, strlen(host), &t->ip) != ZQ_OK) {
        t->ip.family = ZQ_AF_NONE;
    }
    /* A name: mbedTLS checks it (RFC 6125 §6.4) and sends it as SNI. An IP: verify_leaf. */
    if (mbedtls_ssl_set_hostname(&t->ssl, t->ip.family == ZQ_AF_NONE ? host : NULL) != 0) {
        tls_session_free(t);
        return ZQ_ERR_CRYPTO;
    }
    mbedtls_ssl_set_verify(&t->ssl, verify_leaf, t);
    return ZQ_OK;
}

#else /* !ZQ_MBEDTLS_TLS */

/* A configuration without TLS (the devices', mbedTLS 4's for now): no trust store sets up and
 * no session starts, and both say so (tls_session.c's stand-ins say the rest). */
zq_err_t tls_client_config_init(tls_client_config_t *cfg, const zq_rand_t *rand,
                                const char *bundle, size_t bundle_len,
                                const uint8_t pin[TLS_PIN_LEN])
{
    (void)cfg;
    (void)rand;
    (void)bundle;
    (void)bundle_len;
    (void)pin;
    return ZQ_ERR_UNSUPPORTED;
}

zq_err_t tls_client_config_init_attached(tls_client_config_t *cfg, const zq_rand_t *rand,
                                         tls_trust_attach_fn attach,
                                         const uint8_t pin[TLS_PIN_LEN])
{
    (void)cfg;
    (void)rand;
    (void)attach;
    (void)pin;
    return ZQ_ERR_UNSUPPORTED;
}

void tls_client_config_free(tls_client_config_t *cfg)
{
    (void)cfg;
}

zq_err_t tls_client_config_identity(tls_client_config_t *cfg, tls_identity_t *id)
{
    (void)cfg;
    (void)id;
    return ZQ_ERR_UNSUPPORTED;
}

zq_err_t tls_client_start(tls_session_t *t, tls_client_config_t *cfg, const char *host)
{
    (void)t;
    (void)cfg;
    (void)host;
    return ZQ_ERR_UNSUPPORTED;
}

#endif /* ZQ_MBEDTLS_TLS */

/* What every connection of a node shares: one mbedTLS configuration per role and the cookie
 * key. mbedTLS configs are read-only once set up, so any number of connections use them. */
#include <string.h>

#include "stack/dtls/dtls.h"
#include "stack/dtls/dtls_mbedtls.h"

/* RFC 8827 §6.5 requires ECDSA P-256 support; AES-128-GCM first (hardware AES on ESP32, and
 * tshark can decrypt it from a key log), ChaCha20-Poly1305 for peers that prefer it. */
static const int cipher_suites[] = {
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
    MBEDTLS_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    0,
};

/* RFC 5764 §4.1.1 use_srtp: zq offers it as client and answers it as server (RFC 8827 §6.5
 * makes DTLS-SRTP mandatory for WebRTC endpoints), with the one profile both Pion and mbedTLS
 * have. zq sends no media, so the keys are never used, but Pion 3.1.56 fails the handshake
 * when the ServerHello has no use_srtp, and fails the connection when it is the server and no
 * profile was agreed (tests/interop/pion/README.md). */
static const mbedtls_ssl_srtp_profile srtp_profiles[] = {
    MBEDTLS_TLS_SRTP_AES128_CM_HMAC_SHA1_80,
    MBEDTLS_TLS_SRTP_UNSET,
};

static const uint16_t groups[] = {MBEDTLS_SSL_IANA_TLS_GROUP_SECP256R1,
                                  MBEDTLS_SSL_IANA_TLS_GROUP_NONE};

void dtls_config_default(dtls_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->mtu = ZQ_DTLS_MTU;
    /* RFC 6347 §4.2.4.1 suggests 1 s, sized for unknown paths; ICE has just measured this
     * path in milliseconds, and WebRTC stacks start far lower. 250 ms doubling to 16 s makes
     * 7 retransmissions within 32 s, about ICE's consent timeout. */
    cfg->handshake_timeout_min_ms = 250;
    cfg->handshake_timeout_max_ms = 16000;
    cfg->hello_verify = true;
}

static int setup_role(dtls_context_t *ctx, mbedtls_ssl_config *conf, int endpoint)
{
    mbedtls_ssl_config_init(conf);
    int ret = mbedtls_ssl_config_defaults(conf, endpoint, MBEDTLS_SSL_TRANSPORT_DATAGRAM,
                                          MBEDTLS_SSL_PRESET_DEFAULT);
    if (ret != 0) {
        return ret;
    }
    dtls_mbedtls_conf_rng(conf, &ctx->cfg.rand);
    mbedtls_ssl_conf_min_tls_version(conf, MBEDTLS_SSL_VERSION_TLS1_2);
    mbedtls_ssl_conf_max_tls_version(conf, MBEDTLS_SSL_VERSION_TLS1_2);
    mbedtls_ssl_conf_ciphersuites(conf, cipher_suites);
    mbedtls_ssl_conf_groups(conf, groups);
    ret = mbedtls_ssl_conf_dtls_srtp_protection_profiles(conf, srtp_profiles);
    if (ret != 0) {
        return ret;
    }
    /* No CA: the verify callback (dtls_conn.c) checks the fingerprint instead, and the
     * handshake is failed there or after it, with the reason. */
    mbedtls_ssl_conf_authmode(conf, MBEDTLS_SSL_VERIFY_OPTIONAL);
    mbedtls_ssl_conf_handshake_timeout(conf, ctx->cfg.handshake_timeout_min_ms,
                                       ctx->cfg.handshake_timeout_max_ms);
    if (endpoint == MBEDTLS_SSL_IS_SERVER && ctx->cfg.hello_verify) {
        mbedtls_ssl_conf_dtls_cookies(conf, mbedtls_ssl_cookie_write, mbedtls_ssl_cookie_check,
                                      &ctx->cookies);
    } else if (endpoint == MBEDTLS_SSL_IS_SERVER) {
        mbedtls_ssl_conf_dtls_cookies(conf, NULL, NULL, NULL);
    }
    return mbedtls_ssl_conf_own_cert(conf, &ctx->identity->cert, &ctx->identity->key);
}

zq_err_t dtls_context_init(dtls_context_t *ctx, const dtls_config_t *cfg,
                           dtls_identity_t *identity)
{
    if (cfg->rand.fill == NULL || cfg->mtu < 64 || cfg->mtu > ZQ_DTLS_MTU) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(ctx, 0, sizeof *ctx);
    ctx->cfg = *cfg;
    ctx->identity = identity;
    mbedtls_ssl_cookie_init(&ctx->cookies);
    int ret = (int)psa_crypto_init(); /* idempotent; mbedTLS 4's TLS layer runs on PSA */
    if (ret == 0) {
        ret = dtls_mbedtls_cookie_setup(&ctx->cookies, &cfg->rand);
    }
    if (ret == 0) {
        ret = setup_role(ctx, &ctx->client, MBEDTLS_SSL_IS_CLIENT);
    }
    if (ret == 0) {
        ret = setup_role(ctx, &ctx->server, MBEDTLS_SSL_IS_SERVER);
    }
    if (ret != 0) {
        dtls_context_free(ctx);
        return ret == MBEDTLS_ERR_SSL_ALLOC_FAILED || ret == PSA_ERROR_INSUFFICIENT_MEMORY
                   ? ZQ_ERR_CAPACITY
                   : ZQ_ERR_CRYPTO;
    }
    return ZQ_OK;
}

void dtls_context_free(dtls_context_t *ctx)
{
    mbedtls_ssl_config_free(&ctx->client);
    mbedtls_ssl_config_free(&ctx->server);
    mbedtls_ssl_cookie_free(&ctx->cookies);
}

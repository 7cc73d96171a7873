/* The sans-IO TLS 1.2 server (see tls_server.h): its identity and its sessions' start. Built
 * where the mbedTLS configuration has TLS (config/zq_mbedtls_tls.h). */
#include "stack/tls/tls_server.h"

#include <stdio.h>
#include <string.h>

#include "mbedtls/build_info.h"

#if defined(ZQ_MBEDTLS_TLS)

#include "stack/tls/tls_internal.h"

/* RFC 7301 §3.2: the one protocol served on the connection (WebSocket's upgrade and the
 * dashboard's files are both HTTP/1.1). */
static const char *alpn[] = {"http/1.1", NULL};

static zq_err_t refuse(tls_server_config_t *cfg, const char *what, int ret)
{
    char text[96];
    tls_error_text(ret, text, sizeof text);
    (void)snprintf(cfg->why, sizeof cfg->why, "%s: %s (-0x%04x)", what, text, (unsigned)-ret);
    return ZQ_ERR_INVALID_ARG;
}

/* mbedTLS's PEM parsers count the text's final NUL in its length (RFC 7468 text, NUL-ended). */
static zq_err_t load_identity(tls_server_config_t *cfg, const zq_rand_t *rand, const char *chain,
                              size_t chain_len, const char *key, size_t key_len)
{
    if (chain[chain_len] != '\0' || key[key_len] != '\0') {
        (void)snprintf(cfg->why, sizeof cfg->why, "the PEM texts must end with a NUL");
        return ZQ_ERR_INVALID_ARG;
    }
    int ret = mbedtls_x509_crt_parse(&cfg->chain, (const unsigned char *)chain, chain_len + 1);
    if (ret < 0) {
        return refuse(cfg, "the certificate file holds no certificate mbedTLS takes", ret);
    }
    if (ret > 0) { /* some blocks parsed, others not: a chain with a hole is no chain */
        (void)snprintf(cfg->why, sizeof cfg->why,
                       "%d certificate(s) of the certificate file could not be parsed", ret);
        return ZQ_ERR_INVALID_ARG;
    }
    /* RFC 5246 §7.4.2: the message is a 3-byte length, then each certificate with its own;
     * it goes out whole in one record (mbedTLS fragments handshake messages only in DTLS). */
    size_t message = 4 + 3;
    for (const mbedtls_x509_crt *c = &cfg->chain; c != NULL; c = c->next) {
        message += 3 + c->raw.len;
    }
    if (message > MBEDTLS_SSL_OUT_CONTENT_LEN) {
        (void)snprintf(cfg->why, sizeof cfg->why,
                       "the certificate chain makes a %zu-byte Certificate message, and this "
                       "build sends at most %d bytes per record: give the leaf alone, or an "
                       "ECDSA chain", message, MBEDTLS_SSL_OUT_CONTENT_LEN);
        return ZQ_ERR_INVALID_ARG;
    }
    ret = mbedtls_pk_parse_key(&cfg->key, (const unsigned char *)key, key_len + 1, NULL, 0,
                               rand->fill, rand->ctx);
    if (ret != 0) {
        return refuse(cfg, "the key file holds no unencrypted private key mbedTLS takes", ret);
    }
    ret = mbedtls_pk_check_pair(&cfg->chain.pk, &cfg->key, rand->fill, rand->ctx);
    if (ret != 0) {
        return refuse(cfg, "the key is not the first certificate's", ret);
    }
    return ZQ_OK;
}

zq_err_t tls_server_config_init(tls_server_config_t *cfg, const zq_rand_t *rand,
                                const char *chain, size_t chain_len, const char *key,
                                size_t key_len)
{
    memset(cfg, 0, sizeof *cfg);
    mbedtls_ssl_config_init(&cfg->conf);
    mbedtls_x509_crt_init(&cfg->chain);
    mbedtls_pk_init(&cfg->key);
    cfg->ready = true; /* from here on, free() has something to free */
    zq_err_t err = load_identity(cfg, rand, chain, chain_len, key, key_len);
    if (err == ZQ_OK && tls_conf_init(&cfg->conf, MBEDTLS_SSL_IS_SERVER, rand) != ZQ_OK) {
        err = ZQ_ERR_CRYPTO;
    }
    if (err == ZQ_OK) {
        mbedtls_ssl_conf_authmode(&cfg->conf, MBEDTLS_SSL_VERIFY_NONE); /* no client certs */
        if (mbedtls_ssl_conf_own_cert(&cfg->conf, &cfg->chain, &cfg->key) != 0 ||
            mbedtls_ssl_conf_alpn_protocols(&cfg->conf, alpn) != 0) {
            err = ZQ_ERR_CRYPTO;
        }
    }
    if (err != ZQ_OK) {
        char why[sizeof cfg->why];
        memcpy(why, cfg->why, sizeof why);
        tls_server_config_free(cfg);
        memcpy(cfg->why, why, sizeof why);
    }
    return err;
}

void tls_server_config_free(tls_server_config_t *cfg)
{
    if (cfg->ready) {
        mbedtls_ssl_config_free(&cfg->conf);
        mbedtls_x509_crt_free(&cfg->chain);
        mbedtls_pk_free(&cfg->key);
    }
    memset(cfg, 0, sizeof *cfg);
}

zq_err_t tls_server_start(tls_session_t *t, const tls_server_config_t *cfg)
{
    return tls_session_setup(t, &cfg->conf);
}

bool tls_server_takes_full_records(void)
{
    return MBEDTLS_SSL_IN_CONTENT_LEN >= 16384;
}

#else /* !ZQ_MBEDTLS_TLS */

/* A configuration without TLS (the devices', mbedTLS 4's for now): no identity loads, and it
 * says so. */
zq_err_t tls_server_config_init(tls_server_config_t *cfg, const zq_rand_t *rand,
                                const char *chain, size_t chain_len, const char *key,
                                size_t key_len)
{
    (void)rand;
    (void)chain;
    (void)chain_len;
    (void)key;
    (void)key_len;
    memset(cfg, 0, sizeof *cfg);
    (void)snprintf(cfg->why, sizeof cfg->why, "this build has no TLS");
    return ZQ_ERR_UNSUPPORTED;
}

void tls_server_config_free(tls_server_config_t *cfg)
{
    (void)cfg;
}

zq_err_t tls_server_start(tls_session_t *t, const tls_server_config_t *cfg)
{
    (void)t;
    (void)cfg;
    return ZQ_ERR_UNSUPPORTED;
}

bool tls_server_takes_full_records(void)
{
    return false;
}

#endif /* ZQ_MBEDTLS_TLS */

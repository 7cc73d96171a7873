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

zq_err_t tls_server_config_init(tls_server_config_t *cfg, const zq_rand_t *rand,
                                const char *chain, size_t chain_len, const char *key,
                                size_t key_len)
{
    memset(cfg, 0, sizeof *cfg);
    if (tls_identity_load(&cfg->identity, rand, chain, chain_len, key, key_len) != ZQ_OK) {
        (void)snprintf(cfg->why, sizeof cfg->why, "%s", cfg->identity.why);
        return ZQ_ERR_INVALID_ARG;
    }
    mbedtls_ssl_config_init(&cfg->conf);
    cfg->ready = true; /* from here on, free() has something to free */
    zq_err_t err = tls_conf_init(&cfg->conf, MBEDTLS_SSL_IS_SERVER, rand);
    if (err == ZQ_OK) {
        mbedtls_ssl_conf_authmode(&cfg->conf, MBEDTLS_SSL_VERIFY_NONE); /* no client certs */
        if (mbedtls_ssl_conf_own_cert(&cfg->conf, &cfg->identity.chain, &cfg->identity.key) !=
                0 ||
            mbedtls_ssl_conf_alpn_protocols(&cfg->conf, alpn) != 0) {
            err = ZQ_ERR_CRYPTO;
        }
    }
    if (err != ZQ_OK) {
        tls_server_config_free(cfg);
    }
    return err;
}

void tls_server_config_free(tls_server_config_t *cfg)
{
    if (cfg->ready) {
        mbedtls_ssl_config_free(&cfg->conf);
    }
    tls_identity_free(&cfg->identity);
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

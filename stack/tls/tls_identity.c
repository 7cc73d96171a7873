/* A certificate chain and its key (see tls_identity.h). */
#include "stack/tls/tls_identity.h"

#include <stdio.h>
#include <string.h>

#include "mbedtls/build_info.h"

#if defined(ZQ_MBEDTLS_TLS)

#include "mbedtls/ssl.h"
#include "stack/tls/tls_internal.h"

static zq_err_t refuse(tls_identity_t *id, const char *what, int ret)
{
    char text[96];
    tls_error_text(ret, text, sizeof text);
    (void)snprintf(id->why, sizeof id->why, "%s: %s (-0x%04x)", what, text, (unsigned)-ret);
    return ZQ_ERR_INVALID_ARG;
}

/* RFC 5246 §7.4.2 (§7.4.6 for a client's): the message is a 3-byte length, then each
 * certificate with its own; it goes out whole in one record (mbedTLS fragments handshake
 * messages only in DTLS). */
static zq_err_t check_fits(tls_identity_t *id)
{
    size_t message = 4 + 3;
    for (const mbedtls_x509_crt *c = &id->chain; c != NULL; c = c->next) {
        message += 3 + c->raw.len;
    }
    if (message > MBEDTLS_SSL_OUT_CONTENT_LEN) {
        (void)snprintf(id->why, sizeof id->why,
                       "the certificate chain makes a %zu-byte Certificate message, and this "
                       "build sends at most %d bytes per record: give the leaf alone, or an "
                       "ECDSA chain", message, MBEDTLS_SSL_OUT_CONTENT_LEN);
        return ZQ_ERR_INVALID_ARG;
    }
    return ZQ_OK;
}

/* mbedTLS's PEM parsers count the text's final NUL in its length (RFC 7468 text, NUL-ended). */
static zq_err_t parse(tls_identity_t *id, const zq_rand_t *rand, const char *chain,
                      size_t chain_len, const char *key, size_t key_len)
{
    if (chain[chain_len] != '\0' || key[key_len] != '\0') {
        (void)snprintf(id->why, sizeof id->why, "the PEM texts must end with a NUL");
        return ZQ_ERR_INVALID_ARG;
    }
    int ret = mbedtls_x509_crt_parse(&id->chain, (const unsigned char *)chain, chain_len + 1);
    if (ret < 0) {
        return refuse(id, "the certificate file holds no certificate mbedTLS takes", ret);
    }
    if (ret > 0) { /* some blocks parsed, others not: a chain with a hole is no chain */
        (void)snprintf(id->why, sizeof id->why,
                       "%d certificate(s) of the certificate file could not be parsed", ret);
        return ZQ_ERR_INVALID_ARG;
    }
    if (check_fits(id) != ZQ_OK) {
        return ZQ_ERR_INVALID_ARG;
    }
    ret = mbedtls_pk_parse_key(&id->key, (const unsigned char *)key, key_len + 1, NULL, 0,
                               rand->fill, rand->ctx);
    if (ret != 0) {
        return refuse(id, "the key file holds no unencrypted private key mbedTLS takes", ret);
    }
    ret = mbedtls_pk_check_pair(&id->chain.pk, &id->key, rand->fill, rand->ctx);
    if (ret != 0) {
        return refuse(id, "the key is not the first certificate's", ret);
    }
    return ZQ_OK;
}

zq_err_t tls_identity_load(tls_identity_t *id, const zq_rand_t *rand, const char *chain,
                           size_t chain_len, const char *key, size_t key_len)
{
    memset(id, 0, sizeof *id);
    mbedtls_x509_crt_init(&id->chain);
    mbedtls_pk_init(&id->key);
    id->ready = true; /* from here on, free() has something to free */
    zq_err_t err = parse(id, rand, chain, chain_len, key, key_len);
    if (err != ZQ_OK) {
        char why[sizeof id->why];
        memcpy(why, id->why, sizeof why);
        tls_identity_free(id);
        memcpy(id->why, why, sizeof why);
    }
    return err;
}

void tls_identity_free(tls_identity_t *id)
{
    if (id->ready) {
        mbedtls_x509_crt_free(&id->chain);
        mbedtls_pk_free(&id->key);
    }
    memset(id, 0, sizeof *id);
}

#else /* !ZQ_MBEDTLS_TLS */

zq_err_t tls_identity_load(tls_identity_t *id, const zq_rand_t *rand, const char *chain,
                           size_t chain_len, const char *key, size_t key_len)
{
    (void)rand;
    (void)chain;
    (void)chain_len;
    (void)key;
    (void)key_len;
    memset(id, 0, sizeof *id);
    (void)snprintf(id->why, sizeof id->why, "this build has no TLS");
    return ZQ_ERR_UNSUPPORTED;
}

void tls_identity_free(tls_identity_t *id)
{
    (void)id;
}

#endif /* ZQ_MBEDTLS_TLS */

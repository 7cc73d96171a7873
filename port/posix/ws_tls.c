/* The TLS trust stores of this process's clients (see ws_tls.h). */
#include "port/posix/ws_tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port/posix/read_file.h"
#include "port/zq_port.h"
#include "zq/base64.h"

#define DEFAULT_BUNDLE "/etc/ssl/certs/ca-certificates.crt"
#define PIN_PREFIX "sha256/"
#define PATH_MAX_LEN 256

#define PEM_MAX (64 * 1024) /* a client's certificate chain, or its key */

/* One trust store: a CA file, read once and kept (the configuration borrows the text), and
 * the certificate the client shows with it, if any. */
typedef struct {
    char ca[PATH_MAX_LEN]; /* "" for the default store */
    char cert[PATH_MAX_LEN];
    char key[PATH_MAX_LEN];
    char bundle[ZQ_POSIX_CA_BUNDLE_MAX];
    tls_identity_t identity;
    tls_client_config_t config;
} trust_store_t;

static trust_store_t stores[ZQ_POSIX_TLS_STORES];
static zq_rand_t rand_src;
static char reason[384];

/* The whole file into @p s's bundle: @return false with reason[] set. */
static bool read_bundle(trust_store_t *s, const char *path, const char *hint, size_t *len)
{
    zq_err_t err = zq_posix_read_file(path, (uint8_t *)s->bundle, sizeof s->bundle, len);
    if (err == ZQ_ERR_TOO_LONG) {
        (void)snprintf(reason, sizeof reason, "the CA bundle %s is larger than %d bytes", path,
                       ZQ_POSIX_CA_BUNDLE_MAX);
    } else if (err != ZQ_OK) {
        (void)snprintf(reason, sizeof reason, "cannot read the CA bundle %s: %s%s", path,
                       strerror(errno), hint);
    }
    return err == ZQ_OK;
}

/* $ZQ_TLS_PIN: "sha256/" and 44 characters of base64. */
static bool read_pin(const char *text, uint8_t pin[TLS_PIN_LEN])
{
    size_t n = strlen(PIN_PREFIX);
    size_t len = 0;
    return strncmp(text, PIN_PREFIX, n) == 0 &&
           zq_base64_decode(text + n, strlen(text + n), pin, TLS_PIN_LEN, &len) == ZQ_OK &&
           len == TLS_PIN_LEN;
}

static const char *or_empty(const char *path)
{
    return path != NULL ? path : "";
}

/* The store already set up for @p f, or a free one, or NULL. */
static trust_store_t *store_for(const zq_posix_tls_files_t *f)
{
    trust_store_t *free_one = NULL;
    for (size_t i = 0; i < ZQ_POSIX_TLS_STORES; i++) {
        trust_store_t *s = &stores[i];
        if (s->config.ready && strcmp(s->ca, or_empty(f->ca_file)) == 0 &&
            strcmp(s->cert, or_empty(f->cert_file)) == 0 &&
            strcmp(s->key, or_empty(f->key_file)) == 0) {
            return s;
        }
        free_one = free_one == NULL && !s->config.ready ? s : free_one;
    }
    return free_one;
}

/* One PEM file, NUL-ended, into @p buf. @return false with reason[] set. */
static bool read_pem(const char *path, char *buf, size_t cap, size_t *len)
{
    zq_err_t err = zq_posix_read_text(path, buf, cap, len);
    if (err != ZQ_OK) {
        (void)snprintf(reason, sizeof reason, "cannot read %s: %s", path,
                       err == ZQ_ERR_TOO_LONG ? "larger than 64 KiB" : strerror(errno));
    }
    return err == ZQ_OK;
}

/* The client's certificate and key, shown with the store's configuration. */
static zq_err_t show_identity(trust_store_t *s, const zq_posix_tls_files_t *f, const char **why)
{
    static char chain[PEM_MAX], key[PEM_MAX];
    size_t chain_len = 0, key_len = 0;
    if (!read_pem(f->cert_file, chain, sizeof chain, &chain_len) ||
        !read_pem(f->key_file, key, sizeof key, &key_len)) {
        *why = reason;
        return ZQ_ERR_CRYPTO;
    }
    zq_err_t err = tls_identity_load(&s->identity, &rand_src, chain, chain_len, key, key_len);
    memset(key, 0, sizeof key); /* parsed into the arena: the text is no longer needed */
    if (err != ZQ_OK || tls_client_config_identity(&s->config, &s->identity) != ZQ_OK) {
        (void)snprintf(reason, sizeof reason, "%s and %s: %s", f->cert_file, f->key_file,
                       err != ZQ_OK ? s->identity.why : "mbedTLS refused them");
        *why = reason;
        tls_identity_free(&s->identity);
        return ZQ_ERR_CRYPTO;
    }
    return ZQ_OK;
}

static zq_err_t set_up(trust_store_t *s, const zq_posix_tls_files_t *f, const char **why)
{
    const char *ca_file = f->ca_file;
    const char *path = ca_file;
    const char *hint = "";
    if (path == NULL) {
        path = getenv("SSL_CERT_FILE");
        path = path != NULL && path[0] != '\0' ? path : DEFAULT_BUNDLE;
        hint = " (set SSL_CERT_FILE to a PEM file of trusted CAs)";
    }
    size_t len = 0;
    if (!read_bundle(s, path, hint, &len)) {
        *why = reason;
        return ZQ_ERR_CRYPTO;
    }
    uint8_t pin[TLS_PIN_LEN];
    const char *pin_text = ca_file == NULL ? getenv("ZQ_TLS_PIN") : NULL;
    bool pinned = pin_text != NULL && pin_text[0] != '\0';
    if (pinned && !read_pin(pin_text, pin)) {
        *why = "ZQ_TLS_PIN is not sha256/ and the base64 of a SHA-256 digest";
        return ZQ_ERR_CRYPTO;
    }
    rand_src = zq_port_rand();
    zq_err_t err = tls_client_config_init(&s->config, &rand_src, s->bundle, len,
                                          pinned ? pin : NULL);
    if (err == ZQ_ERR_UNSUPPORTED) {
        *why = "this build has no TLS client (its mbedTLS configuration leaves it out)";
        return ZQ_ERR_CRYPTO;
    }
    if (err != ZQ_OK) {
        (void)snprintf(reason, sizeof reason, "the CA bundle %s holds no PEM certificate", path);
        *why = reason;
        return ZQ_ERR_CRYPTO;
    }
    if (f->cert_file != NULL && show_identity(s, f, why) != ZQ_OK) {
        tls_client_config_free(&s->config);
        return ZQ_ERR_CRYPTO;
    }
    (void)snprintf(s->ca, sizeof s->ca, "%s", or_empty(ca_file));
    (void)snprintf(s->cert, sizeof s->cert, "%s", or_empty(f->cert_file));
    (void)snprintf(s->key, sizeof s->key, "%s", or_empty(f->key_file));
    return ZQ_OK;
}

zq_err_t zq_posix_tls_config(const zq_posix_tls_files_t *files, tls_client_config_t **out,
                             const char **why)
{
    static const zq_posix_tls_files_t none = {0};
    const zq_posix_tls_files_t *f = files != NULL ? files : &none;
    if ((f->cert_file == NULL) != (f->key_file == NULL)) {
        *why = "a client certificate goes with its key";
        return ZQ_ERR_CRYPTO;
    }
    size_t longest = strlen(or_empty(f->ca_file));
    longest = strlen(or_empty(f->cert_file)) > longest ? strlen(f->cert_file) : longest;
    longest = strlen(or_empty(f->key_file)) > longest ? strlen(f->key_file) : longest;
    if (longest >= PATH_MAX_LEN) {
        *why = "a TLS file's path is too long";
        return ZQ_ERR_CRYPTO;
    }
    trust_store_t *s = store_for(f);
    if (s == NULL) {
        *why = "more TLS settings than ZQ_POSIX_TLS_STORES";
        return ZQ_ERR_CRYPTO;
    }
    if (!s->config.ready && set_up(s, f, why) != ZQ_OK) {
        return ZQ_ERR_CRYPTO;
    }
    *out = &s->config;
    return ZQ_OK;
}

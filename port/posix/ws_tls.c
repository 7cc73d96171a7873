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

/* One trust store: a CA file, read once and kept (the configuration borrows the text). */
typedef struct {
    char path[PATH_MAX_LEN]; /* "" for the default store */
    bool is_default;
    char bundle[ZQ_POSIX_CA_BUNDLE_MAX];
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

/* The store already set up for @p ca_file (NULL: the default), or a free one, or NULL. */
static trust_store_t *store_for(const char *ca_file)
{
    trust_store_t *free_one = NULL;
    for (size_t i = 0; i < ZQ_POSIX_TLS_STORES; i++) {
        trust_store_t *s = &stores[i];
        if (s->config.ready && (ca_file == NULL ? s->is_default
                                                : !s->is_default && strcmp(s->path, ca_file) == 0)) {
            return s;
        }
        free_one = free_one == NULL && !s->config.ready ? s : free_one;
    }
    return free_one;
}

static zq_err_t set_up(trust_store_t *s, const char *ca_file, const char **why)
{
    const char *path = ca_file;
    const char *hint = "";
    if (path == NULL) {
        path = getenv("SSL_CERT_FILE");
        path = path != NULL && path[0] != '\0' ? path : DEFAULT_BUNDLE;
        hint = " (set SSL_CERT_FILE to a PEM file of trusted CAs)";
    }
    size_t len = 0;
    if (strlen(path) >= sizeof s->path) {
        *why = "the CA file's path is too long";
        return ZQ_ERR_CRYPTO;
    }
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
    s->is_default = ca_file == NULL;
    (void)snprintf(s->path, sizeof s->path, "%s", ca_file != NULL ? ca_file : "");
    return ZQ_OK;
}

zq_err_t zq_posix_tls_config(const char *ca_file, tls_client_config_t **out, const char **why)
{
    trust_store_t *s = store_for(ca_file);
    if (s == NULL) {
        *why = "more CA files than ZQ_POSIX_TLS_STORES";
        return ZQ_ERR_CRYPTO;
    }
    if (!s->config.ready && set_up(s, ca_file, why) != ZQ_OK) {
        return ZQ_ERR_CRYPTO;
    }
    *out = &s->config;
    return ZQ_OK;
}

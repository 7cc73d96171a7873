/* The wss:// trust store of this process (see ws_tls.h). */
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

static char bundle[ZQ_POSIX_CA_BUNDLE_MAX];
static tls_client_config_t config;
static zq_rand_t rand_src;
static char reason[384];

/* The whole file into bundle[]: @return false with reason[] set. */
static bool read_bundle(const char *path, size_t *len)
{
    zq_err_t err = zq_posix_read_file(path, (uint8_t *)bundle, sizeof bundle, len);
    if (err == ZQ_ERR_TOO_LONG) {
        (void)snprintf(reason, sizeof reason, "the CA bundle %s is larger than %d bytes", path,
                       ZQ_POSIX_CA_BUNDLE_MAX);
    } else if (err != ZQ_OK) {
        (void)snprintf(reason, sizeof reason, "cannot read the CA bundle %s: %s (set "
                       "SSL_CERT_FILE to a PEM file of trusted CAs)", path, strerror(errno));
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

zq_err_t zq_posix_tls_config(tls_client_config_t **out, const char **why)
{
    if (config.ready) {
        *out = &config;
        return ZQ_OK;
    }
    const char *path = getenv("SSL_CERT_FILE");
    path = path != NULL && path[0] != '\0' ? path : DEFAULT_BUNDLE;
    size_t len = 0;
    if (!read_bundle(path, &len)) {
        *why = reason;
        return ZQ_ERR_CRYPTO;
    }
    uint8_t pin[TLS_PIN_LEN];
    const char *pin_text = getenv("ZQ_TLS_PIN");
    bool pinned = pin_text != NULL && pin_text[0] != '\0';
    if (pinned && !read_pin(pin_text, pin)) {
        *why = "ZQ_TLS_PIN is not sha256/ and the base64 of a SHA-256 digest";
        return ZQ_ERR_CRYPTO;
    }
    rand_src = zq_port_rand();
    zq_err_t err = tls_client_config_init(&config, &rand_src, bundle, len,
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
    *out = &config;
    return ZQ_OK;
}

/**
 * @file ws_tls.h
 * @brief The trust stores of this process's TLS clients (wss://, turns:, tls:// to NATS,
 *        mqtts://): the default one, the CA bundle in $SSL_CERT_FILE (default
 *        /etc/ssl/certs/ca-certificates.crt, Debian's ca-certificates) with an optional key
 *        pin in $ZQ_TLS_PIN; and one per CA file an option names (--nats-tlsca, --mqtt-cafile),
 *        without the pin. Each file is read once.
 */
#ifndef ZQ_PORT_POSIX_WS_TLS_H
#define ZQ_PORT_POSIX_WS_TLS_H

#include "stack/tls/tls_client.h"
#include "zq/err.h"

/** Longest CA bundle read (Debian 12's is about 220 KB). */
#define ZQ_POSIX_CA_BUNDLE_MAX (1024 * 1024)

/** Stores one process keeps: the default and one named CA file. */
#define ZQ_POSIX_TLS_STORES 2

/**
 * The TLS client configuration that trusts @p ca_file (a PEM file; NULL: the default store),
 * set up at the first call for that file.
 * @param why set on failure to a reason in English naming the file or the variable.
 * @return ZQ_OK; ZQ_ERR_CRYPTO (the file cannot be read, is too large or holds no
 *         certificate; the pin is malformed). A failure is reported again at each call.
 */
zq_err_t zq_posix_tls_config(const char *ca_file, tls_client_config_t **out, const char **why);

#endif /* ZQ_PORT_POSIX_WS_TLS_H */

/**
 * @file ws_tls.h
 * @brief The trust store of this process's `wss://` clients: the CA bundle in $SSL_CERT_FILE
 *        (default /etc/ssl/certs/ca-certificates.crt, Debian's ca-certificates) and an optional
 *        key pin in $ZQ_TLS_PIN, read once.
 */
#ifndef ZQ_PORT_POSIX_WS_TLS_H
#define ZQ_PORT_POSIX_WS_TLS_H

#include "stack/tls/tls_client.h"
#include "zq/err.h"

/** Longest CA bundle read (Debian 12's is about 220 KB). */
#define ZQ_POSIX_CA_BUNDLE_MAX (1024 * 1024)

/**
 * The shared TLS client configuration, set up at the first call.
 * @param why set on failure to a reason in English naming the file or the variable.
 * @return ZQ_OK; ZQ_ERR_CRYPTO (the bundle cannot be read, is too large or holds no
 *         certificate; the pin is malformed). A failure is reported again at each call.
 */
zq_err_t zq_posix_tls_config(tls_client_config_t **out, const char **why);

#endif /* ZQ_PORT_POSIX_WS_TLS_H */

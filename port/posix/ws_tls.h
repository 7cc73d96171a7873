/**
 * @file ws_tls.h
 * @brief The trust stores of this process's TLS clients (wss://, turns:, tls:// to NATS,
 *        mqtts://): the default one, the CA bundle in $SSL_CERT_FILE (default
 *        /etc/ssl/certs/ca-certificates.crt, Debian's ca-certificates) with an optional key
 *        pin in $ZQ_TLS_PIN; and one per set of files options name (--nats-tlsca,
 *        --nats-tlscert, --nats-tlskey; --cafile, --cert, --key), without the pin. Each file is
 *        read once.
 */
#ifndef ZQ_PORT_POSIX_WS_TLS_H
#define ZQ_PORT_POSIX_WS_TLS_H

#include "stack/tls/tls_client.h"
#include "zq/err.h"

/** Longest CA bundle read (Debian 12's is about 220 KB). */
#define ZQ_POSIX_CA_BUNDLE_MAX (1024 * 1024)

/** Stores one process keeps: the default and one set of files an option names. */
#define ZQ_POSIX_TLS_STORES 2

/** What a store is made of: all NULL for the default store. */
typedef struct {
    const char *ca_file;   /**< PEM CAs to trust; NULL: $SSL_CERT_FILE or the system's */
    const char *cert_file; /**< the client's certificate chain (PEM), shown when a server
                                asks (RFC 5246 §7.4.6); NULL: none */
    const char *key_file;  /**< its private key (PEM, unencrypted); with cert_file only */
} zq_posix_tls_files_t;

/**
 * The TLS client configuration of @p files (NULL: the default store), set up at the first
 * call for those files.
 * @param why set on failure to a reason in English naming the file or the variable.
 * @return ZQ_OK; ZQ_ERR_CRYPTO (a file cannot be read, is too large or holds no certificate;
 *         the key is not the certificate's; the pin is malformed). A failure is reported again
 *         at each call.
 */
zq_err_t zq_posix_tls_config(const zq_posix_tls_files_t *files, tls_client_config_t **out,
                             const char **why);

#endif /* ZQ_PORT_POSIX_WS_TLS_H */

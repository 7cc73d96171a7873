/**
 * @file signal.h
 * @brief `zq signal`'s server as one call: its settings and its run. The command line that
 *        fills the settings is cli/cmd_signal.c; what the server is made of, signal_server.h.
 *
 * Memory is static and bounded: ZQ_SIG_MAX_CLIENTS WebSocket connections (each with its
 * ws_conn_t, two ZQ_WS_MAX_MESSAGE buffers: 129 KiB) and ZQ_SIGNAL_MAX_HTTP connections still in
 * HTTP (each with a ZQ_HTTP_MAX_REQUEST buffer: 8 KiB), with the router's tables: 32.5 MiB of
 * .bss with the defaults (256 clients, 32 HTTP), of which a client slot's pages are touched
 * only once it is used (2.8 MiB resident idle, 34 MiB with 256 clients). Beyond either bound a
 * new connection is answered 503 and closed. The sockets are watched with one epoll set,
 * itself one fd of the port's poll() loop, whose timer drives pings, idle clients and HTTP
 * deadlines.
 *
 * @code
 * signal_settings_t s;
 * signal_settings_default(&s);                // 127.0.0.1:8080, 45 s idle, no tokens, no files
 * s.web_dir = open("web", O_RDONLY | O_DIRECTORY);
 * int status = signal_run(&s);                // until SIGINT or SIGTERM
 * @endcode
 */
#ifndef ZQ_SERVER_SIGNAL_H
#define ZQ_SERVER_SIGNAL_H

#include <stddef.h>
#include <stdint.h>

#include "port/posix/ws_tls.h"
#include "zq/addr.h"
#include "zq/config.h"

/** Connections still in HTTP (reading a request, or answering one) at a time. */
#ifndef ZQ_SIGNAL_MAX_HTTP
#define ZQ_SIGNAL_MAX_HTTP 32
#endif

/** TLS connections (--tls-cert) at a time, in handshake, HTTP or WebSocket: one for each slot of
 *  either kind by default. Each is a tls_front_t (13 KiB: a session's two 4 KiB buffers and a
 *  4 KiB one) of .bss, and mbedTLS's share of the arena (ZQ_SIGNAL_TLS_ARENA). */
#ifndef ZQ_SIGNAL_MAX_TLS
#define ZQ_SIGNAL_MAX_TLS (ZQ_SIG_MAX_CLIENTS + ZQ_SIGNAL_MAX_HTTP)
#endif

/** mbedTLS's arena for --tls-cert, every session's share and the identity: an open session holds
 *  its input record buffer (MBEDTLS_SSL_IN_CONTENT_LEN: 1.5 KiB, or 16 KiB with
 *  ZQ_TLS_FULL_RECORDS), its output one (1.3 or 4 KiB) and its keys, ~22 KiB on the host; a
 *  handshake adds its peak. 32 KiB a connection is a budget, not a measurement: `zq signal`
 *  logs the peak at its stop.
 *  Exhausted, a new connection is refused (and logged). */
#ifndef ZQ_SIGNAL_TLS_ARENA
#define ZQ_SIGNAL_TLS_ARENA (ZQ_SIGNAL_MAX_TLS * 32 * 1024 + 64 * 1024)
#endif

typedef struct {
    zq_addr_t listen;           /**< where to listen */
    uint64_t idle_ms;           /**< a client silent this long is closed */
    const char *const *origins; /**< Origin headers allowed (none: any); borrowed */
    size_t origin_count;
    const uint8_t *token_key;   /**< HMAC key room tokens are checked with; NULL: none asked */
    size_t token_key_len;
    int web_dir;                /**< directory fd of the static files, or -1; the caller's */
    const uint8_t *turn_secret; /**< TURN REST API secret; NULL: no credentials handed out */
    size_t turn_secret_len;
    const char *const *ice_urls; /**< the STUN and TURN servers members get, borrowed */
    size_t ice_url_count;
    uint32_t turn_ttl_s;
    const char *tls_chain; /**< --tls-cert's PEM text, NUL-ended; NULL: plain HTTP; borrowed */
    size_t tls_chain_len;  /**< without the NUL */
    const char *tls_key;   /**< --tls-key's PEM text, NUL-ended, borrowed */
    size_t tls_key_len;
    const char *cluster;   /**< --cluster: (nats|tls)://[USER:PASS@|TOKEN@]HOST[:PORT][,...]; NULL:
                                this server is alone; borrowed */
    const char *cluster_prefix; /**< the subjects' prefix; NULL: "zq.signal" */
    const char *nats_user;      /**< over the URL's: NATS's own --user, --password, --token */
    const char *nats_password;
    const char *nats_token;
    const char *nats_nkey;      /**< NATS's --nkey: a user's nkey seed file; NULL: none */
    const char *nats_creds;     /**< NATS's --creds: a .creds file (JWT and seed); NULL: none */
    zq_posix_tls_files_t nats_tls; /**< NATS's --tlsca, --tlscert, --tlskey: the CAs to trust
                                        (NULL: SSL_CERT_FILE's) and the certificate to show
                                        (NULL: none); paths, borrowed */
} signal_settings_t;

/** NULL if @p list is a --cluster value signal_run() takes, else why not. */
const char *signal_cluster_check_urls(const char *list);

/** 127.0.0.1:8080, 45 s idle, any origin, no tokens, no static files. */
void signal_settings_default(signal_settings_t *s);

/**
 * Listens, serves until SIGINT or SIGTERM, then tells every client 1001 and closes. @p s is
 * borrowed for the run. Prints "zq signal: listening on http://ADDR" on stdout once listening.
 * @return the process's exit status: 0 after a stop, 1 when it could not serve (said on
 *         stderr: the address in use, no listener, the loop failed).
 */
int signal_run(const signal_settings_t *s);

#endif /* ZQ_SERVER_SIGNAL_H */

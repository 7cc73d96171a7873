/**
 * @file tcp_link.h
 * @brief A TCP connection to one of several servers that comes back by itself, for a sans-IO
 *        protocol client on the poll() loop: `zq signal --cluster`'s link to NATS and
 *        `zq bridge`'s to MQTT. The link resolves, connects without blocking the loop, feeds
 *        what it reads to the protocol and writes what the protocol lends; when the
 *        connection fails it tries the next server at once and, once every one has failed in
 *        a row, waits a backoff (host/backoff.h) before the next round.
 *
 * TLS (zq_tcp_link_use_tls()): from the first byte (mqtts://), or from where the protocol asks
 * for it in the clear (NATS: after the server's INFO, zq_tcp_link_start_tls()). The server is
 * checked as for wss:// (stack/tls/tls_client.h: its chain to the configuration's anchors, its
 * dates, its name against the server's TLS name); until the handshake is done the protocol's
 * pending bytes stay where they are, so nothing it queued goes out in the clear.
 *
 * The protocol's side is five callbacks (zq_tcp_link_ops_t); they may call
 * zq_tcp_link_flush(), and zq_tcp_link_drop() only from on_bytes or outside the link's own
 * calls (a fatal protocol error, a dead session).
 *
 * @code
 * static zq_tcp_link_t link;
 * zq_tcp_link_init(&link, &loop, &ops, &client, &rand, 250, 5000);
 * zq_tcp_link_add_server(&link, "127.0.0.1", 4222);
 * // at every turn (a driver's timeout or an application's idle call):
 * zq_tcp_link_tick(&link, now);             // connects when due, times a connect out
 * // after the protocol queued something:
 * zq_tcp_link_flush(&link);
 * // the protocol says its session is up (NATS READY, MQTT CONNACK): the backoff starts over
 * zq_tcp_link_ready(&link);
 * @endcode
 */
#ifndef ZQ_PORT_POSIX_TCP_LINK_H
#define ZQ_PORT_POSIX_TCP_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/backoff.h"
#include "port/posix/loop.h"
#include "port/ws/ws_link.h"
#include "port/zq_port.h"
#include "stack/tls/tls_client.h"
#include "zq/rand.h"

#define ZQ_TCP_LINK_SERVERS 16
#define ZQ_TCP_LINK_HOST_MAX 64
/** A TCP connect may take this long. */
#define ZQ_TCP_LINK_CONNECT_MS 2000u

typedef struct {
    /** TCP is up: start the protocol's session (queue its CONNECT). */
    void (*on_open)(void *ctx, uint64_t now);
    /** Bytes read, in order. @return how many it took: fewer than @p len stops reading (the
     *  rest is kept, and the socket no longer polled) until zq_tcp_link_resume(). */
    size_t (*on_bytes)(void *ctx, uint64_t now, const uint8_t *data, size_t len);
    /** The connection is gone (@p why says how); the next try is scheduled. */
    void (*on_down)(void *ctx, uint64_t now, const char *why);
    /** What the protocol has to write (its lend), and how much of it went. */
    size_t (*pending)(void *ctx, const uint8_t **data);
    void (*sent)(void *ctx, size_t n);
    /** The TLS handshake is done (the server passed its checks); NULL if not needed. */
    void (*on_secure)(void *ctx, uint64_t now);
} zq_tcp_link_ops_t;

typedef struct {
    char host[ZQ_TCP_LINK_HOST_MAX];
    char tls_name[ZQ_TCP_LINK_HOST_MAX]; /* the name its certificate must carry */
    uint16_t port;
} zq_tcp_link_server_t;

typedef enum {
    ZQ_TCP_LINK_PLAIN,      /**< no TLS */
    ZQ_TCP_LINK_TLS_FIRST,  /**< TLS from the first byte */
    ZQ_TCP_LINK_TLS_ASKED,  /**< TLS from where the protocol calls zq_tcp_link_start_tls() */
} zq_tcp_link_tls_t;

typedef enum { ZQ_TCP_LINK_IDLE, ZQ_TCP_LINK_CONNECTING, ZQ_TCP_LINK_OPEN } zq_tcp_link_state_t;

typedef struct {
    zq_loop_t *loop;
    const zq_tcp_link_ops_t *ops;
    void *ctx;
    zq_tcp_link_state_t state;
    zq_ws_link_t io;      /* the socket, and the TLS session once it started */
    zq_tcp_link_tls_t tls_mode;
    tls_client_config_t *tls_config;
    bool handshaking;     /* TLS started, not yet open */
    bool start_asked;     /* zq_tcp_link_start_tls() inside on_bytes */
    tls_session_t tls;
    char why[288];        /* a TLS failure's reason, for on_down */
    zq_addr_t to;
    bool want_write;
    bool broken;          /* a send failed inside a flush: dropped at the next turn */
    bool paused;          /* on_bytes took less than it was given: held_in waits */
    size_t held_len;
    uint8_t held_in[16384]; /* what on_bytes did not take yet */
    uint64_t deadline;    /* CONNECTING: the connect's */
    uint64_t retry_at;    /* IDLE: the next try */
    unsigned failures;    /* connections that failed since the last zq_tcp_link_ready() */
    zq_backoff_t backoff;
    zq_rand_t rand;
    size_t current;       /* the server in use, or tried last */
    size_t n_servers;
    zq_tcp_link_server_t servers[ZQ_TCP_LINK_SERVERS];
} zq_tcp_link_t;

/** @p ops and @p ctx are borrowed; backoff steps from @p first_ms up to @p max_ms. */
void zq_tcp_link_init(zq_tcp_link_t *l, zq_loop_t *loop, const zq_tcp_link_ops_t *ops,
                      void *ctx, const zq_rand_t *rand, uint32_t first_ms, uint32_t max_ms);

/** One more server to try (a name or an address), whose TLS certificate must name
 *  @p tls_name (NULL: @p host); one already known is not added twice.
 *  @return ZQ_OK, ZQ_ERR_CAPACITY (ZQ_TCP_LINK_SERVERS), ZQ_ERR_TOO_LONG (a name). */
zq_err_t zq_tcp_link_add_server(zq_tcp_link_t *l, const char *host, uint16_t port,
                                const char *tls_name);

/** Every connection from now on runs TLS as @p mode says, trusting @p cfg (borrowed). */
void zq_tcp_link_use_tls(zq_tcp_link_t *l, zq_tcp_link_tls_t mode, tls_client_config_t *cfg);

/** From on_bytes, in ZQ_TCP_LINK_TLS_ASKED: the bytes after those on_bytes says it took are
 *  TLS's; the handshake starts, and on_secure follows it. */
void zq_tcp_link_start_tls(zq_tcp_link_t *l);

/** Connects when a try is due, gives a connect up at its deadline. */
void zq_tcp_link_tick(zq_tcp_link_t *l, uint64_t now);
uint64_t zq_tcp_link_next_timeout(const zq_tcp_link_t *l);

/** Writes what the protocol lends, as far as the socket takes it now. */
void zq_tcp_link_flush(zq_tcp_link_t *l);

/** Gives on_bytes what it left, and reads on once it took it all. */
void zq_tcp_link_resume(zq_tcp_link_t *l, uint64_t now);

/** The protocol's session is up: the next failure tries the next server at once again. */
void zq_tcp_link_ready(zq_tcp_link_t *l);

/** The protocol ends the connection (@p why is logged by on_down); the next try follows. */
void zq_tcp_link_drop(zq_tcp_link_t *l, uint64_t now, const char *why);

bool zq_tcp_link_is_open(const zq_tcp_link_t *l);
const zq_tcp_link_server_t *zq_tcp_link_server(const zq_tcp_link_t *l);

/** Closes the connection for good (at the program's stop), after one last flush. */
void zq_tcp_link_close(zq_tcp_link_t *l);

#endif /* ZQ_PORT_POSIX_TCP_LINK_H */

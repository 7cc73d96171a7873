/* `zq signal`'s insides, shared by its files and by tests/fuzz/fuzz_signal_server.c (which
 * drives the server through the calls the loop and the listener use), and by nothing else
 * (the server's public face is signal.h): the server's state, and the few calls one part
 * makes into another.
 *
 * The parts, each in its own file:
 *   signal_server.c       the run (signal.h), start, the epoll dispatch, timers (pings, idle,
 *                         deadlines), shutdown
 *   signal_log.c          the log lines on stderr
 *   signal_http_request.c accepting connections, reading a request head, routing it
 *   signal_http_answer.c  writing an answer out, then lingering for the peer's FIN
 *   signal_static.c       files under --web
 *   signal_api.c          /api/topics and /api/queues
 *   signal_upgrade.c      an HTTP connection becoming a WebSocket client
 *   signal_ws.c           WebSocket clients: reading, writing, closing
 *   signal_bridge.c       WebSocket clients <-> the sans-IO room router (signal/router.h)
 *   signal_tls.c          --tls-cert: TLS in front of all of it, over a socket pair each
 *   signal_cluster.c      --cluster: the link to NATS that rooms shared with other servers
 *                         travel by (signal/cluster.h) */
#ifndef ZQ_PORT_POSIX_SIGNAL_SERVER_H
#define ZQ_PORT_POSIX_SIGNAL_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port/posix/loop.h"
#include "port/posix/tcp_link.h"
#include "port/zq_port.h"
#include "host/backoff.h"
#include "signal/cluster.h"
#include "signal/http.h"
#include "signal/router.h"
#include "signal/ws.h"
#include "stack/nats/nats.h"
#include "stack/tls/tls_server.h"
#include "server/signal.h"

#if defined(__GNUC__)
#define SIGNAL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SIGNAL_PRINTF(f, a)
#endif

#define LINGER_MS 2000u /* after our last byte, wait this long for the peer's FIN */

/* ---- State ----------------------------------------------------------------------------------- */

typedef enum { HTTP_FREE, HTTP_HEAD, HTTP_SEND, HTTP_LINGER } http_state_t;

/* A connection still speaking HTTP: reading its request head, sending the answer, or waiting
 * for the peer's FIN after it (so a close does not reset what is still in flight). */
typedef struct {
    http_state_t state;
    int fd;
    uint64_t deadline;
    zq_addr_t peer;
    size_t len;  /* HEAD: request bytes in buf; SEND: answer bytes in buf */
    size_t sent; /* SEND: of those, written */
    int file;    /* static file whose bytes follow, or -1 */
    uint64_t file_left;
    bool listing;             /* an /api list's elements follow */
    bool list_begun, list_more;
    bool list_any_room;       /* an open server's list without ?room=: every room's names */
    uint8_t list_kind;        /* sig_name_kind_t */
    uint32_t list_epoch;      /* the router's names_epoch when the length was counted */
    sig_name_cursor_t cursor; /* the next element */
    char list_room[ZQ_SIG_ROOM_MAX + 1];
    char buf[ZQ_HTTP_MAX_REQUEST];
} http_conn_t;

typedef enum { WSC_FREE, WSC_OPEN, WSC_CLOSING } wsc_state_t;

/* A WebSocket client. CLOSING: the router has forgotten it; our close frame drains, then our
 * FIN, then we wait (LINGER_MS at most) for the peer's. */
typedef struct {
    wsc_state_t state;
    int fd;
    bool want_out; /* EPOLLOUT registered */
    bool shut;     /* our FIN is out */
    bool doomed;   /* to be closed once the router call in progress returns */
    uint16_t doom_code;
    const char *doom_why;
    int client; /* the router's index, -1 once it forgot the client */
    uint64_t deadline;
    zq_addr_t peer;
    char id[SIG_ID_LEN + 1];
    char room[ZQ_SIG_ROOM_MAX + 1]; /* the room last logged */
    ws_conn_t ws;
} wsc_t;

/* TLSF_FREE is 0: a zeroed front is free, and a free front's fds are never read. */
typedef enum { TLSF_FREE = 0, TLSF_HANDSHAKE, TLSF_OPEN, TLSF_CLOSING } tls_front_state_t;

/* A TLS connection (signal_tls.c): the client's socket, and once the handshake is done our end
 * of the socket pair whose other end is an HTTP connection of the server's. CLOSING: our
 * close_notify and FIN are out, the client's FIN is awaited (LINGER_MS at most). */
typedef struct {
    tls_front_state_t state;
    int net;               /* the client's socket */
    int plain;             /* our end of the pair, or -1 */
    uint32_t net_events;   /* what epoll watches on each (0: not in the set) */
    uint32_t plain_events;
    bool net_eof;          /* the client's FIN (or a reset) */
    bool net_dead;         /* a send to the client failed: nothing more goes out */
    bool client_done;      /* its FIN or its close_notify: it sends no more */
    bool plain_eof;        /* the server's end of the pair is closed or shut down */
    bool plain_shut;       /* our FIN on the pair: the server has read the client's end */
    bool notified;         /* our close_notify is queued */
    bool net_shut;         /* our FIN to the client */
    uint64_t deadline;     /* HANDSHAKE: the handshake's; CLOSING: the linger's */
    zq_addr_t peer;
    tls_session_t tls;
    uint8_t up[TLS_IO_BUF]; /* the client's plaintext the pair has not taken yet */
    size_t up_off, up_len;
} tls_front_t;

/* --cluster's NATS URLs at most (the link tries those their INFO names too). */
#define SIGNAL_NATS_URLS_MAX ZQ_TCP_LINK_SERVERS

typedef struct {
    char host[64];
    uint16_t port;
    char user[64]; /* USER of USER:PASS@, or TOKEN of TOKEN@ */
    char pass[64];
    bool has_pass;
    bool tls;      /* tls:// */
} signal_nats_url_t;

/* The link to NATS (signal_cluster.c): TCP through port/posix/tcp_link.h, the NATS session
 * on it (READY once the server took CONNECT), and the cluster's messages over that. */
typedef struct {
    bool on;              /* --cluster was given */
    bool fatal;           /* a fatal -ERR came: the session ends */
    bool tls;             /* every connection is TLS: a tls:// URL, or --nats-tlsca */
    uint64_t now;         /* the time of the input being handled, for the client's callback */
    uint64_t connected_at; /* TCP up: READY is due within NATS_CONNECT_MS */
    uint64_t heard_at;    /* the server's last bytes */
    unsigned pings_out;   /* our PINGs it has not answered */
    uint32_t dropped;     /* publishes the full output queue refused */
    signal_nats_url_t first; /* the first URL: its credentials */
    nats_nkey_t nkey;        /* --nats-nkey's or --nats-creds' seed */
    char jwt[NATS_JWT_MAX];  /* --nats-creds' user JWT */
    nats_options_t options;
    zq_tcp_link_t link;
    nats_client_t client;
    sig_cluster_t cluster;
} signal_nats_t;

typedef struct {
    zq_loop_t *loop;
    int epfd;
    zq_socket_t listener;
    int web_dir; /* -1: no static files */
    const char *const *origins;
    size_t origin_count;
    uint64_t idle_ms;
    uint64_t next_ping;
    wsc_t *attaching; /* the client sig_router_connect() is welcoming */
    unsigned doomed;
    wsc_t *by_client[ZQ_SIG_MAX_CLIENTS];
    sig_router_t router;
    http_conn_t http[ZQ_SIGNAL_MAX_HTTP];
    wsc_t ws[ZQ_SIG_MAX_CLIENTS];
    const tls_server_config_t *tls; /* --tls-cert: every connection is TLS; NULL: none is */
    tls_front_t tls_front[ZQ_SIGNAL_MAX_TLS];
    signal_nats_t nats;
} signal_server_t;

/* ---- The server (signal_server.c) ------------------------------------------------------------ */

/* epoll tags: what a ready fd is, and its index. */
enum { TAG_LISTENER = 1, TAG_HTTP = 2, TAG_WS = 3, TAG_TLS_NET = 4, TAG_TLS_PLAIN = 5 };

static inline uint64_t signal_ep_tag(uint32_t kind, size_t index)
{
    return (uint64_t)kind << 32 | (uint32_t)index;
}

/* epoll_ctl(), logged if it fails. */
void signal_ep_set(signal_server_t *srv, int op, int fd, uint64_t data, uint32_t events);

void signal_server_init(signal_server_t *srv, zq_loop_t *loop, const zq_rand_t *rand);
/* The wall clock, Unix seconds: what room tokens expire by. */
uint64_t signal_unix_now(void);
void signal_ensure_fd_limit(void);
/* These return -1 when all is well, else the exit status (signal_fail()'s 1). */
int signal_open_listener(signal_server_t *srv, const zq_addr_t *want, zq_addr_t *bound);
int signal_serve(signal_server_t *srv, zq_loop_t *loop, const zq_addr_t *bound);

/* What signal_serve() hands the loop: the epoll fd's callback (@p ctx is the server), which
 * serves every ready fd; and the driver of the timers (pings, idle clients, deadlines). */
void signal_on_epoll(void *ctx, int fd, uint64_t now);
extern const zq_driver_t signal_server_driver;
/* The stop: every client hears 1001, every connection is closed. */
void signal_shutdown_all(signal_server_t *srv);

/* ---- Log lines (signal_log.c) ---------------------------------------------------------------- */

/* One line on stderr, "zq signal: " first. */
SIGNAL_PRINTF(1, 2) void signal_say(const char *fmt, ...);
/* signal_say(), for what stops the server: @return its exit status, 1. */
SIGNAL_PRINTF(1, 2) int signal_fail(const char *fmt, ...);
/* @p on: lines are still made, but none is written (the fuzz target runs millions of
 * sessions). */
void signal_log_quiet(bool on);
/* @p text in @p out, safe on one log line (control characters become '?'). */
const char *signal_printable(const char *text, char *out, size_t cap);

/* ---- HTTP connections (signal_http_request.c, signal_http_answer.c) -------------------------- */

void signal_accept_all(signal_server_t *srv, uint64_t now);
/* A connection the listener gave (@p peer may be all zeroes): an HTTP slot reading its
 * request, or a 503 at once when every slot is taken. */
void signal_http_accept(signal_server_t *srv, zq_socket_t fd, const zq_addr_t *peer,
                        uint64_t now);
void http_conn_ready(signal_server_t *srv, size_t index, uint32_t events, uint64_t now);
bool http_request_method_is(const http_request_t *req, const char *method);

/* epoll_ctl() @p op for @p h's fd, with its tag. */
void http_conn_watch(signal_server_t *srv, http_conn_t *h, int op, uint32_t events);
void http_conn_close(http_conn_t *h);
/* Sends the @p len bytes of head already in h->buf, then the file or list set up, if any. */
void http_conn_send(signal_server_t *srv, http_conn_t *h, size_t len, uint64_t now);
/* A whole plain-text answer: "@p status reason". */
void http_conn_reply(signal_server_t *srv, http_conn_t *h, uint64_t now, int status,
                     const char *extra_headers);
/* Goes on with the answer once the socket takes more. */
void http_conn_pump(signal_server_t *srv, http_conn_t *h, uint64_t now);

/* ---- What requests get (signal_static.c, signal_api.c, signal_upgrade.c) --------------------- */

void signal_serve_file(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                       uint64_t now);
/* /api/topics (@p kind SIG_NAME_TOPIC) or /api/queues, for the room the query names. */
void signal_serve_api(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                      sig_name_kind_t kind, uint64_t now);
/* Fills h->buf with the next part of the list signal_serve_api() set up; ZQ_ERR_STATE when the
 * lists changed since its length was counted (the answer cannot finish). */
zq_err_t api_list_refill(const signal_server_t *srv, http_conn_t *h);
/* RFC 6455 §10.2's Origin check, which /api obeys too (signal_upgrade.c). */
bool signal_origin_allowed(const signal_server_t *srv, const http_request_t *req);
void signal_try_upgrade(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                        uint64_t now);

/* ---- WebSocket clients (signal_ws.c) --------------------------------------------------------- */

/* The events epoll reports for @p s (its fd is in the set already, from its HTTP days). */
void wsc_watch(signal_server_t *srv, wsc_t *s, uint32_t events);
/* Marks @p s to be closed after the router call in progress: closing now would re-enter the
 * router (peer_left) from inside its own send callback. @p code 0: drop TCP without a close
 * frame (the peer is gone or reads nothing). */
void wsc_doom(signal_server_t *srv, wsc_t *s, uint16_t code, const char *why);
/* Closes every client marked by wsc_doom(). */
void wsc_reap(signal_server_t *srv, uint64_t now);
void wsc_flush(signal_server_t *srv, wsc_t *s);
void wsc_free(signal_server_t *srv, wsc_t *s, const char *why);
void wsc_close(signal_server_t *srv, wsc_t *s, uint64_t now, uint16_t code, const char *why);
void wsc_feed(signal_server_t *srv, wsc_t *s, uint64_t now, const uint8_t *data, size_t len);
void wsc_ready(signal_server_t *srv, size_t index, uint32_t events, uint64_t now);

/* ---- The router bridge (signal_bridge.c) ----------------------------------------------------- */

/* The router's output: one text frame for @p client. */
void signal_router_send(void *ctx, unsigned client, const char *frame, size_t len);
/* Hands @p s to the router, which welcomes it with its id (through signal_router_send). */
void wsc_attach(signal_server_t *srv, wsc_t *s, const char *token, uint64_t now);
/* The router forgets @p s: its room hears peer_left. */
void wsc_leave(signal_server_t *srv, wsc_t *s, const char *why);
/* A whole message from @p s, for the router. */
void wsc_on_message(signal_server_t *srv, wsc_t *s, uint64_t now, const ws_event_t *ev);

/* ---- TLS in front (signal_tls.c) ------------------------------------------------------------- */

/* A connection the listener gave when the server speaks TLS: a front that handshakes, then
 * hands the server a plain connection through signal_http_accept(). With every front taken,
 * or the arena full, the connection is closed (said on stderr). */
void signal_tls_accept(signal_server_t *srv, zq_socket_t fd, const zq_addr_t *peer,
                       uint64_t now);
/* Either socket of front @p index is ready: moves what can move. */
void signal_tls_ready(signal_server_t *srv, size_t index, uint64_t now);
/* The earlier of @p t and every front's handshake or linger deadline. */
uint64_t signal_tls_next_deadline(const signal_server_t *srv, uint64_t t);
void signal_tls_expire(signal_server_t *srv, uint64_t now);
/* After signal_shutdown_all(): what the server wrote last goes out, then close_notify. */
void signal_tls_shutdown_all(signal_server_t *srv, uint64_t now);

/* ---- The cluster's link (signal_cluster.c) --------------------------------------------------- */

/* --cluster: the URLs parsed and the router attached to the cluster; the link opens at the
 * first tick. @return -1, or the exit status (a bad URL or prefix, said on stderr). */
int signal_cluster_start(signal_server_t *srv, const signal_settings_t *s, const zq_rand_t *rand);
/* The earlier of @p t and the link's and the cluster's deadlines. */
uint64_t signal_cluster_next_deadline(const signal_server_t *srv, uint64_t t);
/* Connects, reconnects, pings, and runs the cluster's timers. */
void signal_cluster_tick(signal_server_t *srv, uint64_t now);
/* After signal_shutdown_all(): the members' last `left` goes out, the link closes. */
void signal_cluster_stop(signal_server_t *srv);

#endif /* ZQ_PORT_POSIX_SIGNAL_SERVER_H */

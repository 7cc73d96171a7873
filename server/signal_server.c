/* `zq signal`'s server as a whole: its start (state, descriptor limit, listener and epoll set),
 * the two things the port's poll() loop drives it by (the epoll fd, dispatched to the
 * listener, HTTP and WebSocket slots; and a timer for pings, idle clients and deadlines), and
 * its stop, when every client hears 1001. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "server/signal_server.h"
#include "stack/dtls/dtls.h"
#include "zq/log.h"
#include "zq/time.h"

#define EVENTS_PER_WAKE 64

/* ---- Start ----------------------------------------------------------------------------------- */

/* Level-triggered: a ready fd that is not fully served this turn is reported again. */
void signal_ep_set(signal_server_t *srv, int op, int fd, uint64_t data, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.u64 = data};
    if (epoll_ctl(srv->epfd, op, fd, &ev) != 0) {
        ZQ_LOGW("signal", "epoll_ctl on fd %d: %s", fd, strerror(errno));
    }
}

void signal_server_init(signal_server_t *srv, zq_loop_t *loop, const zq_rand_t *rand)
{
    srv->loop = loop;
    srv->listener = ZQ_SOCKET_INVALID;
    srv->epfd = -1;
    srv->web_dir = -1;
    sig_router_init(&srv->router, rand, signal_router_send, srv);
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        srv->http[i].fd = -1;
        srv->http[i].file = -1;
    }
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        srv->ws[i].fd = -1;
    }
    /* The TLS fronts need nothing: zeroed is free, and their 3.7 MiB stay untouched until used. */
}

uint64_t signal_unix_now(void)
{
    time_t t = time(NULL);
    return t > 0 ? (uint64_t)t : 0;
}

/* Every client and HTTP connection, a static file each, a TLS front's two sockets each, the
 * listener, epoll and stdio must fit the descriptor limit; raise the soft limit towards the
 * hard one if they do not. */
void signal_ensure_fd_limit(void)
{
    rlim_t need = ZQ_SIG_MAX_CLIENTS + 2 * ZQ_SIGNAL_MAX_HTTP + 2 * ZQ_SIGNAL_MAX_TLS + 16;
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < need) {
        lim.rlim_cur = lim.rlim_max < need ? lim.rlim_max : need;
        (void)setrlimit(RLIMIT_NOFILE, &lim);
    }
}

int signal_open_listener(signal_server_t *srv, const zq_addr_t *want, zq_addr_t *bound)
{
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(want, text, sizeof text);
    zq_err_t err = zq_port_tcp_listen(&srv->listener, want, bound);
    if (err == ZQ_ERR_STATE) {
        return signal_fail("%s is already in use (is another zq signal running?)",
                           text);
    }
    if (err != ZQ_OK) {
        return signal_fail("cannot listen on %s", text);
    }
    srv->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (srv->epfd < 0) {
        zq_port_tcp_close(srv->listener);
        srv->listener = ZQ_SOCKET_INVALID; /* run_server closes what is still open */
        return signal_fail("epoll_create1: %s", strerror(errno));
    }
    signal_ep_set(srv, EPOLL_CTL_ADD, srv->listener, signal_ep_tag(TAG_LISTENER, 0), EPOLLIN);
    return -1;
}

/* ---- The loop: one epoll fd, and a timer driver ---------------------------------------------- */

void signal_on_epoll(void *ctx, int fd, uint64_t now)
{
    signal_server_t *srv = ctx;
    struct epoll_event ev[EVENTS_PER_WAKE];
    int n = epoll_wait(fd, ev, EVENTS_PER_WAKE, 0);
    for (int i = 0; i < n; i++) {
        uint32_t kind = (uint32_t)(ev[i].data.u64 >> 32);
        size_t index = (uint32_t)ev[i].data.u64;
        if (kind == TAG_LISTENER) {
            signal_accept_all(srv, now);
        } else if (kind == TAG_HTTP) {
            http_conn_ready(srv, index, ev[i].events, now);
        } else if (kind == TAG_TLS_NET || kind == TAG_TLS_PLAIN) {
            signal_tls_ready(srv, index, now);
        } else {
            wsc_ready(srv, index, ev[i].events, now);
        }
        wsc_reap(srv, now);
    }
}

static uint64_t server_next_timeout(void *obj)
{
    const signal_server_t *srv = obj;
    uint64_t t = signal_tls_next_deadline(srv, srv->next_ping);
    t = signal_cluster_next_deadline(srv, t);
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        if (srv->http[i].state != HTTP_FREE) {
            t = zq_time_min(t, srv->http[i].deadline);
        }
    }
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        const sig_client_slot_t *c = &srv->router.clients[i];
        if (srv->ws[i].state == WSC_CLOSING) {
            t = zq_time_min(t, srv->ws[i].deadline);
        }
        if (c->used) {
            t = zq_time_min(t, c->last_seen + srv->idle_ms);
        }
    }
    return t;
}

/* RFC 6455 §5.5.2: a ping every idle/3, so a live client (browsers answer by themselves)
 * shows life twice or more before the idle limit. */
static uint64_t ping_every(const signal_server_t *srv)
{
    return srv->idle_ms / 3 > 0 ? srv->idle_ms / 3 : 1;
}

static void ping_all(signal_server_t *srv, uint64_t now)
{
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        wsc_t *s = &srv->ws[i];
        if (s->state == WSC_OPEN && !s->doomed && ws_send_ping(&s->ws, NULL, 0) == ZQ_OK) {
            wsc_flush(srv, s);
        }
    }
    srv->next_ping = now + ping_every(srv);
    sig_router_refresh_ice_servers(&srv->router, now); /* as often as the pings */
}

static void expire(signal_server_t *srv, uint64_t now)
{
    signal_tls_expire(srv, now);
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        if (srv->http[i].state != HTTP_FREE && srv->http[i].deadline <= now) {
            http_conn_close(&srv->http[i]);
        }
    }
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (srv->ws[i].state == WSC_CLOSING && srv->ws[i].deadline <= now) {
            wsc_free(srv, &srv->ws[i], "closed");
        }
    }
}

static void server_timeout(void *obj, uint64_t now)
{
    signal_server_t *srv = obj;
    expire(srv, now);
    signal_cluster_tick(srv, now);
    if (now >= srv->next_ping) {
        ping_all(srv, now);
    }
    int idle;
    while ((idle = sig_router_find_idle(&srv->router, now, srv->idle_ms)) >= 0) {
        wsc_t *s = srv->by_client[idle];
        if (s != NULL) {
            wsc_close(srv, s, now, WS_CLOSE_GOING_AWAY, "idle: no pong in time");
        } else {
            sig_router_disconnect(&srv->router, (unsigned)idle);
        }
    }
    wsc_reap(srv, now);
}

const zq_driver_t signal_server_driver = {
    .handle_timeout = server_timeout,
    .next_timeout = server_next_timeout,
};

/* ---- Stop ------------------------------------------------------------------------------------ */

/* SIGINT/SIGTERM: every client hears 1001 (§7.4.1, going away), as far as its socket takes it
 * at once; nothing waits. */
void signal_shutdown_all(signal_server_t *srv)
{
    /* Everyone is closing before anyone leaves the router: no peer_left goes to a client that
     * is about to hear 1001 anyway. */
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        wsc_t *s = &srv->ws[i];
        if (s->state == WSC_OPEN) {
            (void)ws_close(&s->ws, WS_CLOSE_GOING_AWAY, "server shutting down");
            s->state = WSC_CLOSING;
            wsc_flush(srv, s);
        }
    }
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (srv->ws[i].state != WSC_FREE) {
            wsc_free(srv, &srv->ws[i], "server shutting down");
        }
    }
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        if (srv->http[i].state != HTTP_FREE) {
            http_conn_close(&srv->http[i]);
        }
    }
}

int signal_serve(signal_server_t *srv, zq_loop_t *loop, const zq_addr_t *bound)
{
    size_t id;
    srv->next_ping = zq_loop_now(loop) + ping_every(srv);
    if (zq_loop_add_driver(loop, &signal_server_driver, srv, &id) != ZQ_OK ||
        zq_loop_add_fd(loop, srv->epfd, signal_on_epoll, srv) != ZQ_OK) {
        return signal_fail("cannot start the event loop");
    }
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(bound, text, sizeof text);
    (void)printf("zq signal: listening on %s://%s (WebSocket at /ws)\n",
                 srv->tls != NULL ? "https" : "http", text);
    (void)fflush(stdout); /* a script reads the port from this line before connecting */
    zq_loop_stop_on_signals(loop);
    zq_err_t err = zq_loop_run(loop, ZQ_TIME_NEVER);
    zq_loop_stop_on_signals(NULL);
    signal_shutdown_all(srv);
    signal_cluster_stop(srv);
    signal_tls_shutdown_all(srv, zq_loop_now(loop));
    if (err != ZQ_OK) {
        return signal_fail("event loop: %s", zq_strerror(err));
    }
    signal_say("stopped");
    return 0;
}

/* ---- The run (signal.h) ---------------------------------------------------------------------- */

void signal_settings_default(signal_settings_t *s)
{
    memset(s, 0, sizeof *s);
    (void)zq_addr_parse("127.0.0.1:8080", 14, &s->listen);
    s->idle_ms = 45000;
    s->web_dir = -1;
}

static void apply(signal_server_t *srv, const signal_settings_t *s)
{
    srv->idle_ms = s->idle_ms;
    srv->origins = s->origins;
    srv->origin_count = s->origin_count;
    srv->web_dir = s->web_dir;
    if (s->token_key != NULL) {
        sig_router_require_tokens(&srv->router, s->token_key, s->token_key_len);
    }
    if (s->ice_url_count > 0) {
        sig_router_offer_ice_servers(&srv->router, s->ice_urls, s->ice_url_count, s->turn_secret,
                                     s->turn_secret_len, s->turn_ttl_s);
    }
}

static tls_server_config_t tls_identity; /* --tls-cert's chain and key */

/* --tls-cert: mbedTLS's arena (every session's records and state come from it, and from
 * nowhere else), then the identity. @return -1, or the exit status. */
static int start_tls(signal_server_t *srv, const signal_settings_t *s, const zq_rand_t *rand)
{
    static uint8_t arena[ZQ_SIGNAL_TLS_ARENA];
    tls_server_config_t *cfg = &tls_identity;
    if (s->tls_chain == NULL) {
        return -1;
    }
    dtls_arena_init(arena, sizeof arena);
    if (tls_server_config_init(cfg, rand, s->tls_chain, s->tls_chain_len, s->tls_key,
                               s->tls_key_len) != ZQ_OK) {
        return signal_fail("--tls-cert/--tls-key: %s", cfg->why[0] != '\0' ? cfg->why
                                                                           : "mbedTLS refused");
    }
    if (!tls_server_takes_full_records()) {
        signal_say("warning: this build takes TLS records of %d bytes at most; browsers send "
                   "16 KiB ones (build with ZQ_TLS_FULL_RECORDS)", MBEDTLS_SSL_IN_CONTENT_LEN);
    }
    srv->tls = cfg;
    return -1;
}

/* After the stop: the identity freed, what the arena held at its peak, and that every byte of
 * it came back (the sessions were freed by signal_tls_shutdown_all()). */
static void stop_tls(signal_server_t *srv)
{
    dtls_arena_stats_t st;
    if (srv->tls == NULL) {
        return;
    }
    srv->tls = NULL;
    tls_server_config_free(&tls_identity);
    if (dtls_arena_stats(&st) == ZQ_OK) {
        signal_say("TLS arena: peak %zu B of %zu, %zu B in use after the close", st.peak,
                   (size_t)ZQ_SIGNAL_TLS_ARENA, st.in_use);
    }
}

int signal_run(const signal_settings_t *s)
{
    /* Static, 32.5 MiB with the defaults (see signal.h); a slot's pages are touched only once
     * a client uses it. */
    static zq_loop_t loop;
    static signal_server_t srv;
    static zq_rand_t rand;
    rand = zq_port_rand();
    zq_addr_t bound;
    zq_loop_init(&loop);
    signal_server_init(&srv, &loop, &rand);
    apply(&srv, s);
    signal_ensure_fd_limit();
    int rc = start_tls(&srv, s, &rand);
    if (rc < 0) {
        rc = signal_cluster_start(&srv, s, &rand);
    }
    if (rc < 0) {
        rc = signal_open_listener(&srv, &s->listen, &bound);
    }
    if (rc < 0) {
        rc = signal_serve(&srv, &loop, &bound);
    }
    stop_tls(&srv);
    zq_port_tcp_close(srv.listener);
    if (srv.epfd >= 0) {
        (void)close(srv.epfd);
    }
    return rc;
}

/* A TCP connection to one of several servers that comes back by itself (see tcp_link.h). */
#include "port/posix/tcp_link.h"

#include <stdio.h>
#include <string.h>

#include "port/posix/resolve.h"

void zq_tcp_link_init(zq_tcp_link_t *l, zq_loop_t *loop, const zq_tcp_link_ops_t *ops,
                      void *ctx, const zq_rand_t *rand, uint32_t first_ms, uint32_t max_ms)
{
    memset(l, 0, sizeof *l);
    l->loop = loop;
    l->ops = ops;
    l->ctx = ctx;
    l->rand = *rand;
    l->io.sock = ZQ_SOCKET_INVALID;
    zq_backoff_init(&l->backoff, first_ms, max_ms);
}

zq_err_t zq_tcp_link_add_server(zq_tcp_link_t *l, const char *host, uint16_t port,
                                const char *tls_name)
{
    tls_name = tls_name != NULL ? tls_name : host;
    size_t len = strlen(host);
    size_t name_len = strlen(tls_name);
    if (len == 0 || len >= ZQ_TCP_LINK_HOST_MAX || name_len >= ZQ_TCP_LINK_HOST_MAX) {
        return ZQ_ERR_TOO_LONG;
    }
    for (size_t i = 0; i < l->n_servers; i++) {
        if (l->servers[i].port == port && strcmp(l->servers[i].host, host) == 0) {
            return ZQ_OK;
        }
    }
    if (l->n_servers == ZQ_TCP_LINK_SERVERS) {
        return ZQ_ERR_CAPACITY;
    }
    zq_tcp_link_server_t *s = &l->servers[l->n_servers++];
    memcpy(s->host, host, len + 1);
    memcpy(s->tls_name, tls_name, name_len + 1);
    s->port = port;
    return ZQ_OK;
}

void zq_tcp_link_use_tls(zq_tcp_link_t *l, zq_tcp_link_tls_t mode, tls_client_config_t *cfg)
{
    l->tls_mode = cfg != NULL ? mode : ZQ_TCP_LINK_PLAIN;
    l->tls_config = cfg;
}

bool zq_tcp_link_is_open(const zq_tcp_link_t *l)
{
    return l->state == ZQ_TCP_LINK_OPEN;
}

const zq_tcp_link_server_t *zq_tcp_link_server(const zq_tcp_link_t *l)
{
    return &l->servers[l->current];
}

/* ---- Down and up ------------------------------------------------------------------------ */

static void close_socket(zq_tcp_link_t *l)
{
    if (l->io.sock != ZQ_SOCKET_INVALID) {
        zq_loop_remove_fd(l->loop, l->io.sock);
        zq_port_tcp_close(l->io.sock);
    }
    if (l->io.tls != NULL) {
        tls_session_free(l->io.tls); /* no close_notify: the connection failed or is given up */
    }
    l->io = (zq_ws_link_t){.sock = ZQ_SOCKET_INVALID, .tls = NULL};
    l->handshaking = false;
    l->start_asked = false;
    l->want_write = false;
    l->broken = false;
    l->paused = false;
    l->held_len = 0;
}

void zq_tcp_link_drop(zq_tcp_link_t *l, uint64_t now, const char *why)
{
    if (l->state == ZQ_TCP_LINK_IDLE) {
        return;
    }
    close_socket(l);
    l->state = ZQ_TCP_LINK_IDLE;
    /* The next server at once, unless every one has failed since the session last came up. */
    l->failures++;
    l->retry_at = l->failures % l->n_servers != 0 ? now
                                                  : now + zq_backoff_next(&l->backoff, &l->rand);
    l->ops->on_down(l->ctx, now, why);
    l->current = (l->current + 1) % l->n_servers;
}

void zq_tcp_link_ready(zq_tcp_link_t *l)
{
    l->failures = 0;
    zq_backoff_reset(&l->backoff);
}

/* Sets the socket's write interest to whether anything waits to be written. */
static void want_write(zq_tcp_link_t *l, bool more)
{
    if (more != l->want_write && l->io.sock != ZQ_SOCKET_INVALID) {
        (void)zq_loop_set_fd_writable_interest(l->loop, l->io.sock, more);
        l->want_write = more;
    }
}

void zq_tcp_link_flush(zq_tcp_link_t *l)
{
    const uint8_t *data;
    size_t len = 0;
    if (l->state != ZQ_TCP_LINK_OPEN) {
        return; /* connecting: the write interest is the connect's, and stays */
    }
    zq_err_t out = zq_ws_link_flush(&l->io); /* TLS's own bytes first: they come before */
    if (out != ZQ_OK && out != ZQ_ERR_WOULD_BLOCK) {
        l->broken = true;
    }
    /* While TLS handshakes, the protocol's bytes wait: none goes out in the clear. */
    while (!l->broken && !l->handshaking && (len = l->ops->pending(l->ctx, &data)) > 0) {
        size_t sent = 0;
        zq_err_t err = zq_ws_link_send(&l->io, data, len, &sent);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            break;
        }
        if (err != ZQ_OK) {
            l->broken = true; /* dropped at the next turn: not inside the protocol's call */
            break;
        }
        l->ops->sent(l->ctx, sent);
    }
    want_write(l, !l->broken && ((!l->handshaking && len > 0) ||
                                 zq_ws_link_pending_output(&l->io)));
}

/* ---- TLS ------------------------------------------------------------------------------- */

/* Drops the connection for a TLS failure, with its reason (said to be TLS's). */
static void drop_tls(zq_tcp_link_t *l, uint64_t now, const char *why)
{
    (void)snprintf(l->why, sizeof l->why, "%s%s", strstr(why, "TLS") != NULL ? "" : "TLS: ",
                   why);
    zq_tcp_link_drop(l, now, l->why);
}

static void begin_tls(zq_tcp_link_t *l, uint64_t now)
{
    const char *why = "";
    l->io.tls = &l->tls;
    l->handshaking = true;
    if (zq_ws_link_tls_begin(&l->io, l->tls_config, l->servers[l->current].tls_name, &why) !=
        ZQ_OK) {
        drop_tls(l, now, why); /* close_socket() frees the session */
    }
}

void zq_tcp_link_start_tls(zq_tcp_link_t *l)
{
    if (l->tls_mode == ZQ_TCP_LINK_TLS_ASKED && l->state == ZQ_TCP_LINK_OPEN &&
        l->io.tls == NULL) {
        l->start_asked = true; /* begun by the caller of on_bytes, after it returns */
    }
}

/* The handshake as far as the socket allows; once open, the protocol hears it and its bytes
 * go out. @return true while the handshake still waits for the socket. */
static bool handshake(zq_tcp_link_t *l, uint64_t now)
{
    const char *why = "";
    zq_err_t err = zq_ws_link_tls_step(&l->io, &why);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        want_write(l, zq_ws_link_pending_output(&l->io));
        return true;
    }
    if (err != ZQ_OK) {
        drop_tls(l, now, why);
        return false;
    }
    l->handshaking = false;
    if (l->ops->on_secure != NULL) {
        l->ops->on_secure(l->ctx, now);
    }
    zq_tcp_link_flush(l);
    return false;
}

/* ---- The socket -------------------------------------------------------------------------- */

/* on_bytes took @p used of @p len: the rest waits in held_in, the socket unpolled; or, after
 * the protocol asked for TLS there, the rest is the server's first TLS bytes. */
static void hold_rest(zq_tcp_link_t *l, uint64_t now, const uint8_t *data, size_t len,
                      size_t used)
{
    if (l->state != ZQ_TCP_LINK_OPEN) {
        return;
    }
    if (l->start_asked) {
        l->start_asked = false;
        begin_tls(l, now);
        if (l->state == ZQ_TCP_LINK_OPEN && used < len &&
            tls_session_feed(&l->tls, data + used, len - used) < len - used) {
            drop_tls(l, now, "more than a TLS buffer came before the handshake");
        }
        return;
    }
    if (used >= len) {
        return;
    }
    memmove(l->held_in, data + used, len - used);
    l->held_len = len - used;
    l->paused = true;
    (void)zq_loop_set_fd_readable_interest(l->loop, l->io.sock, false);
}

static void read_all(zq_tcp_link_t *l, uint64_t now);

void zq_tcp_link_resume(zq_tcp_link_t *l, uint64_t now)
{
    if (!l->paused || l->state != ZQ_TCP_LINK_OPEN) {
        return;
    }
    size_t used = l->ops->on_bytes(l->ctx, now, l->held_in, l->held_len);
    if (l->state != ZQ_TCP_LINK_OPEN) {
        return;
    }
    if (used < l->held_len) {
        memmove(l->held_in, l->held_in + used, l->held_len - used);
        l->held_len -= used;
        return;
    }
    l->paused = false;
    l->held_len = 0;
    (void)zq_loop_set_fd_readable_interest(l->loop, l->io.sock, true);
    read_all(l, now); /* TLS may hold decrypted bytes, which poll() never announces */
}

static void read_all(zq_tcp_link_t *l, uint64_t now)
{
    static uint8_t buf[sizeof l->held_in];
    size_t len;
    zq_err_t err = ZQ_ERR_WOULD_BLOCK;
    while (l->state == ZQ_TCP_LINK_OPEN && !l->broken && !l->paused) {
        if (l->handshaking && handshake(l, now)) {
            return; /* waits for the socket */
        }
        if (l->state != ZQ_TCP_LINK_OPEN ||
            (err = zq_ws_link_recv(&l->io, buf, sizeof buf, &len)) != ZQ_OK) {
            break;
        }
        hold_rest(l, now, buf, len, l->ops->on_bytes(l->ctx, now, buf, len));
    }
    if (l->paused && !l->broken) {
        return; /* stopped by the protocol, not by the socket */
    }
    if (l->state == ZQ_TCP_LINK_OPEN && (l->broken || err != ZQ_ERR_WOULD_BLOCK)) {
        zq_tcp_link_drop(l, now, l->broken ? "a write failed"
                                 : err == ZQ_ERR_CLOSED ? "the server closed the connection"
                                                        : "the connection failed");
    }
}

static void fd_ready(void *ctx, int fd, uint64_t now)
{
    zq_tcp_link_t *l = ctx;
    (void)fd;
    if (l->state == ZQ_TCP_LINK_CONNECTING) {
        if (zq_port_tcp_connect_finish(l->io.sock, &l->to) != ZQ_OK) {
            zq_loop_remove_fd(l->loop, l->io.sock);
            l->io.sock = ZQ_SOCKET_INVALID; /* _finish closed it */
            zq_tcp_link_drop(l, now, "connection refused");
            return;
        }
        l->state = ZQ_TCP_LINK_OPEN;
        l->ops->on_open(l->ctx, now);
        if (l->tls_mode == ZQ_TCP_LINK_TLS_FIRST && l->state == ZQ_TCP_LINK_OPEN) {
            begin_tls(l, now);
        }
    }
    zq_tcp_link_flush(l);
    read_all(l, now);
}

static void open_next(zq_tcp_link_t *l, uint64_t now)
{
    const zq_tcp_link_server_t *s = &l->servers[l->current];
    l->state = ZQ_TCP_LINK_CONNECTING; /* so that a failure below is dropped, and counted */
    if (zq_posix_resolve(s->host, ZQ_AF_NONE, &l->to) != ZQ_OK) {
        zq_tcp_link_drop(l, now, "the host name does not resolve");
        return;
    }
    l->to.port = s->port;
    if (zq_port_tcp_connect_start(&l->io.sock, &l->to) != ZQ_OK) {
        l->io.sock = ZQ_SOCKET_INVALID;
        zq_tcp_link_drop(l, now, "cannot connect");
        return;
    }
    if (zq_loop_add_fd(l->loop, l->io.sock, fd_ready, l) != ZQ_OK) {
        zq_port_tcp_close(l->io.sock);
        l->io.sock = ZQ_SOCKET_INVALID;
        zq_tcp_link_drop(l, now, "no room in the event loop");
        return;
    }
    (void)zq_loop_set_fd_writable_interest(l->loop, l->io.sock, true); /* the connect's end */
    l->want_write = true;
    l->deadline = now + ZQ_TCP_LINK_CONNECT_MS;
}

void zq_tcp_link_tick(zq_tcp_link_t *l, uint64_t now)
{
    if (l->broken) {
        zq_tcp_link_drop(l, now, "a write failed");
    }
    if (l->state == ZQ_TCP_LINK_IDLE && l->n_servers > 0 && now >= l->retry_at) {
        open_next(l, now);
    } else if (l->state == ZQ_TCP_LINK_CONNECTING && now >= l->deadline) {
        zq_tcp_link_drop(l, now, "connect timed out");
    }
}

uint64_t zq_tcp_link_next_timeout(const zq_tcp_link_t *l)
{
    if (l->broken) {
        return 0;
    }
    return l->state == ZQ_TCP_LINK_IDLE          ? l->retry_at
           : l->state == ZQ_TCP_LINK_CONNECTING ? l->deadline
                                                 : ZQ_TIME_NEVER;
}

void zq_tcp_link_close(zq_tcp_link_t *l)
{
    zq_tcp_link_flush(l);
    if (l->io.tls != NULL && !l->handshaking) {
        zq_ws_link_end_tls(&l->io); /* close_notify (RFC 5246 §7.2.1), if the socket takes it */
        l->io.tls = NULL;
    }
    close_socket(l);
    l->state = ZQ_TCP_LINK_IDLE;
    l->n_servers = 0; /* no try follows */
}

#include "port/posix/loop.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

#include "zq/log.h"

enum { POLL_SLOTS = ZQ_LOOP_MAX_SOCKETS + ZQ_LOOP_MAX_FDS };

void zq_loop_init(zq_loop_t *loop)
{
    memset(loop, 0, sizeof *loop);
    for (size_t i = 0; i < ZQ_LOOP_MAX_FDS; i++) {
        loop->fds[i].fd = -1;
    }
}

zq_err_t zq_loop_add_driver(zq_loop_t *loop, const zq_driver_t *ops, void *obj, size_t *id)
{
    if (ops == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (loop->driver_count == ZQ_LOOP_MAX_DRIVERS) {
        return ZQ_ERR_CAPACITY;
    }
    loop->drivers[loop->driver_count].ops = ops;
    loop->drivers[loop->driver_count].obj = obj;
    *id = loop->driver_count++;
    return ZQ_OK;
}

zq_err_t zq_loop_add_socket(zq_loop_t *loop, size_t id, zq_socket_t sock, const zq_addr_t *local)
{
    if (id >= loop->driver_count || sock == ZQ_SOCKET_INVALID) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (loop->socket_count == ZQ_LOOP_MAX_SOCKETS) {
        return ZQ_ERR_CAPACITY;
    }
    zq_loop_socket_t *s = &loop->sockets[loop->socket_count++];
    s->sock = sock;
    s->local = *local;
    s->driver = (uint8_t)id;
    return ZQ_OK;
}

void zq_loop_remove_socket(zq_loop_t *loop, zq_socket_t sock)
{
    for (size_t i = 0; i < loop->socket_count; i++) {
        if (loop->sockets[i].sock == sock) {
            memmove(&loop->sockets[i], &loop->sockets[i + 1],
                    (loop->socket_count - i - 1) * sizeof loop->sockets[0]);
            loop->socket_count--;
            return;
        }
    }
}

zq_err_t zq_loop_add_fd(zq_loop_t *loop, int fd, zq_loop_fd_fn fn, void *ctx)
{
    if (fd < 0 || fn == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    for (size_t i = 0; i < ZQ_LOOP_MAX_FDS; i++) {
        if (loop->fds[i].fd < 0) {
            loop->fds[i] = (zq_loop_fd_t){fd, fn, ctx, false, false};
            return ZQ_OK;
        }
    }
    return ZQ_ERR_CAPACITY;
}

void zq_loop_remove_fd(zq_loop_t *loop, int fd)
{
    for (size_t i = 0; i < ZQ_LOOP_MAX_FDS; i++) {
        if (loop->fds[i].fd == fd) {
            loop->fds[i].fd = -1;
        }
    }
}

zq_err_t zq_loop_set_fd_writable_interest(zq_loop_t *loop, int fd, bool on)
{
    for (size_t i = 0; i < ZQ_LOOP_MAX_FDS; i++) {
        if (fd >= 0 && loop->fds[i].fd == fd) {
            loop->fds[i].want_write = on;
            return ZQ_OK;
        }
    }
    return ZQ_ERR_NOT_FOUND;
}

zq_err_t zq_loop_set_fd_readable_interest(zq_loop_t *loop, int fd, bool on)
{
    for (size_t i = 0; i < ZQ_LOOP_MAX_FDS; i++) {
        if (fd >= 0 && loop->fds[i].fd == fd) {
            loop->fds[i].no_read = !on;
            return ZQ_OK;
        }
    }
    return ZQ_ERR_NOT_FOUND;
}

void zq_loop_stop(zq_loop_t *loop)
{
    loop->stop = 1;
}

uint64_t zq_loop_now(zq_loop_t *loop)
{
    uint64_t t = zq_port_now_ms();
    if (t > loop->now) {
        loop->now = t;
    }
    return loop->now;
}

/* ---- output ------------------------------------------------------------------------------- */

static const zq_loop_socket_t *socket_for(const zq_loop_t *loop, uint8_t driver,
                                          const zq_addr_t *local, const zq_addr_t *remote)
{
    const zq_loop_socket_t *same_family = NULL;
    const zq_loop_socket_t *first = NULL;
    for (size_t i = 0; i < loop->socket_count; i++) {
        const zq_loop_socket_t *s = &loop->sockets[i];
        if (s->driver != driver || s->sock == ZQ_SOCKET_INVALID) {
            continue;
        }
        if (zq_addr_equal(&s->local, local)) {
            return s;
        }
        if (same_family == NULL && s->local.family == remote->family) {
            same_family = s;
        }
        if (first == NULL) {
            first = s;
        }
    }
    return same_family != NULL ? same_family : first;
}

static void send_datagram(zq_loop_t *loop, uint8_t driver, const zq_addr_t *local,
                          const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    const zq_loop_socket_t *s = socket_for(loop, driver, local, remote);
    if (s == NULL) {
        ZQ_LOGW("loop", "driver %u has no socket: dropped a %zu-byte datagram", driver, len);
        loop->stats.tx_errors++;
        return;
    }
    zq_err_t err = zq_port_udp_send(s->sock, remote, data, len);
    if (err == ZQ_OK) {
        loop->stats.tx_datagrams++;
    } else if (err == ZQ_ERR_WOULD_BLOCK) {
        loop->stats.tx_dropped++;
    } else {
        loop->stats.tx_errors++;
    }
}

static void drain(zq_loop_t *loop, uint8_t driver)
{
    const zq_loop_driver_t *d = &loop->drivers[driver];
    if (d->ops->poll_transmit == NULL) {
        return;
    }
    for (;;) {
        /* Zeroed each time so a driver that never sets `local` gets the fallback socket. */
        zq_addr_t local = {0};
        zq_addr_t remote = {0};
        const uint8_t *data = NULL;
        size_t len = 0;
        if (!d->ops->poll_transmit(d->obj, &local, &remote, &data, &len)) {
            return;
        }
        send_datagram(loop, driver, &local, &remote, data, len);
    }
}

/* The sans-IO rule: after an input, every output goes out before the next input. after_io
 * may react to events with API calls (new output), hence the second drain. */
static void settle(zq_loop_t *loop, uint64_t now)
{
    for (uint8_t i = 0; i < loop->driver_count; i++) {
        drain(loop, i);
    }
    for (uint8_t i = 0; i < loop->driver_count; i++) {
        const zq_loop_driver_t *d = &loop->drivers[i];
        if (d->ops->after_io != NULL) {
            d->ops->after_io(d->obj, now);
        }
    }
    for (uint8_t i = 0; i < loop->driver_count; i++) {
        drain(loop, i);
    }
}

/* ---- input -------------------------------------------------------------------------------- */

static uint64_t driver_deadline(const zq_loop_driver_t *d)
{
    if (d->ops->next_timeout == NULL || d->ops->handle_timeout == NULL) {
        return ZQ_TIME_NEVER;
    }
    return d->ops->next_timeout(d->obj);
}

static void fire_timeouts(zq_loop_t *loop)
{
    for (uint8_t i = 0; i < loop->driver_count && !loop->stop; i++) {
        const zq_loop_driver_t *d = &loop->drivers[i];
        uint64_t now = zq_loop_now(loop);
        if (driver_deadline(d) <= now) {
            d->ops->handle_timeout(d->obj, now);
            settle(loop, now);
        }
    }
}

static void read_socket(zq_loop_t *loop, const zq_loop_socket_t *s)
{
    const zq_loop_driver_t *d = &loop->drivers[s->driver];
    for (unsigned i = 0; i < ZQ_LOOP_RX_BURST && !loop->stop; i++) {
        zq_addr_t from;
        size_t len = 0;
        zq_err_t err = zq_port_udp_recv(s->sock, &from, loop->rx_buf, sizeof loop->rx_buf, &len);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return;
        }
        if (err == ZQ_ERR_NO_SPACE) {
            loop->stats.rx_oversize++;
            continue;
        }
        if (err != ZQ_OK) {
            loop->stats.rx_errors++;
            return;
        }
        loop->stats.rx_datagrams++;
        uint64_t now = zq_loop_now(loop);
        if (d->ops->handle_datagram != NULL) {
            d->ops->handle_datagram(d->obj, now, &s->local, &from, loop->rx_buf, len);
        }
        settle(loop, now);
    }
}

static void on_socket_ready(zq_loop_t *loop, zq_loop_socket_t *s, short revents)
{
    if (revents & POLLNVAL) {
        /* Closed under the loop: stop polling it rather than spin on POLLNVAL. */
        ZQ_LOGW("loop", "socket %d is not open; no longer polled", s->sock);
        s->sock = ZQ_SOCKET_INVALID;
        return;
    }
    read_socket(loop, s);
}

static void on_fd_ready(zq_loop_t *loop, size_t slot, int fd, short revents)
{
    zq_loop_fd_t *f = &loop->fds[slot];
    if (f->fd != fd) {
        return; /* removed by an earlier callback of this turn */
    }
    if (revents & POLLNVAL) {
        ZQ_LOGW("loop", "fd %d is not open; no longer polled", fd);
        f->fd = -1;
        return;
    }
    uint64_t now = zq_loop_now(loop);
    f->fn(f->ctx, fd, now);
    settle(loop, now);
}

/* ---- the loop ----------------------------------------------------------------------------- */

/* `who` maps each pollfd back: below ZQ_LOOP_MAX_SOCKETS a socket index, else an fd slot. */
static nfds_t build_pollfds(const zq_loop_t *loop, struct pollfd *pfd, size_t *who)
{
    nfds_t n = 0;
    for (size_t i = 0; i < loop->socket_count; i++) {
        if (loop->sockets[i].sock != ZQ_SOCKET_INVALID) {
            pfd[n] = (struct pollfd){.fd = loop->sockets[i].sock, .events = POLLIN};
            who[n++] = i;
        }
    }
    for (size_t i = 0; i < ZQ_LOOP_MAX_FDS; i++) {
        if (loop->fds[i].fd >= 0) {
            short events = (short)((loop->fds[i].no_read ? 0 : POLLIN) |
                                   (loop->fds[i].want_write ? POLLOUT : 0));
            pfd[n] = (struct pollfd){.fd = loop->fds[i].fd, .events = events};
            who[n++] = ZQ_LOOP_MAX_SOCKETS + i;
        }
    }
    return n;
}

static void dispatch(zq_loop_t *loop, const struct pollfd *pfd, const size_t *who, nfds_t n)
{
    for (nfds_t k = 0; k < n && !loop->stop; k++) {
        if (pfd[k].revents == 0) {
            continue;
        }
        if (who[k] < ZQ_LOOP_MAX_SOCKETS) {
            on_socket_ready(loop, &loop->sockets[who[k]], pfd[k].revents);
        } else {
            on_fd_ready(loop, who[k] - ZQ_LOOP_MAX_SOCKETS, pfd[k].fd, pfd[k].revents);
        }
    }
}

static int wait_ms(const zq_loop_t *loop, uint64_t now, uint64_t stop_at)
{
    uint64_t deadline = stop_at;
    for (uint8_t i = 0; i < loop->driver_count; i++) {
        deadline = zq_time_min(deadline, driver_deadline(&loop->drivers[i]));
    }
    if (deadline <= now) {
        return 0;
    }
    uint64_t wait = deadline - now;
    return wait > ZQ_LOOP_MAX_WAIT_MS ? ZQ_LOOP_MAX_WAIT_MS : (int)wait;
}

zq_err_t zq_loop_run(zq_loop_t *loop, uint64_t stop_at)
{
    settle(loop, zq_loop_now(loop));
    while (!loop->stop) {
        fire_timeouts(loop);
        uint64_t now = zq_loop_now(loop);
        if (loop->stop) {
            break;
        }
        if (now >= stop_at) {
            return ZQ_ERR_TIMEOUT;
        }
        struct pollfd pfd[POLL_SLOTS];
        size_t who[POLL_SLOTS];
        nfds_t n = build_pollfds(loop, pfd, who);
        if (poll(pfd, n, wait_ms(loop, now, stop_at)) < 0) {
            if (errno == EINTR) {
                continue; /* a signal: its handler may have called zq_loop_stop() */
            }
            ZQ_LOGE("loop", "poll: %s", strerror(errno));
            return ZQ_ERR_IO;
        }
        dispatch(loop, pfd, who, n);
    }
    loop->stop = 0;
    return ZQ_OK;
}

/* ---- Ctrl-C ------------------------------------------------------------------------------- */

static zq_loop_t *signal_loop;

static void on_stop_signal(int sig)
{
    (void)sig;
    if (signal_loop != NULL) {
        zq_loop_stop(signal_loop);
    }
}

void zq_loop_stop_on_signals(zq_loop_t *loop)
{
    signal_loop = loop;
    /* No SA_RESTART: poll() returns EINTR at once, so the loop sees the stop without waiting. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = loop != NULL ? on_stop_signal : SIG_DFL;
    (void)sigemptyset(&sa.sa_mask);
    (void)sigaction(SIGINT, &sa, NULL);
    (void)sigaction(SIGTERM, &sa, NULL);
}

/* TCP sockets of both ports (see bsd_socket.h): non-blocking, one address family per socket,
 * TCP_NODELAY, and the error mapping of port/zq_port.h. */
#include "port/bsd/bsd_socket.h"
#include "zq/log.h"

static zq_err_t fail_and_close(int fd, const char *what, const zq_addr_t *addr, int saved)
{
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(addr, text, sizeof text);
    ZQ_LOGW("tcp", "%s %s: " ZQ_BSD_ERR_FMT, what, text, ZQ_BSD_ERR_ARG(saved));
    (void)close(fd);
    return ZQ_ERR_IO;
}

static int open_stream(const struct sockaddr_storage *ss)
{
    int fd = zq_bsd_socket(ss->ss_family, SOCK_STREAM);
    if (fd < 0) {
        ZQ_LOGW("tcp", "socket: " ZQ_BSD_ERR_FMT, ZQ_BSD_ERR_ARG(errno));
    }
    return fd;
}

/* Small frames (a join, an ICE candidate) go out at once instead of waiting on Nagle's
 * algorithm for the peer's delayed ACK (RFC 896; up to 40-200 ms per frame on Linux). */
static void set_nodelay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static zq_err_t bind_listener(int fd, const struct sockaddr_storage *ss, socklen_t sl,
                              const zq_addr_t *bind_addr)
{
    int one = 1;
    /* SO_REUSEADDR: a restarted server binds while the old connections sit in TIME_WAIT. On
     * Linux it never lets two listeners share a port, so EADDRINUSE still means "taken"; lwIP
     * has it with SO_REUSE (CONFIG_LWIP_SO_REUSE, on by default). */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) {
        return fail_and_close(fd, "SO_REUSEADDR on", bind_addr, errno);
    }
    if (ss->ss_family == AF_INET6 &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0) {
        return fail_and_close(fd, "IPV6_V6ONLY on", bind_addr, errno);
    }
    if (bind(fd, (const struct sockaddr *)ss, sl) != 0) {
        if (errno == EADDRINUSE) {
            (void)close(fd);
            return ZQ_ERR_STATE;
        }
        return fail_and_close(fd, "bind", bind_addr, errno);
    }
    if (listen(fd, ZQ_BSD_TCP_BACKLOG) != 0) {
        return fail_and_close(fd, "listen on", bind_addr, errno);
    }
    return ZQ_OK;
}

zq_err_t zq_port_tcp_listen(zq_socket_t *sock, const zq_addr_t *bind_addr, zq_addr_t *bound)
{
    *sock = ZQ_SOCKET_INVALID;
    struct sockaddr_storage ss;
    socklen_t sl = zq_bsd_sockaddr_from_addr(bind_addr, &ss);
    if (sl == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    int fd = open_stream(&ss);
    if (fd < 0) {
        return ZQ_ERR_IO;
    }
    zq_err_t err = bind_listener(fd, &ss, sl, bind_addr);
    if (err != ZQ_OK) {
        return err;
    }
    sl = (socklen_t)sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        return fail_and_close(fd, "getsockname after binding", bind_addr, errno);
    }
    if (bound != NULL) {
        (void)zq_bsd_addr_from_sockaddr((const struct sockaddr *)&ss, bound);
    }
    *sock = fd;
    return ZQ_OK;
}

zq_err_t zq_port_tcp_accept(zq_socket_t listener, zq_socket_t *conn, zq_addr_t *peer)
{
    *conn = ZQ_SOCKET_INVALID;
    struct sockaddr_storage ss;
    socklen_t sl = (socklen_t)sizeof ss;
    int fd = zq_bsd_accept(listener, (struct sockaddr *)&ss, &sl);
    if (fd < 0) {
        /* ECONNABORTED: the peer gave up while queued; there is simply nothing to take. */
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED) {
            return ZQ_ERR_WOULD_BLOCK;
        }
        ZQ_LOGW("tcp", "accept: " ZQ_BSD_ERR_FMT, ZQ_BSD_ERR_ARG(errno));
        return ZQ_ERR_IO;
    }
    set_nodelay(fd);
    if (peer != NULL && zq_bsd_addr_from_sockaddr((const struct sockaddr *)&ss, peer) != ZQ_OK) {
        *peer = (zq_addr_t){0};
    }
    *conn = fd;
    return ZQ_OK;
}

zq_err_t zq_port_tcp_connect_start(zq_socket_t *sock, const zq_addr_t *to)
{
    *sock = ZQ_SOCKET_INVALID;
    struct sockaddr_storage ss;
    socklen_t sl = zq_bsd_sockaddr_from_addr(to, &ss);
    if (sl == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    int fd = open_stream(&ss);
    if (fd < 0) {
        return ZQ_ERR_IO;
    }
    if (connect(fd, (const struct sockaddr *)&ss, sl) != 0 && errno != EINPROGRESS) {
        return fail_and_close(fd, "connect to", to, errno);
    }
    *sock = fd;
    return ZQ_OK;
}

zq_err_t zq_port_tcp_connect_finish(zq_socket_t sock, const zq_addr_t *to)
{
    int so_error = 0; /* after a failed wait too: SO_ERROR, or the next call, says what failed */
    socklen_t len = (socklen_t)sizeof so_error;
    if (getsockopt(sock, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0) {
        so_error = errno;
    }
    if (so_error != 0) {
        return fail_and_close(sock, "connect to", to, so_error);
    }
    set_nodelay(sock);
    return ZQ_OK;
}

/* A non-blocking connect() and a wait for writability give the same result as a blocking
 * connect with a timeout, which POSIX has no call for. */
zq_err_t zq_port_tcp_connect(zq_socket_t *sock, const zq_addr_t *to, uint32_t timeout_ms)
{
    zq_err_t err = zq_port_tcp_connect_start(sock, to);
    if (err != ZQ_OK) {
        return err;
    }
    if (zq_bsd_wait(*sock, true, zq_port_now_ms() + timeout_ms) == ZQ_ERR_TIMEOUT) {
        (void)close(*sock);
        *sock = ZQ_SOCKET_INVALID;
        return ZQ_ERR_TIMEOUT;
    }
    err = zq_port_tcp_connect_finish(*sock, to);
    if (err != ZQ_OK) {
        *sock = ZQ_SOCKET_INVALID;
    }
    return err;
}

/* Errors that mean the connection is gone rather than that something is wrong here. lwIP
 * reports a connection it aborted (a reset, retransmissions given up) as ECONNABORTED. */
static bool peer_gone(int e)
{
    return e == EPIPE || e == ECONNRESET || e == ETIMEDOUT || e == ENOTCONN || e == ECONNABORTED;
}

zq_err_t zq_port_tcp_send(zq_socket_t sock, const uint8_t *data, size_t len, size_t *sent)
{
    *sent = 0;
    if (len == 0) {
        return ZQ_OK;
    }
    ssize_t n;
    do {
        n = send(sock, data, len, ZQ_BSD_SEND_FLAGS);
    } while (n < 0 && errno == EINTR);
    if (n >= 0) {
        /* Nothing taken is "not now" (lwIP's guard; Linux never does it): a caller that loops
         * until all is sent must not spin on it. */
        *sent = (size_t)n;
        return n > 0 ? ZQ_OK : ZQ_ERR_WOULD_BLOCK;
    }
    if (zq_bsd_send_busy(errno)) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    if (peer_gone(errno)) {
        return ZQ_ERR_CLOSED;
    }
    ZQ_LOGW("tcp", "send (%u bytes): " ZQ_BSD_ERR_FMT, (unsigned)len, ZQ_BSD_ERR_ARG(errno));
    return ZQ_ERR_IO;
}

/* recv(2) with @p flags (0, or MSG_PEEK), mapped onto zq_port_tcp_recv()'s results. */
static zq_err_t receive(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len, int flags)
{
    if (cap == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    ssize_t n;
    do {
        n = recv(sock, buf, cap, flags);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        *len = (size_t)n;
        return ZQ_OK;
    }
    if (n == 0) {
        return ZQ_ERR_CLOSED; /* the peer's FIN: end of stream */
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    if (peer_gone(errno)) {
        return ZQ_ERR_CLOSED;
    }
    ZQ_LOGW("tcp", "recv: " ZQ_BSD_ERR_FMT, ZQ_BSD_ERR_ARG(errno));
    return ZQ_ERR_IO;
}

zq_err_t zq_port_tcp_recv(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len)
{
    return receive(sock, buf, cap, len, 0);
}

zq_err_t zq_port_tcp_peek(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len)
{
    return receive(sock, buf, cap, len, MSG_PEEK);
}

zq_err_t zq_port_tcp_wait(zq_socket_t sock, bool write, uint64_t deadline)
{
    return zq_bsd_wait(sock, write, deadline);
}

void zq_port_tcp_close(zq_socket_t sock)
{
    if (sock != ZQ_SOCKET_INVALID) {
        (void)close(sock);
    }
}

/* TCP sockets for the POSIX port: non-blocking, one address family per socket, no SIGPIPE. */
#define _GNU_SOURCE /* accept4(): the accepted socket is non-blocking from its first moment */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "port/posix/sockaddr.h"
#include "port/zq_port.h"
#include "zq/log.h"

/* Connections a listener lets the kernel hold before accept(): a browser page opens two
 * WebSockets at once, and a test may open hundreds in a burst. */
#define TCP_BACKLOG 512

static zq_err_t fail_and_close(int fd, const char *what, const zq_addr_t *addr, int saved)
{
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(addr, text, sizeof text);
    ZQ_LOGW("tcp", "%s %s: %s", what, text, strerror(saved));
    (void)close(fd);
    return ZQ_ERR_IO;
}

static int open_stream(const struct sockaddr_storage *ss)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        ZQ_LOGW("tcp", "socket: %s", strerror(errno));
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
     * Linux it never lets two listeners share a port, so EADDRINUSE still means "taken". */
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
    if (listen(fd, TCP_BACKLOG) != 0) {
        return fail_and_close(fd, "listen on", bind_addr, errno);
    }
    return ZQ_OK;
}

zq_err_t zq_port_tcp_listen(zq_socket_t *sock, const zq_addr_t *bind_addr, zq_addr_t *bound)
{
    *sock = ZQ_SOCKET_INVALID;
    struct sockaddr_storage ss;
    socklen_t sl = zq_posix_sockaddr_from_addr(bind_addr, &ss);
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
        (void)zq_posix_addr_from_sockaddr((const struct sockaddr *)&ss, bound);
    }
    *sock = fd;
    return ZQ_OK;
}

zq_err_t zq_port_tcp_accept(zq_socket_t listener, zq_socket_t *conn, zq_addr_t *peer)
{
    *conn = ZQ_SOCKET_INVALID;
    struct sockaddr_storage ss;
    socklen_t sl;
    int fd;
    do {
        sl = (socklen_t)sizeof ss;
        fd = accept4(listener, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        /* ECONNABORTED: the peer gave up while queued; there is simply nothing to take. */
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED) {
            return ZQ_ERR_WOULD_BLOCK;
        }
        ZQ_LOGW("tcp", "accept: %s", strerror(errno));
        return ZQ_ERR_IO;
    }
    set_nodelay(fd);
    if (peer != NULL && zq_posix_addr_from_sockaddr((const struct sockaddr *)&ss, peer) != ZQ_OK) {
        *peer = (zq_addr_t){0};
    }
    *conn = fd;
    return ZQ_OK;
}

/* Waits for a non-blocking connect() to finish: 0 done (check SO_ERROR), -1 timed out. */
static int wait_connected(int fd, uint32_t timeout_ms)
{
    uint64_t deadline = zq_port_now_ms() + timeout_ms;
    for (;;) {
        uint64_t now = zq_port_now_ms();
        if (now >= deadline) {
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int n = poll(&p, 1, (int)(deadline - now));
        if (n > 0) {
            return 0;
        }
        if (n < 0 && errno != EINTR) {
            return 0; /* SO_ERROR, or the next call, says what went wrong */
        }
    }
}

zq_err_t zq_port_tcp_connect(zq_socket_t *sock, const zq_addr_t *to, uint32_t timeout_ms)
{
    *sock = ZQ_SOCKET_INVALID;
    struct sockaddr_storage ss;
    socklen_t sl = zq_posix_sockaddr_from_addr(to, &ss);
    if (sl == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    int fd = open_stream(&ss);
    if (fd < 0) {
        return ZQ_ERR_IO;
    }
    /* A non-blocking connect() and poll() give the same result as a blocking connect with a
     * timeout, which POSIX has no call for. */
    int rc = connect(fd, (const struct sockaddr *)&ss, sl);
    if (rc != 0 && errno != EINPROGRESS) {
        return fail_and_close(fd, "connect to", to, errno);
    }
    if (rc != 0 && wait_connected(fd, timeout_ms) != 0) {
        (void)close(fd);
        return ZQ_ERR_TIMEOUT;
    }
    int so_error = 0;
    socklen_t len = (socklen_t)sizeof so_error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0) {
        so_error = errno;
    }
    if (so_error != 0) {
        return fail_and_close(fd, "connect to", to, so_error);
    }
    set_nodelay(fd);
    *sock = fd;
    return ZQ_OK;
}

/* Errors that mean the connection is gone rather than that something is wrong here. */
static bool peer_gone(int e)
{
    return e == EPIPE || e == ECONNRESET || e == ETIMEDOUT || e == ENOTCONN;
}

zq_err_t zq_port_tcp_send(zq_socket_t sock, const uint8_t *data, size_t len, size_t *sent)
{
    *sent = 0;
    if (len == 0) {
        return ZQ_OK;
    }
    ssize_t n;
    do {
        /* MSG_NOSIGNAL: a closed peer is an error code, not a SIGPIPE that ends the program. */
        n = send(sock, data, len, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n >= 0) {
        *sent = (size_t)n;
        return ZQ_OK;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    if (peer_gone(errno)) {
        return ZQ_ERR_CLOSED;
    }
    ZQ_LOGW("tcp", "send (%zu bytes): %s", len, strerror(errno));
    return ZQ_ERR_IO;
}

zq_err_t zq_port_tcp_recv(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len)
{
    if (cap == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    ssize_t n;
    do {
        n = recv(sock, buf, cap, 0);
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
    ZQ_LOGW("tcp", "recv: %s", strerror(errno));
    return ZQ_ERR_IO;
}

void zq_port_tcp_close(zq_socket_t sock)
{
    if (sock != ZQ_SOCKET_INVALID) {
        (void)close(sock);
    }
}

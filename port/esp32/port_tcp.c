/* TCP sockets for the ESP32 port, over lwIP's BSD sockets: non-blocking, TCP_NODELAY, and the
 * error mapping of port/zq_port.h. lwIP raises no SIGPIPE, so sends need no MSG_NOSIGNAL; it
 * has no accept4(), so an accepted socket is made non-blocking right after accept(). */
#include <errno.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "esp32_sockaddr.h"
#include "port/zq_port.h"
#include "zq/log.h"

/* Connections a listener holds before accept(): a device serves few (lwIP's own limit is
 * CONFIG_LWIP_MAX_ACTIVE_TCP). */
#define TCP_BACKLOG 4

static zq_err_t fail_and_close(int fd, const char *what, const zq_addr_t *addr, int saved)
{
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(addr, text, sizeof text);
    ZQ_LOGW("tcp", "%s %s: errno %d", what, text, saved);
    (void)close(fd);
    return ZQ_ERR_IO;
}

static int open_stream(const struct sockaddr_storage *ss)
{
    int fd = socket(ss->ss_family, SOCK_STREAM, IPPROTO_TCP);
    if (fd < 0) {
        ZQ_LOGW("tcp", "socket: errno %d", errno);
        return -1;
    }
    if (zq_esp32_set_nonblocking(fd) != 0) {
        ZQ_LOGW("tcp", "O_NONBLOCK: errno %d", errno);
        (void)close(fd);
        return -1;
    }
    return fd;
}

/* Small frames (a join, a candidate) go out at once, not after the peer's delayed ACK. */
static void set_nodelay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static zq_err_t bind_listener(int fd, const struct sockaddr_storage *ss, socklen_t sl,
                              const zq_addr_t *bind_addr)
{
    int one = 1;
    /* SO_REUSEADDR needs lwIP's SO_REUSE (CONFIG_LWIP_SO_REUSE, on by default). */
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
    socklen_t sl = zq_esp32_sockaddr_from_addr(bind_addr, &ss);
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
        (void)zq_esp32_addr_from_sockaddr((const struct sockaddr *)&ss, bound);
    }
    *sock = fd;
    return ZQ_OK;
}

zq_err_t zq_port_tcp_accept(zq_socket_t listener, zq_socket_t *conn, zq_addr_t *peer)
{
    *conn = ZQ_SOCKET_INVALID;
    struct sockaddr_storage ss;
    socklen_t sl = (socklen_t)sizeof ss;
    int fd = accept(listener, (struct sockaddr *)&ss, &sl);
    if (fd < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED) {
            return ZQ_ERR_WOULD_BLOCK;
        }
        ZQ_LOGW("tcp", "accept: errno %d", errno);
        return ZQ_ERR_IO;
    }
    if (zq_esp32_set_nonblocking(fd) != 0) {
        ZQ_LOGW("tcp", "O_NONBLOCK on an accepted socket: errno %d", errno);
        (void)close(fd);
        return ZQ_ERR_IO;
    }
    set_nodelay(fd);
    if (peer != NULL && zq_esp32_addr_from_sockaddr((const struct sockaddr *)&ss, peer) != ZQ_OK) {
        memset(peer, 0, sizeof *peer);
    }
    *conn = fd;
    return ZQ_OK;
}

/* Waits for a non-blocking connect() to finish: 0 done (SO_ERROR says how), -1 timed out. */
static int wait_connected(int fd, uint32_t timeout_ms)
{
    uint64_t deadline = zq_port_now_ms() + timeout_ms;
    for (;;) {
        uint64_t now = zq_port_now_ms();
        if (now >= deadline) {
            return -1;
        }
        uint64_t left = deadline - now;
        fd_set wr;
        FD_ZERO(&wr);
        FD_SET(fd, &wr);
        struct timeval tv = {.tv_sec = (time_t)(left / 1000u),
                             .tv_usec = (suseconds_t)((left % 1000u) * 1000u)};
        int n = select(fd + 1, NULL, &wr, NULL, &tv);
        if (n > 0 || (n < 0 && errno != EINTR)) {
            return 0;
        }
    }
}

zq_err_t zq_port_tcp_connect(zq_socket_t *sock, const zq_addr_t *to, uint32_t timeout_ms)
{
    *sock = ZQ_SOCKET_INVALID;
    struct sockaddr_storage ss;
    socklen_t sl = zq_esp32_sockaddr_from_addr(to, &ss);
    if (sl == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    int fd = open_stream(&ss);
    if (fd < 0) {
        return ZQ_ERR_IO;
    }
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
    return e == EPIPE || e == ECONNRESET || e == ETIMEDOUT || e == ENOTCONN || e == ECONNABORTED;
}

zq_err_t zq_port_tcp_send(zq_socket_t sock, const uint8_t *data, size_t len, size_t *sent)
{
    *sent = 0;
    if (len == 0) {
        return ZQ_OK;
    }
    ssize_t n = send(sock, data, len, MSG_DONTWAIT);
    if (n >= 0) {
        *sent = (size_t)n;
        return n > 0 ? ZQ_OK : ZQ_ERR_WOULD_BLOCK;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOMEM) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    if (peer_gone(errno)) {
        return ZQ_ERR_CLOSED;
    }
    ZQ_LOGW("tcp", "send (%u bytes): errno %d", (unsigned)len, errno);
    return ZQ_ERR_IO;
}

zq_err_t zq_port_tcp_recv(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len)
{
    if (cap == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    ssize_t n = recv(sock, buf, cap, MSG_DONTWAIT);
    if (n > 0) {
        *len = (size_t)n;
        return ZQ_OK;
    }
    if (n == 0) {
        return ZQ_ERR_CLOSED; /* the peer's FIN */
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    if (peer_gone(errno)) {
        return ZQ_ERR_CLOSED;
    }
    ZQ_LOGW("tcp", "recv: errno %d", errno);
    return ZQ_ERR_IO;
}

void zq_port_tcp_close(zq_socket_t sock)
{
    if (sock != ZQ_SOCKET_INVALID) {
        (void)close(sock);
    }
}

/* UDP sockets of both ports (see bsd_socket.h): non-blocking, one address family per socket. */
#include "port/bsd/bsd_socket.h"
#include "zq/log.h"

static zq_err_t fail_and_close(int fd, const char *what, const zq_addr_t *addr)
{
    int saved = errno;
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(addr, text, sizeof text);
    ZQ_LOGW("udp", "%s %s: " ZQ_BSD_ERR_FMT, what, text, ZQ_BSD_ERR_ARG(saved));
    (void)close(fd);
    return ZQ_ERR_IO;
}

zq_err_t zq_port_udp_open(zq_socket_t *sock, const zq_addr_t *bind_addr, zq_addr_t *bound)
{
    *sock = ZQ_SOCKET_INVALID;
    struct sockaddr_storage ss;
    socklen_t sl = zq_bsd_sockaddr_from_addr(bind_addr, &ss);
    if (sl == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    int fd = zq_bsd_socket(ss.ss_family, SOCK_DGRAM);
    if (fd < 0) {
        ZQ_LOGW("udp", "socket: " ZQ_BSD_ERR_FMT, ZQ_BSD_ERR_ARG(errno));
        return ZQ_ERR_IO;
    }
    /* One family per socket: a dual-stack socket would report IPv4 peers as ::ffff:a.b.c.d,
     * which ICE would treat as IPv6 candidates. */
    int one = 1;
    if (ss.ss_family == AF_INET6 &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) != 0) {
        return fail_and_close(fd, "IPV6_V6ONLY on", bind_addr);
    }
    if (bind(fd, (const struct sockaddr *)&ss, sl) != 0) {
        return fail_and_close(fd, "bind", bind_addr);
    }
    sl = (socklen_t)sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        return fail_and_close(fd, "getsockname after binding", bind_addr);
    }
    if (bound != NULL) {
        (void)zq_bsd_addr_from_sockaddr((const struct sockaddr *)&ss, bound);
    }
    *sock = fd;
    return ZQ_OK;
}

zq_err_t zq_port_udp_send(zq_socket_t sock, const zq_addr_t *to, const uint8_t *data, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = zq_bsd_sockaddr_from_addr(to, &ss);
    if (sl == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    ssize_t n;
    do {
        n = sendto(sock, data, len, 0, (const struct sockaddr *)&ss, sl);
    } while (n < 0 && errno == EINTR);
    if (n >= 0) {
        return ZQ_OK; /* UDP sends the whole datagram or nothing */
    }
    if (zq_bsd_send_busy(errno)) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(to, text, sizeof text);
    ZQ_LOGW("udp", "sendto %s (%u bytes): " ZQ_BSD_ERR_FMT, text, (unsigned)len,
            ZQ_BSD_ERR_ARG(errno));
    return ZQ_ERR_IO;
}

/* One datagram with its sender; its full length even when it did not fit (bsd_socket.h's
 * ZQ_BSD_RECVMSG_FLAGS), and MSG_TRUNC in *flags then. */
static ssize_t recv_datagram(zq_socket_t sock, struct sockaddr_storage *ss, uint8_t *buf,
                             size_t cap, int *flags)
{
    struct iovec iov = {.iov_base = buf, .iov_len = cap};
    struct msghdr msg;
    ssize_t n;
    do {
        memset(&msg, 0, sizeof msg);
        msg.msg_name = ss;
        msg.msg_namelen = (socklen_t)sizeof *ss;
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        n = recvmsg(sock, &msg, ZQ_BSD_RECVMSG_FLAGS);
    } while (n < 0 && errno == EINTR);
    *flags = msg.msg_flags;
    return n;
}

/* A datagram longer than @p cap is consumed and dropped, never taken for a shorter one. */
zq_err_t zq_port_udp_recv(zq_socket_t sock, zq_addr_t *from, uint8_t *buf, size_t cap,
                          size_t *len)
{
    struct sockaddr_storage ss;
    int flags = 0;
    ssize_t n = recv_datagram(sock, &ss, buf, cap, &flags);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return ZQ_ERR_WOULD_BLOCK;
        }
        ZQ_LOGW("udp", "recvmsg: " ZQ_BSD_ERR_FMT, ZQ_BSD_ERR_ARG(errno));
        return ZQ_ERR_IO;
    }
    if ((flags & MSG_TRUNC) != 0 || (size_t)n > cap) {
        ZQ_LOGD("udp", "dropped a %ld-byte datagram (buffer %u)", (long)n, (unsigned)cap);
        return ZQ_ERR_NO_SPACE;
    }
    if (zq_bsd_addr_from_sockaddr((const struct sockaddr *)&ss, from) != ZQ_OK) {
        return ZQ_ERR_IO;
    }
    *len = (size_t)n;
    return ZQ_OK;
}

void zq_port_udp_close(zq_socket_t sock)
{
    if (sock != ZQ_SOCKET_INVALID) {
        (void)close(sock);
    }
}

/* UDP sockets for the ESP32 port, over lwIP's BSD sockets: non-blocking, one address family
 * per socket (the contract of port/zq_port.h, as port/posix keeps it). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "esp32_sockaddr.h"
#include "port/zq_port.h"
#include "zq/log.h"

static zq_err_t fail_and_close(int fd, const char *what, const zq_addr_t *addr)
{
    int saved = errno;
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(addr, text, sizeof text);
    ZQ_LOGW("udp", "%s %s: errno %d", what, text, saved);
    (void)close(fd);
    return ZQ_ERR_IO;
}

zq_err_t zq_port_udp_open(zq_socket_t *sock, const zq_addr_t *bind_addr, zq_addr_t *bound)
{
    *sock = ZQ_SOCKET_INVALID;
    struct sockaddr_storage ss;
    socklen_t sl = zq_esp32_sockaddr_from_addr(bind_addr, &ss);
    if (sl == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    int fd = socket(ss.ss_family, SOCK_DGRAM, IPPROTO_UDP);
    if (fd < 0) {
        ZQ_LOGW("udp", "socket: errno %d", errno);
        return ZQ_ERR_IO;
    }
    if (zq_esp32_set_nonblocking(fd) != 0) {
        return fail_and_close(fd, "O_NONBLOCK on", bind_addr);
    }
    /* One family per socket: a dual-stack socket would report IPv4 peers as ::ffff:a.b.c.d. */
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
        (void)zq_esp32_addr_from_sockaddr((const struct sockaddr *)&ss, bound);
    }
    *sock = fd;
    return ZQ_OK;
}

zq_err_t zq_port_udp_send(zq_socket_t sock, const zq_addr_t *to, const uint8_t *data, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = zq_esp32_sockaddr_from_addr(to, &ss);
    if (sl == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (sendto(sock, data, len, 0, (const struct sockaddr *)&ss, sl) >= 0) {
        return ZQ_OK; /* UDP sends the whole datagram or nothing */
    }
    /* lwIP says ENOMEM when it is out of packet buffers for the moment: like a full socket
     * buffer, a datagram the protocols above retransmit. */
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOMEM) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(to, text, sizeof text);
    ZQ_LOGW("udp", "sendto %s (%u bytes): errno %d", text, (unsigned)len, errno);
    return ZQ_ERR_IO;
}

/* A datagram longer than @p cap is consumed and dropped, never taken for a shorter one:
 * lwIP's recvmsg() returns a datagram's full length and sets MSG_TRUNC when it did not fit,
 * where its recvfrom() returns only what it copied (esp-lwip src/api/sockets.c). */
zq_err_t zq_port_udp_recv(zq_socket_t sock, zq_addr_t *from, uint8_t *buf, size_t cap,
                          size_t *len)
{
    struct sockaddr_storage ss;
    struct iovec iov = {.iov_base = buf, .iov_len = cap};
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_name = &ss;
    msg.msg_namelen = (socklen_t)sizeof ss;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    ssize_t n = recvmsg(sock, &msg, MSG_DONTWAIT);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return ZQ_ERR_WOULD_BLOCK;
        }
        ZQ_LOGW("udp", "recvmsg: errno %d", errno);
        return ZQ_ERR_IO;
    }
    if ((msg.msg_flags & MSG_TRUNC) != 0 || (size_t)n > cap) {
        ZQ_LOGD("udp", "dropped a %d-byte datagram (buffer %u)", (int)n, (unsigned)cap);
        return ZQ_ERR_NO_SPACE;
    }
    if (zq_esp32_addr_from_sockaddr((const struct sockaddr *)&ss, from) != ZQ_OK) {
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

/* zq_addr_t <-> struct sockaddr, and waiting on one socket (see bsd_socket.h).
 *
 * zq_addr_t keeps the port in host order and the IP in network order; sockaddr_in/in6 keep both
 * in network order. Every conversion of the ports goes through these two functions so the byte
 * order is decided once. */
#include "port/bsd/bsd_socket.h"

socklen_t zq_bsd_sockaddr_from_addr(const zq_addr_t *addr, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    if (addr->family == ZQ_AF_INET4) {
        struct sockaddr_in *sin = (struct sockaddr_in *)ss;
#if ZQ_BSD_SIN_LEN
        sin->sin_len = (uint8_t)sizeof *sin;
#endif
        sin->sin_family = AF_INET;
        sin->sin_port = htons(addr->port);
        memcpy(&sin->sin_addr, addr->ip, 4);
        return (socklen_t)sizeof *sin;
    }
    if (addr->family == ZQ_AF_INET6) {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
#if ZQ_BSD_SIN_LEN
        sin6->sin6_len = (uint8_t)sizeof *sin6;
#endif
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons(addr->port);
        memcpy(&sin6->sin6_addr, addr->ip, 16);
        return (socklen_t)sizeof *sin6;
    }
    return 0;
}

zq_err_t zq_bsd_addr_from_sockaddr(const struct sockaddr *sa, zq_addr_t *out)
{
    memset(out, 0, sizeof *out);
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *sin = (const struct sockaddr_in *)(const void *)sa;
        out->family = ZQ_AF_INET4;
        out->port = ntohs(sin->sin_port);
        memcpy(out->ip, &sin->sin_addr, 4);
        return ZQ_OK;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)(const void *)sa;
        out->family = ZQ_AF_INET6;
        out->port = ntohs(sin6->sin6_port);
        memcpy(out->ip, &sin6->sin6_addr, 16);
        return ZQ_OK;
    }
    return ZQ_ERR_UNSUPPORTED;
}

zq_err_t zq_bsd_wait(int fd, bool write, uint64_t deadline)
{
    for (;;) {
        uint64_t now = zq_port_now_ms();
        if (now >= deadline) {
            return ZQ_ERR_TIMEOUT;
        }
        int n = zq_bsd_poll(fd, write, deadline - now);
        if (n > 0) {
            return ZQ_OK;
        }
        if (n < 0 && errno != EINTR) {
            return ZQ_ERR_IO;
        }
    }
}

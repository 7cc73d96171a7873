/* Socket addresses and non-blocking mode for the ESP32 port (see esp32_sockaddr.h). */
#include "esp32_sockaddr.h"

#include <fcntl.h>
#include <string.h>

socklen_t zq_esp32_sockaddr_from_addr(const zq_addr_t *addr, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    if (addr->family == ZQ_AF_INET4) {
        struct sockaddr_in *sin = (struct sockaddr_in *)ss;
        sin->sin_len = (uint8_t)sizeof *sin;
        sin->sin_family = AF_INET;
        sin->sin_port = htons(addr->port);
        memcpy(&sin->sin_addr, addr->ip, 4);
        return (socklen_t)sizeof *sin;
    }
    if (addr->family == ZQ_AF_INET6) {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
        sin6->sin6_len = (uint8_t)sizeof *sin6;
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons(addr->port);
        memcpy(&sin6->sin6_addr, addr->ip, 16);
        return (socklen_t)sizeof *sin6;
    }
    return 0;
}

zq_err_t zq_esp32_addr_from_sockaddr(const struct sockaddr *sa, zq_addr_t *out)
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

int zq_esp32_set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL, 0);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

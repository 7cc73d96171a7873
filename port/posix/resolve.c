/* Host names to addresses (see resolve.h). */
#include "port/posix/resolve.h"

#include <netdb.h>

#include "port/bsd/bsd_socket.h"

zq_err_t zq_posix_resolve(const char *name, uint8_t family, zq_addr_t *out)
{
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_family = AF_UNSPEC};
    if (family != ZQ_AF_NONE) {
        hints.ai_family = family == ZQ_AF_INET4 ? AF_INET : AF_INET6;
    }
    struct addrinfo *list;
    /* getaddrinfo() allocates inside libc; the list is freed here. */
    if (getaddrinfo(name, NULL, &hints, &list) != 0) {
        return ZQ_ERR_NOT_FOUND;
    }
    zq_err_t err = ZQ_ERR_NOT_FOUND;
    for (const struct addrinfo *ai = list; ai != NULL && err != ZQ_OK; ai = ai->ai_next) {
        err = zq_bsd_addr_from_sockaddr(ai->ai_addr, out) == ZQ_OK ? ZQ_OK : ZQ_ERR_NOT_FOUND;
    }
    freeaddrinfo(list);
    return err;
}

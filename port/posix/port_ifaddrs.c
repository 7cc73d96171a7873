/* Host addresses for ICE host candidates, from getifaddrs(). */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <string.h>

#include "port/bsd/bsd_socket.h"
#include "port/zq_port.h"
#include "zq/log.h"

/* fe80::/10 needs a scope id to be usable, and RFC 8445 §5.1.1.1 says not to offer it. */
static bool is_v6_link_local(const zq_addr_t *a)
{
    return a->family == ZQ_AF_INET6 && a->ip[0] == 0xfe && (a->ip[1] & 0xc0) == 0x80;
}

static bool usable(const struct ifaddrs *ifa, bool include_loopback, zq_addr_t *out)
{
    if (ifa->ifa_addr == NULL || (ifa->ifa_flags & IFF_UP) == 0) {
        return false;
    }
    if (zq_bsd_addr_from_sockaddr(ifa->ifa_addr, out) != ZQ_OK) {
        return false; /* AF_PACKET and friends */
    }
    out->port = 0;
    bool loopback = (ifa->ifa_flags & IFF_LOOPBACK) != 0 || zq_addr_is_loopback(out);
    return !is_v6_link_local(out) && (include_loopback || !loopback);
}

size_t zq_port_host_addresses(zq_addr_t *out, size_t cap, bool include_loopback)
{
    /* getifaddrs() allocates inside libc; the list is freed before returning. */
    struct ifaddrs *list;
    if (getifaddrs(&list) != 0) {
        ZQ_LOGW("port", "getifaddrs: %s", strerror(errno));
        return 0;
    }
    size_t n = 0;
    for (const struct ifaddrs *ifa = list; ifa != NULL && n < cap; ifa = ifa->ifa_next) {
        if (usable(ifa, include_loopback, &out[n])) {
            n++;
        }
    }
    freeifaddrs(list);
    return n;
}

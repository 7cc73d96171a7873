/* Host candidates on an lwIP board: the IPv4 address of every interface that is up, with a
 * link, and has one (port/zq_port.h). */
#include "lwip/netif.h"
#include "port/lwip/lwip_addr.h"
#include "port/zq_port.h"

size_t zq_port_host_addresses(zq_addr_t *out, size_t cap, bool include_loopback)
{
    size_t n = 0;
    struct netif *nif;
    NETIF_FOREACH(nif)
    {
        const ip_addr_t *ip = netif_ip_addr4(nif);
        bool usable = netif_is_up(nif) && netif_is_link_up(nif) && !ip_addr_isany(ip);
        if (n < cap && usable && (include_loopback || !ip_addr_isloopback(ip))) {
            zq_lwip_addr_from_ip(ip, 0, &out[n++]);
        }
    }
    return n;
}

/* zq_addr_t <-> lwIP's ip_addr_t, IPv4 (the port builds lwIP without IPv6: one address per
 * board, the host candidate). Internal to port/lwip. */
#ifndef ZQ_PORT_LWIP_LWIP_ADDR_H
#define ZQ_PORT_LWIP_LWIP_ADDR_H

#include "lwip/ip_addr.h"
#include "zq/addr.h"
#include "zq/err.h"

/** @return ZQ_OK, or ZQ_ERR_UNSUPPORTED for anything but IPv4. */
static inline zq_err_t zq_lwip_ip_from_addr(const zq_addr_t *a, ip_addr_t *ip)
{
    if (a->family != ZQ_AF_INET4) {
        return ZQ_ERR_UNSUPPORTED;
    }
    IP_ADDR4(ip, a->ip[0], a->ip[1], a->ip[2], a->ip[3]);
    return ZQ_OK;
}

static inline void zq_lwip_addr_from_ip(const ip_addr_t *ip, uint16_t port, zq_addr_t *a)
{
    /* ip4_addr_t holds the address in network byte order: its bytes are the dotted quad. */
    const uint8_t *b = (const uint8_t *)&ip_2_ip4(ip)->addr;
    *a = zq_addr_v4(b[0], b[1], b[2], b[3], port);
}

#endif /* ZQ_PORT_LWIP_LWIP_ADDR_H */

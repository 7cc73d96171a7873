/* A device's UDP socket following its interface's address (see follow.h). */
#include "port/address/follow.h"

#include <string.h>

zq_address_follow_t zq_address_follow(zq_socket_t *udp, zq_addr_t *local, zq_addr_t *was,
                                      zq_device_ws_t *ws, zq_host_t *host, uint64_t now)
{
    zq_addr_t addr;
    if (zq_port_host_addresses(&addr, 1, false) == 0 || memcmp(addr.ip, local->ip, 4) == 0) {
        return ZQ_ADDRESS_SAME;
    }
    *was = *local;
    addr.port = local->port;
    zq_port_udp_close(*udp);
    zq_addr_t bound;
    if (zq_port_udp_open(udp, &addr, &bound) != ZQ_OK) {
        *udp = ZQ_SOCKET_INVALID;
        return ZQ_ADDRESS_NO_SOCKET;
    }
    *local = bound;
    zq_device_ws_close(ws);
    zq_host_hosts_changed(host, now, local, 1);
    return ZQ_ADDRESS_MOVED;
}

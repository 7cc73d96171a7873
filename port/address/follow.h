/**
 * @file follow.h
 * @brief A device's UDP socket following its interface's address (a DHCP renewal, another
 *        network): what port/lwip's and port/esp32's runners share, over port/zq_port.h.
 *
 * The runner calls it now and then; on a move it also closes the signalling connection
 * (bound to the old address) and tells the host (zq_host_hosts_changed), which rejoins at once
 * with the new candidates. IPv4 only, as both runners are.
 */
#ifndef ZQ_PORT_ADDRESS_FOLLOW_H
#define ZQ_PORT_ADDRESS_FOLLOW_H

#include "host/host.h"
#include "port/ws/ws_device.h"
#include "port/zq_port.h"
#include "zq/addr.h"

typedef enum {
    ZQ_ADDRESS_SAME,      /**< the interface has @p local's address, or none (the link is down) */
    ZQ_ADDRESS_MOVED,     /**< a socket on the new address took over; @p ws closed, @p host told */
    ZQ_ADDRESS_NO_SOCKET, /**< a new address, and no socket could open on it (tried again at the
                               next call: @p local still holds the old address) */
} zq_address_follow_t;

/**
 * Compares the interface's first IPv4 address with @p local's. On a new one, closes @p *udp
 * and opens a UDP socket on the new address and @p local's port. Closed first: lwIP rebinds a
 * socket bound to the old address to the new one (udp_netif_ip_addr_changed), so a second
 * socket on the same port would find it taken. @param was set to the old address.
 * @return what happened; on ZQ_ADDRESS_MOVED @p *udp and @p *local are the new socket's, on
 *         ZQ_ADDRESS_NO_SOCKET @p *udp is ZQ_SOCKET_INVALID.
 */
zq_address_follow_t zq_address_follow(zq_socket_t *udp, zq_addr_t *local, zq_addr_t *was,
                                      zq_device_ws_t *ws, zq_host_t *host, uint64_t now);

#endif /* ZQ_PORT_ADDRESS_FOLLOW_H */

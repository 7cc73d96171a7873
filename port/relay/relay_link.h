/**
 * @file relay_link.h
 * @brief A device's TCP connection to its node's TURN server (RFC 8656 §3.1: TURN over TCP,
 *        and over TLS, which the node runs itself over these bytes): what port/lwip's and
 *        port/esp32's runners share, over port/zq_port.h's TCP, as host/host.h asks it.
 *
 * Each turn of the runner's loop, zq_relay_link_service() connects while the host names a
 * server (the connect waits, at most its timeout, as the signalling one does: the loop stands
 * still meanwhile, so datagrams that come then wait in the port's queue), closes when it names
 * none or another, hands what the server sent to the host and writes what the host has. A
 * connect that fails, or a connection that ends, is told to the host, which then names its
 * next server or none. Nothing here when ZQ_NODE_TURN_STREAM is 0: the host names no server.
 */
#ifndef ZQ_PORT_RELAY_RELAY_LINK_H
#define ZQ_PORT_RELAY_RELAY_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "host/host.h"
#include "port/zq_port.h"
#include "zq/addr.h"

typedef struct {
    zq_socket_t sock; /**< ZQ_SOCKET_INVALID while none is open */
    zq_addr_t server;
} zq_relay_link_t;

void zq_relay_link_init(zq_relay_link_t *l);

/** One turn (above). @return whether anything came from the server. */
bool zq_relay_link_service(zq_relay_link_t *l, zq_host_t *h, uint64_t now,
                           uint32_t connect_timeout_ms);

/** Whether bytes wait for the socket to take them (watch it for writing). */
bool zq_relay_link_wants_write(const zq_relay_link_t *l, zq_host_t *h);

/** Closes the connection if one is open (the node is told by its own stop). */
void zq_relay_link_close(zq_relay_link_t *l);

#endif /* ZQ_PORT_RELAY_RELAY_LINK_H */

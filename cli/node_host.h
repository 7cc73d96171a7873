/**
 * @file node_host.h
 * @brief What a program needs to host a node on this machine, as `zq echo` and the broker
 *        commands do: the DTLS identity on a static arena, one UDP socket per host candidate,
 *        and the node's datagrams for the loop driver.
 */
#ifndef ZQ_PORT_POSIX_NODE_HOST_H
#define ZQ_PORT_POSIX_NODE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "node/node.h"
#include "port/zq_port.h"
#include "stack/dtls/dtls.h"

/** mbedTLS's heap for every peer's DTLS: ~13 KiB per handshake, ~6 KiB per session, plus the
 *  identity (README, "Memory and footprint"). One per process: a program hosts one node. */
#define ZQ_NODE_HOST_ARENA (ZQ_NODE_MAX_PEERS * 16 * 1024 + 16 * 1024)

/** Starts the arena and makes the node's certificate and DTLS context. @return false when no
 *  certificate could be made. */
bool zq_node_host_identity(zq_rand_t *rand, dtls_identity_t *identity, dtls_context_t *dtls);

/**
 * Opens one UDP socket per host address, bound to it, so a datagram's local address says
 * which candidate it reached, as ICE needs (RFC 8445 §7.3): @p want itself, or for an
 * unspecified address every address of its family (loopback too: a browser on this host
 * reaches us there). Fills @p socks and @p cfg's hosts. @return how many opened.
 */
uint8_t zq_node_host_open_udp(const zq_addr_t *want, zq_socket_t socks[ZQ_NODE_MAX_HOSTS],
                              node_config_t *cfg);

/** The loop driver's poll_transmit for @p node. */
bool zq_node_host_transmit(node_t *node, uint64_t now, zq_addr_t *local, zq_addr_t *remote,
                           const uint8_t **data, size_t *len);

#endif /* ZQ_PORT_POSIX_NODE_HOST_H */

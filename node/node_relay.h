/* A node's TURN allocation (node_relay.c), shared by all its peers; internal to node/. With
 * ZQ_NODE_TURN 0 each of these does nothing and says so (false, ZQ_TIME_NEVER). */
#ifndef ZQ_NODE_RELAY_H
#define ZQ_NODE_RELAY_H

#include "node/node.h"

/** The room's ice_servers frame: the first usable turn: URL (an IP literal of a host's family;
 *  UDP, else TCP) and its credential start an allocation, unless one is held or under way; a
 *  TCP one after a UDP one is tried if UDP goes unanswered; the first usable stun: URL is
 *  kept for node_relay_stun_server(). */
void node_relay_configure(node_t *n, uint64_t now, const sig_event_t *sig);

/** Where a new peer's agent learns its server-reflexive candidate: node_config_t's
 *  stun_server, else the room's first usable stun: URL, else none (family ZQ_AF_NONE). */
zq_addr_t node_relay_stun_server(const node_t *n);

/** A new peer gets the relayed candidate, or is told one is coming. */
void node_relay_prepare_peer(node_t *n, uint64_t now, peer_t *p);

/** A datagram from the TURN server (on the host that talks to it): handled here, what it
 *  relays handed to the node as received on the relayed address. False: not the server's. */
bool node_relay_handle(node_t *n, uint64_t now, const zq_addr_t *local, const zq_addr_t *remote,
                       const uint8_t *data, size_t len);

/** The allocation's own requests for the server. */
bool node_relay_poll(node_t *n, uint64_t now, peer_transmit_t *tx);

/** A peer's datagram "from" the relayed address becomes one to the server (a Send indication
 *  or ChannelData) from the host; others pass unchanged. False: it went on the TCP stream's
 *  output instead, or it cannot go (counted). */
bool node_relay_wrap(node_t *n, uint64_t now, peer_transmit_t *tx);

/** A peer connected: if over the relay, a channel is bound to it (4 bytes a datagram instead
 *  of a Send indication's 36 or more, RFC 8656 §12). */
void node_relay_peer_connected(node_t *n, uint64_t now, const peer_t *p);

void node_relay_timeout(node_t *n, uint64_t now);
uint64_t node_relay_next_timeout(const node_t *n);

/** Ends the allocation (RFC 8656 §7: a Refresh with lifetime 0). */
void node_relay_close(node_t *n, uint64_t now);

/** Drops the allocation without a word (the host address it was made from is gone: the
 *  server lets it expire), so that the next ice_servers frame starts another. */
void node_relay_forget(node_t *n, uint64_t now);

#endif

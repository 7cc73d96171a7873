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

/* ---- Inside node/: what node.c, node_relay.c and node_relay_stream.c share --------------- */

/** Queues an event (node.c) and returns it for extra fields; NULL when the queue is full. */
node_event_t *node_push_event(node_t *n, node_event_type_t type, uint8_t peer,
                              peer_failure_t why);

/** The next transport the room offered and the node has not tried (UDP, TCP, TLS in that
 *  order) starts an allocation with the join's credential. @return false: none left. */
bool node_relay_start_next(node_t *n, uint64_t now);
bool node_relay_usable(const node_t *n);
void node_relay_sync_deadline(node_t *n, uint64_t now);
/** The allocation's events: candidates to the peers, relayed data into the node. */
void node_relay_pump(node_t *n, uint64_t now);
/** The allocation is gone: no peer waits for its relayed candidate; NODE_EVENT_RELAY says so,
 *  @p why (kept for node_describe_relay()) says what happened. Unless the server refused the
 *  credential (@p retry false), it is tried again ZQ_NODE_TURN_RETRY_MS later. */
void node_relay_failed(node_t *n, uint64_t now, const char *why, bool retry);

/* node_relay_stream.c: TCP and TLS (ZQ_NODE_TURN_STREAM; at 0 none is ever used). */

/** Whether the node can reach a server over @p t (TLS: it has a trust store). */
bool node_relay_stream_can(const node_t *n, node_relay_transport_t t);
/** Forgets the stream: its buffers and TLS session (a new try, or none). */
void node_relay_stream_reset(node_t *n);
/** The allocation's requests onto the stream, once it is up. */
void node_relay_stream_fill(node_t *n, uint64_t now);
/** Where a frame for the stream's output goes, and how many bytes fit (0: the stream is not
 *  up, or full); node_relay_stream_wrote() then takes the @p len bytes written there. */
uint8_t *node_relay_stream_space(node_t *n, size_t *cap);
void node_relay_stream_wrote(node_t *n, uint64_t now, size_t len);

#endif

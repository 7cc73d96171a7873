/**
 * @file node.h
 * @brief A node: this device's peer connections with everyone in one signalling room.
 *
 * It speaks ZeroQ's signalling (signal/sig_client.h) over the caller's WebSocket and keeps one
 * peer connection (stack/peer) per member, each with one data channel labelled with the room
 * name (docs/zeroq-wire.md §2): the member that hears `peer_joined` dials and opens it, the
 * other accepts. All peers share the node's UDP socket(s); datagrams are handed to the right
 * peer by the STUN username (our ufrag names the peer connection) or by the address ICE
 * validated. Sans-IO like every layer below it.
 *
 * ICE: a node is a full agent both when it dials and when it answers (node_config_t.ice_lite
 * makes it a lite one). It answers a=setup:active, so as the DTLS client (stack/peer/peer.h):
 * a lite answerer may send its ClientHello only once the controlling peer has nominated a
 * pair (RFC 8445 §12.1.1), a Ta or more after the first check (20 ms more from offer to open
 * channel between two zq nodes, 50 ms more when Chromium dials), where a full one sends it on
 * the first pair its own triggered check validates (§12.1). Two lite agents cannot find each
 * other (§6.1.1), so a lite node meets only full ones (browsers, aiortc, Pion, other nodes).
 */
#ifndef ZQ_NODE_H
#define ZQ_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "signal/sig_client.h"
#include "stack/peer/peer.h"
#include "stack/turn/turn.h"
#include "zq/config.h"
#if ZQ_NODE_TURN && ZQ_NODE_TURN_STREAM
#include "stack/tls/tls_client.h"
#endif
#include "zq/queue.h"

_Static_assert(ZQ_SIG_SDP_MAX >= PEER_SDP_MAX, "our own offer or answer must fit a signalling "
                                               "frame (ZQ_SIG_SDP_MAX)");

typedef struct {
    char room[ZQ_SIG_ROOM_MAX + 1]; /**< also the data channels' label */
    zq_rand_t rand;
    dtls_context_t *dtls;           /**< the node's identity, shared by every peer */
    zq_addr_t hosts[ZQ_NODE_MAX_HOSTS]; /**< bound UDP addresses: the host candidates */
    uint8_t n_hosts;
    zq_addr_t stun_server;          /**< for a full agent's server-reflexive candidate; none = 0 */
    bool ice_lite;                  /**< an ICE-lite agent (RFC 8445 §2.5), dialing and answering */
#if ZQ_NODE_TURN && ZQ_NODE_TURN_STREAM
    /** Whom a turns: server must prove it is (its chain and its IP, tls_client.h); borrowed.
     *  NULL: the room's turns: URLs are skipped. */
    tls_client_config_t *turn_trust;
#endif
} node_config_t;

typedef enum {
    NODE_EVENT_WELCOME,        /**< the server told us our id */
    NODE_EVENT_PEER_CONNECTED, /**< @c peer's data channel is open */
    NODE_EVENT_PEER_GONE,      /**< @c peer closed, failed or left */
    NODE_EVENT_WRITABLE,       /**< @c peer has room again */
    NODE_EVENT_PEER_REFUSED,   /**< a member joined or offered and every slot was taken; no
                                    @c peer (NODE_NO_PEER). It is told (`refused`) and waits:
                                    the node dials it when a slot frees. stats.peers_refused
                                    counts them all, also those beyond a full event queue */
    NODE_EVENT_WAITING,        /**< a member had no slot for us and said so (`refused`): it
                                    dials us when it has; no @c peer (NODE_NO_PEER). Our own
                                    dial to it, if any, is given up at once */
    NODE_EVENT_RELAY,          /**< the TURN allocation is up (@c relay_up) or failed, over
                                    @c relay_transport; no @c peer. node_describe_relay() */
} node_event_type_t;

#define NODE_NO_PEER UINT8_MAX

typedef struct {
    node_event_type_t type;
    uint8_t peer;              /**< slot index, or NODE_NO_PEER */
    peer_failure_t failure;    /**< PEER_GONE after a failure */
    uint32_t elapsed_ms;       /**< PEER_CONNECTED: from the offer (sent or received) to the
                                    open channel */
    bool path_known;           /**< PEER_CONNECTED: the candidate types of the path DTLS took */
    uint8_t path_local;        /**< (peer_t's path_local, path_remote), ice_cand_type_t: */
    uint8_t path_remote;       /**< ice_agent_path_types() */
    ice_tried_t tried;         /**< PEER_GONE after a failure before ICE selected a pair: what
                                    the checks covered; else all 0 */
    bool relay_up;             /**< RELAY: allocated (elapsed_ms after the first try), or not */
    uint8_t relay_transport;   /**< RELAY: node_relay_transport_t */
} node_event_t;

typedef struct {
    uint8_t peer;              /**< slot index */
    dc_message_t msg;
} node_message_t;

typedef struct {
    bool used;
    bool draining;             /* gone, but its last datagrams (ABORT, close_notify) are still
                                  to be sent; then its memory is freed */
    bool dialing;              /* we sent the offer */
    bool offer_due;            /* an offer is to be sent */
    bool answer_due;           /* an answer is to be sent */
    bool open;                 /* the data channel is open */
    uint8_t trickled;          /* local candidates already trickled */
    uint64_t started_at;       /* when the offer was sent or received */
    uint16_t channel;
    char id[ZQ_SIG_ID_MAX + 1];
    peer_t peer;
} node_peer_t;

typedef struct {
    uint32_t signal_malformed; /**< frames from the server we could not read */
    uint32_t peers_refused;    /**< no free slot for someone who joined or offered */
    uint32_t rx_unmatched;     /**< datagrams no peer claimed */
    uint32_t rx_off_channel;   /**< messages on a channel that is not (or not yet) the room's */
    uint32_t waitlist_full;    /**< refused and not remembered: never told, never dialed */
    uint32_t refused_by_members; /**< `refused` frames from members full for now */
    uint32_t peer_init_failed; /**< a slot was free but its connection could not start */
    uint32_t redials;            /**< failed connections we dialed, to be dialed again */
    uint32_t answers_ignored;    /**< a second answer to a dial that has one (an earlier
                                      offer's, relayed late after an outage) */
    uint32_t relay_urls_skipped; /**< ice_servers URLs not used: host names, turns: with no
                                      trust store, a stream with ZQ_NODE_TURN_STREAM 0 */
    uint32_t relay_fallbacks;  /**< allocations tried on the next transport (UDP unanswered,
                                    TCP not connected) */
    uint32_t relay_stream_lost; /**< TCP streams to the server that closed, broke framing or
                                    failed TLS */
    uint32_t relay_failed;     /**< TURN allocations refused or unanswered */
    uint32_t relay_retries;    /**< allocations tried again after ZQ_NODE_TURN_RETRY_MS */
    uint32_t relay_refused;    /**< permissions or channels the TURN server refused */
    uint32_t relay_dropped;    /**< datagrams for the relay that could not be wrapped */
} node_stats_t;

/** Longest reason a failed allocation keeps (node_describe_relay()), plus NUL. */
#define NODE_RELAY_WHY_MAX 128

/** How a node reaches its TURN server, in the order it tries them. */
typedef enum {
    NODE_RELAY_UDP,
    NODE_RELAY_TCP,
    NODE_RELAY_TLS,
    NODE_RELAY_TRANSPORTS
} node_relay_transport_t;

/** The node's TURN allocation (node_relay.c): one for all its peers. */
typedef struct {
#if ZQ_NODE_TURN
    turn_client_t turn;
    zq_addr_t stun;            /* the room's stun: server, for a node configured with none */
    zq_addr_t host;            /* our socket that talks to the server */
    uint64_t deadline;         /* turn_client_timeout()'s next, or ZQ_TIME_NEVER */
    uint8_t out[ZQ_UDP_MAX_DATAGRAM]; /* a peer's datagram wrapped for the server */
    /* The room's servers in the order they are tried: UDP; TCP when UDP goes unanswered for
     * ZQ_NODE_TURN_TCP_AFTER_MS; TLS when TCP does not connect either (RFC 8656 §3.1). */
    zq_addr_t servers[NODE_RELAY_TRANSPORTS];
    uint8_t named;             /* bit per node_relay_transport_t the room named */
    uint8_t offered;           /* of those, the ones not yet tried */
    uint64_t retry_at;         /* a failed allocation's next try, or ZQ_TIME_NEVER */
    uint8_t transport;         /* node_relay_transport_t: the one tried now */
    uint64_t udp_given_up_at;  /* when an unanswered UDP Allocate gives way */
    uint64_t started_at;       /* the first try's start */
    char why[NODE_RELAY_WHY_MAX]; /* what failed the last allocation */
    /* The room's latest credential (its last ice_servers frame), for the next allocation; the
     * one held keeps the username it was made with (RFC 8656 §5: every later request must). */
    char username[TURN_CREDENTIAL_MAX + 1];
    char password[TURN_CREDENTIAL_MAX + 1];
#if ZQ_NODE_TURN_STREAM
    bool stream_open;          /* the port's connection is up */
    bool tls_up;               /* turns: the handshake is done */
    turn_stream_t stream_in;   /* bytes from the server (decrypted), reassembled into frames */
    uint8_t stream_out[2 * TURN_STREAM_FRAME_MAX]; /* frames for the server, not yet taken */
    size_t stream_out_len;
    tls_session_t tls;         /* turns: the session over the stream */
#endif
#else
    uint8_t unused;
#endif
} node_relay_t;

/** A member left out for want of a slot (NODE_EVENT_PEER_REFUSED). */
typedef struct {
    uint64_t due;              /* a failed connection's redial time, until it comes; then 0:
                                  dialed as soon as a slot and the signalling link allow */
    char id[ZQ_SIG_ID_MAX + 1];
    bool told;                 /* our `refused` frame went to the server (or none is owed) */
} node_waiting_t;

typedef struct {
    node_config_t cfg;
    char my_id[ZQ_SIG_ID_MAX + 1];
    bool join_due;
    node_peer_t peers[ZQ_NODE_MAX_PEERS];
    node_waiting_t waiting[ZQ_NODE_WAITLIST]; /* oldest first: dialed in that order, each once
                                                 it is due */
    uint8_t n_waiting;
    uint8_t next_tx;           /* round-robin over peers in poll_transmit */
    zq_queue_t evq;
    node_event_t events[ZQ_NODE_EVENT_QUEUE];
    sig_event_t sig;           /* the frame being handled (large: SDP) */
    node_stats_t stats;
    node_relay_t relay;
} node_t;

zq_err_t node_init(node_t *n, const node_config_t *cfg);

/** The WebSocket to the server opened (again): join the room. */
void node_signal_connected(node_t *n);
/** A text frame from the server. */
void node_handle_signal(node_t *n, uint64_t now, const char *frame, size_t len);
/** The next frame to send to the server into @p buf; 0 when none. */
size_t node_poll_signal(node_t *n, uint64_t now, char *buf, size_t cap);

zq_err_t node_handle_datagram(node_t *n, uint64_t now, const zq_addr_t *local,
                              const zq_addr_t *remote, const uint8_t *data, size_t len);
void node_handle_timeout(node_t *n, uint64_t now);
uint64_t node_next_timeout(const node_t *n);
bool node_poll_transmit(node_t *n, uint64_t now, peer_transmit_t *tx);

/* ---- TURN over TCP and TLS (RFC 8656 §3.1): the port's stream to the room's TURN server --
 * When UDP to the server goes unanswered (ZQ_NODE_TURN_TCP_AFTER_MS), or the room names no
 * UDP server, the allocation runs over a TCP connection the port holds: turn:...?transport=tcp
 * as it is, turns: inside TLS, which the node runs itself (stack/tls, checked against
 * node_config_t.turn_trust), so the port only moves bytes. It connects while
 * node_relay_stream_target() names a server and closes when it names none. The allocation
 * lives as long as the connection. With ZQ_NODE_TURN_STREAM 0 no target is ever named. */

/** The server the port is to hold a TCP connection to; false: none (close any). */
bool node_relay_stream_target(const node_t *n, zq_addr_t *server);
/** The connection is up: the allocation's requests start. */
void node_relay_stream_opened(node_t *n, uint64_t now);
/** It failed to open, or closed: the allocation is gone. A TCP server that did not connect
 *  gives way to the room's turns: one, if any (the next target); else its peers lose the
 *  relayed candidate, and the next join's ice_servers frame starts another. */
void node_relay_stream_closed(node_t *n, uint64_t now);
/** Bytes the connection received, any split (all are taken). */
void node_relay_stream_input(node_t *n, uint64_t now, const uint8_t *data, size_t len);
/** Bytes for the connection, if any, until node_relay_stream_sent() takes some. */
bool node_relay_stream_output(const node_t *n, const uint8_t **data, size_t *len);
void node_relay_stream_sent(node_t *n, uint64_t now, size_t len);

bool node_poll_event(node_t *n, node_event_t *ev);
/** Events queued and not yet polled: a loop that made new ones while handling some (echo's
 *  replies open channels) goes round until none is left. */
size_t node_events_pending(const node_t *n);
/** Events refused because the event queue was full (zq/queue.h): events not drained. */
uint32_t node_events_refused(const node_t *n);
/** The next data channel message (or piece of a large one) from any peer. */
bool node_read(node_t *n, uint64_t now, node_message_t *m);
/** The next message or piece from @p peer only (a relay that cannot take more from one peer
 *  yet still reads the others). */
bool node_read_peer(node_t *n, uint64_t now, uint8_t peer, node_message_t *m);

/** Sends on @p peer's channel. */
zq_err_t node_send(node_t *n, uint64_t now, uint8_t peer, const uint8_t *data, size_t len,
                   bool binary);
/** Sends part of a message on @p peer's channel (peer_send_part()). */
zq_err_t node_send_part(node_t *n, uint64_t now, uint8_t peer, const uint8_t *data, size_t len,
                        bool binary, bool first, bool last, size_t *accepted);
/** Gives up the message node_send_part() has open to @p peer. */
zq_err_t node_send_part_abandon(node_t *n, uint64_t now, uint8_t peer);
/** Closes @p peer's data channel (RFC 8831 §6.7); the peer connection ends with it, as one
 *  channel per peer is the room's contract (zeroq-wire.md §2). */
zq_err_t node_close_channel(node_t *n, uint64_t now, uint8_t peer);
/** The remote peer's certificate fingerprint (its identity, proved by DTLS), or NULL. */
const dtls_fingerprint_t *node_peer_fingerprint(const node_t *n, uint8_t peer);
/** The largest message the remote peer takes (its a=max-message-size; 0: no limit). */
uint32_t node_peer_max_message(const node_t *n, uint8_t peer);
/** Bytes @p peer's send buffer takes at once now (peer_send_room()). */
size_t node_send_room(const node_t *n, uint8_t peer);
/** The remote peer's signalling id. */
const char *node_peer_id(const node_t *n, uint8_t peer);

/**
 * The host's addresses changed (a DHCP renewal, another network): every connection was made
 * from the old ones, so each peer is gone (NODE_EVENT_PEER_GONE), nobody is waited for, and
 * the TURN allocation, whose 5-tuple is gone too, is dropped (the next ice_servers frame
 * starts another). The caller then rejoins (a new signalling connection), so that the room
 * sees this node leave and come back and its members dial the new candidates.
 */
void node_set_hosts(node_t *n, uint64_t now, const zq_addr_t *hosts, uint8_t n_hosts);

/** Longest text node_describe_event() writes, plus NUL. */
#define NODE_DESCRIBE_MAX (160 + NODE_RELAY_WHY_MAX)

/**
 * A line for a log about a peer event (node_describe.c), without the peer's id:
 * "connected in 412 ms over host -> srflx" (the candidate types of the path DTLS took: ours,
 * then theirs; "connected in 412 ms" if ICE cannot name them), "gone", "gone: DTLS handshake failed", or, failed before ICE found a path, what it
 * tried: "gone: no ICE candidate pair worked; ICE tried 4 pairs, 0 answered; our candidates
 * host srflx, theirs host srflx".
 * @return its length; 0 and "" for other events.
 */
size_t node_describe_event(const node_event_t *ev, char *out, size_t cap);

/**
 * A line for a log about a NODE_EVENT_RELAY: "TURN allocation over TCP in 2610 ms: relayed
 * address 203.0.113.10:49170", or "TURN allocation over TLS failed: TLS handshake failed: the
 * certificate's chain ...". @return its length; 0 and "" for other events.
 */
size_t node_describe_relay(const node_t *n, const node_event_t *ev, char *out, size_t cap);
/** Closes every peer (ABORT + close_notify go out on the next poll_transmit calls). */
void node_close(node_t *n, uint64_t now);

#endif /* ZQ_NODE_H */

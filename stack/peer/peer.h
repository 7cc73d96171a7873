/**
 * @file peer.h
 * @brief One WebRTC peer connection for data channels: ICE, DTLS, SCTP and DCEP composed
 *        behind the same sans-IO contract as each of them.
 *
 * Inputs: datagrams (demultiplexed by their first byte, RFC 7983 §7, in one place), timeouts,
 * signalling (the peer's SDP and trickled candidates) and application calls. Outputs:
 * datagrams (STUN from ICE, DTLS records carrying SCTP packets), events, messages.
 *
 * @code
 * peer_init(&pc, &cfg);                        // cfg.dtls: the node's shared DTLS context
 * peer_add_host_candidate(&pc, now, &bound);   // the UDP socket's address
 * // dialing:   peer_create_offer() -> signalling -> peer_set_remote_description(answer)
 * // answering: peer_set_remote_description(offer) -> peer_create_answer() -> signalling
 * // then, after every input:
 * while (peer_poll_transmit(&pc, now, &tx)) udp_send(tx.local, tx.remote, tx.data, tx.len);
 * while (peer_poll_event(&pc, &ev)) ...;       // candidates to trickle, channels, failures
 * while (peer_read(&pc, now, &msg)) ...;       // data channel messages
 * @endcode
 *
 * DTLS role (RFC 5763 §5, RFC 8842): a zq peer offers `a=setup:actpass` and answers an
 * actpass offer with `a=setup:active`, as JSEP recommends (RFC 8829 §5.3.1) and browsers,
 * aiortc and Pion do. So the answerer is the DTLS client and the offerer the server, whoever
 * they are, and zq takes each role in one offer direction. Why active: a peer that takes its
 * stream-id parity from its ICE role (aiortc 1.4: controlling, so odd ids) agrees with RFC
 * 8832 §6 whenever it dials zq; an answering device sends a ClientHello instead of having to
 * reassemble a browser's post-quantum one spread over several records. The cost: a lite
 * answerer's ClientHello waits for its nomination (RFC 8445 §12.1.1), so a node answers as a
 * full agent (node/node.h). As client zq lists AES-128-GCM first; the server chooses (Chromium
 * takes ChaCha20-Poly1305 when it is offered).
 */
#ifndef ZQ_PEER_H
#define ZQ_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/dtls/dtls.h"
#include "stack/ice/ice.h"
#include "stack/sctp/datachannel.h"
#include "stack/sctp/sctp.h"
#include "zq/addr.h"
#include "zq/config.h"
#include "zq/err.h"
#include "zq/queue.h"

/** Longest SDP zq writes (its own offers and answers). */
#define PEER_SDP_MAX 2048

typedef struct {
    ice_config_t ice;         /**< mode lite (device default) or full; rand required */
    dtls_context_t *dtls;     /**< the node's DTLS context (identity), shared, borrowed */
    sctp_config_t sctp;       /**< rand required; the MTU is set from DTLS at runtime */
    uint32_t max_message;     /**< our a=max-message-size */
    uint64_t session_id;      /**< o= line; random per peer */
} peer_config_t;

/** Fills @p cfg with the defaults (ICE lite, zq's SCTP defaults); the caller sets rand and
 *  dtls. */
void peer_config_default(peer_config_t *cfg, const zq_rand_t *rand, dtls_context_t *dtls);

typedef enum {
    PEER_STATE_NEW,
    PEER_STATE_CONNECTING, /**< descriptions exchanged; ICE, DTLS or SCTP under way */
    PEER_STATE_CONNECTED,  /**< SCTP association up: channels usable */
    PEER_STATE_CLOSED,
    PEER_STATE_FAILED,
} peer_state_t;

typedef enum {
    PEER_FAIL_NONE,
    PEER_FAIL_ICE,          /**< no candidate pair worked */
    PEER_FAIL_CONSENT,      /**< the peer stopped answering (RFC 7675) */
    PEER_FAIL_DTLS,         /**< see dtls_failure */
    PEER_FAIL_SCTP,         /**< the association aborted or failed */
    PEER_FAIL_DESCRIPTION,  /**< the remote SDP was refused */
    PEER_FAIL_TIMEOUT,      /**< no answer, or not connected within
                                 ZQ_PEER_CONNECT_TIMEOUT_MS */
} peer_failure_t;

/** What went wrong, in a few English words ("no ICE candidate pair worked"). */
const char *peer_failure_name(peer_failure_t failure);

typedef enum {
    PEER_EVENT_LOCAL_CANDIDATE, /**< trickle this a=candidate line: @c candidate */
    PEER_EVENT_GATHERING_DONE,  /**< all local candidates announced */
    PEER_EVENT_CONNECTED,       /**< the association is up: open or accept channels */
    PEER_EVENT_CHANNEL_OPEN,    /**< channel @c channel is ready (either side opened it) */
    PEER_EVENT_CHANNEL_CLOSED,  /**< channel @c channel is gone */
    PEER_EVENT_BUFFERED_LOW,    /**< channel @c channel's buffered amount is low */
    PEER_EVENT_WRITABLE,        /**< a send that would have blocked now fits */
    PEER_EVENT_CLOSED,          /**< closed by either side */
    PEER_EVENT_FAILED,          /**< see @c failure and @c dtls_failure */
} peer_event_type_t;

typedef struct {
    peer_event_type_t type;
    uint16_t channel;
    peer_failure_t failure;
    dtls_failure_t dtls_failure;
    char candidate[ICE_CANDIDATE_TEXT_MAX]; /**< PEER_EVENT_LOCAL_CANDIDATE */
} peer_event_t;

/** A datagram to send; @c data is lent until the next call on the peer. */
typedef struct {
    zq_addr_t local;
    zq_addr_t remote;
    const uint8_t *data;
    size_t len;
} peer_transmit_t;

typedef struct {
    uint32_t rx_datagrams;
    uint32_t rx_demux_dropped; /**< RTP, TURN channel data, or DTLS before a path exists */
    uint32_t rx_dtls_dropped;  /**< DTLS from an address ICE did not validate */
} peer_stats_t;

/* A queued event: what peer_poll_event() needs to write a peer_event_t. A candidate's text is
 * written from the ICE agent's list at the pop, as ICE does for its own events: the queue
 * holds no 200-byte line per slot. */
typedef struct {
    uint8_t type;         /* peer_event_type_t */
    uint8_t failure;      /* peer_failure_t when it was queued */
    uint8_t dtls_failure; /* dtls_failure_t when it was queued */
    uint8_t candidate;    /* PEER_EVENT_LOCAL_CANDIDATE: ice_agent_local_candidate()'s index */
    uint16_t channel;
} peer_event_slot_t;

typedef struct {
    peer_config_t cfg;
    peer_state_t state;
    peer_failure_t failure;
    dtls_failure_t dtls_failure;
    bool offerer;
    bool have_local;
    bool have_remote;
    dtls_role_t dtls_role;
    bool dtls_started;
    bool sctp_started;
    dtls_fingerprint_t remote_fingerprint;
    uint16_t remote_sctp_port;
    uint32_t remote_max_message;
    bool remote_lite;
    bool legacy_sctpmap;      /* the peer used the old DTLS/SCTP form: answer in kind */
    zq_addr_t path_local;     /* where DTLS goes: ICE's selected pair; before it, a valid
                                 pair (RFC 8445 §12.1) or where the ClientHello came from */
    zq_addr_t path_remote;
    bool have_path;
    uint64_t connect_deadline; /* ZQ_TIME_NEVER once connected, or before any offer */
    ice_agent_t ice;
    dtls_t dtls;
    sctp_assoc_t sctp;
    dc_t dc;
    zq_queue_t evq;
    peer_event_slot_t events[ZQ_PEER_EVENT_QUEUE];
    _Alignas(8) uint8_t out[ZQ_DTLS_MTU]; /* an SCTP packet on its way into DTLS; between
                                              packets, the sdp_t being read or written */
    peer_stats_t stats;
    uint8_t sctp_send_buf[ZQ_PEER_SEND_BUFFER];
    uint8_t sctp_recv_buf[ZQ_PEER_RECV_BUFFER];
} peer_t;

zq_err_t peer_init(peer_t *p, const peer_config_t *cfg);

/** A host candidate: the address a UDP socket of ours is bound to. */
zq_err_t peer_add_host_candidate(peer_t *p, uint64_t now, const zq_addr_t *addr);

/** A relayed candidate from a TURN allocation the caller holds (ice_agent_add_relay_candidate()):
 *  datagrams this peer sends from the relayed address are the caller's to wrap for the TURN
 *  server, and what the server relays from a peer is handed in as received on it. */
zq_err_t peer_add_relay_candidate(peer_t *p, uint64_t now, const ice_relay_t *relay,
                                  const zq_addr_t *host);

/** A relayed candidate is (or no longer is) on its way: the description and ICE wait for it
 *  before they say end-of-candidates (ice_agent_expect_relay()). */
void peer_expect_relay(peer_t *p, uint64_t now, bool expected);

/** Writes our offer (all local candidates included, a=setup:actpass). */
zq_err_t peer_create_offer(peer_t *p, uint64_t now, char *sdp, size_t cap, size_t *len);

/** Applies the peer's offer (when answering) or answer (when we offered). @p reason says why
 *  a description was refused. Starts ICE once both descriptions are known. */
zq_err_t peer_set_remote_description(peer_t *p, uint64_t now, const char *sdp, size_t len,
                                     const char **reason);

/** Writes our answer to the offer given before (a=setup:active to an actpass offer). */
zq_err_t peer_create_answer(peer_t *p, uint64_t now, char *sdp, size_t cap, size_t *len);

/** A trickled remote candidate (the a=candidate value, with or without "candidate:"). */
zq_err_t peer_add_remote_candidate(peer_t *p, uint64_t now, const char *line, size_t len);

/** What a datagram's first byte says it carries (RFC 7983 §7). */
typedef enum {
    PEER_RX_EMPTY, /**< no byte at all */
    PEER_RX_STUN,  /**< 0..3: for ICE */
    PEER_RX_DTLS,  /**< 20..63: for DTLS */
    PEER_RX_OTHER, /**< 64..79 TURN channels, 128..191 RTP, the rest: not ours */
} peer_rx_kind_t;

/**
 * A datagram demultiplexed once, and for STUN parsed once, by peer_demux(): a node finds the
 * peer it is for (peer_is_addressed(), peer_owns_address()) and hands it over
 * (peer_handle_demuxed()) without either step reading it again. Borrows the datagram.
 */
typedef struct {
    const uint8_t *data;
    size_t len;
    peer_rx_kind_t kind;
    zq_err_t stun_parsed; /**< PEER_RX_STUN: stun_parse()'s verdict */
    stun_msg_t stun;      /**< PEER_RX_STUN with stun_parsed ZQ_OK: the message */
} peer_datagram_t;

/** The one RFC 7983 demultiplexer; parses STUN (structure and FINGERPRINT, not integrity). */
void peer_demux(peer_datagram_t *d, const uint8_t *data, size_t len);

/** Feeds a datagram peer_demux() read, received on @p local from @p remote. */
zq_err_t peer_handle_demuxed(peer_t *p, uint64_t now, const zq_addr_t *local,
                             const zq_addr_t *remote, const peer_datagram_t *d);

/** peer_demux(), then peer_handle_demuxed(). */
zq_err_t peer_handle_datagram(peer_t *p, uint64_t now, const zq_addr_t *local,
                              const zq_addr_t *remote, const uint8_t *data, size_t len);
void peer_handle_timeout(peer_t *p, uint64_t now);
uint64_t peer_next_timeout(const peer_t *p);
bool peer_poll_transmit(peer_t *p, uint64_t now, peer_transmit_t *tx);
bool peer_poll_event(peer_t *p, peer_event_t *ev);
/** Events refused because the event queue was full (zq/queue.h): events not drained. */
uint32_t peer_events_refused(const peer_t *p);

/* Data channels (see stack/sctp/datachannel.h for the semantics). */
zq_err_t peer_open_channel(peer_t *p, uint64_t now, const char *label, const char *protocol,
                           dc_type_t type, uint32_t reliability, uint16_t *id);
zq_err_t peer_send(peer_t *p, uint64_t now, uint16_t channel, const uint8_t *data, size_t len,
                   bool binary);
/** A message in parts (dc_send_part()): larger than the send buffer, or relayed piece by
 *  piece as peer_read() delivers it. */
zq_err_t peer_send_part(peer_t *p, uint64_t now, uint16_t channel, const uint8_t *data,
                        size_t len, bool binary, bool first, bool last, size_t *accepted);
/** Gives up the message peer_send_part() has open (dc_send_part_abandon()). */
zq_err_t peer_send_part_abandon(peer_t *p, uint64_t now);
/** Bytes the send buffer can take at once now (a message of n bytes needs a little more: one
 *  record header per DATA fragment). */
size_t peer_send_room(const peer_t *p);
zq_err_t peer_close_channel(peer_t *p, uint64_t now, uint16_t channel);
bool peer_read(peer_t *p, uint64_t now, dc_message_t *msg);
const dc_channel_t *peer_channel(const peer_t *p, uint16_t channel);

/** Closes the connection: SCTP ABORT and DTLS close_notify, as browsers do on pc.close(). */
void peer_close(peer_t *p, uint64_t now);

/** Returns the DTLS session's memory to the arena. Call once a closed or failed peer has
 *  nothing left to send (peer_poll_transmit() said false): its ABORT and close_notify went
 *  out. The peer is unusable until peer_init(). */
void peer_free(peer_t *p);

peer_state_t peer_state(const peer_t *p);
/** Our ICE username fragment (a=ice-ufrag; trickled candidates name it too). */
const char *peer_local_ufrag(const peer_t *p);
/** Whether @p d is STUN whose USERNAME names this peer's ICE agent (ice_agent_is_addressed()):
 *  how a node finds the peer of a check from an address nobody knows yet. */
bool peer_is_addressed(const peer_t *p, const peer_datagram_t *d);
/** Whether @p remote is an address this peer talks to (ICE's selected or known pair). */
bool peer_owns_address(const peer_t *p, const zq_addr_t *remote);

#endif /* ZQ_PEER_H */

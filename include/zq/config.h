/**
 * @file config.h
 * @brief Compile-time capacities and defaults of zq, in one place.
 *
 * Every capacity of zq is a macro here, from the portable core to the POSIX port and the
 * programs. To change one, define it in your own header and build with
 * `-DZQ_CONFIG_FILE="my_zq_config.h"` (or define it on the command line): your values are read
 * first, and each `#ifndef` below only fills in what you left out. The `_Static_assert`s at the
 * end reject combinations that cannot work, at compile time, with the reason; the few that need
 * a type or a protocol constant of their layer stay in that layer's header (named at the end).
 *
 * Nothing in zq allocates: each capacity below becomes an array inside a caller-owned context,
 * and running out of one is an ordinary error (ZQ_ERR_CAPACITY), never a crash.
 *
 * Each macro says what it bounds, then on lines of their own:
 *   Unit:        what one unit of the value is;
 *   RAM:         what one unit costs, and in which context (per peer, per node, ...); sizes of
 *                structures are x86-64 / Cortex-M4 with zq's defaults (scripts/sizes);
 *   menuconfig:  the ESP-IDF menu, prompt, range and default of the Kconfig symbol of the same
 *                name (the ESP32 default is the device's, config/zq_device_config.h);
 *                a feature switch's reads "<menu>, "<prompt>", bool, default y." and its
 *                Kconfig help states the price scripts/footprint measured for it
 *                (tools/footprint/feature_costs.json).
 * tools/gen_capacities.py reads these lines to write the capacity table of README.md and the
 * zq symbols of Kconfig; after a change here, run it (ctest runs its --check).
 */
#ifndef ZQ_CONFIG_H
#define ZQ_CONFIG_H

#if defined(ZQ_CONFIG_FILE)
#include ZQ_CONFIG_FILE
#endif

/* ---- Logging (core/log.c) ----------------------------------------------------------------- */

/** How much zq logs: 0 = off (every log macro compiles to nothing), 1 = errors, 2 = warnings,
 *  3 = info, 4 = debug.
 *  Unit: a level, 0..4.
 *  RAM: none; each level adds its log calls' code and strings to flash.
 *  menuconfig: Port, "zq's log level (0 off, 1 errors, 2 warnings, 3 info, 4 debug)", 0..4, default 2. */
#ifndef ZQ_LOG_LEVEL
#define ZQ_LOG_LEVEL 0
#endif

/** Longest formatted log line, including the terminating NUL.
 *  Unit: bytes.
 *  RAM: 1 byte of stack per unit while a line is formatted (core/log.c; the POSIX port's
 *  sink adds 64). */
#ifndef ZQ_LOG_LINE_MAX
#define ZQ_LOG_LINE_MAX 160
#endif

/* ---- JSON (core/json_*.c, include/zq/json.h) ---------------------------------------------- */

/** Deepest nesting of arrays and objects json_parse() accepts and json_writer_t writes; "[]" is
 *  depth 1.
 *  Unit: levels.
 *  RAM: 1 bit per unit in the parser's state (on the stack) and 2 bits per json_writer_t,
 *  rounded up to 32-bit words. */
#ifndef ZQ_JSON_MAX_DEPTH
#define ZQ_JSON_MAX_DEPTH 16
#endif

/* ---- UDP and DTLS (port/, stack/dtls) ----------------------------------------------------- */

/** Largest UDP datagram zq sends or accepts; longer datagrams are dropped and counted. SCTP's
 *  receive window keeps room for the largest chunk one datagram can bring.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per port loop (its receive buffer: zq_loop_t, the ESP32 runner). */
#ifndef ZQ_UDP_MAX_DATAGRAM
#define ZQ_UDP_MAX_DATAGRAM 1500
#endif

/** Largest DTLS record datagram zq sends (the DTLS "MTU"): 1200 keeps clear of IPv6 and
 *  tunnels. The peer's buffer for an outgoing SCTP packet also holds the sdp_t being read or
 *  written, so it must stay at least sizeof(sdp_t) (stack/peer/peer_sdp.c checks).
 *  Unit: bytes.
 *  RAM: 2 bytes per unit per peer (dtls_t.tx and peer_t.out). */
#ifndef ZQ_DTLS_MTU
#define ZQ_DTLS_MTU 1200
#endif

/* ---- STUN (RFC 8489, stack/ice/stun_*.c) -------------------------------------------------- */

/** Largest STUN message zq builds. Requests carry USERNAME (two ufrags), PRIORITY, a role
 *  attribute, USE-CANDIDATE, MESSAGE-INTEGRITY and FINGERPRINT: the cross-checks at the end of
 *  config.h hold it to the longest such request.
 *  Unit: bytes, a multiple of 4.
 *  RAM: 1 byte per unit per ICE transmit slot (ice_tx_slot_t: ZQ_ICE_TX_QUEUE per peer), and
 *  on the stack while a message is built. */
#ifndef ZQ_STUN_MAX_MESSAGE
#define ZQ_STUN_MAX_MESSAGE 160
#endif

/** Unknown comprehension-required attributes remembered per message, for the list a 420
 *  answer carries (RFC 8489 §6.3.1.1); more are still refused, but not listed.
 *  Unit: attributes.
 *  RAM: 4 bytes per unit per stun_msg_t (on the stack while a message is handled). */
#ifndef ZQ_STUN_MAX_UNKNOWN_ATTRS
#define ZQ_STUN_MAX_UNKNOWN_ATTRS 8
#endif

/** How STUN's FINGERPRINT CRC-32 (core/crc32.c) is computed: 1, a byte at a time from a 1 KiB
 *  table; 0, a nibble at a time from a 64-byte one, half the speed over messages of ~100
 *  bytes, for a device that counts its flash.
 *  Unit: a switch, 0 or 1.
 *  RAM: none; flash: 1 KiB of table at 1, 64 bytes at 0.
 *  menuconfig: Flash or speed, "STUN CRC-32 with a 1 KiB table (1) or 64 bytes (0)", 0..1, default 0. */
#ifndef ZQ_CRC32_BYTE_TABLE
#define ZQ_CRC32_BYTE_TABLE 1
#endif

/* ---- TURN (RFC 8656, stack/turn) --------------------------------------------------------- */

/** Requests a TURN allocation has in flight at once: its Allocate or Refresh, and a
 *  CreatePermission or ChannelBind per peer being opened; beyond it a permit or bind waits
 *  for the next refresh.
 *  Unit: transactions.
 *  RAM: one turn_txn_t (64 B) per unit per allocation (turn_client_t). */
#ifndef ZQ_TURN_MAX_TXNS
#define ZQ_TURN_MAX_TXNS 6
#endif

/** Peer IPs a TURN allocation is open to (CreatePermission, RFC 8656 §9).
 *  Unit: peers.
 *  RAM: one turn_permission_t (40 B) per unit per allocation. */
#ifndef ZQ_TURN_MAX_PERMISSIONS
#define ZQ_TURN_MAX_PERMISSIONS 8
#endif

/** Channels a TURN allocation binds (ChannelBind, RFC 8656 §12): one per peer it relays for.
 *  Unit: channels.
 *  RAM: one turn_channel_t (40 B) per unit per allocation. */
#ifndef ZQ_TURN_MAX_CHANNELS
#define ZQ_TURN_MAX_CHANNELS 8
#endif

/** Largest TURN message a client writes (a request with its credentials) or a Data
 *  indication it reads.
 *  Unit: bytes, a multiple of 4.
 *  RAM: 1 byte per unit per allocation (turn_client_t.out). */
#ifndef ZQ_TURN_DATAGRAM_MAX
#define ZQ_TURN_DATAGRAM_MAX 640
#endif

/** Events a TURN allocation queues between polls; beyond it the oldest stays and the new one
 *  is counted in dropped.
 *  Unit: events.
 *  RAM: one turn_event_t (48 B) per unit per allocation. */
#ifndef ZQ_TURN_EVENT_QUEUE
#define ZQ_TURN_EVENT_QUEUE 8
#endif

/* ---- ICE (RFC 8445, stack/ice) ------------------------------------------------------------ */

/** Longest ICE username fragment accepted or generated (RFC 8839 §5.4 allows 4..256
 *  characters).
 *  Unit: characters.
 *  RAM: 2 bytes per unit per peer (the local and remote ice_credentials_t). */
#ifndef ZQ_ICE_UFRAG_MAX
#define ZQ_ICE_UFRAG_MAX 32
#endif

/** Longest ICE password accepted or generated (RFC 8839 §5.4 allows 22..256 characters).
 *  Unit: characters.
 *  RAM: 2 bytes per unit per peer (the local and remote ice_credentials_t). */
#ifndef ZQ_ICE_PWD_MAX
#define ZQ_ICE_PWD_MAX 64
#endif

/** Local candidates per agent: host candidates plus server-reflexive and peer-reflexive ones.
 *  Unit: candidates.
 *  RAM: one ice_local_t (104 B) per unit per peer, and one peer_event_t (216 / 206 B) per unit
 *  per peer through ZQ_PEER_EVENT_QUEUE's default.
 *  menuconfig: Capacities, "ICE local candidates per peer", 1..16, default 2. */
#ifndef ZQ_ICE_MAX_LOCAL_CANDIDATES
#define ZQ_ICE_MAX_LOCAL_CANDIDATES 4
#endif

/** Remote candidates per agent, signalled or learned as peer-reflexive (RFC 8445 §7.3.1.3).
 *  Unit: candidates.
 *  RAM: one ice_candidate_t (84 B) per unit per peer.
 *  menuconfig: Capacities, "ICE remote candidates per peer", 1..32, default 4. */
#ifndef ZQ_ICE_MAX_REMOTE_CANDIDATES
#define ZQ_ICE_MAX_REMOTE_CANDIDATES 8
#endif

/** Candidate pairs per agent (the check list plus the valid list, RFC 8445 §6.1.2).
 *  Unit: pairs.
 *  RAM: one ice_pair_t (16 B) per unit per peer.
 *  menuconfig: Capacities, "ICE candidate pairs per peer", 1..64, default 8. */
#ifndef ZQ_ICE_MAX_PAIRS
#define ZQ_ICE_MAX_PAIRS 16
#endif

/** Outstanding STUN transactions per agent (checks, consent, server-reflexive gathering).
 *  Unit: transactions.
 *  RAM: one ice_txn_t (32 B) per unit per peer.
 *  menuconfig: Capacities, "ICE STUN transactions per peer", 2..16, default 4. */
#ifndef ZQ_ICE_MAX_TRANSACTIONS
#define ZQ_ICE_MAX_TRANSACTIONS 8
#endif

/** Datagrams an agent can hold between an input and the caller draining them.
 *  Unit: datagrams.
 *  RAM: one ice_tx_slot_t (ZQ_STUN_MAX_MESSAGE + 42 bytes: 202 B) per unit per peer. */
#ifndef ZQ_ICE_TX_QUEUE
#define ZQ_ICE_TX_QUEUE 4
#endif

/** Events an agent can hold between an input and the caller draining them.
 *  Unit: events.
 *  RAM: 2 bytes per unit per peer (ice_event_slot_t). */
#ifndef ZQ_ICE_EVENT_QUEUE
#define ZQ_ICE_EVENT_QUEUE 8
#endif

/** Longest candidate foundation (RFC 8445 §5.1.1.3: 1 to 32 ice-chars); fixed by the RFC, not a
 *  setting. */
#define ZQ_ICE_FOUNDATION_MAX 32

/* ---- SDP (RFC 8866, stack/sdp) ------------------------------------------------------------ */

/** Remote candidates kept from one description; more are counted in candidates_skipped. The
 *  default matches ZQ_ICE_MAX_REMOTE_CANDIDATES, where they go next.
 *  Unit: candidates.
 *  RAM: one ice_candidate_t (84 B) per unit per sdp_t, which lives in the peer's packet buffer
 *  (peer_t.out, ZQ_DTLS_MTU bytes), so it must fit there.
 *  menuconfig: Capacities, "Candidates kept from one session description", 1..32, default 4. */
#ifndef ZQ_SDP_MAX_CANDIDATES
#define ZQ_SDP_MAX_CANDIDATES 8
#endif

/** Longest a=mid value kept. Browsers use "0", "1", ... (RFC 8829 §5.2.1 leaves it free).
 *  Unit: characters.
 *  RAM: 1 byte per unit per sdp_t (inside peer_t.out). */
#ifndef ZQ_SDP_MID_MAX
#define ZQ_SDP_MID_MAX 16
#endif

/** Longest SDP line accepted, without its CRLF. Browsers' longest lines are candidates (~130
 *  bytes) and fingerprints (~110); the bound keeps a hostile line from being walked as one
 *  giant token.
 *  Unit: bytes.
 *  RAM: none (a bound on the walk, no buffer). */
#ifndef ZQ_SDP_LINE_MAX
#define ZQ_SDP_LINE_MAX 1024
#endif

/* ---- SCTP (RFC 9260, stack/sctp) ---------------------------------------------------------- */

/** Streams an association tracks at once (a data channel uses one; RFC 8831 §6.5).
 *  Unit: streams.
 *  RAM: one sctp_stream_t (24 B) per unit per association (one per peer), and one sctp_event_t
 *  (16 / 8 B) per unit through ZQ_SCTP_EVENT_QUEUE's default.
 *  menuconfig: Capacities, "SCTP streams tracked per peer", 16..1024, default 16. */
#ifndef ZQ_SCTP_MAX_STREAMS
#define ZQ_SCTP_MAX_STREAMS 32
#endif

/** TSNs above the cumulative ack the receiver can track (RFC 9260 §6.2: what a SACK's gap
 *  blocks report).
 *  Unit: TSNs, a multiple of 32.
 *  RAM: 1 bit per unit per association (sctp_assoc_t.tracker).
 *  menuconfig: Capacities, "SCTP TSNs tracked above the cumulative ack (multiple of 32)", 64..8192, default 256. */
#ifndef ZQ_SCTP_TRACKER_TSNS
#define ZQ_SCTP_TRACKER_TSNS 2048
#endif

/** Pieces of messages ready for sctp_read() at once; delivery pauses (never drops) when full.
 *  Unit: pieces.
 *  RAM: 4 bytes per unit per association (a ring offset each).
 *  menuconfig: Capacities, "SCTP message pieces ready for reading", 2..256, default 16. */
#ifndef ZQ_SCTP_READ_QUEUE
#define ZQ_SCTP_READ_QUEUE 64
#endif

/** Events an association can hold between an input and the caller draining them: every stream
 *  may report WRITABLE at once, plus the association's own.
 *  Unit: events.
 *  RAM: one sctp_event_t (16 / 8 B) per unit per association. */
#ifndef ZQ_SCTP_EVENT_QUEUE
#define ZQ_SCTP_EVENT_QUEUE (ZQ_SCTP_MAX_STREAMS + 8)
#endif

/** Largest State Cookie of a peer zq can echo (RFC 9260 §5.1.3; usrsctp's carry copies of INIT
 *  and INIT ACK).
 *  Unit: bytes.
 *  RAM: 1 byte per unit per association. */
#ifndef ZQ_SCTP_MAX_COOKIE
#define ZQ_SCTP_MAX_COOKIE 512
#endif

/** Unrecognized INIT parameters echoed in the INIT ACK (RFC 9260 §3.3.3); more are dropped.
 *  Unit: bytes of parameters.
 *  RAM: 1 byte per unit per association. */
#ifndef ZQ_SCTP_MAX_UNRECOGNIZED
#define ZQ_SCTP_MAX_UNRECOGNIZED 64
#endif

/** Streams one reset request can carry, and streams waiting to be reset (RFC 6525 §4.1).
 *  Unit: streams.
 *  RAM: 4 bytes per unit per association (the pending and in-flight lists). */
#ifndef ZQ_SCTP_MAX_PENDING_RESETS
#define ZQ_SCTP_MAX_PENDING_RESETS 16
#endif

/** Gap ack blocks a parsed SACK keeps (RFC 9260 §3.3.4); the rest are counted as dropped,
 *  never read past.
 *  Unit: blocks.
 *  RAM: 4 bytes of stack per unit per sctp_sack_chunk_t (one while a SACK is read or written,
 *  and a block list beside it while one is written). */
#ifndef ZQ_SCTP_MAX_GAP_BLOCKS
#define ZQ_SCTP_MAX_GAP_BLOCKS 16
#endif

/** Duplicate TSNs a parsed SACK keeps, and the receiver remembers to report (RFC 9260 §6.2).
 *  Unit: TSNs.
 *  RAM: 4 bytes per unit per association, and 4 of stack per sctp_sack_chunk_t. */
#ifndef ZQ_SCTP_MAX_DUP_TSNS
#define ZQ_SCTP_MAX_DUP_TSNS 16
#endif

/** Streams a parsed RE-CONFIG request keeps (RFC 6525 §4.1); more fail the writer.
 *  Unit: streams.
 *  RAM: 2 bytes of stack per unit per sctp_reconfig_chunk_t (while one is read or written). */
#ifndef ZQ_SCTP_MAX_RESET_STREAMS
#define ZQ_SCTP_MAX_RESET_STREAMS 16
#endif

/** Stream/sequence pairs a parsed FORWARD-TSN keeps (RFC 3758 §3.2); more fail the writer.
 *  Unit: streams.
 *  RAM: 4 bytes of stack per unit per sctp_forward_tsn_chunk_t (while one is read or
 *  written). */
#ifndef ZQ_SCTP_MAX_FWD_STREAMS
#define ZQ_SCTP_MAX_FWD_STREAMS 16
#endif

/** How the portable CRC32c is computed: 1, slicing-by-8 (8 KiB of tables in flash, ~3.5 times
 *  faster than a byte at a time); 0, a byte at a time over one 1 KiB table, for a device that
 *  counts its flash. Either way the CPU's CRC32c instruction is used where there is one
 *  (stack/sctp/packet/crc32c.c).
 *  Unit: a switch, 0 or 1.
 *  RAM: none; flash: 8 KiB of tables at 1, 1 KiB at 0.
 *  menuconfig: Flash or speed, "SCTP CRC32c with 8 KiB of tables (1) or 1 KiB (0)", 0..1, default 0. */
#ifndef ZQ_SCTP_CRC32C_SLICE8
#define ZQ_SCTP_CRC32C_SLICE8 1
#endif

/* ---- Data channels (RFC 8831, DCEP RFC 8832, stack/sctp/datachannel.c) -------------------- */

/** Channels per association, each on one stream id both ways; more are refused (the stream is
 *  reset). A room uses one channel per peer pair.
 *  Unit: channels.
 *  RAM: one dc_channel_t (116 B at the defaults: ZQ_DC_LABEL_MAX + ZQ_DC_PROTOCOL_MAX + 20) plus
 *  1 byte per unit per peer, and two dc_event_t (8 / 4 B) through ZQ_DC_EVENT_QUEUE's default.
 *  menuconfig: Capacities, "Data channels per peer", 1..16, default 2. */
#ifndef ZQ_DC_MAX_CHANNELS
#define ZQ_DC_MAX_CHANNELS 16
#endif

/** Longest channel label kept (RFC 8832 §5.1 allows 65535 bytes; a longer one is refused: the
 *  channel is closed at once).
 *  Unit: bytes.
 *  RAM: 1 byte per unit per channel (dc_channel_t), and 1 of stack while an OPEN is written. */
#ifndef ZQ_DC_LABEL_MAX
#define ZQ_DC_LABEL_MAX 64
#endif

/** Longest channel protocol kept (RFC 8832 §5.1; longer ones are refused as labels are).
 *  Unit: bytes.
 *  RAM: 1 byte per unit per channel (dc_channel_t), and 1 of stack while an OPEN is written. */
#ifndef ZQ_DC_PROTOCOL_MAX
#define ZQ_DC_PROTOCOL_MAX 32
#endif

/** Data-channel events a peer can hold between drains: a channel makes at most two (open and
 *  close).
 *  Unit: events.
 *  RAM: one dc_event_t (8 / 4 B) per unit per peer, and one peer_event_t (216 / 206 B) per unit
 *  per peer through ZQ_PEER_EVENT_QUEUE's default.
 *  menuconfig: Capacities, "Data-channel events queued per peer", 4..64, default 6. */
#ifndef ZQ_DC_EVENT_QUEUE
#define ZQ_DC_EVENT_QUEUE (2 * ZQ_DC_MAX_CHANNELS + 4)
#endif

/* ---- Peer connection (stack/peer) --------------------------------------------------------- */

/** SCTP send buffer per peer (RFC 9260's send window): holds each message until the peer
 *  acknowledges it. A broker frame must fit whole with room to spare: at least
 *  2 x ZQ_BRK_FRAME_MAX.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per peer (peer_t.sctp_send_buf).
 *  menuconfig: Capacities, "SCTP send buffer per peer (bytes)", 2048..262144, default 2048. */
#ifndef ZQ_PEER_SEND_BUFFER
#define ZQ_PEER_SEND_BUFFER 16384
#endif

/** SCTP receive buffer per peer: holds what arrives out of order; its free space is the window
 *  advertised to the peer, so it bounds the inbound rate to about one buffer per round trip.
 *  Larger messages are delivered in pieces as they arrive.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per peer (peer_t.sctp_recv_buf), and 1 per unit per peer of an echo
 *  service through ZQ_ECHO_PIECE_MAX's default.
 *  menuconfig: Capacities, "SCTP receive buffer per peer (bytes)", 2048..262144, default 2048. */
#ifndef ZQ_PEER_RECV_BUFFER
#define ZQ_PEER_RECV_BUFFER 16384
#endif

/** The a=max-message-size zq advertises (RFC 8841 §6): large messages arrive in pieces, so it
 *  need not fit the receive buffer. Browsers refuse to send more than this.
 *  Unit: bytes.
 *  RAM: none (advertised only). */
#ifndef ZQ_PEER_MAX_MESSAGE
#define ZQ_PEER_MAX_MESSAGE 262144
#endif

/** How long a connection may take from our offer (or from the peer's offer, when answering) to
 *  an open association. An offer nobody answers (the peer refused it for want of room, or went
 *  away) fails here instead of holding its slot forever.
 *  Unit: milliseconds.
 *  RAM: none (a time).
 *  menuconfig: Timeouts, "Offer to open channel, at most (ms)", 1000..600000, default 30000. */
#ifndef ZQ_PEER_CONNECT_TIMEOUT_MS
#define ZQ_PEER_CONNECT_TIMEOUT_MS 30000
#endif

/** How long after a connection we dialed failed on the network (ICE found no pair, consent
 *  ran out, SCTP gave up, or it did not open in time) the node dials that member again, while
 *  the room still holds it: a Wi-Fi that came back finds its peers without anyone rejoining.
 *  Each try takes up to ZQ_PEER_CONNECT_TIMEOUT_MS, so tries come at most that far apart plus
 *  this. A refused description or a failed DTLS handshake is not retried (it would fail the
 *  same way); the side that answered waits for the dialer's new offer.
 *  Unit: milliseconds.
 *  RAM: none (a time).
 *  menuconfig: Timeouts, "Redial a lost peer after (ms)", 100..600000, default 2000. */
#ifndef ZQ_NODE_REDIAL_MS
#define ZQ_NODE_REDIAL_MS 2000
#endif

/** Events a peer can hold between an input and the caller draining them: its data channels',
 *  one per local candidate (trickled), and its own.
 *  Unit: events.
 *  RAM: one peer_event_t (216 / 206 B) per unit per peer. */
#ifndef ZQ_PEER_EVENT_QUEUE
#define ZQ_PEER_EVENT_QUEUE (ZQ_DC_EVENT_QUEUE + ZQ_ICE_MAX_LOCAL_CANDIDATES + 4)
#endif

/* ---- Signalling: HTTP and WebSocket (RFC 9112, RFC 6455, signal/http, signal/ws) ---------- */

/** Largest HTTP request or response head (start line, fields, blank line) accepted. Browsers
 *  send 0.5-2 KB for a WebSocket upgrade, cookies included.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per signalling server HTTP connection (http_conn_t), and 1 of stack
 *  while a client reads the server's 101 answer (port/posix/ws_client.c). */
#ifndef ZQ_HTTP_MAX_REQUEST
#define ZQ_HTTP_MAX_REQUEST 8192
#endif

/** Field lines kept per head; a head with more is refused (ZQ_ERR_TOO_LONG, answer 431).
 *  Unit: field lines.
 *  RAM: one http_header_t (32 / 16 B) per unit per http_request_t or http_response_t (on the
 *  stack while a head is parsed). */
#ifndef ZQ_HTTP_MAX_HEADERS
#define ZQ_HTTP_MAX_HEADERS 32
#endif

/** Largest WebSocket message received, after reassembly of fragments: the receive buffer. A
 *  browser's ZeroQ frames are small JSON; SDP offers, JSON-escaped, a few KB.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per ws_conn_t (ws_conn_t.msg), and 1 per unit per ws_conn_t through
 *  ZQ_WS_TX_BUFFER's default.
 *  menuconfig: Capacities, "Largest signalling message received (bytes)", 1024..65536, default 4096. */
#ifndef ZQ_WS_MAX_MESSAGE
#define ZQ_WS_MAX_MESSAGE 65536
#endif

/** WebSocket output buffer: whole frames waiting for the caller to write them to TCP. One frame
 *  must fit, so this bounds the largest message sent; the default sends anything it can
 *  receive, with the longest frame header (WS_MAX_HEADER, 14 bytes, signal/ws.h). zq's own
 *  offers are at most 2 KiB of SDP as JSON.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per ws_conn_t (ws_conn_t.tx).
 *  menuconfig: Capacities, "Signalling output buffer (bytes)", 1024..65550, default 4110. */
#ifndef ZQ_WS_TX_BUFFER
#define ZQ_WS_TX_BUFFER (ZQ_WS_MAX_MESSAGE + WS_MAX_HEADER)
#endif

/* ---- Signalling: ZeroQ client and room router (signal/sig_client, signal/router) ---------- */

/** Longest peer id (the server's are 22 characters).
 *  Unit: characters.
 *  RAM: 1 byte per unit per node peer slot, per waiting member, per node (its own id) and per
 *  sig_event_t (one per node): ZQ_NODE_MAX_PEERS + ZQ_NODE_WAITLIST + 2 per node. */
#ifndef ZQ_SIG_ID_MAX
#define ZQ_SIG_ID_MAX 64
#endif

/** Longest room name (also the data channels' label).
 *  Unit: characters.
 *  RAM: 1 byte per unit per node (node_config_t), per router client slot and per runner. */
#ifndef ZQ_SIG_ROOM_MAX
#define ZQ_SIG_ROOM_MAX 64
#endif

/** Longest SDP or candidate line carried. A browser's offer is 1-4 KiB, zq's own at most
 *  PEER_SDP_MAX (2 KiB); none longer fits a ZQ_WS_MAX_MESSAGE message.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per sig_event_t (one per node: node_t.sig) and per router (its
 *  scratch), and 1 per unit per router and per signalling link through ZQ_SIG_FRAME_MAX's
 *  default.
 *  menuconfig: Capacities, "Longest SDP received (bytes)", 1024..65536, default 4096. */
#ifndef ZQ_SIG_SDP_MAX
#define ZQ_SIG_SDP_MAX 8192
#endif

/** Longest signalling frame written or re-written (an offer with all its candidates fits).
 *  Unit: bytes.
 *  RAM: 1 byte per unit per router and per signalling link (the CLI's sig_link_t, the ESP32
 *  runner). */
#ifndef ZQ_SIG_FRAME_MAX
#define ZQ_SIG_FRAME_MAX (ZQ_SIG_SDP_MAX + 512)
#endif

/** Clients a signalling router serves at once; beyond it a new connection is answered 503.
 *  Unit: clients.
 *  RAM: one sig_client_slot_t (1,200 B, 1,040 of them its names) per unit per router, and in
 *  `zq signal` a wsc_t (a ws_conn_t with two ZQ_WS_MAX_MESSAGE buffers: ~129 KiB) and a
 *  pointer per unit. */
#ifndef ZQ_SIG_MAX_CLIENTS
#define ZQ_SIG_MAX_CLIENTS 256
#endif

/** Members other servers of a cluster hold (`zq signal --cluster`, signal/cluster.h) that one
 *  server keeps track of: those in rooms where it has members itself. A member beyond it is
 *  counted (remote_full) and its room here does not hear of it.
 *  Unit: members.
 *  RAM: one sig_remote_t (112 B) per unit per clustered server. */
#ifndef ZQ_SIG_REMOTE_MAX
#define ZQ_SIG_REMOTE_MAX 1024
#endif

/** Other servers of a cluster one server keeps track of (`zq signal --cluster`); a server
 *  beyond it is counted (servers_full) and not heard.
 *  Unit: servers.
 *  RAM: one sig_peer_server_t (32 B) per unit per clustered server. */
#ifndef ZQ_SIG_CLUSTER_SERVERS_MAX
#define ZQ_SIG_CLUSTER_SERVERS_MAX 16
#endif

/** Topic and queue names one room member may announce (`create_topic`, `subscribe`,
 *  `create_queue`, `consume`) for its room's /api lists; a name beyond it is counted and
 *  not listed. The names leave the lists with the member.
 *  Unit: names.
 *  RAM: ZQ_SIG_NAME_MAX + 2 bytes per unit per client slot (ZQ_SIG_MAX_CLIENTS) per router. */
#ifndef ZQ_SIG_NAMES_PER_MEMBER
#define ZQ_SIG_NAMES_PER_MEMBER 8
#endif

/** Longest topic or queue name a router lists.
 *  Unit: characters.
 *  RAM: ZQ_SIG_NAMES_PER_MEMBER x ZQ_SIG_MAX_CLIENTS bytes per unit per router. */
#ifndef ZQ_SIG_NAME_MAX
#define ZQ_SIG_NAME_MAX 128
#endif

/* ---- NATS client (stack/nats, docs.nats.io/reference/reference-protocols/nats-protocol) ---- */

/** Longest protocol line a NATS client reads, its CRLF not counted: a MSG's control line, or an
 *  INFO with its JSON (nats-server 2.9 sends ~300 bytes alone, ~60 more per cluster URL). A
 *  longer line fails the connection.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per nats_client_t (its line buffer). */
#ifndef ZQ_NATS_LINE_MAX
#define ZQ_NATS_LINE_MAX 4096
#endif

/** Largest MSG payload a NATS client delivers; a larger one is skipped whole (read, never
 *  kept), counted in dropped_oversize, and the connection goes on.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per nats_client_t (its payload buffer). */
#ifndef ZQ_NATS_PAYLOAD_MAX
#define ZQ_NATS_PAYLOAD_MAX 16384
#endif

/** Bytes a NATS client holds for the caller to write to TCP: CONNECT, PUB with its payload,
 *  SUB, UNSUB, PING, PONG. A command that does not fit the free space is refused whole.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per nats_client_t (its output queue). */
#ifndef ZQ_NATS_OUT_MAX
#define ZQ_NATS_OUT_MAX 65536
#endif

/** Cluster URLs kept from an INFO's connect_urls, where a client can reconnect; more are
 *  counted in info_dropped.
 *  Unit: URLs.
 *  RAM: ZQ_NATS_URL_MAX bytes per unit per nats_client_t (its nats_info_t). */
#ifndef ZQ_NATS_URLS_MAX
#define ZQ_NATS_URLS_MAX 8
#endif

/** Longest connect_urls entry kept, with its NUL ("10.0.0.12:4222"; a longer one is counted in
 *  info_dropped).
 *  Unit: bytes.
 *  RAM: ZQ_NATS_URLS_MAX bytes per unit per nats_client_t (its nats_info_t). */
#ifndef ZQ_NATS_URL_MAX
#define ZQ_NATS_URL_MAX 64
#endif

/* ---- MQTT client (MQTT 3.1.1 and 5.0, stack/mqtt) ----------------------------------------- */

/** Largest MQTT packet a client receives or sends, fixed header included; sent as the Maximum
 *  Packet Size of a v5 CONNECT (5.0 §3.1.2.11.4), so a v5 server sending more commits a
 *  protocol error, and a 3.1.1 packet over it is skipped and counted.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per mqtt_client_t (its receive buffer). */
#ifndef ZQ_MQTT_PACKET_MAX
#define ZQ_MQTT_PACKET_MAX 16384
#endif

/** Bytes a client holds for the caller to write to TCP (CONNECT, publishes, acks, SUBSCRIBE,
 *  PINGREQ); a packet that does not fit the free space is refused whole (ZQ_ERR_WOULD_BLOCK)
 *  or waits inside the client (acks, resends). At least ZQ_MQTT_PACKET_MAX + 16 (a packet is
 *  written before its lengths are known).
 *  Unit: bytes.
 *  RAM: 1 byte per unit per mqtt_client_t (its output queue). */
#ifndef ZQ_MQTT_OUT_MAX
#define ZQ_MQTT_OUT_MAX (2 * ZQ_MQTT_PACKET_MAX)
#endif

/** Outgoing QoS 1 publishes a client keeps until their PUBACK, whole, to send again after a
 *  reconnect (MQTT-4.4.0-1); beyond it a publish is refused with ZQ_ERR_WOULD_BLOCK.
 *  Unit: publishes.
 *  RAM: one mqtt_inflight_t (12 B) per unit per mqtt_client_t. */
#ifndef ZQ_MQTT_INFLIGHT_MAX
#define ZQ_MQTT_INFLIGHT_MAX 16
#endif

/** Bytes of encoded packets the in-flight QoS 1 publishes share; a publish that does not fit
 *  is refused with ZQ_ERR_WOULD_BLOCK. At least ZQ_MQTT_PACKET_MAX + 16.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per mqtt_client_t (its in-flight pool). */
#ifndef ZQ_MQTT_INFLIGHT_BYTES
#define ZQ_MQTT_INFLIGHT_BYTES (4 * ZQ_MQTT_PACKET_MAX)
#endif

/** Incoming QoS 1 publishes a client holds unacknowledged until the caller acks them: the
 *  Receive Maximum it grants at most (5.0 §3.1.2.11.3), counted alike in 3.1.1.
 *  Unit: publishes.
 *  RAM: one mqtt_unacked_t (6 B) per unit per mqtt_client_t. */
#ifndef ZQ_MQTT_RX_INFLIGHT_MAX
#define ZQ_MQTT_RX_INFLIGHT_MAX 16
#endif

/** Longest topic name or filter a client sends or delivers; an incoming PUBLISH with a longer
 *  topic is refused and counted.
 *  Unit: bytes.
 *  RAM: none (a bound on a length). */
#ifndef ZQ_MQTT_TOPIC_MAX
#define ZQ_MQTT_TOPIC_MAX 256
#endif

/** Topic filters one SUBSCRIBE or UNSUBSCRIBE carries.
 *  Unit: filters.
 *  RAM: none (a bound on a count; reason codes are read in place). */
#ifndef ZQ_MQTT_SUBS_MAX
#define ZQ_MQTT_SUBS_MAX 8
#endif

/** SUBSCRIBE and UNSUBSCRIBE requests awaiting their ack at once; beyond it a request is
 *  refused with ZQ_ERR_WOULD_BLOCK.
 *  Unit: requests.
 *  RAM: one mqtt_request_t (4 B) per unit per mqtt_client_t. */
#ifndef ZQ_MQTT_REQUESTS_MAX
#define ZQ_MQTT_REQUESTS_MAX 4
#endif

/* ---- Node (node/) ------------------------------------------------------------------------- */

/** Peer connections a node keeps at once: members of its room. Each costs its static state and,
 *  while connected, mbedTLS heap from the arena (~5.5 KiB per session, ~13 KiB during a
 *  handshake).
 *  Unit: peers.
 *  RAM: per node one node_peer_t (a peer_t and its SCTP buffers: 54,328 / 53,088 B; 15,512 B on
 *  Cortex-M4 with the ESP32 defaults, docs/footprint.md) and 4 node_event_t (16 / 8 B) through
 *  ZQ_NODE_EVENT_QUEUE's default; per broker one brk_peer_t (10,504 B: a ZQ_BRK_FRAME_MAX
 *  buffer and names) and 2 brk_event_t (96 / 72 B); per echo service ~16 KiB (an echo_relay_t
 *  of ZQ_ECHO_PIECE_MAX bytes, a probe and a report).
 *  menuconfig: Capacities, "Peers at once", 1..16, default 4. */
#ifndef ZQ_NODE_MAX_PEERS
#define ZQ_NODE_MAX_PEERS 4
#endif

/** Local UDP addresses a node gathers host candidates from.
 *  Unit: addresses.
 *  RAM: one zq_addr_t (20 B) per unit per node (node_config_t.hosts), and a socket per unit in
 *  the programs. */
#ifndef ZQ_NODE_MAX_HOSTS
#define ZQ_NODE_MAX_HOSTS 2
#endif

/** Events a node can hold between an input and the caller draining them.
 *  Unit: events.
 *  RAM: one node_event_t (24 / 16 B) per unit per node. */
#ifndef ZQ_NODE_EVENT_QUEUE
#define ZQ_NODE_EVENT_QUEUE (4 * ZQ_NODE_MAX_PEERS + 4)
#endif

/** Members the node is to dial later: those left out for want of a slot (it tells each, a
 *  "refused" frame through the signalling server, and dials the longest waiting when a slot
 *  frees) and those whose connection failed (dialed again after ZQ_NODE_REDIAL_MS). Beyond it
 *  a member is neither told nor remembered (stats.waitlist_full).
 *  Unit: members.
 *  RAM: one node_waiting_t (ZQ_SIG_ID_MAX + 2 bytes and a time: 80 B) per unit per node.
 *  menuconfig: Capacities, "Members waiting for a peer slot", 1..255, default 4. */
#ifndef ZQ_NODE_WAITLIST
#define ZQ_NODE_WAITLIST 4
#endif

/** Largest piece the echo service holds while a peer's channel has no room: node_read() pieces
 *  never exceed the receive buffer, where they are read from.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per peer per echo service (echo_relay_t.data). */
#ifndef ZQ_ECHO_PIECE_MAX
#define ZQ_ECHO_PIECE_MAX ZQ_PEER_RECV_BUFFER
#endif

/** Whole messages up to this size the echo service sends back with one node_send(); larger
 *  ones go in parts.
 *  Unit: bytes.
 *  RAM: none (a threshold). */
#ifndef ZQ_ECHO_WHOLE_MAX
#define ZQ_ECHO_WHOLE_MAX (ZQ_PEER_SEND_BUFFER / 4)
#endif

/* ---- Broker (broker/, PROTOCOL.md) -------------------------------------------------------- */

/** Largest frame (JSON text) the broker takes from or sends to one peer, advertised as hello's
 *  "max". A frame goes into the peer's SCTP send buffer whole (or as all its chunks at once),
 *  so it must fit there with room to spare: at most ZQ_PEER_SEND_BUFFER / 2.
 *  Unit: bytes.
 *  RAM: ZQ_NODE_MAX_PEERS + 2 bytes per unit per broker (each peer's reassembly buffer, the
 *  frame being written and a replay ring entry), and 1 per unit in each program buffer that
 *  copies a frame out (cli/).
 *  menuconfig: Capacities, "Largest broker frame (bytes)", 1024..65536, default 1024. */
#ifndef ZQ_BRK_FRAME_MAX
#define ZQ_BRK_FRAME_MAX 8192
#endif

/** Local subscriptions (patterns).
 *  Unit: patterns.
 *  RAM: one brk_name_t (ZQ_BRK_NAME_MAX + 2 bytes: 130 B) per unit per broker.
 *  menuconfig: Capacities, "Local subscriptions", 1..64, default 4. */
#ifndef ZQ_BRK_MAX_SUBS
#define ZQ_BRK_MAX_SUBS 16
#endif

/** Patterns kept per remote peer (and per QoS 1 receiver); a peer with more gets every message.
 *  Unit: patterns.
 *  RAM: one brk_name_t (130 B) per unit per peer and per receiver:
 *  ZQ_NODE_MAX_PEERS + ZQ_BRK_MAX_RECEIVERS per broker.
 *  menuconfig: Capacities, "Patterns kept per remote peer", 1..64, default 4. */
#ifndef ZQ_BRK_PEER_SUBS
#define ZQ_BRK_PEER_SUBS 8
#endif

/** Longest topic, queue or service name, and pattern.
 *  Unit: characters.
 *  RAM: 1 byte per unit per brk_name_t, of which a broker holds
 *  ZQ_NODE_MAX_PEERS x (ZQ_BRK_PEER_SUBS + ZQ_BRK_MAX_SERVICES)
 *  + ZQ_BRK_MAX_RECEIVERS x ZQ_BRK_PEER_SUBS + ZQ_BRK_MAX_SUBS + 2 x ZQ_BRK_MAX_QUEUES
 *  + ZQ_BRK_MAX_SERVICES, plus ZQ_BRK_MAX_REQUESTS + 2 (requests' services, a ring entry, an
 *  event's topic).
 *  menuconfig: Capacities, "Longest topic, queue or service name", 16..255, default 64. */
#ifndef ZQ_BRK_NAME_MAX
#define ZQ_BRK_NAME_MAX 128
#endif

/** The publisher's replay ring: recent messages, and QoS 1 ones not yet acked.
 *  Unit: bytes, a multiple of 4.
 *  RAM: 1 byte per unit per broker.
 *  menuconfig: Capacities, "Publisher's replay ring (bytes, multiple of 4)", 2048..1048576, default 2048. */
#ifndef ZQ_BRK_RING_BYTES
#define ZQ_BRK_RING_BYTES (16 * 1024)
#endif

/** QoS 1 receivers tracked by identity (connected, or lingering after a disconnect).
 *  Unit: receivers, at most 32.
 *  RAM: one brk_receiver_t (ZQ_BRK_PEER_SUBS names + 40 bytes: 1,080 B) per unit per broker.
 *  menuconfig: Capacities, "QoS 1 receivers tracked", 1..32, default 4. */
#ifndef ZQ_BRK_MAX_RECEIVERS
#define ZQ_BRK_MAX_RECEIVERS 8
#endif

/** Publishers whose last delivered seq a subscriber remembers (resume points).
 *  Unit: publishers.
 *  RAM: one brk_publisher_t (32 B) per unit per broker.
 *  menuconfig: Capacities, "Publishers whose resume point is kept", 1..255, default 4. */
#ifndef ZQ_BRK_MAX_PUBLISHERS
#define ZQ_BRK_MAX_PUBLISHERS 16
#endif

/** QoS 1 messages a broker with hold_qos1 (brk.h: a bridge) has delivered and the application
 *  has not yet finished (brk_message_done()); with every one taken the broker reads no more
 *  frames from its peers until one is finished.
 *  Unit: messages.
 *  RAM: one brk_held_msg_t (24 B) per unit per broker. */
#ifndef ZQ_BRK_HELD_MESSAGES
#define ZQ_BRK_HELD_MESSAGES 32
#endif

/** ZeroQ envelopes remembered to deliver each once (PROTOCOL.md §9): keys of (sender identity,
 *  id, retryCount), forgotten oldest first.
 *  Unit: keys, a power of two.
 *  RAM: 24 bytes per unit per broker (the key FIFO and a hash table twice its size).
 *  menuconfig: Capacities, "ZeroQ duplicates remembered (a power of two)", 16..4096, default 32. */
#ifndef ZQ_BRK_DEDUP_WINDOW
#define ZQ_BRK_DEDUP_WINDOW 256
#endif

/** Last-value cache: topics whose last message a new subscriber is offered.
 *  Unit: topics.
 *  RAM: one brk_lvc_entry_t (16 B) per unit per broker.
 *  menuconfig: Capacities, "Last-value cache: topics", 1..64, default 2. */
#ifndef ZQ_BRK_LVC_TOPICS
#define ZQ_BRK_LVC_TOPICS 8
#endif

/** Last-value cache: bytes of those last messages.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per broker.
 *  menuconfig: Capacities, "Last-value cache: bytes", 256..65536, default 512. */
#ifndef ZQ_BRK_LVC_BYTES
#define ZQ_BRK_LVC_BYTES (4 * 1024)
#endif

/** Work queues this node consumes, and queues it produces to (each kind).
 *  Unit: queues.
 *  RAM: 2 brk_name_t (130 B) + 4 bytes per unit per broker, and 4 bytes per unit per peer
 *  (its credit).
 *  menuconfig: Capacities, "Work queues consumed or produced to", 1..32, default 2. */
#ifndef ZQ_BRK_MAX_QUEUES
#define ZQ_BRK_MAX_QUEUES 8
#endif

/** Services this node serves (and a remote peer is known to serve).
 *  Unit: services.
 *  RAM: one brk_name_t (130 B) per unit per broker and per unit per peer.
 *  menuconfig: Capacities, "Services served", 1..32, default 2. */
#ifndef ZQ_BRK_MAX_SERVICES
#define ZQ_BRK_MAX_SERVICES 8
#endif

/** Producer side: jobs held (waiting, leased or dead).
 *  Unit: jobs.
 *  RAM: one brk_job_t (96 B) per unit per broker.
 *  menuconfig: Capacities, "Jobs held by a producer", 1..255, default 4. */
#ifndef ZQ_BRK_MAX_JOBS
#define ZQ_BRK_MAX_JOBS 32
#endif

/** Producer side: bytes of the jobs held.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per broker.
 *  menuconfig: Capacities, "Bytes of the jobs held by a producer", 256..1048576, default 1024. */
#ifndef ZQ_BRK_JOB_BYTES
#define ZQ_BRK_JOB_BYTES (8 * 1024)
#endif

/** Consumer side: jobs the application holds at once (its credit).
 *  Unit: jobs.
 *  RAM: one brk_held_t (68 B) per unit per broker (and a task slot per unit in cli/'s runner).
 *  menuconfig: Capacities, "Jobs the application holds at once", 1..255, default 2. */
#ifndef ZQ_BRK_MAX_HELD
#define ZQ_BRK_MAX_HELD 8
#endif

/** Consumer side: bytes keeping, for each ZeroQ job the application holds, the envelope
 *  ZeroQ's nack sends again (retryCount + 1). A job that finds no room is still delivered, but
 *  a nack of it cannot be sent on (counted: zeroq_unsent).
 *  Unit: bytes.
 *  RAM: 1 byte per unit per broker.
 *  menuconfig: Capacities, "Bytes keeping held ZeroQ jobs for ZeroQ's resend on nack", 256..1048576, default 1024. */
#ifndef ZQ_BRK_ZEROQ_KEEP_BYTES
#define ZQ_BRK_ZEROQ_KEEP_BYTES (4 * 1024)
#endif

/** Requests in flight, ours and those we serve; each of ours keeps its text for retries.
 *  Unit: requests.
 *  RAM: one brk_request_t (224 B: a name, the peers tried) and one brk_incoming_t (56 B) per
 *  unit per broker.
 *  menuconfig: Capacities, "Requests in flight", 1..64, default 2. */
#ifndef ZQ_BRK_MAX_REQUESTS
#define ZQ_BRK_MAX_REQUESTS 8
#endif

/** Bytes of the requests in flight, split in ZQ_BRK_MAX_REQUESTS equal slots of at least 256.
 *  Unit: bytes.
 *  RAM: 1 byte per unit per broker.
 *  menuconfig: Capacities, "Bytes of the requests in flight", 256..1048576, default 1024. */
#ifndef ZQ_BRK_REQUEST_BYTES
#define ZQ_BRK_REQUEST_BYTES (8 * 1024)
#endif

/* ---- POSIX port (port/posix) -------------------------------------------------------------- */

/** Drivers per loop (objects the loop feeds and asks for deadlines).
 *  Unit: drivers.
 *  RAM: one zq_loop_driver_t (16 B) per unit per zq_loop_t. */
#ifndef ZQ_LOOP_MAX_DRIVERS
#define ZQ_LOOP_MAX_DRIVERS 4
#endif

/** UDP sockets per loop, over all drivers.
 *  Unit: sockets.
 *  RAM: one zq_loop_socket_t (28 B) per unit per zq_loop_t. */
#ifndef ZQ_LOOP_MAX_SOCKETS
#define ZQ_LOOP_MAX_SOCKETS 8
#endif

/** Extra readable file descriptors per loop (stdin, a signalling TCP connection).
 *  Unit: file descriptors.
 *  RAM: one zq_loop_fd_t (32 B) per unit per zq_loop_t. */
#ifndef ZQ_LOOP_MAX_FDS
#define ZQ_LOOP_MAX_FDS 4
#endif

/** Datagrams read from one socket per wake-up: a flood on one socket cannot starve the timers
 *  and the other sockets. What is left is read on the next turn (poll() reports it at once).
 *  Unit: datagrams.
 *  RAM: none (a count). */
#ifndef ZQ_LOOP_RX_BURST
#define ZQ_LOOP_RX_BURST 64
#endif

/** Longest single poll() wait. Bounds how late the loop notices a zq_loop_stop() that a signal
 *  delivered between its check of the flag and the poll() call.
 *  Unit: milliseconds.
 *  RAM: none (a time). */
#ifndef ZQ_LOOP_MAX_WAIT_MS
#define ZQ_LOOP_MAX_WAIT_MS 1000
#endif

/* ---- Programs (cli/, server/) ------------------------------------------------------------- */

/** Output `zq brk` keeps from each of a command's stdout and stderr.
 *  Unit: bytes.
 *  RAM: 2 bytes per unit per zq_exec_t (the two streams). */
#ifndef ZQ_EXEC_OUTPUT_MAX
#define ZQ_EXEC_OUTPUT_MAX 8192
#endif

/** Connections `zq signal` holds still in HTTP (reading a request, or answering one); beyond it
 *  a new connection is answered 503 and closed.
 *  Unit: connections.
 *  RAM: one http_conn_t (ZQ_HTTP_MAX_REQUEST + 88 bytes: 8,280 B) per unit per server. */
#ifndef ZQ_SIGNAL_MAX_HTTP
#define ZQ_SIGNAL_MAX_HTTP 32
#endif

/** Responses `zq stun`'s server holds until the caller drains them (one input yields at most
 *  one).
 *  Unit: responses.
 *  RAM: one zq_stun_reply_t (ZQ_STUN_MAX_MESSAGE + 48 bytes: 208 B) per unit per server. */
#ifndef ZQ_STUN_SERVER_QUEUE
#define ZQ_STUN_SERVER_QUEUE 4
#endif

/* ---- Features (broker/, stack/ice) ---------------------------------------------------------- */
/* Each switch leaves a feature's code out of the build at 0 (its files' bodies or functions are
 * under #if, and the broker's state for it goes too). What a peer sends that needs a feature
 * left out is refused the way the broker refuses what it cannot take, and counted in
 * brk_stats_t.rx_switched_off; the API of a feature left out returns ZQ_ERR_SWITCHED_OFF.
 * config/zq_minimal_config.h is the smallest useful set: pub/sub and the "status" service. The
 * flash and RAM each switch saves are measured by scripts/footprint (docs/footprint.md). */

/** Work queues (PROTOCOL.md §6): producing (jobs, credit, leases, dead letters: broker/queue.c)
 *  and consuming (ready, done: broker/consume.c). At 0, brk_enqueue(), brk_consume() and
 *  brk_job_done() return ZQ_ERR_SWITCHED_OFF, the hello does not offer "queue", and a peer's
 *  job, ready, done or dlq frame is dropped and counted.
 *  Unit: a switch, 0 or 1.
 *  RAM: at 1, the producer's and consumer's stores (ZQ_BRK_MAX_JOBS, ZQ_BRK_JOB_BYTES,
 *  ZQ_BRK_MAX_HELD, ZQ_BRK_ZEROQ_KEEP_BYTES) per broker and the credits per peer.
 *  menuconfig: Features, "Work queues (produce and consume jobs)", bool, default y. */
#ifndef ZQ_BRK_WORK_QUEUES
#define ZQ_BRK_WORK_QUEUES 1
#endif

/** Requesting (PROTOCOL.md §6): brk_request(), its retries and the replies (broker/rpc_request.c).
 *  At 0, brk_request() returns ZQ_ERR_SWITCHED_OFF and a rep frame is dropped and counted.
 *  Unit: a switch, 0 or 1.
 *  RAM: at 1, ZQ_BRK_MAX_REQUESTS brk_request_t and ZQ_BRK_REQUEST_BYTES per broker.
 *  menuconfig: Features, "Request/reply client (send requests)", bool, default y. */
#ifndef ZQ_BRK_REQUEST_CLIENT
#define ZQ_BRK_REQUEST_CLIENT 1
#endif

/** Serving (PROTOCOL.md §6): brk_serve(), brk_reply() (broker/rpc_serve.c). app/ answers its
 *  "status" requests through it, so the minimal profile keeps it. At 0, brk_serve() returns
 *  ZQ_ERR_SWITCHED_OFF, the sub frame announces no service (so a zq peer asks us nothing), and
 *  a zq request that comes anyway is dropped and counted; the requester's timeout moves it on.
 *  Unit: a switch, 0 or 1.
 *  RAM: at 1, ZQ_BRK_MAX_REQUESTS brk_incoming_t and ZQ_BRK_MAX_SERVICES names per broker.
 *  menuconfig: Features, "Request/reply server (serve requests, app status)", bool, default y. */
#ifndef ZQ_BRK_REQUEST_SERVER
#define ZQ_BRK_REQUEST_SERVER 1
#endif

/** Taking from ZeroQ's own peers, those that never send zq's hello (zeroq-wire.md, PROTOCOL.md
 *  §9): their envelopes deduplicated by (identity, id, retryCount) (broker/dedup.c), ZeroQ-form
 *  requests and replies (payload.replyTo), ZeroQ's broadcast jobs and their resend on nack. At 0
 *  only zq peers (zq nodes, zq.js pages: they say hello) are heard: an envelope from a peer
 *  without a hello is dropped and counted. What we publish still reaches such a peer as plain
 *  envelopes (publish.c), as it reaches a zq.js page whose hello was lost (PROTOCOL.md §2).
 *  Unit: a switch, 0 or 1.
 *  RAM: at 1, the dedup window (24 B per ZQ_BRK_DEDUP_WINDOW) per broker.
 *  menuconfig: Features, "ZeroQ compatibility (peers without zq's hello)", bool, default y. */
#ifndef ZQ_BRK_ZEROQ_COMPAT
#define ZQ_BRK_ZEROQ_COMPAT 1
#endif

/** Chunking (PROTOCOL.md §8): a frame longer than the channel's message size goes in chunk
 *  frames, and a peer's chunks are joined (broker/peer.c; the chunk codec, frame_chunk.c, is
 *  built either way and left out of an image by the linker). At 0 such a frame is refused
 *  (ZQ_ERR_TOO_LONG), the hello does not offer "chunk", and a peer's chunk frame is dropped and
 *  counted.
 *  Unit: a switch, 0 or 1.
 *  RAM: at 1, one chunk being sent (BRK_CHUNK_PIECE + header, ~4 KiB) per broker.
 *  menuconfig: Features, "Chunking (frames larger than one message)", bool, default y. */
#ifndef ZQ_BRK_CHUNKING
#define ZQ_BRK_CHUNKING 1
#endif

/** A full ICE agent (RFC 8445): gathering from a STUN server, connectivity checks, nomination,
 *  consent checks. At 0 the agent is ICE-lite only (RFC 8445 §2.5): it answers the peer's checks
 *  and never sends one, so it connects only to a full peer (a browser), which is controlling;
 *  ice_agent_init() refuses ICE_MODE_FULL with ZQ_ERR_SWITCHED_OFF, and a node is lite
 *  whatever node_config_t.ice_lite says.
 *  Unit: a switch, 0 or 1.
 *  RAM: none beyond the agent's tables, which both modes use.
 *  menuconfig: Features, "Full ICE agent (off: ICE-lite only)", bool, default y. */
#ifndef ZQ_ICE_FULL
#define ZQ_ICE_FULL 1
#endif

/** TURN relaying for a node (RFC 8656): when its signalling server hands out TURN credentials
 *  (zq signal --turn-secret, an ice_servers frame), the node allocates on the room's TURN
 *  server over UDP, one allocation shared by all its peers, and offers its relayed and
 *  server-reflexive addresses as candidates, so a device behind a symmetric NAT still
 *  connects. At 0 the frame is ignored and a node has host (and STUN) candidates only. A
 *  lite node never relays (RFC 8445 §2.5), so this needs ZQ_ICE_FULL.
 *  Unit: a switch, 0 or 1.
 *  RAM: at 1, one TURN allocation (turn_client_t) and a datagram buffer per node.
 *  menuconfig: Features, "TURN relay for peers behind symmetric NATs", bool, default y. */
#ifndef ZQ_NODE_TURN
#define ZQ_NODE_TURN ZQ_ICE_FULL
#endif

/** TURN over TCP and TLS for a node (RFC 8656 §3.1, turn:...?transport=tcp and turns:): the
 *  allocation held over a stream the port opens, for networks that block UDP, or everything
 *  but TLS. Every port carries the stream: POSIX (cli/node_host.c), lwIP and the ESP32
 *  (port/relay/relay_link.c); turns: needs TLS in mbedTLS (the lwIP firmware's wss image; the
 *  ESP32's CONFIG_ZQ_ESP32_WSS). The device configuration leaves it off: no stream buffers
 *  or TLS session in its node. Needs ZQ_NODE_TURN (at 0 it does nothing).
 *  Unit: a switch, 0 or 1.
 *  RAM: at 1, per node the stream's buffers (3 frames of ZQ_UDP_MAX_DATAGRAM + 64) and a TLS
 *  session (tls_session_t, ~8.5 KiB, and mbedTLS's from the arena while it is open).
 *  menuconfig: Features, "TURN over TCP and TLS (turns: needs wss://'s TLS)", bool, default n. */
#ifndef ZQ_NODE_TURN_STREAM
#define ZQ_NODE_TURN_STREAM ZQ_NODE_TURN
#endif

/** How long after a failed TURN allocation a node allocates again with the credential it has
 *  (the server was unreachable, its TCP stream closed, the allocation expired in an outage):
 *  the room's servers are tried again in order. A credential the server refused (401, 403,
 *  441) waits for the next join's instead.
 *  Unit: milliseconds.
 *  RAM: none (a time).
 *  menuconfig: Timeouts, "Allocate again after a failed TURN allocation (ms)", 1000..3600000, default 10000. */
#ifndef ZQ_NODE_TURN_RETRY_MS
#define ZQ_NODE_TURN_RETRY_MS 10000
#endif

/** How long a node's TURN Allocate over UDP goes unanswered before it tries the room's
 *  turn:...?transport=tcp server instead, or its turns: one (a network that blocks UDP). A
 *  browser asks every server at once; a node holds one allocation, so it tries in turn: at
 *  the default RTO of 500 ms four Allocates have gone by 2 s.
 *  Unit: milliseconds.
 *  RAM: none (a time). */
#ifndef ZQ_NODE_TURN_TCP_AFTER_MS
#define ZQ_NODE_TURN_TCP_AFTER_MS 2500
#endif

/* ---- Cross-checks ------------------------------------------------------------------------- */
/* Those that need a layer's types or protocol constants stay beside them: sdp.h (the longest
 * a=candidate line), ws.h (a pong's frame), node.h (zq's own SDP in a signalling frame),
 * peer_sdp.c (an sdp_t in the packet buffer). */

_Static_assert(ZQ_LOG_LEVEL >= 0 && ZQ_LOG_LEVEL <= 4, "ZQ_LOG_LEVEL must be 0..4");
#define ZQ_IS_SWITCH(x) ((x) == 0 || (x) == 1)
_Static_assert(ZQ_IS_SWITCH(ZQ_BRK_WORK_QUEUES), "ZQ_BRK_WORK_QUEUES must be 0 or 1");
_Static_assert(ZQ_IS_SWITCH(ZQ_BRK_REQUEST_CLIENT), "ZQ_BRK_REQUEST_CLIENT must be 0 or 1");
_Static_assert(ZQ_IS_SWITCH(ZQ_BRK_REQUEST_SERVER), "ZQ_BRK_REQUEST_SERVER must be 0 or 1");
_Static_assert(ZQ_IS_SWITCH(ZQ_BRK_ZEROQ_COMPAT), "ZQ_BRK_ZEROQ_COMPAT must be 0 or 1");
_Static_assert(ZQ_IS_SWITCH(ZQ_BRK_CHUNKING), "ZQ_BRK_CHUNKING must be 0 or 1");
_Static_assert(ZQ_IS_SWITCH(ZQ_ICE_FULL), "ZQ_ICE_FULL must be 0 or 1");
_Static_assert(ZQ_IS_SWITCH(ZQ_NODE_TURN), "ZQ_NODE_TURN must be 0 or 1");
_Static_assert(ZQ_IS_SWITCH(ZQ_NODE_TURN_STREAM), "ZQ_NODE_TURN_STREAM must be 0 or 1");
_Static_assert(!ZQ_NODE_TURN || ZQ_ICE_FULL, "ZQ_NODE_TURN needs ZQ_ICE_FULL: a lite agent "
                                             "has host candidates only (RFC 8445 §2.5)");
#undef ZQ_IS_SWITCH
_Static_assert(ZQ_LOG_LINE_MAX >= 32, "ZQ_LOG_LINE_MAX is too small to hold a useful line");
_Static_assert(ZQ_JSON_MAX_DEPTH >= 2 && ZQ_JSON_MAX_DEPTH <= 1024,
               "ZQ_JSON_MAX_DEPTH must be 2..1024 (the signalling frames nest 2 deep)");
_Static_assert(ZQ_UDP_MAX_DATAGRAM >= 576 && ZQ_UDP_MAX_DATAGRAM <= 65507,
               "ZQ_UDP_MAX_DATAGRAM must be between the IPv4 minimum and the UDP maximum");
_Static_assert(ZQ_DTLS_MTU <= ZQ_UDP_MAX_DATAGRAM, "a DTLS datagram must fit a UDP datagram");

/* STUN and ICE */
_Static_assert(ZQ_STUN_MAX_MESSAGE <= ZQ_UDP_MAX_DATAGRAM, "a STUN message must fit a datagram");
_Static_assert(ZQ_STUN_MAX_MESSAGE % 4 == 0, "STUN messages are multiples of 4 bytes");
_Static_assert(ZQ_ICE_UFRAG_MAX >= 4 && ZQ_ICE_PWD_MAX >= 22,
               "RFC 8839 §5.4: a ufrag has at least 4 characters and a password at least 22");
/* The largest request zq builds: header 20, USERNAME "remote:local" padded, PRIORITY 8,
 * ICE-CONTROLLING 12, USE-CANDIDATE 4, MESSAGE-INTEGRITY 24, FINGERPRINT 8. */
_Static_assert(20 + 4 + ((2 * ZQ_ICE_UFRAG_MAX + 1 + 3) / 4) * 4 + 8 + 12 + 4 + 24 + 8 <=
                   ZQ_STUN_MAX_MESSAGE,
               "ZQ_STUN_MAX_MESSAGE cannot hold a connectivity check with the longest ufrags");
_Static_assert(ZQ_ICE_MAX_LOCAL_CANDIDATES >= 1 && ZQ_ICE_MAX_REMOTE_CANDIDATES >= 1,
               "an ICE agent needs room for at least one candidate on each side");
_Static_assert(ZQ_ICE_MAX_PAIRS >= 1 && ZQ_ICE_MAX_PAIRS <= 255, "pairs are indexed by a byte");
_Static_assert(ZQ_ICE_MAX_LOCAL_CANDIDATES <= 255 && ZQ_ICE_MAX_REMOTE_CANDIDATES <= 255,
               "candidates are indexed by a byte");
_Static_assert(ZQ_ICE_MAX_TRANSACTIONS >= 2, "an agent needs a check and a consent transaction");
_Static_assert(ZQ_ICE_TX_QUEUE >= 2, "one input can produce a response and a triggered check");

/* SDP */
_Static_assert(ZQ_SDP_MAX_CANDIDATES >= 1 && ZQ_SDP_MAX_CANDIDATES <= 255,
               "n_candidates is a byte, and a data channel needs at least one candidate");
_Static_assert(ZQ_SDP_MID_MAX >= 1 && ZQ_SDP_MID_MAX <= 255, "a mid is 1..255 characters here");
/* zq must read back every line it writes: the credentials, the mid (the candidate: sdp.h). */
_Static_assert(ZQ_SDP_LINE_MAX >= 12 + ZQ_ICE_PWD_MAX && ZQ_SDP_LINE_MAX >= 12 + ZQ_ICE_UFRAG_MAX,
               "ZQ_SDP_LINE_MAX cannot hold the longest a=ice-pwd or a=ice-ufrag line");
_Static_assert(ZQ_SDP_LINE_MAX >= 15 + ZQ_SDP_MID_MAX, "ZQ_SDP_LINE_MAX cannot hold a=group");

/* SCTP and data channels */
_Static_assert(ZQ_SCTP_MAX_STREAMS >= 16, "data channels need at least 16 streams");
_Static_assert(ZQ_SCTP_TRACKER_TSNS % 32 == 0, "the TSN tracker is a bitmap of 32-bit words");
_Static_assert(ZQ_SCTP_READ_QUEUE >= 2 && ZQ_SCTP_READ_QUEUE <= 65535, "read queue size");
_Static_assert(ZQ_SCTP_EVENT_QUEUE >= ZQ_SCTP_MAX_STREAMS + 4,
               "every stream may report WRITABLE at once, plus the association's own events");
_Static_assert(ZQ_SCTP_MAX_COOKIE >= 128 && ZQ_SCTP_MAX_COOKIE <= 65000, "cookie size");
_Static_assert(ZQ_DC_MAX_CHANNELS <= ZQ_SCTP_MAX_STREAMS,
               "each channel needs a stream slot in the association");
_Static_assert(ZQ_DC_EVENT_QUEUE >= 2 * ZQ_DC_MAX_CHANNELS && ZQ_DC_EVENT_QUEUE <= 255,
               "a channel makes at most two events between drains (datachannel.c: push_event)");

/* Signalling */
_Static_assert(ZQ_SIG_CLUSTER_SERVERS_MAX >= 1 && ZQ_SIG_CLUSTER_SERVERS_MAX <= 255,
               "a cluster's servers are indexed by a byte");
_Static_assert(ZQ_SIG_REMOTE_MAX >= 1, "ZQ_SIG_REMOTE_MAX must hold at least one member");
_Static_assert(ZQ_HTTP_MAX_REQUEST >= 512, "ZQ_HTTP_MAX_REQUEST cannot hold a browser upgrade");
_Static_assert(ZQ_HTTP_MAX_HEADERS >= 8 && ZQ_HTTP_MAX_HEADERS <= 255,
               "ZQ_HTTP_MAX_HEADERS must be 8..255 (an upgrade request has about 8)");
_Static_assert(ZQ_WS_MAX_MESSAGE >= 125, "ZQ_WS_MAX_MESSAGE below a control frame's payload");
_Static_assert((unsigned long long)ZQ_WS_MAX_MESSAGE < (1ULL << 62),
               "lengths are 63-bit (RFC 6455 §5.2)");

/* NATS client */
_Static_assert(ZQ_NATS_LINE_MAX >= 512 && ZQ_NATS_LINE_MAX <= 1048576,
               "ZQ_NATS_LINE_MAX must be 512..1 MiB: nats-server's INFO alone is ~300 bytes");
_Static_assert(ZQ_NATS_PAYLOAD_MAX >= 1, "ZQ_NATS_PAYLOAD_MAX must deliver at least 1 byte");
_Static_assert(ZQ_NATS_OUT_MAX >= 512, "ZQ_NATS_OUT_MAX cannot hold a CONNECT and its PING");
_Static_assert(ZQ_NATS_URLS_MAX >= 1 && ZQ_NATS_URLS_MAX <= 255, "ZQ_NATS_URLS_MAX: 1..255");
_Static_assert(ZQ_NATS_URL_MAX >= 16, "ZQ_NATS_URL_MAX cannot hold \"255.255.255.255:65535\"");

/* MQTT client */
_Static_assert(ZQ_MQTT_PACKET_MAX >= 128 && ZQ_MQTT_PACKET_MAX <= 268435460,
               "ZQ_MQTT_PACKET_MAX must be 128..268435460 (a 4-byte remaining length, §1.5.5)");
/* + 16: the room a packet is written in before its lengths are known (MQTT_WRITE_SLACK). */
_Static_assert(ZQ_MQTT_OUT_MAX >= ZQ_MQTT_PACKET_MAX + 16 && ZQ_MQTT_OUT_MAX <= 0x7FFFFFFF,
               "ZQ_MQTT_OUT_MAX must hold the largest packet, and 16 bytes to write it in");
_Static_assert(ZQ_MQTT_INFLIGHT_BYTES >= ZQ_MQTT_PACKET_MAX + 16 &&
                   ZQ_MQTT_INFLIGHT_BYTES <= 0x7FFFFFFF,
               "ZQ_MQTT_INFLIGHT_BYTES must hold the largest publish, and 16 bytes to write it in");
_Static_assert(ZQ_MQTT_INFLIGHT_MAX >= 1 && ZQ_MQTT_INFLIGHT_MAX <= 65535,
               "ZQ_MQTT_INFLIGHT_MAX: 1..65535 (packet ids are 16-bit)");
_Static_assert(ZQ_MQTT_RX_INFLIGHT_MAX >= 1 && ZQ_MQTT_RX_INFLIGHT_MAX <= 65535,
               "ZQ_MQTT_RX_INFLIGHT_MAX: 1..65535 (a v5 Receive Maximum)");
_Static_assert(ZQ_MQTT_TOPIC_MAX >= 1 && ZQ_MQTT_TOPIC_MAX <= 65535 &&
                   ZQ_MQTT_TOPIC_MAX + 64 <= ZQ_MQTT_PACKET_MAX,
               "ZQ_MQTT_TOPIC_MAX: 1..65535, and a SUBSCRIBE of one such filter must fit a packet");
_Static_assert(ZQ_MQTT_SUBS_MAX >= 1 && ZQ_MQTT_SUBS_MAX <= 255, "ZQ_MQTT_SUBS_MAX: 1..255");
_Static_assert(ZQ_MQTT_REQUESTS_MAX >= 1 && ZQ_MQTT_REQUESTS_MAX <= 255,
               "ZQ_MQTT_REQUESTS_MAX: 1..255");

/* Node and broker */
_Static_assert(ZQ_NODE_WAITLIST >= 1 && ZQ_NODE_WAITLIST <= 255,
               "ZQ_NODE_WAITLIST: 1 to 255 members");
_Static_assert(ZQ_PEER_SEND_BUFFER >= 2048 && ZQ_PEER_RECV_BUFFER >= 2048,
               "SCTP buffers of at least 2 KiB (SCTP_MIN_BUFFER, RFC 9260 section 3.3.2, and a "
               "packet of headroom)");
_Static_assert(ZQ_BRK_FRAME_MAX >= 1024, "frames must hold at least a small envelope");
_Static_assert(ZQ_BRK_FRAME_MAX <= ZQ_PEER_SEND_BUFFER / 2,
               "a frame must fit a peer's send buffer whole, with room to spare");
_Static_assert(ZQ_BRK_MAX_RECEIVERS >= 1 && ZQ_BRK_MAX_RECEIVERS <= 32,
               "receivers are bits of a 32-bit mask");
_Static_assert(ZQ_BRK_RING_BYTES >= 2 * 1024 && ZQ_BRK_RING_BYTES % 4 == 0,
               "the replay ring needs room for a few messages, 4-byte aligned");
_Static_assert(ZQ_BRK_DEDUP_WINDOW >= 16 && (ZQ_BRK_DEDUP_WINDOW & (ZQ_BRK_DEDUP_WINDOW - 1)) == 0,
               "ZQ_BRK_DEDUP_WINDOW must be a power of two, at least 16");
_Static_assert(ZQ_BRK_REQUEST_BYTES / ZQ_BRK_MAX_REQUESTS >= 256,
               "ZQ_BRK_REQUEST_BYTES leaves too little per request");

/* POSIX port */
_Static_assert(ZQ_LOOP_MAX_DRIVERS >= 1 && ZQ_LOOP_MAX_DRIVERS <= 255, "drivers: 1..255");
_Static_assert(ZQ_LOOP_MAX_SOCKETS >= 1 && ZQ_LOOP_MAX_SOCKETS <= 255 && ZQ_LOOP_MAX_FDS >= 1,
               "sockets: 1..255; fds: at least 1");
_Static_assert(ZQ_LOOP_RX_BURST >= 1 && ZQ_LOOP_MAX_WAIT_MS >= 1, "burst and wait must be >= 1");

#endif /* ZQ_CONFIG_H */

/**
 * @file sctp.h
 * @brief An SCTP association (RFC 9260) for data channels: sans-IO, static buffers.
 *
 * Driven by whole SCTP packets (RFC 8261: each DTLS record carries one) and `now`:
 *
 * @code
 * static uint8_t sendbuf[16384], recvbuf[16384];
 * sctp_config_t cfg;
 * sctp_config_default(&cfg);
 * cfg.rand = rand;                          // vtags, initial TSN, cookie key
 * cfg.mtu = dtls_max_payload(&dtls);        // one packet per DTLS record
 * sctp_assoc_init(&assoc, &cfg, sendbuf, sizeof sendbuf, recvbuf, sizeof recvbuf);
 * sctp_connect(&assoc, now);                // both WebRTC peers do (RFC 8841 §10.2)
 * // a packet arrived: sctp_handle_packet(&assoc, now, pkt, len);
 * // its deadline passed: sctp_handle_timeout(&assoc, now);
 * // after any call:
 * while ((n = sctp_poll_transmit(&assoc, now, buf, sizeof buf)) > 0) dtls_write(buf, n);
 * while (sctp_read(&assoc, &msg)) ...;      // messages (or pieces of large ones), in order
 * while (sctp_poll_event(&assoc, &ev)) ...;
 * @endcode
 *
 * Memory: everything lives in the association and the two caller buffers. The send buffer
 * holds each message from sctp_send() until the peer acknowledges it (so a message never
 * exceeds it); the receive buffer holds only what cannot be delivered yet (out of order, or
 * after a gap), and its free space is the window advertised to the peer. Large messages are
 * delivered as they arrive, in order, in pieces (first/last flags), so a device can receive a
 * message far larger than its receive buffer. Nothing is dropped silently: a send that does
 * not fit returns ZQ_ERR_WOULD_BLOCK and SCTP_EVENT_WRITABLE follows when there is room.
 */
#ifndef ZQ_SCTP_H
#define ZQ_SCTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/sctp/packet/sctp_packet.h"
#include "zq/config.h"
#include "zq/err.h"
#include "zq/queue.h"
#include "zq/rand.h"
#include "zq/time.h"

typedef struct {
    zq_rand_t rand;               /**< required */
    uint16_t local_port;          /**< RFC 8841 a=sctp-port: 5000 */
    uint16_t remote_port;         /**< the peer's a=sctp-port: 5000 */
    uint16_t mtu;                 /**< largest SCTP packet (the DTLS record payload): 1160 */
    uint32_t rto_initial_ms;      /**< RFC 9260 §6.3.1 RTO.Initial; zq: 500 (RFC: 1000) */
    uint32_t rto_min_ms;          /**< RTO.Min; zq: 250 (above the peer's delayed SACK) */
    uint32_t rto_max_ms;          /**< RTO.Max; zq: 10000 */
    uint8_t max_init_retransmits; /**< Max.Init.Retransmits: 8 */
    uint8_t max_retransmits;      /**< Association.Max.Retrans: 10 */
    uint32_t sack_delay_ms;       /**< delayed SACK (§6.2): 100 */
    uint32_t heartbeat_ms;        /**< HB.interval (§8.3): 30000; 0 disables */
    uint32_t cookie_lifetime_ms;  /**< Valid.Cookie.Life (§15): 60000 */
    uint8_t initial_cwnd_mtus;    /**< initial cwnd in MTUs: 10, as dcSCTP and RFC 6928 */
} sctp_config_t;

void sctp_config_default(sctp_config_t *cfg);

typedef enum {
    SCTP_STATE_CLOSED,
    SCTP_STATE_COOKIE_WAIT,
    SCTP_STATE_COOKIE_ECHOED,
    SCTP_STATE_ESTABLISHED,
    SCTP_STATE_SHUTDOWN_PENDING,
    SCTP_STATE_SHUTDOWN_SENT,
    SCTP_STATE_SHUTDOWN_RECEIVED,
    SCTP_STATE_SHUTDOWN_ACK_SENT,
} sctp_state_t;

typedef enum {
    SCTP_EVENT_CONNECTED,      /**< association established */
    SCTP_EVENT_RESTARTED,      /**< the peer restarted (§5.2.4.1): streams and SSNs are new */
    SCTP_EVENT_WRITABLE,       /**< a stream's unsent bytes fell to its low-water mark, or a
                                    send that would have blocked now fits */
    SCTP_EVENT_STREAM_RESET_IN, /**< the peer reset its outgoing @c stream (RFC 6525) */
    SCTP_EVENT_STREAM_RESET_DONE, /**< our outgoing reset of @c stream was performed */
    SCTP_EVENT_CLOSED,         /**< graceful shutdown complete (§9.2) */
    SCTP_EVENT_ABORTED,        /**< the peer aborted, or too many retransmissions: @c reason */
} sctp_event_type_t;

typedef enum {
    SCTP_ABORT_NONE,
    SCTP_ABORT_BY_PEER,          /**< ABORT received; @c cause is its first error cause */
    SCTP_ABORT_BY_US,            /**< sctp_abort() */
    SCTP_ABORT_MAX_RETRANSMITS,  /**< the peer stopped answering (§8.1) */
    SCTP_ABORT_INIT_FAILED,      /**< no answer to INIT/COOKIE ECHO (§5.1) */
} sctp_abort_reason_t;

typedef struct {
    sctp_event_type_t type;
    uint16_t stream;             /**< WRITABLE (0xFFFF: association-wide), STREAM_RESET_* */
    sctp_abort_reason_t reason;  /**< ABORTED */
    uint16_t cause;              /**< ABORTED by the peer: its error cause code, 0 if none;
                                      STREAM_RESET_DONE: 0, or the peer's RFC 6525 refusal */
} sctp_event_t;

/** A message, or a piece of one, handed to the application in order. */
typedef struct {
    uint16_t stream;
    uint32_t ppid;
    bool unordered;
    bool first;          /**< starts a message */
    bool last;           /**< ends it (first && last: a whole message) */
    bool aborted;        /**< the sender abandoned the rest of this message (RFC 3758): an
                              empty last piece after pieces already delivered */
    const uint8_t *data; /**< borrowed until the next call on the association */
    size_t len;
} sctp_message_t;

/** Per-message options (RFC 3758 partial reliability; RFC 8831 channel types). */
typedef struct {
    bool unordered;
    uint16_t max_retransmits; /**< abandon after this many retransmissions; 0xFFFF: reliable */
    uint32_t lifetime_ms;     /**< abandon this long after sctp_send(); 0: no limit */
} sctp_send_opts_t;

#define SCTP_RELIABLE 0xFFFFu

/** The smallest send or receive buffer: RFC 9260 §3.3.2 has no receiver advertise a window
 *  (a_rwnd) below 1,500 bytes, and a sender must hold one full packet's chunk. */
#define SCTP_MIN_BUFFER 1500u

/** What was counted: every drop and every protocol oddity. */
typedef struct {
    uint32_t rx_packets;
    uint32_t rx_bad_crc;        /**< checksum mismatch: dropped */
    uint32_t rx_bad_vtag;       /**< wrong verification tag: dropped (§8.5) */
    uint32_t rx_malformed;      /**< unparseable packet or chunk: dropped */
    uint32_t rx_dup_tsns;       /**< duplicate DATA (reported in the next SACK) */
    uint32_t rx_out_of_window;  /**< DATA beyond the window or the tracker: dropped, not acked */
    uint32_t rx_compactions;    /**< receive buffer compacted to reuse space freed in the middle */
    uint32_t rx_no_stream_slot; /**< DATA on a stream beyond ZQ_SCTP_MAX_STREAMS: acked, dropped */
    uint32_t rx_unknown_chunks; /**< handled by their type's action bits (§3.2) */
    uint32_t tx_packets;
    uint32_t tx_data_chunks;
    uint32_t retransmissions;   /**< DATA chunks sent again */
    uint32_t fast_retransmits;
    uint32_t lost_retransmits;  /**< retransmissions found lost in turn (§7.2.4 miss
                                     indications from chunks sent after them), sent again */
    uint32_t t3_expirations;
    uint32_t tail_probes;       /**< probes of a stalled recovery (tx/retransmit.c) */
    uint32_t abandoned;         /**< messages abandoned (partial reliability) */
} sctp_stats_t;

/* ---- Internals the caller allocates (fields are private) ---------------------------------- */

typedef struct {
    uint16_t id;
    uint16_t flags;          /* SCTP_STREAM_* (sctp_internal.h) */
    uint16_t out_ssn;        /* next SSN for an ordered message */
    uint16_t in_ssn;         /* next SSN expected */
    uint16_t skip_ssn;       /* FORWARD TSN: move in_ssn past this once what is here is read */
    uint32_t in_next_tsn;    /* the TSN that continues the message being delivered */
    uint32_t unsent;         /* bytes queued and not yet sent (bufferedAmount) */
    uint32_t low_water;      /* WRITABLE when unsent falls to this */
} sctp_stream_t;

typedef struct {
    uint32_t start; /* ring offset of the first byte */
    uint32_t head;  /* ring offset after the last byte */
    uint32_t used;  /* bytes held, including records freed out of order */
    uint32_t cap;
    uint8_t *mem;
} sctp_ring_t;

/* An INIT ACK to send: what the peer's INIT said and what we answer (RFC 9260 §5.1 B). */
typedef struct {
    uint32_t peer_tag;
    uint32_t peer_tsn;
    uint32_t peer_rwnd;
    uint32_t my_tag;
    uint32_t my_tsn;
    uint32_t tie_tags[2];
    uint8_t peer_flags; /* SCTP_PEER_* (sctp_internal.h) */
    uint8_t unrecognized_len;
    uint8_t unrecognized[ZQ_SCTP_MAX_UNRECOGNIZED];
} sctp_init_ack_t;

typedef struct {
    sctp_config_t cfg;
    sctp_state_t state;
    uint32_t my_vtag;
    uint32_t peer_vtag;
    uint32_t tie_tags[2];  /* the tags of a previous association incarnation (restart) */
    bool peer_forward_tsn;
    bool peer_reconfig;
    uint8_t cookie_key[32];
    /* handshake */
    uint8_t init_sends;
    uint32_t my_initial_tsn;
    uint8_t cookie[ZQ_SCTP_MAX_COOKIE]; /* the peer's cookie, echoed until COOKIE ACK */
    uint16_t cookie_len;
    sctp_init_ack_t init_ack;
    /* send side */
    sctp_ring_t out;
    uint32_t next_tsn;
    uint32_t cum_ack_tsn;       /* highest TSN the peer acknowledged cumulatively */
    uint32_t adv_peer_ack;      /* RFC 3758 Advanced.Peer.Ack.Point */
    uint32_t unsent_off;        /* ring offset of the first record never sent */
    uint32_t flight;            /* bytes outstanding */
    uint32_t peer_rwnd;
    uint32_t cwnd;
    uint32_t ssthresh;
    uint32_t partial_bytes_acked;
    bool fast_recovery;
    bool rtx_bypass;            /* the next retransmission ignores cwnd (§7.2.4 3) */
    uint32_t recovery_exit;
    uint32_t n_rtx;             /* records marked for retransmission */
    uint32_t gap_top;           /* no record above this TSN is acknowledged in a gap block */
    uint8_t probes;             /* probes sent since a SACK last acknowledged anything new,
                                   SCTP_PROBES_OFF after T3-rtx */
    bool rtx_probe;             /* the retransmission going out is a probe */
    uint32_t asked_tsn;         /* the last chunk sent with the I bit: answered at once */
    uint32_t unasked_tsn;       /* the last chunk that did not ask while an ask was owed */
    bool need_fwd_tsn;
    uint32_t fwd_tsn_sent;      /* the new cumulative TSN the last FORWARD TSN carried */
    uint32_t fwd_tsn_after;     /* the next TSN when it went out (RFC 3758 §3.5 F2) */
    bool blocked;               /* a send returned WOULD_BLOCK: WRITABLE when room returns */
    uint32_t part_tail;         /* last record of the message sctp_send_part() has open (held
                                   back until its END flag is known), or SCTP_NO_OFFSET */
    uint16_t part_stream;
    uint32_t part_ppid;
    sctp_send_opts_t part_opts;
    /* RTO (RFC 6298 / RFC 9260 §6.3.1), in ms */
    uint32_t srtt;
    uint32_t rttvar;
    uint32_t rto;
    uint32_t rtt_tsn;           /* the TSN being timed, 0 if none */
    uint64_t rtt_sent_at;
    uint8_t error_count;        /* consecutive unanswered retransmissions (§8.1) */
    /* receive side */
    sctp_ring_t in;
    uint32_t peer_cum_tsn;      /* our cumulative ack of the peer's TSNs */
    uint32_t tracker[ZQ_SCTP_TRACKER_TSNS / 32]; /* TSNs received above peer_cum_tsn */
    uint32_t highest_rx_tsn;
    uint32_t dups[ZQ_SCTP_MAX_DUP_TSNS];
    uint8_t n_dups;
    uint8_t packets_since_sack;
    bool sack_now;
    bool sack_due;
    uint16_t n_waiting;         /* stored chunks not deliverable yet */
    uint32_t read_queue[ZQ_SCTP_READ_QUEUE]; /* ring offsets of deliverable pieces */
    uint16_t rq_head;
    uint16_t rq_count;
    uint32_t last_read;         /* offset of the piece lent by sctp_read(), or UINT32_MAX */
    uint32_t last_rwnd;         /* the window our last SACK advertised */
    uint32_t avg_chunk;         /* running average of received DATA payloads, in bytes */
    uint32_t max_chunk;         /* the largest DATA payload received (sctp_gap_reserve()) */
    /* streams */
    sctp_stream_t streams[ZQ_SCTP_MAX_STREAMS];
    uint8_t n_streams;
    /* stream reset (RFC 6525) */
    uint32_t my_reconf_seq;
    uint32_t peer_reconf_seq;   /* the next request sequence number expected from the peer */
    uint32_t last_reconf_result;
    bool reconf_in_flight;
    uint16_t pending_resets[ZQ_SCTP_MAX_PENDING_RESETS];
    uint8_t n_pending_resets;
    uint16_t inflight_resets[ZQ_SCTP_MAX_PENDING_RESETS];
    uint8_t n_inflight_resets;
    uint32_t inflight_reset_last_tsn;
    uint32_t reconf_response_seq;    /* the response to send: for which request */
    uint32_t reconf_response_result; /* ... and what it says */
    /* timers: absolute deadlines, ZQ_TIME_NEVER when stopped */
    uint64_t t1_at;             /* INIT / COOKIE ECHO */
    uint64_t t2_at;             /* SHUTDOWN / SHUTDOWN ACK */
    uint64_t t3_at;             /* retransmission */
    uint64_t probe_at;          /* a stalled recovery's probe (tx/retransmit.c) */
    uint64_t sack_at;           /* delayed SACK */
    uint64_t heartbeat_at;
    uint64_t reconf_at;
    uint32_t t1_rto;
    uint32_t t2_rto;
    uint32_t reconf_rto;
    uint64_t last_heartbeat_sent;
    uint32_t heartbeat_nonce;
    bool heartbeat_unanswered;
    /* control chunks waiting for the next packet */
    uint16_t ctl;               /* SCTP_CTL_* bits (sctp_internal.h) */
    uint8_t heartbeat_ack[64];  /* Heartbeat Info to echo */
    uint8_t heartbeat_ack_len;
    uint16_t error_cause;       /* a cause to report in an ERROR chunk */
    uint32_t error_info;        /* its 4 bytes of information (e.g. the stream id) */
    uint16_t abort_cause;
    /* events */
    zq_queue_t evq;
    sctp_event_t events[ZQ_SCTP_EVENT_QUEUE];
    sctp_stats_t stats;
    uint64_t now;
} sctp_assoc_t;

/* ---- API --------------------------------------------------------------------------------- */

/**
 * Initialises @p a with the caller's buffers (borrowed for the association's life). The send
 * buffer bounds the bytes in flight plus queued; the receive buffer bounds what arrives out
 * of order (it is the advertised window). Both at least SCTP_MIN_BUFFER.
 */
zq_err_t sctp_assoc_init(sctp_assoc_t *a, const sctp_config_t *cfg, uint8_t *send_buf,
                         size_t send_cap, uint8_t *recv_buf, size_t recv_cap);

/** Starts the association (sends INIT). Both sides may call it: an INIT collision is
 *  resolved as RFC 9260 §5.2.1 says. A side that only waits for the peer's INIT works too. */
zq_err_t sctp_connect(sctp_assoc_t *a, uint64_t now);

zq_err_t sctp_handle_packet(sctp_assoc_t *a, uint64_t now, const uint8_t *packet, size_t len);
void sctp_handle_timeout(sctp_assoc_t *a, uint64_t now);
uint64_t sctp_next_timeout(const sctp_assoc_t *a);

/** Builds the next packet into @p buf (at least cfg.mtu bytes). @return its length, 0 when
 *  there is nothing to send now (window or congestion limit reached, or nothing queued). */
size_t sctp_poll_transmit(sctp_assoc_t *a, uint64_t now, uint8_t *buf, size_t cap);

bool sctp_poll_event(sctp_assoc_t *a, sctp_event_t *ev);
/** Events refused because the event queue was full (zq/queue.h): events not drained. */
uint32_t sctp_events_refused(const sctp_assoc_t *a);

/** The next message or piece, in order per stream. Its bytes stay valid until the next call on
 *  the association. @return false when nothing is deliverable now. */
bool sctp_read(sctp_assoc_t *a, sctp_message_t *msg);

/** The PPID of the piece sctp_read() would return next, without taking it; false when the
 *  read queue is empty. Lets a layer above take its own control messages (DCEP) as they
 *  arrive while leaving the application's for the application. */
bool sctp_next_ppid(const sctp_assoc_t *a, uint32_t *ppid);

/**
 * Queues one message (@p len >= 1; RFC 9260 §6.1 forbids empty DATA, so RFC 8831 sends empty
 * messages as one byte with PPID 56/57 and the caller does that).
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK (no room now, or sctp_send_part() has a message open:
 *         SCTP_EVENT_WRITABLE follows); ZQ_ERR_TOO_LONG
 *         (larger than the send buffer could ever hold); ZQ_ERR_STATE (not established, or the
 *         stream is being reset); ZQ_ERR_CAPACITY (too many streams in use).
 */
zq_err_t sctp_send(sctp_assoc_t *a, uint64_t now, uint16_t stream, uint32_t ppid,
                   const uint8_t *data, size_t len, const sctp_send_opts_t *opts);

/**
 * Queues part of a message: for messages larger than the send buffer, or not all known yet
 * (a relay passing on pieces as they arrive). Call with @p first for the first part and
 * @p last for the last (both for a one-part message). As many whole fragments as fit are
 * queued and go out at once, except the last queued one, held until the next part shows
 * whether it ends the message (so @p last may come with @p len 0).
 *
 * RFC 9260 §6.9: the fragments of a message take consecutive TSNs, so while a message is open
 * nothing else can be queued: sctp_send() and the first part of another message return
 * ZQ_ERR_WOULD_BLOCK, and SCTP_EVENT_WRITABLE follows once it has ended.
 * An open message also holds up a reset of its stream and a graceful shutdown until it ends.
 *
 * @param accepted bytes of @p data queued (may be fewer than @p len: call again with the rest
 *        after SCTP_EVENT_WRITABLE).
 * @return ZQ_OK (check @p accepted); ZQ_ERR_WOULD_BLOCK (nothing fit, or another message is
 *         open); ZQ_ERR_STATE (not established, the stream is being reset, or no message of
 *         @p stream is open for a part that is not @p first); ZQ_ERR_INVALID_ARG (an empty first part);
 *         ZQ_ERR_CAPACITY (too many streams); ZQ_ERR_TIMEOUT (partial reliability abandoned
 *         the open message, RFC 3758: the message is over, the rest is refused).
 */
zq_err_t sctp_send_part(sctp_assoc_t *a, uint64_t now, uint16_t stream, uint32_t ppid,
                        const uint8_t *data, size_t len, bool first, bool last,
                        const sctp_send_opts_t *opts, size_t *accepted);

/**
 * Gives up the message sctp_send_part() has open: its unsent fragments never go out, and if
 * some went out already, FORWARD TSN (RFC 3758 §3.5) tells the peer to drop what it has.
 * @return ZQ_OK; ZQ_ERR_STATE (no message open); ZQ_ERR_UNSUPPORTED (some went out and the
 *         peer does not do RFC 3758: it would wait for the rest forever, so abort).
 */
zq_err_t sctp_send_part_abandon(sctp_assoc_t *a, uint64_t now);

/** The largest contiguous room in the send buffer now, in bytes: a message of n bytes takes n
 *  plus one record header (and padding) per DATA fragment of it. */
uint32_t sctp_out_room(const sctp_assoc_t *a);

/** Whether everything sent so far was acknowledged (or abandoned) and nothing is queued. */
bool sctp_all_acked(const sctp_assoc_t *a);

/** Bytes of @p stream queued but not yet sent (the data channel's bufferedAmount). */
uint32_t sctp_buffered_amount(const sctp_assoc_t *a, uint16_t stream);

/** SCTP_EVENT_WRITABLE(@p stream) when its buffered amount falls to @p bytes or below. */
zq_err_t sctp_set_low_water(sctp_assoc_t *a, uint16_t stream, uint32_t bytes);

/** Resets our outgoing @p stream (RFC 6525 §5.1.2): how a data channel is closed (RFC 8831
 *  §6.7). Queued messages on it are sent first. */
zq_err_t sctp_reset_stream(sctp_assoc_t *a, uint64_t now, uint16_t stream);

/** Graceful shutdown once everything queued is acknowledged (§9.2). */
zq_err_t sctp_shutdown(sctp_assoc_t *a, uint64_t now);

/** Sends ABORT and forgets the association (§9.1). */
void sctp_abort(sctp_assoc_t *a, uint64_t now);

sctp_state_t sctp_state(const sctp_assoc_t *a);
const sctp_stats_t *sctp_stats(const sctp_assoc_t *a);
/** The largest user payload of one DATA chunk at the configured MTU. */
size_t sctp_max_fragment(const sctp_assoc_t *a);

#endif /* ZQ_SCTP_H */

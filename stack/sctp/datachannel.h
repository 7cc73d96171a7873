/**
 * @file datachannel.h
 * @brief WebRTC data channels (RFC 8831) and their establishment protocol, DCEP (RFC 8832),
 *        over one SCTP association.
 *
 * A channel is a pair of SCTP streams with the same id. Either side opens one with a
 * DATA_CHANNEL_OPEN on a stream of its parity (the DTLS client uses even ids, the server odd
 * ones, RFC 8832 §6) and may send data at once; the peer answers DATA_CHANNEL_ACK. A channel
 * closes by resetting its outgoing stream (RFC 8831 §6.7); the peer resets its own in answer.
 *
 * @code
 * dc_init(&dc, &assoc, dtls_role == DTLS_ROLE_CLIENT, 65536, remote_max_message_size);
 * dc_open(&dc, now, "default-topic", "", DC_RELIABLE, 0, &id);
 * dc_send(&dc, now, id, text, len, false);          // PPID 51 (string)
 * while (dc_read(&dc, &msg)) ...;                    // messages, or pieces of large ones
 * while (dc_poll_event(&dc, &ev)) ...;               // opened, closed, buffered-amount low
 * @endcode
 *
 * The layer owns no packets: the association below does the I/O (sctp_poll_transmit etc).
 */
#ifndef ZQ_DATACHANNEL_H
#define ZQ_DATACHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/sctp/sctp.h"
#include "zq/config.h"
#include "zq/queue.h"

/* PPIDs (RFC 8831 §8, RFC 8832 §8). */
enum {
    DC_PPID_DCEP = 50,
    DC_PPID_STRING = 51,
    DC_PPID_BINARY = 53,
    DC_PPID_STRING_EMPTY = 56,
    DC_PPID_BINARY_EMPTY = 57,
};

/* Channel types (RFC 8832 §5.1). */
typedef enum {
    DC_RELIABLE = 0x00,
    DC_RELIABLE_UNORDERED = 0x80,
    DC_PARTIAL_RELIABLE_REXMIT = 0x01,
    DC_PARTIAL_RELIABLE_REXMIT_UNORDERED = 0x81,
    DC_PARTIAL_RELIABLE_TIMED = 0x02,
    DC_PARTIAL_RELIABLE_TIMED_UNORDERED = 0x82,
} dc_type_t;

typedef enum {
    DC_STATE_FREE = 0,
    DC_STATE_CONNECTING, /**< we sent OPEN, no ACK yet (data may already flow) */
    DC_STATE_OPEN,
    DC_STATE_CLOSING,    /**< a stream reset is under way */
} dc_state_t;

typedef struct {
    uint16_t id;            /**< the stream id */
    uint8_t state;          /**< dc_state_t */
    uint8_t type;           /**< dc_type_t */
    uint16_t priority;
    uint8_t closing;        /**< DC_CLOSE_* bits: which directions are reset */
    uint8_t reserved;
    uint32_t reliability;   /**< max retransmissions or lifetime in ms, by type */
    uint32_t rx_message;    /**< bytes of the message being received, for max-message-size */
    char label[ZQ_DC_LABEL_MAX + 1];
    char protocol[ZQ_DC_PROTOCOL_MAX + 1];
} dc_channel_t;

typedef enum {
    DC_EVENT_OPEN,         /**< a channel the peer opened is ready, or ours was acknowledged */
    DC_EVENT_CLOSED,       /**< both directions of the channel are reset: its id is free */
    DC_EVENT_BUFFERED_LOW, /**< the channel's buffered amount fell to its low-water mark */
} dc_event_type_t;

typedef struct {
    dc_event_type_t type;
    uint16_t id;
} dc_event_t;

typedef struct {
    uint16_t id;
    bool binary;
    bool first;          /**< starts a message */
    bool last;           /**< ends it */
    bool aborted;        /**< the sender abandoned the rest (partially reliable channels) */
    const uint8_t *data; /**< borrowed like sctp_message_t's */
    size_t len;          /**< 0 for an empty message (PPID 56/57) */
} dc_message_t;

typedef struct {
    uint32_t rx_unknown_channel; /**< user data on a stream with no channel: dropped */
    uint32_t rx_bad_dcep;        /**< malformed DCEP messages: dropped */
    uint32_t rx_oversize;        /**< messages over our max-message-size: channel closed */
    uint32_t refused_opens;      /**< opens refused (no room, bad label): stream reset */
} dc_stats_t;

typedef struct {
    sctp_assoc_t *assoc;
    bool even_ids;              /**< RFC 8832 §6: the DTLS client uses even stream ids */
    uint32_t local_max_message; /**< what our a=max-message-size promised */
    uint32_t remote_max_message;/**< the peer's a=max-message-size (RFC 8841 §6) */
    uint16_t next_id;
    dc_channel_t channels[ZQ_DC_MAX_CHANNELS];
    zq_queue_t evq;
    dc_event_t events[ZQ_DC_EVENT_QUEUE];
    uint8_t ack_pending[ZQ_DC_MAX_CHANNELS]; /* channel indexes owed a DATA_CHANNEL_ACK */
    uint8_t n_ack_pending;
    uint64_t part_sent;         /* bytes of the message dc_send_part() has open */
    dc_stats_t stats;
} dc_t;

/** Sets up the channel layer over @p assoc (borrowed). @p dtls_client picks even ids. */
void dc_init(dc_t *dc, sctp_assoc_t *assoc, bool dtls_client, uint32_t local_max_message,
             uint32_t remote_max_message);

/**
 * Opens a channel: sends DATA_CHANNEL_OPEN. @p reliability is the max retransmissions or the
 * lifetime in ms for the partially reliable types, ignored otherwise.
 * @return ZQ_OK with @p id; ZQ_ERR_CAPACITY; ZQ_ERR_TOO_LONG (label/protocol); ZQ_ERR_STATE.
 */
zq_err_t dc_open(dc_t *dc, uint64_t now, const char *label, const char *protocol,
                 dc_type_t type, uint32_t reliability, uint16_t *id);

/**
 * Sends one message (RFC 8831 §6.6: PPID 51 for text, 53 for binary, 56/57 when empty).
 * @return ZQ_OK; ZQ_ERR_TOO_LONG (over the peer's max-message-size, RFC 8841 §6.1: an error,
 *         not a drop); ZQ_ERR_WOULD_BLOCK (DC_EVENT_BUFFERED_LOW or the association's
 *         WRITABLE follows); ZQ_ERR_NOT_FOUND; ZQ_ERR_STATE (closing).
 */
zq_err_t dc_send(dc_t *dc, uint64_t now, uint16_t id, const uint8_t *data, size_t len,
                 bool binary);

/**
 * Sends a message in parts, as sctp_send_part() queues them: for a message larger than the
 * send buffer, or passed on piece by piece as it arrives (dc_read's pieces of a large
 * message). @p first starts the message, @p last ends it (both: as dc_send()); @p binary is
 * read on the first part. While one message is open on the association, other sends return
 * ZQ_ERR_WOULD_BLOCK.
 * @param accepted bytes of @p data taken; send the rest after room returns.
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK; ZQ_ERR_TOO_LONG (the message would exceed the peer's
 *         max-message-size, RFC 8841 §6.1: what was sent of it is withdrawn with FORWARD TSN,
 *         RFC 3758); ZQ_ERR_NOT_FOUND; ZQ_ERR_STATE; ZQ_ERR_TIMEOUT (a partially reliable
 *         channel gave the message up).
 */
zq_err_t dc_send_part(dc_t *dc, uint64_t now, uint16_t id, const uint8_t *data, size_t len,
                      bool binary, bool first, bool last, size_t *accepted);

/** Gives up the message dc_send_part() has open: what went out of it is withdrawn
 *  (sctp_send_part_abandon()); if the peer cannot be told, the association is aborted. */
zq_err_t dc_send_part_abandon(dc_t *dc, uint64_t now);

/** Closes a channel (RFC 8831 §6.7); DC_EVENT_CLOSED follows once both directions are reset. */
zq_err_t dc_close(dc_t *dc, uint64_t now, uint16_t id);

/** The next message or piece for the application; false when none. Handles DCEP itself. */
bool dc_read(dc_t *dc, uint64_t now, dc_message_t *msg);

/**
 * Handles the DCEP messages at the front of the association's read queue, so that an OPEN or
 * ACK becomes DC_EVENT_OPEN when it arrives rather than when the application next reads (it
 * may not read a channel it has not heard of). DCEP behind unread application data waits for
 * dc_read(): a channel's OPEN and its first data share a stream (RFC 8832 §6) and keep their
 * order. Call after each input; it may end the loan of the last piece dc_read() returned.
 */
void dc_pump(dc_t *dc, uint64_t now);

/**
 * Feeds one association event through the channel layer (stream resets become channel
 * closes, WRITABLE per stream becomes BUFFERED_LOW). Returns true if the event also matters
 * to the caller as it is (CONNECTED, RESTARTED, CLOSED, ABORTED, association-wide WRITABLE).
 */
bool dc_handle_sctp_event(dc_t *dc, uint64_t now, const sctp_event_t *ev);

bool dc_poll_event(dc_t *dc, dc_event_t *ev);
/** Events refused because the event queue was full (zq/queue.h): events not drained. */
uint32_t dc_events_refused(const dc_t *dc);

/** The channel with stream @p id, or NULL. */
const dc_channel_t *dc_channel(const dc_t *dc, uint16_t id);

/** Bytes queued on the channel and not yet sent (RTCDataChannel.bufferedAmount). */
uint32_t dc_buffered_amount(const dc_t *dc, uint16_t id);

/** DC_EVENT_BUFFERED_LOW when the buffered amount falls to @p bytes or below. */
zq_err_t dc_set_buffered_low(dc_t *dc, uint16_t id, uint32_t bytes);

/* ---- DCEP messages (RFC 8832 §5), shared with tests and fuzzers ---------------------------- */

enum { DCEP_ACK = 0x02, DCEP_OPEN = 0x03 };

typedef struct {
    uint8_t channel_type;
    uint16_t priority;
    uint32_t reliability;
    const uint8_t *label;
    uint16_t label_len;
    const uint8_t *protocol;
    uint16_t protocol_len;
} dcep_open_t;

/** @return ZQ_OK, ZQ_ERR_MALFORMED (short, lying lengths, unknown channel type). */
zq_err_t dcep_open_parse(const uint8_t *data, size_t len, dcep_open_t *out);
/** @return the message's length, or 0 if @p cap is too small. */
size_t dcep_open_write(const dcep_open_t *open, uint8_t *buf, size_t cap);

#endif /* ZQ_DATACHANNEL_H */

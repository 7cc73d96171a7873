/**
 * @file turn.h
 * @brief TURN (RFC 8656) over UDP or TCP: a client allocation, sans-IO, static and bounded.
 *
 * A device behind a symmetric NAT, or two of them, cannot reach a peer directly; a TURN server
 * relays for it. The client asks for an allocation (a relayed transport address on the server)
 * with long-term credentials (RFC 8489 §9.2), keeps it with Refresh, opens it to each peer with
 * CreatePermission, binds a channel per peer for the 4-byte ChannelData framing (RFC 8656 §12),
 * and sends through Send indications until the channel is bound. What peers send to the
 * relayed address comes back as Data indications or ChannelData.
 *
 * Sans-IO: turn_client_handle() takes the server's datagrams, turn_client_poll_output() gives
 * the next datagram for the server, turn_client_poll_event() the events, and
 * turn_client_timeout() the retransmissions and refreshes, all at the caller's `now`.
 *
 *     Allocate ──401 (realm, nonce)──▶ Allocate + MESSAGE-INTEGRITY ──▶ ALLOCATED
 *        at half the lifetime: Refresh;  438 (stale nonce): the same again, new nonce
 *     per peer IP: CreatePermission (every 150 s);  per peer: ChannelBind (every 300 s)
 *     turn_client_free(): Refresh with LIFETIME 0 (deallocation, RFC 8656 §7)
 */
#ifndef ZQ_TURN_H
#define ZQ_TURN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/ice/stun.h"
#include "zq/addr.h"
#include "zq/config.h"
#include "zq/err.h"
#include "zq/rand.h"

/* Methods in their classes (RFC 8656 §17; class bits as RFC 8489 §5). */
enum {
    TURN_ALLOCATE_REQUEST = 0x0003,
    TURN_ALLOCATE_SUCCESS = 0x0103,
    TURN_ALLOCATE_ERROR = 0x0113,
    TURN_REFRESH_REQUEST = 0x0004,
    TURN_REFRESH_SUCCESS = 0x0104,
    TURN_REFRESH_ERROR = 0x0114,
    TURN_SEND_INDICATION = 0x0016,
    TURN_DATA_INDICATION = 0x0017,
    TURN_CREATE_PERMISSION_REQUEST = 0x0008,
    TURN_CREATE_PERMISSION_SUCCESS = 0x0108,
    TURN_CREATE_PERMISSION_ERROR = 0x0118,
    TURN_CHANNEL_BIND_REQUEST = 0x0009,
    TURN_CHANNEL_BIND_SUCCESS = 0x0109,
    TURN_CHANNEL_BIND_ERROR = 0x0119,
};

/* Attributes (RFC 8656 §18). */
enum {
    TURN_ATTR_CHANNEL_NUMBER = 0x000C,
    TURN_ATTR_LIFETIME = 0x000D,
    TURN_ATTR_XOR_PEER_ADDRESS = 0x0012,
    TURN_ATTR_DATA = 0x0013,
    TURN_ATTR_XOR_RELAYED_ADDRESS = 0x0016,
    TURN_ATTR_REQUESTED_ADDRESS_FAMILY = 0x0017,
    TURN_ATTR_EVEN_PORT = 0x0018,
    TURN_ATTR_REQUESTED_TRANSPORT = 0x0019,
    TURN_ATTR_DONT_FRAGMENT = 0x001A,
    TURN_ATTR_RESERVATION_TOKEN = 0x0022,
};

/* Errors a client acts on (RFC 8656 §19, RFC 8489 §14.8). */
enum {
    TURN_ERROR_UNAUTHORIZED = 401,
    TURN_ERROR_FORBIDDEN = 403,
    TURN_ERROR_ALLOCATION_MISMATCH = 437,
    TURN_ERROR_STALE_NONCE = 438,
    TURN_ERROR_WRONG_CREDENTIALS = 441,
    TURN_ERROR_UNSUPPORTED_TRANSPORT = 442,
    TURN_ERROR_QUOTA_REACHED = 486,
    TURN_ERROR_INSUFFICIENT_CAPACITY = 508,
};

#define TURN_CHANNEL_MIN 0x4000 /* RFC 8656 §12: channel numbers 0x4000 through 0x4FFF */
#define TURN_CHANNEL_MAX 0x4FFF
#define TURN_CHANNEL_HEADER 4
#define TURN_PROTOCOL_UDP 17 /* REQUESTED-TRANSPORT (RFC 8656 §18.7) */
#define TURN_PROTOCOL_TCP 6
#define TURN_CREDENTIAL_MAX 128 /* username, realm, nonce and password, each */

/* ---- Attributes ------------------------------------------------------------------------- */

/** Which TURN attributes a message carried: bits of turn_attrs_t.present. */
enum {
    TURN_HAS_CHANNEL_NUMBER = 1u << 0,
    TURN_HAS_LIFETIME = 1u << 1,
    TURN_HAS_XOR_PEER_ADDRESS = 1u << 2,
    TURN_HAS_DATA = 1u << 3,
    TURN_HAS_XOR_RELAYED_ADDRESS = 1u << 4,
};

/** TURN's attributes of a parsed STUN message. DATA borrows the message. */
typedef struct {
    uint32_t present;   /**< TURN_HAS_* */
    uint16_t channel;   /**< CHANNEL-NUMBER */
    uint32_t lifetime_s; /**< LIFETIME, seconds */
    zq_addr_t peer;     /**< the first XOR-PEER-ADDRESS */
    zq_addr_t relayed;  /**< the first XOR-RELAYED-ADDRESS */
    const uint8_t *data; /**< DATA */
    uint16_t data_len;
    /** Comprehension-required attributes neither STUN's parser nor this one knows. */
    uint8_t unknown_required;
} turn_attrs_t;

/**
 * Reads TURN's attributes from @p msg (already through stun_parse()): each within its
 * attribute's bounds and of its defined size (RFC 8656 §18).
 * @return ZQ_OK; ZQ_ERR_MALFORMED (a TURN attribute of the wrong size, a channel number out of
 *         range, an address of no family).
 */
zq_err_t turn_parse_attrs(const stun_msg_t *msg, turn_attrs_t *out);

/* ---- ChannelData (RFC 8656 §12.4) ------------------------------------------------------- */

/** True if the datagram's first two bits say ChannelData (0b01), not STUN (0b00), RFC 7983. */
bool turn_is_channel_data(const uint8_t *buf, size_t len);

/**
 * Parses one ChannelData message: channel 0x4000-0x4FFF, its length within the datagram
 * (padding to 4 bytes may follow over UDP, §12.5). @p data borrows @p buf.
 * @return ZQ_OK; ZQ_ERR_TRUNCATED; ZQ_ERR_MALFORMED (not a channel number).
 */
zq_err_t turn_channel_data_parse(const uint8_t *buf, size_t len, uint16_t *channel,
                                 const uint8_t **data, size_t *data_len);

/** Writes ChannelData for @p channel with @p len bytes, padded to 4 (§12.5).
 *  @return its length, or 0 if it does not fit @p cap. */
size_t turn_channel_data_write(uint8_t *out, size_t cap, uint16_t channel, const uint8_t *data,
                               size_t len);

/* ---- Over a stream (RFC 8656 §3.1) ------------------------------------------------------ */

/** What a client reassembles from a TCP stream: the largest frame it takes is ChannelData or a
 *  Data indication carrying one of the node's datagrams (a Data indication's header, peer
 *  address, DATA header and FINGERPRINT take 48 bytes; 64 leaves room). */
#define TURN_STREAM_FRAME_MAX (ZQ_UDP_MAX_DATAGRAM + 64)

typedef struct {
    uint8_t buf[TURN_STREAM_FRAME_MAX];
    size_t len;
} turn_stream_t;

/**
 * The length of the frame at the head of a stream's bytes, padding included: a STUN message
 * (RFC 8489 §5: 20 bytes and its length) or ChannelData (4 bytes and its length padded to 4,
 * RFC 8656 §12.5, which makes the padding mandatory over TCP).
 * @return ZQ_OK; ZQ_ERR_TRUNCATED (fewer than 4 bytes); ZQ_ERR_MALFORMED (neither: the first
 *         bits, a reserved channel, a STUN length not a multiple of 4 or no magic cookie), after
 *         which the stream cannot be followed.
 */
zq_err_t turn_stream_frame_len(const uint8_t *buf, size_t len, size_t *frame_len);

/** Appends what fits of @p len bytes; @return how many were taken. */
size_t turn_stream_feed(turn_stream_t *s, const uint8_t *data, size_t len);

/**
 * The whole frame at the head, borrowed until turn_stream_pop().
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK (feed more); ZQ_ERR_MALFORMED or ZQ_ERR_TOO_LONG (longer
 *         than TURN_STREAM_FRAME_MAX): the stream is lost, the caller closes it.
 */
zq_err_t turn_stream_next(turn_stream_t *s, const uint8_t **frame, size_t *len);

/** Drops the @p len bytes of the frame turn_stream_next() gave. */
void turn_stream_pop(turn_stream_t *s, size_t len);
void turn_stream_reset(turn_stream_t *s);

/* ---- Server URIs (RFC 7064, RFC 7065) --------------------------------------------------- */

typedef enum { TURN_URL_STUN, TURN_URL_TURN, TURN_URL_TURNS } turn_url_scheme_t;

typedef struct {
    turn_url_scheme_t scheme;
    zq_addr_t server;  /**< the port defaults to 3478 (stun, turn) or 5349 (turns) */
    uint8_t transport; /**< TURN_PROTOCOL_UDP or _TCP: ?transport=, else udp (turns: tcp) */
} turn_url_t;

/**
 * Parses "stun:host[:port]", "turn:host[:port][?transport=udp|tcp]" or "turns:...". The host
 * must be an IP literal, an IPv6 one in brackets; @p out is written only on ZQ_OK.
 * @return ZQ_OK; ZQ_ERR_UNSUPPORTED for another scheme, a host name (this layer resolves
 *         nothing) or another transport; ZQ_ERR_MALFORMED; ZQ_ERR_INVALID_ARG.
 */
zq_err_t turn_url_parse(const char *url, size_t len, turn_url_t *out);

/* ---- The client ------------------------------------------------------------------------- */

typedef enum {
    TURN_IDLE = 0,
    TURN_ALLOCATING,
    TURN_ALLOCATED,
    TURN_RELEASING,
    TURN_FAILED,
} turn_state_t;

typedef enum {
    TURN_EVENT_ALLOCATED = 1, /**< relayed and mapped are set */
    TURN_EVENT_FAILED,        /**< code: the STUN error or 0 (timeout); the allocation is gone */
    TURN_EVENT_PERMISSION,    /**< peer: CreatePermission succeeded */
    TURN_EVENT_CHANNEL,       /**< peer, channel: ChannelBind succeeded; sends use it now */
    TURN_EVENT_DATA,          /**< peer, data: what a peer sent to the relayed address */
    TURN_EVENT_REFUSED,       /**< peer, code: a permission or channel the server refused */
} turn_event_type_t;

typedef struct {
    turn_event_type_t type;
    uint16_t code;
    uint16_t channel;
    zq_addr_t peer;
    const uint8_t *data; /**< TURN_EVENT_DATA: borrows the datagram given to handle() */
    size_t data_len;
} turn_event_t;

typedef struct {
    zq_addr_t server;
    char username[TURN_CREDENTIAL_MAX + 1];
    char password[TURN_CREDENTIAL_MAX + 1];
    zq_rand_t rand;             /**< transaction ids */
    uint32_t rto_ms;            /**< first retransmission interval (RFC 8489 §6.2.1) */
    /** Over TCP: each request is sent once and fails after Ti = 39.5 s unanswered (RFC 8489
     *  §6.2.2); TCP retransmits. */
    bool reliable;
} turn_config_t;

/* A pending request: what to send again, and when. */
typedef struct {
    bool active;
    uint16_t type;
    uint8_t tid[STUN_TID_LEN];
    zq_addr_t peer;  /* CreatePermission and ChannelBind */
    uint16_t channel;
    bool due;          /* to be sent at the next poll_output() */
    uint8_t sends;     /* sent so far */
    uint32_t rto;
    uint64_t next_ms;  /* when it is sent again, or fails */
    bool retried_auth; /* a 401 or 438 answered once already */
    bool release;      /* a Refresh with LIFETIME 0 */
} turn_txn_t;

typedef struct {
    bool used;
    zq_addr_t ip;        /* port ignored: permissions are per IP (RFC 8656 §9) */
    uint64_t refresh_ms; /* next CreatePermission */
    uint64_t expires_ms; /* when the server drops it unless refreshed (RFC 8656 §9: 300 s) */
    bool installed;
    bool in_use;         /* data went either way since the last refresh: refresh it */
} turn_permission_t;

typedef struct {
    bool used;
    zq_addr_t peer;
    uint16_t number;
    uint64_t refresh_ms;
    uint64_t expires_ms; /* when the server unbinds it unless refreshed (§12: 600 s) */
    bool bound;
    bool in_use;         /* as turn_permission_t's */
} turn_channel_t;

/** One allocation. Caller-allocated; 2,712 B with the default capacities (x86-64). */
typedef struct {
    turn_config_t cfg;
    turn_state_t state;
    char realm[TURN_CREDENTIAL_MAX + 1];
    char nonce[TURN_CREDENTIAL_MAX + 1];
    uint8_t key[16];       /* MD5(username ":" realm ":" password), RFC 8489 §9.2.2 */
    bool has_key;
    zq_addr_t relayed;
    zq_addr_t mapped;
    uint32_t lifetime_s;
    uint64_t refresh_ms;   /* next Refresh */
    uint64_t expires_ms;   /* when the server forgets the allocation unless refreshed */
    turn_txn_t txns[ZQ_TURN_MAX_TXNS];
    turn_permission_t perms[ZQ_TURN_MAX_PERMISSIONS];
    turn_channel_t channels[ZQ_TURN_MAX_CHANNELS];
    uint8_t out[ZQ_TURN_DATAGRAM_MAX]; /* the datagram poll_output() hands out */
    uint16_t next_channel; /* the next channel number to bind */
    turn_event_t events[ZQ_TURN_EVENT_QUEUE];
    uint8_t ev_head, ev_count;
    uint32_t dropped;      /* datagrams from the server that were not TURN, or unanswered */
    uint32_t refreshes;    /* Refresh requests answered with success */
    uint32_t refresh_retries; /* unanswered Refreshes tried again while the lifetime lasted */
    uint32_t new_nonces;   /* requests sent again after a 438 (stale nonce) */
} turn_client_t;

/** Starts an allocation on @p cfg's server at @p now: the first Allocate waits in the output.
 *  @return ZQ_OK; ZQ_ERR_TOO_LONG for a credential longer than TURN_CREDENTIAL_MAX. */
zq_err_t turn_client_start(turn_client_t *t, const turn_config_t *cfg, uint64_t now);

/** A datagram from the server. Not for this client (not TURN, no matching transaction, bad
 *  integrity): counted in dropped, no event. */
void turn_client_handle(turn_client_t *t, uint64_t now, const uint8_t *buf, size_t len);

/** Retransmissions, refreshes and timeouts due at @p now. @return the next deadline. */
uint64_t turn_client_timeout(turn_client_t *t, uint64_t now);

/** The next datagram for the server, if any (valid until the next call on @p t); @p now
 *  starts its retransmission clock. */
bool turn_client_poll_output(turn_client_t *t, uint64_t now, const uint8_t **out, size_t *len);

bool turn_client_poll_event(turn_client_t *t, turn_event_t *ev);

/** Opens the allocation to @p peer's IP (CreatePermission); asking again for one requested or
 *  installed does nothing. It is refreshed every 150 s while data goes to or comes from the
 *  IP (turn_client_wrap(), Data), and dropped at a refresh when none did; a refused one is
 *  dropped at once. @return ZQ_OK; ZQ_ERR_STATE (not allocated); ZQ_ERR_CAPACITY (ZQ_TURN_MAX_PERMISSIONS). */
zq_err_t turn_client_permit(turn_client_t *t, uint64_t now, const zq_addr_t *peer);

/** Binds a channel to @p peer (its permission comes with it, §12.2); sends to it then go as
 *  ChannelData. Kept, dropped and asked again as permissions are. @return ZQ_OK; ZQ_ERR_STATE; ZQ_ERR_CAPACITY (ZQ_TURN_MAX_CHANNELS). */
zq_err_t turn_client_bind(turn_client_t *t, uint64_t now, const zq_addr_t *peer);

/**
 * Wraps @p len bytes for @p peer: ChannelData when its channel is bound, else a Send
 * indication (the peer needs a permission either way). Written to @p out.
 * @return its length; 0 when it does not fit @p cap or the client is not allocated.
 */
size_t turn_client_wrap(turn_client_t *t, const zq_addr_t *peer, const uint8_t *data,
                        size_t len, uint8_t *out, size_t cap);

/** Ends the allocation: a Refresh with LIFETIME 0 waits in the output (RFC 8656 §7); once it
 *  is answered, or its retransmissions run out, the client is idle. */
void turn_client_release(turn_client_t *t, uint64_t now);

#endif /* ZQ_TURN_H */

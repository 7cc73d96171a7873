/**
 * @file ws.h
 * @brief WebSocket (RFC 6455), sans-IO: the opening handshake and a connection that turns TCP
 *        bytes into messages and messages into TCP bytes, for both client and server.
 *
 * Frames (§5.2):
 *
 *      0                   1                   2                   3
 *      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *     +-+-+-+-+-------+-+-------------+-------------------------------+
 *     |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
 *     |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
 *     |N|V|V|V|       |S|             |   (if payload len==126/127)   |
 *     | |1|2|3|       |K|             |                               |
 *     +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
 *     |     Extended payload length continued, if payload len == 127  |
 *     + - - - - - - - - - - - - - - - +-------------------------------+
 *     |                               |Masking-key, if MASK set to 1  |
 *     +-------------------------------+-------------------------------+
 *     | Masking-key (continued)       |          Payload Data         |
 *     +-------------------------------- - - - - - - - - - - - - - - - +
 *
 * Input design: the connection consumes TCP bytes as they come, in pieces of any size. It
 * keeps only a frame header (at most 14 bytes) and unmasks payload straight into its message
 * buffer (ZQ_WS_MAX_MESSAGE) or, for control frames, a 125-byte buffer; nothing else is
 * buffered, and the caller keeps no input buffer. ws_feed() stops early, and reports how much
 * it took, only when it has an event for the caller (a whole message, a pong, the close):
 * the caller polls the event, then feeds the rest.
 *
 * @code
 * ws_conn_init(&ws, WS_ROLE_CLIENT, &rand);
 * // after ws_client_check_response(): feed what followed the handshake, then every read
 * while (len > 0) {
 *     size_t used;
 *     if (ws_feed(&ws, data, len, &used) != ZQ_OK) break;    // ZQ_ERR_CLOSED: stop reading
 *     data += used; len -= used;
 *     ws_event_t ev;
 *     while (ws_poll_event(&ws, &ev)) handle(&ev);          // may call ws_send_text()
 * }
 * const uint8_t *out; size_t n;
 * while (ws_pending_output(&ws, &out, &n)) ws_output_consumed(&ws, tcp_write(out, n));
 * if (ws_state(&ws) == WS_STATE_CLOSED && !ws_pending_output(&ws, &out, &n)) tcp_close();
 * @endcode
 *
 * Rules enforced on input, each failing the connection with its close code (§7.1.7, §7.4.1):
 * 1002 for nonzero RSV bits (no extension is ever negotiated), unknown opcodes, a fragmented or
 * over-125-byte control frame, a continuation with no message begun or a new message inside a
 * fragmented one, a 64-bit length with its top bit set, a frame from a client that is not
 * masked or one from a server that is (§5.1), a close frame of 1 byte or with a code that may
 * not be sent (§7.4.2); 1007 for a text message or close reason that is not UTF-8 (§8.1,
 * checked as bytes arrive, so a bad byte fails at once); 1009 for a message longer than
 * ZQ_WS_MAX_MESSAGE (checked from the frame header, before its payload arrives).
 * Non-minimal length encodings are accepted (§5.2 binds the sender, and the length is exact).
 *
 * Closing (§5.5.1, §7): a close from the peer is answered with the same code, then the state is
 * WS_STATE_CLOSED and WS_EVENT_CLOSED reports it; after ws_close() the state is
 * WS_STATE_CLOSING until the peer's close arrives. The caller writes out the pending output and
 * then closes TCP (a server first, §7.1.1); a deadline for a peer that never answers a close is
 * the caller's, as is calling ws_transport_closed() when TCP ends. Pings are answered by
 * themselves: the most recent ping's pong is sent as soon as the output has room (§5.5.3).
 *
 * Lifetimes: event data points into the connection and stays valid until the next ws_feed(),
 * ws_transport_closed() or ws_conn_init(); sending does not disturb it, so a handler may reply
 * at once. The output pointer stays valid until the next call that sends or consumes output.
 */
#ifndef ZQ_WS_H
#define ZQ_WS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "signal/http.h"
#include "zq/config.h"
#include "zq/err.h"
#include "zq/rand.h"
#include "zq/utf8.h"

#define WS_MAX_HEADER 14          /* 2 + 8 (64-bit length) + 4 (masking key), §5.2 */
#define WS_MAX_CONTROL_PAYLOAD 125 /* §5.5 */
#define WS_KEY_LEN 24              /* base64 of 16 bytes, §4.1 */
#define WS_ACCEPT_LEN 28           /* base64 of a SHA-1, §4.2.2 */

_Static_assert(ZQ_WS_TX_BUFFER >= 2 + 4 + WS_MAX_CONTROL_PAYLOAD,
               "ZQ_WS_TX_BUFFER must hold at least a masked pong with the largest payload");

/** Opcodes (§5.2, §11.8). */
enum {
    WS_OP_CONTINUATION = 0x0,
    WS_OP_TEXT = 0x1,
    WS_OP_BINARY = 0x2,
    WS_OP_CLOSE = 0x8,
    WS_OP_PING = 0x9,
    WS_OP_PONG = 0xA,
};

/** Close status codes (§7.4.1). 1005 and 1006 are only ever reported, never sent. */
enum {
    WS_CLOSE_NORMAL = 1000,
    WS_CLOSE_GOING_AWAY = 1001,
    WS_CLOSE_PROTOCOL_ERROR = 1002,
    WS_CLOSE_UNSUPPORTED_DATA = 1003,
    WS_CLOSE_NO_STATUS = 1005,
    WS_CLOSE_ABNORMAL = 1006,
    WS_CLOSE_INVALID_DATA = 1007,
    WS_CLOSE_POLICY = 1008,
    WS_CLOSE_TOO_BIG = 1009,
    WS_CLOSE_INTERNAL_ERROR = 1011,
};

typedef enum { WS_ROLE_CLIENT, WS_ROLE_SERVER } ws_role_t;

typedef enum {
    WS_STATE_OPEN,
    WS_STATE_CLOSING, /**< we sent a close and wait for the peer's */
    WS_STATE_CLOSED   /**< the close handshake is over, or the connection failed */
} ws_state_t;

typedef enum {
    WS_EVENT_MESSAGE, /**< a whole text or binary message */
    WS_EVENT_PONG,    /**< a pong, e.g. the answer to ws_send_ping() (payload in data) */
    WS_EVENT_CLOSED   /**< the connection is closed: code, reason, remote */
} ws_event_type_t;

typedef struct {
    ws_event_type_t type;
    bool text;           /**< MESSAGE: a text message (valid UTF-8) rather than binary */
    const uint8_t *data; /**< MESSAGE/PONG payload, CLOSED reason (UTF-8); see lifetimes */
    size_t len;
    uint16_t code; /**< CLOSED: the peer's code (1005 if it sent none), ours when we failed the
                        connection, or 1006 when TCP ended without a close */
    bool remote;   /**< CLOSED: the peer sent a close frame */
} ws_event_t;

/** One WebSocket connection. Caller-allocated, plain data, large (the two buffers). */
typedef struct {
    ws_role_t role;
    ws_state_t state;
    zq_rand_t rand; /* client masking keys (§5.3) */

    /* The frame being received (§5.2). */
    uint8_t hdr[WS_MAX_HEADER];
    uint8_t hdr_len, hdr_need;
    bool in_payload;
    bool fin;
    uint8_t opcode;
    uint8_t mask[4];
    bool masked;
    uint64_t frame_len, frame_done;

    /* The message being reassembled (§5.4). */
    bool in_message;
    bool msg_text;
    size_t msg_len;
    zq_utf8_t utf8;
    uint8_t ctrl[WS_MAX_CONTROL_PAYLOAD];

    /* Events for the caller. */
    bool has_event;
    ws_event_t event;
    bool has_closed_event;
    ws_event_t closed_event;

    /* Control answers waiting for output room (§5.5.3, §5.5.1). */
    bool pong_waiting;
    uint8_t pong_len;
    uint8_t pong[WS_MAX_CONTROL_PAYLOAD];
    bool close_waiting, close_sent;
    uint16_t close_code; /* 0: a close without a code */
    uint8_t close_reason_len;
    uint8_t close_reason[WS_MAX_CONTROL_PAYLOAD - 2];

    size_t tx_head, tx_tail;
    uint8_t tx[ZQ_WS_TX_BUFFER];
    uint8_t msg[ZQ_WS_MAX_MESSAGE];
} ws_conn_t;

/* ---- Opening handshake (§4) --------------------------------------------------------------- */

typedef struct {
    const char *host;         /**< Host field, e.g. "signal.local:8080" (required) */
    const char *path;         /**< request-target, e.g. "/ws?room=lab" (required, starts "/") */
    const char *origin;       /**< Origin field, or NULL */
    const char *extra_header; /**< one more field line without CRLF, e.g.
                                   "Authorization: Bearer abc", or NULL */
    uint8_t nonce[16];        /**< fresh random bytes: Sec-WebSocket-Key is their base64 */
} ws_client_handshake_t;

/**
 * Writes the client's opening handshake (§4.1) into @p w.
 * @return ZQ_ERR_INVALID_ARG for a missing host or path, or any field with CR, LF or other
 *         control characters (or an extra_header that is not a field line); ZQ_ERR_NO_SPACE.
 */
zq_err_t ws_client_request(zq_writer_t *w, const ws_client_handshake_t *hs);

/**
 * Checks the server's answer (§4.1, client steps 1-6): "101", "Upgrade: websocket",
 * "Connection: upgrade", the Sec-WebSocket-Accept for @p nonce, and no extension or
 * subprotocol (none was offered).
 * @param consumed the length of the response head; any bytes after it are already frames for
 *        ws_feed().
 * @param status the response's status code, if one was parsed (for logging); may be NULL.
 * @return ZQ_ERR_NEED_MORE, ZQ_ERR_TOO_LONG, ZQ_ERR_MALFORMED (not HTTP), ZQ_ERR_UNSUPPORTED
 *         (not 101 or not an upgrade to websocket, or an extension/subprotocol), or
 *         ZQ_ERR_INTEGRITY (wrong Sec-WebSocket-Accept).
 */
zq_err_t ws_client_check_response(const char *buf, size_t len, const uint8_t nonce[16],
                                  size_t *consumed, int *status);

/** Sec-WebSocket-Accept for a client's @p key (§4.2.2 step 5.4): base64(SHA-1(key + GUID)),
 *  NUL-terminated. */
void ws_accept_key(const char *key, size_t key_len, char out[WS_ACCEPT_LEN + 1]);

/**
 * Writes the server's 101 answer to @p req (which must satisfy http_is_websocket_upgrade(),
 * else ZQ_ERR_INVALID_ARG), with @p extra_headers (NULL or CRLF-terminated field lines).
 */
zq_err_t ws_server_response(zq_writer_t *w, const http_request_t *req, const char *extra_headers);

/* ---- Connection --------------------------------------------------------------------------- */

/** Starts a connection in WS_STATE_OPEN, right after the handshake. @p rand is required for a
 *  client (it masks every frame, §5.3) and may be NULL for a server; it is copied, and its
 *  context must outlive the connection. */
void ws_conn_init(ws_conn_t *c, ws_role_t role, const zq_rand_t *rand);

ws_state_t ws_state(const ws_conn_t *c);

/**
 * Consumes TCP bytes. Sets @p consumed to how many it took: all of @p len, or fewer when it
 * stopped at an event (poll it, then feed the rest).
 * @return ZQ_OK (also when the bytes made the connection fail: a CLOSED event says so), or
 *         ZQ_ERR_CLOSED once the state is WS_STATE_CLOSED (nothing is consumed).
 */
zq_err_t ws_feed(ws_conn_t *c, const uint8_t *data, size_t len, size_t *consumed);

/** Takes the next event; false if there is none. */
bool ws_poll_event(ws_conn_t *c, ws_event_t *ev);

/** Tells the connection that TCP ended; unless the close handshake was complete, a CLOSED
 *  event with code 1006 follows (§7.1.5). */
void ws_transport_closed(ws_conn_t *c);

/**
 * Queue one unfragmented message. Text must be valid UTF-8 (§5.6).
 * @return ZQ_ERR_WOULD_BLOCK if the output has no room now (write it out, retry);
 *         ZQ_ERR_TOO_LONG if the frame could never fit ZQ_WS_TX_BUFFER; ZQ_ERR_INVALID_ARG for
 *         text that is not UTF-8; ZQ_ERR_STATE after ws_close(), ZQ_ERR_CLOSED once closed;
 *         ZQ_ERR_CRYPTO if the random source fails.
 */
zq_err_t ws_send_text(ws_conn_t *c, const char *text, size_t len);
zq_err_t ws_send_binary(ws_conn_t *c, const uint8_t *data, size_t len);

/** A ping with up to 125 bytes of payload (ZQ_ERR_TOO_LONG beyond). Errors as for sends. */
zq_err_t ws_send_ping(ws_conn_t *c, const uint8_t *data, size_t len);

/**
 * Starts the close handshake (§7.1.2) with @p code (0 for a close without a code, else one
 * that may be sent: 1000-1003, 1007-1014, 3000-4999) and a UTF-8 @p reason of up to 123 bytes
 * (may be NULL). Never blocks: the close is held until the output has room.
 * @return ZQ_ERR_INVALID_ARG for a bad code or reason; ZQ_ERR_STATE if a close was already
 *         sent or queued.
 */
zq_err_t ws_close(ws_conn_t *c, uint16_t code, const char *reason);

/** The bytes waiting to be written to TCP; false if there are none. */
bool ws_pending_output(ws_conn_t *c, const uint8_t **data, size_t *len);

/** Says that @p n of the pending bytes were written (n <= the pending length). */
void ws_output_consumed(ws_conn_t *c, size_t n);

#endif /* ZQ_WS_H */

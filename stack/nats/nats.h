/**
 * @file nats.h
 * @brief A NATS client's protocol, sans-IO: bytes from the server in, events and bytes to send
 *        out. No sockets, no clocks, no allocation; what `zq signal --cluster nats://...` speaks.
 *
 * The protocol (https://docs.nats.io/reference/reference-protocols/nats-protocol, "the
 * protocol doc" below) is text lines ended by CRLF; only MSG (and PUB, which we send) carry a
 * payload after their line:
 *
 *     server -> client                          client -> server
 *     INFO {"server_id":...,"max_payload":...}  CONNECT {"verbose":false,...}
 *     MSG <subject> <sid> [reply-to] <#bytes>   PUB <subject> [reply-to] <#bytes>
 *     <payload>                                 <payload>
 *     PING / PONG / +OK / -ERR '<text>'         SUB <subject> <sid> / UNSUB <sid> / PING / PONG
 *
 * The handshake: the server speaks first with INFO; the client answers CONNECT and then PING,
 * and since the server handles a connection's commands in order, the PONG to that PING says
 * CONNECT was accepted (a refusal is -ERR 'Authorization Violation' and a close instead).
 *
 * @code
 * nats_options_t opt = {.user = "a", .pass = "b", .name = "zq-signal", .echo = false};
 * nats_client_init(&nc, &opt, on_event, app);        // on_event: INFO, READY, MSG, PONG, ERR
 * for (;;) {
 *     n = tcp_read(buf, sizeof buf);                 // 0: the server closed
 *     if (nats_client_feed(&nc, buf, n) != ZQ_OK) break;   // ZQ_ERR_CLOSED after a fatal ERR
 *     const uint8_t *out;
 *     size_t len;
 *     while ((len = nats_client_pending(&nc, &out)) > 0)
 *         nats_client_sent(&nc, tcp_write(out, len));
 * }
 * // in on_event, at NATS_EV_READY: nats_client_sub(&nc, "zq.room.>", 1); ...
 * @endcode
 *
 * Input: nats_client_feed() takes the bytes as they came from TCP, cut anywhere, many
 * messages at once or a byte at a time. Each complete message raises its event, by the
 * callback, before nats_client_feed() returns. A control line is kept in a buffer of
 * ZQ_NATS_LINE_MAX bytes and a MSG payload in one of ZQ_NATS_PAYLOAD_MAX; a larger payload is
 * read and thrown away (dropped_oversize counts it) and the stream goes on. Everything else the
 * client cannot read (a line over ZQ_NATS_LINE_MAX, an unknown verb, a malformed line, INFO
 * that is not a JSON object, a payload not followed by CRLF) is a protocol error: a fatal
 * NATS_EV_ERR with zq's reason, protocol_errors counts it, and the client reads no more.
 *
 * Answers the client gives by itself: PONG to a server PING (protocol doc, PING/PONG: a
 * server closes a client that does not answer); CONNECT and PING on the first INFO. +OK is
 * ignored (CONNECT asks for verbose:false, so the server sends none). -ERR raises NATS_EV_ERR
 * with the server's text; it is fatal, as the server closes the connection after it, except
 * for 'Invalid Subject' and the 'Permissions Violation ...' errors, after which the protocol
 * doc says the connection stays open.
 *
 * Output: every command is appended whole to one queue of ZQ_NATS_OUT_MAX bytes, or refused
 * whole (ZQ_ERR_WOULD_BLOCK when it would fit once the caller has written out what is
 * pending, ZQ_ERR_TOO_LONG when it never could): nothing is ever half queued. A PONG that
 * finds the queue full is owed and queued as soon as there is room.
 *
 * States and what they allow: until the first INFO, nothing may be sent (ZQ_ERR_STATE);
 * once CONNECT is queued, pub, sub, unsub and ping are accepted before READY too, because the
 * server reads them after CONNECT, in order; after a fatal error every call returns
 * ZQ_ERR_CLOSED, until nats_client_init() starts over (a new TCP connection).
 *
 * TLS: the server sends INFO in the clear and the client then starts TLS (protocol doc,
 * INFO, tls_required; nats-server before 2.10 has no other way, and 2.10's handshake_first is
 * an option a server must be given). With tls_required set, the client stops reading at the
 * end of that INFO (nats_client_feed_some() says where: what follows is TLS's), queues
 * CONNECT and stays in NATS_STATE_TLS, where nats_client_pending() lends nothing, so that no
 * byte after INFO, credentials least of all, goes out in the clear; the caller runs its TLS
 * handshake and calls nats_client_tls_up(), and CONNECT goes out over TLS. An INFO that offers
 * no TLS (neither tls_required nor tls_available) is then a fatal error. Without
 * tls_required, an INFO that requires TLS is a fatal error and CONNECT is never queued.
 *
 * Lifetimes: an event and everything it points to are borrowed for the callback only. The
 * callback may call pub, sub, unsub and ping, but not nats_client_feed() or nats_client_init().
 * The options' strings are borrowed for the client's life. The pointer from
 * nats_client_pending() is valid until the next call that queues or nats_client_sent().
 * The client holds no pointer into itself: it is plain data, in static storage or the caller's
 * (it is large: the three buffers, ~84 KiB at the defaults).
 */
#ifndef ZQ_NATS_H
#define ZQ_NATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/nats/nats_nkey.h"
#include "zq/config.h"
#include "zq/err.h"

/** A server_id is an nkey: 56 characters of base32 (the protocol doc's INFO example);
 *  fixed by the protocol, not a setting. A longer one is kept empty and counted
 *  in info_dropped. */
#define NATS_SERVER_ID_MAX 56

/** INFO's nonce, which an nkey signs (nats-server's are 11 random bytes, base64url). */
#define NATS_NONCE_MAX 64

/** What CONNECT's "lang" and "version" say (protocol doc, CONNECT). */
#define NATS_CLIENT_LANG "c-zq"
#define NATS_CLIENT_VERSION "1.0.0"

typedef struct {
    const char *user, *pass, *token, *name; /**< borrowed for the client's life; NULL: not sent */
    bool echo;         /**< CONNECT "echo": false = the server does not send our own
                            publishes back */
    bool tls_required; /**< the caller runs TLS under us: CONNECT says tls_required:true */
    const nats_nkey_t *nkey; /**< a user nkey (nats_nkey.h): CONNECT carries INFO's nonce
                                  signed, "sig", and the public key, "nkey"; NULL: none */
    const char *jwt;         /**< with nkey, a .creds file's user JWT: CONNECT carries it,
                                  "jwt", instead of "nkey"; NULL: none */
} nats_options_t;

typedef enum {
    NATS_EV_INFO,  /**< an INFO was read: nats_client_info() has it */
    NATS_EV_READY, /**< the PONG to the PING after CONNECT: connected and authorised */
    NATS_EV_MSG,   /**< a message for one of our subscriptions */
    NATS_EV_PONG,  /**< the answer to a nats_client_ping() */
    NATS_EV_ERR    /**< a -ERR from the server, or a protocol error zq found */
} nats_event_type_t;

typedef struct {
    nats_event_type_t type;
    const char *subject; /**< MSG; not NUL-terminated */
    size_t subject_len;
    uint32_t sid;          /**< MSG */
    const char *reply;     /**< MSG: the reply subject, NULL when none */
    size_t reply_len;      /**< MSG, 0 when none */
    const uint8_t *payload; /**< MSG */
    size_t len;
    const char *text; /**< ERR: the server's -ERR text without its quotes, or zq's reason */
    size_t text_len;
    bool fatal; /**< ERR: the caller must close the connection; the client reads no more */
} nats_event_t;   /* everything borrowed for the callback only */

typedef void (*nats_event_fn)(void *ctx, const nats_event_t *ev);

/** What the server's latest INFO said (protocol doc, INFO); fields it left out are 0/false/"". */
typedef struct {
    char server_id[NATS_SERVER_ID_MAX + 1];
    char nonce[NATS_NONCE_MAX + 1]; /**< what an nkey signs; "" when the server sent none */
    uint32_t max_payload; /**< the largest payload the server takes; 0: not said */
    bool tls_required, tls_available, auth_required, headers;
    int proto;
    char connect_urls[ZQ_NATS_URLS_MAX][ZQ_NATS_URL_MAX]; /**< "host:port", NUL-terminated */
    size_t url_count;
} nats_info_t;

typedef enum {
    NATS_STATE_WAIT_INFO,  /**< connected, the server has not spoken */
    NATS_STATE_TLS,        /**< INFO read, CONNECT queued but not lent: the caller's TLS
                                    handshake runs (nats_client_tls_up() ends it) */
    NATS_STATE_CONNECTING, /**< CONNECT and PING queued, the PONG not yet read */
    NATS_STATE_READY,      /**< the PONG came: CONNECT was accepted */
    NATS_STATE_FAILED      /**< a fatal error: close the connection */
} nats_state_t;

/** What nats_client_feed() is reading. */
typedef enum {
    NATS_RX_LINE,    /**< a control line, up to its LF */
    NATS_RX_PAYLOAD, /**< a MSG payload that fits: kept */
    NATS_RX_SKIP,    /**< a MSG payload over ZQ_NATS_PAYLOAD_MAX: read and dropped */
    NATS_RX_TRAILER  /**< the CRLF after a payload */
} nats_rx_t;

/** One client connection. Caller-allocated plain data; see the file comment. */
typedef struct {
    nats_options_t opt;
    nats_event_fn fn;
    void *ctx;
    nats_state_t state;
    nats_info_t info;

    /* Input (nats_rx.c). The MSG being read keeps its subject and reply in line[]. */
    nats_rx_t rx;
    size_t line_len;
    uint64_t payload_need, payload_got; /* uint64_t: a skipped payload may claim any size */
    uint8_t trailer_got;
    uint32_t msg_sid;
    size_t msg_subject_off, msg_subject_len, msg_reply_off, msg_reply_len;

    /* Output (nats_out.c): pending bytes are out[out_head..out_tail). */
    size_t out_head, out_tail;
    bool pong_owed; /* a server PING found the queue full */

    /* Counters. */
    uint32_t dropped_oversize; /**< MSGs over ZQ_NATS_PAYLOAD_MAX, skipped whole, connection kept */
    uint32_t protocol_errors;  /**< fatal protocol errors zq found in the input */
    uint32_t info_dropped;     /**< INFO values not kept: connect_urls beyond ZQ_NATS_URLS_MAX or
                                    ZQ_NATS_URL_MAX, a server_id over NATS_SERVER_ID_MAX */
    uint32_t server_errors;    /**< -ERR lines read */

    char line[ZQ_NATS_LINE_MAX + 1]; /* + its CR */
    uint8_t payload[ZQ_NATS_PAYLOAD_MAX];
    uint8_t out[ZQ_NATS_OUT_MAX];
} nats_client_t;

/** Starts a client on a fresh TCP (or TLS) connection, waiting for the server's INFO.
 *  @p opt is copied (its strings are borrowed for the client's life); @p fn is required. */
void nats_client_init(nats_client_t *c, const nats_options_t *opt, nats_event_fn fn, void *ctx);

/**
 * All bytes from the socket, in pieces of any size; each complete message raises its event
 * before this returns.
 * @return ZQ_OK; ZQ_ERR_CLOSED once a fatal error was raised (in this call, whose later bytes
 *         are then not read, or an earlier one); ZQ_ERR_INVALID_ARG for NULL data with len > 0;
 *         ZQ_ERR_STATE when bytes came after an INFO that starts TLS (they are TLS's, not
 *         read: use nats_client_feed_some()).
 */
zq_err_t nats_client_feed(nats_client_t *c, const uint8_t *data, size_t len);

/**
 * As nats_client_feed(), but stops where the caller's TLS starts: after the INFO that put the
 * client in NATS_STATE_TLS. @p taken says how many of @p len bytes were read (all of them,
 * unless it stopped there or at a fatal error).
 */
zq_err_t nats_client_feed_some(nats_client_t *c, const uint8_t *data, size_t len,
                               size_t *taken);

/** The caller's TLS session is open: CONNECT, queued at INFO, may now be written (over it).
 *  @return ZQ_OK; ZQ_ERR_STATE outside NATS_STATE_TLS. */
zq_err_t nats_client_tls_up(nats_client_t *c);

/**
 * Queues SUB <subject> <sid>. @p subject is tokens of printable ASCII (no space, tab or
 * control character) separated by '.', none empty; '*' may stand for a whole token and '>'
 * for the last one (protocol doc, "Subject names").
 * @return ZQ_ERR_INVALID_ARG for a bad subject; ZQ_ERR_STATE before the first INFO;
 *         ZQ_ERR_CLOSED after a fatal error; ZQ_ERR_WOULD_BLOCK or ZQ_ERR_TOO_LONG (see above).
 */
zq_err_t nats_client_sub(nats_client_t *c, const char *subject, uint32_t sid);

/** Queues UNSUB <sid>. Errors as nats_client_sub(). */
zq_err_t nats_client_unsub(nats_client_t *c, uint32_t sid);

/**
 * Queues PUB <subject> [reply] <len> and the payload. @p subject and @p reply (NULL: none) are
 * as for nats_client_sub() but without wildcards: a publish names one subject. @p payload may
 * be NULL when @p len is 0.
 * @return as nats_client_sub(); ZQ_ERR_TOO_LONG also for a payload over the server's
 *         max_payload (the server would close the connection for it).
 */
zq_err_t nats_client_pub(nats_client_t *c, const char *subject, const char *reply,
                         const uint8_t *payload, size_t len);

/** Queues a PING; its PONG raises NATS_EV_PONG. Errors as nats_client_sub(). */
zq_err_t nats_client_ping(nats_client_t *c);

/** The bytes to write to TCP: sets @p data and returns their count (0: nothing to write). */
size_t nats_client_pending(const nats_client_t *c, const uint8_t **data);

/** Says that @p n of the pending bytes were written (more than pending counts as all). */
void nats_client_sent(nats_client_t *c, size_t n);

/** The server's latest INFO (all zero before the first). */
const nats_info_t *nats_client_info(const nats_client_t *c);

/** True once the PONG to the PING after CONNECT came, until a fatal error. */
bool nats_client_ready(const nats_client_t *c);

nats_state_t nats_client_state(const nats_client_t *c);

/** True if @p s (NUL-terminated) is a subject PUB may name (@p wildcards false) or SUB may
 *  (@p wildcards true), by the rules of nats_client_sub(). */
bool nats_subject_valid(const char *s, bool wildcards);

#endif /* ZQ_NATS_H */

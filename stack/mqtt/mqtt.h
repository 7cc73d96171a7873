/**
 * @file mqtt.h
 * @brief An MQTT client (MQTT 3.1.1 = protocol level 4, MQTT 5.0 = level 5), sans-IO: bytes and
 *        `now` in, events, bytes and the next deadline out. What `zq bridge` speaks to a broker.
 *
 * Conventions. The caller owns the client (one mqtt_client_t, plain data, large: its buffers
 * are ZQ_MQTT_PACKET_MAX + ZQ_MQTT_OUT_MAX + ZQ_MQTT_INFLIGHT_BYTES bytes, so make it static).
 * Nothing allocates, nothing here opens a socket, reads a clock or draws a random number. The
 * client holds no pointer into itself and none into the caller's data after a call returns,
 * except the event callback and its @c user given at init.
 *
 * @code
 * static mqtt_client_t mq;                        // ~115 KiB at the defaults
 * static void on_event(void *user, const mqtt_event_t *ev)
 * {
 *     switch (ev->type) {
 *     case MQTT_EV_CONNACK:  if (!ev->connack.accepted) give_up(ev->connack.reason); break;
 *     case MQTT_EV_PUBLISH:  // QoS 1: ack only once our side has the message
 *         if (!ev->publish.redelivery_pending) forward(&ev->publish);
 *         break;
 *     case MQTT_EV_PUBACK:   ack_our_publisher(ev->puback.packet_id, ev->puback.refused); break;
 *     default: break;        // SUBACK, UNSUBACK, DISCONNECT, ERROR, DEAD
 *     }
 * }
 *
 * mqtt_client_init(&mq, on_event, &bridge);
 * mqtt_options_t opt;
 * mqtt_options_default(&opt, MQTT_V5, "zq-bridge-lab");
 * opt.clean_start = false;                        // a persistent session
 * opt.session_expiry_s = 3600;
 * for (;;) {                                      // one TCP connection per turn
 *     int fd = tcp_connect("127.0.0.1", 1883);
 *     mqtt_client_connect(&mq, now_ms(), &opt);   // queues CONNECT
 *     for (;;) {
 *         const uint8_t *out;
 *         size_t n;
 *         while ((n = mqtt_client_pending(&mq, &out)) > 0) {   // lend, then acknowledge
 *             ssize_t w = send(fd, out, n, 0);
 *             if (w <= 0) break;
 *             mqtt_client_sent(&mq, (size_t)w);
 *         }
 *         if (mqtt_client_state(&mq) >= MQTT_STATE_CLOSING && n == 0) break;
 *         wait_readable(fd, mqtt_client_next_timeout(&mq));    // ZQ_TIME_NEVER: no deadline
 *         uint8_t buf[2048];
 *         ssize_t r = recv_nonblocking(fd, buf, sizeof buf);
 *         if (r == 0 || (r < 0 && errno != EAGAIN)) break;       // the broker closed
 *         if (r > 0) mqtt_client_feed(&mq, now_ms(), buf, (size_t)r); // events from here
 *         mqtt_client_timeout(&mq, now_ms());                    // PINGREQ, dead connection
 *     }
 *     close(fd);
 *     mqtt_client_reset_connection(&mq);          // the session (in-flight QoS 1) stays
 *     sleep_backoff();
 * }
 * // elsewhere, from the zq side:
 * //   mqtt_client_publish(&mq, &msg, &id);      // QoS 1: kept until its PUBACK event
 * //   mqtt_client_puback(&mq, id, MQTT_RC_SUCCESS); // zq acknowledged an MQTT message
 * @endcode
 *
 * Sessions and QoS 1 (3.1.1 §4.3.2, §4.4; 5.0 §4.3.2, §4.4). Every QoS 1 publish is kept whole
 * in the in-flight table from mqtt_client_publish() until its PUBACK, across connections. At
 * most the server's Receive Maximum (5.0 §3.2.2.3.3; 65535 in 3.1.1) are on the wire at once;
 * the rest wait, unsent, in the table. After a CONNACK:
 *  - session_present = 1: every publish of the table is sent again in its original order, with
 *    its packet id, and DUP = 1 for those written in an earlier connection (MQTT-4.4.0-1,
 *    5.0 §4.4, MQTT-3.3.1-1);
 *  - session_present = 0 (the broker has no state: clean start, expiry, a new broker): they are
 *    sent too, as new publishes with DUP = 0 (same ids), because the promise to our own
 *    publishers outlives the broker's session; pending incoming acks are forgotten.
 * Packet ids are never 0 and never reused while their publish, SUBSCRIBE or UNSUBSCRIBE awaits
 * its ack (MQTT-2.3.1-1/-2). SUBSCRIBE and UNSUBSCRIBE awaiting their ack are forgotten by
 * mqtt_client_reset_connection(): they are never resent (the spec resends only PUBLISH).
 *
 * Incoming QoS 1 is never acknowledged by the client itself: the caller calls
 * mqtt_client_puback() once its side has the message. Until then the packet id counts against
 * the Receive Maximum we granted (5.0 §3.1.2.11.3; counted alike in 3.1.1); a server that goes
 * over it is a protocol error in 5.0 (§4.9: DISCONNECT 0x93), a counted drop in 3.1.1 (the
 * message is not acked, so the broker keeps it). A PUBLISH whose packet id still awaits our
 * PUBACK is a redelivery: its event says so (redelivery_pending), and the caller must not pass
 * it on twice. After a reconnect the server resends every message it has no PUBACK for
 * (MQTT-4.4.0-1); one the caller acked while the connection was down is answered then. A PUBACK
 * still unwritten when the connection drops is lost with it, and that redelivery arrives as a
 * new message with dup = 1: QoS 1 is at least once.
 *
 * Input rules (a bounded walk of each packet, nothing read past its remaining length): a
 * remaining length of at most 4 bytes, minimally encoded (§1.5.5 / 3.1.1 §2.2.3); each packet
 * type with its fixed flags (§2.1.3 / 3.1.1 §2.2.2); every length against what is left; UTF-8
 * strings valid and without U+0000 (MQTT-1.5.4-1/-2, core's checker); topic names without
 * wildcards; v5 properties walked by identifier with their types, each allowed in its packet
 * (5.0 §2.2.2.2: else malformed) and at most once where the spec says so (else protocol error);
 * an unknown property is malformed. A malformed packet (0x81) or a protocol error (0x82, or the
 * specific 0x93 receive maximum exceeded, 0x94 topic alias invalid, 0x95 packet too large) is
 * fatal: in 5.0 a DISCONNECT with that reason is queued, the state becomes MQTT_STATE_CLOSED
 * and an MQTT_EV_ERROR event names it; the caller writes out what is pending and closes. What
 * is merely unusable (an ack for a packet id not in flight; in 3.1.1, a packet over
 * ZQ_MQTT_PACKET_MAX, a QoS 1 over our bound) is dropped and counted in mqtt_stats_t.
 *
 * Lifetimes: an event and everything it points to are borrowed for the callback only (they
 * point into the receive buffer). The callback may call any mqtt_client_* function but
 * mqtt_client_init(); if it calls mqtt_client_reset_connection(), the rest of the bytes being
 * fed are dropped. Events come from mqtt_client_feed() and mqtt_client_timeout(), and a local
 * MQTT_EV_PUBACK (MQTT_RC_PACKET_TOO_LARGE) from whichever call sends the table. Options,
 * publishes and subscriptions are read during the call only. The pointer mqtt_client_pending()
 * lends stays valid until the next call on the client.
 */
#ifndef ZQ_MQTT_H
#define ZQ_MQTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/config.h"
#include "zq/err.h"
#include "zq/time.h"

/** Protocol levels (3.1.1 §3.1.2.2, 5.0 §3.1.2.2). */
enum { MQTT_V311 = 4, MQTT_V5 = 5 };

/** Reason codes of 5.0 §2.4 this client sends or names; a 3.1.1 CONNACK's return code (0-5,
 *  §3.2.2.3) and SUBACK codes (0x00-0x02, 0x80) are reported as they come. */
enum {
    MQTT_RC_SUCCESS = 0x00,                  /**< also Normal disconnection, Granted QoS 0 */
    MQTT_RC_GRANTED_QOS_1 = 0x01,
    MQTT_RC_DISCONNECT_WITH_WILL = 0x04,
    MQTT_RC_NO_MATCHING_SUBSCRIBERS = 0x10,
    MQTT_RC_NO_SUBSCRIPTION_EXISTED = 0x11,
    MQTT_RC_UNSPECIFIED_ERROR = 0x80,        /**< also 3.1.1's SUBACK Failure */
    MQTT_RC_MALFORMED_PACKET = 0x81,
    MQTT_RC_PROTOCOL_ERROR = 0x82,
    MQTT_RC_IMPLEMENTATION_SPECIFIC = 0x83,
    MQTT_RC_RECEIVE_MAXIMUM_EXCEEDED = 0x93,
    MQTT_RC_TOPIC_ALIAS_INVALID = 0x94,
    MQTT_RC_PACKET_TOO_LARGE = 0x95,
};

/** A byte string borrowed from a packet (strings are UTF-8, checked, not NUL-terminated).
 *  @c data is NULL when the field or property is absent. */
typedef struct {
    const uint8_t *data;
    size_t len;
} mqtt_bytes_t;

/** A v5 User Property (5.0 §3.3.2.3.7) to send: two NUL-terminated UTF-8 strings. */
typedef struct {
    const char *name;
    const char *value;
} mqtt_user_prop_t;

/** A message to publish (3.1.1 §3.3, 5.0 §3.3); also the will (5.0 §3.1.3.2). Read during the
 *  call only. The v5 fields are ignored in 3.1.1. */
typedef struct {
    const char *topic;         /**< NUL-terminated UTF-8, 1..ZQ_MQTT_TOPIC_MAX bytes, no + or # */
    const uint8_t *payload;    /**< may be NULL when payload_len is 0 */
    size_t payload_len;
    uint8_t qos;               /**< 0 or 1 (QoS 2 is not offered) */
    bool retain;
    /* MQTT 5 properties (5.0 §3.3.2.3) */
    const char *response_topic;        /**< NULL: none; a topic name, as @c topic */
    const uint8_t *correlation_data;   /**< NULL: none */
    size_t correlation_len;
    const char *content_type;          /**< NULL: none */
    bool has_message_expiry;
    uint32_t message_expiry_s;
    bool payload_utf8;                 /**< Payload Format Indicator 1; the payload is checked */
    const mqtt_user_prop_t *user_props; /**< n_user_props of them, or NULL */
    size_t n_user_props;
} mqtt_publish_t;

/** Connection options, read by mqtt_client_connect() during the call only. */
typedef struct {
    uint8_t version;           /**< MQTT_V311 or MQTT_V5 */
    const char *client_id;     /**< NUL-terminated UTF-8; "" asks the server for one (v5, or
                                    3.1.1 with clean_start: MQTT-3.1.3-7) */
    const char *username;      /**< NULL: none */
    const uint8_t *password;   /**< NULL: none (3.1.1: only with a username, MQTT-3.1.2-22) */
    size_t password_len;
    uint16_t keepalive_s;      /**< 0: no keepalive (no PINGREQ, no dead-connection check) */
    bool clean_start;          /**< 3.1.1 CleanSession / 5.0 Clean Start; false for the bridge */
    uint32_t session_expiry_s; /**< v5 Session Expiry Interval (§3.1.2.11.2); 0: the session
                                    ends with the connection; 0xFFFFFFFF: never */
    uint16_t receive_maximum;  /**< incoming QoS 1 we hold unacked, 1..ZQ_MQTT_RX_INFLIGHT_MAX;
                                    0: ZQ_MQTT_RX_INFLIGHT_MAX. Sent in v5 (§3.1.2.11.3) */
    bool lenient_receive_maximum; /**< a server over the Receive Maximum we granted (v5; in
                                    3.1.1 over @c receive_maximum, which the server is never
                                    told) is not fatal, and its message not dropped: held while
                                    the table (ZQ_MQTT_RX_INFLIGHT_MAX) has room (counted in
                                    rx_over_quota), and beyond it the client reads no further
                                    (mqtt_client_feed_some(): flow control by TCP, the only kind
                                    3.1.1 has) until mqtt_client_resume(). mosquitto 2.0.11 was
                                    seen to go over it when it resumes a session with messages
                                    unacked (115 at once in 3.1.1). zq bridge sets this */
    const mqtt_publish_t *will; /**< NULL: no will */
    uint32_t will_delay_s;      /**< v5 Will Delay Interval (§3.1.3.2.2) */
} mqtt_options_t;
/* Not options: Topic Alias Maximum is 0 (we accept no alias: a server's is a protocol error)
 * and the Maximum Packet Size we accept is ZQ_MQTT_PACKET_MAX, both sent in a v5 CONNECT. */

/** Fills @p opt with: @p version, @p client_id, no credentials, keepalive 60 s, clean start,
 *  session expiry 0, receive maximum ZQ_MQTT_RX_INFLIGHT_MAX, no will. */
void mqtt_options_default(mqtt_options_t *opt, uint8_t version, const char *client_id);

/** A subscription to request (3.1.1 §3.8.3, 5.0 §3.8.3.1). The v5 options are ignored in
 *  3.1.1. */
typedef struct {
    const char *filter;          /**< NUL-terminated topic filter (MQTT 4.7), checked */
    uint8_t qos;                 /**< maximum QoS, 0 or 1 */
    bool no_local;               /**< v5: not our own publishes back */
    bool retain_as_published;    /**< v5: keep the RETAIN flag as published */
    uint8_t retain_handling;     /**< v5: 0 send retained, 1 only if new, 2 never */
} mqtt_subscription_t;

/** What the server's CONNACK said of itself (5.0 §3.2.2.3; 3.1.1: the defaults). */
typedef struct {
    uint16_t receive_maximum;      /**< QoS 1 we may have unacked at once; 65535 if absent */
    uint32_t maximum_packet_size;  /**< largest packet it takes; 0: no limit given */
    uint8_t maximum_qos;           /**< 0 or 1 (2 if absent: we use 1 at most anyway) */
    bool retain_available;
    bool wildcard_available;
    bool subscription_ids_available;
    bool shared_available;
    uint16_t topic_alias_maximum;  /**< we never use aliases ourselves */
    bool has_keepalive;            /**< Server Keep Alive given: it replaces ours */
    uint16_t keepalive_s;          /**< the keepalive in force */
    bool has_session_expiry;
    uint32_t session_expiry_s;
} mqtt_server_t;

/** An incoming PUBLISH (3.1.1 §3.3, 5.0 §3.3), borrowed for the callback. */
typedef struct {
    mqtt_bytes_t topic;
    mqtt_bytes_t payload;
    uint8_t qos;                 /**< 0 or 1 */
    bool retain;
    bool dup;                    /**< the server's DUP flag */
    uint16_t packet_id;          /**< QoS 1: pass to mqtt_client_puback(); 0 for QoS 0 */
    bool redelivery_pending;     /**< QoS 1: this packet id already arrived and awaits our
                                      PUBACK: a redelivery, do not forward it again */
    /* MQTT 5 properties (5.0 §3.3.2.3); absent ones have data NULL / has_ false */
    mqtt_bytes_t response_topic;
    mqtt_bytes_t correlation_data;
    mqtt_bytes_t content_type;
    bool has_payload_format;
    uint8_t payload_format;      /**< 0 bytes, 1 UTF-8 (not checked by the client) */
    bool has_message_expiry;
    uint32_t message_expiry_s;
    uint32_t subscription_id;    /**< the first Subscription Identifier, 0: none */
    mqtt_bytes_t properties;     /**< the whole property block, for mqtt_user_prop_next() */
} mqtt_message_t;

typedef enum {
    MQTT_EV_CONNACK,    /**< the server answered CONNECT; connack */
    MQTT_EV_PUBLISH,    /**< a message arrived; publish */
    MQTT_EV_PUBACK,     /**< one of our QoS 1 publishes is settled; puback */
    MQTT_EV_SUBACK,     /**< ack */
    MQTT_EV_UNSUBACK,   /**< ack (3.1.1: count 0, no reason codes) */
    MQTT_EV_DISCONNECT, /**< the server sent DISCONNECT (v5); disconnect. State CLOSED */
    MQTT_EV_ERROR,      /**< malformed packet or protocol error; error. State CLOSED */
    MQTT_EV_DEAD,       /**< nothing received for 1.5 x keepalive (3.1.1 §3.1.2.10); state
                             CLOSED; error.reason MQTT_RC_UNSPECIFIED_ERROR */
} mqtt_event_type_t;

typedef struct {
    mqtt_event_type_t type;
    union {
        struct {
            bool accepted;               /**< reason 0: we are connected */
            bool session_present;
            uint8_t reason;              /**< 3.1.1 return code or v5 reason code */
            const mqtt_server_t *server; /**< also mqtt_client_server() */
            mqtt_bytes_t assigned_client_id; /**< v5: copy it to reconnect to this session */
            mqtt_bytes_t reason_string;
        } connack;
        mqtt_message_t publish;
        struct {
            uint16_t packet_id;
            uint8_t reason;              /**< v5 reason; 0 in 3.1.1 */
            bool refused;                /**< reason >= 0x80: the broker did not take it */
            bool local;                  /**< never sent: too large for the server's Maximum
                                              Packet Size learnt at reconnect (reason 0x95) */
            mqtt_bytes_t reason_string;
        } puback;
        struct {
            uint16_t packet_id;
            const uint8_t *reasons;      /**< one per filter, in request order */
            size_t count;
            mqtt_bytes_t reason_string;
        } ack;                           /**< SUBACK and UNSUBACK */
        struct {
            uint8_t reason;
            mqtt_bytes_t reason_string;
            mqtt_bytes_t server_reference;
        } disconnect;
        struct {
            uint8_t reason;              /**< 0x81 malformed, 0x82 protocol error, 0x93, 0x94,
                                              0x95 (also what a v5 DISCONNECT carries) */
            const char *what;            /**< static English text: which rule */
        } error;
    };
} mqtt_event_t;

typedef void (*mqtt_event_fn)(void *user, const mqtt_event_t *ev);

typedef enum {
    MQTT_STATE_IDLE,       /**< no connection: after init or mqtt_client_reset_connection() */
    MQTT_STATE_CONNECTING, /**< CONNECT queued, waiting for CONNACK */
    MQTT_STATE_CONNECTED,
    MQTT_STATE_CLOSING,    /**< we queued DISCONNECT: write it out, then close */
    MQTT_STATE_CLOSED,     /**< refused, failed, dead, or disconnected by the server: write out
                                what is pending, close, call mqtt_client_reset_connection() */
} mqtt_state_t;

/** Counted drops: what was not usable and not fatal. */
typedef struct {
    uint32_t rx_packets;        /**< whole packets received */
    uint32_t rx_oversize;       /**< 3.1.1 packets over ZQ_MQTT_PACKET_MAX, skipped */
    uint32_t rx_over_quota;     /**< 3.1.1 QoS 1 beyond ZQ_MQTT_RX_INFLIGHT_MAX, not acked */
    uint32_t rx_topic_too_long; /**< over ZQ_MQTT_TOPIC_MAX: refused (PUBACK 0x83 in v5) */
    uint32_t rx_unknown_ack;    /**< PUBACK / SUBACK / UNSUBACK for an id not in flight */
} mqtt_stats_t;

/* ---- The client: plain data, no pointers into itself; fields are private ------------------ */

typedef struct {
    uint32_t off;       /* in pool[] */
    uint32_t len;
    uint16_t packet_id;
    bool sent;          /* written out in some connection: a resend carries DUP (session) */
} mqtt_inflight_t;

typedef struct {
    uint16_t packet_id;
    uint8_t reason;        /* what our PUBACK will say (v5) */
    bool acked;            /* the caller acked: a PUBACK is to be written */
    bool await_redelivery; /* the connection changed: answer when the server resends it */
} mqtt_unacked_t;

typedef struct {
    uint16_t packet_id;
    uint8_t type;          /* SUBSCRIBE or UNSUBSCRIBE */
    uint8_t count;         /* filters: the ack must carry as many reason codes (v5) */
} mqtt_request_t;

typedef struct {
    mqtt_event_fn on_event;
    void *user;
    mqtt_state_t state;
    uint8_t version;
    bool clean_start;
    bool lenient_receive_max;
    uint32_t generation;         /* bumped by reset: feed stops if the callback reset */
    uint16_t receive_max;        /* what we granted */
    mqtt_server_t server;
    uint16_t next_id;

    /* Timers (ms): keepalive (3.1.1 §3.1.2.10, 5.0 §3.1.2.10). */
    uint64_t now, last_tx, last_rx;
    uint32_t keepalive_ms;
    bool ping_outstanding, want_ping;
    bool want_disconnect;
    uint8_t disconnect_reason;

    /* Outgoing QoS 1, whole, in send order; the first `on_wire` went out on this connection. */
    mqtt_inflight_t inflight[ZQ_MQTT_INFLIGHT_MAX];
    uint16_t n_inflight, on_wire;
    uint32_t pool_used;
    /* Incoming QoS 1 awaiting the caller's ack, and SUBSCRIBE/UNSUBSCRIBE awaiting theirs. */
    mqtt_unacked_t unacked[ZQ_MQTT_RX_INFLIGHT_MAX];
    uint16_t n_unacked;
    mqtt_request_t requests[ZQ_MQTT_REQUESTS_MAX];
    uint8_t n_requests;

    /* Receive framing: the fixed header, then the rest into rx[]. */
    uint8_t rx_first;
    uint8_t rx_hdr_len;          /* fixed-header bytes seen (1 + remaining-length bytes) */
    bool rx_in_body, rx_skipping;
    bool rx_held;                /* a whole QoS 1 PUBLISH in rx[] waits for a table slot */
    uint32_t rx_len, rx_have, rx_varint_shift;

    mqtt_stats_t stats;
    uint32_t out_head, out_tail;
    uint8_t rx[ZQ_MQTT_PACKET_MAX];
    uint8_t out[ZQ_MQTT_OUT_MAX];
    uint8_t pool[ZQ_MQTT_INFLIGHT_BYTES];
} mqtt_client_t;

/* ---- Lifecycle ----------------------------------------------------------------------------- */

/** Starts a client in MQTT_STATE_IDLE with an empty session. @p on_event is required; events
 *  go to it with @p user. */
void mqtt_client_init(mqtt_client_t *c, mqtt_event_fn on_event, void *user);

/**
 * Queues CONNECT (3.1.1 §3.1, 5.0 §3.1) for a new TCP connection; state CONNECTING until the
 * MQTT_EV_CONNACK event. @p opt is read during the call only.
 * @return ZQ_ERR_STATE unless IDLE; ZQ_ERR_INVALID_ARG for a bad version, client id, will,
 *         credentials or receive maximum; ZQ_ERR_TOO_LONG if CONNECT exceeds
 *         ZQ_MQTT_PACKET_MAX.
 */
zq_err_t mqtt_client_connect(mqtt_client_t *c, uint64_t now, const mqtt_options_t *opt);

/**
 * A clean end (3.1.1 §3.14, 5.0 §3.14): queues DISCONNECT with @p reason (v5; 0 normal, 0x04
 * with will; ignored in 3.1.1), state CLOSING. Write out what is pending, close TCP, then call
 * mqtt_client_reset_connection(). The session stays (in 5.0 for its expiry interval).
 * @return ZQ_ERR_STATE unless CONNECTING or CONNECTED.
 */
zq_err_t mqtt_client_disconnect(mqtt_client_t *c, uint8_t reason);

/**
 * The TCP connection is gone (or the caller closed it): unsent bytes and half-read packets
 * are dropped, SUBSCRIBE/UNSUBSCRIBE awaiting acks are forgotten; the session stays — the
 * in-flight QoS 1 publishes and incoming ones awaiting our PUBACK — for the next
 * mqtt_client_connect(). State IDLE. Safe in any state.
 */
void mqtt_client_reset_connection(mqtt_client_t *c);

mqtt_state_t mqtt_client_state(const mqtt_client_t *c);

/** The server's limits from its last CONNACK (defaults before one). */
const mqtt_server_t *mqtt_client_server(const mqtt_client_t *c);

const mqtt_stats_t *mqtt_client_stats(const mqtt_client_t *c);

/** Outgoing QoS 1 publishes awaiting PUBACK (0..ZQ_MQTT_INFLIGHT_MAX). */
size_t mqtt_client_inflight(const mqtt_client_t *c);

/** Incoming QoS 1 publishes awaiting our PUBACK (0..the receive maximum granted). */
size_t mqtt_client_unacked(const mqtt_client_t *c);

/* ---- Messages ------------------------------------------------------------------------------ */

/**
 * Publishes @p msg (3.1.1 §3.3, 5.0 §3.3). QoS 0 is queued for output at once. QoS 1 is stored
 * whole in the in-flight table and sent as the server's Receive Maximum allows; it is also
 * accepted while not connected (IDLE, CONNECTING), to go out after the next CONNACK.
 * @param packet_id QoS 1: set to the packet id its MQTT_EV_PUBACK will carry (never 0); may
 *        be NULL for QoS 0.
 * @return ZQ_ERR_WOULD_BLOCK: QoS 1 with the in-flight table full (ZQ_MQTT_INFLIGHT_MAX
 *         entries or ZQ_MQTT_INFLIGHT_BYTES), retry after a PUBACK event; QoS 0 with no room
 *         in the output now, retry after mqtt_client_sent();
 *         ZQ_ERR_STATE: QoS 0 while not CONNECTED;
 *         ZQ_ERR_INVALID_ARG: a bad topic (empty, wildcards, not UTF-8, over
 *         ZQ_MQTT_TOPIC_MAX), QoS > 1, a bad v5 field or a payload_utf8 payload not UTF-8;
 *         ZQ_ERR_TOO_LONG: the packet exceeds ZQ_MQTT_PACKET_MAX or the server's Maximum
 *         Packet Size; ZQ_ERR_UNSUPPORTED: retain or QoS 1 the server said it lacks (v5).
 */
zq_err_t mqtt_client_publish(mqtt_client_t *c, const mqtt_publish_t *msg, uint16_t *packet_id);

/**
 * Acknowledges the incoming QoS 1 publish @p packet_id: its PUBACK (3.1.1 §3.4, 5.0 §3.4) is
 * written as soon as the output has room (never blocks). @p reason is the v5 reason (0
 * success, 0x10 no matching subscribers, >= 0x80 refused, e.g. 0x83); ignored in 3.1.1. While
 * the connection is down the ack is kept and sent when the server resends the message.
 * Acking twice is ZQ_OK.
 * @return ZQ_ERR_NOT_FOUND: no such packet id awaits our ack (e.g. forgotten at a CONNACK
 *         with session_present = 0); ZQ_ERR_INVALID_ARG: id 0.
 */
zq_err_t mqtt_client_puback(mqtt_client_t *c, uint16_t packet_id, uint8_t reason);

/**
 * Queues SUBSCRIBE (3.1.1 §3.8, 5.0 §3.8) for @p n (1..ZQ_MQTT_SUBS_MAX) filters; the
 * MQTT_EV_SUBACK event carries @p packet_id and one reason code per filter.
 * @return ZQ_ERR_STATE unless CONNECTED; ZQ_ERR_INVALID_ARG: a bad filter (MQTT 4.7), QoS > 1,
 *         retain_handling > 2, n out of range; ZQ_ERR_WOULD_BLOCK: no room in the output or
 *         ZQ_MQTT_REQUESTS_MAX requests already await their ack; ZQ_ERR_TOO_LONG.
 */
zq_err_t mqtt_client_subscribe(mqtt_client_t *c, const mqtt_subscription_t *subs, size_t n,
                               uint16_t *packet_id);

/** Queues UNSUBSCRIBE (3.1.1 §3.10, 5.0 §3.10) for @p n NUL-terminated filters; errors as
 *  mqtt_client_subscribe(). */
zq_err_t mqtt_client_unsubscribe(mqtt_client_t *c, const char *const *filters, size_t n,
                                 uint16_t *packet_id);

/* ---- Driving -------------------------------------------------------------------------------- */

/**
 * Feeds bytes read from TCP, split anywhere: events are raised through the callback as whole
 * packets complete.
 * @return ZQ_OK; ZQ_ERR_CLOSED when the connection is over (state CLOSING or CLOSED, also when
 *         these bytes ended it): write out what is pending and close; ZQ_ERR_STATE if IDLE.
 */
zq_err_t mqtt_client_feed(mqtt_client_t *c, uint64_t now, const uint8_t *data, size_t len);

/**
 * mqtt_client_feed() for a client with lenient_receive_maximum, which may stop: a QoS 1
 * PUBLISH that finds the incoming table full is kept, and nothing after it is read.
 * @param used  how many of @p len bytes were taken (all, unless it stopped)
 * @return as mqtt_client_feed(); ZQ_ERR_WOULD_BLOCK when it stopped: give the rest again
 *         after mqtt_client_resume() says it went on.
 */
zq_err_t mqtt_client_feed_some(mqtt_client_t *c, uint64_t now, const uint8_t *data, size_t len,
                               size_t *used);

/** The PUBLISH that stopped input (mqtt_client_feed_some()) is taken if the table has room
 *  now (its event is raised). @return true if input may go on (nothing was held, or it was
 *  taken). */
bool mqtt_client_resume(mqtt_client_t *c, uint64_t now);

/** Runs the timers due at @p now: queues PINGREQ when the keepalive is due, raises
 *  MQTT_EV_DEAD when nothing arrived for 1.5 x keepalive. */
void mqtt_client_timeout(mqtt_client_t *c, uint64_t now);

/** The earliest `now` at which mqtt_client_timeout() has work, or ZQ_TIME_NEVER. */
uint64_t mqtt_client_next_timeout(const mqtt_client_t *c);

/** Lends the bytes waiting to be written to TCP: returns their count (0: none) and points
 *  @p data at them, valid until the next call on the client. */
size_t mqtt_client_pending(const mqtt_client_t *c, const uint8_t **data);

/** Says that @p n (<= the pending count) of the lent bytes were written. */
void mqtt_client_sent(mqtt_client_t *c, size_t n);

/* ---- Helpers -------------------------------------------------------------------------------- */

/** True if @p filter matches @p topic (MQTT 4.7, both NUL-terminated): '+' one whole level,
 *  '#' the rest including the parent level; a topic starting with '$' is not matched by a
 *  filter starting with a wildcard (MQTT-4.7.2-1). An invalid filter matches nothing. */
bool mqtt_topic_matches(const char *filter, const char *topic);

/** mqtt_topic_matches() over lengths (e.g. a topic borrowed from an event). */
bool mqtt_topic_matches_len(const char *filter, size_t filter_len, const char *topic,
                            size_t topic_len);

/** A topic filter (MQTT 4.7.1): 1..ZQ_MQTT_TOPIC_MAX bytes of UTF-8 without U+0000, '+' alone
 *  in its level, '#' alone in the last level. */
bool mqtt_topic_filter_valid(const char *filter, size_t len);

/** A topic name (MQTT 4.7.3): as a filter, without wildcards. */
bool mqtt_topic_name_valid(const char *topic, size_t len);

/** Steps through the User Properties of a v5 property block (mqtt_message_t.properties):
 *  start with *pos = 0; returns false when there are no more. */
bool mqtt_user_prop_next(const mqtt_bytes_t *props, size_t *pos, mqtt_bytes_t *name,
                         mqtt_bytes_t *value);

#endif /* ZQ_MQTT_H */

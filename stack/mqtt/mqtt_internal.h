/* What the files of stack/mqtt share: packet types, the codec (varint, strings, framing of what
 * is written), the property walker, one parse/write pair per packet type, the output queue,
 * the session tables, and the handlers the receive framing dispatches to. Not for callers. */
#ifndef ZQ_MQTT_INTERNAL_H
#define ZQ_MQTT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/mqtt/mqtt.h"
#include "zq/bytes.h"

/* Control packet types (3.1.1 §2.2.1, 5.0 §2.1.2). */
enum {
    MQTT_CONNECT = 1,
    MQTT_CONNACK = 2,
    MQTT_PUBLISH = 3,
    MQTT_PUBACK = 4,
    MQTT_PUBREC = 5,
    MQTT_PUBREL = 6,
    MQTT_PUBCOMP = 7,
    MQTT_SUBSCRIBE = 8,
    MQTT_SUBACK = 9,
    MQTT_UNSUBSCRIBE = 10,
    MQTT_UNSUBACK = 11,
    MQTT_PINGREQ = 12,
    MQTT_PINGRESP = 13,
    MQTT_DISCONNECT = 14,
    MQTT_AUTH = 15,
};

#define MQTT_PUBLISH_DUP 0x08 /* fixed-header flag bits of PUBLISH (§3.3.1) */
#define MQTT_PUBLISH_RETAIN 0x01
#define MQTT_FIXED_HEADER_MAX 5 /* type byte + a remaining length of 4 bytes */
#define MQTT_VARINT_MAX 268435455u /* 0xFF 0xFF 0xFF 0x7F (§1.5.5) */
/* Room a writer needs beyond the packet it writes: the length gaps mqtt_packet_begin() and
 * mqtt_props_begin() leave (up to 3 bytes each, CONNECT has three) until the lengths are
 * known. include/zq/config.h holds the output queue and the pool to at least this much over
 * ZQ_MQTT_PACKET_MAX, so a packet that fits a packet always fits an empty queue. */
#define MQTT_WRITE_SLACK 16

/* A parse result: MQTT_RC_SUCCESS, or the reason code that fails the connection with the rule
 * broken in *why (static text). */
typedef uint8_t mqtt_rc_t;
#define MQTT_REJECT(why_out, rc, text) (*(why_out) = (text), (mqtt_rc_t)(rc))

/* ---- codec.c: variable byte integers, strings, writing a packet's framing ------------------- */

size_t mqtt_varint_size(uint32_t v);
void mqtt_write_varint(zq_writer_t *w, uint32_t v);
/* Reads a Variable Byte Integer of at most 4 bytes, minimally encoded; false (and the reader
 * failed) if it is longer, not minimal or cut short. */
bool mqtt_read_varint(zq_reader_t *r, uint32_t *v);
/* UTF-8 of MQTT (MQTT-1.5.4-1/-2): valid, and no U+0000. */
bool mqtt_utf8_ok(const uint8_t *p, size_t n);
/* A 2-byte length and its bytes; a string must also pass mqtt_utf8_ok(). */
bool mqtt_read_binary(zq_reader_t *r, mqtt_bytes_t *out);
bool mqtt_read_string(zq_reader_t *r, mqtt_bytes_t *out);
void mqtt_write_binary(zq_writer_t *w, const void *data, size_t len);
void mqtt_write_cstr(zq_writer_t *w, const char *s);
/* A packet is written body first after a 5-byte gap; mqtt_packet_end() puts the fixed header
 * right before the body and closes the gap, so nothing is measured twice. Properties alike,
 * with a 4-byte gap for their length. */
size_t mqtt_packet_begin(zq_writer_t *w);
void mqtt_packet_end(zq_writer_t *w, size_t mark, uint8_t first_byte);
size_t mqtt_props_begin(zq_writer_t *w);
void mqtt_props_end(zq_writer_t *w, size_t mark);

/* ---- properties.c: the v5 property walker (5.0 §2.2.2) -------------------------------------- */

/* Which packet a property block belongs to (5.0 §2.2.2.2's "Packet / Will Properties"). */
typedef enum {
    MQTT_PK_CONNACK,
    MQTT_PK_PUBLISH,
    MQTT_PK_PUBACK,
    MQTT_PK_SUBACK,
    MQTT_PK_UNSUBACK,
    MQTT_PK_DISCONNECT,
} mqtt_prop_packet_t;

/* Property identifiers (5.0 §2.2.2.2). */
enum {
    MQTT_P_PAYLOAD_FORMAT = 0x01,
    MQTT_P_MESSAGE_EXPIRY = 0x02,
    MQTT_P_CONTENT_TYPE = 0x03,
    MQTT_P_RESPONSE_TOPIC = 0x08,
    MQTT_P_CORRELATION_DATA = 0x09,
    MQTT_P_SUBSCRIPTION_ID = 0x0B,
    MQTT_P_SESSION_EXPIRY = 0x11,
    MQTT_P_ASSIGNED_CLIENT_ID = 0x12,
    MQTT_P_SERVER_KEEP_ALIVE = 0x13,
    MQTT_P_AUTH_METHOD = 0x15,
    MQTT_P_AUTH_DATA = 0x16,
    MQTT_P_REQUEST_PROBLEM_INFO = 0x17,
    MQTT_P_WILL_DELAY = 0x18,
    MQTT_P_REQUEST_RESPONSE_INFO = 0x19,
    MQTT_P_RESPONSE_INFO = 0x1A,
    MQTT_P_SERVER_REFERENCE = 0x1C,
    MQTT_P_REASON_STRING = 0x1F,
    MQTT_P_RECEIVE_MAXIMUM = 0x21,
    MQTT_P_TOPIC_ALIAS_MAXIMUM = 0x22,
    MQTT_P_TOPIC_ALIAS = 0x23,
    MQTT_P_MAXIMUM_QOS = 0x24,
    MQTT_P_RETAIN_AVAILABLE = 0x25,
    MQTT_P_USER_PROPERTY = 0x26,
    MQTT_P_MAXIMUM_PACKET_SIZE = 0x27,
    MQTT_P_WILDCARD_AVAILABLE = 0x28,
    MQTT_P_SUBSCRIPTION_IDS_AVAILABLE = 0x29,
    MQTT_P_SHARED_AVAILABLE = 0x2A,
    MQTT_P_LAST = 0x2A,
};

/* One value of each property a server may send us; `seen` has bit id for each present. The
 * strings point into the packet. */
typedef struct {
    uint64_t seen;
    uint32_t u32[MQTT_P_LAST + 1];     /* Byte, Two Byte, Four Byte, Variable Byte values */
    mqtt_bytes_t str[MQTT_P_LAST + 1]; /* UTF-8 strings and binary data (first of a pair) */
    mqtt_bytes_t block;                /* the whole block, for mqtt_user_prop_next() */
} mqtt_props_t;

static inline bool mqtt_props_has(const mqtt_props_t *p, uint8_t id)
{
    return (p->seen >> id & 1u) != 0;
}

/* Reads a property length and walks the block for packet @p kind. */
mqtt_rc_t mqtt_props_parse(zq_reader_t *r, mqtt_prop_packet_t kind, mqtt_props_t *out,
                           const char **why);
/* PUBLISH or Will properties of @p m (the Will Delay Interval only in a will), and whether
 * the v5 fields of @p m can be sent (UTF-8, lengths, a response topic that is a topic name). */
void mqtt_props_write_publish(zq_writer_t *w, const mqtt_publish_t *m, bool will,
                              uint32_t will_delay_s);
bool mqtt_publish_props_valid(const mqtt_publish_t *m);

/* ---- One file per packet type --------------------------------------------------------------- */

/* connect.c */
zq_err_t mqtt_connect_check(const mqtt_options_t *o);
void mqtt_connect_write(zq_writer_t *w, const mqtt_options_t *o, uint16_t receive_max);

/* connack.c */
typedef struct {
    bool session_present;
    uint8_t reason;
    mqtt_props_t props;
} mqtt_connack_t;
mqtt_rc_t mqtt_connack_parse(const uint8_t *body, size_t len, uint8_t version,
                             mqtt_connack_t *out, const char **why);

/* publish.c */
zq_err_t mqtt_publish_check(const mqtt_publish_t *m);
void mqtt_publish_write(zq_writer_t *w, uint8_t version, const mqtt_publish_t *m,
                        uint16_t packet_id);
mqtt_rc_t mqtt_publish_parse(const uint8_t *body, size_t len, uint8_t flags, uint8_t version,
                             mqtt_message_t *out, mqtt_props_t *props, const char **why);

/* puback.c */
void mqtt_puback_write(zq_writer_t *w, uint8_t version, uint16_t packet_id, uint8_t reason);
typedef struct {
    uint16_t packet_id;
    uint8_t reason;
    mqtt_props_t props;
} mqtt_puback_t;
mqtt_rc_t mqtt_puback_parse(const uint8_t *body, size_t len, uint8_t version,
                            mqtt_puback_t *out, const char **why);

/* subscribe.c, unsubscribe.c */
zq_err_t mqtt_subscribe_check(const mqtt_subscription_t *subs, size_t n);
void mqtt_subscribe_write(zq_writer_t *w, uint8_t version, uint16_t packet_id,
                          const mqtt_subscription_t *subs, size_t n);
zq_err_t mqtt_unsubscribe_check(const char *const *filters, size_t n);
void mqtt_unsubscribe_write(zq_writer_t *w, uint8_t version, uint16_t packet_id,
                            const char *const *filters, size_t n);

/* suback.c, unsuback.c: the reason codes are left in place. */
typedef struct {
    uint16_t packet_id;
    const uint8_t *reasons;
    size_t count;
    mqtt_props_t props;
} mqtt_suback_t;
mqtt_rc_t mqtt_suback_parse(const uint8_t *body, size_t len, uint8_t version,
                            mqtt_suback_t *out, const char **why);
mqtt_rc_t mqtt_unsuback_parse(const uint8_t *body, size_t len, uint8_t version,
                              mqtt_suback_t *out, const char **why);

/* ping.c */
void mqtt_pingreq_write(zq_writer_t *w);
mqtt_rc_t mqtt_pingresp_parse(size_t len, const char **why);

/* disconnect.c */
void mqtt_disconnect_write(zq_writer_t *w, uint8_t version, uint8_t reason);
typedef struct {
    uint8_t reason;
    mqtt_props_t props;
} mqtt_disconnect_t;
mqtt_rc_t mqtt_disconnect_parse(const uint8_t *body, size_t len, uint8_t version,
                                mqtt_disconnect_t *out, const char **why);

/* ---- outq.c: the bytes for the caller to write ---------------------------------------------- */

/* A writer over the free space of the output queue (its unsent bytes moved to the front). */
zq_writer_t mqtt_out_writer(mqtt_client_t *c);
/* Keeps what @p w wrote if it fits ZQ_MQTT_PACKET_MAX (and the server's limit): ZQ_OK,
 * ZQ_ERR_WOULD_BLOCK (no room now), or ZQ_ERR_TOO_LONG (never). */
zq_err_t mqtt_out_commit(mqtt_client_t *c, const zq_writer_t *w);
/* The largest packet the server takes (its Maximum Packet Size, bounded by ours). */
size_t mqtt_packet_limit(const mqtt_client_t *c);

/* ---- session.c: the in-flight table, incoming acks, requests, packet ids -------------------- */

uint16_t mqtt_session_next_id(mqtt_client_t *c);
zq_err_t mqtt_session_store(mqtt_client_t *c, const mqtt_publish_t *m, uint16_t *packet_id);
/* Removes the in-flight publish @p packet_id sent on this connection; false if there is none. */
bool mqtt_session_acked(mqtt_client_t *c, uint16_t packet_id);
/* The connection changed: everything is to be sent again; incoming acks wait for resends. */
void mqtt_session_new_connection(mqtt_client_t *c);
/* CONNACK with session_present 0: the broker has no state (see mqtt.h). */
void mqtt_session_lost(mqtt_client_t *c);
mqtt_unacked_t *mqtt_session_unacked(mqtt_client_t *c, uint16_t packet_id);
mqtt_unacked_t *mqtt_session_add_unacked(mqtt_client_t *c, uint16_t packet_id);
/* Writes what waits (DISCONNECT; PINGREQ, PUBACKs, publishes of the table) while it fits. */
void mqtt_pump(mqtt_client_t *c);
bool mqtt_request_add(mqtt_client_t *c, uint16_t packet_id, uint8_t type, size_t count);
bool mqtt_request_take(mqtt_client_t *c, uint16_t packet_id, uint8_t type, uint8_t *count);

/* ---- client.c / handle.c -------------------------------------------------------------------- */

void mqtt_emit(mqtt_client_t *c, const mqtt_event_t *ev);
/* Fails the connection (fatal input): a v5 DISCONNECT with @p reason, state CLOSED, an
 * MQTT_EV_ERROR event. */
void mqtt_fail(mqtt_client_t *c, uint8_t reason, const char *what);
/* May a packet that starts with @p first come now (its type, its fixed flags)? */
mqtt_rc_t mqtt_first_byte_check(const mqtt_client_t *c, uint8_t first, const char **why);
/* Dispatches one whole packet (rx.c calls it). */
void mqtt_handle_packet(mqtt_client_t *c, uint8_t first, const uint8_t *body, size_t len);
void mqtt_handle_connack(mqtt_client_t *c, const uint8_t *body, size_t len);

/* ---- topic.c -------------------------------------------------------------------------------- */

bool mqtt_topic_check(const uint8_t *s, size_t len, bool filter);

#endif /* ZQ_MQTT_INTERNAL_H */

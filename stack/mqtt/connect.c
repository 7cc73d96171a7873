/* CONNECT (3.1.1 §3.1, 5.0 §3.1): the first packet the client sends on a connection.
 *
 *     Fixed header    | 0x10 | Remaining Length (1-4 bytes)                    |
 *     Variable header | 00 04 'M' 'Q' 'T' 'T' | Protocol Level: 4 or 5       |
 *                     | Connect Flags | Keep Alive (MSB, LSB)                  |
 *                     | Properties (5.0 only, §3.1.2.11)                       |
 *     Payload         | Client Identifier | Will Properties (5.0) |          |
 *                     | Will Topic | Will Payload | User Name | Password     |
 *
 *     Connect Flags:   7         6        5        4   3     2       1         0
 *                  +---------+--------+--------+---------+------+-------+----------+
 *                  | User    |Password| Will   |Will QoS |Will  | Clean | Reserved |
 *                  | Name    |        | Retain |         |Flag  | Start |    0     |
 *                  +---------+--------+--------+---------+------+-------+----------+
 *
 * The fields after the Client Identifier are present only when their flag is set. The v5
 * CONNECT properties we send: Session Expiry Interval (when not 0), Receive Maximum (what we
 * grant) and Maximum Packet Size (ZQ_MQTT_PACKET_MAX). Topic Alias Maximum is left out: its
 * default, 0, is what we want (no alias from the server).
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

enum {
    FLAG_USERNAME = 0x80,
    FLAG_PASSWORD = 0x40,
    FLAG_WILL_RETAIN = 0x20,
    FLAG_WILL = 0x04,
    FLAG_CLEAN = 0x02,
};

static bool will_ok(const mqtt_publish_t *w, uint8_t version)
{
    if (w->qos > 1 || w->payload_len > 0xFFFF || (w->payload == NULL && w->payload_len != 0)) {
        return false;
    }
    if (!mqtt_topic_name_valid(w->topic, w->topic != NULL ? strlen(w->topic) : 0)) {
        return false;
    }
    return version != MQTT_V5 || mqtt_publish_props_valid(w);
}

zq_err_t mqtt_connect_check(const mqtt_options_t *o)
{
    if (o == NULL || (o->version != MQTT_V311 && o->version != MQTT_V5) || o->client_id == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    size_t id_len = strlen(o->client_id);
    if (id_len > 0xFFFF || !mqtt_utf8_ok((const uint8_t *)o->client_id, id_len)) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (o->version == MQTT_V311 && id_len == 0 && !o->clean_start) {
        return ZQ_ERR_INVALID_ARG; /* MQTT-3.1.3-7: no id, no session to resume */
    }
    if (o->username != NULL &&
        !mqtt_utf8_ok((const uint8_t *)o->username, strlen(o->username))) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (o->password != NULL && (o->password_len > 0xFFFF ||
                                (o->version == MQTT_V311 && o->username == NULL))) {
        return ZQ_ERR_INVALID_ARG; /* MQTT-3.1.2-22 */
    }
    if (o->receive_maximum > ZQ_MQTT_RX_INFLIGHT_MAX) {
        return ZQ_ERR_INVALID_ARG;
    }
    return o->will == NULL || will_ok(o->will, o->version) ? ZQ_OK : ZQ_ERR_INVALID_ARG;
}

static uint8_t connect_flags(const mqtt_options_t *o)
{
    uint8_t f = o->clean_start ? FLAG_CLEAN : 0;
    if (o->will != NULL) {
        f |= (uint8_t)(FLAG_WILL | o->will->qos << 3 | (o->will->retain ? FLAG_WILL_RETAIN : 0));
    }
    f |= o->username != NULL ? FLAG_USERNAME : 0;
    f |= o->password != NULL ? FLAG_PASSWORD : 0;
    return f;
}

static void write_properties(zq_writer_t *w, const mqtt_options_t *o, uint16_t receive_max)
{
    size_t mark = mqtt_props_begin(w);
    if (o->session_expiry_s != 0) {
        zq_write_u8(w, MQTT_P_SESSION_EXPIRY);
        zq_write_be32(w, o->session_expiry_s);
    }
    zq_write_u8(w, MQTT_P_RECEIVE_MAXIMUM);
    zq_write_be16(w, receive_max);
    zq_write_u8(w, MQTT_P_MAXIMUM_PACKET_SIZE);
    zq_write_be32(w, ZQ_MQTT_PACKET_MAX);
    mqtt_props_end(w, mark);
}

static void write_will(zq_writer_t *w, const mqtt_options_t *o)
{
    const mqtt_publish_t *will = o->will;
    if (o->version == MQTT_V5) {
        mqtt_props_write_publish(w, will, true, o->will_delay_s);
    }
    mqtt_write_cstr(w, will->topic);
    mqtt_write_binary(w, will->payload, will->payload_len);
}

void mqtt_connect_write(zq_writer_t *w, const mqtt_options_t *o, uint16_t receive_max)
{
    size_t mark = mqtt_packet_begin(w);
    mqtt_write_cstr(w, "MQTT");
    zq_write_u8(w, o->version);
    zq_write_u8(w, connect_flags(o));
    zq_write_be16(w, o->keepalive_s);
    if (o->version == MQTT_V5) {
        write_properties(w, o, receive_max);
    }
    mqtt_write_cstr(w, o->client_id);
    if (o->will != NULL) {
        write_will(w, o);
    }
    if (o->username != NULL) {
        mqtt_write_cstr(w, o->username);
    }
    if (o->password != NULL) {
        mqtt_write_binary(w, o->password, o->password_len);
    }
    mqtt_packet_end(w, mark, MQTT_CONNECT << 4);
}

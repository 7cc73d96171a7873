/* PUBLISH (3.1.1 §3.3, 5.0 §3.3): an application message, either way.
 *
 *     Fixed header    | 0011 | DUP | QoS (2 bits) | RETAIN | Remaining Length    |
 *     Variable header | Topic Name | Packet Identifier (QoS 1, 2 only)          |
 *                     | Properties (5.0 only, §3.3.2.3)                         |
 *     Payload         | the message: everything left of the Remaining Length     |
 *
 * QoS 3 is malformed (MQTT-3.3.1-4), and so is DUP on QoS 0 (MQTT-3.3.1-2), a Topic Name with
 * wildcards (MQTT-3.3.2-2) or an empty one (MQTT-4.7.3-1; 5.0 allows it only with a Topic
 * Alias, which we never grant), and a Packet Identifier of 0 (MQTT-2.3.1-1). QoS 2 is never
 * subscribed to, so a QoS 2 PUBLISH is a protocol error (MQTT-3.8.4-6: the server grants at
 * most what we asked). A Topic Alias is a protocol error too: our Topic Alias Maximum is 0
 * (5.0 §3.3.2.3.4, DISCONNECT 0x94).
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

zq_err_t mqtt_publish_check(const mqtt_publish_t *m)
{
    if (m == NULL || m->qos > 1 || (m->payload == NULL && m->payload_len != 0)) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (m->topic == NULL || !mqtt_topic_name_valid(m->topic, strlen(m->topic))) {
        return ZQ_ERR_INVALID_ARG;
    }
    return ZQ_OK;
}

void mqtt_publish_write(zq_writer_t *w, uint8_t version, const mqtt_publish_t *m,
                        uint16_t packet_id)
{
    size_t mark = mqtt_packet_begin(w);
    mqtt_write_cstr(w, m->topic);
    if (m->qos > 0) {
        zq_write_be16(w, packet_id);
    }
    if (version == MQTT_V5) {
        mqtt_props_write_publish(w, m, false, 0);
    }
    zq_write_bytes(w, m->payload, m->payload_len);
    uint8_t first = (uint8_t)(MQTT_PUBLISH << 4 | m->qos << 1);
    mqtt_packet_end(w, mark, m->retain ? (uint8_t)(first | MQTT_PUBLISH_RETAIN) : first);
}

static mqtt_rc_t check_flags(uint8_t flags, const char **why)
{
    uint8_t qos = (uint8_t)(flags >> 1 & 3);
    if (qos == 3) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "PUBLISH with QoS 3");
    }
    if (qos == 0 && (flags & MQTT_PUBLISH_DUP) != 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "PUBLISH QoS 0 with DUP");
    }
    if (qos == 2) {
        return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, "PUBLISH QoS 2 never subscribed");
    }
    return MQTT_RC_SUCCESS;
}

static bool has_wildcard(const mqtt_bytes_t *s)
{
    return memchr(s->data, '+', s->len) != NULL || memchr(s->data, '#', s->len) != NULL;
}

static mqtt_rc_t read_topic(zq_reader_t *r, mqtt_bytes_t *topic, const char **why)
{
    if (!mqtt_read_string(r, topic)) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "PUBLISH topic malformed");
    }
    if (topic->len == 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "PUBLISH topic empty");
    }
    if (has_wildcard(topic)) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "PUBLISH topic with wildcards");
    }
    return MQTT_RC_SUCCESS;
}

/* The v5 properties a message carries, into the event's fields. */
static void take_properties(const mqtt_props_t *p, mqtt_message_t *m)
{
    m->response_topic = p->str[MQTT_P_RESPONSE_TOPIC];
    m->correlation_data = p->str[MQTT_P_CORRELATION_DATA];
    m->content_type = p->str[MQTT_P_CONTENT_TYPE];
    m->has_payload_format = mqtt_props_has(p, MQTT_P_PAYLOAD_FORMAT);
    m->payload_format = (uint8_t)p->u32[MQTT_P_PAYLOAD_FORMAT];
    m->has_message_expiry = mqtt_props_has(p, MQTT_P_MESSAGE_EXPIRY);
    m->message_expiry_s = p->u32[MQTT_P_MESSAGE_EXPIRY];
    m->subscription_id = p->u32[MQTT_P_SUBSCRIPTION_ID];
    m->properties = p->block;
}

static mqtt_rc_t read_properties(zq_reader_t *r, mqtt_message_t *out, mqtt_props_t *props,
                                 const char **why)
{
    mqtt_rc_t rc = mqtt_props_parse(r, MQTT_PK_PUBLISH, props, why);
    if (rc != MQTT_RC_SUCCESS) {
        return rc;
    }
    if (mqtt_props_has(props, MQTT_P_TOPIC_ALIAS)) {
        return MQTT_REJECT(why, MQTT_RC_TOPIC_ALIAS_INVALID, "topic alias (maximum 0)");
    }
    const mqtt_bytes_t *reply = &props->str[MQTT_P_RESPONSE_TOPIC];
    if (reply->data != NULL && (reply->len == 0 || has_wildcard(reply))) {
        return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, "response topic not a topic name");
    }
    take_properties(props, out);
    return MQTT_RC_SUCCESS;
}

mqtt_rc_t mqtt_publish_parse(const uint8_t *body, size_t len, uint8_t flags, uint8_t version,
                             mqtt_message_t *out, mqtt_props_t *props, const char **why)
{
    memset(out, 0, sizeof *out);
    memset(props, 0, sizeof *props);
    mqtt_rc_t rc = check_flags(flags, why);
    zq_reader_t r = zq_reader(body, len);
    if (rc == MQTT_RC_SUCCESS) {
        rc = read_topic(&r, &out->topic, why);
    }
    if (rc != MQTT_RC_SUCCESS) {
        return rc;
    }
    out->qos = (uint8_t)(flags >> 1 & 3);
    out->dup = (flags & MQTT_PUBLISH_DUP) != 0;
    out->retain = (flags & MQTT_PUBLISH_RETAIN) != 0;
    if (out->qos > 0) {
        out->packet_id = zq_read_be16(&r);
        if (r.failed || out->packet_id == 0) {
            return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "PUBLISH packet id missing or 0");
        }
    }
    if (version == MQTT_V5) {
        rc = read_properties(&r, out, props, why);
        if (rc != MQTT_RC_SUCCESS) {
            return rc;
        }
    }
    size_t left = zq_reader_left(&r);
    out->payload = (mqtt_bytes_t){zq_read_bytes(&r, left), left};
    return MQTT_RC_SUCCESS;
}

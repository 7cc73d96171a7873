/* What each whole packet from the server does (CONNACK's, the session's start, is in
 * client.c). Which packets may come, and when: 3.1.1 §2.2, 5.0 §2.1.3 and §3.1.4 (nothing but
 * CONNACK, or a v5 DISCONNECT, before CONNACK; one CONNACK only). */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

static mqtt_rc_t protocol_error_unless(bool ok, const char **why, const char *text)
{
    if (ok) {
        return MQTT_RC_SUCCESS;
    }
    return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, text);
}

static mqtt_rc_t type_allowed(const mqtt_client_t *c, uint8_t type, const char **why)
{
    switch (type) {
    case MQTT_CONNACK:
        return protocol_error_unless(c->state == MQTT_STATE_CONNECTING, why, "second CONNACK");
    case MQTT_PUBLISH:
    case MQTT_PUBACK:
    case MQTT_SUBACK:
    case MQTT_UNSUBACK:
    case MQTT_PINGRESP:
        return protocol_error_unless(c->state == MQTT_STATE_CONNECTED, why,
                                     "packet before CONNACK");
    case MQTT_DISCONNECT:
        return MQTT_RC_SUCCESS;
    case MQTT_PUBREC:
    case MQTT_PUBREL:
    case MQTT_PUBCOMP:
        return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, "QoS 2 flow never started");
    case MQTT_AUTH:
        if (c->version == MQTT_V5) {
            return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, "AUTH without a method");
        }
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "reserved packet type 15");
    case 0:
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "reserved packet type 0");
    default: /* CONNECT, SUBSCRIBE, UNSUBSCRIBE, PINGREQ */
        return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, "packet only a client sends");
    }
}

/* 3.1.1 §2.2.2 / 5.0 §2.1.3: every type but PUBLISH has fixed flags (0000 for all a server
 * may send us); others are malformed (MQTT-2.2.2-2). */
mqtt_rc_t mqtt_first_byte_check(const mqtt_client_t *c, uint8_t first, const char **why)
{
    uint8_t type = first >> 4;
    mqtt_rc_t rc = type_allowed(c, type, why);
    if (rc == MQTT_RC_SUCCESS && type != MQTT_PUBLISH && (first & 0x0F) != 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "reserved fixed-header flags set");
    }
    return rc;
}

/* ---- PUBLISH -------------------------------------------------------------------------------- */

/* The table entry of an incoming QoS 1, known (a redelivery) or new; NULL when it cannot be
 * held: over the Receive Maximum we granted (5.0 §4.9: fatal) or our bound (3.1.1: dropped,
 * not acked, so the broker keeps it for the next session). */
static mqtt_unacked_t *track_qos1(mqtt_client_t *c, uint16_t id, bool *redelivery)
{
    mqtt_unacked_t *e = mqtt_session_unacked(c, id);
    if (e != NULL) {
        *redelivery = true;
        e->await_redelivery = false;
        return e;
    }
    /* Lenient: over what we granted (5.0) or chose as our bound (3.1.1, which the broker is
     * never told: mosquitto sends up to its max_inflight_messages, 20), held while the table
     * has room. */
    bool lenient = c->lenient_receive_max && c->n_unacked < ZQ_MQTT_RX_INFLIGHT_MAX;
    if (c->n_unacked >= c->receive_max && lenient) {
        c->stats.rx_over_quota++; /* over what we granted, still within what we hold */
    } else if (c->n_unacked >= c->receive_max && c->lenient_receive_max) {
        c->rx_held = true; /* the table is full: read nothing more until a slot frees */
        return NULL;
    } else if (c->n_unacked >= c->receive_max) {
        if (c->version == MQTT_V5) {
            mqtt_fail(c, MQTT_RC_RECEIVE_MAXIMUM_EXCEEDED, "server over our Receive Maximum");
        } else {
            c->stats.rx_over_quota++;
        }
        return NULL;
    }
    return mqtt_session_add_unacked(c, id);
}

static void handle_publish(mqtt_client_t *c, uint8_t first, const uint8_t *body, size_t len)
{
    mqtt_event_t ev = {.type = MQTT_EV_PUBLISH};
    mqtt_props_t props;
    const char *why = NULL;
    mqtt_rc_t rc = mqtt_publish_parse(body, len, first & 0x0F, c->version, &ev.publish, &props,
                                      &why);
    if (rc != MQTT_RC_SUCCESS) {
        mqtt_fail(c, rc, why);
        return;
    }
    mqtt_unacked_t *e = NULL;
    if (ev.publish.qos == 1 &&
        (e = track_qos1(c, ev.publish.packet_id, &ev.publish.redelivery_pending)) == NULL) {
        return;
    }
    if (ev.publish.topic.len > ZQ_MQTT_TOPIC_MAX) {
        c->stats.rx_topic_too_long++; /* refused, not held: nobody could take it */
        if (e != NULL && !e->acked) {
            e->acked = true;
            e->reason = MQTT_RC_IMPLEMENTATION_SPECIFIC;
        }
    } else {
        mqtt_emit(c, &ev);
    }
    mqtt_pump(c); /* an ack given before this redelivery, or in the callback */
}

/* ---- Acks ----------------------------------------------------------------------------------- */

static void handle_puback(mqtt_client_t *c, const uint8_t *body, size_t len)
{
    mqtt_puback_t ack;
    const char *why = NULL;
    mqtt_rc_t rc = mqtt_puback_parse(body, len, c->version, &ack, &why);
    if (rc != MQTT_RC_SUCCESS) {
        mqtt_fail(c, rc, why);
        return;
    }
    if (!mqtt_session_acked(c, ack.packet_id)) {
        c->stats.rx_unknown_ack++;
        return;
    }
    mqtt_event_t ev = {.type = MQTT_EV_PUBACK};
    ev.puback.packet_id = ack.packet_id;
    ev.puback.reason = ack.reason;
    ev.puback.refused = ack.reason >= 0x80;
    ev.puback.reason_string = ack.props.str[MQTT_P_REASON_STRING];
    mqtt_emit(c, &ev);
    mqtt_pump(c); /* the Receive Maximum has room for one more */
}

static void handle_suback(mqtt_client_t *c, uint8_t type, const uint8_t *body, size_t len)
{
    mqtt_suback_t ack;
    const char *why = NULL;
    mqtt_rc_t rc = type == MQTT_SUBACK ? mqtt_suback_parse(body, len, c->version, &ack, &why)
                                       : mqtt_unsuback_parse(body, len, c->version, &ack, &why);
    if (rc != MQTT_RC_SUCCESS) {
        mqtt_fail(c, rc, why);
        return;
    }
    uint8_t filters;
    uint8_t request = type == MQTT_SUBACK ? MQTT_SUBSCRIBE : MQTT_UNSUBSCRIBE;
    if (!mqtt_request_take(c, ack.packet_id, request, &filters)) {
        c->stats.rx_unknown_ack++;
        return;
    }
    if (ack.reasons != NULL && ack.count != filters) {
        mqtt_fail(c, MQTT_RC_PROTOCOL_ERROR, "reason codes do not match the filters");
        return; /* MQTT-3.9.3-1, 5.0 MQTT-3.11.3-1 */
    }
    mqtt_event_t ev = {.type = type == MQTT_SUBACK ? MQTT_EV_SUBACK : MQTT_EV_UNSUBACK};
    ev.ack.packet_id = ack.packet_id;
    ev.ack.reasons = ack.reasons;
    ev.ack.count = ack.count;
    ev.ack.reason_string = ack.props.str[MQTT_P_REASON_STRING];
    mqtt_emit(c, &ev);
}

/* ---- Keepalive and the server's goodbye ----------------------------------------------------- */

static void handle_disconnect(mqtt_client_t *c, const uint8_t *body, size_t len)
{
    mqtt_disconnect_t d;
    const char *why = NULL;
    mqtt_rc_t rc = mqtt_disconnect_parse(body, len, c->version, &d, &why);
    if (rc != MQTT_RC_SUCCESS) {
        mqtt_fail(c, rc, why);
        return;
    }
    c->state = MQTT_STATE_CLOSED;
    mqtt_event_t ev = {.type = MQTT_EV_DISCONNECT};
    ev.disconnect.reason = d.reason;
    ev.disconnect.reason_string = d.props.str[MQTT_P_REASON_STRING];
    ev.disconnect.server_reference = d.props.str[MQTT_P_SERVER_REFERENCE];
    mqtt_emit(c, &ev);
}

void mqtt_handle_packet(mqtt_client_t *c, uint8_t first, const uint8_t *body, size_t len)
{
    const char *why = NULL;
    uint8_t type = first >> 4;
    switch (type) {
    case MQTT_CONNACK: mqtt_handle_connack(c, body, len); break;
    case MQTT_PUBLISH: handle_publish(c, first, body, len); break;
    case MQTT_PUBACK: handle_puback(c, body, len); break;
    case MQTT_SUBACK:
    case MQTT_UNSUBACK: handle_suback(c, type, body, len); break;
    case MQTT_DISCONNECT: handle_disconnect(c, body, len); break;
    default: /* PINGRESP: the first-byte check let nothing else through */
        if (mqtt_pingresp_parse(len, &why) != MQTT_RC_SUCCESS) {
            mqtt_fail(c, MQTT_RC_MALFORMED_PACKET, why);
            return;
        }
        c->ping_outstanding = false;
        break;
    }
}

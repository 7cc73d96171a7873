/* The room's messages to MQTT (bridge.h, "Guarantees": zq to MQTT). */
#include <string.h>

#include "bridge/bridge_internal.h"

/* FNV-1a over the topic, a NUL and the payload: the echo ring's key. */
static uint64_t echo_key(const uint8_t *topic, size_t topic_len, const uint8_t *payload,
                         size_t len)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i <= topic_len + len; i++) {
        uint8_t c = i < topic_len ? topic[i] : i == topic_len ? 0 : payload[i - topic_len - 1];
        h = (h ^ c) * 1099511628211u;
    }
    return h;
}

void bridge_echo_note(bridge_t *g, const char *topic, const uint8_t *payload, size_t len)
{
    if (g->cfg.version == MQTT_V5) {
        return; /* No Local: MQTT never hands it back */
    }
    g->echo[g->echo_next] = echo_key((const uint8_t *)topic, strlen(topic), payload, len);
    g->echo_next = (g->echo_next + 1) % BRIDGE_ECHO_RING;
}

bool bridge_echo_take(bridge_t *g, const uint8_t *topic, size_t topic_len,
                      const uint8_t *payload, size_t len)
{
    if (g->cfg.version == MQTT_V5) {
        return false;
    }
    uint64_t key = echo_key(topic, topic_len, payload, len);
    for (size_t i = 0; i < BRIDGE_ECHO_RING; i++) {
        if (g->echo[i] == key && key != 0) {
            g->echo[i] = 0; /* one echo per publish */
            return true;
        }
    }
    return false;
}

static void park(bridge_t *g, const char *topic, const uint8_t *payload, size_t len,
                 uint32_t handle)
{
    bridge_parked_out_t *p = &g->parked;
    p->used = true;
    p->qos = 1;
    p->handle = handle;
    memcpy(p->topic, topic, strlen(topic) + 1);
    memcpy(p->payload, payload, len);
    p->payload_len = len;
}

/* QoS 1 (@p handle not 0) or 0. A QoS 1 message MQTT cannot take now is parked, one that it
 * can never take (a topic or size it refuses) is acked to the room: it would hold it forever. */
static void publish(bridge_t *g, uint64_t now, const char *topic, const uint8_t *payload,
                    size_t len, uint32_t handle)
{
    mqtt_publish_t m;
    memset(&m, 0, sizeof m);
    m.topic = topic;
    m.payload = payload;
    m.payload_len = len;
    m.qos = handle != 0 ? 1 : 0;
    m.retain = g->cfg.retain;
    uint16_t id = 0;
    zq_err_t err = mqtt_client_publish(g->mqtt, &m, &id);
    if (err == ZQ_ERR_UNSUPPORTED && m.retain) {
        m.retain = false; /* the broker keeps no retained messages (v5 Retain Available 0) */
        err = mqtt_client_publish(g->mqtt, &m, &id);
    }
    if (err == ZQ_OK) {
        g->stats.to_mqtt++;
        bridge_echo_note(g, topic, payload, len);
        if (handle != 0) {
            g->out[g->n_out++] = (bridge_out_t){id, handle};
        }
    } else if (handle != 0 && err == ZQ_ERR_WOULD_BLOCK) {
        park(g, topic, payload, len, handle);
    } else if (handle != 0) {
        g->stats.dropped_topic++;
        (void)brk_message_done(g->brk, now, handle);
    } else {
        g->stats.dropped_qos0++;
    }
}

void bridge_send_message(bridge_t *g, uint64_t now, const brk_event_t *ev)
{
    size_t n = bridge_topic_to_mqtt(&g->cfg, ev->topic.p, ev->topic.len, g->topic, sizeof g->topic);
    size_t len = bridge_payload_to_mqtt(ev->payload.p, ev->payload.len, (uint8_t *)g->payload,
                                        sizeof g->payload);
    if (n == 0 || (len == 0 && ev->payload.len > 2)) {
        g->stats.dropped_topic++; /* a wildcard in it, too long, a payload that will not fit */
        if (ev->handle != 0) {
            (void)brk_message_done(g->brk, now, ev->handle);
        }
        return;
    }
    publish(g, now, g->topic, (const uint8_t *)g->payload, len, ev->handle);
}

void bridge_send_parked(bridge_t *g, uint64_t now)
{
    bridge_parked_out_t *p = &g->parked;
    if (p->used && mqtt_client_inflight(g->mqtt) < ZQ_MQTT_INFLIGHT_MAX) {
        p->used = false;
        publish(g, now, p->topic, p->payload, p->payload_len, p->handle);
    }
}

void bridge_on_puback(bridge_t *g, uint64_t now, uint16_t packet_id, bool refused)
{
    for (size_t i = 0; i < g->n_out; i++) {
        if (g->out[i].packet_id != packet_id) {
            continue;
        }
        (void)brk_message_done(g->brk, now, g->out[i].handle);
        g->out[i] = g->out[--g->n_out];
        if (refused) {
            g->stats.mqtt_refused++;
        } else {
            g->stats.mqtt_acked++;
        }
        break;
    }
    bridge_send_parked(g, now);
}

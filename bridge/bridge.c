/* A room's topics on an MQTT broker (see bridge.h): the two sides' events, and the pump. */
#include <string.h>

#include "bridge/bridge_internal.h"

zq_err_t bridge_init(bridge_t *g, brk_t *brk, mqtt_client_t *mqtt, const bridge_config_t *cfg)
{
    memset(g, 0, sizeof *g);
    g->cfg = *cfg;
    g->brk = brk;
    g->mqtt = mqtt;
    if (strlen(cfg->prefix) > BRIDGE_PREFIX_MAX || cfg->n_from_mqtt >= ZQ_MQTT_SUBS_MAX ||
        cfg->n_to_mqtt > BRIDGE_FILTERS_MAX) {
        return ZQ_ERR_INVALID_ARG;
    }
    for (size_t i = 0; i < cfg->n_from_mqtt; i++) {
        if (!mqtt_topic_filter_valid(cfg->from_mqtt[i], strlen(cfg->from_mqtt[i]))) {
            return ZQ_ERR_MALFORMED;
        }
    }
    for (size_t i = 0; i < cfg->n_to_mqtt; i++) {
        zq_err_t err = brk_subscribe(brk, 0, cfg->to_mqtt[i]);
        if (err != ZQ_OK) {
            return err;
        }
    }
    return ZQ_OK;
}

void bridge_on_brk_event(bridge_t *g, uint64_t now, const brk_event_t *ev)
{
    switch (ev->type) {
    case BRK_EVENT_MESSAGE:
        bridge_send_message(g, now, ev);
        break;
    case BRK_EVENT_REPLY:
    case BRK_EVENT_REQUEST_FAILED:
        bridge_on_reply(g, now, ev);
        break;
    case BRK_EVENT_WRITABLE:
        bridge_publish_parked(g, now);
        break;
    default:
        break;
    }
    bridge_pump(g, now); /* before the broker's next event: hold its input if MQTT is full */
}

/* A CONNACK: a session the broker kept has our subscriptions (and a re-SUBSCRIBE would send
 * the retained messages again, in 3.1.1); a new one gets them. Without a session, the
 * broker forgot what we had not acked: those packet ids mean nothing now. */
static void connected(bridge_t *g, bool session_present)
{
    if (!session_present) {
        g->n_in = 0;
        bridge_mqtt_subscribe(g);
    }
}

void bridge_on_mqtt_event(bridge_t *g, uint64_t now, const mqtt_event_t *ev)
{
    switch (ev->type) {
    case MQTT_EV_CONNACK:
        if (ev->connack.accepted) {
            connected(g, ev->connack.session_present);
        }
        break;
    case MQTT_EV_PUBLISH:
        bridge_take_message(g, now, &ev->publish);
        break;
    case MQTT_EV_PUBACK:
        bridge_on_puback(g, now, ev->puback.packet_id, ev->puback.refused);
        break;
    default:
        break;
    }
}

void bridge_pump(bridge_t *g, uint64_t now)
{
    bridge_publish_parked(g, now);
    bridge_ack_settled(g, now);
    bridge_send_parked(g, now);
    /* One room message more could find MQTT's in-flight table full: none is read until a
     * PUBACK makes room. */
    brk_hold_input(g->brk, g->parked.used || mqtt_client_inflight(g->mqtt) >= ZQ_MQTT_INFLIGHT_MAX);
}

void bridge_mqtt_down(bridge_t *g)
{
    (void)g; /* the session, in-flight table and parked messages stay for the next CONNACK */
}

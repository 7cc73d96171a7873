/* MQTT's messages into the room (bridge.h, "Guarantees": MQTT to zq; "Requests"). */
#include <string.h>

#include "bridge/bridge_internal.h"
#include "zq/json.h"

static const char RPC_LEVEL[] = "/rpc/";

void bridge_mqtt_subscribe(bridge_t *g)
{
    mqtt_subscription_t subs[ZQ_MQTT_SUBS_MAX];
    size_t n = 0;
    char rpc[BRIDGE_PREFIX_MAX + sizeof RPC_LEVEL + 2];
    (void)memcpy(rpc, g->cfg.prefix, strlen(g->cfg.prefix) + 1);
    (void)strcat(rpc, "/rpc/x");
    bool rpc_covered = false;
    for (size_t i = 0; i < g->cfg.n_from_mqtt && n < ZQ_MQTT_SUBS_MAX - 1; i++) {
        subs[n++] = (mqtt_subscription_t){.filter = g->cfg.from_mqtt[i], .qos = 1,
                                          .no_local = true, .retain_handling = 1};
        rpc_covered |= mqtt_topic_matches(g->cfg.from_mqtt[i], rpc);
    }
    if (g->cfg.version == MQTT_V5 && !rpc_covered) {
        rpc[strlen(rpc) - 1] = '+'; /* requests, which only 5 can answer */
        subs[n++] = (mqtt_subscription_t){.filter = rpc, .qos = 1, .no_local = true};
    }
    uint16_t id;
    (void)mqtt_client_subscribe(g->mqtt, subs, n, &id);
}

/* ---- The arrival-order ring of QoS 1 messages ------------------------------------------- */

static bridge_in_t *in_at(bridge_t *g, size_t i)
{
    return &g->in[(g->in_head + i) % ZQ_MQTT_RX_INFLIGHT_MAX];
}

static bridge_in_t *in_add(bridge_t *g, uint16_t packet_id)
{
    bridge_in_t *e = in_at(g, g->n_in++);
    e->packet_id = packet_id;
    e->published = true; /* what the caller does not publish or park is settled at once */
    e->request = false;
    e->seq = 0;
    e->handle = 0;
    return e;
}

static bool in_parked_before(bridge_t *g)
{
    for (size_t i = 0; i < g->n_in; i++) {
        if (!in_at(g, i)->published) {
            return true;
        }
    }
    return false;
}

void bridge_ack_settled(bridge_t *g, uint64_t now)
{
    (void)now;
    while (g->n_in > 0) {
        bridge_in_t *e = in_at(g, 0);
        if (!e->published || e->request || !brk_publish_settled(g->brk, e->seq)) {
            return; /* PUBACKs go in arrival order (MQTT-4.6.0-2): the rest wait for it */
        }
        (void)mqtt_client_puback(g->mqtt, e->packet_id, MQTT_RC_SUCCESS);
        g->stats.room_acked += e->seq != 0;
        g->in_head = (g->in_head + 1) % ZQ_MQTT_RX_INFLIGHT_MAX;
        g->n_in--;
    }
}

/* ---- Publishing into the room -------------------------------------------------------------- */

/* @p e's parked text (topic, NUL, payload) into the room. @return false: the ring is full. */
static bool publish_in(bridge_t *g, uint64_t now, bridge_in_t *e)
{
    const char *payload = e->text + e->topic_len + 1;
    zq_err_t err = brk_publish_seq(g->brk, now, e->text, payload, e->payload_len, BRK_QOS_1,
                                   &e->seq);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        return false;
    }
    if (err == ZQ_OK) {
        g->stats.from_mqtt++;
    } else {
        g->stats.dropped_topic++; /* one the room refuses (too long): acked, it never goes */
        e->seq = 0;
    }
    e->published = true;
    return true;
}

void bridge_publish_parked(bridge_t *g, uint64_t now)
{
    for (size_t i = 0; i < g->n_in; i++) {
        bridge_in_t *e = in_at(g, i);
        if (!e->published && !publish_in(g, now, e)) {
            return; /* in order: what comes after waits too */
        }
    }
}

static void take_qos1(bridge_t *g, uint64_t now, uint16_t packet_id, size_t topic_len,
                      size_t payload_len)
{
    if (g->n_in == ZQ_MQTT_RX_INFLIGHT_MAX) {
        return; /* not reached: the client holds no more unacked than this ring */
    }
    bool behind = in_parked_before(g); /* in order: behind a parked one, it waits too */
    bridge_in_t *e = in_add(g, packet_id);
    memcpy(e->text, g->topic, topic_len + 1);
    memcpy(e->text + topic_len + 1, g->payload, payload_len);
    e->topic_len = topic_len;
    e->payload_len = payload_len;
    e->published = false;
    if (!behind) {
        (void)publish_in(g, now, e);
    }
}

static void take_qos0(bridge_t *g, uint64_t now, size_t payload_len)
{
    zq_err_t err = brk_publish(g->brk, now, g->topic, g->payload, payload_len, BRK_QOS_0);
    if (err == ZQ_OK) {
        g->stats.from_mqtt++;
    } else if (err == ZQ_ERR_WOULD_BLOCK) {
        g->stats.dropped_qos0++;
    } else {
        g->stats.dropped_topic++;
    }
}

/* A message that goes nowhere: QoS 1 is still acked, in its turn. */
static void settle_now(bridge_t *g, const mqtt_message_t *m)
{
    if (m->qos == 1 && g->n_in < ZQ_MQTT_RX_INFLIGHT_MAX) {
        (void)in_add(g, m->packet_id);
    }
}

/* ---- Requests (MQTT 5) --------------------------------------------------------------------- */

/* The service a request topic names (PREFIX/rpc/SERVICE), or 0 when it is no request. */
static size_t request_service(const bridge_t *g, const mqtt_message_t *m, const char **service)
{
    size_t prefix = strlen(g->cfg.prefix);
    size_t head = prefix + sizeof RPC_LEVEL - 1;
    const char *t = (const char *)m->topic.data;
    if (m->topic.len <= head || memcmp(t, g->cfg.prefix, prefix) != 0 ||
        memcmp(t + prefix, RPC_LEVEL, sizeof RPC_LEVEL - 1) != 0 ||
        memchr(t + head, '/', m->topic.len - head) != NULL) {
        return 0;
    }
    *service = t + head;
    return m->topic.len - head;
}

static void reply(bridge_t *g, const bridge_request_t *r, const char *json, size_t len,
                  const char *error)
{
    size_t n = error != NULL ? 0 : bridge_payload_to_mqtt(json, len, (uint8_t *)g->payload,
                                                          sizeof g->payload);
    if (error != NULL) {
        json_writer_t w;
        json_writer_init(&w, g->payload, sizeof g->payload);
        json_object_begin(&w);
        json_key(&w, "error");
        json_string(&w, error, strlen(error));
        json_object_end(&w);
        n = json_finish(&w);
    }
    mqtt_user_prop_t prop = {"zq-error", error != NULL ? error : ""};
    mqtt_publish_t p;
    memset(&p, 0, sizeof p);
    p.topic = r->response_topic;
    p.payload = (const uint8_t *)g->payload;
    p.payload_len = n;
    p.qos = r->qos;
    p.correlation_data = r->correlation_len > 0 ? r->correlation : NULL;
    p.correlation_len = r->correlation_len;
    p.user_props = error != NULL ? &prop : NULL;
    p.n_user_props = error != NULL ? 1 : 0;
    uint16_t id;
    if (mqtt_client_publish(g->mqtt, &p, &id) == ZQ_OK) {
        g->stats.requests++;
    } else {
        g->stats.dropped_qos0++; /* the reply could not go (MQTT down, output full) */
    }
}

static void take_request(bridge_t *g, uint64_t now, const mqtt_message_t *m, const char *service,
                         size_t service_len, size_t payload_len)
{
    bridge_request_t *r = NULL;
    for (size_t i = 0; r == NULL && i < BRIDGE_REQUESTS_MAX; i++) {
        r = g->requests[i].used ? NULL : &g->requests[i];
    }
    if (m->response_topic.data == NULL || m->response_topic.len > ZQ_MQTT_TOPIC_MAX ||
        m->correlation_data.len > BRIDGE_CORRELATION_MAX || service_len > ZQ_BRK_NAME_MAX) {
        g->stats.dropped_request++; /* nowhere to answer (3.1.1 has no response topic) */
        settle_now(g, m);
        return;
    }
    bridge_request_t busy = {0};
    bridge_request_t *to = r != NULL ? r : &busy;
    memcpy(to->response_topic, m->response_topic.data, m->response_topic.len);
    to->response_topic[m->response_topic.len] = '\0';
    memcpy(to->correlation, m->correlation_data.data, m->correlation_data.len);
    to->correlation_len = m->correlation_data.len;
    to->qos = m->qos;
    char name[ZQ_BRK_NAME_MAX + 1];
    memcpy(name, service, service_len);
    name[service_len] = '\0';
    if (r == NULL || brk_request(g->brk, now, name, g->payload, payload_len, 0,
                                 g->brk->cfg.request_retries, &r->handle) != ZQ_OK) {
        g->stats.dropped_request++;
        reply(g, to, NULL, 0, "busy: too many requests in flight");
        settle_now(g, m);
        return;
    }
    r->used = true;
    if (m->qos == 1 && g->n_in < ZQ_MQTT_RX_INFLIGHT_MAX) {
        bridge_in_t *e = in_add(g, m->packet_id);
        e->request = true; /* acked once answered */
        e->handle = r->handle;
    }
}

void bridge_on_reply(bridge_t *g, uint64_t now, const brk_event_t *ev)
{
    (void)now;
    for (size_t i = 0; i < BRIDGE_REQUESTS_MAX; i++) {
        bridge_request_t *r = &g->requests[i];
        if (!r->used || r->handle != ev->handle) {
            continue;
        }
        if (ev->type == BRK_EVENT_REQUEST_FAILED) {
            reply(g, r, NULL, 0, "no responder answered");
        } else if (!ev->ok) {
            char why[128];
            size_t n = bridge_payload_to_mqtt(ev->payload.p, ev->payload.len, (uint8_t *)why,
                                              sizeof why - 1);
            why[n] = '\0';
            reply(g, r, NULL, 0, why);
        } else {
            reply(g, r, ev->payload.p, ev->payload.len, NULL);
        }
        r->used = false;
        for (size_t k = 0; k < g->n_in; k++) {
            bridge_in_t *e = in_at(g, k);
            if (e->request && e->handle == ev->handle) {
                e->request = false; /* answered: its PUBACK may go, in its turn */
            }
        }
        return;
    }
}

/* ---- A message from MQTT ------------------------------------------------------------------ */

void bridge_take_message(bridge_t *g, uint64_t now, const mqtt_message_t *m)
{
    bool binary;
    const char *service = NULL;
    if (m->redelivery_pending) {
        g->stats.redeliveries++; /* it is on its way already: its PUBACK comes in its turn */
        return;
    }
    if (bridge_echo_take(g, m->topic.data, m->topic.len, m->payload.data, m->payload.len)) {
        g->stats.echoes++;
        settle_now(g, m);
        return;
    }
    size_t payload_len = bridge_payload_from_mqtt(m->payload.data, m->payload.len, g->payload,
                                                  sizeof g->payload, &binary);
    size_t service_len = request_service(g, m, &service);
    size_t topic_len = service_len > 0 ? 0
                                       : bridge_topic_from_mqtt(&g->cfg, (const char *)m->topic.data,
                                                                m->topic.len, g->topic,
                                                                ZQ_BRK_NAME_MAX + 1);
    if (payload_len == 0 || (service_len == 0 && topic_len == 0)) {
        g->stats.dropped_binary += binary;
        g->stats.dropped_topic += !binary;
        settle_now(g, m);
    } else if (service_len > 0) {
        take_request(g, now, m, service, service_len, payload_len);
    } else if (m->qos == 1) {
        take_qos1(g, now, m->packet_id, topic_len, payload_len);
    } else {
        take_qos0(g, now, payload_len);
    }
}

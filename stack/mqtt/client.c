/* The session state machine (3.1.1 §3.1.4, §4.1, §4.4; 5.0 §3.1.4, §4.1, §4.4): connect,
 * CONNACK, the keepalive timers, disconnect and a lost connection, and the calls that queue
 * messages. Parsing is in the packet files, framing in rx.c, the tables in session.c.
 *
 *     IDLE --connect--> CONNECTING --CONNACK 0--> CONNECTED --disconnect--> CLOSING
 *                           |  \--CONNACK refusal, error, dead--> CLOSED <--/ error, dead,
 *                           |                                              server DISCONNECT
 *     any state --reset_connection--> IDLE (the session stays)
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

#define KEEPALIVE_GRACE_NUM 3 /* dead after 1.5 x keepalive (3.1.1 §3.1.2.10, 5.0 §3.1.2.10) */
#define KEEPALIVE_GRACE_DEN 2

void mqtt_emit(mqtt_client_t *c, const mqtt_event_t *ev)
{
    c->on_event(c->user, ev);
}

void mqtt_fail(mqtt_client_t *c, uint8_t reason, const char *what)
{
    if (c->version == MQTT_V5) {
        c->want_disconnect = true; /* 5.0 §4.13.1: say why before closing */
        c->disconnect_reason = reason;
    }
    c->state = MQTT_STATE_CLOSED;
    mqtt_pump(c);
    mqtt_event_t ev = {.type = MQTT_EV_ERROR};
    ev.error.reason = reason;
    ev.error.what = what;
    mqtt_emit(c, &ev);
}

static void server_defaults(mqtt_server_t *s, uint16_t keepalive_s)
{
    *s = (mqtt_server_t){.receive_maximum = 65535,
                         .maximum_qos = 2,
                         .retain_available = true,
                         .wildcard_available = true,
                         .subscription_ids_available = true,
                         .shared_available = true,
                         .keepalive_s = keepalive_s};
}

void mqtt_options_default(mqtt_options_t *opt, uint8_t version, const char *client_id)
{
    *opt = (mqtt_options_t){.version = version,
                            .client_id = client_id,
                            .keepalive_s = 60,
                            .clean_start = true,
                            .receive_maximum = ZQ_MQTT_RX_INFLIGHT_MAX};
}

void mqtt_client_init(mqtt_client_t *c, mqtt_event_fn on_event, void *user)
{
    memset(c, 0, sizeof *c);
    c->on_event = on_event;
    c->user = user;
    c->state = MQTT_STATE_IDLE;
    c->next_id = 1;
    server_defaults(&c->server, 0);
}

/* ---- Connecting ----------------------------------------------------------------------------- */

zq_err_t mqtt_client_connect(mqtt_client_t *c, uint64_t now, const mqtt_options_t *opt)
{
    if (c->state != MQTT_STATE_IDLE) {
        return ZQ_ERR_STATE;
    }
    zq_err_t err = mqtt_connect_check(opt);
    if (err != ZQ_OK) {
        return err;
    }
    if (c->n_inflight > 0 && opt->version != c->version) {
        return ZQ_ERR_INVALID_ARG; /* the table is encoded for the session's version */
    }
    uint16_t receive_max = opt->receive_maximum != 0 ? opt->receive_maximum
                                                     : ZQ_MQTT_RX_INFLIGHT_MAX;
    c->now = now;
    server_defaults(&c->server, opt->keepalive_s);
    zq_writer_t w = mqtt_out_writer(c);
    mqtt_connect_write(&w, opt, receive_max);
    err = mqtt_out_commit(c, &w);
    if (err != ZQ_OK) {
        return err;
    }
    c->version = opt->version;
    c->clean_start = opt->clean_start;
    c->receive_max = receive_max;
    c->lenient_receive_max = opt->lenient_receive_maximum;
    c->keepalive_ms = (uint32_t)opt->keepalive_s * 1000u;
    c->last_rx = now;
    c->state = MQTT_STATE_CONNECTING;
    return ZQ_OK;
}

static uint32_t prop_or(const mqtt_props_t *p, uint8_t id, uint32_t otherwise)
{
    return mqtt_props_has(p, id) ? p->u32[id] : otherwise;
}

/* 5.0 §3.2.2.3: what the server says of itself; absent properties keep their defaults. */
static void take_server_properties(mqtt_client_t *c, const mqtt_props_t *p)
{
    mqtt_server_t *s = &c->server;
    s->receive_maximum = (uint16_t)prop_or(p, MQTT_P_RECEIVE_MAXIMUM, s->receive_maximum);
    s->maximum_packet_size = prop_or(p, MQTT_P_MAXIMUM_PACKET_SIZE, s->maximum_packet_size);
    s->maximum_qos = (uint8_t)prop_or(p, MQTT_P_MAXIMUM_QOS, s->maximum_qos);
    s->retain_available = prop_or(p, MQTT_P_RETAIN_AVAILABLE, 1) != 0;
    s->wildcard_available = prop_or(p, MQTT_P_WILDCARD_AVAILABLE, 1) != 0;
    s->subscription_ids_available = prop_or(p, MQTT_P_SUBSCRIPTION_IDS_AVAILABLE, 1) != 0;
    s->shared_available = prop_or(p, MQTT_P_SHARED_AVAILABLE, 1) != 0;
    s->topic_alias_maximum = (uint16_t)prop_or(p, MQTT_P_TOPIC_ALIAS_MAXIMUM, 0);
    s->has_session_expiry = mqtt_props_has(p, MQTT_P_SESSION_EXPIRY);
    s->session_expiry_s = prop_or(p, MQTT_P_SESSION_EXPIRY, 0);
    s->has_keepalive = mqtt_props_has(p, MQTT_P_SERVER_KEEP_ALIVE);
    if (s->has_keepalive) { /* §3.2.2.3.14: it replaces ours */
        s->keepalive_s = (uint16_t)p->u32[MQTT_P_SERVER_KEEP_ALIVE];
        c->keepalive_ms = (uint32_t)s->keepalive_s * 1000u;
    }
}

static void connack_event(mqtt_client_t *c, const mqtt_connack_t *ack)
{
    mqtt_event_t ev = {.type = MQTT_EV_CONNACK};
    ev.connack.accepted = ack->reason == MQTT_RC_SUCCESS;
    ev.connack.session_present = ack->session_present;
    ev.connack.reason = ack->reason;
    ev.connack.server = &c->server;
    ev.connack.assigned_client_id = ack->props.str[MQTT_P_ASSIGNED_CLIENT_ID];
    ev.connack.reason_string = ack->props.str[MQTT_P_REASON_STRING];
    mqtt_emit(c, &ev);
}

void mqtt_handle_connack(mqtt_client_t *c, const uint8_t *body, size_t len)
{
    mqtt_connack_t ack;
    const char *why = NULL;
    mqtt_rc_t rc = mqtt_connack_parse(body, len, c->version, &ack, &why);
    if (rc == MQTT_RC_SUCCESS && c->clean_start && ack.session_present) {
        rc = MQTT_REJECT(&why, MQTT_RC_PROTOCOL_ERROR, "session present after a clean start");
    } /* MQTT-3.2.2-1 (3.1.1), MQTT-3.2.2-2 (5.0) */
    if (rc != MQTT_RC_SUCCESS) {
        mqtt_fail(c, rc, why);
        return;
    }
    if (ack.reason != MQTT_RC_SUCCESS) {
        c->state = MQTT_STATE_CLOSED; /* refused: the server closes (MQTT-3.2.2-5) */
        connack_event(c, &ack);
        return;
    }
    take_server_properties(c, &ack.props);
    if (!ack.session_present) {
        mqtt_session_lost(c);
    }
    c->state = MQTT_STATE_CONNECTED;
    mqtt_pump(c); /* the table goes out again first, in order */
    connack_event(c, &ack);
}

/* ---- Ending --------------------------------------------------------------------------------- */

zq_err_t mqtt_client_disconnect(mqtt_client_t *c, uint8_t reason)
{
    if (c->state != MQTT_STATE_CONNECTING && c->state != MQTT_STATE_CONNECTED) {
        return ZQ_ERR_STATE;
    }
    c->want_disconnect = true;
    c->disconnect_reason = reason;
    c->state = MQTT_STATE_CLOSING;
    mqtt_pump(c);
    return ZQ_OK;
}

void mqtt_client_reset_connection(mqtt_client_t *c)
{
    c->generation++;
    c->state = MQTT_STATE_IDLE;
    c->out_head = c->out_tail = 0;
    c->rx_hdr_len = 0;
    c->rx_in_body = c->rx_skipping = c->rx_held = false; /* a held PUBLISH is sent again */
    c->n_requests = 0; /* SUBSCRIBE and UNSUBSCRIBE are never resent */
    c->ping_outstanding = c->want_ping = c->want_disconnect = false;
    mqtt_session_new_connection(c);
}

/* ---- Keepalive (3.1.1 §3.1.2.10, 5.0 §3.1.2.10) -------------------------------------------- */

static bool timers_run(const mqtt_client_t *c)
{
    return c->keepalive_ms != 0 &&
           (c->state == MQTT_STATE_CONNECTING || c->state == MQTT_STATE_CONNECTED);
}

static uint64_t dead_at(const mqtt_client_t *c)
{
    return c->last_rx + (uint64_t)c->keepalive_ms * KEEPALIVE_GRACE_NUM / KEEPALIVE_GRACE_DEN;
}

/* A PINGREQ when we have sent nothing for a keepalive (what the spec asks), or heard nothing
 * for one (so a client that only sends still learns the connection lives). */
static uint64_t ping_at(const mqtt_client_t *c)
{
    return zq_time_min(c->last_tx, c->last_rx) + c->keepalive_ms;
}

void mqtt_client_timeout(mqtt_client_t *c, uint64_t now)
{
    c->now = now;
    if (!timers_run(c)) {
        return;
    }
    if (now >= dead_at(c)) {
        c->state = MQTT_STATE_CLOSED;
        mqtt_event_t ev = {.type = MQTT_EV_DEAD};
        ev.error.reason = MQTT_RC_UNSPECIFIED_ERROR;
        ev.error.what = "nothing received for 1.5 x keepalive";
        mqtt_emit(c, &ev);
        return;
    }
    if (c->state == MQTT_STATE_CONNECTED && !c->ping_outstanding && now >= ping_at(c)) {
        c->ping_outstanding = c->want_ping = true;
        mqtt_pump(c);
    }
}

uint64_t mqtt_client_next_timeout(const mqtt_client_t *c)
{
    if (!timers_run(c)) {
        return ZQ_TIME_NEVER;
    }
    uint64_t t = dead_at(c);
    if (c->state == MQTT_STATE_CONNECTED && !c->ping_outstanding) {
        t = zq_time_min(t, ping_at(c));
    }
    return t;
}

/* ---- Messages ------------------------------------------------------------------------------- */

static zq_err_t publish_allowed(const mqtt_client_t *c, const mqtt_publish_t *m)
{
    zq_err_t err = mqtt_publish_check(m);
    if (err != ZQ_OK) {
        return err;
    }
    if (c->version == 0) {
        return ZQ_ERR_STATE; /* no connect yet: the encoding is not known */
    }
    if (c->version == MQTT_V5 && !mqtt_publish_props_valid(m)) {
        return ZQ_ERR_INVALID_ARG;
    }
    if ((m->retain && !c->server.retain_available) || m->qos > c->server.maximum_qos) {
        return ZQ_ERR_UNSUPPORTED; /* 5.0 §3.2.2.3.4-5 */
    }
    return ZQ_OK;
}

zq_err_t mqtt_client_publish(mqtt_client_t *c, const mqtt_publish_t *msg, uint16_t *packet_id)
{
    zq_err_t err = publish_allowed(c, msg);
    if (err != ZQ_OK) {
        return err;
    }
    if (msg->qos == 0) {
        if (c->state != MQTT_STATE_CONNECTED) {
            return ZQ_ERR_STATE;
        }
        zq_writer_t w = mqtt_out_writer(c);
        mqtt_publish_write(&w, c->version, msg, 0);
        return mqtt_out_commit(c, &w);
    }
    uint16_t id;
    err = mqtt_session_store(c, msg, &id);
    if (err != ZQ_OK) {
        return err;
    }
    if (packet_id != NULL) {
        *packet_id = id;
    }
    mqtt_pump(c);
    return ZQ_OK;
}

static bool puback_reason_ok(uint8_t rc)
{
    static const uint8_t codes[] = {0x00, 0x10, 0x80, 0x83, 0x87, 0x90, 0x91, 0x97, 0x99};
    return memchr(codes, rc, sizeof codes) != NULL; /* 5.0 §3.4.2.1 */
}

zq_err_t mqtt_client_puback(mqtt_client_t *c, uint16_t packet_id, uint8_t reason)
{
    if (packet_id == 0 || (c->version == MQTT_V5 && !puback_reason_ok(reason))) {
        return ZQ_ERR_INVALID_ARG;
    }
    mqtt_unacked_t *e = mqtt_session_unacked(c, packet_id);
    if (e == NULL) {
        return ZQ_ERR_NOT_FOUND;
    }
    if (!e->acked) {
        e->acked = true;
        e->reason = c->version == MQTT_V5 ? reason : 0;
        mqtt_pump(c);
    }
    return ZQ_OK;
}

/* SUBSCRIBE and UNSUBSCRIBE: written now, or refused whole. */
static zq_err_t queue_request(mqtt_client_t *c, uint8_t type, const void *list, size_t n,
                              uint16_t *packet_id)
{
    if (c->state != MQTT_STATE_CONNECTED) {
        return ZQ_ERR_STATE;
    }
    if (c->n_requests >= ZQ_MQTT_REQUESTS_MAX) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    uint16_t id = mqtt_session_next_id(c);
    zq_writer_t w = mqtt_out_writer(c);
    if (type == MQTT_SUBSCRIBE) {
        mqtt_subscribe_write(&w, c->version, id, list, n);
    } else {
        mqtt_unsubscribe_write(&w, c->version, id, list, n);
    }
    zq_err_t err = mqtt_out_commit(c, &w);
    if (err == ZQ_OK) {
        (void)mqtt_request_add(c, id, type, n);
        if (packet_id != NULL) {
            *packet_id = id;
        }
    }
    return err;
}

zq_err_t mqtt_client_subscribe(mqtt_client_t *c, const mqtt_subscription_t *subs, size_t n,
                               uint16_t *packet_id)
{
    zq_err_t err = mqtt_subscribe_check(subs, n);
    return err != ZQ_OK ? err : queue_request(c, MQTT_SUBSCRIBE, subs, n, packet_id);
}

zq_err_t mqtt_client_unsubscribe(mqtt_client_t *c, const char *const *filters, size_t n,
                                 uint16_t *packet_id)
{
    zq_err_t err = mqtt_unsubscribe_check(filters, n);
    return err != ZQ_OK ? err : queue_request(c, MQTT_UNSUBSCRIBE, filters, n, packet_id);
}

/* ---- Reading the state ---------------------------------------------------------------------- */

mqtt_state_t mqtt_client_state(const mqtt_client_t *c)
{
    return c->state;
}

const mqtt_server_t *mqtt_client_server(const mqtt_client_t *c)
{
    return &c->server;
}

const mqtt_stats_t *mqtt_client_stats(const mqtt_client_t *c)
{
    return &c->stats;
}

size_t mqtt_client_inflight(const mqtt_client_t *c)
{
    return c->n_inflight;
}

size_t mqtt_client_unacked(const mqtt_client_t *c)
{
    return c->n_unacked;
}

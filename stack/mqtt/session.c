/* The session state a client keeps across connections (3.1.1 §4.1, 5.0 §4.1): the QoS 1
 * publishes sent and not yet acknowledged (whole, in send order, in one pool of bytes), the
 * incoming QoS 1 awaiting our PUBACK, and the packet ids in use. mqtt_pump() writes what waits
 * for the output: a DISCONNECT, a PINGREQ, the PUBACKs the caller gave, then the publishes of
 * the table, no more on the wire at once than the server's Receive Maximum (5.0 §4.9). */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

static bool id_in_use(const mqtt_client_t *c, uint16_t id)
{
    for (uint16_t i = 0; i < c->n_inflight; i++) {
        if (c->inflight[i].packet_id == id) {
            return true;
        }
    }
    for (uint8_t i = 0; i < c->n_requests; i++) {
        if (c->requests[i].packet_id == id) {
            return true;
        }
    }
    return false;
}

/* MQTT-2.3.1-1/-2: non-zero, and not one still awaiting its ack. Fewer ids are in use than
 * there are ids, so the walk ends. */
uint16_t mqtt_session_next_id(mqtt_client_t *c)
{
    for (;;) {
        uint16_t id = c->next_id++;
        if (c->next_id == 0) {
            c->next_id = 1;
        }
        if (id != 0 && !id_in_use(c, id)) {
            return id;
        }
    }
}

zq_err_t mqtt_session_store(mqtt_client_t *c, const mqtt_publish_t *m, uint16_t *packet_id)
{
    if (c->n_inflight >= ZQ_MQTT_INFLIGHT_MAX) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    uint16_t id = mqtt_session_next_id(c);
    zq_writer_t w = zq_writer(c->pool + c->pool_used, ZQ_MQTT_INFLIGHT_BYTES - c->pool_used);
    mqtt_publish_write(&w, c->version, m, id);
    if (w.failed) {
        return c->pool_used == 0 ? ZQ_ERR_TOO_LONG : ZQ_ERR_WOULD_BLOCK;
    }
    if (w.len > mqtt_packet_limit(c)) {
        return ZQ_ERR_TOO_LONG;
    }
    c->inflight[c->n_inflight++] =
        (mqtt_inflight_t){.off = c->pool_used, .len = (uint32_t)w.len, .packet_id = id};
    c->pool_used += (uint32_t)w.len;
    *packet_id = id;
    return ZQ_OK;
}

/* Takes entry @p i out of the table and its bytes out of the pool. */
static void remove_inflight(mqtt_client_t *c, uint16_t i)
{
    mqtt_inflight_t gone = c->inflight[i];
    memmove(c->pool + gone.off, c->pool + gone.off + gone.len,
            c->pool_used - gone.off - gone.len);
    c->pool_used -= gone.len;
    for (uint16_t j = i; j + 1 < c->n_inflight; j++) {
        c->inflight[j] = c->inflight[j + 1];
        c->inflight[j].off -= gone.len;
    }
    c->n_inflight--;
    if (i < c->on_wire) {
        c->on_wire--;
    }
}

bool mqtt_session_acked(mqtt_client_t *c, uint16_t packet_id)
{
    for (uint16_t i = 0; i < c->on_wire; i++) {
        if (c->inflight[i].packet_id == packet_id) {
            remove_inflight(c, i);
            return true;
        }
    }
    return false;
}

void mqtt_session_new_connection(mqtt_client_t *c)
{
    c->on_wire = 0;
    for (uint16_t i = 0; i < c->n_unacked; i++) {
        c->unacked[i].await_redelivery = true; /* MQTT-4.4.0-1: the server resends them */
    }
}

void mqtt_session_lost(mqtt_client_t *c)
{
    c->n_unacked = 0;
    for (uint16_t i = 0; i < c->n_inflight; i++) {
        c->inflight[i].sent = false; /* new to this session: DUP 0 */
        c->pool[c->inflight[i].off] &= (uint8_t)~MQTT_PUBLISH_DUP;
    }
}

mqtt_unacked_t *mqtt_session_unacked(mqtt_client_t *c, uint16_t packet_id)
{
    for (uint16_t i = 0; i < c->n_unacked; i++) {
        if (c->unacked[i].packet_id == packet_id) {
            return &c->unacked[i];
        }
    }
    return NULL;
}

mqtt_unacked_t *mqtt_session_add_unacked(mqtt_client_t *c, uint16_t packet_id)
{
    if (c->n_unacked >= ZQ_MQTT_RX_INFLIGHT_MAX) {
        return NULL;
    }
    mqtt_unacked_t *e = &c->unacked[c->n_unacked++];
    *e = (mqtt_unacked_t){.packet_id = packet_id};
    return e;
}

bool mqtt_request_add(mqtt_client_t *c, uint16_t packet_id, uint8_t type, size_t count)
{
    if (c->n_requests >= ZQ_MQTT_REQUESTS_MAX) {
        return false;
    }
    c->requests[c->n_requests++] =
        (mqtt_request_t){.packet_id = packet_id, .type = type, .count = (uint8_t)count};
    return true;
}

bool mqtt_request_take(mqtt_client_t *c, uint16_t packet_id, uint8_t type, uint8_t *count)
{
    for (uint8_t i = 0; i < c->n_requests; i++) {
        if (c->requests[i].packet_id == packet_id && c->requests[i].type == type) {
            *count = c->requests[i].count;
            c->requests[i] = c->requests[--c->n_requests];
            return true;
        }
    }
    return false;
}

/* ---- Writing what waits --------------------------------------------------------------------- */

static bool write_disconnect(mqtt_client_t *c)
{
    zq_writer_t w = mqtt_out_writer(c);
    mqtt_disconnect_write(&w, c->version, c->disconnect_reason);
    return mqtt_out_commit(c, &w) == ZQ_OK;
}

static bool write_ping(mqtt_client_t *c)
{
    zq_writer_t w = mqtt_out_writer(c);
    mqtt_pingreq_write(&w);
    return mqtt_out_commit(c, &w) == ZQ_OK;
}

/* The caller's acks, in the order it gave them (see mqtt_client_puback()). One waiting for
 * the server's resend after a reconnect is answered when that arrives. */
static bool write_pubacks(mqtt_client_t *c)
{
    uint16_t i = 0;
    while (i < c->n_unacked) {
        mqtt_unacked_t *e = &c->unacked[i];
        if (!e->acked || e->await_redelivery) {
            i++;
            continue;
        }
        zq_writer_t w = mqtt_out_writer(c);
        mqtt_puback_write(&w, c->version, e->packet_id, e->reason);
        if (mqtt_out_commit(c, &w) != ZQ_OK) {
            return false;
        }
        memmove(e, e + 1, (size_t)(c->n_unacked - i - 1) * sizeof *e); /* keeps arrival order */
        c->n_unacked--;
    }
    return true;
}

/* A publish stored under a larger Maximum Packet Size than the server now allows can never be
 * sent: it is settled locally, with 0x95, so the caller hears of it. */
static void refuse_too_large(mqtt_client_t *c, uint16_t i)
{
    mqtt_event_t ev = {.type = MQTT_EV_PUBACK};
    ev.puback.packet_id = c->inflight[i].packet_id;
    ev.puback.reason = MQTT_RC_PACKET_TOO_LARGE;
    ev.puback.refused = true;
    ev.puback.local = true;
    remove_inflight(c, i);
    mqtt_emit(c, &ev);
}

/* The publishes of the table not yet on this connection, in order, DUP on those an earlier
 * connection of the session carried (MQTT-3.3.1-1). */
static void write_publishes(mqtt_client_t *c)
{
    while (c->state == MQTT_STATE_CONNECTED && c->on_wire < c->n_inflight &&
           c->on_wire < c->server.receive_maximum) {
        mqtt_inflight_t *e = &c->inflight[c->on_wire];
        if (e->len > mqtt_packet_limit(c)) {
            refuse_too_large(c, c->on_wire);
            continue;
        }
        if (e->sent) {
            c->pool[e->off] |= MQTT_PUBLISH_DUP;
        }
        zq_writer_t w = mqtt_out_writer(c);
        zq_write_bytes(&w, c->pool + e->off, e->len);
        if (mqtt_out_commit(c, &w) != ZQ_OK) {
            return;
        }
        e->sent = true;
        c->on_wire++;
    }
}

void mqtt_pump(mqtt_client_t *c)
{
    if (c->want_disconnect) {
        c->want_disconnect = !write_disconnect(c);
        return;
    }
    if (c->state != MQTT_STATE_CONNECTED) {
        return;
    }
    if (c->want_ping) {
        c->want_ping = !write_ping(c);
        if (c->want_ping) {
            return;
        }
    }
    if (write_pubacks(c)) {
        write_publishes(c);
    }
}

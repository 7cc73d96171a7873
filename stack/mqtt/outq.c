/* The output queue: whole packets for the caller to write to TCP, lent by
 * mqtt_client_pending() and given back by mqtt_client_sent() (BearSSL's lend-and-acknowledge).
 * Packets are written straight into its free space; one that does not fit is not kept. */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

size_t mqtt_packet_limit(const mqtt_client_t *c)
{
    uint32_t server = c->server.maximum_packet_size;
    return server != 0 && server < ZQ_MQTT_PACKET_MAX ? server : ZQ_MQTT_PACKET_MAX;
}

zq_writer_t mqtt_out_writer(mqtt_client_t *c)
{
    if (c->out_head > 0) {
        memmove(c->out, c->out + c->out_head, c->out_tail - c->out_head);
        c->out_tail -= c->out_head;
        c->out_head = 0;
    }
    return zq_writer(c->out + c->out_tail, ZQ_MQTT_OUT_MAX - c->out_tail);
}

zq_err_t mqtt_out_commit(mqtt_client_t *c, const zq_writer_t *w)
{
    if (w->failed) {
        return c->out_tail == 0 ? ZQ_ERR_TOO_LONG : ZQ_ERR_WOULD_BLOCK;
    }
    if (w->len > mqtt_packet_limit(c)) {
        return ZQ_ERR_TOO_LONG; /* 5.0 §3.1.2.11.4: never more than the server takes */
    }
    c->out_tail += (uint32_t)w->len;
    c->last_tx = c->now;
    return ZQ_OK;
}

size_t mqtt_client_pending(const mqtt_client_t *c, const uint8_t **data)
{
    *data = c->out + c->out_head;
    return c->out_tail - c->out_head;
}

void mqtt_client_sent(mqtt_client_t *c, size_t n)
{
    size_t pending = c->out_tail - c->out_head;
    c->out_head += (uint32_t)(n < pending ? n : pending);
    if (c->out_head == c->out_tail) {
        c->out_head = c->out_tail = 0;
    }
    mqtt_pump(c); /* room for what waits: acks, resends */
}

/* libFuzzer target for the MQTT client (stack/mqtt): the server's bytes at arbitrary split
 * points, interleaved with the caller's publishes, acks, subscribes, timers, reconnects and
 * partial writes, all driven by the input. Byte 0 picks the version (bit 0: 3.1.1 or 5.0),
 * clean start (bit 1) and the keepalive (bits 2-7, seconds). Then a run of commands: a byte
 * below 0x80 feeds the next (byte + 1) bytes; any other is a call, (byte & 7) which one and
 * (byte >> 3 & 15) its argument. Invariants: no crash, the output within ZQ_MQTT_OUT_MAX, the
 * tables within their bounds, every event's data inside the receive buffer and no longer than
 * what was fed, an error only with a closed state. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "stack/mqtt/mqtt.h"
#include "zq/utf8.h"
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static mqtt_client_t cl;
static uint64_t now;
static size_t fed;           /* bytes fed since the last connect */
static uint16_t incoming[8]; /* the last QoS 1 ids the server sent, for acks */
static size_t n_incoming;

static void check_borrowed(mqtt_bytes_t b)
{
    if (b.data == NULL) {
        return;
    }
    check(b.data >= cl.rx && b.data + b.len <= cl.rx + sizeof cl.rx);
    check(b.len <= fed);
}

static void check_publish(const mqtt_message_t *m)
{
    check(m->qos <= 1);
    check((m->qos == 1) == (m->packet_id != 0));
    check(m->topic.len >= 1 && zq_utf8_valid(m->topic.data, m->topic.len));
    check(m->topic.len + m->payload.len <= fed);
    check_borrowed(m->topic);
    check_borrowed(m->payload);
    check_borrowed(m->response_topic);
    check_borrowed(m->correlation_data);
    check_borrowed(m->properties);
    size_t pos = 0;
    mqtt_bytes_t name, value;
    while (mqtt_user_prop_next(&m->properties, &pos, &name, &value)) {
        check_borrowed(name);
        check_borrowed(value);
    }
    if (m->qos == 1) {
        incoming[n_incoming++ % 8] = m->packet_id;
    }
}

static void on_event(void *user, const mqtt_event_t *ev)
{
    (void)user;
    switch (ev->type) {
    case MQTT_EV_CONNACK: check(ev->connack.server == mqtt_client_server(&cl)); break;
    case MQTT_EV_PUBLISH: check_publish(&ev->publish); break;
    case MQTT_EV_PUBACK: check(ev->puback.packet_id != 0); break;
    case MQTT_EV_SUBACK:
    case MQTT_EV_UNSUBACK:
        check(ev->ack.count <= ZQ_MQTT_SUBS_MAX);
        check(ev->ack.count == 0 || ev->ack.reasons != NULL);
        break;
    case MQTT_EV_DISCONNECT: check(mqtt_client_state(&cl) == MQTT_STATE_CLOSED); break;
    case MQTT_EV_ERROR:
        check(mqtt_client_state(&cl) == MQTT_STATE_CLOSED);
        check(ev->error.reason >= 0x81 && ev->error.what != NULL);
        break;
    case MQTT_EV_DEAD: check(mqtt_client_state(&cl) == MQTT_STATE_CLOSED); break;
    default: check(false);
    }
}

static void check_invariants(void)
{
    const uint8_t *p;
    check(mqtt_client_pending(&cl, &p) <= ZQ_MQTT_OUT_MAX);
    check(mqtt_client_inflight(&cl) <= ZQ_MQTT_INFLIGHT_MAX);
    check(mqtt_client_unacked(&cl) <= ZQ_MQTT_RX_INFLIGHT_MAX);
    check(cl.pool_used <= ZQ_MQTT_INFLIGHT_BYTES && cl.on_wire <= cl.n_inflight);
    for (size_t i = 0; i < cl.n_inflight; i++) {
        check(cl.inflight[i].packet_id != 0);
        for (size_t j = 0; j < i; j++) {
            check(cl.inflight[i].packet_id != cl.inflight[j].packet_id);
        }
    }
}

static void connect(uint8_t flags)
{
    mqtt_options_t o;
    mqtt_options_default(&o, (flags & 1) ? MQTT_V5 : MQTT_V311, "fuzz");
    o.clean_start = (flags & 2) != 0;
    o.keepalive_s = flags >> 2;
    o.session_expiry_s = 60;
    fed = 0;
    zq_err_t err = mqtt_client_connect(&cl, now, &o);
    check(err == ZQ_OK || err == ZQ_ERR_STATE || err == ZQ_ERR_INVALID_ARG);
}

static void publish(uint8_t qos, uint8_t arg)
{
    static const char *const topics[] = {"a", "a/b", "$SYS/x", "t/+"};
    static const mqtt_user_prop_t user = {"k", "v"};
    mqtt_publish_t m = {.topic = topics[arg & 3], .payload = (const uint8_t *)"fuzz",
                        .payload_len = 4, .qos = qos, .retain = (arg & 4) != 0};
    if (arg & 8) {
        m.response_topic = "reply";
        m.correlation_data = (const uint8_t *)"c";
        m.correlation_len = 1;
        m.user_props = &user;
        m.n_user_props = 1;
    }
    uint16_t id = 0;
    zq_err_t err = mqtt_client_publish(&cl, &m, &id);
    check(err == ZQ_OK || err == ZQ_ERR_WOULD_BLOCK || err == ZQ_ERR_STATE ||
          err == ZQ_ERR_INVALID_ARG || err == ZQ_ERR_UNSUPPORTED || err == ZQ_ERR_TOO_LONG);
    check(err != ZQ_OK || qos == 0 || id != 0);
}

static void subscribe(bool unsubscribe, uint8_t arg)
{
    static const char *const filters[] = {"a/#", "+/b", "#", "a/#/b"};
    mqtt_subscription_t s = {.filter = filters[arg & 3], .qos = (arg >> 2) & 1,
                             .retain_handling = (uint8_t)(arg >> 3 & 1)};
    zq_err_t err = unsubscribe ? mqtt_client_unsubscribe(&cl, &s.filter, 1, NULL)
                               : mqtt_client_subscribe(&cl, &s, 1, NULL);
    check(err == ZQ_OK || err == ZQ_ERR_WOULD_BLOCK || err == ZQ_ERR_STATE ||
          err == ZQ_ERR_INVALID_ARG || err == ZQ_ERR_TOO_LONG); /* a server's tiny limit */
}

static void drain(size_t most)
{
    const uint8_t *p;
    size_t n = mqtt_client_pending(&cl, &p);
    mqtt_client_sent(&cl, n < most ? n : most);
}

static void call(uint8_t op, uint8_t version_flags)
{
    uint8_t arg = op >> 3 & 15;
    switch (op & 7) {
    case 0: publish(0, arg); break;
    case 1: publish(1, arg); break;
    case 2:
        if (n_incoming > 0) {
            (void)mqtt_client_puback(&cl, incoming[(n_incoming - 1 - (arg & 3)) % 8],
                                     arg & 8 ? 0x83 : 0);
        }
        break;
    case 3: subscribe(false, arg); break;
    case 4: subscribe(true, arg); break;
    case 5:
        now += (uint64_t)arg * 1000;
        mqtt_client_timeout(&cl, now);
        check(mqtt_client_next_timeout(&cl) >= now ||
              mqtt_client_state(&cl) == MQTT_STATE_CONNECTED);
        break;
    case 6: drain((size_t)arg * 16 + 1); break;
    default:
        if (arg & 1) {
            mqtt_client_reset_connection(&cl);
            connect(version_flags);
        } else {
            (void)mqtt_client_disconnect(&cl, 0);
        }
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    mqtt_client_init(&cl, on_event, NULL);
    now = 1000;
    n_incoming = 0;
    connect(data[0]);
    size_t off = 1;
    while (off < size) {
        uint8_t op = data[off++];
        if (op < 0x80) {
            size_t n = (size_t)op + 1 < size - off ? (size_t)op + 1 : size - off;
            fed += n;
            zq_err_t err = mqtt_client_feed(&cl, now, data + off, n);
            check(err == ZQ_OK || err == ZQ_ERR_CLOSED || err == ZQ_ERR_STATE);
            off += n;
        } else {
            call(op, data[0]);
        }
        check_invariants();
    }
    return 0;
}

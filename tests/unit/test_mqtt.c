/* MQTT client (stack/mqtt): encodings byte for byte against layouts derived by hand from the
 * specs (3.1.1 §3.1, §3.3, §3.8; 5.0 the same), then one test per rule of the input walk, the
 * session (QoS 1 both ways, resend with DUP, packet ids), topics (MQTT 4.7) and keepalive. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stack/mqtt/mqtt.h"
#include "stack/mqtt/mqtt_internal.h"

static mqtt_client_t cl; /* large: keep it off the stack */
static uint64_t now_ms = 1000;
static zq_err_t feed_result;

/* ---- Recording events ----------------------------------------------------------------------- */

#define MAX_EVENTS 64
#define FIELD 64

typedef struct {
    mqtt_event_type_t type;
    bool accepted, session_present, refused, local, dup, retain, redelivery;
    uint8_t reason, qos;
    uint16_t packet_id;
    size_t count;
    uint8_t reasons[16];
    char topic[FIELD], payload[FIELD], response_topic[FIELD], corr[FIELD], text[FIELD];
    char user_name[FIELD], user_value[FIELD];
} seen_t;

static seen_t seen[MAX_EVENTS];
static size_t n_seen;

static void copy_field(char *dst, mqtt_bytes_t b)
{
    size_t n = b.len < FIELD - 1 ? b.len : FIELD - 1;
    if (b.data != NULL) {
        memcpy(dst, b.data, n);
    }
    dst[b.data != NULL ? n : 0] = '\0';
}

static void record_publish(seen_t *s, const mqtt_message_t *m)
{
    s->qos = m->qos;
    s->dup = m->dup;
    s->retain = m->retain;
    s->packet_id = m->packet_id;
    s->redelivery = m->redelivery_pending;
    copy_field(s->topic, m->topic);
    copy_field(s->payload, m->payload);
    copy_field(s->response_topic, m->response_topic);
    copy_field(s->corr, m->correlation_data);
    size_t pos = 0;
    mqtt_bytes_t name, value;
    if (mqtt_user_prop_next(&m->properties, &pos, &name, &value)) {
        copy_field(s->user_name, name);
        copy_field(s->user_value, value);
    }
}

static void on_event(void *user, const mqtt_event_t *ev)
{
    (void)user;
    assert_true(n_seen < MAX_EVENTS);
    seen_t *s = &seen[n_seen++];
    memset(s, 0, sizeof *s);
    s->type = ev->type;
    switch (ev->type) {
    case MQTT_EV_CONNACK:
        s->accepted = ev->connack.accepted;
        s->session_present = ev->connack.session_present;
        s->reason = ev->connack.reason;
        copy_field(s->text, ev->connack.assigned_client_id);
        break;
    case MQTT_EV_PUBLISH: record_publish(s, &ev->publish); break;
    case MQTT_EV_PUBACK:
        s->packet_id = ev->puback.packet_id;
        s->reason = ev->puback.reason;
        s->refused = ev->puback.refused;
        s->local = ev->puback.local;
        break;
    case MQTT_EV_SUBACK:
    case MQTT_EV_UNSUBACK:
        s->packet_id = ev->ack.packet_id;
        s->count = ev->ack.count;
        memcpy(s->reasons, ev->ack.reasons, ev->ack.count < 16 ? ev->ack.count : 16);
        break;
    case MQTT_EV_DISCONNECT: s->reason = ev->disconnect.reason; break;
    case MQTT_EV_ERROR:
    case MQTT_EV_DEAD:
        s->reason = ev->error.reason;
        strncpy(s->text, ev->error.what, FIELD - 1);
        break;
    }
}

static int setup(void **state)
{
    (void)state;
    n_seen = 0;
    now_ms = 1000;
    mqtt_client_init(&cl, on_event, NULL);
    return 0;
}

/* ---- Driving the client --------------------------------------------------------------------- */

static uint8_t wire[ZQ_MQTT_OUT_MAX];

/* Everything pending, acknowledged as written. */
static size_t take_output(void)
{
    const uint8_t *p;
    size_t n = mqtt_client_pending(&cl, &p);
    assert_true(n <= sizeof wire);
    memcpy(wire, p, n);
    mqtt_client_sent(&cl, n);
    return n;
}

static void assert_output(const uint8_t *want, size_t len)
{
    size_t n = take_output();
    assert_int_equal(n, len);
    assert_memory_equal(wire, want, len);
}

#define FEED(...)                                                                    \
    do {                                                                             \
        const uint8_t bytes_[] = {__VA_ARGS__};                                      \
        feed_result = mqtt_client_feed(&cl, now_ms, bytes_, sizeof bytes_);          \
    } while (0)
#define OUTPUT(...)                                                                  \
    do {                                                                             \
        const uint8_t want_[] = {__VA_ARGS__};                                       \
        assert_output(want_, sizeof want_);                                          \
    } while (0)

static void connect_with(uint8_t version, bool clean, uint16_t keepalive, uint16_t receive_max)
{
    mqtt_options_t o;
    mqtt_options_default(&o, version, "zq");
    o.clean_start = clean;
    o.keepalive_s = keepalive;
    o.receive_maximum = receive_max;
    o.session_expiry_s = clean ? 0 : 3600;
    assert_int_equal(mqtt_client_connect(&cl, now_ms, &o), ZQ_OK);
    (void)take_output();
}

/* Connected, CONNACK accepted, session_present 0, output drained, events cleared. */
static void connected(uint8_t version)
{
    connect_with(version, version == MQTT_V311, 0, 0);
    if (version == MQTT_V5) {
        FEED(0x20, 0x03, 0x00, 0x00, 0x00);
    } else {
        FEED(0x20, 0x02, 0x00, 0x00);
    }
    assert_int_equal(mqtt_client_state(&cl), MQTT_STATE_CONNECTED);
    n_seen = 0;
}

static mqtt_publish_t message(const char *topic, const char *payload, uint8_t qos)
{
    mqtt_publish_t m = {.topic = topic,
                        .payload = (const uint8_t *)payload,
                        .payload_len = strlen(payload),
                        .qos = qos};
    return m;
}

static uint16_t publish_qos1(const char *topic, const char *payload)
{
    mqtt_publish_t m = message(topic, payload, 1);
    uint16_t id = 0;
    assert_int_equal(mqtt_client_publish(&cl, &m, &id), ZQ_OK);
    assert_int_not_equal(id, 0);
    return id;
}

static void assert_error(uint8_t reason)
{
    assert_true(n_seen >= 1);
    assert_int_equal(seen[n_seen - 1].type, MQTT_EV_ERROR);
    assert_int_equal(seen[n_seen - 1].reason, reason);
    assert_int_equal(mqtt_client_state(&cl), MQTT_STATE_CLOSED);
    assert_int_equal(feed_result, ZQ_ERR_CLOSED);
}

/* ---- Writers inside guard bytes ------------------------------------------------------------- */

#define GUARD 8

/* Writes with @p write into a buffer between 0xA5 guards: with one byte less than the packet
 * the writer must fail and leave the guards; with the packet's length plus the writing slack
 * (MQTT_WRITE_SLACK) it must give exactly @p want, the guards untouched. */
typedef void (*write_fn)(zq_writer_t *w);

static void assert_written(write_fn write, const uint8_t *want, size_t want_len)
{
    static uint8_t buf[GUARD + 512 + MQTT_WRITE_SLACK + GUARD];
    assert_true(want_len <= 512);
    for (size_t short_by_one = 0; short_by_one <= 1; short_by_one++) {
        size_t cap = short_by_one ? want_len - 1 : want_len + MQTT_WRITE_SLACK;
        memset(buf, 0xA5, sizeof buf);
        zq_writer_t w = zq_writer(buf + GUARD, cap);
        write(&w);
        assert_int_equal(w.failed, short_by_one == 1);
        if (!short_by_one) {
            assert_int_equal(w.len, want_len);
            assert_memory_equal(buf + GUARD, want, want_len);
        }
        for (size_t i = 0; i < GUARD; i++) {
            assert_int_equal(buf[i], 0xA5);
            assert_int_equal(buf[GUARD + cap + i], 0xA5);
        }
    }
}

#define ASSERT_WRITTEN(fn, ...)                                                      \
    do {                                                                             \
        const uint8_t want_[] = {__VA_ARGS__};                                       \
        assert_written(fn, want_, sizeof want_);                                     \
    } while (0)

static void write_connect_v311(zq_writer_t *w)
{
    mqtt_options_t o;
    mqtt_options_default(&o, MQTT_V311, "zq");
    mqtt_connect_write(w, &o, 16);
}

/* 3.1.1 §3.1: 10 | RL 14 | 00 04 "MQTT" | level 4 | flags 02 (clean) | keepalive 60 | "zq" */
static void connect_v311_is_the_spec_layout(void **state)
{
    (void)state;
    ASSERT_WRITTEN(write_connect_v311, 0x10, 0x0E, 0x00, 0x04, 'M', 'Q', 'T', 'T', 0x04, 0x02,
                   0x00, 0x3C, 0x00, 0x02, 'z', 'q');
}

static void write_connect_v311_full(zq_writer_t *w)
{
    static const mqtt_publish_t will = {.topic = "w", .payload = (const uint8_t *)"x",
                                        .payload_len = 1, .qos = 1, .retain = true};
    mqtt_options_t o;
    mqtt_options_default(&o, MQTT_V311, "zq");
    o.clean_start = false;
    o.keepalive_s = 30;
    o.username = "u";
    o.password = (const uint8_t *)"p";
    o.password_len = 1;
    o.will = &will;
    mqtt_connect_write(w, &o, 16);
}

/* Flags: user 80 | password 40 | will retain 20 | will QoS 1 08 | will 04 = EC; the payload
 * in the order of §3.1.3: client id, will topic, will message, user name, password. */
static void connect_v311_will_and_credentials_follow_the_client_id(void **state)
{
    (void)state;
    ASSERT_WRITTEN(write_connect_v311_full, 0x10, 0x1A, 0x00, 0x04, 'M', 'Q', 'T', 'T', 0x04,
                   0xEC, 0x00, 0x1E, 0x00, 0x02, 'z', 'q', 0x00, 0x01, 'w', 0x00, 0x01, 'x',
                   0x00, 0x01, 'u', 0x00, 0x01, 'p');
}

static void write_connect_v5(zq_writer_t *w)
{
    mqtt_options_t o;
    mqtt_options_default(&o, MQTT_V5, "zq");
    o.clean_start = false;
    o.session_expiry_s = 3600;
    mqtt_connect_write(w, &o, 16);
}

/* 5.0 §3.1.2.11: properties 13 bytes: Session Expiry 11 00000E10, Receive Maximum 21 0010,
 * Maximum Packet Size 27 ZQ_MQTT_PACKET_MAX; no Topic Alias Maximum (0 is its default). */
static void connect_v5_sends_expiry_receive_maximum_and_packet_size(void **state)
{
    (void)state;
    ASSERT_WRITTEN(write_connect_v5, 0x10, 0x1C, 0x00, 0x04, 'M', 'Q', 'T', 'T', 0x05, 0x00,
                   0x00, 0x3C, 0x0D, 0x11, 0x00, 0x00, 0x0E, 0x10, 0x21, 0x00, 0x10, 0x27,
                   (uint8_t)(ZQ_MQTT_PACKET_MAX >> 24), (uint8_t)(ZQ_MQTT_PACKET_MAX >> 16),
                   (uint8_t)(ZQ_MQTT_PACKET_MAX >> 8), (uint8_t)ZQ_MQTT_PACKET_MAX, 0x00, 0x02,
                   'z', 'q');
}

static void write_publish_v311_qos0(zq_writer_t *w)
{
    mqtt_publish_t m = message("a/b", "hi", 0);
    m.retain = true;
    mqtt_publish_write(w, MQTT_V311, &m, 0);
}

static void write_publish_v311_qos1(zq_writer_t *w)
{
    mqtt_publish_t m = message("a/b", "hi", 1);
    mqtt_publish_write(w, MQTT_V311, &m, 1);
}

/* 3.1.3 §3.3: QoS 0 retained: 31 | RL 7 | "a/b" | "hi"; QoS 1: 32 | RL 9 | "a/b" | id 1 | "hi" */
static void publish_v311_qos0_and_qos1_are_the_spec_layout(void **state)
{
    (void)state;
    ASSERT_WRITTEN(write_publish_v311_qos0, 0x31, 0x07, 0x00, 0x03, 'a', '/', 'b', 'h', 'i');
    ASSERT_WRITTEN(write_publish_v311_qos1, 0x32, 0x09, 0x00, 0x03, 'a', '/', 'b', 0x00, 0x01,
                   'h', 'i');
}

static void write_publish_v5_request(zq_writer_t *w)
{
    mqtt_publish_t m = message("a/b", "hi", 1);
    m.response_topic = "r";
    m.correlation_data = (const uint8_t *)"c1";
    m.correlation_len = 2;
    mqtt_publish_write(w, MQTT_V5, &m, 1);
}

/* 5.0 §3.3.2.3: properties 9 bytes: Response Topic 08 "r", Correlation Data 09 "c1". */
static void publish_v5_carries_response_topic_and_correlation_data(void **state)
{
    (void)state;
    ASSERT_WRITTEN(write_publish_v5_request, 0x32, 0x13, 0x00, 0x03, 'a', '/', 'b', 0x00, 0x01,
                   0x09, 0x08, 0x00, 0x01, 'r', 0x09, 0x00, 0x02, 'c', '1', 'h', 'i');
}

static const mqtt_subscription_t sub_all = {.filter = "a/#", .qos = 1, .no_local = true,
                                            .retain_as_published = true, .retain_handling = 2};

static void write_subscribe_v311(zq_writer_t *w)
{
    mqtt_subscribe_write(w, MQTT_V311, 1, &sub_all, 1);
}

static void write_subscribe_v5(zq_writer_t *w)
{
    mqtt_subscribe_write(w, MQTT_V5, 1, &sub_all, 1);
}

/* §3.8: 82 | RL | id 1 | [v5: properties 00] | "a/#" | options. 3.1.1 has only the QoS bits;
 * 5.0 adds No Local 04, Retain As Published 08, Retain Handling 2 << 4: 2D. */
static void subscribe_v311_and_v5_are_the_spec_layout(void **state)
{
    (void)state;
    ASSERT_WRITTEN(write_subscribe_v311, 0x82, 0x08, 0x00, 0x01, 0x00, 0x03, 'a', '/', '#',
                   0x01);
    ASSERT_WRITTEN(write_subscribe_v5, 0x82, 0x09, 0x00, 0x01, 0x00, 0x00, 0x03, 'a', '/', '#',
                   0x2D);
}

/* 5.0 §1.5.5's table of sizes, both ways, at each boundary. */
static void remaining_length_encodes_as_the_spec_table(void **state)
{
    (void)state;
    static const struct {
        uint32_t v;
        uint8_t bytes[4];
        size_t n;
    } rows[] = {
        {0, {0x00}, 1},
        {127, {0x7F}, 1},
        {128, {0x80, 0x01}, 2},
        {16383, {0xFF, 0x7F}, 2},
        {16384, {0x80, 0x80, 0x01}, 3},
        {2097151, {0xFF, 0xFF, 0x7F}, 3},
        {2097152, {0x80, 0x80, 0x80, 0x01}, 4},
        {268435455, {0xFF, 0xFF, 0xFF, 0x7F}, 4},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint8_t buf[4];
        zq_writer_t w = zq_writer(buf, sizeof buf);
        mqtt_write_varint(&w, rows[i].v);
        assert_false(w.failed);
        assert_int_equal(w.len, rows[i].n);
        assert_int_equal(mqtt_varint_size(rows[i].v), rows[i].n);
        assert_memory_equal(buf, rows[i].bytes, rows[i].n);
        zq_reader_t r = zq_reader(buf, w.len);
        uint32_t back = 0;
        assert_true(mqtt_read_varint(&r, &back));
        assert_int_equal(back, rows[i].v);
    }
    uint8_t buf[8];
    zq_writer_t w = zq_writer(buf, sizeof buf);
    mqtt_write_varint(&w, 268435456);
    assert_true(w.failed);
}

/* ---- Framing rules -------------------------------------------------------------------------- */

static void remaining_length_over_four_bytes_is_malformed(void **state)
{
    (void)state;
    connected(MQTT_V5);
    FEED(0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F);
    assert_error(MQTT_RC_MALFORMED_PACKET);
    OUTPUT(0xE0, 0x01, 0x81); /* 5.0 §4.13: DISCONNECT 0x81 first */
}

static void remaining_length_not_minimal_is_malformed(void **state)
{
    (void)state;
    connected(MQTT_V311);
    FEED(0xD0, 0x80, 0x00);
    assert_error(MQTT_RC_MALFORMED_PACKET);
    assert_int_equal(take_output(), 0); /* 3.1.1 has no DISCONNECT from a client for this */
}

static void reserved_fixed_header_flags_are_malformed(void **state)
{
    (void)state;
    connected(MQTT_V311);
    FEED(0x41, 0x02, 0x00, 0x01);
    assert_error(MQTT_RC_MALFORMED_PACKET);
}

static void packet_before_connack_is_a_protocol_error(void **state)
{
    (void)state;
    connect_with(MQTT_V5, true, 0, 0);
    FEED(0x30, 0x05, 0x00, 0x01, 'a', 'h', 'i');
    assert_error(MQTT_RC_PROTOCOL_ERROR);
    OUTPUT(0xE0, 0x01, 0x82);
}

static void second_connack_is_a_protocol_error(void **state)
{
    (void)state;
    connected(MQTT_V311);
    FEED(0x20, 0x02, 0x00, 0x00);
    assert_error(MQTT_RC_PROTOCOL_ERROR);
}

static void v5_packet_over_our_maximum_is_packet_too_large(void **state)
{
    (void)state;
    connected(MQTT_V5);
    uint8_t hdr[5] = {0x30};
    zq_writer_t w = zq_writer(hdr + 1, 4);
    mqtt_write_varint(&w, ZQ_MQTT_PACKET_MAX);
    feed_result = mqtt_client_feed(&cl, now_ms, hdr, 1 + w.len);
    assert_error(MQTT_RC_PACKET_TOO_LARGE);
    OUTPUT(0xE0, 0x01, 0x95);
}

static void v311_packet_over_our_maximum_is_skipped_and_counted(void **state)
{
    (void)state;
    connected(MQTT_V311);
    static uint8_t big[ZQ_MQTT_PACKET_MAX + 16];
    memset(big, 'x', sizeof big);
    big[0] = 0x30;
    zq_writer_t w = zq_writer(big + 1, 4);
    uint32_t body = ZQ_MQTT_PACKET_MAX;
    mqtt_write_varint(&w, body);
    size_t total = 1 + w.len + body;
    assert_int_equal(mqtt_client_feed(&cl, now_ms, big, total), ZQ_OK);
    FEED(0x30, 0x05, 0x00, 0x01, 'a', 'h', 'i'); /* the next packet is read as usual */
    assert_int_equal(feed_result, ZQ_OK);
    assert_int_equal(mqtt_client_stats(&cl)->rx_oversize, 1);
    assert_int_equal(n_seen, 1);
    assert_string_equal(seen[0].topic, "a");
}

/* ---- CONNACK -------------------------------------------------------------------------------- */

static void connack_session_present_is_reported(void **state)
{
    (void)state;
    connect_with(MQTT_V311, false, 0, 0);
    FEED(0x20, 0x02, 0x01, 0x00);
    assert_int_equal(feed_result, ZQ_OK);
    assert_int_equal(n_seen, 1);
    assert_int_equal(seen[0].type, MQTT_EV_CONNACK);
    assert_true(seen[0].accepted);
    assert_true(seen[0].session_present);
}

static void connack_refusal_is_reported_and_closes(void **state)
{
    (void)state;
    connect_with(MQTT_V311, true, 0, 0);
    FEED(0x20, 0x02, 0x00, 0x05); /* not authorized */
    assert_int_equal(feed_result, ZQ_ERR_CLOSED);
    assert_int_equal(seen[0].type, MQTT_EV_CONNACK);
    assert_false(seen[0].accepted);
    assert_int_equal(seen[0].reason, 5);
    assert_int_equal(mqtt_client_state(&cl), MQTT_STATE_CLOSED);
}

static void session_present_after_clean_start_is_a_protocol_error(void **state)
{
    (void)state;
    connect_with(MQTT_V311, true, 0, 0);
    FEED(0x20, 0x02, 0x01, 0x00);
    assert_error(MQTT_RC_PROTOCOL_ERROR);
}

/* Receive Maximum 2, Maximum Packet Size 200, Retain Available 0, Server Keep Alive 10,
 * Assigned Client Identifier "id". */
static void v5_connack_properties_are_kept(void **state)
{
    (void)state;
    connect_with(MQTT_V5, true, 60, 0);
    FEED(0x20, 0x15, 0x00, 0x00, 0x12, 0x21, 0x00, 0x02, 0x27, 0x00, 0x00, 0x00, 0xC8, 0x25,
         0x00, 0x13, 0x00, 0x0A, 0x12, 0x00, 0x02, 'i', 'd');
    assert_int_equal(feed_result, ZQ_OK);
    assert_string_equal(seen[0].text, "id");
    const mqtt_server_t *s = mqtt_client_server(&cl);
    assert_int_equal(s->receive_maximum, 2);
    assert_int_equal(s->maximum_packet_size, 200);
    assert_false(s->retain_available);
    assert_true(s->has_keepalive);
    assert_int_equal(s->keepalive_s, 10);
    mqtt_publish_t m = message("t", "x", 0);
    m.retain = true;
    assert_int_equal(mqtt_client_publish(&cl, &m, NULL), ZQ_ERR_UNSUPPORTED);
    static char big[300];
    memset(big, 'x', sizeof big - 1);
    m = message("t", big, 0);
    assert_int_equal(mqtt_client_publish(&cl, &m, NULL), ZQ_ERR_TOO_LONG);
}

static void v5_connack_receive_maximum_zero_is_a_protocol_error(void **state)
{
    (void)state;
    connect_with(MQTT_V5, true, 0, 0);
    FEED(0x20, 0x06, 0x00, 0x00, 0x03, 0x21, 0x00, 0x00);
    assert_error(MQTT_RC_PROTOCOL_ERROR);
}

/* ---- v5 properties -------------------------------------------------------------------------- */

static void v5_unknown_property_is_malformed(void **state)
{
    (void)state;
    connected(MQTT_V5);
    FEED(0x30, 0x07, 0x00, 0x01, 't', 0x02, 0x05, 0x00, 'x'); /* 0x05 is no property */
    assert_error(MQTT_RC_MALFORMED_PACKET);
    OUTPUT(0xE0, 0x01, 0x81);
}

static void v5_property_of_another_packet_is_malformed(void **state)
{
    (void)state;
    connected(MQTT_V5);
    FEED(0x30, 0x08, 0x00, 0x01, 't', 0x03, 0x21, 0x00, 0x05, 'x'); /* Receive Maximum */
    assert_error(MQTT_RC_MALFORMED_PACKET);
}

static void v5_property_given_twice_is_a_protocol_error(void **state)
{
    (void)state;
    connected(MQTT_V5);
    FEED(0x30, 0x09, 0x00, 0x01, 't', 0x04, 0x01, 0x01, 0x01, 0x00, 'x');
    assert_error(MQTT_RC_PROTOCOL_ERROR); /* Payload Format Indicator twice */
}

static void v5_property_length_past_the_packet_is_malformed(void **state)
{
    (void)state;
    connected(MQTT_V5);
    FEED(0x30, 0x05, 0x00, 0x01, 't', 0x09, 'x');
    assert_error(MQTT_RC_MALFORMED_PACKET);
}

static void v5_topic_alias_is_a_protocol_error(void **state)
{
    (void)state;
    connected(MQTT_V5);
    FEED(0x30, 0x08, 0x00, 0x01, 't', 0x03, 0x23, 0x00, 0x01, 'x');
    assert_error(MQTT_RC_TOPIC_ALIAS_INVALID);
    OUTPUT(0xE0, 0x01, 0x94);
}

/* ---- Incoming PUBLISH ----------------------------------------------------------------------- */

static void topic_that_is_not_utf8_is_malformed(void **state)
{
    (void)state;
    connected(MQTT_V311);
    FEED(0x30, 0x05, 0x00, 0x02, 0xC0, 0x80, 'x'); /* an overlong NUL */
    assert_error(MQTT_RC_MALFORMED_PACKET);
    setup(NULL);
    connected(MQTT_V311);
    FEED(0x30, 0x05, 0x00, 0x02, 'a', 0x00, 'x'); /* U+0000, MQTT-1.5.4-2 */
    assert_error(MQTT_RC_MALFORMED_PACKET);
}

static void topic_with_wildcards_is_malformed(void **state)
{
    (void)state;
    connected(MQTT_V311);
    FEED(0x30, 0x05, 0x00, 0x02, 'a', '+', 'x');
    assert_error(MQTT_RC_MALFORMED_PACKET);
}

static void qos0_with_dup_and_qos3_are_malformed(void **state)
{
    (void)state;
    connected(MQTT_V311);
    FEED(0x38, 0x04, 0x00, 0x01, 't', 'x');
    assert_error(MQTT_RC_MALFORMED_PACKET);
    setup(NULL);
    connected(MQTT_V311);
    FEED(0x36, 0x06, 0x00, 0x01, 't', 0x00, 0x01, 'x');
    assert_error(MQTT_RC_MALFORMED_PACKET);
}

static void v5_publish_properties_reach_the_event(void **state)
{
    (void)state;
    connected(MQTT_V5);
    /* Response Topic "r", Correlation Data "c1", User Property ("k", "v") */
    FEED(0x33, 0x18, 0x00, 0x01, 't', 0x00, 0x07, 0x10, 0x08, 0x00, 0x01, 'r', 0x09, 0x00, 0x02,
         'c', '1', 0x26, 0x00, 0x01, 'k', 0x00, 0x01, 'v', 'h', 'i');
    assert_int_equal(feed_result, ZQ_OK);
    assert_int_equal(n_seen, 1);
    assert_int_equal(seen[0].qos, 1);
    assert_true(seen[0].retain);
    assert_int_equal(seen[0].packet_id, 7);
    assert_string_equal(seen[0].response_topic, "r");
    assert_string_equal(seen[0].corr, "c1");
    assert_string_equal(seen[0].user_name, "k");
    assert_string_equal(seen[0].user_value, "v");
    assert_string_equal(seen[0].payload, "hi");
}

static void incoming_qos1_is_not_acked_until_the_caller_acks(void **state)
{
    (void)state;
    connected(MQTT_V311);
    FEED(0x32, 0x06, 0x00, 0x01, 't', 0x00, 0x09, 'x');
    assert_int_equal(seen[0].packet_id, 9);
    assert_int_equal(take_output(), 0);
    assert_int_equal(mqtt_client_unacked(&cl), 1);
    assert_int_equal(mqtt_client_puback(&cl, 9, 0), ZQ_OK);
    OUTPUT(0x40, 0x02, 0x00, 0x09);
    assert_int_equal(mqtt_client_unacked(&cl), 0);
    assert_int_equal(mqtt_client_puback(&cl, 9, 0), ZQ_ERR_NOT_FOUND);
}

static void v5_puback_refusal_carries_its_reason(void **state)
{
    (void)state;
    connected(MQTT_V5);
    FEED(0x32, 0x07, 0x00, 0x01, 't', 0x00, 0x09, 0x00, 'x');
    assert_int_equal(mqtt_client_puback(&cl, 9, MQTT_RC_IMPLEMENTATION_SPECIFIC), ZQ_OK);
    OUTPUT(0x40, 0x03, 0x00, 0x09, 0x83);
    assert_int_equal(mqtt_client_puback(&cl, 1, 0x42), ZQ_ERR_INVALID_ARG);
}

static void redelivery_of_a_pending_id_is_flagged(void **state)
{
    (void)state;
    connected(MQTT_V311);
    FEED(0x32, 0x06, 0x00, 0x01, 't', 0x00, 0x09, 'x');
    FEED(0x3A, 0x06, 0x00, 0x01, 't', 0x00, 0x09, 'x');
    assert_int_equal(n_seen, 2);
    assert_false(seen[0].redelivery);
    assert_true(seen[1].redelivery);
    assert_true(seen[1].dup);
    assert_int_equal(mqtt_client_unacked(&cl), 1);
}

/* The caller acks while the connection is down: the PUBACK waits for the server's resend
 * (MQTT-4.4.0-1), which is answered at once. */
static void ack_given_while_disconnected_answers_the_redelivery(void **state)
{
    (void)state;
    connect_with(MQTT_V311, false, 0, 0);
    FEED(0x20, 0x02, 0x00, 0x00);
    FEED(0x32, 0x06, 0x00, 0x01, 't', 0x00, 0x09, 'x');
    mqtt_client_reset_connection(&cl);
    assert_int_equal(mqtt_client_puback(&cl, 9, 0), ZQ_OK);
    connect_with(MQTT_V311, false, 0, 0);
    FEED(0x20, 0x02, 0x01, 0x00);
    assert_int_equal(take_output(), 0); /* not before the resend */
    FEED(0x3A, 0x06, 0x00, 0x01, 't', 0x00, 0x09, 'x');
    assert_true(seen[n_seen - 1].redelivery);
    OUTPUT(0x40, 0x02, 0x00, 0x09);
}

static void server_over_receive_maximum_is_a_protocol_error(void **state)
{
    (void)state;
    connect_with(MQTT_V5, true, 0, 2);
    FEED(0x20, 0x03, 0x00, 0x00, 0x00);
    FEED(0x32, 0x07, 0x00, 0x01, 't', 0x00, 0x01, 0x00, 'x');
    FEED(0x32, 0x07, 0x00, 0x01, 't', 0x00, 0x02, 0x00, 'x');
    assert_int_equal(feed_result, ZQ_OK);
    FEED(0x32, 0x07, 0x00, 0x01, 't', 0x00, 0x03, 0x00, 'x');
    assert_error(MQTT_RC_RECEIVE_MAXIMUM_EXCEEDED);
    OUTPUT(0xE0, 0x01, 0x93);
}

static void a_lenient_client_holds_what_goes_over_its_grant_while_the_table_has_room(void **state)
{
    (void)state;
    mqtt_options_t o;
    mqtt_options_default(&o, MQTT_V5, "zq");
    o.receive_maximum = 2;
    o.lenient_receive_maximum = true;
    assert_int_equal(mqtt_client_connect(&cl, now_ms, &o), ZQ_OK);
    (void)take_output();
    FEED(0x20, 0x03, 0x00, 0x00, 0x00);
    for (uint8_t id = 1; id <= ZQ_MQTT_RX_INFLIGHT_MAX; id++) {
        FEED(0x32, 0x07, 0x00, 0x01, 't', 0x00, id, 0x00, 'x');
        assert_int_equal(feed_result, ZQ_OK);
    }
    assert_int_equal(mqtt_client_unacked(&cl), ZQ_MQTT_RX_INFLIGHT_MAX);
    assert_int_equal(mqtt_client_stats(&cl)->rx_over_quota, ZQ_MQTT_RX_INFLIGHT_MAX - 2);
}

/* Beyond the table a lenient client reads no further (TCP's flow control, the only kind 3.1.1
 * has) and takes the held message once an ack frees a slot: nothing dropped, nothing fatal. */
static void a_lenient_client_with_a_full_table_stops_reading_and_goes_on_after_an_ack(void **state)
{
    (void)state;
    mqtt_options_t o;
    mqtt_options_default(&o, MQTT_V311, "zq");
    o.receive_maximum = 2;
    o.lenient_receive_maximum = true;
    assert_int_equal(mqtt_client_connect(&cl, now_ms, &o), ZQ_OK);
    (void)take_output();
    FEED(0x20, 0x02, 0x00, 0x00);
    for (uint8_t id = 1; id <= ZQ_MQTT_RX_INFLIGHT_MAX; id++) {
        FEED(0x32, 0x06, 0x00, 0x01, 't', 0x00, id, 'x');
    }
    const uint8_t two[] = {0x32, 0x06, 0x00, 0x01, 't', 0x00, ZQ_MQTT_RX_INFLIGHT_MAX + 1, 'y',
                           0x32, 0x06, 0x00, 0x01, 't', 0x00, ZQ_MQTT_RX_INFLIGHT_MAX + 2, 'z'};
    size_t used = 0;
    size_t seen_before = n_seen;
    assert_int_equal(mqtt_client_feed_some(&cl, now_ms, two, sizeof two, &used),
                     ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(used, 8); /* the first whole, held; the second not read */
    assert_int_equal(n_seen, seen_before);
    assert_false(mqtt_client_resume(&cl, now_ms)); /* still no room */
    assert_int_equal(mqtt_client_puback(&cl, 1, MQTT_RC_SUCCESS), ZQ_OK);
    assert_true(mqtt_client_resume(&cl, now_ms));
    assert_int_equal(n_seen, seen_before + 1); /* the held one, delivered now */
    assert_int_equal(mqtt_client_state(&cl), MQTT_STATE_CONNECTED);
    assert_int_equal(mqtt_client_feed_some(&cl, now_ms, two + used, sizeof two - used, &used),
                     ZQ_ERR_WOULD_BLOCK); /* the second finds the table full again */
    assert_int_equal(used, 8);
}

static void v311_over_our_bound_is_dropped_unacked_and_counted(void **state)
{
    (void)state;
    connect_with(MQTT_V311, true, 0, 1);
    FEED(0x20, 0x02, 0x00, 0x00);
    FEED(0x32, 0x06, 0x00, 0x01, 't', 0x00, 0x01, 'x');
    FEED(0x32, 0x06, 0x00, 0x01, 't', 0x00, 0x02, 'x');
    assert_int_equal(feed_result, ZQ_OK);
    assert_int_equal(n_seen, 2); /* the CONNACK and the first */
    assert_int_equal(mqtt_client_stats(&cl)->rx_over_quota, 1);
    assert_int_equal(take_output(), 0);
}

/* ---- Outgoing QoS 1 ------------------------------------------------------------------------- */

static void qos1_publish_is_kept_until_its_puback(void **state)
{
    (void)state;
    connected(MQTT_V311);
    uint16_t id = publish_qos1("a/b", "hi");
    OUTPUT(0x32, 0x09, 0x00, 0x03, 'a', '/', 'b', 0x00, (uint8_t)id, 'h', 'i');
    assert_int_equal(mqtt_client_inflight(&cl), 1);
    FEED(0x40, 0x02, 0x00, (uint8_t)id);
    assert_int_equal(seen[0].type, MQTT_EV_PUBACK);
    assert_int_equal(seen[0].packet_id, id);
    assert_false(seen[0].refused);
    assert_int_equal(mqtt_client_inflight(&cl), 0);
}

static void v5_puback_reason_over_0x80_is_a_refusal(void **state)
{
    (void)state;
    connected(MQTT_V5);
    uint16_t id = publish_qos1("a", "x");
    FEED(0x40, 0x03, 0x00, (uint8_t)id, 0x87);
    assert_true(seen[0].refused);
    assert_int_equal(seen[0].reason, 0x87);
}

static void puback_for_an_id_not_in_flight_is_counted(void **state)
{
    (void)state;
    connected(MQTT_V311);
    FEED(0x40, 0x02, 0x12, 0x34);
    assert_int_equal(feed_result, ZQ_OK);
    assert_int_equal(n_seen, 0);
    assert_int_equal(mqtt_client_stats(&cl)->rx_unknown_ack, 1);
}

static void qos1_publish_is_resent_with_dup_after_reconnect(void **state)
{
    (void)state;
    connect_with(MQTT_V311, false, 0, 0);
    FEED(0x20, 0x02, 0x00, 0x00);
    uint16_t a = publish_qos1("a", "1");
    uint16_t b = publish_qos1("b", "2");
    (void)take_output();
    mqtt_client_reset_connection(&cl);
    uint16_t c = publish_qos1("c", "3"); /* while down: queued, not yet sent */
    assert_int_equal(take_output(), 0);
    connect_with(MQTT_V311, false, 0, 0);
    FEED(0x20, 0x02, 0x01, 0x00);
    OUTPUT(0x3A, 0x06, 0x00, 0x01, 'a', 0x00, (uint8_t)a, '1', /* in order, DUP on the sent */
           0x3A, 0x06, 0x00, 0x01, 'b', 0x00, (uint8_t)b, '2', /* */
           0x32, 0x06, 0x00, 0x01, 'c', 0x00, (uint8_t)c, '3');
}

static void qos1_publish_is_resent_as_new_when_the_session_is_gone(void **state)
{
    (void)state;
    connect_with(MQTT_V311, false, 0, 0);
    FEED(0x20, 0x02, 0x00, 0x00);
    uint16_t a = publish_qos1("a", "1");
    (void)take_output();
    mqtt_client_reset_connection(&cl);
    connect_with(MQTT_V311, false, 0, 0);
    FEED(0x20, 0x02, 0x00, 0x00);
    OUTPUT(0x32, 0x06, 0x00, 0x01, 'a', 0x00, (uint8_t)a, '1');
}

static void packet_id_is_never_zero_nor_reused_in_flight(void **state)
{
    (void)state;
    connected(MQTT_V311);
    uint16_t first = publish_qos1("a", "x");
    cl.next_id = 65534;
    uint16_t ids[4];
    for (size_t i = 0; i < 4; i++) {
        ids[i] = publish_qos1("a", "x");
    }
    assert_int_equal(first, 1);
    assert_int_equal(ids[0], 65534);
    assert_int_equal(ids[1], 65535);
    assert_int_equal(ids[2], 2); /* not 0, not 1 (in flight) */
    assert_int_equal(ids[3], 3);
    uint16_t sub_id;
    mqtt_subscription_t s = {.filter = "t", .qos = 1};
    assert_int_equal(mqtt_client_subscribe(&cl, &s, 1, &sub_id), ZQ_OK);
    assert_int_equal(sub_id, 4);
}

static void inflight_full_refuses_the_publish_cleanly(void **state)
{
    (void)state;
    connected(MQTT_V311);
    uint16_t first = 0;
    for (size_t i = 0; i < ZQ_MQTT_INFLIGHT_MAX; i++) {
        uint16_t id = publish_qos1("a", "x");
        first = i == 0 ? id : first;
    }
    (void)take_output();
    mqtt_publish_t m = message("a", "x", 1);
    uint16_t id = 0;
    assert_int_equal(mqtt_client_publish(&cl, &m, &id), ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(id, 0);
    assert_int_equal(mqtt_client_inflight(&cl), ZQ_MQTT_INFLIGHT_MAX);
    assert_int_equal(take_output(), 0);
    FEED(0x40, 0x02, 0x00, (uint8_t)first);
    assert_int_equal(mqtt_client_publish(&cl, &m, &id), ZQ_OK);
}

static void server_receive_maximum_bounds_publishes_on_the_wire(void **state)
{
    (void)state;
    connect_with(MQTT_V5, true, 0, 0);
    FEED(0x20, 0x06, 0x00, 0x00, 0x03, 0x21, 0x00, 0x01);
    n_seen = 0;
    uint16_t a = publish_qos1("a", "1");
    uint16_t b = publish_qos1("b", "2");
    OUTPUT(0x32, 0x07, 0x00, 0x01, 'a', 0x00, (uint8_t)a, 0x00, '1');
    FEED(0x40, 0x02, 0x00, (uint8_t)a);
    OUTPUT(0x32, 0x07, 0x00, 0x01, 'b', 0x00, (uint8_t)b, 0x00, '2');
}

static void qos0_with_the_output_full_would_block(void **state)
{
    (void)state;
    connected(MQTT_V311);
    static char payload[ZQ_MQTT_PACKET_MAX / 2];
    memset(payload, 'p', sizeof payload - 1);
    mqtt_publish_t m = message("a", payload, 0);
    zq_err_t err = ZQ_OK;
    size_t accepted = 0;
    while ((err = mqtt_client_publish(&cl, &m, NULL)) == ZQ_OK) {
        accepted++;
    }
    assert_int_equal(err, ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(accepted, ZQ_MQTT_OUT_MAX / (sizeof payload + 5));
    const uint8_t *p;
    assert_true(mqtt_client_pending(&cl, &p) <= ZQ_MQTT_OUT_MAX);
    (void)take_output();
    assert_int_equal(mqtt_client_publish(&cl, &m, NULL), ZQ_OK);
}

static void publish_larger_than_a_packet_is_too_long(void **state)
{
    (void)state;
    connected(MQTT_V311);
    static char payload[ZQ_MQTT_PACKET_MAX];
    memset(payload, 'p', sizeof payload - 1);
    mqtt_publish_t m = message("a", payload, 1);
    assert_int_equal(mqtt_client_publish(&cl, &m, NULL), ZQ_ERR_TOO_LONG);
    m.qos = 0;
    assert_int_equal(mqtt_client_publish(&cl, &m, NULL), ZQ_ERR_TOO_LONG);
    assert_int_equal(mqtt_client_inflight(&cl), 0);
}

static void publish_arguments_are_checked(void **state)
{
    (void)state;
    connected(MQTT_V5);
    mqtt_publish_t m = message("a/+", "x", 0);
    assert_int_equal(mqtt_client_publish(&cl, &m, NULL), ZQ_ERR_INVALID_ARG);
    m = message("", "x", 0);
    assert_int_equal(mqtt_client_publish(&cl, &m, NULL), ZQ_ERR_INVALID_ARG);
    m = message("a", "x", 2);
    assert_int_equal(mqtt_client_publish(&cl, &m, NULL), ZQ_ERR_INVALID_ARG);
    m = message("a", "\xff", 0);
    m.payload_utf8 = true;
    assert_int_equal(mqtt_client_publish(&cl, &m, NULL), ZQ_ERR_INVALID_ARG);
    m = message("a", "x", 0);
    m.response_topic = "r/#";
    assert_int_equal(mqtt_client_publish(&cl, &m, NULL), ZQ_ERR_INVALID_ARG);
}

/* ---- SUBSCRIBE / UNSUBSCRIBE ---------------------------------------------------------------- */

static void suback_reports_one_reason_per_filter(void **state)
{
    (void)state;
    connected(MQTT_V311);
    mqtt_subscription_t s[2] = {{.filter = "a/#", .qos = 1}, {.filter = "b", .qos = 0}};
    uint16_t id;
    assert_int_equal(mqtt_client_subscribe(&cl, s, 2, &id), ZQ_OK);
    OUTPUT(0x82, 0x0C, 0x00, (uint8_t)id, 0x00, 0x03, 'a', '/', '#', 0x01, 0x00, 0x01, 'b',
           0x00);
    FEED(0x90, 0x04, 0x00, (uint8_t)id, 0x01, 0x80);
    assert_int_equal(seen[0].type, MQTT_EV_SUBACK);
    assert_int_equal(seen[0].count, 2);
    assert_int_equal(seen[0].reasons[0], 0x01);
    assert_int_equal(seen[0].reasons[1], 0x80);
}

static void suback_with_a_wrong_count_is_a_protocol_error(void **state)
{
    (void)state;
    connected(MQTT_V5);
    mqtt_subscription_t s = {.filter = "a", .qos = 1};
    uint16_t id;
    assert_int_equal(mqtt_client_subscribe(&cl, &s, 1, &id), ZQ_OK);
    FEED(0x90, 0x05, 0x00, (uint8_t)id, 0x00, 0x01, 0x01);
    assert_error(MQTT_RC_PROTOCOL_ERROR);
}

static void v311_suback_code_outside_the_four_is_malformed(void **state)
{
    (void)state;
    connected(MQTT_V311);
    mqtt_subscription_t s = {.filter = "a", .qos = 1};
    uint16_t id;
    assert_int_equal(mqtt_client_subscribe(&cl, &s, 1, &id), ZQ_OK);
    FEED(0x90, 0x03, 0x00, (uint8_t)id, 0x87);
    assert_error(MQTT_RC_MALFORMED_PACKET);
}

static void v5_unsuback_reports_its_reason_codes(void **state)
{
    (void)state;
    connected(MQTT_V5);
    const char *filters[] = {"a/+"};
    uint16_t id;
    assert_int_equal(mqtt_client_unsubscribe(&cl, filters, 1, &id), ZQ_OK);
    OUTPUT(0xA2, 0x08, 0x00, (uint8_t)id, 0x00, 0x00, 0x03, 'a', '/', '+');
    FEED(0xB0, 0x04, 0x00, (uint8_t)id, 0x00, 0x11);
    assert_int_equal(seen[0].type, MQTT_EV_UNSUBACK);
    assert_int_equal(seen[0].count, 1);
    assert_int_equal(seen[0].reasons[0], 0x11);
}

static void requests_beyond_the_table_would_block(void **state)
{
    (void)state;
    connected(MQTT_V311);
    mqtt_subscription_t s = {.filter = "a", .qos = 1};
    for (size_t i = 0; i < ZQ_MQTT_REQUESTS_MAX; i++) {
        assert_int_equal(mqtt_client_subscribe(&cl, &s, 1, NULL), ZQ_OK);
    }
    assert_int_equal(mqtt_client_subscribe(&cl, &s, 1, NULL), ZQ_ERR_WOULD_BLOCK);
    mqtt_subscription_t bad = {.filter = "a/#/b", .qos = 1};
    assert_int_equal(mqtt_client_subscribe(&cl, &bad, 1, NULL), ZQ_ERR_INVALID_ARG);
}

/* ---- Topics (MQTT 4.7) ---------------------------------------------------------------------- */

static bool filter_ok(const char *f)
{
    return mqtt_topic_filter_valid(f, strlen(f));
}

static void topic_filter_plus_is_a_whole_level(void **state)
{
    (void)state;
    assert_true(filter_ok("+"));
    assert_true(filter_ok("+/tennis/#"));
    assert_true(filter_ok("sport/+/player1"));
    assert_false(filter_ok("sport+"));
    assert_false(filter_ok("sport/+x"));
}

static void topic_filter_hash_only_last(void **state)
{
    (void)state;
    assert_true(filter_ok("#"));
    assert_true(filter_ok("sport/tennis/#"));
    assert_false(filter_ok("sport/tennis#"));
    assert_false(filter_ok("sport/tennis/#/ranking"));
    assert_false(filter_ok("#/a"));
    assert_false(filter_ok(""));
}

/* The examples of 4.7.1.2 and 4.7.1.3. */
static void topic_matches_the_examples_of_4_7(void **state)
{
    (void)state;
    assert_true(mqtt_topic_matches("sport/tennis/player1/#", "sport/tennis/player1"));
    assert_true(mqtt_topic_matches("sport/tennis/player1/#", "sport/tennis/player1/ranking"));
    assert_true(mqtt_topic_matches("sport/tennis/player1/#",
                                   "sport/tennis/player1/score/wimbledon"));
    assert_true(mqtt_topic_matches("sport/#", "sport"));
    assert_true(mqtt_topic_matches("sport/tennis/+", "sport/tennis/player1"));
    assert_false(mqtt_topic_matches("sport/tennis/+", "sport/tennis/player1/ranking"));
    assert_false(mqtt_topic_matches("sport/+", "sport"));
    assert_true(mqtt_topic_matches("sport/+", "sport/"));
    assert_true(mqtt_topic_matches("+/+", "/finance"));
    assert_true(mqtt_topic_matches("/+", "/finance"));
    assert_false(mqtt_topic_matches("+", "/finance"));
    assert_false(mqtt_topic_matches("a/b", "a/b/c"));
    assert_false(mqtt_topic_matches("a/b/c", "a/b"));
    assert_false(mqtt_topic_matches("a/#/c", "a/b/c")); /* an invalid filter matches nothing */
}

static void dollar_topics_are_not_matched_by_wildcards(void **state)
{
    (void)state;
    assert_false(mqtt_topic_matches("#", "$SYS/broker/uptime"));
    assert_false(mqtt_topic_matches("+/monitor/Clients", "$SYS/monitor/Clients"));
    assert_true(mqtt_topic_matches("$SYS/#", "$SYS/monitor/Clients"));
    assert_true(mqtt_topic_matches("$SYS/monitor/+", "$SYS/monitor/Clients"));
}

/* ---- Keepalive, disconnect, reset ----------------------------------------------------------- */

static void keepalive_sends_pingreq_when_due(void **state)
{
    (void)state;
    now_ms = 1000;
    connect_with(MQTT_V311, true, 10, 0);
    FEED(0x20, 0x02, 0x00, 0x00);
    assert_int_equal(mqtt_client_next_timeout(&cl), 11000);
    mqtt_client_timeout(&cl, 10999);
    assert_int_equal(take_output(), 0);
    mqtt_client_timeout(&cl, 11000);
    OUTPUT(0xC0, 0x00);
    assert_int_equal(mqtt_client_next_timeout(&cl), 16000); /* 1.5 x keepalive from rx */
    now_ms = 11500;
    FEED(0xD0, 0x00);
    assert_int_equal(feed_result, ZQ_OK);
    assert_int_equal(mqtt_client_next_timeout(&cl), 21000);
    now_ms = 1000;
}

static void no_pingresp_within_one_and_a_half_keepalive_is_dead(void **state)
{
    (void)state;
    now_ms = 1000;
    connect_with(MQTT_V311, true, 10, 0);
    FEED(0x20, 0x02, 0x00, 0x00);
    mqtt_client_timeout(&cl, 11000);
    mqtt_client_timeout(&cl, 15999);
    assert_int_equal(mqtt_client_state(&cl), MQTT_STATE_CONNECTED);
    mqtt_client_timeout(&cl, 16000);
    assert_int_equal(seen[n_seen - 1].type, MQTT_EV_DEAD);
    assert_int_equal(mqtt_client_state(&cl), MQTT_STATE_CLOSED);
    assert_int_equal(mqtt_client_next_timeout(&cl), ZQ_TIME_NEVER);
}

static void v5_server_keep_alive_overrides_ours(void **state)
{
    (void)state;
    now_ms = 1000;
    connect_with(MQTT_V5, true, 60, 0);
    FEED(0x20, 0x06, 0x00, 0x00, 0x03, 0x13, 0x00, 0x05);
    assert_int_equal(mqtt_client_next_timeout(&cl), 6000);
}

static void disconnect_queues_disconnect_and_closes(void **state)
{
    (void)state;
    connected(MQTT_V5);
    assert_int_equal(mqtt_client_disconnect(&cl, MQTT_RC_SUCCESS), ZQ_OK);
    OUTPUT(0xE0, 0x00);
    assert_int_equal(mqtt_client_state(&cl), MQTT_STATE_CLOSING);
    FEED(0xD0, 0x00);
    assert_int_equal(feed_result, ZQ_ERR_CLOSED);
    assert_int_equal(mqtt_client_disconnect(&cl, 0), ZQ_ERR_STATE);
}

static void v5_server_disconnect_is_reported(void **state)
{
    (void)state;
    connected(MQTT_V5);
    FEED(0xE0, 0x01, 0x8B); /* server shutting down */
    assert_int_equal(feed_result, ZQ_ERR_CLOSED);
    assert_int_equal(seen[0].type, MQTT_EV_DISCONNECT);
    assert_int_equal(seen[0].reason, 0x8B);
}

static void reset_connection_keeps_the_session(void **state)
{
    (void)state;
    connected(MQTT_V311);
    (void)publish_qos1("a", "x");
    FEED(0x32, 0x06, 0x00, 0x01, 't', 0x00, 0x09, 'x');
    mqtt_client_reset_connection(&cl);
    assert_int_equal(mqtt_client_state(&cl), MQTT_STATE_IDLE);
    assert_int_equal(mqtt_client_inflight(&cl), 1);
    assert_int_equal(mqtt_client_unacked(&cl), 1);
    const uint8_t *p;
    assert_int_equal(mqtt_client_pending(&cl, &p), 0);
    assert_int_equal(mqtt_client_feed(&cl, now_ms, p, 0), ZQ_ERR_STATE);
}

/* ---- Splits --------------------------------------------------------------------------------- */

/* A CONNACK with properties, three publishes (QoS 0, QoS 1 with properties, a redelivery), a
 * PUBACK, a SUBACK and a PINGRESP, v5: fed whole, then split at every byte, then a byte at a
 * time; the events must be the same each time. */
static const uint8_t session_bytes[] = {
    0x20, 0x08, 0x01, 0x00, 0x05, 0x21, 0x00, 0x04, 0x25, 0x01,       /* CONNACK */
    0x30, 0x06, 0x00, 0x01, 't', 0x00, 'h', 'i',                       /* QoS 0 */
    0x32, 0x0D, 0x00, 0x01, 'u', 0x00, 0x05, 0x05, 0x08, 0x00, 0x02, 'r', 'r', 'p', 'l',
    0x3A, 0x08, 0x00, 0x01, 'u', 0x00, 0x05, 0x00, 'p', 'l',            /* redelivery */
    0x40, 0x02, 0x00, 0x01,                                             /* PUBACK 1 */
    0x90, 0x04, 0x00, 0x02, 0x00, 0x01,                                 /* SUBACK 2 */
    0xD0, 0x00,                                                         /* PINGRESP */
};

static void run_session(size_t split, size_t step, seen_t *out, size_t *n_out)
{
    setup(NULL);
    connect_with(MQTT_V5, false, 0, 0);
    (void)publish_qos1("p", "x"); /* id 1, sent after the CONNACK */
    cl.requests[0] = (mqtt_request_t){.packet_id = 2, .type = MQTT_SUBSCRIBE, .count = 1};
    cl.n_requests = 1;
    size_t off = 0;
    while (off < sizeof session_bytes) {
        size_t piece = step != 0 ? step : (off == 0 ? split : sizeof session_bytes - off);
        piece = piece < sizeof session_bytes - off ? piece : sizeof session_bytes - off;
        assert_int_equal(mqtt_client_feed(&cl, now_ms, session_bytes + off, piece), ZQ_OK);
        off += piece;
    }
    memcpy(out, seen, n_seen * sizeof *seen);
    *n_out = n_seen;
}

static void feed_split_at_every_byte_gives_the_same_events(void **state)
{
    (void)state;
    static seen_t whole[MAX_EVENTS], part[MAX_EVENTS];
    size_t n_whole, n_part;
    run_session(sizeof session_bytes, 0, whole, &n_whole);
    assert_int_equal(n_whole, 6);
    assert_true(whole[0].session_present);
    assert_string_equal(whole[2].response_topic, "rr");
    assert_true(whole[3].redelivery);
    assert_int_equal(whole[4].type, MQTT_EV_PUBACK);
    assert_int_equal(whole[5].type, MQTT_EV_SUBACK);
    for (size_t split = 1; split < sizeof session_bytes; split++) {
        run_session(split, 0, part, &n_part);
        assert_int_equal(n_part, n_whole);
        assert_memory_equal(part, whole, n_whole * sizeof *whole);
    }
    run_session(0, 1, part, &n_part);
    assert_int_equal(n_part, n_whole);
    assert_memory_equal(part, whole, n_whole * sizeof *whole);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(connect_v311_is_the_spec_layout, setup),
        cmocka_unit_test_setup(connect_v311_will_and_credentials_follow_the_client_id, setup),
        cmocka_unit_test_setup(connect_v5_sends_expiry_receive_maximum_and_packet_size, setup),
        cmocka_unit_test_setup(publish_v311_qos0_and_qos1_are_the_spec_layout, setup),
        cmocka_unit_test_setup(publish_v5_carries_response_topic_and_correlation_data, setup),
        cmocka_unit_test_setup(subscribe_v311_and_v5_are_the_spec_layout, setup),
        cmocka_unit_test_setup(remaining_length_encodes_as_the_spec_table, setup),
        cmocka_unit_test_setup(remaining_length_over_four_bytes_is_malformed, setup),
        cmocka_unit_test_setup(remaining_length_not_minimal_is_malformed, setup),
        cmocka_unit_test_setup(reserved_fixed_header_flags_are_malformed, setup),
        cmocka_unit_test_setup(packet_before_connack_is_a_protocol_error, setup),
        cmocka_unit_test_setup(second_connack_is_a_protocol_error, setup),
        cmocka_unit_test_setup(v5_packet_over_our_maximum_is_packet_too_large, setup),
        cmocka_unit_test_setup(v311_packet_over_our_maximum_is_skipped_and_counted, setup),
        cmocka_unit_test_setup(connack_session_present_is_reported, setup),
        cmocka_unit_test_setup(connack_refusal_is_reported_and_closes, setup),
        cmocka_unit_test_setup(session_present_after_clean_start_is_a_protocol_error, setup),
        cmocka_unit_test_setup(v5_connack_properties_are_kept, setup),
        cmocka_unit_test_setup(v5_connack_receive_maximum_zero_is_a_protocol_error, setup),
        cmocka_unit_test_setup(v5_unknown_property_is_malformed, setup),
        cmocka_unit_test_setup(v5_property_of_another_packet_is_malformed, setup),
        cmocka_unit_test_setup(v5_property_given_twice_is_a_protocol_error, setup),
        cmocka_unit_test_setup(v5_property_length_past_the_packet_is_malformed, setup),
        cmocka_unit_test_setup(v5_topic_alias_is_a_protocol_error, setup),
        cmocka_unit_test_setup(topic_that_is_not_utf8_is_malformed, setup),
        cmocka_unit_test_setup(topic_with_wildcards_is_malformed, setup),
        cmocka_unit_test_setup(qos0_with_dup_and_qos3_are_malformed, setup),
        cmocka_unit_test_setup(v5_publish_properties_reach_the_event, setup),
        cmocka_unit_test_setup(incoming_qos1_is_not_acked_until_the_caller_acks, setup),
        cmocka_unit_test_setup(v5_puback_refusal_carries_its_reason, setup),
        cmocka_unit_test_setup(redelivery_of_a_pending_id_is_flagged, setup),
        cmocka_unit_test_setup(ack_given_while_disconnected_answers_the_redelivery, setup),
        cmocka_unit_test_setup(server_over_receive_maximum_is_a_protocol_error, setup),
        cmocka_unit_test_setup(
            a_lenient_client_holds_what_goes_over_its_grant_while_the_table_has_room, setup),
        cmocka_unit_test_setup(
            a_lenient_client_with_a_full_table_stops_reading_and_goes_on_after_an_ack, setup),
        cmocka_unit_test_setup(v311_over_our_bound_is_dropped_unacked_and_counted, setup),
        cmocka_unit_test_setup(qos1_publish_is_kept_until_its_puback, setup),
        cmocka_unit_test_setup(v5_puback_reason_over_0x80_is_a_refusal, setup),
        cmocka_unit_test_setup(puback_for_an_id_not_in_flight_is_counted, setup),
        cmocka_unit_test_setup(qos1_publish_is_resent_with_dup_after_reconnect, setup),
        cmocka_unit_test_setup(qos1_publish_is_resent_as_new_when_the_session_is_gone, setup),
        cmocka_unit_test_setup(packet_id_is_never_zero_nor_reused_in_flight, setup),
        cmocka_unit_test_setup(inflight_full_refuses_the_publish_cleanly, setup),
        cmocka_unit_test_setup(server_receive_maximum_bounds_publishes_on_the_wire, setup),
        cmocka_unit_test_setup(qos0_with_the_output_full_would_block, setup),
        cmocka_unit_test_setup(publish_larger_than_a_packet_is_too_long, setup),
        cmocka_unit_test_setup(publish_arguments_are_checked, setup),
        cmocka_unit_test_setup(suback_reports_one_reason_per_filter, setup),
        cmocka_unit_test_setup(suback_with_a_wrong_count_is_a_protocol_error, setup),
        cmocka_unit_test_setup(v311_suback_code_outside_the_four_is_malformed, setup),
        cmocka_unit_test_setup(v5_unsuback_reports_its_reason_codes, setup),
        cmocka_unit_test_setup(requests_beyond_the_table_would_block, setup),
        cmocka_unit_test(topic_filter_plus_is_a_whole_level),
        cmocka_unit_test(topic_filter_hash_only_last),
        cmocka_unit_test(topic_matches_the_examples_of_4_7),
        cmocka_unit_test(dollar_topics_are_not_matched_by_wildcards),
        cmocka_unit_test_setup(keepalive_sends_pingreq_when_due, setup),
        cmocka_unit_test_setup(no_pingresp_within_one_and_a_half_keepalive_is_dead, setup),
        cmocka_unit_test_setup(v5_server_keep_alive_overrides_ours, setup),
        cmocka_unit_test_setup(disconnect_queues_disconnect_and_closes, setup),
        cmocka_unit_test_setup(v5_server_disconnect_is_reported, setup),
        cmocka_unit_test_setup(reset_connection_keeps_the_session, setup),
        cmocka_unit_test_setup(feed_split_at_every_byte_gives_the_same_events, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* MQTT 5 properties (5.0 §2.2.2): a Variable Byte Integer length, then properties, each an
 * identifier (a Variable Byte Integer) and a value of the type the identifier fixes:
 *
 *     +------------------+----------+---------+----------+---------+-----
 *     | Property Length  | Id       | value   | Id       | value   | ...
 *     | (VBI, 1-4 bytes) | (VBI)    | (type)  | (VBI)    | (type)  |
 *     +------------------+----------+---------+----------+---------+-----
 *
 * The walk is bounded by the property length, itself bounded by what is left of the packet.
 * Rules (§2.2.2.2): an identifier that is unknown, or not valid for its packet, or a value not
 * of its type is a Malformed Packet; a property given twice that may appear once is a Protocol
 * Error, and so are values outside their range (§3.2.2.3, §3.3.2.3). Will and CONNECT
 * properties are only written here, never read.
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

typedef enum { T_BYTE, T_TWO, T_FOUR, T_VBI, T_UTF8, T_BINARY, T_PAIR } prop_type_t;

#define IN(k) (1u << (k))
#define ACKS (IN(MQTT_PK_CONNACK) | IN(MQTT_PK_PUBACK) | IN(MQTT_PK_SUBACK) | \
              IN(MQTT_PK_UNSUBACK) | IN(MQTT_PK_DISCONNECT))
#define ALL (ACKS | IN(MQTT_PK_PUBLISH))

typedef struct {
    uint8_t id;
    uint8_t type;   /* prop_type_t */
    uint8_t where;  /* IN() bits of the packets a server may send it in */
    bool many;      /* may appear more than once */
} prop_rule_t;

/* §2.2.2.2's table, for the packets a client receives. CONNECT-only and Will-only ones
 * (0x17, 0x18, 0x19) are known but valid in none of them. */
static const prop_rule_t rules[] = {
    {MQTT_P_PAYLOAD_FORMAT, T_BYTE, IN(MQTT_PK_PUBLISH), false},
    {MQTT_P_MESSAGE_EXPIRY, T_FOUR, IN(MQTT_PK_PUBLISH), false},
    {MQTT_P_CONTENT_TYPE, T_UTF8, IN(MQTT_PK_PUBLISH), false},
    {MQTT_P_RESPONSE_TOPIC, T_UTF8, IN(MQTT_PK_PUBLISH), false},
    {MQTT_P_CORRELATION_DATA, T_BINARY, IN(MQTT_PK_PUBLISH), false},
    {MQTT_P_SUBSCRIPTION_ID, T_VBI, IN(MQTT_PK_PUBLISH), true},
    {MQTT_P_SESSION_EXPIRY, T_FOUR, IN(MQTT_PK_CONNACK) | IN(MQTT_PK_DISCONNECT), false},
    {MQTT_P_ASSIGNED_CLIENT_ID, T_UTF8, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_SERVER_KEEP_ALIVE, T_TWO, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_AUTH_METHOD, T_UTF8, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_AUTH_DATA, T_BINARY, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_REQUEST_PROBLEM_INFO, T_BYTE, 0, false},
    {MQTT_P_WILL_DELAY, T_FOUR, 0, false},
    {MQTT_P_REQUEST_RESPONSE_INFO, T_BYTE, 0, false},
    {MQTT_P_RESPONSE_INFO, T_UTF8, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_SERVER_REFERENCE, T_UTF8, IN(MQTT_PK_CONNACK) | IN(MQTT_PK_DISCONNECT), false},
    {MQTT_P_REASON_STRING, T_UTF8, ACKS, false},
    {MQTT_P_RECEIVE_MAXIMUM, T_TWO, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_TOPIC_ALIAS_MAXIMUM, T_TWO, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_TOPIC_ALIAS, T_TWO, IN(MQTT_PK_PUBLISH), false},
    {MQTT_P_MAXIMUM_QOS, T_BYTE, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_RETAIN_AVAILABLE, T_BYTE, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_USER_PROPERTY, T_PAIR, ALL, true},
    {MQTT_P_MAXIMUM_PACKET_SIZE, T_FOUR, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_WILDCARD_AVAILABLE, T_BYTE, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_SUBSCRIPTION_IDS_AVAILABLE, T_BYTE, IN(MQTT_PK_CONNACK), false},
    {MQTT_P_SHARED_AVAILABLE, T_BYTE, IN(MQTT_PK_CONNACK), false},
};

static const prop_rule_t *rule_of(uint32_t id)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        if (rules[i].id == id) {
            return &rules[i];
        }
    }
    return NULL;
}

/* Reads one value of @p type; false if it is cut short or not of its type. */
static bool read_value(zq_reader_t *r, uint8_t type, uint32_t *num, mqtt_bytes_t *str)
{
    mqtt_bytes_t second;
    switch (type) {
    case T_BYTE: *num = zq_read_u8(r); break;
    case T_TWO: *num = zq_read_be16(r); break;
    case T_FOUR: *num = zq_read_be32(r); break;
    case T_VBI: return mqtt_read_varint(r, num);
    case T_UTF8: return mqtt_read_string(r, str);
    case T_BINARY: return mqtt_read_binary(r, str);
    default: return mqtt_read_string(r, str) && mqtt_read_string(r, &second); /* T_PAIR */
    }
    return !r->failed;
}

/* The ranges §3.2.2.3 and §3.3.2.3 give; outside them is a Protocol Error. */
static bool value_in_range(uint8_t id, uint32_t v)
{
    switch (id) {
    case MQTT_P_PAYLOAD_FORMAT:
    case MQTT_P_MAXIMUM_QOS:
    case MQTT_P_RETAIN_AVAILABLE:
    case MQTT_P_WILDCARD_AVAILABLE:
    case MQTT_P_SUBSCRIPTION_IDS_AVAILABLE:
    case MQTT_P_SHARED_AVAILABLE:
        return v <= 1;
    case MQTT_P_RECEIVE_MAXIMUM:
    case MQTT_P_MAXIMUM_PACKET_SIZE:
    case MQTT_P_SUBSCRIPTION_ID:
        return v != 0;
    default:
        return true;
    }
}

static mqtt_rc_t walk(zq_reader_t *r, mqtt_prop_packet_t kind, mqtt_props_t *out,
                      const char **why)
{
    while (zq_reader_left(r) > 0) {
        uint32_t id, num = 0;
        mqtt_bytes_t str = {NULL, 0};
        if (!mqtt_read_varint(r, &id)) {
            return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "property identifier malformed");
        }
        const prop_rule_t *rule = rule_of(id);
        if (rule == NULL) {
            return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "unknown property");
        }
        if ((rule->where & IN(kind)) == 0) {
            return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "property not valid in packet");
        }
        if (!read_value(r, rule->type, &num, &str)) {
            return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "property value malformed");
        }
        if (mqtt_props_has(out, rule->id) && !rule->many) {
            return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, "property given twice");
        }
        if (!value_in_range(rule->id, num)) {
            return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, "property value out of range");
        }
        if (!mqtt_props_has(out, rule->id)) { /* of a repeated one, the first is kept */
            out->seen |= (uint64_t)1 << rule->id;
            out->u32[rule->id] = num;
            out->str[rule->id] = str;
        }
    }
    return MQTT_RC_SUCCESS;
}

mqtt_rc_t mqtt_props_parse(zq_reader_t *r, mqtt_prop_packet_t kind, mqtt_props_t *out,
                           const char **why)
{
    memset(out, 0, sizeof *out);
    uint32_t len;
    if (!mqtt_read_varint(r, &len)) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "property length malformed");
    }
    const uint8_t *block = zq_read_bytes(r, len);
    if (block == NULL) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "property length past the packet");
    }
    out->block = (mqtt_bytes_t){block, len};
    zq_reader_t in = zq_reader(block, len);
    return walk(&in, kind, out, why);
}

/* Walks a block the parser already checked, stopping at each User Property. */
bool mqtt_user_prop_next(const mqtt_bytes_t *props, size_t *pos, mqtt_bytes_t *name,
                         mqtt_bytes_t *value)
{
    if (props == NULL || props->data == NULL || *pos > props->len) {
        return false;
    }
    zq_reader_t r = zq_reader(props->data, props->len);
    r.off = *pos;
    while (zq_reader_left(&r) > 0) {
        uint32_t id, num;
        mqtt_bytes_t str;
        const prop_rule_t *rule = mqtt_read_varint(&r, &id) ? rule_of(id) : NULL;
        if (rule == NULL) {
            return false;
        }
        if (rule->type == T_PAIR) {
            bool ok = mqtt_read_string(&r, name) && mqtt_read_string(&r, value);
            *pos = r.off;
            return ok;
        }
        if (!read_value(&r, rule->type, &num, &str)) {
            return false;
        }
    }
    *pos = r.off;
    return false;
}

/* ---- Writing: PUBLISH and Will properties (5.0 §3.3.2.3, §3.1.3.2) ------------------------- */

bool mqtt_publish_props_valid(const mqtt_publish_t *m)
{
    if (m->response_topic != NULL &&
        !mqtt_topic_name_valid(m->response_topic, strlen(m->response_topic))) {
        return false; /* §3.3.2.3.5: a Topic Name, so no wildcards */
    }
    if (m->content_type != NULL &&
        !mqtt_utf8_ok((const uint8_t *)m->content_type, strlen(m->content_type))) {
        return false;
    }
    if (m->correlation_data == NULL ? m->correlation_len != 0 : m->correlation_len > 0xFFFF) {
        return false;
    }
    if (m->payload_utf8 && m->payload_len > 0 && !mqtt_utf8_ok(m->payload, m->payload_len)) {
        return false; /* §3.3.2.3.2: we say it is UTF-8, so it must be */
    }
    for (size_t i = 0; i < m->n_user_props; i++) {
        const mqtt_user_prop_t *u = &m->user_props[i];
        if (u->name == NULL || u->value == NULL ||
            !mqtt_utf8_ok((const uint8_t *)u->name, strlen(u->name)) ||
            !mqtt_utf8_ok((const uint8_t *)u->value, strlen(u->value))) {
            return false;
        }
    }
    return m->n_user_props == 0 || m->user_props != NULL;
}

void mqtt_props_write_publish(zq_writer_t *w, const mqtt_publish_t *m, bool will,
                              uint32_t will_delay_s)
{
    size_t mark = mqtt_props_begin(w);
    if (will && will_delay_s != 0) {
        zq_write_u8(w, MQTT_P_WILL_DELAY);
        zq_write_be32(w, will_delay_s);
    }
    if (m->payload_utf8) {
        zq_write_u8(w, MQTT_P_PAYLOAD_FORMAT);
        zq_write_u8(w, 1);
    }
    if (m->has_message_expiry) {
        zq_write_u8(w, MQTT_P_MESSAGE_EXPIRY);
        zq_write_be32(w, m->message_expiry_s);
    }
    if (m->content_type != NULL) {
        zq_write_u8(w, MQTT_P_CONTENT_TYPE);
        mqtt_write_cstr(w, m->content_type);
    }
    if (m->response_topic != NULL) {
        zq_write_u8(w, MQTT_P_RESPONSE_TOPIC);
        mqtt_write_cstr(w, m->response_topic);
    }
    if (m->correlation_data != NULL) {
        zq_write_u8(w, MQTT_P_CORRELATION_DATA);
        mqtt_write_binary(w, m->correlation_data, m->correlation_len);
    }
    for (size_t i = 0; i < m->n_user_props; i++) {
        zq_write_u8(w, MQTT_P_USER_PROPERTY);
        mqtt_write_cstr(w, m->user_props[i].name);
        mqtt_write_cstr(w, m->user_props[i].value);
    }
    mqtt_props_end(w, mark);
}

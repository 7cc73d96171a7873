/* SUBSCRIBE (3.1.1 §3.8, 5.0 §3.8).
 *
 *     Fixed header    | 0x82 | Remaining Length       (flags 0010: MQTT-3.8.1-1)  |
 *     Variable header | Packet Identifier | Properties (5.0 only; we send none) |
 *     Payload         | Topic Filter | Options | Topic Filter | Options | ...   |
 *
 *     Options:    7   6       5   4          3              2         1   0
 *              +-------+-------------+-------------------+----------+-------+
 *              | 0   0 | Retain      | Retain As         | No Local | QoS   |
 *              |       | Handling    | Published         |          |       |
 *              +-------+-------------+-------------------+----------+-------+
 *
 * 3.1.1 has only the QoS bits; the others are reserved, 0 (MQTT-3.8.3-4). A SUBSCRIBE carries
 * at least one filter (MQTT-3.8.3-3), each valid (MQTT 4.7).
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

zq_err_t mqtt_subscribe_check(const mqtt_subscription_t *subs, size_t n)
{
    if (subs == NULL || n == 0 || n > ZQ_MQTT_SUBS_MAX) {
        return ZQ_ERR_INVALID_ARG;
    }
    for (size_t i = 0; i < n; i++) {
        const mqtt_subscription_t *s = &subs[i];
        if (s->qos > 1 || s->retain_handling > 2 || s->filter == NULL ||
            !mqtt_topic_filter_valid(s->filter, strlen(s->filter))) {
            return ZQ_ERR_INVALID_ARG;
        }
    }
    return ZQ_OK;
}

static uint8_t options(uint8_t version, const mqtt_subscription_t *s)
{
    uint8_t o = s->qos;
    if (version == MQTT_V5) {
        o |= (uint8_t)((s->no_local ? 0x04 : 0) | (s->retain_as_published ? 0x08 : 0) |
                       s->retain_handling << 4);
    }
    return o;
}

void mqtt_subscribe_write(zq_writer_t *w, uint8_t version, uint16_t packet_id,
                          const mqtt_subscription_t *subs, size_t n)
{
    size_t mark = mqtt_packet_begin(w);
    zq_write_be16(w, packet_id);
    if (version == MQTT_V5) {
        zq_write_u8(w, 0); /* no properties */
    }
    for (size_t i = 0; i < n; i++) {
        mqtt_write_cstr(w, subs[i].filter);
        zq_write_u8(w, options(version, &subs[i]));
    }
    mqtt_packet_end(w, mark, MQTT_SUBSCRIBE << 4 | 0x02);
}

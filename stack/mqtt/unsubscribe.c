/* UNSUBSCRIBE (3.1.1 §3.10, 5.0 §3.10).
 *
 *     Fixed header    | 0xA2 | Remaining Length      (flags 0010: MQTT-3.10.1-1)  |
 *     Variable header | Packet Identifier | Properties (5.0 only; we send none) |
 *     Payload         | Topic Filter | Topic Filter | ...  (at least one)       |
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

zq_err_t mqtt_unsubscribe_check(const char *const *filters, size_t n)
{
    if (filters == NULL || n == 0 || n > ZQ_MQTT_SUBS_MAX) {
        return ZQ_ERR_INVALID_ARG;
    }
    for (size_t i = 0; i < n; i++) {
        if (filters[i] == NULL || !mqtt_topic_filter_valid(filters[i], strlen(filters[i]))) {
            return ZQ_ERR_INVALID_ARG;
        }
    }
    return ZQ_OK;
}

void mqtt_unsubscribe_write(zq_writer_t *w, uint8_t version, uint16_t packet_id,
                            const char *const *filters, size_t n)
{
    size_t mark = mqtt_packet_begin(w);
    zq_write_be16(w, packet_id);
    if (version == MQTT_V5) {
        zq_write_u8(w, 0); /* no properties */
    }
    for (size_t i = 0; i < n; i++) {
        mqtt_write_cstr(w, filters[i]);
    }
    mqtt_packet_end(w, mark, MQTT_UNSUBSCRIBE << 4 | 0x02);
}

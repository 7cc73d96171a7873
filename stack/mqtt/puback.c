/* PUBACK (3.1.1 §3.4, 5.0 §3.4): the answer to a QoS 1 PUBLISH, either way.
 *
 *     Fixed header    | 0x40 | Remaining Length                                |
 *     Variable header | Packet Identifier (MSB, LSB)                           |
 *                     | Reason Code (5.0, may be left out: 0x00)               |
 *                     | Properties  (5.0, may be left out when empty)          |
 *
 * 3.1.1's remaining length is exactly 2. In 5.0 a remaining length of 2 means Success with no
 * properties, 3 a reason code with no properties (§3.4.2.1). We write the shortest form.
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

void mqtt_puback_write(zq_writer_t *w, uint8_t version, uint16_t packet_id, uint8_t reason)
{
    bool with_reason = version == MQTT_V5 && reason != MQTT_RC_SUCCESS;
    zq_write_u8(w, MQTT_PUBACK << 4);
    zq_write_u8(w, with_reason ? 3 : 2);
    zq_write_be16(w, packet_id);
    if (with_reason) {
        zq_write_u8(w, reason);
    }
}

mqtt_rc_t mqtt_puback_parse(const uint8_t *body, size_t len, uint8_t version,
                            mqtt_puback_t *out, const char **why)
{
    memset(out, 0, sizeof *out);
    zq_reader_t r = zq_reader(body, len);
    out->packet_id = zq_read_be16(&r);
    if (r.failed || out->packet_id == 0 || (version == MQTT_V311 && len != 2)) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "PUBACK malformed");
    }
    if (len == 2) {
        return MQTT_RC_SUCCESS;
    }
    out->reason = zq_read_u8(&r);
    if (len == 3) {
        return MQTT_RC_SUCCESS;
    }
    mqtt_rc_t rc = mqtt_props_parse(&r, MQTT_PK_PUBACK, &out->props, why);
    if (rc == MQTT_RC_SUCCESS && zq_reader_left(&r) != 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "bytes after PUBACK properties");
    }
    return rc;
}

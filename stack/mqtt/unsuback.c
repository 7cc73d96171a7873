/* UNSUBACK (3.1.1 §3.11, 5.0 §3.11).
 *
 *     Fixed header    | 0xB0 | Remaining Length                                |
 *     Variable header | Packet Identifier | Properties (5.0 only)              |
 *     Payload         | Reason Code | ...  (5.0 only: one per filter)         |
 *
 * 3.1.1's remaining length is exactly 2: no payload. 5.0's codes are 0x00, 0x11 (no
 * subscription existed) and the errors of §3.11.3; any other is malformed.
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

static bool code_ok(uint8_t rc)
{
    static const uint8_t codes[] = {0x00, 0x11, 0x80, 0x83, 0x87, 0x8F, 0x91};
    return memchr(codes, rc, sizeof codes) != NULL;
}

static mqtt_rc_t read_codes(zq_reader_t *r, mqtt_suback_t *out, const char **why)
{
    out->count = zq_reader_left(r);
    out->reasons = zq_read_bytes(r, out->count);
    if (out->count == 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "UNSUBACK without reason codes");
    }
    for (size_t i = 0; i < out->count; i++) {
        if (!code_ok(out->reasons[i])) {
            return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "UNSUBACK reason code not defined");
        }
    }
    return MQTT_RC_SUCCESS;
}

mqtt_rc_t mqtt_unsuback_parse(const uint8_t *body, size_t len, uint8_t version,
                              mqtt_suback_t *out, const char **why)
{
    memset(out, 0, sizeof *out);
    zq_reader_t r = zq_reader(body, len);
    out->packet_id = zq_read_be16(&r);
    if (r.failed || out->packet_id == 0 || (version == MQTT_V311 && len != 2)) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "UNSUBACK malformed");
    }
    if (version == MQTT_V311) {
        return MQTT_RC_SUCCESS;
    }
    mqtt_rc_t rc = mqtt_props_parse(&r, MQTT_PK_UNSUBACK, &out->props, why);
    return rc != MQTT_RC_SUCCESS ? rc : read_codes(&r, out, why);
}

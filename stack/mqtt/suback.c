/* SUBACK (3.1.1 §3.9, 5.0 §3.9): one reason code per filter of the SUBSCRIBE, in its order.
 *
 *     Fixed header    | 0x90 | Remaining Length                                |
 *     Variable header | Packet Identifier | Properties (5.0 only)              |
 *     Payload         | Reason Code | Reason Code | ...                        |
 *
 * 3.1.1 allows only 0x00, 0x01, 0x02 (the QoS granted) and 0x80 (failure) (MQTT-3.9.3-2);
 * 5.0 adds its error codes (§3.9.3). Any other code is malformed; so is a SUBACK without one.
 * That there are as many as filters is the client's check (it knows the request).
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

static bool code_ok(uint8_t version, uint8_t rc)
{
    static const uint8_t v5_errors[] = {0x80, 0x83, 0x87, 0x8F, 0x91, 0x97, 0x9E, 0xA1, 0xA2};
    if (rc <= 0x02) {
        return true;
    }
    if (version == MQTT_V311) {
        return rc == 0x80;
    }
    return memchr(v5_errors, rc, sizeof v5_errors) != NULL;
}

mqtt_rc_t mqtt_suback_parse(const uint8_t *body, size_t len, uint8_t version,
                            mqtt_suback_t *out, const char **why)
{
    memset(out, 0, sizeof *out);
    zq_reader_t r = zq_reader(body, len);
    out->packet_id = zq_read_be16(&r);
    if (r.failed || out->packet_id == 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "SUBACK packet id missing or 0");
    }
    if (version == MQTT_V5) {
        mqtt_rc_t rc = mqtt_props_parse(&r, MQTT_PK_SUBACK, &out->props, why);
        if (rc != MQTT_RC_SUCCESS) {
            return rc;
        }
    }
    out->count = zq_reader_left(&r);
    out->reasons = zq_read_bytes(&r, out->count);
    if (out->count == 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "SUBACK without reason codes");
    }
    for (size_t i = 0; i < out->count; i++) {
        if (!code_ok(version, out->reasons[i])) {
            return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "SUBACK reason code not defined");
        }
    }
    return MQTT_RC_SUCCESS;
}

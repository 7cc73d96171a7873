/* CONNACK (3.1.1 §3.2, 5.0 §3.2): the server's answer to CONNECT.
 *
 *     Fixed header    | 0x20 | Remaining Length                                |
 *     Variable header | Acknowledge Flags: 0000000 + Session Present (bit 0)   |
 *                     | Return Code (3.1.1, §3.2.2.3) / Reason Code (5.0)      |
 *                     | Properties (5.0 only, §3.2.2.3)                        |
 *
 * 3.1.1's remaining length is exactly 2 and its return codes are 0..5 (MQTT-3.2.2-6 reserves
 * the rest); bits 7-1 of the flags are reserved, 0. A refusal carries Session Present 0
 * (MQTT-3.2.2-4; 5.0 MQTT-3.2.2-6). A 3.1.1 server refusing our v5 CONNECT answers in 3.1.1
 * form, two bytes with return code 1 (unacceptable protocol level): reported as that refusal.
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

#define V311_RC_MAX 5
#define V311_BAD_PROTOCOL 0x01

static mqtt_rc_t check_flags(uint8_t flags, uint8_t reason, const char **why)
{
    if ((flags & 0xFE) != 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "CONNACK reserved flags set");
    }
    if (reason != 0 && (flags & 1) != 0) {
        return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, "refusing CONNACK with session present");
    }
    return MQTT_RC_SUCCESS;
}

mqtt_rc_t mqtt_connack_parse(const uint8_t *body, size_t len, uint8_t version,
                             mqtt_connack_t *out, const char **why)
{
    memset(out, 0, sizeof *out);
    zq_reader_t r = zq_reader(body, len);
    uint8_t flags = zq_read_u8(&r);
    out->reason = zq_read_u8(&r);
    out->session_present = (flags & 1) != 0;
    if (r.failed) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "CONNACK too short");
    }
    mqtt_rc_t rc = check_flags(flags, out->reason, why);
    if (rc != MQTT_RC_SUCCESS) {
        return rc;
    }
    bool v311_form = version == MQTT_V311 || (len == 2 && out->reason == V311_BAD_PROTOCOL);
    if (v311_form) {
        if (len != 2 || out->reason > V311_RC_MAX) {
            return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "CONNACK not 2 bytes / bad code");
        }
        return MQTT_RC_SUCCESS;
    }
    if (out->reason != 0 && out->reason < 0x80) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "CONNACK reason code not defined");
    }
    rc = mqtt_props_parse(&r, MQTT_PK_CONNACK, &out->props, why);
    if (rc == MQTT_RC_SUCCESS && zq_reader_left(&r) != 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "bytes after CONNACK properties");
    }
    return rc;
}

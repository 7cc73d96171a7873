/* DISCONNECT (3.1.1 §3.14, 5.0 §3.14).
 *
 *     Fixed header    | 0xE0 | Remaining Length                                |
 *     Variable header | Reason Code (5.0; left out: 0x00 Normal disconnection) |
 *                     | Properties  (5.0; left out when empty)                 |
 *
 * In 3.1.1 only the client sends it, with a remaining length of 0; a server's is a protocol
 * error. In 5.0 the server may send one to say why it closes (§3.14.2.1); it MUST NOT carry a
 * Session Expiry Interval (MQTT-3.14.2-2, a protocol error).
 */
#include <string.h>

#include "stack/mqtt/mqtt_internal.h"

void mqtt_disconnect_write(zq_writer_t *w, uint8_t version, uint8_t reason)
{
    bool with_reason = version == MQTT_V5 && reason != MQTT_RC_SUCCESS;
    zq_write_u8(w, MQTT_DISCONNECT << 4);
    zq_write_u8(w, with_reason ? 1 : 0);
    if (with_reason) {
        zq_write_u8(w, reason);
    }
}

mqtt_rc_t mqtt_disconnect_parse(const uint8_t *body, size_t len, uint8_t version,
                                mqtt_disconnect_t *out, const char **why)
{
    memset(out, 0, sizeof *out);
    if (version == MQTT_V311) {
        return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, "DISCONNECT from a 3.1.1 server");
    }
    zq_reader_t r = zq_reader(body, len);
    if (len == 0) {
        return MQTT_RC_SUCCESS;
    }
    out->reason = zq_read_u8(&r);
    if (len == 1) {
        return MQTT_RC_SUCCESS;
    }
    mqtt_rc_t rc = mqtt_props_parse(&r, MQTT_PK_DISCONNECT, &out->props, why);
    if (rc == MQTT_RC_SUCCESS && zq_reader_left(&r) != 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "bytes after DISCONNECT properties");
    }
    if (rc == MQTT_RC_SUCCESS && mqtt_props_has(&out->props, MQTT_P_SESSION_EXPIRY)) {
        return MQTT_REJECT(why, MQTT_RC_PROTOCOL_ERROR, "server DISCONNECT with session expiry");
    }
    return rc;
}

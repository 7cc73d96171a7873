/* PINGREQ and PINGRESP (3.1.1 §3.12-3.13, 5.0 §3.12-3.13): the keepalive, two bytes each.
 *
 *     PINGREQ  | 0xC0 | 0x00 |        PINGRESP | 0xD0 | 0x00 |
 *
 * A PINGRESP with a remaining length other than 0 is malformed.
 */
#include "stack/mqtt/mqtt_internal.h"

void mqtt_pingreq_write(zq_writer_t *w)
{
    zq_write_u8(w, MQTT_PINGREQ << 4);
    zq_write_u8(w, 0);
}

mqtt_rc_t mqtt_pingresp_parse(size_t len, const char **why)
{
    if (len != 0) {
        return MQTT_REJECT(why, MQTT_RC_MALFORMED_PACKET, "PINGRESP with a body");
    }
    return MQTT_RC_SUCCESS;
}

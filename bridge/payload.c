/* Room payloads (JSON values) <-> MQTT payloads (bytes) (bridge.h, "Payloads"). */
#include <string.h>

#include "bridge/bridge_internal.h"
#include "zq/json.h"
#include "zq/utf8.h"

size_t bridge_payload_to_mqtt(const char *json, size_t len, uint8_t *out, size_t cap)
{
    json_value_t v;
    size_t n = 0;
    if (len > 0 && json[0] == '"' && json_parse(json, len, &v) == ZQ_OK &&
        json_type(v) == JSON_STRING) {
        /* the text itself; a \u0000 inside is a NUL byte, which MQTT payloads may carry */
        return json_get_string(v, (char *)out, cap, &n) == ZQ_OK ? n : 0;
    }
    if (len > cap) {
        return 0;
    }
    memcpy(out, json, len);
    return len;
}

size_t bridge_payload_from_mqtt(const uint8_t *payload, size_t len, char *out, size_t cap,
                                bool *binary)
{
    json_value_t v;
    *binary = false;
    if (len > 0 && json_parse((const char *)payload, len, &v) == ZQ_OK) {
        if (len > cap) {
            return 0;
        }
        memcpy(out, payload, len);
        return len;
    }
    if (!zq_utf8_valid(payload, len)) {
        *binary = true;
        return 0;
    }
    json_writer_t w;
    json_writer_init(&w, out, cap);
    json_string(&w, (const char *)payload, len);
    return json_finish(&w);
}

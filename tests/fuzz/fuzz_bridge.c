/* The bridge's conversions of what comes from MQTT and from the room (bridge/topic.c,
 * bridge/payload.c): the input's first byte splits it into a topic and a payload.
 *
 * Checked: an MQTT topic mapped into the room is within ZQ_BRK_NAME_MAX and has no NUL, and
 * mapped back to MQTT it is a valid topic name under the prefix; an MQTT payload mapped into
 * the room is one JSON value (or refused, binary only when it is not UTF-8), and taken back to
 * MQTT fits; a room payload (when it is one JSON value) goes to MQTT within its bound. */
#include <stdint.h>
#include <string.h>

#include "bridge/bridge_internal.h"
#include "fuzz_support.h"
#include "zq/json.h"
#include "zq/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void topics(const bridge_config_t *cfg, const uint8_t *t, size_t n)
{
    static char room[ZQ_BRK_NAME_MAX + 1];
    static char mqtt[ZQ_MQTT_TOPIC_MAX + 1];
    size_t len = bridge_topic_from_mqtt(cfg, (const char *)t, n, room, sizeof room);
    check(len <= ZQ_BRK_NAME_MAX);
    if (len == 0) {
        return;
    }
    check(strlen(room) == len && zq_utf8_valid((const uint8_t *)room, len));
    size_t back = bridge_topic_to_mqtt(cfg, room, len, mqtt, sizeof mqtt);
    if (back > 0) {
        check(mqtt_topic_name_valid(mqtt, back));
        check(strncmp(mqtt, cfg->prefix, strlen(cfg->prefix)) == 0);
    }
}

static void payloads(const uint8_t *p, size_t n)
{
    static char json[ZQ_BRK_FRAME_MAX];
    static uint8_t bytes[ZQ_BRK_FRAME_MAX];
    bool binary;
    json_value_t v;
    size_t len = bridge_payload_from_mqtt(p, n, json, sizeof json, &binary);
    check(!binary || !zq_utf8_valid(p, n));
    if (len > 0) {
        check(json_parse(json, len, &v) == ZQ_OK);
        check(bridge_payload_to_mqtt(json, len, bytes, sizeof bytes) <= sizeof bytes);
    }
    if (json_parse((const char *)p, n, &v) == ZQ_OK) {
        check(bridge_payload_to_mqtt((const char *)p, n, bytes, sizeof bytes) <= sizeof bytes);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const all[] = {"#"};
    bridge_config_t cfg = {.prefix = "zq/lab", .to_mqtt = all, .n_to_mqtt = 1, .version = 5};
    if (size == 0) {
        return 0;
    }
    size_t split = (size_t)data[0] * (size - 1) / 255;
    topics(&cfg, data + 1, split);
    payloads(data + 1 + split, size - 1 - split);
    return 0;
}

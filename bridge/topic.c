/* Room topics <-> MQTT topics (bridge.h, "Topics"). */
#include <string.h>

#include "bridge/bridge.h"
#include "zq/text.h"
#include "zq/utf8.h"

/* Copies @p len bytes of @p in to @p out, @p from made @p to (unless @p keep). */
static void copy_levels(char *out, const char *in, size_t len, char from, char to, bool keep)
{
    for (size_t i = 0; i < len; i++) {
        out[i] = !keep && in[i] == from ? to : in[i];
    }
}

size_t bridge_topic_to_mqtt(const bridge_config_t *cfg, const char *topic, size_t len, char *out,
                            size_t cap)
{
    size_t prefix = strlen(cfg->prefix);
    size_t n = prefix + 1 + len;
    if (len == 0 || n >= cap || n > ZQ_MQTT_TOPIC_MAX) {
        return 0;
    }
    memcpy(out, cfg->prefix, prefix);
    out[prefix] = '/';
    /* MQTT's form already (zq patterns read '/' levels too): kept; ZeroQ's dots: made levels. */
    copy_levels(out + prefix + 1, topic, len, '.', '/', memchr(topic, '/', len) != NULL);
    out[n] = '\0';
    return mqtt_topic_name_valid(out, n) ? n : 0;
}

size_t bridge_topic_from_mqtt(const bridge_config_t *cfg, const char *topic, size_t len,
                              char *out, size_t cap)
{
    size_t prefix = strlen(cfg->prefix);
    if (len > prefix && memcmp(topic, cfg->prefix, prefix) == 0 && topic[prefix] == '/') {
        topic += prefix + 1; /* the room's own: what is under PREFIX/ */
        len -= prefix + 1;
    }
    if (len == 0 || len >= cap || len > ZQ_BRK_NAME_MAX || !zq_utf8_valid((const uint8_t *)topic, len)) {
        return 0;
    }
    /* A topic with dots of its own keeps its slashes: making them dots would merge levels. */
    copy_levels(out, topic, len, '/', '.', memchr(topic, '.', len) != NULL);
    out[len] = '\0';
    return strlen(out) == len ? len : 0; /* no NUL inside (MQTT forbids it: checked again) */
}

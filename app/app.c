/* What the demo's device apps share (see app.h). */
#include <string.h>

#include "app/app.h"
#include "zq/json.h"
#include "zq/text.h"

bool app_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 31) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-';
        if (!ok) {
            return false;
        }
    }
    return true;
}

void app_write_centi(zq_writer_t *w, int32_t centi)
{
    uint32_t a = centi < 0 ? 0u - (uint32_t)centi : (uint32_t)centi;
    if (centi < 0) {
        zq_write_char(w, '-');
    }
    zq_write_udec(w, a / 100u);
    zq_write_str(w, a % 100u < 10u ? ".0" : ".");
    zq_write_udec(w, a % 100u);
}

bool app_payload_says(brk_str_t payload, const char *key, const char *word)
{
    json_value_t v;
    json_value_t member;
    if (json_parse(payload.p, payload.len, &v) != ZQ_OK) {
        return false;
    }
    if (json_type(v) == JSON_OBJECT && json_object_get(v, key, &member) == ZQ_OK) {
        v = member;
    }
    return json_string_equals(v, word);
}

void app_reply_status(brk_t *brk, uint64_t now, uint32_t handle, const char *json, size_t len)
{
    (void)brk_reply(brk, now, handle, true, json, len);
}

/* What the demo's device apps share (see app.h). */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "zq/json.h"

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

size_t app_format_centi(char *out, size_t cap, long centi)
{
    unsigned long a = centi < 0 ? (unsigned long)(-centi) : (unsigned long)centi;
    int n = snprintf(out, cap, "%s%lu.%02lu", centi < 0 ? "-" : "", a / 100, a % 100);
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
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

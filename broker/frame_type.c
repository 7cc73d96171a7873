/* Which frame a text is, and the helpers every frame codec shares (broker/frame_internal.h).
 *
 * Dispatch follows ZeroQ's (zeroq-wire.md §3): an object with a "type" member is a control
 * frame, known or not; an object without one goes to the envelope reader. zq's own frames all
 * carry a "type" that starts with "__zq_" (PROTOCOL.md §2-§8), so a ZeroQ peer that receives
 * one drops it as an envelope without "id". */
#include <string.h>

#include "broker/frame_internal.h"
#include "zq/hex.h"

/* The "type" of each typed frame; NULL for the two that have none. */
static const char *const type_names[] = {
    [BRK_FRAME_ENVELOPE] = NULL,
    [BRK_FRAME_PING] = "__ping__",
    [BRK_FRAME_PONG] = "__pong__",
    [BRK_FRAME_GOSSIP] = "__gossip__",
    [BRK_FRAME_HELLO] = "__zq_hello__",
    [BRK_FRAME_SUB] = "__zq_sub__",
    [BRK_FRAME_ACK] = "__zq_ack__",
    [BRK_FRAME_READY] = "__zq_ready__",
    [BRK_FRAME_DONE] = "__zq_done__",
    [BRK_FRAME_DLQ] = "__zq_dlq__",
    [BRK_FRAME_DLQ_JOBS] = "__zq_dlq_jobs__",
    [BRK_FRAME_REP] = "__zq_rep__",
    [BRK_FRAME_LOST] = "__zq_lost__",
    [BRK_FRAME_UNKNOWN] = NULL,
};

_Static_assert(sizeof type_names / sizeof type_names[0] == BRK_FRAME_UNKNOWN + 1,
               "one name per brk_frame_type_t");

/* A "type" of any JSON kind makes the object a control frame: zq reads the member as ZeroQ's
 * dispatch does, and a non-string type matches no known frame (so it is UNKNOWN, never an
 * envelope). */
brk_frame_type_t brk_frame_type(json_value_t obj)
{
    json_value_t type;
    if (json_object_get(obj, "type", &type) != ZQ_OK) {
        return BRK_FRAME_ENVELOPE;
    }
    for (size_t t = 0; t < sizeof type_names / sizeof type_names[0]; t++) {
        if (type_names[t] != NULL && json_string_equals(type, type_names[t])) {
            return (brk_frame_type_t)t;
        }
    }
    return BRK_FRAME_UNKNOWN;
}

/* ---- Reading ------------------------------------------------------------------------------ */

zq_err_t brk_codec_get(json_value_t obj, const char *key, json_value_t *out)
{
    if (json_type(obj) != JSON_OBJECT) {
        return ZQ_ERR_MALFORMED;
    }
    return json_object_get(obj, key, out) == ZQ_OK ? ZQ_OK : ZQ_ERR_NOT_FOUND;
}

zq_err_t brk_codec_string(json_value_t v, bool non_empty, json_value_t *out)
{
    if (v.p == NULL) {
        return ZQ_ERR_NOT_FOUND;
    }
    /* The span keeps its quotes, so "" is the only empty string (escapes are never empty). */
    if (json_type(v) != JSON_STRING || (non_empty && v.len <= 2)) {
        return ZQ_ERR_MALFORMED;
    }
    *out = v;
    return ZQ_OK;
}

zq_err_t brk_codec_get_string(json_value_t obj, const char *key, bool non_empty,
                              json_value_t *out)
{
    json_value_t v;
    zq_err_t err = brk_codec_get(obj, key, &v);
    return err != ZQ_OK ? err : brk_codec_string(v, non_empty, out);
}

zq_err_t brk_codec_whole(json_value_t v, uint64_t min, uint64_t max, uint64_t *out)
{
    int64_t x;
    if (v.p == NULL) {
        return ZQ_ERR_NOT_FOUND;
    }
    /* json_get_int64 refuses fractions ("1.5") but takes whole spellings ("1e3", "2.0"). */
    if (json_get_int64(v, &x) != ZQ_OK || x < 0 || (uint64_t)x < min || (uint64_t)x > max) {
        return ZQ_ERR_MALFORMED;
    }
    *out = (uint64_t)x;
    return ZQ_OK;
}

zq_err_t brk_codec_get_whole(json_value_t obj, const char *key, uint64_t min, uint64_t max,
                             uint64_t *out)
{
    json_value_t v;
    zq_err_t err = brk_codec_get(obj, key, &v);
    return err != ZQ_OK ? err : brk_codec_whole(v, min, max, out);
}

zq_err_t brk_codec_get_bool(json_value_t obj, const char *key, bool *out)
{
    json_value_t v;
    zq_err_t err = brk_codec_get(obj, key, &v);
    if (err != ZQ_OK) {
        return err;
    }
    return json_get_bool(v, out) ? ZQ_OK : ZQ_ERR_MALFORMED;
}

/* Unescaped first, so "\u0030" counts as the digit it spells: the JSON value is what counts. */
bool brk_codec_hex(json_value_t v, uint8_t *out, size_t n)
{
    char text[BRK_FP_HEX + 1];
    size_t len;
    if (2 * n > BRK_FP_HEX || json_type(v) != JSON_STRING ||
        json_get_string(v, text, sizeof text, &len) != ZQ_OK || len != 2 * n) {
        return false;
    }
    return zq_hex_decode(out, text, n);
}

zq_err_t brk_codec_epoch(json_value_t v, uint32_t *out)
{
    uint8_t b[BRK_EPOCH_HEX / 2];
    if (v.p == NULL) {
        return ZQ_ERR_NOT_FOUND;
    }
    if (!brk_codec_hex(v, b, sizeof b)) {
        return ZQ_ERR_MALFORMED;
    }
    *out = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    return ZQ_OK;
}

zq_err_t brk_codec_get_epoch(json_value_t obj, const char *key, uint32_t *out)
{
    json_value_t v;
    zq_err_t err = brk_codec_get(obj, key, &v);
    return err != ZQ_OK ? err : brk_codec_epoch(v, out);
}

zq_err_t brk_codec_result(zq_err_t err, void *out, size_t size)
{
    if (err != ZQ_OK) {
        memset(out, 0, size);
    }
    return err;
}

/* ---- Writing ------------------------------------------------------------------------------ */

void brk_codec_fail(json_writer_t *w)
{
    json_raw(w, (json_value_t){NULL, 0}); /* the writer's own refusal of an empty value */
}

void brk_codec_begin(json_writer_t *w, brk_frame_type_t type)
{
    const char *name = (size_t)type < sizeof type_names / sizeof type_names[0]
                           ? type_names[type]
                           : NULL;
    json_object_begin(w);
    json_key(w, "type");
    if (name == NULL) {
        brk_codec_fail(w);
        return;
    }
    json_string(w, name, strlen(name));
}

void brk_codec_put_hex(json_writer_t *w, const uint8_t *b, size_t n)
{
    char text[BRK_FP_HEX];
    if (2 * n > sizeof text) {
        brk_codec_fail(w);
        return;
    }
    json_string(w, text, zq_hex_encode(text, b, n));
}

void brk_codec_put_epoch(json_writer_t *w, uint32_t epoch)
{
    uint8_t b[BRK_EPOCH_HEX / 2] = {(uint8_t)(epoch >> 24), (uint8_t)(epoch >> 16),
                                    (uint8_t)(epoch >> 8), (uint8_t)epoch};
    brk_codec_put_hex(w, b, sizeof b);
}

void brk_codec_put_string_value(json_writer_t *w, json_value_t v, bool non_empty)
{
    if (json_type(v) != JSON_STRING || (non_empty && v.len <= 2)) {
        brk_codec_fail(w);
        return;
    }
    json_raw(w, v);
}

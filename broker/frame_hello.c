/* hello: the first frame a zq peer sends on a channel (PROTOCOL.md §2).
 *
 *   {"type":"__zq_hello__","v":1,"epoch":"5f0c9a2e","max":65536,
 *    "feat":["sub","qos1","queue","rpc","chunk","replay"],
 *    "resume":[{"fp":"9a1f03c4b2e8d7a6","epoch":"0c77e1d2","seq":1041}]}
 *
 * Written in that member order, compactly; features in BRK_FEAT_* bit order; "resume" only
 * when there are resume points. Read: "v" a whole number >= 1, "epoch" 8 hex digits, "max" a
 * whole number >= 256 (no smaller buffer can hold a hello), "feat" an array of strings whose
 * unknown names are ignored (a later zq may add some), "resume" optional, each entry checked
 * and the first BRK_HELLO_MAX_RESUME kept. */
#include <string.h>

#include "broker/frame_internal.h"

_Static_assert(BRK_HELLO_MAX_RESUME <= UINT8_MAX, "n_resume is a uint8_t");

/** The smallest "max" a peer may announce. */
#define HELLO_MIN_MAX_FRAME 256

/* Feature names, in BRK_FEAT_* bit order. */
static const char *const feature_names[] = {"sub", "qos1", "queue", "rpc", "chunk", "replay"};

static uint32_t feature_bit(json_value_t name)
{
    for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++) {
        if (json_string_equals(name, feature_names[i])) {
            return 1u << i;
        }
    }
    return 0;
}

static zq_err_t read_features(json_value_t obj, uint32_t *features)
{
    json_value_t feat;
    json_value_t name;
    json_iter_t it;
    if (brk_codec_get(obj, "feat", &feat) != ZQ_OK || json_type(feat) != JSON_ARRAY) {
        return ZQ_ERR_MALFORMED;
    }
    json_iter_init(&it, feat);
    while (json_iter_next(&it, NULL, &name)) {
        if (json_type(name) != JSON_STRING) {
            return ZQ_ERR_MALFORMED;
        }
        *features |= feature_bit(name);
    }
    return ZQ_OK;
}

static zq_err_t read_resume_point(json_value_t item, brk_resume_t *r)
{
    json_value_t fp;
    if (brk_codec_get(item, "fp", &fp) != ZQ_OK || !brk_codec_hex(fp, r->fp, sizeof r->fp) ||
        brk_codec_get_epoch(item, "epoch", &r->epoch) != ZQ_OK ||
        brk_codec_get_whole(item, "seq", 0, BRK_CODEC_SEQ_MAX, &r->seq) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

/* Entries past the table are still checked: a malformed one marks a broken sender. */
static zq_err_t read_resume(json_value_t obj, brk_hello_t *h)
{
    json_value_t list;
    json_value_t item;
    json_iter_t it;
    brk_resume_t spare;
    zq_err_t err = brk_codec_get(obj, "resume", &list);
    if (err != ZQ_OK) {
        return brk_codec_optional(err);
    }
    if (json_type(list) != JSON_ARRAY) {
        return ZQ_ERR_MALFORMED;
    }
    json_iter_init(&it, list);
    while (json_iter_next(&it, NULL, &item)) {
        bool keep = h->n_resume < BRK_HELLO_MAX_RESUME;
        if (read_resume_point(item, keep ? &h->resume[h->n_resume] : &spare) != ZQ_OK) {
            return ZQ_ERR_MALFORMED;
        }
        h->n_resume = (uint8_t)(h->n_resume + keep);
    }
    return ZQ_OK;
}

static zq_err_t read_hello(json_value_t obj, brk_hello_t *h)
{
    uint64_t version;
    uint64_t max_frame;
    if (brk_codec_get_whole(obj, "v", 1, UINT32_MAX, &version) != ZQ_OK ||
        brk_codec_get_epoch(obj, "epoch", &h->epoch) != ZQ_OK ||
        brk_codec_get_whole(obj, "max", HELLO_MIN_MAX_FRAME, UINT32_MAX, &max_frame) != ZQ_OK ||
        read_features(obj, &h->features) != ZQ_OK || read_resume(obj, h) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    h->version = (uint32_t)version;
    h->max_frame = (uint32_t)max_frame;
    return ZQ_OK;
}

zq_err_t brk_hello_read(json_value_t obj, brk_hello_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_hello(obj, out), out, sizeof *out);
}

static void put_features(json_writer_t *w, uint32_t features)
{
    json_key(w, "feat");
    json_array_begin(w);
    for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++) {
        if (features & (1u << i)) {
            json_string(w, feature_names[i], strlen(feature_names[i]));
        }
    }
    json_array_end(w);
}

static void put_resume(json_writer_t *w, const brk_hello_t *h)
{
    size_t n = h->n_resume < BRK_HELLO_MAX_RESUME ? h->n_resume : BRK_HELLO_MAX_RESUME;
    if (n == 0) {
        return;
    }
    json_key(w, "resume");
    json_array_begin(w);
    for (size_t i = 0; i < n; i++) {
        json_object_begin(w);
        json_key(w, "fp");
        brk_codec_put_hex(w, h->resume[i].fp, sizeof h->resume[i].fp);
        json_key(w, "epoch");
        brk_codec_put_epoch(w, h->resume[i].epoch);
        json_key(w, "seq");
        json_uint64(w, h->resume[i].seq);
        json_object_end(w);
    }
    json_array_end(w);
}

void brk_hello_write(json_writer_t *w, const brk_hello_t *h)
{
    brk_codec_begin(w, BRK_FRAME_HELLO);
    json_key(w, "v");
    json_uint64(w, h->version);
    json_key(w, "epoch");
    brk_codec_put_epoch(w, h->epoch);
    json_key(w, "max");
    json_uint64(w, h->max_frame);
    put_features(w, h->features);
    put_resume(w, h);
    json_object_end(w);
}

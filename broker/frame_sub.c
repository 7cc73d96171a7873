/* sub: the whole set of what a peer wants (PROTOCOL.md §3).
 *
 *   {"type":"__zq_sub__","topics":["news.#","sensors.+.temp","status"],
 *    "services":["rpc.getUser"]}
 *
 * Written in that member order, compactly, both arrays always (an empty set is a statement:
 * "nothing now"). Read: each array optional (absent is empty), every element a string. More
 * than BRK_SUB_MAX_ITEMS in either sets too_many and keeps the first ones: the receiver then
 * takes the peer as wanting everything (§3: more traffic, never a loss), so a frame that is
 * merely large is not refused. Patterns are checked by the broker (broker/pattern.h), not here. */
#include <string.h>

#include "broker/frame_internal.h"

_Static_assert(BRK_SUB_MAX_ITEMS <= UINT8_MAX, "n_topics and n_services are uint8_t");

static zq_err_t read_names(json_value_t obj, const char *key, json_value_t *items, uint8_t *n,
                           bool *too_many)
{
    json_value_t list;
    json_value_t name;
    json_iter_t it;
    zq_err_t err = brk_codec_get(obj, key, &list);
    if (err != ZQ_OK) {
        return brk_codec_optional(err);
    }
    if (json_type(list) != JSON_ARRAY) {
        return ZQ_ERR_MALFORMED;
    }
    json_iter_init(&it, list);
    while (json_iter_next(&it, NULL, &name)) {
        if (json_type(name) != JSON_STRING) {
            return ZQ_ERR_MALFORMED;
        }
        if (*n == BRK_SUB_MAX_ITEMS) {
            *too_many = true;
            continue; /* the rest is still checked: a non-string anywhere is malformed */
        }
        items[(*n)++] = name;
    }
    return ZQ_OK;
}

static zq_err_t read_sub(json_value_t obj, brk_sub_t *s)
{
    if (read_names(obj, "topics", s->topics, &s->n_topics, &s->too_many) != ZQ_OK ||
        read_names(obj, "services", s->services, &s->n_services, &s->too_many) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

zq_err_t brk_sub_read(json_value_t obj, brk_sub_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_sub(obj, out), out, sizeof *out);
}

static void put_names(json_writer_t *w, const char *key, const char *const *names, size_t n)
{
    json_key(w, key);
    json_array_begin(w);
    for (size_t i = 0; i < n; i++) {
        json_string(w, names[i], strlen(names[i]));
    }
    json_array_end(w);
}

void brk_sub_write(json_writer_t *w, const char *const *topics, size_t n_topics,
                   const char *const *services, size_t n_services)
{
    brk_codec_begin(w, BRK_FRAME_SUB);
    put_names(w, "topics", topics, n_topics);
    put_names(w, "services", services, n_services);
    json_object_end(w);
}

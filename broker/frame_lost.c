/* lost: replay that the ring could no longer serve (PROTOCOL.md §7).
 *
 *   {"type":"__zq_lost__","ep":"0c77e1d2","from":977,"to":1003}
 *
 * Written in that member order, compactly. Read: "ep" 8 hex digits; "from" and "to" whole
 * numbers up to 2^53 with from <= to (an empty or reversed range announces nothing). */
#include <string.h>

#include "broker/frame_internal.h"

static zq_err_t read_lost(json_value_t obj, brk_lost_t *l)
{
    if (brk_codec_get_epoch(obj, "ep", &l->epoch) != ZQ_OK ||
        brk_codec_get_whole(obj, "from", 0, BRK_CODEC_SEQ_MAX, &l->from) != ZQ_OK ||
        brk_codec_get_whole(obj, "to", 0, BRK_CODEC_SEQ_MAX, &l->to) != ZQ_OK ||
        l->from > l->to) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

zq_err_t brk_lost_read(json_value_t obj, brk_lost_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_lost(obj, out), out, sizeof *out);
}

void brk_lost_write(json_writer_t *w, const brk_lost_t *l)
{
    brk_codec_begin(w, BRK_FRAME_LOST);
    json_key(w, "ep");
    brk_codec_put_epoch(w, l->epoch);
    json_key(w, "from");
    json_uint64(w, l->from);
    json_key(w, "to");
    json_uint64(w, l->to);
    json_object_end(w);
}

/* done: a consumer's ack (ok:true) or nack (ok:false) of one job (PROTOCOL.md §6).
 *
 *   {"type":"__zq_done__","id":"j-…","ok":true}
 *   {"type":"__zq_done__","id":"j-…","ok":false,"busy":true}
 *
 * Written in that member order, compactly. Read: "id" a non-empty string (the job's envelope
 * id) and "ok" a boolean, both required: guessing either way would lose or repeat a job.
 * "busy" is optional, a boolean, and only on a nack: a job refused for want of room, which the
 * producer hands out again without counting an attempt. */
#include <string.h>

#include "broker/frame_internal.h"

static zq_err_t read_done(json_value_t obj, brk_done_t *d)
{
    if (brk_codec_get_string(obj, "id", true, &d->id) != ZQ_OK ||
        brk_codec_get_bool(obj, "ok", &d->ok) != ZQ_OK ||
        brk_codec_optional(brk_codec_get_bool(obj, "busy", &d->busy)) != ZQ_OK ||
        (d->ok && d->busy)) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

zq_err_t brk_done_read(json_value_t obj, brk_done_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_done(obj, out), out, sizeof *out);
}

void brk_done_write(json_writer_t *w, const char *id, size_t id_len,
                    brk_done_outcome_t outcome)
{
    brk_codec_begin(w, BRK_FRAME_DONE);
    json_key(w, "id");
    json_string(w, id, id_len);
    if (id_len == 0) {
        brk_codec_fail(w); /* the reader refuses an empty id */
    }
    json_key(w, "ok");
    json_bool(w, outcome == BRK_DONE_OK);
    if (outcome == BRK_DONE_BUSY) {
        json_key(w, "busy");
        json_bool(w, true);
    }
    json_object_end(w);
}

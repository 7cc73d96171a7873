/* ready: a consumer's credit for one queue (PROTOCOL.md §6).
 *
 *   {"type":"__zq_ready__","queue":"jobs","credit":4}
 *
 * Written in that member order, compactly. Read: "queue" a non-empty string, "credit" a whole
 * number up to UINT32_MAX, both required. Credit is absolute, not a delta, so 0 is meaningful
 * ("stop handing me jobs"). */
#include <string.h>

#include "broker/frame_internal.h"

static zq_err_t read_ready(json_value_t obj, brk_ready_t *r)
{
    uint64_t credit;
    if (brk_codec_get_string(obj, "queue", true, &r->queue) != ZQ_OK ||
        brk_codec_get_whole(obj, "credit", 0, UINT32_MAX, &credit) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    r->credit = (uint32_t)credit;
    return ZQ_OK;
}

zq_err_t brk_ready_read(json_value_t obj, brk_ready_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_ready(obj, out), out, sizeof *out);
}

void brk_ready_write(json_writer_t *w, const char *queue, size_t queue_len, uint32_t credit)
{
    brk_codec_begin(w, BRK_FRAME_READY);
    json_key(w, "queue");
    json_string(w, queue, queue_len);
    if (queue_len == 0) {
        brk_codec_fail(w); /* the reader refuses a nameless queue */
    }
    json_key(w, "credit");
    json_uint64(w, credit);
    json_object_end(w);
}

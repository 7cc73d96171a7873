/* ack: at-least-once per hop (PROTOCOL.md §5).
 *
 *   {"type":"__zq_ack__","ep":"0c77e1d2","upto":1042}
 *
 * Written in that member order, compactly. Read: "ep" 8 hex digits, "upto" a whole number up
 * to 2^53 (a browser's exact integers), both required: an ack covers every QoS 1 message of
 * that epoch with seq <= upto. */
#include <string.h>

#include "broker/frame_internal.h"

static zq_err_t read_ack(json_value_t obj, brk_ack_t *a)
{
    if (brk_codec_get_epoch(obj, "ep", &a->epoch) != ZQ_OK ||
        brk_codec_get_whole(obj, "upto", 0, BRK_CODEC_SEQ_MAX, &a->upto) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

zq_err_t brk_ack_read(json_value_t obj, brk_ack_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_ack(obj, out), out, sizeof *out);
}

void brk_ack_write(json_writer_t *w, const brk_ack_t *a)
{
    brk_codec_begin(w, BRK_FRAME_ACK);
    json_key(w, "ep");
    brk_codec_put_epoch(w, a->epoch);
    json_key(w, "upto");
    json_uint64(w, a->upto);
    json_object_end(w);
}

/* rep: a responder's answer to a request (PROTOCOL.md §6).
 *
 *   {"type":"__zq_rep__","corr":"c-7d1e…","payload":{"user":{}},"ok":true}
 *   {"type":"__zq_rep__","corr":"c-7d1e…","ok":false,"error":"no such user"}
 *
 * Written in the member order corr, payload (when there is one), ok, error (when there is
 * one), compactly; "ok" always. Read: "corr" a non-empty string (the request's); "payload" any
 * value or absent; "ok" a boolean, true when absent (a plain answer); "error" a string or
 * absent. */
#include <string.h>

#include "broker/frame_internal.h"

static zq_err_t read_rep(json_value_t obj, brk_rep_t *r)
{
    r->ok = true;
    if (brk_codec_get_string(obj, "corr", true, &r->corr) != ZQ_OK ||
        brk_codec_optional(brk_codec_get(obj, "payload", &r->payload)) != ZQ_OK ||
        brk_codec_optional(brk_codec_get_bool(obj, "ok", &r->ok)) != ZQ_OK ||
        brk_codec_optional(brk_codec_get_string(obj, "error", false, &r->error)) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

zq_err_t brk_rep_read(json_value_t obj, brk_rep_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_rep(obj, out), out, sizeof *out);
}

void brk_rep_write(json_writer_t *w, const brk_rep_t *r)
{
    brk_codec_begin(w, BRK_FRAME_REP);
    json_key(w, "corr");
    brk_codec_put_string_value(w, r->corr, true);
    if (r->payload.len != 0) {
        json_key(w, "payload");
        json_raw(w, r->payload);
    }
    json_key(w, "ok");
    json_bool(w, r->ok);
    if (r->error.len != 0) {
        json_key(w, "error");
        brk_codec_put_string_value(w, r->error, false);
    }
    json_object_end(w);
}

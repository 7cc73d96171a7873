/* The producer's dead-letter queue, asked for by a peer (PROTOCOL.md §6).
 *
 *   {"type":"__zq_dlq__","queue":"jobs","op":"list"}               op: list | requeue | purge
 *   {"type":"__zq_dlq_jobs__","queue":"jobs",
 *    "jobs":[{"id":"j-…","payload":{"url":"x"},"retryCount":3}],"more":false}
 *
 * Each written in that member order, compactly; a job's "payload" only when it has one. Read:
 * "queue" a non-empty string and "op" one of the three names; "jobs" an array (its items read
 * one at a time with brk_dlq_job_read: "id" a non-empty string, "payload" any value or absent,
 * "retryCount" a whole number up to UINT32_MAX) and "more" a boolean. An unknown op is
 * refused: doing the wrong one of purge and requeue cannot be undone. */
#include <string.h>

#include "broker/frame_internal.h"

static const char *const op_names[] = {
    [BRK_DLQ_LIST] = "list",
    [BRK_DLQ_REQUEUE] = "requeue",
    [BRK_DLQ_PURGE] = "purge",
};

#define N_OPS (sizeof op_names / sizeof op_names[0])

static zq_err_t read_op(json_value_t obj, brk_dlq_op_t *op)
{
    json_value_t v;
    if (brk_codec_get(obj, "op", &v) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    for (size_t i = 0; i < N_OPS; i++) {
        if (json_string_equals(v, op_names[i])) {
            *op = (brk_dlq_op_t)i;
            return ZQ_OK;
        }
    }
    return ZQ_ERR_MALFORMED;
}

static zq_err_t read_dlq(json_value_t obj, brk_dlq_t *d)
{
    if (brk_codec_get_string(obj, "queue", true, &d->queue) != ZQ_OK ||
        read_op(obj, &d->op) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

zq_err_t brk_dlq_read(json_value_t obj, brk_dlq_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_dlq(obj, out), out, sizeof *out);
}

static void put_queue(json_writer_t *w, brk_frame_type_t type, const char *queue, size_t len)
{
    brk_codec_begin(w, type);
    json_key(w, "queue");
    json_string(w, queue, len);
    if (len == 0) {
        brk_codec_fail(w); /* the reader refuses a nameless queue */
    }
}

void brk_dlq_write(json_writer_t *w, const char *queue, size_t queue_len, brk_dlq_op_t op)
{
    put_queue(w, BRK_FRAME_DLQ, queue, queue_len);
    json_key(w, "op");
    if ((size_t)op >= N_OPS) {
        brk_codec_fail(w);
        return;
    }
    json_string(w, op_names[op], strlen(op_names[op]));
    json_object_end(w);
}

/* ---- dlq_jobs ----------------------------------------------------------------------------- */

void brk_dlq_jobs_begin(json_writer_t *w, const char *queue, size_t queue_len)
{
    put_queue(w, BRK_FRAME_DLQ_JOBS, queue, queue_len);
    json_key(w, "jobs");
    json_array_begin(w);
}

void brk_dlq_jobs_item(json_writer_t *w, const char *id, size_t id_len, json_value_t payload,
                       uint32_t retry_count)
{
    json_object_begin(w);
    json_key(w, "id");
    json_string(w, id, id_len);
    if (id_len == 0) {
        brk_codec_fail(w); /* the reader refuses an empty id */
    }
    if (payload.len != 0) {
        json_key(w, "payload");
        json_raw(w, payload);
    }
    json_key(w, "retryCount");
    json_uint64(w, retry_count);
    json_object_end(w);
}

void brk_dlq_jobs_end(json_writer_t *w, bool more)
{
    json_array_end(w);
    json_key(w, "more");
    json_bool(w, more);
    json_object_end(w);
}

static zq_err_t read_dlq_jobs(json_value_t obj, brk_dlq_jobs_t *d)
{
    if (brk_codec_get_string(obj, "queue", true, &d->queue) != ZQ_OK ||
        brk_codec_get(obj, "jobs", &d->jobs) != ZQ_OK || json_type(d->jobs) != JSON_ARRAY ||
        brk_codec_get_bool(obj, "more", &d->more) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

zq_err_t brk_dlq_jobs_read(json_value_t obj, brk_dlq_jobs_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_dlq_jobs(obj, out), out, sizeof *out);
}

static zq_err_t read_dlq_job(json_value_t item, brk_dlq_job_t *j)
{
    uint64_t retry_count;
    if (brk_codec_get_string(item, "id", true, &j->id) != ZQ_OK ||
        brk_codec_optional(brk_codec_get(item, "payload", &j->payload)) != ZQ_OK ||
        brk_codec_get_whole(item, "retryCount", 0, UINT32_MAX, &retry_count) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    j->retry_count = (uint32_t)retry_count;
    return ZQ_OK;
}

zq_err_t brk_dlq_job_read(json_value_t item, brk_dlq_job_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_dlq_job(item, out), out, sizeof *out);
}

/* ZeroQ's message envelope, with zq's members (PROTOCOL.md §1, §4, §6; zeroq-wire.md §3).
 *
 *   {"id":"3b24…","topic":"news","payload":{"headline":"hi"},"timestamp":1754040000000,
 *    "seq":1042,"retryCount":0,"priority":1,
 *    "ep":"0c77e1d2","q":1,"k":"job"|"req","lvc":1,"lease":30000,"corr":"c-7d1e…","timeout":5000}
 *
 * The writer emits compact JSON in exactly this member order: id, topic, payload (when there is
 * one), timestamp, seq, retryCount, priority (when set), then zq's: ep (when set), q (when 1),
 * k (job or request), lvc (when set), lease (jobs, when not 0), corr (requests), timeout
 * (requests, when not 0). ZeroQ's six members always go out, as JSON.stringify of its Message
 * sends them, so a ZeroQ peer takes zq's messages as its own.
 *
 * The reader takes ZeroQ's members as ZeroQ's receiver does (message-broker.ts handleMessage):
 * only "id" (a non-empty string) and "topic" (a string) can make it refuse a frame; the members
 * ZeroQ never checks are read leniently (see each reader below). zq's members are zq's to
 * define, so when present they must have their type and range. A member that belongs to
 * another kind (a lease on a request, a corr on a job) is ignored as an unknown one would be.
 */
#include <string.h>

#include "broker/frame_internal.h"

/* ---- Reading ZeroQ's members -------------------------------------------------------------- */

/* ZeroQ's rule: a replyTo inside an object payload makes the message an RPC request
 * (zeroq.ts request()); ZeroQ's reply() skips an empty one (`if (!replyTo) return`). */
static void read_payload(json_value_t obj, brk_envelope_t *e)
{
    json_value_t reply_to;
    if (brk_codec_get(obj, "payload", &e->payload) != ZQ_OK) {
        return;
    }
    e->has_payload = true;
    if (json_type(e->payload) == JSON_OBJECT &&
        brk_codec_get_string(e->payload, "replyTo", true, &reply_to) == ZQ_OK) {
        e->reply_to = reply_to;
    }
}

/* ZeroQ resets a retryCount that is not a finite number >= 0 to 0; a number too large for a
 * double is Infinity to JavaScript, hence 0 too. A fraction (which no ZeroQ peer writes) is
 * floored, and a count beyond UINT32_MAX is held at UINT32_MAX: both stay "at least that many
 * attempts", which is all a count is used for (§6, the dead-letter threshold). */
static uint32_t read_retry_count(json_value_t obj)
{
    json_value_t v;
    double d;
    if (brk_codec_get(obj, "retryCount", &v) != ZQ_OK || json_get_double(v, &d) != ZQ_OK ||
        !(d > 0.0)) {
        return 0;
    }
    return d >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

/* Nobody checks a timestamp (zeroq-wire.md §3): what is not a whole int64 reads as 0. */
static int64_t read_timestamp(json_value_t obj)
{
    json_value_t v;
    int64_t t;
    if (brk_codec_get(obj, "timestamp", &v) != ZQ_OK || json_get_int64(v, &t) != ZQ_OK) {
        return 0;
    }
    return t;
}

/* Priority is advisory and ZeroQ passes whatever enqueue() was given: a whole number is kept,
 * anything else is ignored rather than costing the message. */
static void read_priority(json_value_t obj, brk_envelope_t *e)
{
    json_value_t v;
    int64_t priority;
    if (brk_codec_get(obj, "priority", &v) == ZQ_OK && json_get_int64(v, &priority) == ZQ_OK) {
        e->priority = priority;
        e->has_priority = true;
    }
}

/* ZeroQ sends seq 0 and never reads it, so on a ZeroQ message a bad seq is as good as 0. With
 * "ep" it is a zq publisher's sequence number, which ordering and resume rely on (§4, §7): it
 * must then be a whole number a browser can count exactly. */
static zq_err_t read_seq(json_value_t obj, brk_envelope_t *e)
{
    zq_err_t err = brk_codec_get_whole(obj, "seq", 0, BRK_CODEC_SEQ_MAX, &e->seq);
    if (err == ZQ_ERR_MALFORMED && !e->has_epoch) {
        e->seq = 0;
        return ZQ_OK;
    }
    return brk_codec_optional(err);
}

static zq_err_t read_zeroq(json_value_t obj, brk_envelope_t *e)
{
    if (brk_codec_get_string(obj, "id", true, &e->id) != ZQ_OK ||
        brk_codec_get_string(obj, "topic", false, &e->topic) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    read_payload(obj, e);
    e->timestamp = read_timestamp(obj);
    e->retry_count = read_retry_count(obj);
    read_priority(obj, e);
    return ZQ_OK;
}

/* ---- Reading zq's members ----------------------------------------------------------------- */

/* "q":1 asks for an ack, and an ack names the publisher's epoch (§5): without "ep" there is
 * nothing to acknowledge it by. */
static zq_err_t read_epoch_qos(json_value_t obj, brk_envelope_t *e)
{
    uint64_t q = 0;
    zq_err_t err = brk_codec_get_epoch(obj, "ep", &e->epoch);
    e->has_epoch = err == ZQ_OK;
    if (brk_codec_optional(err) != ZQ_OK ||
        brk_codec_optional(brk_codec_get_whole(obj, "q", 0, 1, &q)) != ZQ_OK ||
        (q == 1 && !e->has_epoch)) {
        return ZQ_ERR_MALFORMED;
    }
    e->qos = (uint8_t)q;
    return ZQ_OK;
}

/* "lvc":1 as PROTOCOL.md §7 writes it; true, 0 and false are read as what they mean. */
static zq_err_t read_lvc(json_value_t obj, brk_envelope_t *e)
{
    json_value_t v;
    uint64_t one = 0;
    zq_err_t err = brk_codec_get(obj, "lvc", &v);
    if (err != ZQ_OK) {
        return brk_codec_optional(err);
    }
    if (json_get_bool(v, &e->lvc)) {
        return ZQ_OK;
    }
    err = brk_codec_get_whole(obj, "lvc", 0, 1, &one);
    e->lvc = one == 1;
    return err;
}

/* A job's lease is its visibility timeout (§6); 0 (absent) leaves it to the broker's default. */
static zq_err_t read_job(json_value_t obj, brk_envelope_t *e)
{
    uint64_t lease = 0;
    zq_err_t err = brk_codec_get_whole(obj, "lease", 1, UINT32_MAX, &lease);
    e->lease_ms = (uint32_t)lease;
    return brk_codec_optional(err);
}

/* A request without "corr" could never be matched to its rep (§6). */
static zq_err_t read_request(json_value_t obj, brk_envelope_t *e)
{
    uint64_t timeout = 0;
    if (brk_codec_get_string(obj, "corr", true, &e->corr) != ZQ_OK ||
        brk_codec_optional(brk_codec_get_whole(obj, "timeout", 0, UINT32_MAX, &timeout)) !=
            ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    e->timeout_ms = (uint32_t)timeout;
    return ZQ_OK;
}

static zq_err_t read_kind(json_value_t obj, brk_envelope_t *e)
{
    json_value_t k;
    zq_err_t err = brk_codec_get(obj, "k", &k);
    if (err != ZQ_OK) {
        return brk_codec_optional(err);
    }
    if (json_string_equals(k, "job")) {
        e->kind = BRK_KIND_JOB;
        return read_job(obj, e);
    }
    if (json_string_equals(k, "req")) {
        e->kind = BRK_KIND_REQUEST;
        return read_request(obj, e);
    }
    return ZQ_ERR_MALFORMED; /* a kind zq does not know cannot be handled as any of them */
}

static zq_err_t read_envelope(json_value_t obj, brk_envelope_t *e)
{
    if (json_type(obj) != JSON_OBJECT || read_zeroq(obj, e) != ZQ_OK ||
        read_epoch_qos(obj, e) != ZQ_OK || read_seq(obj, e) != ZQ_OK ||
        read_lvc(obj, e) != ZQ_OK || read_kind(obj, e) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

zq_err_t brk_envelope_read(json_value_t obj, brk_envelope_t *out)
{
    memset(out, 0, sizeof *out);
    return brk_codec_result(read_envelope(obj, out), out, sizeof *out);
}

/* ---- Writing ------------------------------------------------------------------------------ */

static void put_zeroq(json_writer_t *w, const brk_envelope_t *e)
{
    json_key(w, "id");
    brk_codec_put_string_value(w, e->id, true);
    json_key(w, "topic");
    brk_codec_put_string_value(w, e->topic, false);
    if (e->has_payload) {
        json_key(w, "payload");
        json_raw(w, e->payload);
    }
    json_key(w, "timestamp");
    json_int64(w, e->timestamp);
    json_key(w, "seq");
    json_uint64(w, e->seq);
    json_key(w, "retryCount");
    json_uint64(w, e->retry_count);
    if (e->has_priority) {
        json_key(w, "priority");
        json_int64(w, e->priority);
    }
}

static void put_kind(json_writer_t *w, const brk_envelope_t *e)
{
    if (e->kind == BRK_KIND_JOB) {
        json_key(w, "k");
        json_string(w, "job", 3);
    } else if (e->kind == BRK_KIND_REQUEST) {
        json_key(w, "k");
        json_string(w, "req", 3);
    }
}

static void put_zq(json_writer_t *w, const brk_envelope_t *e)
{
    if (e->has_epoch) {
        json_key(w, "ep");
        brk_codec_put_epoch(w, e->epoch);
    }
    if (e->qos == 1) {
        json_key(w, "q");
        json_uint64(w, 1);
        if (!e->has_epoch) {
            brk_codec_fail(w); /* unacknowledgeable: the reader refuses it (read_epoch_qos) */
        }
    }
    put_kind(w, e);
    if (e->lvc) {
        json_key(w, "lvc");
        json_uint64(w, 1);
    }
    if (e->kind == BRK_KIND_JOB && e->lease_ms != 0) {
        json_key(w, "lease");
        json_uint64(w, e->lease_ms);
    }
    if (e->kind == BRK_KIND_REQUEST) {
        json_key(w, "corr");
        brk_codec_put_string_value(w, e->corr, true);
        if (e->timeout_ms != 0) {
            json_key(w, "timeout");
            json_uint64(w, e->timeout_ms);
        }
    }
}

void brk_envelope_write(json_writer_t *w, const brk_envelope_t *e)
{
    json_object_begin(w);
    put_zeroq(w, e);
    put_zq(w, e);
    json_object_end(w);
}

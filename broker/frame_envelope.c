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

/* The members an envelope can carry, found in one walk of the object: an envelope is read for
 * every message, and a lookup per member would skip its payload again each time. */
enum {
    M_ID,
    M_TOPIC,
    M_PAYLOAD,
    M_TIMESTAMP,
    M_SEQ,
    M_RETRY_COUNT,
    M_PRIORITY,
    M_EP,
    M_Q,
    M_K,
    M_LVC,
    M_LEASE,
    M_CORR,
    M_TIMEOUT,
    M_COUNT
};

static const char *const member_names[M_COUNT] = {
    [M_ID] = "id",
    [M_TOPIC] = "topic",
    [M_PAYLOAD] = "payload",
    [M_TIMESTAMP] = "timestamp",
    [M_SEQ] = "seq",
    [M_RETRY_COUNT] = "retryCount",
    [M_PRIORITY] = "priority",
    [M_EP] = "ep",
    [M_Q] = "q",
    [M_K] = "k",
    [M_LVC] = "lvc",
    [M_LEASE] = "lease",
    [M_CORR] = "corr",
    [M_TIMEOUT] = "timeout",
};

/* ---- Reading ZeroQ's members -------------------------------------------------------------- */

/* ZeroQ's rule: a replyTo inside an object payload makes the message an RPC request
 * (zeroq.ts request()); ZeroQ's reply() skips an empty one (`if (!replyTo) return`). */
static void read_payload(const json_value_t *m, brk_envelope_t *e)
{
    json_value_t reply_to;
    if (m[M_PAYLOAD].p == NULL) {
        return;
    }
    e->payload = m[M_PAYLOAD];
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
static uint32_t read_retry_count(const json_value_t *m)
{
    uint32_t count;
    if (m[M_RETRY_COUNT].p == NULL || json_get_count(m[M_RETRY_COUNT], &count) != ZQ_OK) {
        return 0;
    }
    return count;
}

/* Nobody checks a timestamp (zeroq-wire.md §3): what is not a whole int64 reads as 0. */
static int64_t read_timestamp(const json_value_t *m)
{
    int64_t t;
    if (m[M_TIMESTAMP].p == NULL || json_get_int64(m[M_TIMESTAMP], &t) != ZQ_OK) {
        return 0;
    }
    return t;
}

/* Priority is advisory and ZeroQ passes whatever enqueue() was given: a whole number is kept,
 * anything else is ignored rather than costing the message. */
static void read_priority(const json_value_t *m, brk_envelope_t *e)
{
    int64_t priority;
    if (m[M_PRIORITY].p != NULL && json_get_int64(m[M_PRIORITY], &priority) == ZQ_OK) {
        e->priority = priority;
        e->has_priority = true;
    }
}

/* ZeroQ sends seq 0 and never reads it, so on a ZeroQ message a bad seq is as good as 0. With
 * "ep" it is a zq publisher's sequence number, which ordering and resume rely on (§4, §7): it
 * must then be a whole number a browser can count exactly. */
static zq_err_t read_seq(const json_value_t *m, brk_envelope_t *e)
{
    zq_err_t err = brk_codec_whole(m[M_SEQ], 0, BRK_CODEC_SEQ_MAX, &e->seq);
    if (err == ZQ_ERR_MALFORMED && !e->has_epoch) {
        e->seq = 0;
        return ZQ_OK;
    }
    return brk_codec_optional(err);
}

static zq_err_t read_zeroq(const json_value_t *m, brk_envelope_t *e)
{
    if (brk_codec_string(m[M_ID], true, &e->id) != ZQ_OK ||
        brk_codec_string(m[M_TOPIC], false, &e->topic) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    read_payload(m, e);
    e->timestamp = read_timestamp(m);
    e->retry_count = read_retry_count(m);
    read_priority(m, e);
    return ZQ_OK;
}

/* ---- Reading zq's members ----------------------------------------------------------------- */

/* "q":1 asks for an ack, and an ack names the publisher's epoch (§5): without "ep" there is
 * nothing to acknowledge it by. */
static zq_err_t read_epoch_qos(const json_value_t *m, brk_envelope_t *e)
{
    uint64_t q = 0;
    zq_err_t err = brk_codec_epoch(m[M_EP], &e->epoch);
    e->has_epoch = err == ZQ_OK;
    if (brk_codec_optional(err) != ZQ_OK ||
        brk_codec_optional(brk_codec_whole(m[M_Q], 0, 1, &q)) != ZQ_OK ||
        (q == 1 && !e->has_epoch)) {
        return ZQ_ERR_MALFORMED;
    }
    e->qos = (uint8_t)q;
    return ZQ_OK;
}

/* "lvc":1 as PROTOCOL.md §7 writes it; true, 0 and false are read as what they mean. */
static zq_err_t read_lvc(const json_value_t *m, brk_envelope_t *e)
{
    uint64_t one = 0;
    if (m[M_LVC].p == NULL || json_get_bool(m[M_LVC], &e->lvc)) {
        return ZQ_OK;
    }
    zq_err_t err = brk_codec_whole(m[M_LVC], 0, 1, &one);
    e->lvc = one == 1;
    return err;
}

/* A job's lease is its visibility timeout (§6); 0 (absent) leaves it to the broker's default. */
static zq_err_t read_job(const json_value_t *m, brk_envelope_t *e)
{
    uint64_t lease = 0;
    zq_err_t err = brk_codec_whole(m[M_LEASE], 1, UINT32_MAX, &lease);
    e->lease_ms = (uint32_t)lease;
    return brk_codec_optional(err);
}

/* A request without "corr" could never be matched to its rep (§6). */
static zq_err_t read_request(const json_value_t *m, brk_envelope_t *e)
{
    uint64_t timeout = 0;
    if (brk_codec_string(m[M_CORR], true, &e->corr) != ZQ_OK ||
        brk_codec_optional(brk_codec_whole(m[M_TIMEOUT], 0, UINT32_MAX, &timeout)) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    e->timeout_ms = (uint32_t)timeout;
    return ZQ_OK;
}

static zq_err_t read_kind(const json_value_t *m, brk_envelope_t *e)
{
    if (m[M_K].p == NULL) {
        return ZQ_OK;
    }
    if (json_string_equals(m[M_K], "job")) {
        e->kind = BRK_KIND_JOB;
        return read_job(m, e);
    }
    if (json_string_equals(m[M_K], "req")) {
        e->kind = BRK_KIND_REQUEST;
        return read_request(m, e);
    }
    return ZQ_ERR_MALFORMED; /* a kind zq does not know cannot be handled as any of them */
}

static zq_err_t read_envelope(json_value_t obj, brk_envelope_t *e)
{
    json_value_t m[M_COUNT];
    if (json_object_pick(obj, member_names, M_COUNT, m) != ZQ_OK || read_zeroq(m, e) != ZQ_OK ||
        read_epoch_qos(m, e) != ZQ_OK || read_seq(m, e) != ZQ_OK || read_lvc(m, e) != ZQ_OK ||
        read_kind(m, e) != ZQ_OK) {
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

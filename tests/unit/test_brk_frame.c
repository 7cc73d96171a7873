/* The broker's frames (broker/frame.h, broker/PROTOCOL.md): ZeroQ's frames exactly as a ZeroQ
 * browser sends them (docs/zeroq-wire.md §3), every zq frame byte for byte both ways, each
 * reader's refusals (tables naming the rule), and the writers against a too-small buffer.
 * (Chunks, the one binary frame, have their own table: test_brk_chunk.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "broker/frame.h"
#include "zq/utf8.h"

/* ---- Helpers ------------------------------------------------------------------------------ */

static json_value_t parse(const char *text)
{
    json_value_t v;
    if (json_parse(text, strlen(text), &v) != ZQ_OK) {
        fail_msg("fixture is not JSON: %s", text);
    }
    return v;
}

/* A JSON value spelled out, as a writer's json_value_t argument. */
static json_value_t lit(const char *raw)
{
    return (json_value_t){raw, strlen(raw)};
}

static void assert_span(json_value_t v, const char *raw)
{
    assert_int_equal(v.len, strlen(raw));
    assert_memory_equal(v.p, raw, v.len);
}

static void assert_same_span(json_value_t a, json_value_t b)
{
    assert_int_equal(a.len, b.len);
    if (a.len != 0) {
        assert_memory_equal(a.p, b.p, a.len);
    }
}

static char out[2048];
static json_writer_t w;

static json_writer_t *writer(void)
{
    json_writer_init(&w, out, sizeof out - 1);
    return &w;
}

static const char *written(void)
{
    size_t n = json_finish(&w);
    if (n == 0) {
        fail_msg("writer failed: %s", zq_errname(json_writer_error(&w)));
    }
    out[n] = '\0';
    return out;
}

static void assert_write_fails(void)
{
    assert_int_equal(json_finish(&w), 0);
    assert_int_not_equal(json_writer_error(&w), ZQ_OK);
}

/* ---- ZeroQ's envelopes (zeroq-wire.md §3), as a ZeroQ browser sends them ------------------ */

static const char zeroq_publish[] =
    "{\"id\":\"3b241101-e2bb-4255-8caf-4136c566a962\",\"topic\":\"news\","
    "\"payload\":{\"headline\":\"hi\"},\"timestamp\":1754040000000,\"seq\":0,\"retryCount\":0}";

static const char zeroq_queue_message[] =
    "{\"id\":\"6f1c2a9e-40b7-4c55-9d0e-2b8f3c1d7a64\",\"topic\":\"jobs\","
    "\"payload\":{\"url\":\"x\"},\"timestamp\":1754040000123,\"seq\":0,\"retryCount\":0,"
    "\"priority\":1}";

static const char zeroq_nack_resend[] =
    "{\"id\":\"6f1c2a9e-40b7-4c55-9d0e-2b8f3c1d7a64\",\"topic\":\"jobs\","
    "\"payload\":{\"url\":\"x\"},\"timestamp\":1754040000123,\"seq\":0,\"retryCount\":1,"
    "\"priority\":1}";

static const char zeroq_rpc_request[] =
    "{\"id\":\"a7e3f0c2-1b4d-4e8f-9a6b-5c2d1e0f3a47\",\"topic\":\"rpc.getUser\","
    "\"payload\":{\"id\":123,\"replyTo\":\"9f0c5d2e-8a1b-4c3d-b2e1-7f6a5b4c3d2e\"},"
    "\"timestamp\":1754040001000,\"seq\":0,\"retryCount\":0}";

static const char zeroq_rpc_reply[] =
    "{\"id\":\"c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f\","
    "\"topic\":\"9f0c5d2e-8a1b-4c3d-b2e1-7f6a5b4c3d2e\","
    "\"payload\":{\"user\":{\"id\":123,\"name\":\"Ada\"}},\"timestamp\":1754040001042,\"seq\":0,"
    "\"retryCount\":0}";

/* Everything zq adds is absent from a ZeroQ envelope. */
static void assert_plain_zeroq(const brk_envelope_t *e)
{
    assert_int_equal(e->kind, BRK_KIND_MESSAGE);
    assert_false(e->has_epoch);
    assert_int_equal(e->epoch, 0);
    assert_int_equal(e->qos, 0);
    assert_false(e->lvc);
    assert_int_equal(e->lease_ms, 0);
    assert_int_equal(e->corr.len, 0);
    assert_int_equal(e->timeout_ms, 0);
}

static void read_envelope_ok(const char *text, brk_envelope_t *e)
{
    assert_int_equal(brk_frame_type(parse(text)), BRK_FRAME_ENVELOPE);
    assert_int_equal(brk_envelope_read(parse(text), e), ZQ_OK);
}

/* Writing back what was read gives ZeroQ's own bytes: zq's member order is JSON.stringify's
 * order of ZeroQ's Message. */
static void assert_rewritten_byte_for_byte(const brk_envelope_t *e, const char *text)
{
    brk_envelope_write(writer(), e);
    assert_string_equal(written(), text);
}

static void zeroq_publish_is_read_field_by_field(void **state)
{
    (void)state;
    brk_envelope_t e;
    read_envelope_ok(zeroq_publish, &e);
    assert_span(e.id, "\"3b241101-e2bb-4255-8caf-4136c566a962\"");
    assert_span(e.topic, "\"news\"");
    assert_true(e.has_payload);
    assert_span(e.payload, "{\"headline\":\"hi\"}");
    assert_int_equal(e.timestamp, 1754040000000);
    assert_int_equal(e.seq, 0);
    assert_int_equal(e.retry_count, 0);
    assert_false(e.has_priority);
    assert_int_equal(e.reply_to.len, 0);
    assert_plain_zeroq(&e);
    assert_rewritten_byte_for_byte(&e, zeroq_publish);
}

static void zeroq_queue_message_keeps_its_priority(void **state)
{
    (void)state;
    brk_envelope_t e;
    read_envelope_ok(zeroq_queue_message, &e);
    assert_span(e.id, "\"6f1c2a9e-40b7-4c55-9d0e-2b8f3c1d7a64\"");
    assert_span(e.topic, "\"jobs\"");
    assert_span(e.payload, "{\"url\":\"x\"}");
    assert_int_equal(e.timestamp, 1754040000123);
    assert_int_equal(e.retry_count, 0);
    assert_true(e.has_priority);
    assert_int_equal(e.priority, 1);
    assert_plain_zeroq(&e);
    assert_rewritten_byte_for_byte(&e, zeroq_queue_message);
}

static void zeroq_nack_resend_counts_one_retry(void **state)
{
    (void)state;
    brk_envelope_t e;
    read_envelope_ok(zeroq_nack_resend, &e);
    assert_span(e.id, "\"6f1c2a9e-40b7-4c55-9d0e-2b8f3c1d7a64\"");
    assert_int_equal(e.retry_count, 1);
    assert_int_equal(e.timestamp, 1754040000123);
    assert_true(e.has_priority);
    assert_int_equal(e.priority, 1);
    assert_plain_zeroq(&e);
    assert_rewritten_byte_for_byte(&e, zeroq_nack_resend);
}

static void zeroq_rpc_request_gives_payload_reply_to(void **state)
{
    (void)state;
    brk_envelope_t e;
    read_envelope_ok(zeroq_rpc_request, &e);
    assert_span(e.topic, "\"rpc.getUser\"");
    assert_span(e.payload, "{\"id\":123,\"replyTo\":\"9f0c5d2e-8a1b-4c3d-b2e1-7f6a5b4c3d2e\"}");
    assert_span(e.reply_to, "\"9f0c5d2e-8a1b-4c3d-b2e1-7f6a5b4c3d2e\"");
    assert_int_equal(e.timestamp, 1754040001000);
    assert_plain_zeroq(&e);
    assert_rewritten_byte_for_byte(&e, zeroq_rpc_request);
}

static void zeroq_rpc_reply_is_a_message_on_the_reply_topic(void **state)
{
    (void)state;
    brk_envelope_t e;
    read_envelope_ok(zeroq_rpc_reply, &e);
    assert_span(e.id, "\"c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f\"");
    assert_span(e.topic, "\"9f0c5d2e-8a1b-4c3d-b2e1-7f6a5b4c3d2e\"");
    assert_span(e.payload, "{\"user\":{\"id\":123,\"name\":\"Ada\"}}");
    assert_int_equal(e.reply_to.len, 0);
    assert_int_equal(e.timestamp, 1754040001042);
    assert_plain_zeroq(&e);
    assert_rewritten_byte_for_byte(&e, zeroq_rpc_reply);
}

/* JSON.stringify leaves out a payload that was undefined. */
static void envelope_without_payload_is_a_message(void **state)
{
    (void)state;
    static const char text[] = "{\"id\":\"a\",\"topic\":\"t\",\"timestamp\":1,\"seq\":0,"
                               "\"retryCount\":0}";
    brk_envelope_t e;
    read_envelope_ok(text, &e);
    assert_false(e.has_payload);
    assert_int_equal(e.payload.len, 0);
    assert_rewritten_byte_for_byte(&e, text);
}

static void envelope_topic_may_be_empty(void **state)
{
    (void)state;
    brk_envelope_t e;
    read_envelope_ok("{\"id\":\"a\",\"topic\":\"\"}", &e);
    assert_span(e.topic, "\"\"");
}

static void envelope_payload_may_be_any_value(void **state)
{
    (void)state;
    static const char *const payloads[] = {"null", "true", "0", "-1.5e3", "\"s\"", "[1,[2]]",
                                           "{}"};
    char text[128];
    for (size_t i = 0; i < sizeof payloads / sizeof payloads[0]; i++) {
        brk_envelope_t e;
        snprintf(text, sizeof text, "{\"id\":\"a\",\"topic\":\"t\",\"payload\":%s}", payloads[i]);
        read_envelope_ok(text, &e);
        assert_true(e.has_payload);
        assert_span(e.payload, payloads[i]);
        assert_int_equal(e.reply_to.len, 0);
    }
}

/* ZeroQ's reply() looks for replyTo only in an object payload, and skips an empty one. */
static void envelope_reply_to_needs_a_non_empty_string_in_an_object_payload(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "{\"id\":\"a\",\"topic\":\"t\",\"payload\":\"replyTo\"}",
        "{\"id\":\"a\",\"topic\":\"t\",\"payload\":{\"replyTo\":5}}",
        "{\"id\":\"a\",\"topic\":\"t\",\"payload\":{\"replyTo\":\"\"}}",
        "{\"id\":\"a\",\"topic\":\"t\",\"payload\":{\"x\":{\"replyTo\":\"r\"}}}",
        "{\"id\":\"a\",\"topic\":\"t\",\"payload\":[\"replyTo\",\"r\"]}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        brk_envelope_t e;
        read_envelope_ok(texts[i], &e);
        assert_int_equal(e.reply_to.len, 0);
    }
}

static void envelope_unknown_members_are_ignored(void **state)
{
    (void)state;
    brk_envelope_t e;
    read_envelope_ok("{\"x\":[1,{\"y\":null}],\"id\":\"a\",\"topic\":\"t\",\"replyTo\":\"r\","
                     "\"zz\":\"\"}",
                     &e);
    assert_span(e.id, "\"a\"");
    assert_int_equal(e.reply_to.len, 0); /* top-level replyTo is never sent (zeroq-wire §3) */
}

/* ---- ZeroQ's lenient members: what ZeroQ's receiver accepts, zq accepts ---------------------- */

static brk_envelope_t envelope_with(const char *member)
{
    static char text[256];
    brk_envelope_t e;
    snprintf(text, sizeof text, "{\"id\":\"a\",\"topic\":\"t\"%s%s}", *member ? "," : "", member);
    if (brk_envelope_read(parse(text), &e) != ZQ_OK) {
        fail_msg("refused: %s", text);
    }
    return e;
}

static void retry_count_missing_negative_or_not_finite_reads_as_zero(void **state)
{
    (void)state;
    assert_int_equal(envelope_with("").retry_count, 0);
    assert_int_equal(envelope_with("\"retryCount\":-1").retry_count, 0);
    assert_int_equal(envelope_with("\"retryCount\":-0.5").retry_count, 0);
    assert_int_equal(envelope_with("\"retryCount\":1e400").retry_count, 0);
    assert_int_equal(envelope_with("\"retryCount\":-1e400").retry_count, 0);
}

static void retry_count_not_a_number_reads_as_zero(void **state)
{
    (void)state;
    assert_int_equal(envelope_with("\"retryCount\":\"2\"").retry_count, 0);
    assert_int_equal(envelope_with("\"retryCount\":null").retry_count, 0);
    assert_int_equal(envelope_with("\"retryCount\":true").retry_count, 0);
    assert_int_equal(envelope_with("\"retryCount\":[2]").retry_count, 0);
}

static void retry_count_fraction_is_floored(void **state)
{
    (void)state;
    assert_int_equal(envelope_with("\"retryCount\":2.7").retry_count, 2);
    assert_int_equal(envelope_with("\"retryCount\":0.9").retry_count, 0);
    assert_int_equal(envelope_with("\"retryCount\":3e0").retry_count, 3);
}

static void retry_count_beyond_uint32_is_held_at_uint32_max(void **state)
{
    (void)state;
    assert_int_equal(envelope_with("\"retryCount\":4294967295").retry_count, UINT32_MAX);
    assert_int_equal(envelope_with("\"retryCount\":4294967296").retry_count, UINT32_MAX);
    assert_int_equal(envelope_with("\"retryCount\":1e300").retry_count, UINT32_MAX);
}

static void timestamp_not_a_whole_int64_reads_as_zero(void **state)
{
    (void)state;
    assert_int_equal(envelope_with("").timestamp, 0);
    assert_int_equal(envelope_with("\"timestamp\":1.5").timestamp, 0);
    assert_int_equal(envelope_with("\"timestamp\":\"now\"").timestamp, 0);
    assert_int_equal(envelope_with("\"timestamp\":1e19").timestamp, 0);
    assert_int_equal(envelope_with("\"timestamp\":-5").timestamp, -5);
    assert_int_equal(envelope_with("\"timestamp\":1.754e12").timestamp, 1754000000000);
}

static void seq_without_epoch_reads_as_zero_unless_whole(void **state)
{
    (void)state;
    assert_int_equal(envelope_with("").seq, 0);
    assert_int_equal(envelope_with("\"seq\":7").seq, 7);
    assert_int_equal(envelope_with("\"seq\":1.5").seq, 0);
    assert_int_equal(envelope_with("\"seq\":-1").seq, 0);
    assert_int_equal(envelope_with("\"seq\":\"7\"").seq, 0);
    assert_int_equal(envelope_with("\"seq\":9007199254740993").seq, 0);
}

static void seq_with_epoch_goes_up_to_2_pow_53(void **state)
{
    (void)state;
    assert_int_equal(envelope_with("\"ep\":\"00000001\",\"seq\":9007199254740992").seq,
                     (uint64_t)1 << 53);
}

static void priority_not_whole_is_ignored(void **state)
{
    (void)state;
    assert_false(envelope_with("\"priority\":1.5").has_priority);
    assert_false(envelope_with("\"priority\":\"high\"").has_priority);
    assert_false(envelope_with("\"priority\":null").has_priority);
    brk_envelope_t e = envelope_with("\"priority\":-3");
    assert_true(e.has_priority);
    assert_int_equal(e.priority, -3);
}

/* ---- zq's envelope members ----------------------------------------------------------------- */

static void epoch_takes_either_case_and_escapes(void **state)
{
    (void)state;
    brk_envelope_t e = envelope_with("\"ep\":\"0C77e1D2\"");
    assert_true(e.has_epoch);
    assert_int_equal(e.epoch, 0x0c77e1d2u);
    assert_int_equal(envelope_with("\"ep\":\"\\u0030c77e1d2\"").epoch, 0x0c77e1d2u);
    assert_int_equal(envelope_with("\"ep\":\"ffffffff\"").epoch, UINT32_MAX);
}

static void lvc_is_one_or_true(void **state)
{
    (void)state;
    assert_true(envelope_with("\"lvc\":1").lvc);
    assert_true(envelope_with("\"lvc\":true").lvc);
    assert_false(envelope_with("\"lvc\":0").lvc);
    assert_false(envelope_with("\"lvc\":false").lvc);
}

static void job_without_lease_leaves_it_to_the_broker(void **state)
{
    (void)state;
    brk_envelope_t e = envelope_with("\"k\":\"job\"");
    assert_int_equal(e.kind, BRK_KIND_JOB);
    assert_int_equal(e.lease_ms, 0);
    assert_int_equal(envelope_with("\"k\":\"job\",\"lease\":3e4").lease_ms, 30000);
    assert_int_equal(envelope_with("\"k\":\"job\",\"lease\":4294967295").lease_ms, UINT32_MAX);
}

static void request_without_timeout_leaves_it_to_the_broker(void **state)
{
    (void)state;
    brk_envelope_t e = envelope_with("\"k\":\"req\",\"corr\":\"c\"");
    assert_int_equal(e.kind, BRK_KIND_REQUEST);
    assert_span(e.corr, "\"c\"");
    assert_int_equal(e.timeout_ms, 0);
}

/* A member of another kind is as good as unknown. */
static void members_of_another_kind_are_ignored(void **state)
{
    (void)state;
    brk_envelope_t e = envelope_with("\"lease\":0,\"corr\":5,\"timeout\":-1");
    assert_int_equal(e.kind, BRK_KIND_MESSAGE);
    assert_int_equal(e.lease_ms, 0);
    assert_int_equal(e.corr.len, 0);
    e = envelope_with("\"k\":\"job\",\"corr\":\"\",\"timeout\":1.5");
    assert_int_equal(e.corr.len, 0);
    assert_int_equal(e.timeout_ms, 0);
    e = envelope_with("\"k\":\"req\",\"corr\":\"c\",\"lease\":0");
    assert_int_equal(e.lease_ms, 0);
}

/* ---- Rejections: one table per reader, one row per rule ------------------------------------- */

typedef struct {
    const char *rule;
    const char *text;
} refusal_t;

typedef union {
    brk_envelope_t envelope;
    brk_hello_t hello;
    brk_sub_t sub;
    brk_ack_t ack;
    brk_lost_t lost;
    brk_ready_t ready;
    brk_done_t done;
    brk_dlq_t dlq;
    brk_dlq_jobs_t dlq_jobs;
    brk_dlq_job_t dlq_job;
    brk_rep_t rep;
} any_frame_t;

typedef zq_err_t (*reader_t)(json_value_t obj, any_frame_t *out);

/* Each refused frame is MALFORMED and leaves the output all zero: nothing half-filled. */
static void expect_refused(reader_t read, size_t out_size, const refusal_t *cases, size_t n)
{
    static any_frame_t f;
    static const any_frame_t zero;
    for (size_t i = 0; i < n; i++) {
        memset(&f, 0x5A, sizeof f);
        zq_err_t err = read(parse(cases[i].text), &f);
        if (err != ZQ_ERR_MALFORMED) {
            fail_msg("rule \"%s\" not enforced (%s): %s", cases[i].rule, zq_errname(err),
                     cases[i].text);
        }
        if (memcmp(&f, &zero, out_size) != 0) {
            fail_msg("rule \"%s\": output half-filled", cases[i].rule);
        }
    }
}

#define EXPECT_REFUSED(reader, type, cases)                                                    \
    expect_refused(reader, sizeof(type), cases, sizeof cases / sizeof cases[0])

static zq_err_t read_envelope(json_value_t o, any_frame_t *f)
{
    return brk_envelope_read(o, &f->envelope);
}

static void envelope_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"an envelope is an object", "[\"id\",\"topic\"]"},
        {"an envelope is an object", "\"id\""},
        {"id is required", "{\"topic\":\"t\"}"},
        {"id is a string", "{\"id\":5,\"topic\":\"t\"}"},
        {"id is a string", "{\"id\":null,\"topic\":\"t\"}"},
        {"id is not empty", "{\"id\":\"\",\"topic\":\"t\"}"},
        {"topic is required", "{\"id\":\"a\"}"},
        {"topic is a string", "{\"id\":\"a\",\"topic\":null}"},
        {"topic is a string", "{\"id\":\"a\",\"topic\":[\"t\"]}"},
        {"ep is 8 hex digits", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"0c77e1d\"}"},
        {"ep is 8 hex digits", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"0c77e1d2a\"}"},
        {"ep is 8 hex digits", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"0c77e1dg\"}"},
        {"ep is 8 hex digits", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\" c77e1d2\"}"},
        {"ep is 8 hex digits", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"\"}"},
        {"ep is a string", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":12345678}"},
        {"q is 0 or 1", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"00000001\",\"q\":2}"},
        {"q is 0 or 1", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"00000001\",\"q\":0.5}"},
        {"q is 0 or 1", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"00000001\",\"q\":-1}"},
        {"q is a number", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"00000001\",\"q\":\"1\"}"},
        {"q 1 needs ep", "{\"id\":\"a\",\"topic\":\"t\",\"q\":1}"},
        {"seq with ep is whole", "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"00000001\",\"seq\":1.5}"},
        {"seq with ep is not negative",
         "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"00000001\",\"seq\":-1}"},
        {"seq with ep is at most 2^53",
         "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"00000001\",\"seq\":9007199254740993}"},
        {"seq with ep is a number",
         "{\"id\":\"a\",\"topic\":\"t\",\"ep\":\"00000001\",\"seq\":\"1\"}"},
        {"k is job or req", "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"pub\"}"},
        {"k is job or req", "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"JOB\"}"},
        {"k is job or req", "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"\"}"},
        {"k is a string", "{\"id\":\"a\",\"topic\":\"t\",\"k\":1}"},
        {"lvc is 1 or true", "{\"id\":\"a\",\"topic\":\"t\",\"lvc\":2}"},
        {"lvc is 1 or true", "{\"id\":\"a\",\"topic\":\"t\",\"lvc\":\"1\"}"},
        {"lvc is 1 or true", "{\"id\":\"a\",\"topic\":\"t\",\"lvc\":null}"},
        {"job lease is at least 1 ms", "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"job\",\"lease\":0}"},
        {"job lease is whole", "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"job\",\"lease\":1.5}"},
        {"job lease fits 32 bits",
         "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"job\",\"lease\":4294967296}"},
        {"job lease is a number", "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"job\",\"lease\":\"1\"}"},
        {"request needs corr", "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"req\"}"},
        {"request corr is not empty", "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"req\",\"corr\":\"\"}"},
        {"request corr is a string", "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"req\",\"corr\":7}"},
        {"request timeout is whole",
         "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"req\",\"corr\":\"c\",\"timeout\":0.5}"},
        {"request timeout is not negative",
         "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"req\",\"corr\":\"c\",\"timeout\":-1}"},
        {"request timeout fits 32 bits",
         "{\"id\":\"a\",\"topic\":\"t\",\"k\":\"req\",\"corr\":\"c\",\"timeout\":4294967296}"},
    };
    EXPECT_REFUSED(read_envelope, brk_envelope_t, cases);
}

static zq_err_t read_hello(json_value_t o, any_frame_t *f)
{
    return brk_hello_read(o, &f->hello);
}

#define HELLO_HEAD "{\"type\":\"__zq_hello__\","
#define HELLO_OK_V_EPOCH_MAX "\"v\":1,\"epoch\":\"5f0c9a2e\",\"max\":65536,"
#define RESUME_WITH(entry) HELLO_HEAD HELLO_OK_V_EPOCH_MAX "\"feat\":[],\"resume\":[" entry "]}"

static void hello_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"a hello is an object", "[]"},
        {"v is required", HELLO_HEAD "\"epoch\":\"5f0c9a2e\",\"max\":65536,\"feat\":[]}"},
        {"v is at least 1", HELLO_HEAD "\"v\":0,\"epoch\":\"5f0c9a2e\",\"max\":65536,\"feat\":[]}"},
        {"v is whole", HELLO_HEAD "\"v\":1.5,\"epoch\":\"5f0c9a2e\",\"max\":65536,\"feat\":[]}"},
        {"v is a number",
         HELLO_HEAD "\"v\":\"1\",\"epoch\":\"5f0c9a2e\",\"max\":65536,\"feat\":[]}"},
        {"v fits 32 bits",
         HELLO_HEAD "\"v\":4294967296,\"epoch\":\"5f0c9a2e\",\"max\":65536,\"feat\":[]}"},
        {"epoch is required", HELLO_HEAD "\"v\":1,\"max\":65536,\"feat\":[]}"},
        {"epoch is 8 hex digits",
         HELLO_HEAD "\"v\":1,\"epoch\":\"5f0c9a2\",\"max\":65536,\"feat\":[]}"},
        {"epoch is 8 hex digits",
         HELLO_HEAD "\"v\":1,\"epoch\":\"5f0c9a2x\",\"max\":65536,\"feat\":[]}"},
        {"epoch is a string", HELLO_HEAD "\"v\":1,\"epoch\":1594923566,\"max\":65536,\"feat\":[]}"},
        {"max is required", HELLO_HEAD "\"v\":1,\"epoch\":\"5f0c9a2e\",\"feat\":[]}"},
        {"max is at least 256",
         HELLO_HEAD "\"v\":1,\"epoch\":\"5f0c9a2e\",\"max\":255,\"feat\":[]}"},
        {"max is whole", HELLO_HEAD "\"v\":1,\"epoch\":\"5f0c9a2e\",\"max\":1024.5,\"feat\":[]}"},
        {"max fits 32 bits",
         HELLO_HEAD "\"v\":1,\"epoch\":\"5f0c9a2e\",\"max\":4294967296,\"feat\":[]}"},
        {"feat is required", HELLO_HEAD HELLO_OK_V_EPOCH_MAX "\"resume\":[]}"},
        {"feat is an array", HELLO_HEAD HELLO_OK_V_EPOCH_MAX "\"feat\":\"sub\"}"},
        {"feat holds strings", HELLO_HEAD HELLO_OK_V_EPOCH_MAX "\"feat\":[\"sub\",1]}"},
        {"resume is an array", HELLO_HEAD HELLO_OK_V_EPOCH_MAX "\"feat\":[],\"resume\":{}}"},
        {"resume entries are objects", RESUME_WITH("[]")},
        {"resume fp is required", RESUME_WITH("{\"epoch\":\"0c77e1d2\",\"seq\":1}")},
        {"resume fp is 16 hex digits",
         RESUME_WITH("{\"fp\":\"9a1f03c4b2e8d7a\",\"epoch\":\"0c77e1d2\",\"seq\":1}")},
        {"resume fp is 16 hex digits",
         RESUME_WITH("{\"fp\":\"9a1f03c4b2e8d7a6f\",\"epoch\":\"0c77e1d2\",\"seq\":1}")},
        {"resume fp is 16 hex digits",
         RESUME_WITH("{\"fp\":\"9a1f03c4b2e8d7az\",\"epoch\":\"0c77e1d2\",\"seq\":1}")},
        {"resume epoch is 8 hex digits",
         RESUME_WITH("{\"fp\":\"9a1f03c4b2e8d7a6\",\"epoch\":\"0c77e1\",\"seq\":1}")},
        {"resume seq is required",
         RESUME_WITH("{\"fp\":\"9a1f03c4b2e8d7a6\",\"epoch\":\"0c77e1d2\"}")},
        {"resume seq is not negative",
         RESUME_WITH("{\"fp\":\"9a1f03c4b2e8d7a6\",\"epoch\":\"0c77e1d2\",\"seq\":-1}")},
        {"resume seq is whole",
         RESUME_WITH("{\"fp\":\"9a1f03c4b2e8d7a6\",\"epoch\":\"0c77e1d2\",\"seq\":0.5}")},
        {"resume seq is at most 2^53",
         RESUME_WITH("{\"fp\":\"9a1f03c4b2e8d7a6\",\"epoch\":\"0c77e1d2\","
                     "\"seq\":9007199254740993}")},
    };
    EXPECT_REFUSED(read_hello, brk_hello_t, cases);
}

static zq_err_t read_sub(json_value_t o, any_frame_t *f)
{
    return brk_sub_read(o, &f->sub);
}

static void sub_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"a sub is an object", "[\"topics\"]"},
        {"topics is an array", "{\"type\":\"__zq_sub__\",\"topics\":\"news\"}"},
        {"topics holds strings", "{\"type\":\"__zq_sub__\",\"topics\":[\"news\",null]}"},
        {"services is an array", "{\"type\":\"__zq_sub__\",\"services\":{}}"},
        {"services holds strings", "{\"type\":\"__zq_sub__\",\"services\":[[\"rpc\"]]}"},
    };
    EXPECT_REFUSED(read_sub, brk_sub_t, cases);
}

static zq_err_t read_ack(json_value_t o, any_frame_t *f)
{
    return brk_ack_read(o, &f->ack);
}

static void ack_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"ep is required", "{\"type\":\"__zq_ack__\",\"upto\":1}"},
        {"ep is 8 hex digits", "{\"type\":\"__zq_ack__\",\"ep\":\"0c77e1d2 \",\"upto\":1}"},
        {"upto is required", "{\"type\":\"__zq_ack__\",\"ep\":\"0c77e1d2\"}"},
        {"upto is not negative", "{\"type\":\"__zq_ack__\",\"ep\":\"0c77e1d2\",\"upto\":-1}"},
        {"upto is whole", "{\"type\":\"__zq_ack__\",\"ep\":\"0c77e1d2\",\"upto\":1.5}"},
        {"upto is at most 2^53",
         "{\"type\":\"__zq_ack__\",\"ep\":\"0c77e1d2\",\"upto\":9007199254740993}"},
        {"upto is a number", "{\"type\":\"__zq_ack__\",\"ep\":\"0c77e1d2\",\"upto\":\"1\"}"},
    };
    EXPECT_REFUSED(read_ack, brk_ack_t, cases);
}

static zq_err_t read_lost(json_value_t o, any_frame_t *f)
{
    return brk_lost_read(o, &f->lost);
}

static void lost_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"ep is required", "{\"type\":\"__zq_lost__\",\"from\":1,\"to\":2}"},
        {"ep is 8 hex digits", "{\"type\":\"__zq_lost__\",\"ep\":\"xyz\",\"from\":1,\"to\":2}"},
        {"from is required", "{\"type\":\"__zq_lost__\",\"ep\":\"0c77e1d2\",\"to\":2}"},
        {"to is required", "{\"type\":\"__zq_lost__\",\"ep\":\"0c77e1d2\",\"from\":1}"},
        {"from is whole", "{\"type\":\"__zq_lost__\",\"ep\":\"0c77e1d2\",\"from\":1.5,\"to\":2}"},
        {"to is at most 2^53",
         "{\"type\":\"__zq_lost__\",\"ep\":\"0c77e1d2\",\"from\":1,\"to\":9007199254740993}"},
        {"from is not above to",
         "{\"type\":\"__zq_lost__\",\"ep\":\"0c77e1d2\",\"from\":3,\"to\":2}"},
    };
    EXPECT_REFUSED(read_lost, brk_lost_t, cases);
}

static zq_err_t read_ready(json_value_t o, any_frame_t *f)
{
    return brk_ready_read(o, &f->ready);
}

static void ready_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"queue is required", "{\"type\":\"__zq_ready__\",\"credit\":4}"},
        {"queue is not empty", "{\"type\":\"__zq_ready__\",\"queue\":\"\",\"credit\":4}"},
        {"queue is a string", "{\"type\":\"__zq_ready__\",\"queue\":1,\"credit\":4}"},
        {"credit is required", "{\"type\":\"__zq_ready__\",\"queue\":\"jobs\"}"},
        {"credit is not negative", "{\"type\":\"__zq_ready__\",\"queue\":\"jobs\",\"credit\":-1}"},
        {"credit is whole", "{\"type\":\"__zq_ready__\",\"queue\":\"jobs\",\"credit\":0.5}"},
        {"credit fits 32 bits",
         "{\"type\":\"__zq_ready__\",\"queue\":\"jobs\",\"credit\":4294967296}"},
    };
    EXPECT_REFUSED(read_ready, brk_ready_t, cases);
}

static zq_err_t read_done(json_value_t o, any_frame_t *f)
{
    return brk_done_read(o, &f->done);
}

static void done_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"id is required", "{\"type\":\"__zq_done__\",\"ok\":true}"},
        {"id is not empty", "{\"type\":\"__zq_done__\",\"id\":\"\",\"ok\":true}"},
        {"id is a string", "{\"type\":\"__zq_done__\",\"id\":{},\"ok\":true}"},
        {"ok is required", "{\"type\":\"__zq_done__\",\"id\":\"j-1\"}"},
        {"ok is a boolean", "{\"type\":\"__zq_done__\",\"id\":\"j-1\",\"ok\":1}"},
        {"ok is a boolean", "{\"type\":\"__zq_done__\",\"id\":\"j-1\",\"ok\":\"true\"}"},
        {"busy is a boolean",
         "{\"type\":\"__zq_done__\",\"id\":\"j-1\",\"ok\":false,\"busy\":1}"},
        {"busy is only a nack's",
         "{\"type\":\"__zq_done__\",\"id\":\"j-1\",\"ok\":true,\"busy\":true}"},
    };
    EXPECT_REFUSED(read_done, brk_done_t, cases);
}

static zq_err_t read_dlq(json_value_t o, any_frame_t *f)
{
    return brk_dlq_read(o, &f->dlq);
}

static void dlq_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"queue is required", "{\"type\":\"__zq_dlq__\",\"op\":\"list\"}"},
        {"queue is not empty", "{\"type\":\"__zq_dlq__\",\"queue\":\"\",\"op\":\"list\"}"},
        {"op is required", "{\"type\":\"__zq_dlq__\",\"queue\":\"jobs\"}"},
        {"op is list, requeue or purge",
         "{\"type\":\"__zq_dlq__\",\"queue\":\"jobs\",\"op\":\"drop\"}"},
        {"op is list, requeue or purge",
         "{\"type\":\"__zq_dlq__\",\"queue\":\"jobs\",\"op\":\"LIST\"}"},
        {"op is a string", "{\"type\":\"__zq_dlq__\",\"queue\":\"jobs\",\"op\":0}"},
    };
    EXPECT_REFUSED(read_dlq, brk_dlq_t, cases);
}

static zq_err_t read_dlq_jobs(json_value_t o, any_frame_t *f)
{
    return brk_dlq_jobs_read(o, &f->dlq_jobs);
}

static void dlq_jobs_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"queue is required", "{\"type\":\"__zq_dlq_jobs__\",\"jobs\":[],\"more\":false}"},
        {"queue is not empty",
         "{\"type\":\"__zq_dlq_jobs__\",\"queue\":\"\",\"jobs\":[],\"more\":false}"},
        {"jobs is required", "{\"type\":\"__zq_dlq_jobs__\",\"queue\":\"jobs\",\"more\":false}"},
        {"jobs is an array",
         "{\"type\":\"__zq_dlq_jobs__\",\"queue\":\"jobs\",\"jobs\":{},\"more\":false}"},
        {"more is required", "{\"type\":\"__zq_dlq_jobs__\",\"queue\":\"jobs\",\"jobs\":[]}"},
        {"more is a boolean",
         "{\"type\":\"__zq_dlq_jobs__\",\"queue\":\"jobs\",\"jobs\":[],\"more\":0}"},
    };
    EXPECT_REFUSED(read_dlq_jobs, brk_dlq_jobs_t, cases);
}

static zq_err_t read_dlq_job(json_value_t o, any_frame_t *f)
{
    return brk_dlq_job_read(o, &f->dlq_job);
}

static void dlq_job_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"a job is an object", "[\"j-1\"]"},
        {"id is required", "{\"payload\":1,\"retryCount\":3}"},
        {"id is not empty", "{\"id\":\"\",\"retryCount\":3}"},
        {"retryCount is required", "{\"id\":\"j-1\"}"},
        {"retryCount is not negative", "{\"id\":\"j-1\",\"retryCount\":-1}"},
        {"retryCount is whole", "{\"id\":\"j-1\",\"retryCount\":2.5}"},
        {"retryCount fits 32 bits", "{\"id\":\"j-1\",\"retryCount\":4294967296}"},
    };
    EXPECT_REFUSED(read_dlq_job, brk_dlq_job_t, cases);
}

static zq_err_t read_rep(json_value_t o, any_frame_t *f)
{
    return brk_rep_read(o, &f->rep);
}

static void rep_refusals(void **state)
{
    (void)state;
    static const refusal_t cases[] = {
        {"corr is required", "{\"type\":\"__zq_rep__\",\"payload\":1,\"ok\":true}"},
        {"corr is not empty", "{\"type\":\"__zq_rep__\",\"corr\":\"\",\"ok\":true}"},
        {"corr is a string", "{\"type\":\"__zq_rep__\",\"corr\":1,\"ok\":true}"},
        {"ok is a boolean", "{\"type\":\"__zq_rep__\",\"corr\":\"c\",\"ok\":null}"},
        {"error is a string", "{\"type\":\"__zq_rep__\",\"corr\":\"c\",\"ok\":false,\"error\":1}"},
    };
    EXPECT_REFUSED(read_rep, brk_rep_t, cases);
}

/* ---- zq's envelopes (PROTOCOL.md §4, §6, §7): written byte for byte, read back ----------- */

static void assert_envelopes_equal(const brk_envelope_t *a, const brk_envelope_t *b)
{
    assert_same_span(a->id, b->id);
    assert_same_span(a->topic, b->topic);
    assert_int_equal(a->has_payload, b->has_payload);
    assert_same_span(a->payload, b->payload);
    assert_int_equal(a->timestamp, b->timestamp);
    assert_int_equal(a->seq, b->seq);
    assert_int_equal(a->retry_count, b->retry_count);
    assert_int_equal(a->has_priority, b->has_priority);
    assert_int_equal(a->priority, b->priority);
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->has_epoch, b->has_epoch);
    assert_int_equal(a->epoch, b->epoch);
    assert_int_equal(a->qos, b->qos);
    assert_int_equal(a->lvc, b->lvc);
    assert_int_equal(a->lease_ms, b->lease_ms);
    assert_same_span(a->corr, b->corr);
    assert_int_equal(a->timeout_ms, b->timeout_ms);
    assert_same_span(a->reply_to, b->reply_to);
}

static void envelope_round_trips(const brk_envelope_t *e, const char *text)
{
    brk_envelope_t back;
    brk_envelope_write(writer(), e);
    assert_string_equal(written(), text);
    assert_int_equal(brk_frame_type(parse(text)), BRK_FRAME_ENVELOPE);
    assert_int_equal(brk_envelope_read(parse(text), &back), ZQ_OK);
    assert_envelopes_equal(&back, e);
}

static void qos1_message_round_trips(void **state)
{
    (void)state;
    brk_envelope_t e = {
        .id = lit("\"3b241101-e2bb-4255-8caf-4136c566a962\""), .topic = lit("\"news\""),
        .payload = lit("{\"headline\":\"hi\"}"), .has_payload = true,
        .timestamp = 1754040000000, .seq = 1042, .has_epoch = true, .epoch = 0x0c77e1d2u,
        .qos = 1,
    };
    envelope_round_trips(&e, "{\"id\":\"3b241101-e2bb-4255-8caf-4136c566a962\",\"topic\":"
                             "\"news\",\"payload\":{\"headline\":\"hi\"},\"timestamp\":"
                             "1754040000000,\"seq\":1042,\"retryCount\":0,\"ep\":\"0c77e1d2\","
                             "\"q\":1}");
}

static void last_value_round_trips(void **state)
{
    (void)state;
    brk_envelope_t e = {
        .id = lit("\"m-9\""), .topic = lit("\"sensors.kitchen.temp\""), .payload = lit("21.5"),
        .has_payload = true, .timestamp = 1754040000500, .seq = 977, .has_epoch = true,
        .epoch = 0x5f0c9a2eu, .lvc = true,
    };
    envelope_round_trips(&e, "{\"id\":\"m-9\",\"topic\":\"sensors.kitchen.temp\",\"payload\":"
                             "21.5,\"timestamp\":1754040000500,\"seq\":977,\"retryCount\":0,"
                             "\"ep\":\"5f0c9a2e\",\"lvc\":1}");
}

static void job_round_trips(void **state)
{
    (void)state;
    brk_envelope_t e = {
        .id = lit("\"j-41\""), .topic = lit("\"jobs\""), .payload = lit("{\"url\":\"x\"}"),
        .has_payload = true, .timestamp = 1754040000000, .retry_count = 1,
        .kind = BRK_KIND_JOB, .lease_ms = 30000,
    };
    envelope_round_trips(&e, "{\"id\":\"j-41\",\"topic\":\"jobs\",\"payload\":{\"url\":\"x\"},"
                             "\"timestamp\":1754040000000,\"seq\":0,\"retryCount\":1,"
                             "\"k\":\"job\",\"lease\":30000}");
}

static void request_round_trips(void **state)
{
    (void)state;
    brk_envelope_t e = {
        .id = lit("\"r-7\""), .topic = lit("\"rpc.getUser\""), .payload = lit("{\"id\":123}"),
        .has_payload = true, .timestamp = 1754040000000, .kind = BRK_KIND_REQUEST,
        .corr = lit("\"c-7d1e\""), .timeout_ms = 5000,
    };
    envelope_round_trips(&e, "{\"id\":\"r-7\",\"topic\":\"rpc.getUser\",\"payload\":{\"id\":123},"
                             "\"timestamp\":1754040000000,\"seq\":0,\"retryCount\":0,"
                             "\"k\":\"req\",\"corr\":\"c-7d1e\",\"timeout\":5000}");
}

/* Every optional member at once, to pin the whole order. */
static void envelope_writes_members_in_the_documented_order(void **state)
{
    (void)state;
    brk_envelope_t e = {
        .id = lit("\"a\\\"b\""), .topic = lit("\"\""), .payload = lit("[]"), .has_payload = true,
        .timestamp = -1, .seq = (uint64_t)1 << 53, .retry_count = UINT32_MAX,
        .has_priority = true, .priority = -2, .kind = BRK_KIND_REQUEST, .has_epoch = true,
        .epoch = 0xABCDEF01u, .qos = 1, .lvc = true, .corr = lit("\"c\""), .timeout_ms = 1,
    };
    envelope_round_trips(&e, "{\"id\":\"a\\\"b\",\"topic\":\"\",\"payload\":[],\"timestamp\":-1,"
                             "\"seq\":9007199254740992,\"retryCount\":4294967295,"
                             "\"priority\":-2,\"ep\":\"abcdef01\",\"q\":1,\"k\":\"req\","
                             "\"lvc\":1,\"corr\":\"c\",\"timeout\":1}");
}

static void envelope_writer_refuses_what_the_reader_refuses(void **state)
{
    (void)state;
    brk_envelope_t ok = {.id = lit("\"a\""), .topic = lit("\"t\"")};
    brk_envelope_t e = ok;
    e.id = lit("\"\"");
    brk_envelope_write(writer(), &e);
    assert_write_fails();
    e = ok;
    e.id = lit("5");
    brk_envelope_write(writer(), &e);
    assert_write_fails();
    e = ok;
    e.topic = (json_value_t){NULL, 0};
    brk_envelope_write(writer(), &e);
    assert_write_fails();
    e = ok;
    e.qos = 1; /* without an epoch */
    brk_envelope_write(writer(), &e);
    assert_write_fails();
    e = ok;
    e.kind = BRK_KIND_REQUEST; /* without corr */
    brk_envelope_write(writer(), &e);
    assert_write_fails();
    e = ok;
    e.has_payload = true; /* with an empty payload span */
    brk_envelope_write(writer(), &e);
    assert_write_fails();
}

/* ---- ZeroQ's control frames (PROTOCOL.md §1) ------------------------------------------------ */

static void ping_and_pong_are_written_as_zeroq_does(void **state)
{
    (void)state;
    brk_ping_write(writer());
    assert_string_equal(written(), "{\"type\":\"__ping__\"}");
    assert_int_equal(brk_frame_type(parse(out)), BRK_FRAME_PING);
    brk_pong_write(writer());
    assert_string_equal(written(), "{\"type\":\"__pong__\"}");
    assert_int_equal(brk_frame_type(parse(out)), BRK_FRAME_PONG);
}

static void gossip_counts_its_string_ids(void **state)
{
    (void)state;
    json_value_t g = parse("{\"type\":\"__gossip__\",\"peers\":[\"idA\",\"idB\"]}");
    assert_int_equal(brk_frame_type(g), BRK_FRAME_GOSSIP);
    assert_int_equal(brk_gossip_count(g), 2);
    assert_int_equal(brk_gossip_count(parse("{\"type\":\"__gossip__\",\"peers\":[]}")), 0);
    assert_int_equal(
        brk_gossip_count(parse("{\"type\":\"__gossip__\",\"peers\":[\"a\",1,null,[\"b\"],\"\"]}")),
        2);
}

static void gossip_with_non_array_peers_counts_as_empty(void **state)
{
    (void)state;
    json_value_t g = parse("{\"type\":\"__gossip__\",\"peers\":\"idA\"}");
    assert_int_equal(brk_frame_type(g), BRK_FRAME_GOSSIP);
    assert_int_equal(brk_gossip_count(g), 0);
    assert_int_equal(brk_gossip_count(parse("{\"type\":\"__gossip__\",\"peers\":{\"a\":\"b\"}}")),
                     0);
    assert_int_equal(brk_gossip_count(parse("{\"type\":\"__gossip__\"}")), 0);
    assert_int_equal(brk_gossip_count(parse("[\"idA\"]")), 0);
}

/* ---- hello (PROTOCOL.md §2) ---------------------------------------------------------------- */

static const char protocol_hello[] =
    "{\"type\":\"__zq_hello__\",\"v\":1,\"epoch\":\"5f0c9a2e\",\"max\":65536,"
    "\"feat\":[\"sub\",\"qos1\",\"queue\",\"rpc\",\"chunk\",\"replay\"],"
    "\"resume\":[{\"fp\":\"9a1f03c4b2e8d7a6\",\"epoch\":\"0c77e1d2\",\"seq\":1041}]}";

static void assert_hellos_equal(const brk_hello_t *a, const brk_hello_t *b)
{
    assert_int_equal(a->version, b->version);
    assert_int_equal(a->epoch, b->epoch);
    assert_int_equal(a->max_frame, b->max_frame);
    assert_int_equal(a->features, b->features);
    assert_int_equal(a->n_resume, b->n_resume);
    for (size_t i = 0; i < a->n_resume; i++) {
        assert_memory_equal(a->resume[i].fp, b->resume[i].fp, sizeof a->resume[i].fp);
        assert_int_equal(a->resume[i].epoch, b->resume[i].epoch);
        assert_int_equal(a->resume[i].seq, b->resume[i].seq);
    }
}

static void hello_round_trips(void **state)
{
    (void)state;
    brk_hello_t h = {
        .version = 1, .epoch = 0x5f0c9a2eu, .max_frame = 65536,
        .features = BRK_FEAT_SUB | BRK_FEAT_QOS1 | BRK_FEAT_QUEUE | BRK_FEAT_RPC |
                    BRK_FEAT_CHUNK | BRK_FEAT_REPLAY,
        .resume = {{.fp = {0x9a, 0x1f, 0x03, 0xc4, 0xb2, 0xe8, 0xd7, 0xa6},
                    .epoch = 0x0c77e1d2u, .seq = 1041}},
        .n_resume = 1,
    };
    brk_hello_t back;
    brk_hello_write(writer(), &h);
    assert_string_equal(written(), protocol_hello);
    assert_int_equal(brk_frame_type(parse(protocol_hello)), BRK_FRAME_HELLO);
    assert_int_equal(brk_hello_read(parse(protocol_hello), &back), ZQ_OK);
    assert_hellos_equal(&back, &h);
}

static void hello_without_resume_points_omits_resume(void **state)
{
    (void)state;
    brk_hello_t h = {.version = 2, .epoch = 1, .max_frame = 256, .features = BRK_FEAT_CHUNK};
    brk_hello_t back;
    static const char text[] =
        "{\"type\":\"__zq_hello__\",\"v\":2,\"epoch\":\"00000001\",\"max\":256,"
        "\"feat\":[\"chunk\"]}";
    brk_hello_write(writer(), &h);
    assert_string_equal(written(), text);
    assert_int_equal(brk_hello_read(parse(text), &back), ZQ_OK);
    assert_hellos_equal(&back, &h);
}

static void hello_unknown_features_are_ignored(void **state)
{
    (void)state;
    brk_hello_t h;
    assert_int_equal(brk_hello_read(parse(HELLO_HEAD HELLO_OK_V_EPOCH_MAX
                                          "\"feat\":[\"teleport\",\"rpc\",\"\",\"SUB\"]}"),
                                    &h),
                     ZQ_OK);
    assert_int_equal(h.features, BRK_FEAT_RPC);
}

static void hello_keeps_the_first_resume_points_and_checks_the_rest(void **state)
{
    (void)state;
    static char text[2048];
    size_t n = (size_t)snprintf(text, sizeof text, "%s", HELLO_HEAD HELLO_OK_V_EPOCH_MAX
                                                         "\"feat\":[],\"resume\":[");
    for (unsigned i = 0; i < BRK_HELLO_MAX_RESUME + 3; i++) {
        n += (size_t)snprintf(text + n, sizeof text - n,
                              "%s{\"fp\":\"%016X\",\"epoch\":\"%08x\",\"seq\":%u}", i ? "," : "",
                              i + 1, i + 100, i);
    }
    snprintf(text + n, sizeof text - n, "]}");
    brk_hello_t h;
    assert_int_equal(brk_hello_read(parse(text), &h), ZQ_OK);
    assert_int_equal(h.n_resume, BRK_HELLO_MAX_RESUME);
    for (unsigned i = 0; i < BRK_HELLO_MAX_RESUME; i++) {
        assert_int_equal(h.resume[i].fp[7], i + 1);
        assert_int_equal(h.resume[i].epoch, i + 100);
        assert_int_equal(h.resume[i].seq, i);
    }
    /* A malformed entry past the table still refuses the frame. */
    memcpy(strstr(text, "\"seq\":10}") + 6, "-1", 2);
    assert_int_equal(brk_hello_read(parse(text), &h), ZQ_ERR_MALFORMED);
}

/* ---- sub (PROTOCOL.md §3) ------------------------------------------------------------------ */

static void sub_round_trips(void **state)
{
    (void)state;
    static const char text[] = "{\"type\":\"__zq_sub__\",\"topics\":[\"news.#\",\"sensors.+.temp\","
                               "\"status\"],\"services\":[\"rpc.getUser\"]}";
    const char *const topics[] = {"news.#", "sensors.+.temp", "status"};
    const char *const services[] = {"rpc.getUser"};
    brk_sub_write(writer(), topics, 3, services, 1);
    assert_string_equal(written(), text);
    brk_sub_t s;
    assert_int_equal(brk_frame_type(parse(text)), BRK_FRAME_SUB);
    assert_int_equal(brk_sub_read(parse(text), &s), ZQ_OK);
    assert_int_equal(s.n_topics, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_true(json_string_equals(s.topics[i], topics[i]));
    }
    assert_int_equal(s.n_services, 1);
    assert_true(json_string_equals(s.services[0], "rpc.getUser"));
    assert_false(s.too_many);
}

static void sub_arrays_are_optional(void **state)
{
    (void)state;
    brk_sub_write(writer(), NULL, 0, NULL, 0);
    assert_string_equal(written(), "{\"type\":\"__zq_sub__\",\"topics\":[],\"services\":[]}");
    brk_sub_t s;
    assert_int_equal(brk_sub_read(parse("{\"type\":\"__zq_sub__\"}"), &s), ZQ_OK);
    assert_int_equal(s.n_topics, 0);
    assert_int_equal(s.n_services, 0);
    assert_false(s.too_many);
}

static void sub_with_too_many_items_keeps_the_first_and_says_so(void **state)
{
    (void)state;
    static char names[BRK_SUB_MAX_ITEMS + 1][8];
    const char *topics[BRK_SUB_MAX_ITEMS + 1];
    for (size_t i = 0; i <= BRK_SUB_MAX_ITEMS; i++) {
        snprintf(names[i], sizeof names[i], "t%zu", i);
        topics[i] = names[i];
    }
    const char *const services[] = {"s"};
    brk_sub_write(writer(), topics, BRK_SUB_MAX_ITEMS + 1, services, 1);
    brk_sub_t s;
    assert_int_equal(brk_sub_read(parse(written()), &s), ZQ_OK);
    assert_true(s.too_many);
    assert_int_equal(s.n_topics, BRK_SUB_MAX_ITEMS);
    for (size_t i = 0; i < BRK_SUB_MAX_ITEMS; i++) {
        assert_true(json_string_equals(s.topics[i], names[i]));
    }
    assert_int_equal(s.n_services, 1);
    /* Exactly the maximum is not too many. */
    brk_sub_write(writer(), services, 0, topics, BRK_SUB_MAX_ITEMS);
    assert_int_equal(brk_sub_read(parse(written()), &s), ZQ_OK);
    assert_false(s.too_many);
    assert_int_equal(s.n_services, BRK_SUB_MAX_ITEMS);
}

static void sub_non_string_past_the_maximum_is_still_malformed(void **state)
{
    (void)state;
    static char text[1024];
    size_t n = (size_t)snprintf(text, sizeof text, "{\"type\":\"__zq_sub__\",\"topics\":[");
    for (size_t i = 0; i <= BRK_SUB_MAX_ITEMS; i++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "\"t%zu\",", i);
    }
    snprintf(text + n, sizeof text - n, "7]}");
    brk_sub_t s;
    assert_int_equal(brk_sub_read(parse(text), &s), ZQ_ERR_MALFORMED);
}

/* ---- ack, lost (PROTOCOL.md §5, §7) -------------------------------------------------------- */

static void ack_round_trips(void **state)
{
    (void)state;
    static const char text[] = "{\"type\":\"__zq_ack__\",\"ep\":\"0c77e1d2\",\"upto\":1042}";
    brk_ack_t a = {.epoch = 0x0c77e1d2u, .upto = 1042};
    brk_ack_t back;
    brk_ack_write(writer(), &a);
    assert_string_equal(written(), text);
    assert_int_equal(brk_frame_type(parse(text)), BRK_FRAME_ACK);
    assert_int_equal(brk_ack_read(parse(text), &back), ZQ_OK);
    assert_int_equal(back.epoch, a.epoch);
    assert_int_equal(back.upto, a.upto);
}

static void ack_upto_goes_up_to_2_pow_53(void **state)
{
    (void)state;
    brk_ack_t a;
    assert_int_equal(
        brk_ack_read(parse("{\"ep\":\"FFFFFFFF\",\"upto\":9007199254740992}"), &a), ZQ_OK);
    assert_int_equal(a.upto, (uint64_t)1 << 53);
    assert_int_equal(a.epoch, UINT32_MAX);
}

static void lost_round_trips(void **state)
{
    (void)state;
    static const char text[] =
        "{\"type\":\"__zq_lost__\",\"ep\":\"0c77e1d2\",\"from\":977,\"to\":1003}";
    brk_lost_t l = {.epoch = 0x0c77e1d2u, .from = 977, .to = 1003};
    brk_lost_t back;
    brk_lost_write(writer(), &l);
    assert_string_equal(written(), text);
    assert_int_equal(brk_frame_type(parse(text)), BRK_FRAME_LOST);
    assert_int_equal(brk_lost_read(parse(text), &back), ZQ_OK);
    assert_int_equal(back.epoch, l.epoch);
    assert_int_equal(back.from, 977);
    assert_int_equal(back.to, 1003);
}

static void lost_range_of_one_is_allowed(void **state)
{
    (void)state;
    brk_lost_t l;
    assert_int_equal(brk_lost_read(parse("{\"ep\":\"00000000\",\"from\":5,\"to\":5}"), &l), ZQ_OK);
    assert_int_equal(l.from, 5);
    assert_int_equal(l.to, 5);
}

/* ---- ready, done, dlq, rep (PROTOCOL.md §6) ------------------------------------------------ */

static void ready_round_trips(void **state)
{
    (void)state;
    static const char text[] = "{\"type\":\"__zq_ready__\",\"queue\":\"jobs\",\"credit\":4}";
    brk_ready_t r;
    brk_ready_write(writer(), "jobs", 4, 4);
    assert_string_equal(written(), text);
    assert_int_equal(brk_frame_type(parse(text)), BRK_FRAME_READY);
    assert_int_equal(brk_ready_read(parse(text), &r), ZQ_OK);
    assert_span(r.queue, "\"jobs\"");
    assert_int_equal(r.credit, 4);
}

static void ready_credit_zero_stops_a_consumer(void **state)
{
    (void)state;
    brk_ready_t r;
    brk_ready_write(writer(), "q", 1, 0);
    assert_int_equal(brk_ready_read(parse(written()), &r), ZQ_OK);
    assert_int_equal(r.credit, 0);
    brk_ready_write(writer(), "q", 1, UINT32_MAX);
    assert_int_equal(brk_ready_read(parse(written()), &r), ZQ_OK);
    assert_int_equal(r.credit, UINT32_MAX);
}

static void done_round_trips_ack_nack_and_busy(void **state)
{
    (void)state;
    brk_done_t d;
    brk_done_write(writer(), "j-41", 4, BRK_DONE_OK);
    assert_string_equal(written(), "{\"type\":\"__zq_done__\",\"id\":\"j-41\",\"ok\":true}");
    assert_int_equal(brk_frame_type(parse(out)), BRK_FRAME_DONE);
    assert_int_equal(brk_done_read(parse(out), &d), ZQ_OK);
    assert_span(d.id, "\"j-41\"");
    assert_true(d.ok);
    assert_false(d.busy);
    brk_done_write(writer(), "j-41", 4, BRK_DONE_FAILED);
    assert_string_equal(written(), "{\"type\":\"__zq_done__\",\"id\":\"j-41\",\"ok\":false}");
    assert_int_equal(brk_done_read(parse(out), &d), ZQ_OK);
    assert_false(d.ok);
    assert_false(d.busy);
    brk_done_write(writer(), "j-41", 4, BRK_DONE_BUSY);
    assert_string_equal(written(),
                        "{\"type\":\"__zq_done__\",\"id\":\"j-41\",\"ok\":false,\"busy\":true}");
    assert_int_equal(brk_done_read(parse(out), &d), ZQ_OK);
    assert_false(d.ok);
    assert_true(d.busy);
}

static void dlq_round_trips_every_op(void **state)
{
    (void)state;
    static const struct {
        brk_dlq_op_t op;
        const char *text;
    } ops[] = {
        {BRK_DLQ_LIST, "{\"type\":\"__zq_dlq__\",\"queue\":\"jobs\",\"op\":\"list\"}"},
        {BRK_DLQ_REQUEUE, "{\"type\":\"__zq_dlq__\",\"queue\":\"jobs\",\"op\":\"requeue\"}"},
        {BRK_DLQ_PURGE, "{\"type\":\"__zq_dlq__\",\"queue\":\"jobs\",\"op\":\"purge\"}"},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        brk_dlq_t d;
        brk_dlq_write(writer(), "jobs", 4, ops[i].op);
        assert_string_equal(written(), ops[i].text);
        assert_int_equal(brk_frame_type(parse(ops[i].text)), BRK_FRAME_DLQ);
        assert_int_equal(brk_dlq_read(parse(ops[i].text), &d), ZQ_OK);
        assert_span(d.queue, "\"jobs\"");
        assert_int_equal(d.op, ops[i].op);
    }
}

static void dlq_jobs_round_trips(void **state)
{
    (void)state;
    static const char text[] =
        "{\"type\":\"__zq_dlq_jobs__\",\"queue\":\"jobs\",\"jobs\":[{\"id\":\"j-1\",\"payload\":"
        "{\"url\":\"x\"},\"retryCount\":3},{\"id\":\"j-2\",\"retryCount\":4}],\"more\":true}";
    json_writer_t *wr = writer();
    brk_dlq_jobs_begin(wr, "jobs", 4);
    brk_dlq_jobs_item(wr, "j-1", 3, lit("{\"url\":\"x\"}"), 3);
    brk_dlq_jobs_item(wr, "j-2", 3, (json_value_t){NULL, 0}, 4);
    brk_dlq_jobs_end(wr, true);
    assert_string_equal(written(), text);

    brk_dlq_jobs_t d;
    assert_int_equal(brk_frame_type(parse(text)), BRK_FRAME_DLQ_JOBS);
    assert_int_equal(brk_dlq_jobs_read(parse(text), &d), ZQ_OK);
    assert_span(d.queue, "\"jobs\"");
    assert_true(d.more);
    json_iter_t it;
    json_value_t item;
    brk_dlq_job_t j;
    json_iter_init(&it, d.jobs);
    assert_true(json_iter_next(&it, NULL, &item));
    assert_int_equal(brk_dlq_job_read(item, &j), ZQ_OK);
    assert_span(j.id, "\"j-1\"");
    assert_span(j.payload, "{\"url\":\"x\"}");
    assert_int_equal(j.retry_count, 3);
    assert_true(json_iter_next(&it, NULL, &item));
    assert_int_equal(brk_dlq_job_read(item, &j), ZQ_OK);
    assert_span(j.id, "\"j-2\"");
    assert_int_equal(j.payload.len, 0);
    assert_int_equal(j.retry_count, 4);
    assert_false(json_iter_next(&it, NULL, &item));
}

static void dlq_jobs_may_be_empty(void **state)
{
    (void)state;
    json_writer_t *wr = writer();
    brk_dlq_jobs_begin(wr, "jobs", 4);
    brk_dlq_jobs_end(wr, false);
    assert_string_equal(written(), "{\"type\":\"__zq_dlq_jobs__\",\"queue\":\"jobs\","
                                   "\"jobs\":[],\"more\":false}");
    brk_dlq_jobs_t d;
    assert_int_equal(brk_dlq_jobs_read(parse(out), &d), ZQ_OK);
    assert_span(d.jobs, "[]");
    assert_false(d.more);
}

static void rep_round_trips(void **state)
{
    (void)state;
    static const char text[] =
        "{\"type\":\"__zq_rep__\",\"corr\":\"c-7d1e\",\"payload\":{\"user\":{}},\"ok\":true}";
    brk_rep_t r = {.corr = lit("\"c-7d1e\""), .payload = lit("{\"user\":{}}"), .ok = true};
    brk_rep_t back;
    brk_rep_write(writer(), &r);
    assert_string_equal(written(), text);
    assert_int_equal(brk_frame_type(parse(text)), BRK_FRAME_REP);
    assert_int_equal(brk_rep_read(parse(text), &back), ZQ_OK);
    assert_span(back.corr, "\"c-7d1e\"");
    assert_span(back.payload, "{\"user\":{}}");
    assert_true(back.ok);
    assert_int_equal(back.error.len, 0);
}

static void rep_refusal_carries_its_error(void **state)
{
    (void)state;
    static const char text[] =
        "{\"type\":\"__zq_rep__\",\"corr\":\"c-7d1e\",\"ok\":false,\"error\":\"no such user\"}";
    brk_rep_t r = {.corr = lit("\"c-7d1e\""), .ok = false, .error = lit("\"no such user\"")};
    brk_rep_t back;
    brk_rep_write(writer(), &r);
    assert_string_equal(written(), text);
    assert_int_equal(brk_rep_read(parse(text), &back), ZQ_OK);
    assert_false(back.ok);
    assert_int_equal(back.payload.len, 0);
    assert_span(back.error, "\"no such user\"");
}

static void rep_without_ok_is_an_answer(void **state)
{
    (void)state;
    brk_rep_t r;
    assert_int_equal(brk_rep_read(parse("{\"type\":\"__zq_rep__\",\"corr\":\"c\"}"), &r), ZQ_OK);
    assert_true(r.ok);
    assert_int_equal(r.payload.len, 0);
}

/* ---- Writers that refuse their arguments, and writers out of room -------------------------- */

static void writers_refuse_frames_their_readers_refuse(void **state)
{
    (void)state;
    brk_ready_write(writer(), "", 0, 1);
    assert_write_fails();
    brk_done_write(writer(), "", 0, BRK_DONE_OK);
    assert_write_fails();
    brk_dlq_write(writer(), "", 0, BRK_DLQ_LIST);
    assert_write_fails();
    brk_dlq_write(writer(), "q", 1, (brk_dlq_op_t)3);
    assert_write_fails();
    brk_rep_t r = {.corr = lit("\"\""), .ok = true};
    brk_rep_write(writer(), &r);
    assert_write_fails();
    r.corr = lit("\"c\"");
    r.error = lit("17");
    brk_rep_write(writer(), &r);
    assert_write_fails();
    json_writer_t *wr = writer();
    brk_dlq_jobs_begin(wr, "q", 1);
    brk_dlq_jobs_item(wr, "", 0, lit("1"), 3);
    brk_dlq_jobs_end(wr, false);
    assert_write_fails();
}

static void write_envelope(json_writer_t *wr)
{
    brk_envelope_t e = {
        .id = lit("\"j-1\""), .topic = lit("\"jobs\""), .payload = lit("{\"url\":\"x\"}"),
        .has_payload = true, .timestamp = 1754040000000, .seq = 3, .retry_count = 1,
        .has_priority = true, .priority = 1, .kind = BRK_KIND_JOB, .has_epoch = true,
        .epoch = 7, .qos = 1, .lvc = true, .lease_ms = 30000,
    };
    brk_envelope_write(wr, &e);
}

static void write_hello(json_writer_t *wr)
{
    brk_hello_t h = {.version = 1, .epoch = 9, .max_frame = 65536, .features = 63,
                     .resume = {{.fp = {1, 2, 3, 4, 5, 6, 7, 8}, .epoch = 3, .seq = 4}},
                     .n_resume = 1};
    brk_hello_write(wr, &h);
}

static void write_sub(json_writer_t *wr)
{
    const char *const topics[] = {"a.#", "b"};
    const char *const services[] = {"rpc.x"};
    brk_sub_write(wr, topics, 2, services, 1);
}

static void write_ack(json_writer_t *wr)
{
    brk_ack_write(wr, &(brk_ack_t){.epoch = 1, .upto = 2});
}

static void write_lost(json_writer_t *wr)
{
    brk_lost_write(wr, &(brk_lost_t){.epoch = 1, .from = 2, .to = 3});
}

static void write_ready(json_writer_t *wr)
{
    brk_ready_write(wr, "jobs", 4, 4);
}

static void write_done(json_writer_t *wr)
{
    brk_done_write(wr, "j-1", 3, BRK_DONE_OK);
}

static void write_dlq(json_writer_t *wr)
{
    brk_dlq_write(wr, "jobs", 4, BRK_DLQ_REQUEUE);
}

static void write_dlq_jobs(json_writer_t *wr)
{
    brk_dlq_jobs_begin(wr, "jobs", 4);
    brk_dlq_jobs_item(wr, "j-1", 3, lit("[1]"), 3);
    brk_dlq_jobs_end(wr, false);
}

static void write_rep(json_writer_t *wr)
{
    brk_rep_t r = {.corr = lit("\"c\""), .payload = lit("1"), .ok = false, .error = lit("\"e\"")};
    brk_rep_write(wr, &r);
}

static void write_ping(json_writer_t *wr)
{
    brk_ping_write(wr);
}

static void write_pong(json_writer_t *wr)
{
    brk_pong_write(wr);
}

#define GUARD 16

/* Every buffer shorter than the frame: json_finish() says 0 and not a byte lands past the
 * buffer (0xA5 guard bytes, as coreMQTT's tests do). */
static void writers_out_of_room_fail_and_stay_in_their_buffer(void **state)
{
    (void)state;
    static void (*const writers[])(json_writer_t *) = {
        write_envelope, write_hello, write_sub,      write_ack, write_lost,
        write_ready,    write_done,  write_dlq,      write_dlq_jobs, write_rep,
        write_ping,     write_pong,
    };
    static uint8_t buf[512 + GUARD];
    for (size_t k = 0; k < sizeof writers / sizeof writers[0]; k++) {
        json_writer_t wr;
        json_writer_init(&wr, buf, 512);
        writers[k](&wr);
        size_t full = json_finish(&wr);
        assert_true(full > 0);
        for (size_t cap = 0; cap < full; cap++) {
            memset(buf, 0xA5, sizeof buf);
            json_writer_init(&wr, buf, cap);
            writers[k](&wr);
            assert_int_equal(json_finish(&wr), 0);
            assert_int_equal(json_writer_error(&wr), ZQ_ERR_NO_SPACE);
            for (size_t i = cap; i < sizeof buf; i++) {
                if (buf[i] != 0xA5) {
                    fail_msg("writer %zu, cap %zu: byte %zu overwritten", k, cap, i);
                }
            }
        }
    }
}

/* ---- brk_frame_type ------------------------------------------------------------------------ */

static void frame_type_names_every_frame(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        brk_frame_type_t type;
    } cases[] = {
        {"{\"id\":\"a\",\"topic\":\"t\"}", BRK_FRAME_ENVELOPE},
        {"{}", BRK_FRAME_ENVELOPE},
        {"{\"type\":\"__ping__\"}", BRK_FRAME_PING},
        {"{\"type\":\"__pong__\"}", BRK_FRAME_PONG},
        {"{\"type\":\"__gossip__\",\"peers\":[]}", BRK_FRAME_GOSSIP},
        {"{\"type\":\"__zq_hello__\"}", BRK_FRAME_HELLO},
        {"{\"type\":\"__zq_sub__\"}", BRK_FRAME_SUB},
        {"{\"type\":\"__zq_ack__\"}", BRK_FRAME_ACK},
        {"{\"type\":\"__zq_ready__\"}", BRK_FRAME_READY},
        {"{\"type\":\"__zq_done__\"}", BRK_FRAME_DONE},
        {"{\"type\":\"__zq_dlq__\"}", BRK_FRAME_DLQ},
        {"{\"type\":\"__zq_dlq_jobs__\"}", BRK_FRAME_DLQ_JOBS},
        {"{\"type\":\"__zq_rep__\"}", BRK_FRAME_REP},
        {"{\"type\":\"__zq_lost__\"}", BRK_FRAME_LOST},
        {"{\"id\":\"a\",\"type\":\"\\u005f_ping__\"}", BRK_FRAME_PING}, /* the value counts */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (brk_frame_type(parse(cases[i].text)) != cases[i].type) {
            fail_msg("misclassified: %s", cases[i].text);
        }
    }
}

/* Any "type" makes a control frame (ZeroQ's dispatch): one zq does not know is UNKNOWN, never
 * an envelope, even with an id and a topic. */
static void frame_type_unknown_for_any_other_type(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "{\"type\":\"__zq_future__\"}",
        "{\"type\":\"__PING__\"}",
        "{\"type\":\"\"}",
        "{\"type\":\"__ping__ \"}",
        "{\"type\":5,\"id\":\"a\",\"topic\":\"t\"}",
        "{\"type\":null}",
        "{\"type\":[\"__ping__\"]}",
        "{\"type\":\"offer\",\"id\":\"a\",\"topic\":\"t\"}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        if (brk_frame_type(parse(texts[i])) != BRK_FRAME_UNKNOWN) {
            fail_msg("not unknown: %s", texts[i]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(zeroq_publish_is_read_field_by_field),
        cmocka_unit_test(zeroq_queue_message_keeps_its_priority),
        cmocka_unit_test(zeroq_nack_resend_counts_one_retry),
        cmocka_unit_test(zeroq_rpc_request_gives_payload_reply_to),
        cmocka_unit_test(zeroq_rpc_reply_is_a_message_on_the_reply_topic),
        cmocka_unit_test(envelope_without_payload_is_a_message),
        cmocka_unit_test(envelope_topic_may_be_empty),
        cmocka_unit_test(envelope_payload_may_be_any_value),
        cmocka_unit_test(envelope_reply_to_needs_a_non_empty_string_in_an_object_payload),
        cmocka_unit_test(envelope_unknown_members_are_ignored),
        cmocka_unit_test(retry_count_missing_negative_or_not_finite_reads_as_zero),
        cmocka_unit_test(retry_count_not_a_number_reads_as_zero),
        cmocka_unit_test(retry_count_fraction_is_floored),
        cmocka_unit_test(retry_count_beyond_uint32_is_held_at_uint32_max),
        cmocka_unit_test(timestamp_not_a_whole_int64_reads_as_zero),
        cmocka_unit_test(seq_without_epoch_reads_as_zero_unless_whole),
        cmocka_unit_test(seq_with_epoch_goes_up_to_2_pow_53),
        cmocka_unit_test(priority_not_whole_is_ignored),
        cmocka_unit_test(epoch_takes_either_case_and_escapes),
        cmocka_unit_test(lvc_is_one_or_true),
        cmocka_unit_test(job_without_lease_leaves_it_to_the_broker),
        cmocka_unit_test(request_without_timeout_leaves_it_to_the_broker),
        cmocka_unit_test(members_of_another_kind_are_ignored),
        cmocka_unit_test(envelope_refusals),
        cmocka_unit_test(hello_refusals),
        cmocka_unit_test(sub_refusals),
        cmocka_unit_test(ack_refusals),
        cmocka_unit_test(lost_refusals),
        cmocka_unit_test(ready_refusals),
        cmocka_unit_test(done_refusals),
        cmocka_unit_test(dlq_refusals),
        cmocka_unit_test(dlq_jobs_refusals),
        cmocka_unit_test(dlq_job_refusals),
        cmocka_unit_test(rep_refusals),
        cmocka_unit_test(qos1_message_round_trips),
        cmocka_unit_test(last_value_round_trips),
        cmocka_unit_test(job_round_trips),
        cmocka_unit_test(request_round_trips),
        cmocka_unit_test(envelope_writes_members_in_the_documented_order),
        cmocka_unit_test(envelope_writer_refuses_what_the_reader_refuses),
        cmocka_unit_test(ping_and_pong_are_written_as_zeroq_does),
        cmocka_unit_test(gossip_counts_its_string_ids),
        cmocka_unit_test(gossip_with_non_array_peers_counts_as_empty),
        cmocka_unit_test(hello_round_trips),
        cmocka_unit_test(hello_without_resume_points_omits_resume),
        cmocka_unit_test(hello_unknown_features_are_ignored),
        cmocka_unit_test(hello_keeps_the_first_resume_points_and_checks_the_rest),
        cmocka_unit_test(sub_round_trips),
        cmocka_unit_test(sub_arrays_are_optional),
        cmocka_unit_test(sub_with_too_many_items_keeps_the_first_and_says_so),
        cmocka_unit_test(sub_non_string_past_the_maximum_is_still_malformed),
        cmocka_unit_test(ack_round_trips),
        cmocka_unit_test(ack_upto_goes_up_to_2_pow_53),
        cmocka_unit_test(lost_round_trips),
        cmocka_unit_test(lost_range_of_one_is_allowed),
        cmocka_unit_test(ready_round_trips),
        cmocka_unit_test(ready_credit_zero_stops_a_consumer),
        cmocka_unit_test(done_round_trips_ack_nack_and_busy),
        cmocka_unit_test(dlq_round_trips_every_op),
        cmocka_unit_test(dlq_jobs_round_trips),
        cmocka_unit_test(dlq_jobs_may_be_empty),
        cmocka_unit_test(rep_round_trips),
        cmocka_unit_test(rep_refusal_carries_its_error),
        cmocka_unit_test(rep_without_ok_is_an_answer),
        cmocka_unit_test(writers_refuse_frames_their_readers_refuse),
        cmocka_unit_test(writers_out_of_room_fail_and_stay_in_their_buffer),
        cmocka_unit_test(frame_type_names_every_frame),
        cmocka_unit_test(frame_type_unknown_for_any_other_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

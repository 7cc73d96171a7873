/* The broker's frame codecs (broker/frame.h).
 *
 * The input is parsed as JSON; an object is classified and then given to every reader (readers
 * do not look at "type", so each one is fuzzed on every object). Whenever a reader accepts it,
 * the frame is written back, the text parsed and read again, and every field compared: what a
 * reader accepts, its writer must write, and the writer's text must read back the same. A
 * second write must give the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "broker/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Inputs beyond this are skipped, so that the buffers below always suffice: a written frame
 * is its read spans plus a bounded number of members. */
#define MAX_INPUT 65536

static char text[4 * MAX_INPUT + 4096];
static char again[sizeof text];
static char name[MAX_INPUT + 1];
static char name2[MAX_INPUT + 1];

static void check(bool ok)
{
    if (!ok) {
        abort();
    }
}

static bool same_span(json_value_t a, json_value_t b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.p, b.p, a.len) == 0);
}

/* The unescaped value of a string the reader accepted; it always fits. */
static size_t unescape(json_value_t v, char *out)
{
    size_t len = 0;
    check(json_get_string(v, out, MAX_INPUT + 1, &len) == ZQ_OK);
    return len;
}

/* Finishes a write into text[] and parses it back as an object of the expected type. */
static json_value_t reparse(json_writer_t *w, brk_frame_type_t type)
{
    json_value_t doc;
    size_t n = json_finish(w);
    check(n > 0);
    check(json_parse(text, n, &doc) == ZQ_OK && json_type(doc) == JSON_OBJECT);
    check(brk_frame_type(doc) == type);
    return doc;
}

static json_writer_t *start(char *buf)
{
    static json_writer_t w;
    json_writer_init(&w, buf, sizeof text);
    return &w;
}

/* ---- envelope ----------------------------------------------------------------------------- */

static bool same_envelope(const brk_envelope_t *a, const brk_envelope_t *b)
{
    return same_span(a->id, b->id) && same_span(a->topic, b->topic) &&
           a->has_payload == b->has_payload && same_span(a->payload, b->payload) &&
           a->timestamp == b->timestamp && a->seq == b->seq && a->retry_count == b->retry_count &&
           a->has_priority == b->has_priority && a->priority == b->priority &&
           a->kind == b->kind && a->has_epoch == b->has_epoch && a->epoch == b->epoch &&
           a->qos == b->qos && a->lvc == b->lvc && a->lease_ms == b->lease_ms &&
           same_span(a->corr, b->corr) && a->timeout_ms == b->timeout_ms &&
           same_span(a->reply_to, b->reply_to);
}

static void fuzz_envelope(json_value_t doc)
{
    brk_envelope_t e;
    brk_envelope_t back;
    if (brk_envelope_read(doc, &e) != ZQ_OK) {
        return;
    }
    json_writer_t *w = start(text);
    brk_envelope_write(w, &e);
    check(brk_envelope_read(reparse(w, BRK_FRAME_ENVELOPE), &back) == ZQ_OK);
    check(same_envelope(&e, &back));
    size_t n = json_finish(w);
    json_writer_t *w2 = start(again);
    brk_envelope_write(w2, &back);
    check(json_finish(w2) == n && memcmp(text, again, n) == 0);
}

/* ---- hello, sub ---------------------------------------------------------------------------- */

static bool same_hello(const brk_hello_t *a, const brk_hello_t *b)
{
    if (a->version != b->version || a->epoch != b->epoch || a->max_frame != b->max_frame ||
        a->features != b->features || a->n_resume != b->n_resume) {
        return false;
    }
    for (size_t i = 0; i < a->n_resume; i++) {
        if (memcmp(a->resume[i].fp, b->resume[i].fp, sizeof a->resume[i].fp) != 0 ||
            a->resume[i].epoch != b->resume[i].epoch || a->resume[i].seq != b->resume[i].seq) {
            return false;
        }
    }
    return true;
}

static void fuzz_hello(json_value_t doc)
{
    brk_hello_t h;
    brk_hello_t back;
    if (brk_hello_read(doc, &h) != ZQ_OK) {
        return;
    }
    check(h.version >= 1 && h.max_frame >= 256 && h.n_resume <= BRK_HELLO_MAX_RESUME);
    json_writer_t *w = start(text);
    brk_hello_write(w, &h);
    check(brk_hello_read(reparse(w, BRK_FRAME_HELLO), &back) == ZQ_OK);
    check(same_hello(&h, &back));
}

/* The sub writer takes NUL-terminated names, so they are unescaped into one pool; a name with
 * a NUL in it cannot be written and skips the round trip. */
static bool gather_names(const json_value_t *items, size_t n, const char **names, char **pool,
                         char *end)
{
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        check(json_get_string(items[i], *pool, (size_t)(end - *pool), &len) == ZQ_OK);
        if (strlen(*pool) != len) {
            return false;
        }
        names[i] = *pool;
        *pool += len + 1;
    }
    return true;
}

static bool same_names(const json_value_t *items, size_t n, const char *const *names)
{
    for (size_t i = 0; i < n; i++) {
        if (!json_string_equals(items[i], names[i])) {
            return false;
        }
    }
    return true;
}

static void fuzz_sub(json_value_t doc)
{
    static brk_sub_t s;
    static brk_sub_t back;
    static char pool[2 * MAX_INPUT + 2 * BRK_SUB_MAX_ITEMS];
    const char *topics[BRK_SUB_MAX_ITEMS];
    const char *services[BRK_SUB_MAX_ITEMS];
    char *p = pool;
    if (brk_sub_read(doc, &s) != ZQ_OK) {
        return;
    }
    check(s.n_topics <= BRK_SUB_MAX_ITEMS && s.n_services <= BRK_SUB_MAX_ITEMS);
    if (!gather_names(s.topics, s.n_topics, topics, &p, pool + sizeof pool) ||
        !gather_names(s.services, s.n_services, services, &p, pool + sizeof pool)) {
        return;
    }
    json_writer_t *w = start(text);
    brk_sub_write(w, topics, s.n_topics, services, s.n_services);
    check(brk_sub_read(reparse(w, BRK_FRAME_SUB), &back) == ZQ_OK);
    check(!back.too_many && back.n_topics == s.n_topics && back.n_services == s.n_services);
    check(same_names(back.topics, back.n_topics, topics));
    check(same_names(back.services, back.n_services, services));
}

/* ---- ack, lost, ready, done, dlq ----------------------------------------------------------- */

static void fuzz_ack(json_value_t doc)
{
    brk_ack_t a;
    brk_ack_t back;
    if (brk_ack_read(doc, &a) != ZQ_OK) {
        return;
    }
    json_writer_t *w = start(text);
    brk_ack_write(w, &a);
    check(brk_ack_read(reparse(w, BRK_FRAME_ACK), &back) == ZQ_OK);
    check(a.epoch == back.epoch && a.upto == back.upto);
}

static void fuzz_lost(json_value_t doc)
{
    brk_lost_t l;
    brk_lost_t back;
    if (brk_lost_read(doc, &l) != ZQ_OK) {
        return;
    }
    check(l.from <= l.to);
    json_writer_t *w = start(text);
    brk_lost_write(w, &l);
    check(brk_lost_read(reparse(w, BRK_FRAME_LOST), &back) == ZQ_OK);
    check(l.epoch == back.epoch && l.from == back.from && l.to == back.to);
}

static void fuzz_ready(json_value_t doc)
{
    brk_ready_t r;
    brk_ready_t back;
    if (brk_ready_read(doc, &r) != ZQ_OK) {
        return;
    }
    size_t len = unescape(r.queue, name);
    json_writer_t *w = start(text);
    brk_ready_write(w, name, len, r.credit);
    check(brk_ready_read(reparse(w, BRK_FRAME_READY), &back) == ZQ_OK);
    check(json_string_equals_n(back.queue, name, len) && back.credit == r.credit);
}

static void fuzz_done(json_value_t doc)
{
    brk_done_t d;
    brk_done_t back;
    if (brk_done_read(doc, &d) != ZQ_OK) {
        return;
    }
    size_t len = unescape(d.id, name);
    json_writer_t *w = start(text);
    brk_done_write(w, name, len,
                   d.ok ? BRK_DONE_OK : d.busy ? BRK_DONE_BUSY : BRK_DONE_FAILED);
    check(brk_done_read(reparse(w, BRK_FRAME_DONE), &back) == ZQ_OK);
    check(json_string_equals_n(back.id, name, len) && back.ok == d.ok && back.busy == d.busy);
}

static void fuzz_dlq(json_value_t doc)
{
    brk_dlq_t d;
    brk_dlq_t back;
    if (brk_dlq_read(doc, &d) != ZQ_OK) {
        return;
    }
    size_t len = unescape(d.queue, name);
    json_writer_t *w = start(text);
    brk_dlq_write(w, name, len, d.op);
    check(brk_dlq_read(reparse(w, BRK_FRAME_DLQ), &back) == ZQ_OK);
    check(json_string_equals_n(back.queue, name, len) && back.op == d.op);
}

/* ---- dlq_jobs: jobs are streamed from the read list to the writer, then compared pairwise -- */

static bool write_jobs(json_writer_t *w, json_value_t jobs)
{
    json_iter_t it;
    json_value_t item;
    brk_dlq_job_t j;
    json_iter_init(&it, jobs);
    while (json_iter_next(&it, NULL, &item)) {
        if (brk_dlq_job_read(item, &j) != ZQ_OK) {
            return false; /* a list zq would not write: nothing to round-trip */
        }
        size_t len = unescape(j.id, name);
        brk_dlq_jobs_item(w, name, len, j.payload, j.retry_count);
    }
    return true;
}

static void compare_jobs(json_value_t jobs, json_value_t back)
{
    json_iter_t a;
    json_iter_t b;
    json_value_t ia;
    json_value_t ib;
    brk_dlq_job_t ja;
    brk_dlq_job_t jb;
    json_iter_init(&a, jobs);
    json_iter_init(&b, back);
    while (json_iter_next(&a, NULL, &ia)) {
        check(json_iter_next(&b, NULL, &ib));
        check(brk_dlq_job_read(ia, &ja) == ZQ_OK && brk_dlq_job_read(ib, &jb) == ZQ_OK);
        size_t la = unescape(ja.id, name);
        size_t lb = unescape(jb.id, name2);
        check(la == lb && memcmp(name, name2, la) == 0);
        check(same_span(ja.payload, jb.payload) && ja.retry_count == jb.retry_count);
    }
    check(!json_iter_next(&b, NULL, &ib));
}

static void fuzz_dlq_jobs(json_value_t doc)
{
    brk_dlq_jobs_t d;
    brk_dlq_jobs_t back;
    if (brk_dlq_jobs_read(doc, &d) != ZQ_OK) {
        return;
    }
    check(json_type(d.jobs) == JSON_ARRAY);
    static char queue[MAX_INPUT + 1];
    size_t len = 0;
    check(json_get_string(d.queue, queue, sizeof queue, &len) == ZQ_OK);
    json_writer_t *w = start(text);
    brk_dlq_jobs_begin(w, queue, len);
    if (!write_jobs(w, d.jobs)) {
        return;
    }
    brk_dlq_jobs_end(w, d.more);
    check(brk_dlq_jobs_read(reparse(w, BRK_FRAME_DLQ_JOBS), &back) == ZQ_OK);
    check(json_string_equals_n(back.queue, queue, len) && back.more == d.more);
    compare_jobs(d.jobs, back.jobs);
}

/* ---- rep --------------------------------------------------------------------------------- */

static void fuzz_rep(json_value_t doc)
{
    brk_rep_t r;
    brk_rep_t back;
    if (brk_rep_read(doc, &r) != ZQ_OK) {
        return;
    }
    json_writer_t *w = start(text);
    brk_rep_write(w, &r);
    check(brk_rep_read(reparse(w, BRK_FRAME_REP), &back) == ZQ_OK);
    check(same_span(r.corr, back.corr) && same_span(r.payload, back.payload) &&
          r.ok == back.ok && same_span(r.error, back.error));
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_value_t doc;
    if (size > MAX_INPUT) {
        return 0;
    }
    if (json_parse((const char *)data, size, &doc) != ZQ_OK || json_type(doc) != JSON_OBJECT) {
        return 0;
    }
    brk_frame_type_t type = brk_frame_type(doc);
    check(type <= BRK_FRAME_UNKNOWN);
    (void)brk_gossip_count(doc);
    fuzz_envelope(doc);
    fuzz_hello(doc);
    fuzz_sub(doc);
    fuzz_ack(doc);
    fuzz_lost(doc);
    fuzz_ready(doc);
    fuzz_done(doc);
    fuzz_dlq(doc);
    fuzz_dlq_jobs(doc);
    fuzz_rep(doc);
    return 0;
}

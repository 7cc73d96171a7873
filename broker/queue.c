/* The producer side of work queues (PROTOCOL.md §6): this node holds its jobs until a
 * consumer finishes them. Each job goes to exactly one consumer that gave credit, under a
 * lease; a nack, a lease running out or the consumer going away is an attempt, and the job
 * goes to another consumer, or after max_attempts to the dead-letter queue.
 *
 * Payloads live in job_buf, packed in job order; removing a job moves the later ones down
 * (a few KB at most), so the store never fragments. */
#include <string.h>

#include "broker/brk_internal.h"

#if ZQ_BRK_WORK_QUEUES /* else left out: broker/switched_off.c */

/* ---- Queues and the job store ---------------------------------------------------------------- */

int brk_jobs_queue_index(const brk_t *b, const char *queue, size_t len)
{
    for (int i = 0; i < b->jobs.n_queues; i++) {
        if (brk_name_equals(&b->jobs.queues[i], queue, len)) {
            return i;
        }
    }
    return -1;
}

/* The queue's index, added if new; -1 when the table is full or the name unusable. */
static int queue_add(brk_t *b, const char *queue, size_t len)
{
    int i = brk_jobs_queue_index(b, queue, len);
    if (i >= 0 || b->jobs.n_queues == ZQ_BRK_MAX_QUEUES) {
        return i;
    }
    if (brk_name_set(&b->jobs.queues[b->jobs.n_queues], queue, len) != ZQ_OK) {
        return -1;
    }
    return b->jobs.n_queues++;
}

static const char *payload_of(const brk_t *b, const brk_job_t *j)
{
    return (const char *)b->jobs.job_buf + j->offset;
}

static void remove_job(brk_t *b, brk_job_t *j)
{
    brk_jobs_t *q = &b->jobs;
    uint32_t end = j->offset + j->len;
    memmove(q->job_buf + j->offset, q->job_buf + end, q->job_used - end);
    for (int i = 0; i < ZQ_BRK_MAX_JOBS; i++) {
        if (q->jobs[i].state != BRK_JOB_FREE && q->jobs[i].offset >= end) {
            q->jobs[i].offset -= j->len;
        }
    }
    q->job_used -= j->len;
    j->state = BRK_JOB_FREE;
    if (q->blocked) {
        q->blocked = false;
        brk_note_room(b);
    }
}

static brk_job_t *find_job(brk_t *b, json_value_t id)
{
    for (int i = 0; i < ZQ_BRK_MAX_JOBS; i++) {
        brk_job_t *j = &b->jobs.jobs[i];
        if (j->state != BRK_JOB_FREE && json_string_equals(id, j->id)) {
            return j;
        }
    }
    return NULL;
}

static zq_err_t store_job(brk_t *b, uint64_t now, int queue, json_value_t payload,
                          uint32_t attempts, brk_job_t **out)
{
    brk_jobs_t *q = &b->jobs;
    if (payload.len > sizeof q->job_buf) {
        return ZQ_ERR_TOO_LONG;
    }
    brk_job_t *j = NULL;
    for (int i = 0; i < ZQ_BRK_MAX_JOBS && j == NULL; i++) {
        j = q->jobs[i].state == BRK_JOB_FREE ? &q->jobs[i] : NULL;
    }
    if (j == NULL || q->job_used + payload.len > sizeof q->job_buf) {
        q->blocked = true;
        brk_note_blocked(b);
        return ZQ_ERR_WOULD_BLOCK; /* full: the producer is told, nothing is dropped */
    }
    memset(j, 0, sizeof *j);
    j->state = BRK_JOB_WAITING;
    j->queue = (uint8_t)queue;
    j->peer = -1;
    j->attempts = attempts;
    j->enqueued_at = now;
    j->order = q->next_order++;
    j->offset = q->job_used;
    j->len = (uint32_t)payload.len;
    memcpy(q->job_buf + q->job_used, payload.p, payload.len);
    q->job_used += (uint32_t)payload.len;
    brk_new_id(b, "j-", j->id);
    *out = j;
    return ZQ_OK;
}

zq_err_t brk_enqueue(brk_t *b, uint64_t now, const char *queue, const char *payload, size_t len,
                     char *id)
{
    json_value_t value;
    brk_name_t name;
    zq_err_t err = brk_name_set(&name, queue, strlen(queue));
    if (err != ZQ_OK || json_parse(payload, len, &value) != ZQ_OK || name.len == 0) {
        return err != ZQ_OK ? err : ZQ_ERR_MALFORMED;
    }
    int qi = queue_add(b, name.text, name.len);
    if (qi < 0) {
        return ZQ_ERR_CAPACITY;
    }
    brk_job_t *j = NULL;
    err = store_job(b, now, qi, value, 0, &j);
    if (err != ZQ_OK) {
        return err;
    }
    if (id != NULL) {
        memcpy(id, j->id, strlen(j->id) + 1);
    }
    brk_jobs_pump(b, now);
    return ZQ_OK;
}

/* ---- Attempts and dead letters ---------------------------------------------------------------- */

static void dead_letter(brk_t *b, brk_job_t *j)
{
    j->state = BRK_JOB_DEAD;
    b->stats.jobs_dead++;
    brk_event_t *ev = brk_push_event(b, BRK_EVENT_DEAD_LETTER);
    if (ev != NULL) {
        const brk_name_t *q = &b->jobs.queues[j->queue];
        ev->topic = (brk_str_t){q->text, q->len};
        ev->id = (brk_str_t){j->id, strlen(j->id)};
        ev->attempt = j->attempts;
    }
}

/* A nack, an expired lease or a lost consumer: another consumer gets it, preferably not the
 * one that failed it, or it is dead after max_attempts. */
static void attempt_failed(brk_t *b, brk_job_t *j)
{
    if (j->peer >= 0) {
        memcpy(j->avoid_fp, b->peers[j->peer].fp, sizeof j->avoid_fp);
        j->has_avoid = true;
    }
    j->peer = -1;
    j->attempts++;
    if (j->attempts >= b->cfg.max_attempts) {
        dead_letter(b, j);
        return;
    }
    j->state = BRK_JOB_WAITING;
    b->stats.jobs_redelivered++;
}

/* The consumer had no room after all (it tells every producer the same credit): the job goes
 * back as it was, no attempt counted, and that consumer gets nothing more until its next ready
 * says it has room. */
static void not_taken(brk_t *b, uint64_t now, uint8_t slot, brk_job_t *j)
{
    b->peers[slot].credit[j->queue] = 0;
    j->peer = -1;
    j->state = BRK_JOB_WAITING;
    b->stats.jobs_busy++;
    brk_jobs_pump(b, now);
}

/* ---- Handing jobs out --------------------------------------------------------------------- */

static bool can_take(const brk_t *b, uint8_t slot, const brk_job_t *j, bool avoid)
{
    const brk_peer_t *p = &b->peers[slot];
    return brk_peer_has(b, slot, BRK_FEAT_QUEUE) && p->credit[j->queue] > 0 &&
           !(avoid && j->has_avoid && memcmp(p->fp, j->avoid_fp, sizeof p->fp) == 0);
}

/* A consumer with credit, round robin; the one that failed the job last only if alone. */
static int pick_consumer(brk_t *b, const brk_job_t *j)
{
    for (int pass = 0; pass < 2; pass++) {
        for (uint8_t k = 0; k < ZQ_NODE_MAX_PEERS; k++) {
            uint8_t slot = (uint8_t)((b->jobs.next_peer + k) % ZQ_NODE_MAX_PEERS);
            if (can_take(b, slot, j, pass == 0)) {
                b->jobs.next_peer = (uint8_t)((slot + 1) % ZQ_NODE_MAX_PEERS);
                return slot;
            }
        }
    }
    return -1;
}

static zq_err_t send_job(brk_t *b, uint64_t now, uint8_t slot, const brk_job_t *j)
{
    const brk_name_t *q = &b->jobs.queues[j->queue];
    char qid[BRK_ID_MAX + 2];
    char qqueue[BRK_QUOTED_MAX];
    brk_envelope_t e;
    memset(&e, 0, sizeof e);
    e.id = brk_json_string(j->id, strlen(j->id), qid, sizeof qid);
    e.topic = brk_json_string(q->text, q->len, qqueue, sizeof qqueue);
    e.payload = (json_value_t){payload_of(b, j), j->len};
    e.has_payload = true;
    e.timestamp = (int64_t)now + b->cfg.wall_offset_ms;
    e.retry_count = j->attempts;
    e.kind = BRK_KIND_JOB;
    e.lease_ms = b->cfg.lease_ms;
    json_writer_t w;
    brk_frame_begin(b, &w);
    brk_envelope_write(&w, &e);
    return brk_send_frame(b, now, slot, &w);
}

static bool takeable(const brk_t *b, const brk_job_t *j)
{
    for (uint8_t slot = 0; slot < ZQ_NODE_MAX_PEERS; slot++) {
        if (can_take(b, slot, j, false)) {
            return true;
        }
    }
    return false;
}

/* The oldest waiting job some consumer can take now: jobs go out in the order they came. */
static brk_job_t *next_job(brk_t *b)
{
    brk_job_t *best = NULL;
    for (int i = 0; i < ZQ_BRK_MAX_JOBS; i++) {
        brk_job_t *j = &b->jobs.jobs[i];
        if (j->state == BRK_JOB_WAITING && (best == NULL || j->order < best->order) &&
            takeable(b, j)) {
            best = j;
        }
    }
    return best;
}

void brk_jobs_pump(brk_t *b, uint64_t now)
{
    brk_job_t *j;
    while ((j = next_job(b)) != NULL) {
        int slot = pick_consumer(b, j);
        if (send_job(b, now, (uint8_t)slot, j) != ZQ_OK) {
            return; /* its channel is full: next time */
        }
        b->peers[slot].credit[j->queue]--;
        j->state = BRK_JOB_LEASED;
        j->peer = (int8_t)slot;
        j->deadline = now + b->cfg.lease_ms;
    }
}

/* ---- Frames from consumers ---------------------------------------------------------------- */

void brk_on_ready(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj)
{
    brk_ready_t r;
    brk_name_t name;
    if (brk_ready_read(obj, &r) != ZQ_OK || brk_name_from_json(&name, r.queue) != ZQ_OK) {
        b->stats.rx_malformed++;
        return;
    }
    int qi = queue_add(b, name.text, name.len);
    if (qi >= 0) {
        b->peers[slot].credit[qi] = r.credit; /* absolute: the consumer's count is the truth */
        brk_jobs_pump(b, now);
    }
}

void brk_on_done(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj)
{
    brk_done_t d;
    if (brk_done_read(obj, &d) != ZQ_OK) {
        b->stats.rx_malformed++;
        return;
    }
    brk_job_t *j = find_job(b, d.id);
    if (j == NULL || j->state != BRK_JOB_LEASED || j->peer != (int8_t)slot) {
        return; /* late: the lease ran out and the job went elsewhere */
    }
    if (d.ok) {
        b->stats.jobs_done++;
        remove_job(b, j);
    } else if (d.busy) {
        not_taken(b, now, slot, j);
    } else {
        b->stats.jobs_failed++;
        attempt_failed(b, j);
    }
}

void brk_jobs_peer_down(brk_t *b, uint64_t now, uint8_t slot)
{
    (void)now;
    for (int i = 0; i < ZQ_BRK_MAX_JOBS; i++) {
        brk_job_t *j = &b->jobs.jobs[i];
        if (j->state == BRK_JOB_LEASED && j->peer == (int8_t)slot) {
            attempt_failed(b, j);
        }
    }
}

uint64_t brk_jobs_next_timeout(const brk_t *b)
{
    uint64_t t = ZQ_TIME_NEVER;
    for (int i = 0; i < ZQ_BRK_MAX_JOBS; i++) {
        const brk_job_t *j = &b->jobs.jobs[i];
        if (j->state == BRK_JOB_LEASED) {
            t = zq_time_min(t, j->deadline);
        }
    }
    return t;
}

void brk_jobs_timeout(brk_t *b, uint64_t now)
{
    for (int i = 0; i < ZQ_BRK_MAX_JOBS; i++) {
        brk_job_t *j = &b->jobs.jobs[i];
        if (j->state == BRK_JOB_LEASED && now >= j->deadline) {
            attempt_failed(b, j); /* the visibility timeout: someone else gets it */
        }
    }
}

/* ---- Dead letters --------------------------------------------------------------------------- */

size_t brk_dlq_list(const brk_t *b, const char *queue,
                    void (*fn)(void *ctx, brk_str_t id, brk_str_t payload, uint32_t attempts),
                    void *ctx)
{
    int qi = brk_jobs_queue_index(b, queue, strlen(queue));
    size_t n = 0;
    for (int i = 0; qi >= 0 && i < ZQ_BRK_MAX_JOBS; i++) {
        const brk_job_t *j = &b->jobs.jobs[i];
        if (j->state == BRK_JOB_DEAD && j->queue == qi) {
            n++;
            if (fn != NULL) {
                fn(ctx, (brk_str_t){j->id, strlen(j->id)},
                   (brk_str_t){payload_of(b, j), j->len}, j->attempts);
            }
        }
    }
    return n;
}

size_t brk_dlq_requeue(brk_t *b, uint64_t now, const char *queue)
{
    int qi = brk_jobs_queue_index(b, queue, strlen(queue));
    size_t n = 0;
    for (int i = 0; qi >= 0 && i < ZQ_BRK_MAX_JOBS; i++) {
        brk_job_t *j = &b->jobs.jobs[i];
        if (j->state == BRK_JOB_DEAD && j->queue == qi) {
            j->state = BRK_JOB_WAITING;
            j->attempts = 0;
            j->has_avoid = false;
            j->enqueued_at = now;
            j->order = b->jobs.next_order++;
            n++;
        }
    }
    brk_jobs_pump(b, now);
    return n;
}

size_t brk_dlq_purge(brk_t *b, const char *queue)
{
    int qi = brk_jobs_queue_index(b, queue, strlen(queue));
    size_t n = 0;
    for (int i = 0; qi >= 0 && i < ZQ_BRK_MAX_JOBS; i++) {
        brk_job_t *j = &b->jobs.jobs[i];
        if (j->state == BRK_JOB_DEAD && j->queue == qi) {
            remove_job(b, j);
            n++;
        }
    }
    return n;
}

/* A peer's dlq frame: list answers with our dead letters of the queue (as many as fit one
 * frame; "more" says there are others), requeue and purge act on them. */
static void answer_list(brk_t *b, uint64_t now, uint8_t slot, const brk_name_t *queue)
{
    int qi = brk_jobs_queue_index(b, queue->text, queue->len);
    json_writer_t w;
    brk_frame_begin(b, &w);
    brk_dlq_jobs_begin(&w, queue->text, queue->len);
    bool more = false;
    for (int i = 0; qi >= 0 && i < ZQ_BRK_MAX_JOBS; i++) {
        const brk_job_t *j = &b->jobs.jobs[i];
        if (j->state != BRK_JOB_DEAD || j->queue != qi) {
            continue;
        }
        if (j->len + 128u > sizeof b->out / 2) { /* leave room to close the frame */
            more = true;
            continue;
        }
        brk_dlq_jobs_item(&w, j->id, strlen(j->id), (json_value_t){payload_of(b, j), j->len},
                          j->attempts);
    }
    brk_dlq_jobs_end(&w, more);
    (void)brk_send_frame(b, now, slot, &w); /* a lost answer is asked again by its user */
}

void brk_on_dlq(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj)
{
    brk_dlq_t d;
    brk_name_t queue;
    if (brk_dlq_read(obj, &d) != ZQ_OK || brk_name_from_json(&queue, d.queue) != ZQ_OK) {
        b->stats.rx_malformed++;
        return;
    }
    if (d.op == BRK_DLQ_LIST) {
        answer_list(b, now, slot, &queue);
    } else if (d.op == BRK_DLQ_REQUEUE) {
        (void)brk_dlq_requeue(b, now, queue.text);
    } else {
        (void)brk_dlq_purge(b, queue.text);
    }
}

zq_err_t brk_dlq_remote(brk_t *b, uint64_t now, const char *queue, brk_dlq_op_t op)
{
    brk_name_t name;
    zq_err_t err = brk_name_set(&name, queue, strlen(queue));
    if (err != ZQ_OK) {
        return err;
    }
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (brk_peer_has(b, i, BRK_FEAT_QUEUE)) {
            json_writer_t w;
            brk_frame_begin(b, &w);
            brk_dlq_write(&w, name.text, name.len, op);
            if (brk_send_frame(b, now, i, &w) == ZQ_ERR_WOULD_BLOCK) {
                err = ZQ_ERR_WOULD_BLOCK;
            }
        }
    }
    return err;
}

#endif /* ZQ_BRK_WORK_QUEUES */

/* The consumer side of work queues (PROTOCOL.md §6): the credit this node gives each producer
 * (zmqcat's "ready"), the jobs the application holds, and their ack or nack. Jobs from ZeroQ
 * peers (a broadcast envelope on a queue we consume) are taken as ZeroQ takes them: once
 * (deduplicated like ZeroQ's messages), with no ack to send, and a nack sends them on with
 * retryCount + 1 as a ZeroQ consumer does. */
#include <string.h>

#include "broker/brk_internal.h"

#if ZQ_BRK_WORK_QUEUES /* else left out: broker/switched_off.c */

static int consumed_index(const brk_t *b, const char *queue, size_t len)
{
    for (int i = 0; i < b->consumer.n_queues; i++) {
        if (brk_name_equals(&b->consumer.queues[i], queue, len)) {
            return i;
        }
    }
    return -1;
}

bool brk_consumer_has(const brk_t *b, const char *queue, size_t len)
{
    int i = consumed_index(b, queue, len);
    return i >= 0 && b->consumer.credit[i] > 0;
}

static uint32_t held_count(const brk_t *b, int queue)
{
    uint32_t n = 0;
    for (int i = 0; i < ZQ_BRK_MAX_HELD; i++) {
        n += b->consumer.held[i].used && b->consumer.held[i].queue == queue;
    }
    return n;
}

/* Every zq producer hears our credit for @p queue again. */
static void credit_changed(brk_t *b, int queue)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        b->peers[i].ready_due |= 1u << queue;
    }
}

zq_err_t brk_consume(brk_t *b, uint64_t now, const char *queue, uint32_t credit)
{
    (void)now;
    brk_consumer_t *c = &b->consumer;
    size_t len = strlen(queue);
    int i = consumed_index(b, queue, len);
    if (i < 0) {
        if (c->n_queues == ZQ_BRK_MAX_QUEUES) {
            return ZQ_ERR_CAPACITY;
        }
        zq_err_t err = brk_name_set(&c->queues[c->n_queues], queue, len);
        if (err != ZQ_OK || len == 0) {
            return err != ZQ_OK ? err : ZQ_ERR_MALFORMED;
        }
        i = c->n_queues++;
    }
    c->credit[i] = credit > ZQ_BRK_MAX_HELD ? ZQ_BRK_MAX_HELD : credit;
    credit_changed(b, i);
    return ZQ_OK;
}

/* The credit a producer may use now: what the application allows minus what it holds. Every
 * producer is told the same number, so a burst can overshoot; a job beyond our room is
 * refused as busy, which the producer hands out again without counting an attempt. */
static uint32_t credit_now(const brk_t *b, int queue)
{
    uint32_t held = held_count(b, queue);
    return b->consumer.credit[queue] > held ? b->consumer.credit[queue] - held : 0;
}

bool brk_consumer_send_ready(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_peer_t *p = &b->peers[slot];
    for (int i = 0; i < b->consumer.n_queues; i++) {
        if (!(p->ready_due & (1u << i))) {
            continue;
        }
        if (brk_peer_has(b, slot, BRK_FEAT_QUEUE)) {
            const brk_name_t *q = &b->consumer.queues[i];
            json_writer_t w;
            brk_frame_begin(b, &w);
            brk_ready_write(&w, q->text, q->len, credit_now(b, i));
            if (brk_send_frame(b, now, slot, &w) == ZQ_ERR_WOULD_BLOCK) {
                return false;
            }
        }
        p->ready_due &= ~(1u << i);
    }
    p->ready_due = 0; /* bits of queues we never consumed */
    return true;
}

/* ---- Jobs arriving -------------------------------------------------------------------------- */

static brk_held_t *free_held(brk_t *b)
{
    for (int i = 0; i < ZQ_BRK_MAX_HELD; i++) {
        if (!b->consumer.held[i].used) {
            return &b->consumer.held[i];
        }
    }
    return NULL;
}

/* A job we have no room for goes back at once, as busy: the job did not fail here, so it must
 * not cost an attempt (two producers each using the credit we told both would otherwise
 * dead-letter jobs nobody ever ran). */
static void refuse(brk_t *b, uint64_t now, uint8_t slot, json_value_t id)
{
    json_writer_t w;
    b->stats.jobs_refused++;
    brk_frame_begin(b, &w);
    brk_done_write(&w, id.p + 1, id.len - 2, BRK_DONE_BUSY);
    (void)brk_send_frame(b, now, slot, &w);
}

/* Takes held place @p h for job @p id of @p queue from peer @p slot, with a fresh handle (never
 * 0: that one means a ZeroQ job held nowhere). */
static void hold(brk_t *b, brk_held_t *h, int queue, uint8_t slot, json_value_t id)
{
    memset(h, 0, sizeof *h);
    h->used = true;
    h->queue = (uint8_t)queue;
    h->peer = (int8_t)slot;
    h->handle = b->consumer.next_handle++;
    if (h->handle == 0) {
        h->handle = b->consumer.next_handle++;
    }
    memcpy(h->id, id.p + 1, id.len - 2);
}

static void job_event(brk_t *b, const brk_envelope_t *e, int queue, const char *id,
                      uint32_t handle, brk_event_t *ev)
{
    ev->type = BRK_EVENT_JOB;
    ev->topic = (brk_str_t){b->consumer.queues[queue].text, b->consumer.queues[queue].len};
    ev->payload = e->has_payload ? (brk_str_t){e->payload.p, e->payload.len}
                                 : (brk_str_t){"null", 4};
    ev->id = (brk_str_t){id, strlen(id)};
    ev->attempt = e->retry_count;
    ev->handle = handle;
}

#if ZQ_BRK_ZEROQ_COMPAT
/* ZeroQ's nack (zeroq-wire.md §3, §4): the consumer sends "the same object with retryCount
 * + 1; all other fields unchanged" to every open peer while the new count is under 3. The
 * payload is gone once the event is read, so that envelope is written now and kept while the
 * application holds the job. */
static void keep_zeroq_resend(brk_t *b, brk_held_t *h, const brk_envelope_t *e)
{
    brk_consumer_t *c = &b->consumer;
    h->last_try = e->retry_count + 1u >= BRK_ZEROQ_MAX_RETRIES;
    if (h->last_try) {
        return; /* a nack makes it dead: nothing to send */
    }
    brk_envelope_t again;
    memset(&again, 0, sizeof again);
    again.id = e->id;
    again.topic = e->topic;
    again.payload = e->payload;
    again.has_payload = e->has_payload;
    again.timestamp = e->timestamp;
    again.retry_count = e->retry_count + 1u;
    again.has_priority = e->has_priority;
    again.priority = e->priority;
    json_writer_t w;
    json_writer_init(&w, c->zeroq_keep + c->zeroq_keep_used,
                     ZQ_BRK_ZEROQ_KEEP_BYTES - c->zeroq_keep_used);
    brk_envelope_write(&w, &again);
    h->keep_off = c->zeroq_keep_used;
    h->keep_len = (uint32_t)json_finish(&w); /* 0 when it does not fit: delivered unkept */
    c->zeroq_keep_used += h->keep_len;
}

/* A ZeroQ producer broadcasts its jobs and knows nothing of credit or acks: each one (once,
 * whatever edge it came by) goes to the application at once. Refusing it would lose it: ZeroQ
 * never sends it again. It takes a held place, with its resend kept for a nack, when there is
 * one; else it comes with handle 0 and a nack of it can only be counted (zeroq_unsent). */
static bool zeroq_job(brk_t *b, uint8_t slot, const brk_envelope_t *e, int queue,
                      brk_event_t *ev)
{
    if (queue < 0) {
        return false;
    }
    uint64_t key = brk_dedup_key(b->peers[slot].fp, BRK_FP_HEX / 2, e->id.p + 1, e->id.len - 2,
                                 e->retry_count);
    if (brk_dedup_seen(&b->subs.dedup, key)) {
        b->stats.rx_duplicates++; /* ZeroQ broadcasts the same job along every edge */
        return false;
    }
    brk_held_t *h = free_held(b);
    if (h == NULL) {
        job_event(b, e, queue, "", 0, ev);
        ev->id = (brk_str_t){e->id.p + 1, e->id.len - 2};
        return true;
    }
    hold(b, h, queue, slot, e->id);
    h->from_zeroq = true;
    keep_zeroq_resend(b, h, e);
    job_event(b, e, queue, h->id, h->handle, ev);
    return true;
}
#else
/* Without ZeroQ compatibility no envelope of a peer without a hello gets here (brk.c). */
static bool zeroq_job(brk_t *b, uint8_t slot, const brk_envelope_t *e, int queue,
                      brk_event_t *ev)
{
    (void)slot, (void)e, (void)queue, (void)ev;
    b->stats.rx_switched_off++;
    return false;
}
#endif /* ZQ_BRK_ZEROQ_COMPAT */

bool brk_on_job(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e, brk_event_t *ev)
{
    brk_name_t queue;
    bool zeroq = !b->peers[slot].zq;
    if (brk_name_from_json(&queue, e->topic) != ZQ_OK || e->id.len - 2 >= BRK_ID_MAX) {
        b->stats.rx_malformed++;
        return false;
    }
    int qi = consumed_index(b, queue.text, queue.len);
    if (zeroq) {
        return zeroq_job(b, slot, e, qi, ev);
    }
    brk_held_t *h = qi >= 0 && credit_now(b, qi) > 0 ? free_held(b) : NULL;
    if (h == NULL) {
        refuse(b, now, slot, e->id);
        return false;
    }
    hold(b, h, qi, slot, e->id);
    job_event(b, e, qi, h->id, h->handle, ev);
    return true;
}

#if ZQ_BRK_ZEROQ_COMPAT
/* Sends a held ZeroQ job on after a nack, ZeroQ's way (keep_zeroq_resend()): to every open
 * ZeroQ peer at once or, lacking room at one, to none yet. zq peers take no broadcast jobs. */
static zq_err_t zeroq_nack(brk_t *b, uint64_t now, const brk_held_t *h)
{
    if (h->last_try || h->keep_len == 0) {
        b->stats.zeroq_dead += h->last_try;
        b->stats.zeroq_unsent += !h->last_try;
        return ZQ_OK;
    }
    const char *text = b->consumer.zeroq_keep + h->keep_off;
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        const brk_peer_t *p = &b->peers[i];
        if (p->open && !p->zq && !brk_peer_has_room(b, i, h->keep_len)) {
            return ZQ_ERR_WOULD_BLOCK;
        }
    }
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (b->peers[i].open && !b->peers[i].zq) {
            (void)brk_send_text(b, now, i, text, h->keep_len); /* as ZeroQ: a peer that cannot
                                                                   take it (too long) misses it */
        }
    }
    b->stats.zeroq_resent++;
    return ZQ_OK;
}
#else
/* No ZeroQ job is ever held without ZeroQ compatibility (zeroq_job() above). */
static zq_err_t zeroq_nack(brk_t *b, uint64_t now, const brk_held_t *h)
{
    (void)b, (void)now, (void)h;
    return ZQ_OK;
}
#endif /* ZQ_BRK_ZEROQ_COMPAT */

/* Frees a held place, and its kept resend: the bytes after it move down. */
static void release_held(brk_t *b, brk_held_t *h)
{
    brk_consumer_t *c = &b->consumer;
    if (h->keep_len > 0) {
        uint32_t end = h->keep_off + h->keep_len;
        memmove(c->zeroq_keep + h->keep_off, c->zeroq_keep + end, c->zeroq_keep_used - end);
        c->zeroq_keep_used -= h->keep_len;
        for (int i = 0; i < ZQ_BRK_MAX_HELD; i++) {
            brk_held_t *g = &c->held[i];
            if (g->used && g->keep_len > 0 && g->keep_off > h->keep_off) {
                g->keep_off -= h->keep_len;
            }
        }
    }
    h->used = false;
    credit_changed(b, h->queue);
}

zq_err_t brk_job_done(brk_t *b, uint64_t now, uint32_t handle, bool ok)
{
    if (handle == 0) {
        b->stats.zeroq_unsent += !ok; /* a ZeroQ job held without a place: see zeroq_job() */
        return ZQ_OK;
    }
    brk_held_t *h = NULL;
    for (int i = 0; i < ZQ_BRK_MAX_HELD && h == NULL; i++) {
        brk_held_t *c = &b->consumer.held[i];
        h = c->used && c->handle == handle ? c : NULL;
    }
    if (h == NULL) {
        return ZQ_ERR_NOT_FOUND;
    }
    if (h->from_zeroq) {
        zq_err_t err = ok ? ZQ_OK : zeroq_nack(b, now, h);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            brk_note_blocked(b);
            return err;
        }
    } else if (!h->producer_gone && b->peers[h->peer].open) {
        json_writer_t w;
        brk_frame_begin(b, &w);
        brk_done_write(&w, h->id, strlen(h->id), ok ? BRK_DONE_OK : BRK_DONE_FAILED);
        zq_err_t err = brk_send_frame(b, now, (uint8_t)h->peer, &w);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            brk_note_blocked(b);
            return err;
        }
    }
    release_held(b, h);
    return ZQ_OK;
}

void brk_consumer_peer_down(brk_t *b, uint64_t now, uint8_t slot)
{
    (void)now;
    /* Its jobs are the producer's to hand out again (lease or disconnect on its side); the
     * handles stay valid until done, which then sends nothing. */
    for (int i = 0; i < ZQ_BRK_MAX_HELD; i++) {
        brk_held_t *h = &b->consumer.held[i];
        if (h->used && h->peer == (int8_t)slot) {
            h->producer_gone = true; /* nobody to tell */
        }
    }
}

/* ---- Dead letters of remote producers -------------------------------------------------------- */

bool brk_on_dlq_jobs(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj, brk_event_t *ev)
{
    (void)now;
    (void)slot;
    brk_dlq_jobs_t d;
    if (brk_dlq_jobs_read(obj, &d) != ZQ_OK) {
        b->stats.rx_malformed++;
        return false;
    }
    ev->type = BRK_EVENT_MESSAGE;
    ev->topic = (brk_str_t){d.queue.p + 1, d.queue.len - 2};
    ev->id = (brk_str_t){"$dlq", 4};
    ev->payload = (brk_str_t){d.jobs.p, d.jobs.len};
    return true;
}

#endif /* ZQ_BRK_WORK_QUEUES */

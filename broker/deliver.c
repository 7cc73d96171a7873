/* Receiving messages (PROTOCOL.md §4, §5, §7, §9): local subscriptions, delivering each
 * message once (by publisher seq from zq peers, by a window of (identity, id, retryCount)
 * from ZeroQ peers), the acks QoS 1 owes, and the resume points a hello carries. */
#include <string.h>

#include "broker/brk_internal.h"

void brk_subs_init(brk_t *b)
{
#if ZQ_BRK_ZEROQ_COMPAT
    uint64_t seed = 0;
    (void)zq_rand_bytes(&b->cfg.rand, &seed, sizeof seed); /* a failed RNG leaves 0: still works */
    brk_dedup_init(&b->subs.dedup, seed);
#else
    (void)b;
#endif
}

/* ---- Subscriptions -------------------------------------------------------------------------- */

static int find_pattern(const brk_subs_t *s, const char *text, size_t len)
{
    for (int i = 0; i < s->n_patterns; i++) {
        if (brk_name_equals(&s->patterns[i], text, len)) {
            return i;
        }
    }
    return -1;
}

zq_err_t brk_subscribe(brk_t *b, uint64_t now, const char *pattern)
{
    (void)now;
    size_t len = strlen(pattern);
    brk_subs_t *s = &b->subs;
    zq_err_t err = brk_pattern_check(pattern, len);
    if (err != ZQ_OK || len > ZQ_BRK_NAME_MAX) {
        return err != ZQ_OK ? err : ZQ_ERR_TOO_LONG;
    }
    if (find_pattern(s, pattern, len) >= 0) {
        return ZQ_OK;
    }
    if (s->n_patterns == ZQ_BRK_MAX_SUBS) {
        return ZQ_ERR_CAPACITY;
    }
    (void)brk_name_set(&s->patterns[s->n_patterns++], pattern, len);
    brk_peers_sub_changed(b);
    return ZQ_OK;
}

zq_err_t brk_unsubscribe(brk_t *b, uint64_t now, const char *pattern)
{
    (void)now;
    brk_subs_t *s = &b->subs;
    int i = find_pattern(s, pattern, strlen(pattern));
    if (i < 0) {
        return ZQ_ERR_NOT_FOUND;
    }
    s->patterns[i] = s->patterns[--s->n_patterns];
    brk_peers_sub_changed(b);
    return ZQ_OK;
}

size_t brk_subs_patterns(const brk_t *b, const char **out, size_t cap)
{
    size_t n = 0;
    for (; n < b->subs.n_patterns && n < cap; n++) {
        out[n] = b->subs.patterns[n].text;
    }
    return n;
}

static bool subscribed(const brk_subs_t *s, const char *topic, size_t len)
{
    for (uint8_t i = 0; i < s->n_patterns; i++) {
        if (brk_pattern_match(s->patterns[i].text, s->patterns[i].len, topic, len)) {
            return true;
        }
    }
    return false;
}

/* ---- Publishers we heard from (resume points) ------------------------------------------------ */

static bool holds_for(const brk_subs_t *s, int publisher)
{
    for (int i = 0; i < ZQ_BRK_HELD_MESSAGES; i++) {
        if (s->held[i].used && s->held[i].publisher == publisher) {
            return true;
        }
    }
    return false;
}

static void drop_held_of(brk_subs_t *s, int publisher);

/* The slot a new publisher takes: a free one, else the least recently used of those with no
 * message held, else the least recently used. */
static int slot_for_new(const brk_subs_t *s)
{
    int oldest = -1;
    for (int i = 0; i < ZQ_BRK_MAX_PUBLISHERS; i++) {
        const brk_publisher_t *p = &s->publishers[i];
        if (!p->used) {
            return i;
        }
        if (oldest < 0 || holds_for(s, oldest) > holds_for(s, i) ||
            (holds_for(s, oldest) == holds_for(s, i) && p->used_at < s->publishers[oldest].used_at)) {
            oldest = i;
        }
    }
    return oldest;
}

/* The publisher entry of @p fp, made if needed (slot_for_new). Looked up for every message
 * delivered: the choice of a slot is only made for a publisher not found. */
static brk_publisher_t *publisher(brk_subs_t *s, const uint8_t fp[BRK_FP_HEX / 2], uint64_t now)
{
    for (int i = 0; i < ZQ_BRK_MAX_PUBLISHERS; i++) {
        brk_publisher_t *p = &s->publishers[i];
        if (p->used && memcmp(p->fp, fp, BRK_FP_HEX / 2) == 0) {
            p->used_at = now;
            return p;
        }
    }
    int slot = slot_for_new(s);
    drop_held_of(s, slot); /* every entry holds some: their acks are never sent */
    brk_publisher_t *p = &s->publishers[slot];
    memset(p, 0, sizeof *p);
    p->used = true;
    memcpy(p->fp, fp, BRK_FP_HEX / 2);
    p->used_at = now;
    return p;
}

/* ---- Held messages (hold_qos1) -------------------------------------------------------------- */

static void drop_held_of(brk_subs_t *s, int publisher)
{
    for (int i = 0; i < ZQ_BRK_HELD_MESSAGES; i++) {
        if (s->held[i].used && s->held[i].publisher == publisher) {
            memset(&s->held[i], 0, sizeof s->held[i]);
            s->n_held--;
        }
    }
}

/* What publisher @p i's resume point and ack may say: everything delivered, up to its first
 * message still held (PROTOCOL.md §5: an ack covers every seq up to it). */
static uint64_t done_upto(const brk_subs_t *s, int i)
{
    const brk_publisher_t *p = &s->publishers[i];
    uint64_t upto = p->last_seq;
    for (int h = 0; h < ZQ_BRK_HELD_MESSAGES; h++) {
        const brk_held_msg_t *m = &s->held[h];
        if (m->used && m->publisher == i && m->epoch == p->epoch && m->seq <= upto) {
            upto = m->seq - 1;
        }
    }
    return upto;
}

bool brk_subs_input_full(const brk_t *b)
{
    return b->subs.n_held == ZQ_BRK_HELD_MESSAGES;
}

/* Holds message @p e of publisher @p p until brk_message_done(): its handle, never 0. */
static uint32_t hold(brk_subs_t *s, const brk_publisher_t *p, const brk_envelope_t *e)
{
    for (int i = 0; i < ZQ_BRK_HELD_MESSAGES; i++) {
        brk_held_msg_t *m = &s->held[i];
        if (!m->used) {
            m->used = true;
            m->publisher = (uint8_t)(p - s->publishers);
            m->epoch = e->epoch;
            m->seq = e->seq;
            m->handle = ++s->next_handle == 0 ? ++s->next_handle : s->next_handle;
            s->n_held++;
            return m->handle;
        }
    }
    return 0; /* not reached: reading stops while every place is taken */
}

void brk_subs_fill_resume(const brk_t *b, brk_hello_t *h)
{
    h->n_resume = 0;
    for (int i = 0; i < ZQ_BRK_MAX_PUBLISHERS && h->n_resume < BRK_HELLO_MAX_RESUME; i++) {
        const brk_publisher_t *p = &b->subs.publishers[i];
        uint64_t upto = done_upto(&b->subs, i);
        if (p->used && upto > 0) {
            brk_resume_t *r = &h->resume[h->n_resume++];
            memcpy(r->fp, p->fp, sizeof r->fp);
            r->epoch = p->epoch;
            r->seq = upto;
        }
    }
}

size_t brk_resume_points(const brk_t *b, brk_resume_point_t *out, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < ZQ_BRK_MAX_PUBLISHERS && n < cap; i++) {
        const brk_publisher_t *p = &b->subs.publishers[i];
        uint64_t upto = done_upto(&b->subs, i);
        if (p->used && upto > 0) {
            memcpy(out[n].fp, p->fp, sizeof out[n].fp);
            out[n].epoch = p->epoch;
            out[n].seq = upto;
            n++;
        }
    }
    return n;
}

zq_err_t brk_resume_restore(brk_t *b, uint64_t now, const brk_resume_point_t *rp)
{
    brk_publisher_t *p = publisher(&b->subs, rp->fp, now);
    p->epoch = rp->epoch;
    p->last_seq = rp->seq;
    return ZQ_OK;
}

/* ---- Delivering once ------------------------------------------------------------------------- */

/* zq's rule: a publisher's messages come in seq order, so one not above the last delivered is
 * a replayed duplicate. A new epoch means the publisher started over. Last values (lvc) come
 * in any order and are neither deduplicated nor moved past: they are older by design. */
static bool first_time_zq(brk_t *b, uint64_t now, const uint8_t *fp, const brk_envelope_t *e)
{
    if (e->lvc) {
        return true;
    }
    brk_publisher_t *p = publisher(&b->subs, fp, now);
    if (p->epoch != e->epoch) {
        p->epoch = e->epoch;
        p->last_seq = 0;
    }
    if (e->seq <= p->last_seq) {
        return false;
    }
    p->last_seq = e->seq;
    return true;
}

/* ZeroQ's rule, with the sender's identity in the key (PROTOCOL.md §9). Without ZeroQ
 * compatibility only zq peers' envelopes get here (brk.c), and one without an epoch (not a
 * publish of a hello's epoch) has no seq to be deduplicated by: it is taken as it comes. */
static bool first_time_zeroq(brk_t *b, const uint8_t *fp, const brk_envelope_t *e)
{
#if ZQ_BRK_ZEROQ_COMPAT
    uint64_t key = brk_dedup_key(fp, BRK_FP_HEX / 2, e->id.p + 1, e->id.len - 2, e->retry_count);
    return !brk_dedup_seen(&b->subs.dedup, key);
#else
    (void)b, (void)fp, (void)e;
    return true;
#endif
}

/* QoS 1: the publisher hears of it in the next batched ack (PROTOCOL.md §5). */
static void owe_ack(brk_t *b, uint64_t now, uint8_t slot, uint32_t epoch, uint64_t upto)
{
    brk_peer_t *p = &b->peers[slot];
    bool same_batch = p->ack_due && p->ack_epoch == epoch;
    if (!same_batch) {
        p->ack_at = now + b->cfg.ack_delay_ms;
        p->ack_upto = 0;
    }
    p->ack_due = true;
    p->ack_epoch = epoch;
    p->ack_upto = upto > p->ack_upto ? upto : p->ack_upto;
    p->acks_owed++;
}

/* hold_qos1: the ack peer @p slot's publisher entry allows now, if any. */
static void owe_done_ack(brk_t *b, uint64_t now, uint8_t slot)
{
    const brk_publisher_t *p = publisher(&b->subs, b->peers[slot].fp, now);
    uint64_t upto = done_upto(&b->subs, (int)(p - b->subs.publishers));
    if (upto > 0) {
        owe_ack(b, now, slot, p->epoch, upto);
    }
}

zq_err_t brk_message_done(brk_t *b, uint64_t now, uint32_t handle)
{
    brk_subs_t *s = &b->subs;
    for (int i = 0; handle != 0 && i < ZQ_BRK_HELD_MESSAGES; i++) {
        brk_held_msg_t *m = &s->held[i];
        if (!m->used || m->handle != handle) {
            continue;
        }
        const brk_publisher_t *p = &s->publishers[m->publisher];
        memset(m, 0, sizeof *m);
        s->n_held--;
        for (uint8_t slot = 0; slot < ZQ_NODE_MAX_PEERS; slot++) {
            const brk_peer_t *peer = &b->peers[slot];
            if (peer->open && peer->zq && memcmp(peer->fp, p->fp, sizeof peer->fp) == 0) {
                owe_done_ack(b, now, slot); /* away: its hello's resume point says it later */
            }
        }
        return ZQ_OK;
    }
    return ZQ_ERR_NOT_FOUND;
}

/* A JSON string's content, borrowed from the frame when it has no escapes, else unescaped
 * into @p scratch. */
static brk_str_t string_content(json_value_t v, char *scratch, size_t cap)
{
    const char *inner = v.p + 1;
    size_t n = v.len - 2;
    if (memchr(inner, '\\', n) == NULL) {
        return (brk_str_t){inner, n};
    }
    size_t len = 0;
    return json_get_string(v, scratch, cap, &len) == ZQ_OK ? (brk_str_t){scratch, len}
                                                           : (brk_str_t){"", 0};
}

bool brk_on_message(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e,
                    brk_event_t *ev)
{
    const brk_peer_t *p = &b->peers[slot];
    brk_str_t topic = string_content(e->topic, b->ev_topic, sizeof b->ev_topic);
    bool zq = p->zq && e->has_epoch;
    bool fresh = zq ? first_time_zq(b, now, p->fp, e) : first_time_zeroq(b, p->fp, e);
    bool acked = zq && e->qos == 1 && !e->lvc;
    bool held = acked && b->cfg.hold_qos1;
    if (acked && !held) {
        owe_ack(b, now, slot, e->epoch, e->seq); /* duplicates too: the first ack may be lost */
    }
    if (!fresh || !subscribed(&b->subs, topic.p, topic.len)) {
        if (fresh) {
            b->stats.rx_unwanted++; /* ZeroQ broadcasts everything, or our sub just changed */
        } else {
            b->stats.rx_duplicates++;
        }
        if (held) {
            owe_done_ack(b, now, slot); /* what is done before it, and it if nothing is held */
        }
        return false;
    }
    ev->qos = acked ? 1 : 0;
    ev->handle = held ? hold(&b->subs, publisher(&b->subs, p->fp, now), e) : 0;
    ev->type = BRK_EVENT_MESSAGE;
    ev->topic = topic;
    ev->payload = e->has_payload ? (brk_str_t){e->payload.p, e->payload.len}
                                 : (brk_str_t){"null", 4};
    ev->id = (brk_str_t){e->id.p + 1, e->id.len - 2};
    ev->seq = zq ? e->seq : 0;
    ev->last_value = e->lvc;
    return true;
}

bool brk_on_lost(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj, brk_event_t *ev)
{
    brk_lost_t l;
    if (brk_lost_read(obj, &l) != ZQ_OK) {
        b->stats.rx_malformed++;
        return false;
    }
    brk_publisher_t *p = publisher(&b->subs, b->peers[slot].fp, now);
    if (p->epoch == l.epoch && l.to > p->last_seq) {
        p->last_seq = l.to; /* never announced again */
    }
    ev->type = BRK_EVENT_LOST;
    ev->lost_from = l.from;
    ev->lost_to = l.to;
    return true;
}

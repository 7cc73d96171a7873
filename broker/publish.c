/* Publishing (PROTOCOL.md §4, §5, §7): every message gets the next seq of our epoch and goes
 * into the replay ring; each peer is sent the ring's entries it wants, in seq order, from its
 * own cursor, as its channel has room. So a slow peer slows nobody else, a returning one is
 * replayed to, and QoS 1 is the ring refusing to forget what a receiver has not acked.
 *
 * A ring entry's text is "<topic>\0<frame>": the topic for matching without parsing the
 * frame again, the frame to send as is. */
#include <string.h>

#include "broker/brk_internal.h"

void brk_pub_init(brk_t *b)
{
    brk_pub_t *pub = &b->pub;
    do {
        (void)zq_rand_bytes(&b->cfg.rand, &pub->epoch, sizeof pub->epoch);
    } while (pub->epoch == 0);
    pub->next_seq = 1;
    brk_ring_init(&pub->ring, pub->ring_buf, sizeof pub->ring_buf);
}

/* ---- QoS 1 receivers, by identity --------------------------------------------------------- */

static int find_receiver(const brk_pub_t *pub, const uint8_t fp[BRK_FP_HEX / 2])
{
    for (int i = 0; i < ZQ_BRK_MAX_RECEIVERS; i++) {
        if (pub->receivers[i].used && memcmp(pub->receivers[i].fp, fp, BRK_FP_HEX / 2) == 0) {
            return i;
        }
    }
    return -1;
}

/* The peer's receiver slot, made if needed; -1 when every slot is taken (its QoS 1 messages
 * are then sent as QoS 0 to it, and counted). */
static int8_t receiver_of(brk_t *b, uint8_t slot)
{
    brk_peer_t *p = &b->peers[slot];
    if (p->receiver >= 0 || !(p->features & BRK_FEAT_QOS1)) {
        return p->receiver;
    }
    int r = find_receiver(&b->pub, p->fp);
    for (int i = 0; r < 0 && i < ZQ_BRK_MAX_RECEIVERS; i++) {
        r = b->pub.receivers[i].used ? -1 : i;
    }
    if (r >= 0) {
        brk_receiver_t *rc = &b->pub.receivers[r];
        if (!rc->used) {
            memset(rc, 0, sizeof *rc);
            rc->used = true;
            memcpy(rc->fp, p->fp, sizeof rc->fp);
        }
        rc->peer = (int8_t)slot;
        p->receiver = (int8_t)r;
    }
    return p->receiver;
}

size_t brk_receivers(const brk_t *b, brk_receiver_info_t *out, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < ZQ_BRK_MAX_RECEIVERS && n < cap; i++) {
        const brk_receiver_t *rc = &b->pub.receivers[i];
        if (!rc->used) {
            continue;
        }
        /* Here now: what its sub says; away: what it wanted when it left. */
        const brk_peer_t *p = rc->peer >= 0 ? &b->peers[rc->peer] : NULL;
        memcpy(out[n].fp, rc->fp, sizeof out[n].fp);
        out[n].wants_all = p != NULL ? p->wants_all : rc->wants_all;
        out[n].n_topics = p != NULL ? p->n_topics : rc->n_topics;
        out[n].topics = p != NULL ? p->topics : rc->topics;
        n++;
    }
    return n;
}

zq_err_t brk_receiver_restore(brk_t *b, uint64_t now, const uint8_t fp[BRK_FP_HEX / 2],
                              bool wants_all, const char *const *topics, size_t n)
{
    int r = find_receiver(&b->pub, fp);
    for (int i = 0; r < 0 && i < ZQ_BRK_MAX_RECEIVERS; i++) {
        r = b->pub.receivers[i].used ? -1 : i;
    }
    if (r < 0) {
        return ZQ_ERR_CAPACITY;
    }
    if (n > ZQ_BRK_PEER_SUBS) {
        return ZQ_ERR_TOO_LONG;
    }
    brk_receiver_t *rc = &b->pub.receivers[r];
    memset(rc, 0, sizeof *rc);
    for (size_t k = 0; k < n; k++) {
        if (brk_name_set(&rc->topics[k], topics[k], strlen(topics[k])) != ZQ_OK) {
            return ZQ_ERR_TOO_LONG;
        }
    }
    rc->used = true;
    memcpy(rc->fp, fp, sizeof rc->fp);
    rc->peer = -1;
    rc->left_at = now;
    rc->wants_all = wants_all;
    rc->n_topics = (uint8_t)n;
    return ZQ_OK;
}

/* ---- Publishing ---------------------------------------------------------------------------- */

static bool lingerer_wants(const brk_receiver_t *rc, const char *topic, size_t len)
{
    if (rc->wants_all) {
        return true;
    }
    for (uint8_t i = 0; i < rc->n_topics; i++) {
        if (brk_pattern_match(rc->topics[i].text, rc->topics[i].len, topic, len)) {
            return true;
        }
    }
    return false;
}

/* Receivers that must ack a QoS 1 message on @p topic: every QoS 1 peer that wants it now, and
 * every one away for less than linger_ms that wanted it when it left (OMQ::QoS: pending
 * messages wait for the receiver's return, counted against the high-water mark). */
static uint32_t pending_for(brk_t *b, const char *topic, size_t len)
{
    uint32_t mask = 0;
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (b->peers[i].open && b->peers[i].zq && brk_peer_wants(b, i, topic, len)) {
            int8_t r = receiver_of(b, i);
            mask |= r >= 0 ? 1u << r : 0u;
        }
    }
    for (int r = 0; r < ZQ_BRK_MAX_RECEIVERS; r++) {
        const brk_receiver_t *rc = &b->pub.receivers[r];
        bool back_not_subscribed = rc->peer >= 0 && !b->peers[rc->peer].sub_received;
        if (rc->used && (rc->peer < 0 || back_not_subscribed) &&
            lingerer_wants(rc, topic, len)) {
            mask |= 1u << r;
        }
    }
    return mask;
}

/* Writes "<topic>\0<envelope>" into b->ring_text; returns its length, 0 if too long. */
static size_t write_entry(brk_t *b, uint64_t now, const brk_name_t *topic, json_value_t payload,
                          brk_qos_t qos)
{
    char id[BRK_ID_MAX];
    char qid[BRK_ID_MAX + 2];
    char qtopic[BRK_QUOTED_MAX];
    brk_new_id(b, NULL, id);
    memcpy(b->ring_text, topic->text, topic->len + 1u);
    brk_envelope_t e;
    memset(&e, 0, sizeof e);
    e.id = brk_json_string(id, strlen(id), qid, sizeof qid);
    e.topic = brk_json_string(topic->text, topic->len, qtopic, sizeof qtopic);
    e.payload = payload;
    e.has_payload = true;
    e.timestamp = (int64_t)now + b->cfg.wall_offset_ms;
    e.seq = b->pub.next_seq;
    e.epoch = b->pub.epoch;
    e.has_epoch = true;
    e.qos = (uint8_t)qos;
    json_writer_t w;
    json_writer_init(&w, b->ring_text + topic->len + 1, ZQ_BRK_FRAME_MAX);
    brk_envelope_write(&w, &e);
    size_t n = json_finish(&w);
    return n == 0 ? 0 : topic->len + 1u + n;
}

static void lvc_store(brk_t *b, const brk_name_t *topic, const char *frame, size_t len,
                      uint64_t seq);

zq_err_t brk_publish(brk_t *b, uint64_t now, const char *topic, const char *payload, size_t len,
                     brk_qos_t qos)
{
    return brk_publish_seq(b, now, topic, payload, len, qos, NULL);
}

bool brk_publish_settled(const brk_t *b, uint64_t seq)
{
    uint32_t cursor;
    brk_ring_entry_t e;
    if (seq == 0 || !brk_ring_find_after(&b->pub.ring, seq - 1, &cursor) ||
        !brk_ring_next(&b->pub.ring, &cursor, &e) || e.seq != seq) {
        return true; /* gone from the ring: only what nobody owes an ack for is evicted */
    }
    return e.pending == 0;
}

zq_err_t brk_publish_seq(brk_t *b, uint64_t now, const char *topic, const char *payload,
                         size_t len, brk_qos_t qos, uint64_t *seq)
{
    brk_name_t name;
    json_value_t value;
    size_t tlen = strlen(topic);
    zq_err_t err = brk_name_set(&name, topic, tlen);
    /* A '+' or '#' in a topic is no wildcard: a name no exact pattern could name (MQTT 3.1.1
     * §4.7.1.1 forbids it). From a peer, such a topic is still delivered (deliver.c). */
    if (err == ZQ_OK && brk_topic_problem(topic, tlen) != NULL) {
        err = ZQ_ERR_MALFORMED;
    }
    if (err != ZQ_OK || json_parse(payload, len, &value) != ZQ_OK) {
        return err != ZQ_OK ? err : ZQ_ERR_MALFORMED;
    }
    size_t n = write_entry(b, now, &name, value, qos);
    if (n == 0) {
        return ZQ_ERR_TOO_LONG;
    }
    uint32_t pending = qos == BRK_QOS_1 ? pending_for(b, name.text, name.len) : 0;
    err = brk_ring_append(&b->pub.ring, b->pub.next_seq, b->ring_text, (uint32_t)n, pending);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        b->pub.blocked = true;
        brk_note_blocked(b);
        return err;
    }
    if (err != ZQ_OK) {
        return err;
    }
    lvc_store(b, &name, b->ring_text + name.len + 1, n - name.len - 1u, b->pub.next_seq);
    if (seq != NULL) {
        *seq = b->pub.next_seq;
    }
    b->pub.next_seq++;
    brk_pub_pump(b, now);
    return ZQ_OK;
}

/* ---- Fan-out ------------------------------------------------------------------------------- */

/* Seqs that went to the peer in ZeroQ's form before its late hello (PROTOCOL.md §2). */
static bool sent_in_zeroq_form(const brk_peer_t *p, uint64_t seq)
{
    return seq >= p->zeroq_from && seq <= p->zeroq_to;
}

/* What a peer that delivered up to @p seq has: what went to it in ZeroQ's form is never acked on
 * its own (ZeroQ has no acks), so an ack or resume point just before it covers it. */
static uint64_t delivered_upto(const brk_peer_t *p, uint64_t seq)
{
    return sent_in_zeroq_form(p, seq + 1) ? p->zeroq_to : seq;
}

/* Tells a zq peer that seqs [from, to] are gone, less an end in what it had in ZeroQ's form. A
 * range around all of that (rare: the ring dropped the replay and later messages) says too
 * much rather than too little: one lost report is due at a time, widened until it goes. */
static void announce_lost(brk_t *b, brk_peer_t *p, uint64_t from, uint64_t to)
{
    from = sent_in_zeroq_form(p, from) ? p->zeroq_to + 1 : from;
    to = sent_in_zeroq_form(p, to) ? p->zeroq_from - 1 : to;
    if (from > to) {
        return;
    }
    if (!p->lost_due) {
        p->lost = (brk_lost_t){b->pub.epoch, from, to};
        p->lost_due = true;
    } else {
        p->lost.to = to; /* widen the range not yet announced */
    }
}

/* Entries the ring dropped before this peer got them: it is told (a ZeroQ peer cannot be). */
static void skip_evicted(brk_t *b, uint8_t slot)
{
    brk_peer_t *p = &b->peers[slot];
    uint64_t first = b->pub.ring.first_seq;
    if (b->pub.ring.count == 0) {
        first = b->pub.next_seq; /* everything sent so far is gone */
    }
    if (p->sent_seq + 1 >= first) {
        return;
    }
    if (p->zq) {
        announce_lost(b, p, p->sent_seq + 1, first - 1);
    }
    p->sent_seq = first - 1;
}

static void pump_peer(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_peer_t *p = &b->peers[slot];
    skip_evicted(b, slot);
    uint32_t cursor;
    if (!brk_ring_find_after(&b->pub.ring, p->sent_seq, &cursor)) {
        return;
    }
    brk_ring_entry_t e;
    while (brk_ring_next(&b->pub.ring, &cursor, &e)) {
        size_t tlen = strlen(e.text); /* the topic, before the NUL */
        if (!sent_in_zeroq_form(p, e.seq) && brk_peer_wants(b, slot, e.text, tlen)) {
            zq_err_t err = brk_send_text(b, now, slot, e.text + tlen + 1, e.len - tlen - 1u);
            if (err == ZQ_ERR_WOULD_BLOCK) {
                return; /* its channel is full: the rest waits for room */
            }
        }
        p->sent_seq = e.seq;
    }
}

static void send_last_values(brk_t *b, uint64_t now, uint8_t slot);

void brk_pub_pump(brk_t *b, uint64_t now)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        const brk_peer_t *p = &b->peers[i];
        if (p->open && p->lvc_next >= 0) {
            send_last_values(b, now, i);
        }
        if (p->open && p->classified && (!p->zq || p->sub_received) &&
            p->sent_seq + 1 < b->pub.next_seq) {
            pump_peer(b, now, i);
        }
    }
}

/* ---- Peers coming and going ---------------------------------------------------------------- */

void brk_pub_peer_up(brk_t *b, uint64_t now, uint8_t slot)
{
    (void)now;
    brk_peer_t *p = &b->peers[slot];
    p->sent_seq = b->pub.next_seq - 1; /* live from now on; a resume or receiver rewinds it */
    p->joined_seq = p->sent_seq;
    p->lvc_next = -1;
    int r = find_receiver(&b->pub, p->fp);
    if (r >= 0) { /* a QoS 1 receiver back: everything it has not acked goes again */
        brk_receiver_t *rc = &b->pub.receivers[r];
        rc->peer = (int8_t)slot;
        p->receiver = (int8_t)r;
        p->sent_seq = rc->acked < p->sent_seq ? rc->acked : p->sent_seq;
        /* Replayed to, so no last values as well (PROTOCOL.md §7): those would be the same
         * messages again, which lvc's are not deduplicated as (a receiver kept across our
         * restart, brk_receiver_restore(), names no resume point of our new epoch). */
        p->resumed = true;
    }
}

void brk_pub_peer_down(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_peer_t *p = &b->peers[slot];
    if (p->receiver >= 0 && b->pub.receivers[p->receiver].peer == (int8_t)slot) {
        brk_receiver_t *rc = &b->pub.receivers[p->receiver]; /* (not back on another slot) */
        rc->peer = -1;
        rc->left_at = now; /* it has linger_ms to come back */
        rc->wants_all = p->wants_all;
        rc->n_topics = p->n_topics;
        memcpy(rc->topics, p->topics, p->n_topics * sizeof p->topics[0]);
    }
    p->receiver = -1;
}

void brk_pub_taken_for_zeroq(brk_t *b, uint8_t slot)
{
    brk_peer_t *p = &b->peers[slot];
    p->zeroq_from = p->sent_seq + 1;
}

void brk_pub_resume(brk_t *b, uint64_t now, uint8_t slot, uint64_t seq)
{
    (void)now;
    brk_peer_t *p = &b->peers[slot];
    /* A zq peer taken for ZeroQ (its hello was lost, PROTOCOL.md §2) has had our messages
     * since then in ZeroQ's form, and delivered them: the replay goes around them. */
    p->zeroq_to = p->zeroq_from > 0 ? p->sent_seq : 0;
    /* The subscriber's word is the truth: it delivered everything up to seq (it drops what is
     * not above it), so replay starts there, and QoS 1 messages up to it count as acked. */
    p->sent_seq = seq < b->pub.next_seq ? seq : b->pub.next_seq - 1;
    p->resumed = true;
    int8_t r = p->receiver;
    if (r >= 0) {
        uint64_t upto = delivered_upto(p, seq);
        brk_receiver_t *rc = &b->pub.receivers[r];
        rc->acked = upto > rc->acked ? upto : rc->acked;
        brk_ring_ack(&b->pub.ring, 1u << r, upto);
    }
}

/* ---- Acks ---------------------------------------------------------------------------------- */

void brk_on_ack(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj)
{
    (void)now;
    brk_ack_t a;
    if (brk_ack_read(obj, &a) != ZQ_OK) {
        b->stats.rx_malformed++;
        return;
    }
    const brk_peer_t *p = &b->peers[slot];
    int8_t r = p->receiver;
    if (a.epoch != b->pub.epoch || r < 0) {
        return; /* an ack of an earlier run of ours, or from a peer we track no QoS 1 for */
    }
    uint64_t upto = delivered_upto(p, a.upto);
    brk_receiver_t *rc = &b->pub.receivers[r];
    rc->acked = upto > rc->acked ? upto : rc->acked;
    brk_ring_ack(&b->pub.ring, 1u << r, upto);
    if (b->pub.blocked) {
        b->pub.blocked = false;
        brk_note_room(b);
    }
}

/* ---- Lingering receivers ------------------------------------------------------------------- */

uint64_t brk_pub_next_timeout(const brk_t *b)
{
    uint64_t t = ZQ_TIME_NEVER;
    for (int i = 0; i < ZQ_BRK_MAX_RECEIVERS; i++) {
        const brk_receiver_t *rc = &b->pub.receivers[i];
        if (rc->used && rc->peer < 0) {
            t = zq_time_min(t, rc->left_at + b->cfg.linger_ms);
        }
    }
    return t;
}

void brk_pub_timeout(brk_t *b, uint64_t now)
{
    for (int i = 0; i < ZQ_BRK_MAX_RECEIVERS; i++) {
        brk_receiver_t *rc = &b->pub.receivers[i];
        if (!rc->used || rc->peer >= 0 || now < rc->left_at + b->cfg.linger_ms) {
            continue;
        }
        uint32_t missed = brk_ring_forget(&b->pub.ring, 1u << i);
        rc->used = false;
        if (missed > 0) { /* never silent: the application hears what it lost */
            b->stats.undelivered += missed;
            brk_event_t *ev = brk_push_event(b, BRK_EVENT_UNDELIVERED);
            if (ev != NULL) {
                ev->count = missed;
            }
            brk_note_room(b);
        }
    }
}

/* ---- Last-value cache (PROTOCOL.md §7) ----------------------------------------------------- */

static char *lvc_slot(brk_t *b, size_t i)
{
    return b->pub.lvc_buf + i * BRK_LVC_SLOT;
}

static int lvc_find(brk_t *b, const brk_name_t *topic)
{
    for (int i = 0; i < ZQ_BRK_LVC_TOPICS; i++) {
        const brk_lvc_entry_t *e = &b->pub.lvc[i];
        if (e->used && e->topic_len == topic->len &&
            memcmp(lvc_slot(b, (size_t)i), topic->text, topic->len) == 0) {
            return i;
        }
    }
    return -1;
}

/* Keeps the newest frame of each topic; a frame too big for a slot is not cached. */
static void lvc_store(brk_t *b, const brk_name_t *topic, const char *frame, size_t len,
                      uint64_t seq)
{
    if (topic->len + len > BRK_LVC_SLOT) {
        return;
    }
    int i = lvc_find(b, topic);
    if (i < 0) {
        for (i = 0; i < ZQ_BRK_LVC_TOPICS && b->pub.lvc[i].used; i++) {
        }
        if (i == ZQ_BRK_LVC_TOPICS) { /* full: the oldest-placed topic makes room */
            i = b->pub.next_lvc;
            b->pub.next_lvc = (uint8_t)((b->pub.next_lvc + 1) % ZQ_BRK_LVC_TOPICS);
        }
    }
    brk_lvc_entry_t *e = &b->pub.lvc[i];
    memcpy(lvc_slot(b, (size_t)i), topic->text, topic->len);
    memcpy(lvc_slot(b, (size_t)i) + topic->len, frame, len);
    *e = (brk_lvc_entry_t){true, topic->len, (uint16_t)len, seq};
}

/* The cached frame with ,"lvc":1 before its closing brace, in b->out. */
static size_t lvc_frame(brk_t *b, size_t i)
{
    static const char mark[] = ",\"lvc\":1}";
    const brk_lvc_entry_t *e = &b->pub.lvc[i];
    const char *frame = lvc_slot(b, i) + e->topic_len;
    size_t n = e->text_len - 1u; /* without its '}' */
    if (n + sizeof mark > sizeof b->out) {
        return 0;
    }
    memcpy(b->out, frame, n);
    memcpy(b->out + n, mark, sizeof mark - 1);
    return n + sizeof mark - 1;
}

/* Offers a newcomer (no resume: a returning peer is replayed to instead) the last values it
 * wants, published before it came. They may come in any seq order: the receiver neither
 * dedups them by seq nor moves its resume point with them (deliver.c). */
static void send_last_values(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_peer_t *p = &b->peers[slot];
    for (; p->lvc_next >= 0 && p->lvc_next < ZQ_BRK_LVC_TOPICS; p->lvc_next++) {
        const brk_lvc_entry_t *e = &b->pub.lvc[p->lvc_next];
        if (!e->used || e->seq > p->joined_seq ||
            !brk_peer_wants(b, slot, lvc_slot(b, (size_t)p->lvc_next), e->topic_len)) {
            continue;
        }
        size_t n = lvc_frame(b, (size_t)p->lvc_next);
        if (n > 0 && brk_send_text(b, now, slot, b->out, n) == ZQ_ERR_WOULD_BLOCK) {
            return;
        }
    }
    p->lvc_next = -1;
}

void brk_pub_sub_changed(brk_t *b, uint64_t now, uint8_t slot)
{
    brk_peer_t *p = &b->peers[slot];
    if (!p->classified) {
        return; /* a sub before the hello (lost, it comes again): the hello's resume point
                   first, then last values, or both would send the same messages */
    }
    (void)receiver_of(b, slot);
    if (!p->lvc_offered && !p->resumed) {
        p->lvc_offered = true;
        p->lvc_next = 0;
        send_last_values(b, now, slot);
    }
    pump_peer(b, now, slot);
}

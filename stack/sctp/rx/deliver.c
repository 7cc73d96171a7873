/* Receiving DATA (RFC 9260 §6.2, §6.5, §6.6, §6.9): each chunk is copied into the receive
 * ring, then handed to sctp_read() as soon as its stream's order allows: ordered messages by
 * SSN, unordered ones when they begin, and every later fragment of a message right after the
 * one before it, so a message larger than the ring still gets through, piece by piece. */
#include <string.h>

#include "stack/sctp/sctp_internal.h"

#define IN_ABORTED_PIECE 0x80u /* data_flags of an empty piece that ends an abandoned message */

static in_rec_t *in_at(const sctp_assoc_t *a, uint32_t off)
{
    return (in_rec_t *)(void *)sctp_ring_at(&a->in, off);
}

static uint32_t record_size(size_t len)
{
    return (uint32_t)(sizeof(in_rec_t) + ((len + 3u) & ~(size_t)3u));
}

static bool in_is_free(const rec_header_t *h)
{
    return h->state == IN_FREE;
}

/* ---- Delivery order --------------------------------------------------------------------- */

static bool deliverable(const in_rec_t *r, const sctp_stream_t *s)
{
    if (s->flags & SCTP_STREAM_IN_MESSAGE) {
        return r->tsn == s->in_next_tsn; /* the next piece of the message under way */
    }
    if (!(r->data_flags & SCTP_DATA_BEGIN)) {
        return false;
    }
    return (r->data_flags & SCTP_DATA_UNORDERED) || r->ssn == s->in_ssn;
}

/* Moves a record to the read queue and the stream past it. False if the queue is full. */
static bool queue_for_read(sctp_assoc_t *a, uint32_t off, in_rec_t *r, sctp_stream_t *s)
{
    if (a->rq_count == ZQ_SCTP_READ_QUEUE) {
        return false; /* delivery pauses until the application reads: nothing is dropped */
    }
    a->read_queue[(a->rq_head + a->rq_count++) % ZQ_SCTP_READ_QUEUE] = off;
    r->h.state = IN_QUEUED;
    if (r->data_flags & SCTP_DATA_END) {
        bool ordered = !(r->data_flags & SCTP_DATA_UNORDERED);
        s->flags &= (uint16_t)~SCTP_STREAM_IN_MESSAGE;
        s->in_ssn = (uint16_t)(s->in_ssn + ordered);
    } else {
        s->flags |= SCTP_STREAM_IN_MESSAGE;
        s->in_next_tsn = r->tsn + 1;
    }
    return true;
}

/* RFC 3758 §3.6: after FORWARD TSN, a stream steps over abandoned SSNs up to skip_ssn, but
 * the messages of that range that did arrive are delivered first, in SSN order. Returns
 * whether in_ssn moved. */
static bool skip_abandoned(sctp_assoc_t *a, sctp_stream_t *s)
{
    if (!(s->flags & SCTP_STREAM_SKIPPING) || (s->flags & SCTP_STREAM_IN_MESSAGE)) {
        return false;
    }
    if (ssn_lt(s->skip_ssn, s->in_ssn)) {
        s->flags &= (uint16_t)~SCTP_STREAM_SKIPPING; /* delivery already went past it */
        return false;
    }
    bool found = false;
    uint16_t lowest = s->skip_ssn;
    for (uint32_t off = sctp_ring_first(&a->in); off != SCTP_NO_OFFSET;
         off = sctp_ring_next(&a->in, off)) {
        const in_rec_t *r = in_at(a, off);
        bool candidate = r->h.state == IN_WAITING && r->stream == s->id &&
                         (r->data_flags & SCTP_DATA_BEGIN) &&
                         !(r->data_flags & SCTP_DATA_UNORDERED) && !ssn_lt(r->ssn, s->in_ssn) &&
                         !ssn_lt(s->skip_ssn, r->ssn);
        if (candidate && (!found || ssn_lt(r->ssn, lowest))) {
            lowest = r->ssn;
            found = true;
        }
    }
    if (found && lowest == s->in_ssn) {
        return false; /* deliverable as it is: the normal pass takes it */
    }
    if (found) {
        s->in_ssn = lowest; /* step over the abandoned SSNs before it */
    } else {
        s->in_ssn = (uint16_t)(s->skip_ssn + 1);
        s->flags &= (uint16_t)~SCTP_STREAM_SKIPPING;
    }
    return true;
}

/* Delivers every waiting record that has become deliverable, until none moves. */
void sctp_deliver_waiting(sctp_assoc_t *a)
{
    bool moved = true;
    while (moved && a->rq_count < ZQ_SCTP_READ_QUEUE) {
        moved = false;
        for (uint32_t off = sctp_ring_first(&a->in); off != SCTP_NO_OFFSET && a->n_waiting > 0;
             off = sctp_ring_next(&a->in, off)) {
            in_rec_t *r = in_at(a, off);
            sctp_stream_t *s = r->h.state == IN_WAITING ? sctp_stream_find(a, r->stream) : NULL;
            if (s != NULL && deliverable(r, s) && queue_for_read(a, off, r, s)) {
                a->n_waiting--;
                moved = true;
            }
        }
        for (uint8_t i = 0; i < a->n_streams && !moved; i++) {
            moved = skip_abandoned(a, &a->streams[i]);
        }
    }
}

/* ---- DATA in ---------------------------------------------------------------------------- */

static void note_duplicate(sctp_assoc_t *a, uint32_t tsn)
{
    a->stats.rx_dup_tsns++;
    if (a->n_dups < ZQ_SCTP_MAX_DUP_TSNS) {
        a->dups[a->n_dups++] = tsn;
    }
}

/* A record moved by compaction: the read queue and the piece lent to the reader follow. */
static void record_moved(void *ctx, uint32_t from, uint32_t to)
{
    sctp_assoc_t *a = ctx;
    for (uint16_t i = 0; i < a->rq_count; i++) {
        uint32_t *q = &a->read_queue[(a->rq_head + i) % ZQ_SCTP_READ_QUEUE];
        *q = *q == from ? to : *q;
    }
    a->last_read = a->last_read == from ? to : a->last_read;
}

static bool has_room(const sctp_assoc_t *a, uint32_t size, uint32_t reserve)
{
    return a->in.cap - a->in.used >= size + reserve && sctp_ring_largest_free(&a->in) >= size;
}

/* Turns the ring so that it starts at offset 0; the read queue and the lent piece follow. */
static void rotate_to_front(sctp_assoc_t *a)
{
    uint32_t shift = sctp_ring_rotate_to_front(&a->in);
    for (uint16_t i = 0; i < a->rq_count; i++) {
        uint32_t *q = &a->read_queue[(a->rq_head + i) % ZQ_SCTP_READ_QUEUE];
        *q = (*q + a->in.cap - shift) % a->in.cap;
    }
    if (a->last_read != SCTP_NO_OFFSET) {
        a->last_read = (a->last_read + a->in.cap - shift) % a->in.cap;
    }
}

/* Room for @p size bytes (plus @p reserve left over). Compaction reuses pieces read and freed
 * behind still-waiting out-of-order data: without it, chunks that fill a gap one by one use up
 * the reserve and the window never opens again. Compaction keeps the ring's shape, so a record
 * that no longer fits before the end of the buffer still goes to its start behind a WRAP
 * filler, and those bytes count as used: a ring of 12 waiting 1,216-byte records left 928
 * bytes "free" beside an 864-byte filler, where the gap's missing chunk needed 1,216, and a
 * page sending to zq stalled for good. Turned to start at 0, the ring needs no filler. */
static bool make_room(sctp_assoc_t *a, uint32_t size, uint32_t reserve)
{
    if (has_room(a, size, reserve)) {
        return true;
    }
    sctp_ring_compact(&a->in, in_is_free, record_moved, a);
    a->stats.rx_compactions++;
    if (has_room(a, size, reserve)) {
        return true;
    }
    rotate_to_front(a);
    sctp_ring_compact(&a->in, in_is_free, record_moved, a); /* the WRAP filler goes */
    return has_room(a, size, reserve);
}

/* §6.2: the chunk that fills the first gap may use the reserve; others may not. */
static uint32_t store(sctp_assoc_t *a, const sctp_data_chunk_t *d)
{
    uint32_t size = record_size(d->len);
    uint32_t reserve = d->tsn == a->peer_cum_tsn + 1 ? 0 : sctp_gap_reserve(a);
    if (!make_room(a, size, reserve)) {
        return SCTP_NO_OFFSET;
    }
    uint32_t off = sctp_ring_alloc(&a->in, size);
    if (off == SCTP_NO_OFFSET) {
        return off;
    }
    in_rec_t *r = in_at(a, off);
    memset(r, 0, sizeof *r);
    r->h.size = (uint16_t)size;
    r->h.kind = REC_DATA;
    r->h.state = IN_WAITING;
    r->data_flags = d->flags & (SCTP_DATA_BEGIN | SCTP_DATA_END | SCTP_DATA_UNORDERED);
    r->stream = d->stream;
    r->ssn = d->ssn;
    r->tsn = d->tsn;
    r->ppid = d->ppid;
    r->len = (uint32_t)d->len;
    memcpy(r + 1, d->data, d->len);
    return off;
}

static void abort_no_user_data(sctp_assoc_t *a)
{
    a->abort_cause = SCTP_CAUSE_NO_USER_DATA; /* §6.2: DATA with no data is answered so */
    a->ctl |= SCTP_CTL_ABORT;
    sctp_fail(a, SCTP_ABORT_BY_US, SCTP_CAUSE_NO_USER_DATA);
}

void sctp_handle_data(sctp_assoc_t *a, const sctp_chunk_t *c, bool *immediate_sack)
{
    sctp_data_chunk_t d;
    if (sctp_data_parse(c, &d) != ZQ_OK) {
        a->stats.rx_malformed++;
        return;
    }
    if (d.len == 0) {
        abort_no_user_data(a);
        return;
    }
    /* §6.2: the sender asks for this SACK at once (the I bit, §3.3.1). */
    *immediate_sack |= (d.flags & SCTP_DATA_IMMEDIATE) != 0;
    /* A running average (1/8 weight) of payload sizes, for the window's overhead. */
    a->avg_chunk = (7 * a->avg_chunk + (uint32_t)d.len + 7) / 8;
    a->max_chunk = d.len > a->max_chunk ? (uint32_t)d.len : a->max_chunk;
    if (sctp_tracker_has(a, d.tsn)) {
        note_duplicate(a, d.tsn);
        *immediate_sack = true; /* §6.2: report duplicates at once */
        return;
    }
    uint32_t gap_before = a->highest_rx_tsn - a->peer_cum_tsn;
    if (d.tsn - a->peer_cum_tsn > ZQ_SCTP_TRACKER_TSNS) {
        a->stats.rx_out_of_window++;
        *immediate_sack = true;
        return;
    }
    sctp_stream_t *s = sctp_stream_get(a, d.stream);
    uint32_t off = s != NULL ? store(a, &d) : SCTP_NO_OFFSET;
    if (s != NULL && off == SCTP_NO_OFFSET) {
        a->stats.rx_out_of_window++; /* over the window we advertised: not acked, resent */
        *immediate_sack = true;
        return;
    }
    sctp_tracker_mark(a, d.tsn);
    sctp_tracker_advance(a);
    if (s == NULL) {
        a->stats.rx_no_stream_slot++; /* acknowledged, and counted as lost to the app */
        return;
    }
    a->n_waiting++;
    /* §6.7: SACK at once while there is a gap, or when this chunk filled one. */
    *immediate_sack |= a->highest_rx_tsn != a->peer_cum_tsn || gap_before > 1;
    in_rec_t *r = in_at(a, off);
    if (deliverable(r, s) && queue_for_read(a, off, r, s)) {
        a->n_waiting--;
        /* Only a delivery changes what the stream waits for: then what waited behind this
         * chunk may follow. A chunk that waits itself changes nothing for the others, so
         * chunks arriving behind a hole do not walk the ring again each. */
        if (a->n_waiting > 0) {
            sctp_deliver_waiting(a);
        }
    }
}

/* ---- Reading ------------------------------------------------------------------------------ */

void sctp_release_read(sctp_assoc_t *a)
{
    if (a->last_read == SCTP_NO_OFFSET) {
        return;
    }
    in_at(a, a->last_read)->h.state = IN_FREE;
    a->last_read = SCTP_NO_OFFSET;
    sctp_ring_reclaim(&a->in, in_is_free);
    if (sctp_window_opened(a)) {
        a->sack_now = true;
        a->sack_due = true;
    }
}

bool sctp_read(sctp_assoc_t *a, sctp_message_t *msg)
{
    sctp_release_read(a);
    if (a->rq_count == 0 && a->n_waiting > 0) {
        sctp_deliver_waiting(a); /* the queue may have been full */
    }
    if (a->rq_count == 0) {
        return false;
    }
    uint32_t off = a->read_queue[a->rq_head];
    a->rq_head = (uint16_t)((a->rq_head + 1) % ZQ_SCTP_READ_QUEUE);
    a->rq_count--;
    const in_rec_t *r = in_at(a, off);
    msg->stream = r->stream;
    msg->ppid = r->ppid;
    msg->unordered = (r->data_flags & SCTP_DATA_UNORDERED) != 0;
    msg->first = (r->data_flags & SCTP_DATA_BEGIN) != 0;
    msg->last = (r->data_flags & SCTP_DATA_END) != 0;
    msg->aborted = (r->data_flags & IN_ABORTED_PIECE) != 0;
    msg->data = (const uint8_t *)(r + 1);
    msg->len = r->len;
    a->last_read = off;
    return true;
}

bool sctp_next_ppid(const sctp_assoc_t *a, uint32_t *ppid)
{
    if (a->rq_count == 0) {
        return false;
    }
    *ppid = in_at(a, a->read_queue[a->rq_head])->ppid;
    return true;
}

/* ---- FORWARD TSN (RFC 3758 §3.6) ---------------------------------------------------------- */

/* Ends a message whose first pieces were delivered and whose rest the sender abandoned. */
static void end_abandoned_message(sctp_assoc_t *a, sctp_stream_t *s)
{
    uint32_t off = sctp_ring_alloc(&a->in, sizeof(in_rec_t));
    s->flags &= (uint16_t)~SCTP_STREAM_IN_MESSAGE;
    if (off == SCTP_NO_OFFSET) {
        return; /* the ring is full of what follows: the next piece starts a new message */
    }
    in_rec_t *r = in_at(a, off);
    memset(r, 0, sizeof *r);
    r->h.size = sizeof *r;
    r->h.kind = REC_DATA;
    r->data_flags = SCTP_DATA_END | SCTP_DATA_UNORDERED | IN_ABORTED_PIECE;
    r->stream = s->id;
    r->tsn = s->in_next_tsn;
    if (!queue_for_read(a, off, r, s)) {
        r->h.state = IN_FREE;
    }
}

static const in_rec_t *find_waiting(const sctp_assoc_t *a, uint32_t tsn)
{
    for (uint32_t off = sctp_ring_first(&a->in); off != SCTP_NO_OFFSET;
         off = sctp_ring_next(&a->in, off)) {
        const in_rec_t *r = in_at(a, off);
        if (r->h.state == IN_WAITING && r->tsn == tsn) {
            return r;
        }
    }
    return NULL;
}

/* Whether @p x is the next piece of a message whose first pieces were already delivered. */
static bool continues_delivery(const sctp_assoc_t *a, const in_rec_t *x)
{
    const sctp_stream_t *s = sctp_stream_find_const(a, x->stream);
    return s != NULL && (s->flags & SCTP_STREAM_IN_MESSAGE) && s->in_next_tsn == x->tsn;
}

/* Whether every fragment of @p r's message is here, or already delivered (fragments have
 * consecutive TSNs). */
static bool message_complete(const sctp_assoc_t *a, const in_rec_t *r)
{
    const in_rec_t *x = r;
    while (x != NULL && !(x->data_flags & SCTP_DATA_BEGIN) && !continues_delivery(a, x)) {
        x = find_waiting(a, x->tsn - 1);
    }
    while (x != NULL && !(x->data_flags & SCTP_DATA_END)) {
        x = find_waiting(a, x->tsn + 1);
    }
    return x != NULL;
}

/* Fragments the sender abandoned can never complete: free them. Whole messages stay, even
 * below the new cumulative TSN: they were received, and acknowledged. */
static void drop_stranded(sctp_assoc_t *a, uint32_t new_cum)
{
    for (uint32_t off = sctp_ring_first(&a->in); off != SCTP_NO_OFFSET;
         off = sctp_ring_next(&a->in, off)) {
        in_rec_t *r = in_at(a, off);
        if (r->h.state == IN_WAITING && tsn_le(r->tsn, new_cum) && !message_complete(a, r)) {
            r->h.state = IN_FREE;
            a->n_waiting--;
        }
    }
    sctp_ring_reclaim(&a->in, in_is_free);
}

void sctp_handle_forward_tsn(sctp_assoc_t *a, const sctp_chunk_t *c)
{
    sctp_forward_tsn_chunk_t f;
    if (sctp_forward_tsn_parse(c, &f) != ZQ_OK) {
        a->stats.rx_malformed++;
        return;
    }
    if (tsn_le(f.new_cum_tsn, a->peer_cum_tsn)) {
        return; /* old news; the SACK that follows says where we are */
    }
    sctp_tracker_forward(a, f.new_cum_tsn);
    drop_stranded(a, f.new_cum_tsn);
    for (uint8_t i = 0; i < a->n_streams; i++) {
        sctp_stream_t *s = &a->streams[i];
        if ((s->flags & SCTP_STREAM_IN_MESSAGE) && tsn_le(s->in_next_tsn, f.new_cum_tsn) &&
            find_waiting(a, s->in_next_tsn) == NULL) {
            end_abandoned_message(a, s);
        }
    }
    for (uint16_t i = 0; i < f.n_streams; i++) {
        sctp_stream_t *s = sctp_stream_find(a, f.streams[i].stream);
        if (s == NULL || ssn_lt(f.streams[i].ssn, s->in_ssn)) {
            continue;
        }
        bool extend = !(s->flags & SCTP_STREAM_SKIPPING) || ssn_lt(s->skip_ssn, f.streams[i].ssn);
        s->skip_ssn = extend ? f.streams[i].ssn : s->skip_ssn;
        s->flags |= SCTP_STREAM_SKIPPING;
    }
    sctp_deliver_waiting(a);
}

void sctp_discard_stream_input(sctp_assoc_t *a, uint16_t stream)
{
    for (uint32_t off = sctp_ring_first(&a->in); off != SCTP_NO_OFFSET;
         off = sctp_ring_next(&a->in, off)) {
        in_rec_t *r = in_at(a, off);
        if (r->stream == stream && r->h.state == IN_WAITING) {
            r->h.state = IN_FREE;
            a->n_waiting--;
        }
    }
    sctp_ring_reclaim(&a->in, in_is_free);
}

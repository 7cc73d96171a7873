/* sctp_send(): a message becomes fragments of at most one DATA chunk each (RFC 9260 §6.9),
 * appended to the send ring in order. A fragment keeps its ring record until the peer
 * acknowledges it: the ring is the retransmission queue too. TSNs and SSNs are given when a
 * message first goes out, so a message abandoned before that leaves no trace on the wire. */
#include <string.h>

#include "stack/sctp/sctp_internal.h"

static uint32_t record_size(size_t payload)
{
    return (uint32_t)(sizeof(out_rec_t) + ((payload + 3u) & ~(size_t)3u));
}

/* Bytes the fragments of a @p len-byte message take in the ring. */
static uint64_t message_size(const sctp_assoc_t *a, size_t len)
{
    size_t frag = sctp_max_fragment(a);
    size_t full = len / frag;
    size_t rest = len % frag;
    return (uint64_t)full * record_size(frag) + (rest ? record_size(rest) : 0);
}

static void fill_record(sctp_assoc_t *a, out_rec_t *r, uint16_t stream, uint32_t ppid,
                        const uint8_t *data, size_t len, const sctp_send_opts_t *opts)
{
    memset(r, 0, sizeof *r);
    r->h.size = (uint16_t)record_size(len);
    r->h.kind = REC_DATA;
    r->stream = stream;
    r->ppid = ppid;
    r->len = (uint16_t)len;
    r->max_rtx = opts->max_retransmits;
    r->data_flags = opts->unordered ? SCTP_DATA_UNORDERED : 0;
    if (opts->lifetime_ms > 0) {
        r->expires = sctp_clock(a) + opts->lifetime_ms;
        r->expires += r->expires == 0; /* 0 means "never" */
    }
    memcpy(r + 1, data, len);
}

/* Nothing is in flight and nothing but the open message's held record waits to be sent: the
 * ring's free space will not grow until more is queued. */
static bool only_the_held_record_waits(const sctp_assoc_t *a)
{
    return a->flight == 0 && (a->unsent_off == SCTP_NO_OFFSET || a->unsent_off == a->part_tail);
}

/* Appends fragments of @p data in order: every one or none when @p all, else as many as fit.
 * The first gets BEGIN when @p begins; END is the caller's to set. Returns the bytes appended,
 * with @p first and @p last the offsets of the first and last records appended. */
static size_t append_fragments(sctp_assoc_t *a, uint16_t stream, uint32_t ppid,
                               const uint8_t *data, size_t len, const sctp_send_opts_t *opts,
                               bool begins, bool all, uint32_t *first, uint32_t *last)
{
    sctp_ring_t saved = a->out;
    size_t frag = sctp_max_fragment(a);
    size_t done = 0;
    while (done < len) {
        size_t n = len - done < frag ? len - done : frag;
        uint32_t off = sctp_ring_alloc(&a->out, record_size(n));
        if (off == SCTP_NO_OFFSET && !all && only_the_held_record_waits(a)) {
            /* A part takes what room there is, in a shorter fragment, when no SACK will make
             * more: a ring of two or three fragments (a device's 2 KiB) holding only the open
             * message's held record may have no stretch a whole fragment fits, and that
             * record leaves only once more of the message is queued behind it. */
            uint32_t room = sctp_ring_largest_free(&a->out);
            n = room > record_size(0) && room - record_size(0) < n ? room - record_size(0) : n;
            off = sctp_ring_alloc(&a->out, record_size(n));
        }
        if (off == SCTP_NO_OFFSET) {
            if (all) {
                a->out = saved;
                return 0;
            }
            break;
        }
        out_rec_t *r = (out_rec_t *)(void *)sctp_ring_at(&a->out, off);
        fill_record(a, r, stream, ppid, data + done, n, opts);
        r->data_flags |= (uint8_t)(done == 0 && begins ? SCTP_DATA_BEGIN : 0);
        *first = done == 0 ? off : *first;
        *last = off;
        done += n;
    }
    return done;
}

/* §6.9 cuts a message into chunks that fill the path MTU. Parts appended one by one would
 * each end in a short chunk instead (a peer's 1160-byte DATA relayed as a part: 1132 + 28
 * bytes), twice the packets on the wire and twice the SACKs back. The open message's last
 * record is held unsent and has no TSN yet (transmit.c), so the next part first fills it up
 * to a whole fragment, in place when the ring is free right after it. Returns the bytes
 * taken. */
static size_t top_up_open_record(sctp_assoc_t *a, const uint8_t *data, size_t len)
{
    out_rec_t *r = (out_rec_t *)(void *)sctp_ring_at(&a->out, a->part_tail);
    size_t room = sctp_max_fragment(a) - r->len;
    size_t n = len < room ? len : room;
    uint32_t grown = record_size(r->len + n);
    if (n == 0 || (grown > r->h.size &&
                   !sctp_ring_extend(&a->out, a->part_tail, grown - r->h.size))) {
        return 0;
    }
    memcpy((uint8_t *)(r + 1) + r->len, data, n);
    r->len = (uint16_t)(r->len + n);
    return n;
}

/* What may be queued on @p stream now, for a new message (@p first) or the open one. */
static zq_err_t check_send(sctp_assoc_t *a, uint64_t now, uint16_t stream, bool first,
                           sctp_stream_t **s)
{
    a->now = now > a->now ? now : a->now;
    if (a->state != SCTP_STATE_ESTABLISHED) {
        return ZQ_ERR_STATE;
    }
    bool open = a->part_tail != SCTP_NO_OFFSET;
    if (first && open) {
        a->blocked = true; /* §6.9: one message's fragments take consecutive TSNs; WRITABLE */
        return ZQ_ERR_WOULD_BLOCK; /* follows once it has ended and room is back */
    }
    if (!first && (!open || a->part_stream != stream)) {
        return ZQ_ERR_STATE;
    }
    if (!first && (((const out_rec_t *)(const void *)sctp_ring_at(&a->out, a->part_tail))
                       ->h.state & OUT_ABANDONED)) {
        a->part_tail = SCTP_NO_OFFSET; /* RFC 3758 gave it up: FORWARD TSN skips it */
        return ZQ_ERR_TIMEOUT;
    }
    *s = sctp_stream_get(a, stream);
    if (*s == NULL) {
        return ZQ_ERR_CAPACITY;
    }
    return ((*s)->flags & SCTP_STREAM_RESETTING) && first ? ZQ_ERR_STATE : ZQ_OK;
}

/* Newly appended records from @p first become sendable, and the stream's buffered amount
 * grows by @p len. */
static void queued(sctp_assoc_t *a, sctp_stream_t *s, uint32_t first, size_t len)
{
    if (a->unsent_off == SCTP_NO_OFFSET) {
        a->unsent_off = first;
    }
    sctp_stream_unsent_changed(a, s, (int32_t)len);
}

zq_err_t sctp_send(sctp_assoc_t *a, uint64_t now, uint16_t stream, uint32_t ppid,
                   const uint8_t *data, size_t len, const sctp_send_opts_t *opts)
{
    static const sctp_send_opts_t reliable = {false, SCTP_RELIABLE, 0};
    opts = opts != NULL ? opts : &reliable;
    sctp_stream_t *s = NULL;
    zq_err_t err = check_send(a, now, stream, true, &s);
    if (err != ZQ_OK) {
        return err;
    }
    if (len == 0 || data == NULL) {
        return ZQ_ERR_INVALID_ARG; /* §6.1: DATA carries at least one byte */
    }
    if (message_size(a, len) > a->out.cap) {
        return ZQ_ERR_TOO_LONG;
    }
    uint32_t first = SCTP_NO_OFFSET;
    uint32_t last = SCTP_NO_OFFSET;
    if (append_fragments(a, stream, ppid, data, len, opts, true, true, &first, &last) == 0) {
        a->blocked = true;
        sctp_stream_forget_if_idle(a, s);
        return ZQ_ERR_WOULD_BLOCK;
    }
    ((out_rec_t *)(void *)sctp_ring_at(&a->out, last))->data_flags |= SCTP_DATA_END;
    queued(a, s, first, len);
    return ZQ_OK;
}

/* As much of a part as fits: first into the open message's held record, then as new
 * fragments, the last of which is held in turn. Returns the bytes taken. */
static size_t append_part(sctp_assoc_t *a, sctp_stream_t *s, const uint8_t *data, size_t len,
                          bool first)
{
    size_t topped = first ? 0 : top_up_open_record(a, data, len);
    if (topped > 0) {
        sctp_stream_unsent_changed(a, s, (int32_t)topped);
    }
    if (topped == len) {
        return topped;
    }
    uint32_t head = SCTP_NO_OFFSET;
    uint32_t tail = SCTP_NO_OFFSET;
    size_t n = append_fragments(a, s->id, a->part_ppid, data + topped, len - topped,
                                &a->part_opts, first, false, &head, &tail);
    if (n > 0) {
        a->part_tail = tail; /* held back until the next part says whether it ends here */
        queued(a, s, head, n);
    }
    return topped + n;
}

/* The open message ends with its held record. */
static void end_open_message(sctp_assoc_t *a)
{
    ((out_rec_t *)(void *)sctp_ring_at(&a->out, a->part_tail))->data_flags |= SCTP_DATA_END;
    a->part_tail = SCTP_NO_OFFSET;
}

zq_err_t sctp_send_part(sctp_assoc_t *a, uint64_t now, uint16_t stream, uint32_t ppid,
                        const uint8_t *data, size_t len, bool first, bool last,
                        const sctp_send_opts_t *opts, size_t *accepted)
{
    static const sctp_send_opts_t reliable = {false, SCTP_RELIABLE, 0};
    *accepted = 0;
    sctp_stream_t *s = NULL;
    zq_err_t err = check_send(a, now, stream, first, &s);
    if (err != ZQ_OK) {
        return err;
    }
    if ((len == 0 && first) || (len > 0 && data == NULL)) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (first) {
        a->part_stream = stream;
        a->part_ppid = ppid;
        a->part_opts = opts != NULL ? *opts : reliable;
    }
    size_t n = append_part(a, s, data, len, first);
    if (n == 0 && len > 0) {
        a->blocked = true;
        if (first) {
            sctp_stream_forget_if_idle(a, s);
        }
        return ZQ_ERR_WOULD_BLOCK;
    }
    if (n < len) {
        a->blocked = true; /* the rest waits for room: SCTP_EVENT_WRITABLE says when */
    }
    *accepted = n;
    if (last && n == len) {
        end_open_message(a);
    }
    return ZQ_OK;
}

uint32_t sctp_buffered_amount(const sctp_assoc_t *a, uint16_t stream)
{
    const sctp_stream_t *s = sctp_stream_find_const(a, stream);
    return s != NULL ? s->unsent : 0;
}

zq_err_t sctp_set_low_water(sctp_assoc_t *a, uint16_t stream, uint32_t bytes)
{
    sctp_stream_t *s = sctp_stream_get(a, stream);
    if (s == NULL) {
        return ZQ_ERR_CAPACITY;
    }
    s->low_water = bytes;
    if (s->unsent > bytes) {
        s->flags |= SCTP_STREAM_ABOVE_LOW;
    }
    return ZQ_OK;
}

uint32_t sctp_out_room(const sctp_assoc_t *a)
{
    return sctp_ring_largest_free(&a->out);
}

bool sctp_all_acked(const sctp_assoc_t *a)
{
    return a->out.used == 0;
}

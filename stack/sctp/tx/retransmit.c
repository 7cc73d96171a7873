/* Loss recovery: the T3-rtx timer (RFC 9260 §6.3.3) and partial reliability (RFC 3758): a
 * message whose retransmission limit or lifetime is spent is abandoned, and FORWARD TSN tells
 * the peer to move past it. */
#include "stack/sctp/sctp_internal.h"
#include "zq/log.h"

static out_rec_t *out_at(const sctp_assoc_t *a, uint32_t off)
{
    return (out_rec_t *)(void *)sctp_ring_at(&a->out, off);
}

void sctp_t3_expired(sctp_assoc_t *a)
{
    a->stats.t3_expirations++;
    if (++a->error_count > a->cfg.max_retransmits) {
        ZQ_LOGI("sctp", "peer unreachable after %u retransmissions", (unsigned)a->error_count);
        sctp_fail(a, SCTP_ABORT_MAX_RETRANSMITS, 0);
        return;
    }
    /* E1-E3: back off, collapse the window to one MTU, resend what is outstanding. */
    a->rto = a->rto * 2 > a->cfg.rto_max_ms ? a->cfg.rto_max_ms : a->rto * 2;
    uint32_t floor = 4u * a->cfg.mtu;
    a->ssthresh = a->cwnd / 2 > floor ? a->cwnd / 2 : floor;
    a->cwnd = a->cfg.mtu;
    a->partial_bytes_acked = 0;
    a->fast_recovery = false;
    a->rtt_tsn = 0;
    for (uint32_t off = sctp_ring_first(&a->out); off != SCTP_NO_OFFSET && off != a->unsent_off;
         off = sctp_ring_next(&a->out, off)) {
        out_rec_t *r = out_at(a, off);
        if ((r->h.state & OUT_SENT) &&
            !(r->h.state & (OUT_ACKED | OUT_GAP | OUT_ABANDONED | OUT_RTX))) {
            r->h.state |= OUT_RTX;
            a->flight -= r->len;
        }
    }
    if (tsn_lt(a->cum_ack_tsn, a->adv_peer_ack)) {
        a->need_fwd_tsn = true; /* the FORWARD TSN may have been lost */
    }
    a->t3_at = a->now + a->rto;
}

/* The record of the first fragment of the message @p off belongs to (fragments of a message
 * are consecutive in the ring), or SCTP_NO_OFFSET when it is gone: acknowledged and freed. */
static uint32_t message_start(const sctp_assoc_t *a, uint32_t off)
{
    uint32_t start = SCTP_NO_OFFSET;
    for (uint32_t o = sctp_ring_first(&a->out); o != SCTP_NO_OFFSET && o != off;
         o = sctp_ring_next(&a->out, o)) {
        if (out_at(a, o)->data_flags & SCTP_DATA_BEGIN) {
            start = o;
        }
    }
    return (out_at(a, off)->data_flags & SCTP_DATA_BEGIN) ? off : start;
}

static void abandon_record(sctp_assoc_t *a, out_rec_t *r)
{
    if (r->h.state & OUT_ABANDONED) {
        return;
    }
    if (r->h.state & OUT_SENT) {
        if (!(r->h.state & (OUT_ACKED | OUT_GAP | OUT_RTX))) {
            a->flight -= r->len;
        }
    } else {
        sctp_stream_t *s = sctp_stream_find(a, r->stream);
        if (s != NULL) {
            sctp_stream_unsent_changed(a, s, -(int32_t)r->len);
        }
    }
    r->h.state = (uint8_t)((r->h.state & ~OUT_RTX) | OUT_ABANDONED);
}

/* Whether the peer holds some of the message @p off belongs to. */
static bool partly_sent(const sctp_assoc_t *a, uint32_t off)
{
    uint32_t start = message_start(a, off);
    return start == SCTP_NO_OFFSET || (out_at(a, start)->h.state & OUT_SENT);
}

void sctp_abandon_message(sctp_assoc_t *a, uint32_t off)
{
    bool peer_has_part = partly_sent(a, off);
    uint32_t o = message_start(a, off);
    o = o != SCTP_NO_OFFSET ? o : off;
    if (!(out_at(a, o)->h.state & OUT_ABANDONED)) {
        a->stats.abandoned++;
    }
    while (o != SCTP_NO_OFFSET) {
        out_rec_t *r = out_at(a, o);
        bool unsent = !(r->h.state & OUT_SENT);
        abandon_record(a, r);
        if (a->unsent_off == o) {
            a->unsent_off = sctp_ring_next(&a->out, o);
        }
        if (unsent && peer_has_part) {
            /* RFC 3758 §3.5: FORWARD TSN can only skip TSNs; the peer holds the start of this
             * message, so the rest gets TSNs too (never sent) for the new cumulative TSN to
             * pass, and the peer drops the part it has. */
            sctp_assign_tsn(a, r);
            r->h.state |= OUT_SENT;
        }
        if (r->data_flags & SCTP_DATA_END) {
            break;
        }
        o = sctp_ring_next(&a->out, o);
    }
    sctp_update_adv_peer_ack(a);
}

zq_err_t sctp_send_part_abandon(sctp_assoc_t *a, uint64_t now)
{
    a->now = now > a->now ? now : a->now;
    uint32_t tail = a->part_tail;
    if (tail == SCTP_NO_OFFSET) {
        return ZQ_ERR_STATE;
    }
    a->part_tail = SCTP_NO_OFFSET;
    if (partly_sent(a, tail) && !a->peer_forward_tsn) {
        return ZQ_ERR_UNSUPPORTED; /* the peer would wait for the rest forever */
    }
    sctp_abandon_message(a, tail);
    return ZQ_OK;
}

/* RFC 3758 §3.5 C1: the Advanced.Peer.Ack.Point moves over TSNs acknowledged or abandoned. */
void sctp_update_adv_peer_ack(sctp_assoc_t *a)
{
    for (uint32_t off = sctp_ring_first(&a->out); off != SCTP_NO_OFFSET && off != a->unsent_off;
         off = sctp_ring_next(&a->out, off)) {
        const out_rec_t *r = out_at(a, off);
        if (!(r->h.state & OUT_SENT) || !tsn_lt(a->adv_peer_ack, r->tsn)) {
            continue;
        }
        if (r->tsn != a->adv_peer_ack + 1 || !(r->h.state & (OUT_ACKED | OUT_ABANDONED))) {
            break;
        }
        a->adv_peer_ack = r->tsn;
    }
    if (tsn_lt(a->cum_ack_tsn, a->adv_peer_ack)) {
        a->need_fwd_tsn = a->peer_forward_tsn;
    }
}

/* The FORWARD TSN chunk: the new cumulative TSN and, for ordered streams, the last SSN
 * abandoned on each (RFC 3758 §3.2). */
static void collect_forward_tsn(const sctp_assoc_t *a, sctp_forward_tsn_chunk_t *f)
{
    f->new_cum_tsn = a->adv_peer_ack;
    f->n_streams = 0;
    f->truncated = false;
    for (uint32_t off = sctp_ring_first(&a->out); off != SCTP_NO_OFFSET && off != a->unsent_off;
         off = sctp_ring_next(&a->out, off)) {
        const out_rec_t *r = out_at(a, off);
        if (!(r->h.state & OUT_SENT) || tsn_lt(a->adv_peer_ack, r->tsn)) {
            continue;
        }
        if (!(r->h.state & OUT_ABANDONED) || (r->data_flags & SCTP_DATA_UNORDERED)) {
            continue;
        }
        uint16_t i = 0;
        while (i < f->n_streams && f->streams[i].stream != r->stream) {
            i++;
        }
        if (i == f->n_streams) {
            if (f->n_streams == ZQ_SCTP_MAX_FWD_STREAMS) {
                continue; /* the next FORWARD TSN carries it */
            }
            f->n_streams++;
        } else if (ssn_lt(r->ssn, f->streams[i].ssn)) {
            continue;
        }
        f->streams[i].stream = r->stream;
        f->streams[i].ssn = r->ssn;
    }
}

size_t sctp_forward_tsn_size(const sctp_assoc_t *a)
{
    sctp_forward_tsn_chunk_t f;
    collect_forward_tsn(a, &f);
    return SCTP_CHUNK_HEADER_LEN + 4 + 4u * f.n_streams;
}

void sctp_write_forward_tsn(sctp_assoc_t *a, zq_writer_t *w)
{
    sctp_forward_tsn_chunk_t f;
    collect_forward_tsn(a, &f);
    sctp_forward_tsn_write(w, &f);
    a->need_fwd_tsn = false;
    if (a->t3_at == ZQ_TIME_NEVER) {
        a->t3_at = a->now + a->rto; /* retransmitted on T3 until acknowledged */
    }
}

/* Lifetimes that ran out while messages waited to be sent (RFC 3758 §3.5 A1). */
void sctp_abandon_expired(sctp_assoc_t *a)
{
    uint32_t now = sctp_clock(a);
    for (uint32_t off = a->unsent_off; off != SCTP_NO_OFFSET; off = sctp_ring_next(&a->out, off)) {
        const out_rec_t *r = out_at(a, off);
        if (!(r->h.state & OUT_ABANDONED) && r->expires != 0 && tsn_le(r->expires, now)) {
            sctp_abandon_message(a, off);
        }
    }
}

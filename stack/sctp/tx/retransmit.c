/* Loss recovery: the T3-rtx timer (RFC 9260 §6.3.3), the probe of a recovery that stalled
 * before T3-rtx, and partial reliability (RFC 3758): a message whose retransmission limit or
 * lifetime is spent is abandoned, and FORWARD TSN tells the peer to move past it. */
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
            out_mark_rtx(a, r);
            a->flight -= r->len;
        }
    }
    if (tsn_lt(a->cum_ack_tsn, a->adv_peer_ack)) {
        a->need_fwd_tsn = true; /* the FORWARD TSN may have been lost */
    }
    a->t3_at = a->now + a->rto;
    a->probe_at = ZQ_TIME_NEVER;
    a->probes = SCTP_PROBES_OFF; /* T3-rtx recovery: no probe until a SACK brings news */
}

/* ---- Probing a stalled recovery -----------------------------------------------------------
 *
 * A send buffer of a dozen chunks holds nothing new once a hole sits at its front: when the
 * retransmission that fills the hole is lost, or the SACK that reports it filled, nothing is
 * left in flight to bring another SACK, and only T3-rtx would notice, after RTO.Min (hundreds
 * of round trips on a short path).
 *
 * So while the peer owes a SACK at once, because it holds data above a hole (§6.7), or was
 * asked to with the I bit (§6.2, transmit.c; chunks that did not ask while an ask was owed
 * count as asked), or has a FORWARD TSN to act on (a stale one is
 * answered at once, RFC 3758 §3.6), and there is thus no delayed SACK to wait for, a sender
 * that hears nothing new for a probe timeout sends what the peer misses first again, in one
 * packet that ignores cwnd, like TCP's tail loss probe
 * (RFC 8985 §7: PTO = 2 SRTT, with its draft's 10 ms floor). Either way a SACK comes back (a
 * duplicate is reported at once, §6.2). A probe is a loss signal: outside Fast Recovery it
 * enters it (the window halves once, §7.2.3). Unanswered probes back off (PTO doubles, as RFC
 * 8961 asks of a time-based loss detector), and T3-rtx stays the last resort, not restarted by
 * probes, with its own backoff and window collapse (§6.3.3). */

#define PROBE_MIN_MS 10u
#define PROBE_MAX_SHIFT 6u

/* The probe waits two round trips, at least PROBE_MIN_MS: the handshake gives the first one
 * (handshake.c), so a 20 ms path is not probed every 10 ms before its first DATA sample. */
static uint64_t probe_deadline(const sctp_assoc_t *a)
{
    uint32_t pto = 2 * a->srtt > PROBE_MIN_MS ? 2 * a->srtt : PROBE_MIN_MS;
    uint32_t shift = a->probes < PROBE_MAX_SHIFT ? a->probes : PROBE_MAX_SHIFT;
    return a->now + ((uint64_t)pto << shift);
}

void sctp_probe_update(sctp_assoc_t *a, bool progress)
{
    bool hole = tsn_lt(a->cum_ack_tsn, a->gap_top);
    bool skip = tsn_lt(a->cum_ack_tsn, a->adv_peer_ack) && a->peer_forward_tsn;
    bool owed = tsn_lt(a->cum_ack_tsn, a->asked_tsn) || tsn_lt(a->cum_ack_tsn, a->unasked_tsn);
    if (!hole && !skip && !owed) {
        a->probe_at = ZQ_TIME_NEVER; /* neither: the peer may be delaying its SACK */
        a->probes = 0;
        return;
    }
    if (progress) {
        a->probes = 0;
        a->probe_at = probe_deadline(a);
    } else if (a->probe_at == ZQ_TIME_NEVER && a->probes != SCTP_PROBES_OFF) {
        a->probe_at = probe_deadline(a);
    }
}

void sctp_probe_asked(sctp_assoc_t *a, uint32_t tsn)
{
    a->asked_tsn = tsn;
    if (a->probe_at == ZQ_TIME_NEVER && a->probes != SCTP_PROBES_OFF) {
        a->probe_at = probe_deadline(a);
    }
}

/* Marks the earliest missing chunk for a probe; false if none is missing. */
static bool mark_probe(sctp_assoc_t *a)
{
    for (uint32_t off = sctp_ring_first(&a->out); off != SCTP_NO_OFFSET && off != a->unsent_off;
         off = sctp_ring_next(&a->out, off)) {
        out_rec_t *r = out_at(a, off);
        if (!(r->h.state & OUT_SENT) || (r->h.state & (OUT_ACKED | OUT_GAP | OUT_ABANDONED))) {
            continue;
        }
        if (!(r->h.state & OUT_RTX)) {
            a->flight -= r->len; /* marked for retransmission: out of flight */
            out_mark_rtx(a, r);
        }
        return true;
    }
    return false;
}

/* What the peer misses first goes again: the earliest missing chunk or, when the chunks it
 * misses first were abandoned, the FORWARD TSN (a duplicate a round trip later, as RFC 3758
 * §3.5 F2 allows). */
void sctp_probe_expired(sctp_assoc_t *a)
{
    if (a->state < SCTP_STATE_ESTABLISHED || a->probes == SCTP_PROBES_OFF) {
        return;
    }
    if (tsn_lt(a->cum_ack_tsn, a->adv_peer_ack) && a->peer_forward_tsn) {
        a->need_fwd_tsn = true;
    } else if (mark_probe(a)) {
        sctp_enter_fast_recovery(a);
        a->rtx_bypass = true;
        a->rtx_probe = true;
    } else {
        return;
    }
    a->probes = (uint8_t)(a->probes + (a->probes < PROBE_MAX_SHIFT));
    a->stats.tail_probes++;
    a->probe_at = probe_deadline(a);
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
        if (r->tsn == a->rtt_tsn) {
            a->rtt_tsn = 0; /* never acknowledged as itself: time the next chunk (§6.3.1 C1) */
        }
    } else {
        sctp_stream_t *s = sctp_stream_find(a, r->stream);
        if (s != NULL) {
            sctp_stream_unsent_changed(a, s, -(int32_t)r->len);
        }
    }
    out_clear_rtx(a, r);
    r->h.state |= OUT_ABANDONED;
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
    /* C3: a FORWARD TSN once the point moves past what the last one said; the same one again
     * only after a round trip (tx/ack.c) or T3-rtx (A5), as F2's implementation note allows. */
    if (tsn_lt(a->cum_ack_tsn, a->adv_peer_ack) && tsn_lt(a->fwd_tsn_sent, a->adv_peer_ack)) {
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
        if (!(r->h.state & OUT_SENT)) {
            continue;
        }
        if (tsn_lt(a->adv_peer_ack, r->tsn)) {
            break; /* the ring is in TSN order: nothing further is skipped */
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
    a->fwd_tsn_sent = f.new_cum_tsn;
    a->fwd_tsn_after = a->next_tsn;
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

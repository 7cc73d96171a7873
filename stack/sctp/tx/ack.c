/* Acknowledgements (RFC 9260 §6.2.1): a SACK frees what it acknowledges cumulatively, marks
 * what its gap blocks cover, counts miss indications for fast retransmit (§7.2.4), feeds the
 * RTO estimator (§6.3.1, RFC 6298) and grows the congestion window (§7.2.1, §7.2.2).
 *
 * The send ring is in TSN order, so each walk over it stops where the SACK stops saying
 * anything: with many small chunks in flight, a SACK costs the records it acknowledges, not
 * the whole flight. */
#include "stack/sctp/sctp_internal.h"

static out_rec_t *out_at(const sctp_assoc_t *a, uint32_t off)
{
    return (out_rec_t *)(void *)sctp_ring_at(&a->out, off);
}

/* ---- RTO (RFC 6298 §2, in milliseconds) ------------------------------------------------- */

void sctp_rto_sample(sctp_assoc_t *a, uint32_t rtt)
{
    if (a->srtt == 0 && a->rttvar == 0) {
        a->srtt = rtt > 0 ? rtt : 1;
        a->rttvar = rtt / 2;
    } else {
        uint32_t delta = a->srtt > rtt ? a->srtt - rtt : rtt - a->srtt;
        a->rttvar = (3 * a->rttvar + delta) / 4;
        a->srtt = (7 * a->srtt + rtt) / 8;
    }
    uint32_t rto = a->srtt + 4 * a->rttvar;
    rto = rto < a->cfg.rto_min_ms ? a->cfg.rto_min_ms : rto;
    a->rto = rto > a->cfg.rto_max_ms ? a->cfg.rto_max_ms : rto;
}

/* Karn's rule (§6.3.1 C4-C5): time one chunk per round trip, never a retransmitted one. */
static void maybe_time(sctp_assoc_t *a, const out_rec_t *r)
{
    if (a->rtt_tsn != 0 && r->tsn == a->rtt_tsn) {
        if (r->sends == 1) {
            sctp_rto_sample(a, (uint32_t)(a->now - a->rtt_sent_at));
        }
        a->rtt_tsn = 0;
    }
}

/* ---- Acknowledgement ------------------------------------------------------------------- */

static bool in_gap(const sctp_sack_chunk_t *s, uint32_t tsn)
{
    uint32_t offset = tsn - s->cum_tsn;
    for (uint16_t i = 0; i < s->n_gaps; i++) {
        if (offset >= s->gaps[i].start && offset <= s->gaps[i].end) {
            return true;
        }
    }
    return false;
}

/* The highest TSN a SACK reports as received. */
static uint32_t sack_top(const sctp_sack_chunk_t *s)
{
    uint16_t end = 0;
    for (uint16_t i = 0; i < s->n_gaps; i++) {
        end = s->gaps[i].end > end ? s->gaps[i].end : end;
    }
    return s->cum_tsn + end;
}

/* What one SACK changed. */
typedef struct {
    uint32_t bytes_acked;  /* newly acknowledged, cumulatively or in gaps */
    uint32_t htna;         /* Highest TSN Newly Acknowledged (§7.2.4) */
    uint32_t top;          /* highest TSN the SACK reports */
    uint32_t first_above;  /* ring offset of the first sent record above the cumulative ack */
    bool cum_advanced;
    bool recovering;       /* in Fast Recovery when the SACK arrived */
    bool loss;             /* chunks newly marked for retransmission */
} ack_result_t;

static void take_out_of_flight(sctp_assoc_t *a, out_rec_t *r)
{
    if (!(r->h.state & (OUT_GAP | OUT_RTX | OUT_ABANDONED | OUT_ACKED))) {
        a->flight -= r->len;
    }
}

/* A chunk acknowledged for the first time. An abandoned one is not credited (RFC 3758 §3.5
 * A2) and says nothing about what went missing. */
static void newly_acked(sctp_assoc_t *a, out_rec_t *r, ack_result_t *res)
{
    if (r->h.state & OUT_ABANDONED) {
        return;
    }
    res->bytes_acked += r->len;
    maybe_time(a, r);
    if (tsn_lt(res->htna, r->tsn)) {
        res->htna = r->tsn;
    }
}

static void ack_cumulative(sctp_assoc_t *a, out_rec_t *r, ack_result_t *res)
{
    if (!(r->h.state & OUT_GAP)) {
        newly_acked(a, r, res);
    }
    take_out_of_flight(a, r);
    out_clear_rtx(a, r);
    r->h.state = (uint8_t)((r->h.state & ~OUT_GAP) | OUT_ACKED);
}

static void ack_above(sctp_assoc_t *a, out_rec_t *r, const sctp_sack_chunk_t *s,
                      ack_result_t *res)
{
    bool gap = in_gap(s, r->tsn);
    if (gap && !(r->h.state & (OUT_GAP | OUT_ABANDONED))) {
        newly_acked(a, r, res);
        take_out_of_flight(a, r);
        out_clear_rtx(a, r);
        r->h.state |= OUT_GAP;
        a->gap_top = tsn_lt(a->gap_top, r->tsn) ? r->tsn : a->gap_top;
    } else if (!gap && (r->h.state & OUT_GAP) && !(r->h.state & OUT_ABANDONED) &&
               !s->truncated) {
        r->h.state &= (uint8_t)~OUT_GAP; /* the peer reneged (§6.2.1 D iv): outstanding again */
        a->flight += r->len;
    }
}

/* One pass over what the SACK covers: cumulatively acknowledged records, then gap blocks.
 * Nothing above both the SACK's highest TSN and the highest TSN ever gap-acked can change
 * (a reneged block only lowers what is acknowledged), so the walk stops there. */
static void ack_records(sctp_assoc_t *a, const sctp_sack_chunk_t *s, ack_result_t *res)
{
    uint32_t stop = tsn_lt(res->top, a->gap_top) ? a->gap_top : res->top;
    for (uint32_t off = sctp_ring_first(&a->out); off != SCTP_NO_OFFSET && off != a->unsent_off;
         off = sctp_ring_next(&a->out, off)) {
        out_rec_t *r = out_at(a, off);
        if (!(r->h.state & OUT_SENT) || (r->h.state & OUT_ACKED)) {
            continue;
        }
        if (tsn_le(r->tsn, s->cum_tsn)) {
            ack_cumulative(a, r, res);
            continue;
        }
        if (res->first_above == SCTP_NO_OFFSET) {
            res->first_above = off;
        }
        if (tsn_lt(stop, r->tsn)) {
            break;
        }
        ack_above(a, r, s, res);
    }
}

/* §7.2.4 miss indications, by the HTNA rule: a missing chunk is struck by a SACK that newly
 * acknowledges a chunk sent after it (in Fast Recovery, a SACK that advances the cumulative
 * ack strikes every chunk it reports missing).
 *
 * A retransmitted chunk is struck the same way, counting only chunks first sent after its
 * retransmission: acknowledgements of what was already in flight when it went out again say
 * nothing about it. §7.2.4 5 makes a fast-retransmitted chunk ineligible for another Fast
 * Retransmit, that is another cwnd cut and another packet that ignores cwnd (§7.2.4 2-3, 6);
 * it does not make the sender blind to its loss until T3-rtx, which at RTO.Min is hundreds of
 * round trips on a short path. So three such strikes mark it for retransmission again, sent as
 * cwnd allows, as usrsctp does (fast_retran_tsn) and dcSCTP does (nacks after a
 * retransmission). */
static bool struck(const out_rec_t *r, const ack_result_t *res)
{
    if (r->sends > 1) {
        return !tsn_lt(res->htna, r->after_tsn);
    }
    if (res->recovering && res->cum_advanced) {
        return tsn_lt(r->tsn, res->top);
    }
    return tsn_lt(r->tsn, res->htna);
}

static void mark_lost(sctp_assoc_t *a, out_rec_t *r, ack_result_t *res)
{
    take_out_of_flight(a, r);
    out_mark_rtx(a, r);
    if (r->sends > 1) {
        a->stats.lost_retransmits++;
    } else {
        a->stats.fast_retransmits++;
    }
    res->loss = true;
}

static void count_misses(sctp_assoc_t *a, ack_result_t *res)
{
    bool all_missing = res->recovering && res->cum_advanced;
    uint32_t bound = all_missing && tsn_lt(res->htna, res->top) ? res->top : res->htna;
    for (uint32_t off = res->first_above; off != SCTP_NO_OFFSET && off != a->unsent_off;
         off = sctp_ring_next(&a->out, off)) {
        out_rec_t *r = out_at(a, off);
        if (!(r->h.state & OUT_SENT)) {
            continue;
        }
        if (!tsn_lt(r->tsn, bound)) {
            break;
        }
        if ((r->h.state & (OUT_ACKED | OUT_GAP | OUT_ABANDONED | OUT_RTX)) || !struck(r, res) ||
            ++r->misses < 3) {
            continue;
        }
        mark_lost(a, r, res);
    }
}

/* §7.2.1-§7.2.2: slow start below ssthresh, congestion avoidance above; only while the window
 * was in use, and not during fast recovery. */
static void grow_cwnd(sctp_assoc_t *a, uint32_t flight_before, uint32_t bytes_acked)
{
    uint32_t mtu = a->cfg.mtu;
    if (a->fast_recovery || flight_before + mtu < a->cwnd) {
        return;
    }
    if (a->cwnd <= a->ssthresh) {
        a->cwnd += bytes_acked < mtu ? bytes_acked : mtu;
        return;
    }
    a->partial_bytes_acked += bytes_acked;
    if (a->partial_bytes_acked >= a->cwnd) {
        a->partial_bytes_acked -= a->cwnd;
        a->cwnd += mtu;
    }
}

/* §7.2.4 2, 3 and 6: once per recovery, halve the window (§7.2.3) and let one packet of
 * retransmissions ignore cwnd; the rest go as cwnd allows. */
void sctp_enter_fast_recovery(sctp_assoc_t *a)
{
    if (a->fast_recovery) {
        return;
    }
    uint32_t floor = 4u * a->cfg.mtu;
    a->ssthresh = a->cwnd / 2 > floor ? a->cwnd / 2 : floor;
    a->cwnd = a->ssthresh;
    a->partial_bytes_acked = 0;
    a->fast_recovery = true;
    a->rtx_bypass = true;
    a->recovery_exit = a->next_tsn - 1;
}

/* Acknowledged records are free; an abandoned one too if it never went out (an abandoned
 * record that did is marked ACKED once the peer's cumulative ack passes it). */
static bool out_is_free(const rec_header_t *h)
{
    return (h->state & OUT_ACKED) || ((h->state & OUT_ABANDONED) && !(h->state & OUT_SENT));
}

/* Frees the acknowledged front of the ring; abandoned records go once the peer's cumulative
 * ack passes them (it must have seen the FORWARD TSN), unsent abandoned ones at once. */
static void release_acked(sctp_assoc_t *a)
{
    for (uint32_t off = sctp_ring_first(&a->out); off != SCTP_NO_OFFSET && off != a->unsent_off;
         off = sctp_ring_next(&a->out, off)) {
        out_rec_t *r = out_at(a, off);
        if ((r->h.state & OUT_ABANDONED) && (r->h.state & OUT_SENT) &&
            tsn_le(r->tsn, a->cum_ack_tsn)) {
            r->h.state |= OUT_ACKED;
        }
        if (!(r->h.state & (OUT_ACKED | OUT_ABANDONED))) {
            break;
        }
    }
    sctp_ring_reclaim(&a->out, out_is_free);
    if (a->out.used == 0) {
        a->unsent_off = SCTP_NO_OFFSET;
    }
    if (a->blocked && sctp_ring_largest_free(&a->out) >= a->out.cap / 4) {
        a->blocked = false;
        sctp_push_event(a, SCTP_EVENT_WRITABLE, 0xFFFF);
    }
}

/* §6.3.2 R2-R3: the T3 timer runs while anything is outstanding, restarted when the earliest
 * outstanding chunk is acknowledged; a FORWARD TSN not yet acknowledged counts too. */
static void manage_t3(sctp_assoc_t *a, bool cum_advanced)
{
    bool waiting = a->flight > 0 || a->n_rtx > 0 || tsn_lt(a->cum_ack_tsn, a->adv_peer_ack);
    if (!waiting) {
        a->t3_at = ZQ_TIME_NEVER;
    } else if (cum_advanced || a->t3_at == ZQ_TIME_NEVER) {
        a->t3_at = a->now + a->rto;
    }
}

/* RFC 3758 §3.5 F2: a FORWARD TSN the peer has not acted on is sent again once a chunk sent
 * after it is acknowledged (a round trip later), not on every SACK. */
static void forward_tsn_overdue(sctp_assoc_t *a, const ack_result_t *res)
{
    if (tsn_lt(a->cum_ack_tsn, a->fwd_tsn_sent) && !tsn_lt(res->htna, a->fwd_tsn_after)) {
        a->need_fwd_tsn = a->peer_forward_tsn;
    }
}

static void after_ack(sctp_assoc_t *a, uint32_t flight_before, const ack_result_t *res)
{
    if (res->cum_advanced) {
        a->error_count = 0;
        if (a->fast_recovery && tsn_le(a->recovery_exit, a->cum_ack_tsn)) {
            a->fast_recovery = false;
        }
        grow_cwnd(a, flight_before, res->bytes_acked);
    }
    if (res->loss) {
        sctp_enter_fast_recovery(a);
    }
}

void sctp_handle_sack(sctp_assoc_t *a, const sctp_chunk_t *c)
{
    sctp_sack_chunk_t s;
    if (sctp_sack_parse(c, &s) != ZQ_OK) {
        a->stats.rx_malformed++;
        return;
    }
    /* §6.2.1 D i: an old SACK (reordered) says nothing new; one acknowledging TSNs never sent
     * is a protocol violation and is ignored. */
    if (tsn_lt(s.cum_tsn, a->cum_ack_tsn) || !tsn_lt(s.cum_tsn, a->next_tsn)) {
        return;
    }
    uint32_t flight_before = a->flight;
    ack_result_t res = {0, a->cum_ack_tsn, sack_top(&s), SCTP_NO_OFFSET,
                        s.cum_tsn != a->cum_ack_tsn, a->fast_recovery, false};
    ack_records(a, &s, &res);
    a->cum_ack_tsn = s.cum_tsn;
    a->gap_top = tsn_lt(a->gap_top, s.cum_tsn) ? s.cum_tsn : a->gap_top;
    if (tsn_lt(a->adv_peer_ack, a->cum_ack_tsn)) {
        a->adv_peer_ack = a->cum_ack_tsn;
    }
    count_misses(a, &res);
    after_ack(a, flight_before, &res);
    a->peer_rwnd = s.a_rwnd > a->flight ? s.a_rwnd - a->flight : 0;
    release_acked(a);
    forward_tsn_overdue(a, &res);
    sctp_update_adv_peer_ack(a);
    manage_t3(a, res.cum_advanced);
    sctp_probe_update(a, res.cum_advanced || res.bytes_acked > 0);
}

/* Acknowledgements (RFC 9260 §6.2.1): a SACK frees what it acknowledges cumulatively, marks
 * what its gap blocks cover, counts miss indications for fast retransmit (§7.2.4), feeds the
 * RTO estimator (§6.3.1, RFC 6298) and grows the congestion window (§7.2.1, §7.2.2). */
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
            sctp_rto_sample(a, sctp_clock(a) - r->sent_at);
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

/* What one SACK changed. */
typedef struct {
    uint32_t bytes_acked;    /* newly acknowledged, cumulatively or in gaps */
    uint32_t highest_acked;  /* highest TSN this SACK acknowledges */
    bool cum_advanced;
    bool new_fast_rtx;
} ack_result_t;

static void take_out_of_flight(sctp_assoc_t *a, out_rec_t *r)
{
    if (!(r->h.state & (OUT_GAP | OUT_RTX | OUT_ABANDONED | OUT_ACKED))) {
        a->flight -= r->len;
    }
}

static void ack_record(sctp_assoc_t *a, out_rec_t *r, const sctp_sack_chunk_t *s,
                       ack_result_t *res)
{
    if (tsn_le(r->tsn, s->cum_tsn)) {
        if (!(r->h.state & (OUT_GAP | OUT_ABANDONED))) {
            res->bytes_acked += r->len;
            maybe_time(a, r);
        }
        take_out_of_flight(a, r);
        r->h.state = (uint8_t)((r->h.state & ~(OUT_RTX | OUT_GAP)) | OUT_ACKED);
        return;
    }
    bool gap = in_gap(s, r->tsn);
    if (gap && !(r->h.state & (OUT_GAP | OUT_ABANDONED))) {
        res->bytes_acked += r->len;
        maybe_time(a, r);
        take_out_of_flight(a, r);
        r->h.state = (uint8_t)((r->h.state & ~OUT_RTX) | OUT_GAP);
    } else if (!gap && (r->h.state & OUT_GAP) && !s->truncated) {
        r->h.state &= (uint8_t)~OUT_GAP; /* the peer reneged (§6.2.1 D iv): outstanding again */
        a->flight += r->len;
    }
    if (gap && tsn_lt(res->highest_acked, r->tsn)) {
        res->highest_acked = r->tsn;
    }
}

/* §7.2.4: a chunk is missing once three SACKs acknowledged something sent after it. */
static void count_misses(sctp_assoc_t *a, uint32_t highest_acked, ack_result_t *res)
{
    for (uint32_t off = sctp_ring_first(&a->out); off != SCTP_NO_OFFSET && off != a->unsent_off;
         off = sctp_ring_next(&a->out, off)) {
        out_rec_t *r = out_at(a, off);
        if (!tsn_lt(r->tsn, highest_acked)) {
            break;
        }
        if ((r->h.state & (OUT_ACKED | OUT_GAP | OUT_ABANDONED | OUT_RTX | OUT_FAST_DONE)) ||
            ++r->misses < 3) {
            continue;
        }
        take_out_of_flight(a, r);
        r->h.state |= OUT_RTX | OUT_FAST_DONE;
        a->stats.fast_retransmits++;
        res->new_fast_rtx = true;
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

static void enter_fast_recovery(sctp_assoc_t *a)
{
    if (a->fast_recovery) {
        return;
    }
    uint32_t floor = 4u * a->cfg.mtu;
    a->ssthresh = a->cwnd / 2 > floor ? a->cwnd / 2 : floor;
    a->cwnd = a->ssthresh;
    a->partial_bytes_acked = 0;
    a->fast_recovery = true;
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
    bool waiting = a->flight > 0 || tsn_lt(a->cum_ack_tsn, a->adv_peer_ack);
    if (!waiting) {
        a->t3_at = ZQ_TIME_NEVER;
    } else if (cum_advanced || a->t3_at == ZQ_TIME_NEVER) {
        a->t3_at = a->now + a->rto;
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
    ack_result_t res = {0, s.cum_tsn, s.cum_tsn != a->cum_ack_tsn, false};
    for (uint32_t off = sctp_ring_first(&a->out); off != SCTP_NO_OFFSET && off != a->unsent_off;
         off = sctp_ring_next(&a->out, off)) {
        out_rec_t *r = out_at(a, off);
        if ((r->h.state & OUT_SENT) && !(r->h.state & OUT_ACKED)) {
            ack_record(a, r, &s, &res);
        }
    }
    a->cum_ack_tsn = s.cum_tsn;
    if (tsn_lt(a->adv_peer_ack, a->cum_ack_tsn)) {
        a->adv_peer_ack = a->cum_ack_tsn;
    }
    count_misses(a, res.highest_acked, &res);
    if (res.cum_advanced) {
        a->error_count = 0;
        if (a->fast_recovery && tsn_le(a->recovery_exit, a->cum_ack_tsn)) {
            a->fast_recovery = false;
        }
        grow_cwnd(a, flight_before, res.bytes_acked);
    }
    if (res.new_fast_rtx) {
        enter_fast_recovery(a);
    }
    a->peer_rwnd = s.a_rwnd > a->flight ? s.a_rwnd - a->flight : 0;
    sctp_update_adv_peer_ack(a);
    release_acked(a);
    manage_t3(a, res.cum_advanced);
}

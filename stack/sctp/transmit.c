/* Building outgoing packets (RFC 9260 §6.10 bundling): control chunks first, then DATA to be
 * retransmitted, then new DATA as far as the congestion window (§7.2) and the peer's receive
 * window (§6.1) allow, all in one packet of at most cfg.mtu bytes. */
#include <string.h>

#include "stack/sctp/sctp_internal.h"

static out_rec_t *out_at(const sctp_assoc_t *a, uint32_t off)
{
    return (out_rec_t *)(void *)sctp_ring_at(&a->out, off);
}

/* ---- Packets that stand alone ------------------------------------------------------------ */

static size_t finish(sctp_assoc_t *a, sctp_packet_builder_t *b)
{
    size_t len = sctp_packet_finish(b);
    a->stats.tx_packets += len > 0;
    return len;
}

static size_t lone_chunk_packet(sctp_assoc_t *a, uint8_t *buf, size_t cap)
{
    sctp_packet_builder_t b;
    uint16_t ctl = a->ctl;
    if (ctl & SCTP_CTL_INIT) {
        a->ctl &= (uint16_t)~SCTP_CTL_INIT;
        sctp_packet_begin(&b, buf, cap, a->cfg.local_port, a->cfg.remote_port, 0);
        sctp_write_init(a, &b.w);
    } else if (ctl & SCTP_CTL_INIT_ACK) {
        a->ctl &= (uint16_t)~SCTP_CTL_INIT_ACK;
        sctp_packet_begin(&b, buf, cap, a->cfg.local_port, a->cfg.remote_port,
                          sctp_init_ack_vtag(a));
        sctp_write_init_ack(a, &b.w);
    } else if (ctl & SCTP_CTL_ABORT) {
        a->ctl &= (uint16_t)~SCTP_CTL_ABORT;
        sctp_packet_begin(&b, buf, cap, a->cfg.local_port, a->cfg.remote_port, a->peer_vtag);
        sctp_abort_write_header(&b.w, false, sctp_cause_size(0));
        sctp_cause_write(&b.w, a->abort_cause, NULL, 0);
    } else if (ctl & SCTP_CTL_SHUTDOWN_COMPLETE) {
        a->ctl &= (uint16_t)~SCTP_CTL_SHUTDOWN_COMPLETE;
        sctp_packet_begin(&b, buf, cap, a->cfg.local_port, a->cfg.remote_port, a->peer_vtag);
        sctp_empty_chunk_write(&b.w, SCTP_CHUNK_SHUTDOWN_COMPLETE, 0);
    } else {
        return 0;
    }
    return finish(a, &b);
}

/* ---- Control chunks --------------------------------------------------------------------- */

/* Appends the control chunk for @p bit if it fits; returns whether it was written. */
static bool put_control(sctp_assoc_t *a, sctp_packet_builder_t *b, uint16_t bit, size_t size,
                        void (*write)(sctp_assoc_t *a, zq_writer_t *w))
{
    if (!(a->ctl & bit) || size > sctp_packet_space(b)) {
        return false;
    }
    write(a, &b->w);
    a->ctl &= (uint16_t)~bit;
    return true;
}

static void write_cookie_echo(sctp_assoc_t *a, zq_writer_t *w)
{
    sctp_cookie_echo_write(w, a->cookie, a->cookie_len);
}

static void write_cookie_ack(sctp_assoc_t *a, zq_writer_t *w)
{
    (void)a;
    sctp_empty_chunk_write(w, SCTP_CHUNK_COOKIE_ACK, 0);
}

static void write_heartbeat_ack(sctp_assoc_t *a, zq_writer_t *w)
{
    sctp_heartbeat_write(w, SCTP_CHUNK_HEARTBEAT_ACK, a->heartbeat_ack, a->heartbeat_ack_len);
}

static void write_shutdown(sctp_assoc_t *a, zq_writer_t *w)
{
    sctp_shutdown_write(w, a->peer_cum_tsn);
}

static void write_shutdown_ack(sctp_assoc_t *a, zq_writer_t *w)
{
    (void)a;
    sctp_empty_chunk_write(w, SCTP_CHUNK_SHUTDOWN_ACK, 0);
}

static void write_error(sctp_assoc_t *a, zq_writer_t *w)
{
    uint8_t info[4];
    zq_store_be32(info, a->error_info);
    sctp_error_write_header(w, sctp_cause_size(sizeof info));
    sctp_cause_write(w, a->error_cause, info, sizeof info);
}

static void write_reconf_request(sctp_assoc_t *a, zq_writer_t *w)
{
    sctp_write_reconfig(a, w, true);
}

static void write_reconf_response(sctp_assoc_t *a, zq_writer_t *w)
{
    sctp_write_reconfig(a, w, false);
}

static bool put_controls(sctp_assoc_t *a, sctp_packet_builder_t *b)
{
    bool any = false;
    any |= put_control(a, b, SCTP_CTL_COOKIE_ECHO, 4u + a->cookie_len + 3u, write_cookie_echo);
    any |= put_control(a, b, SCTP_CTL_COOKIE_ACK, 4, write_cookie_ack);
    any |= put_control(a, b, SCTP_CTL_ERROR, 4 + sctp_cause_size(4), write_error);
    any |= put_control(a, b, SCTP_CTL_HEARTBEAT_ACK, 8u + a->heartbeat_ack_len + 3u,
                       write_heartbeat_ack);
    any |= put_control(a, b, SCTP_CTL_HEARTBEAT, 8 + 16, sctp_write_heartbeat);
    any |= put_control(a, b, SCTP_CTL_SHUTDOWN, 8, write_shutdown);
    any |= put_control(a, b, SCTP_CTL_SHUTDOWN_ACK, 4, write_shutdown_ack);
    if (a->ctl & (SCTP_CTL_RECONF_RESPONSE | SCTP_CTL_RECONF_REQUEST)) { /* sized only then */
        any |= put_control(a, b, SCTP_CTL_RECONF_RESPONSE, sctp_reconfig_size(a, false),
                           write_reconf_response);
        any |= put_control(a, b, SCTP_CTL_RECONF_REQUEST, sctp_reconfig_size(a, true),
                           write_reconf_request);
    }
    return any;
}

/* ---- DATA ------------------------------------------------------------------------------- */

/* The packet being built: what went in so far, and where its last DATA chunk starts. */
typedef struct {
    sctp_packet_builder_t b;
    bool wrote;
    size_t last_data; /* writer offset, or SIZE_MAX */
    uint32_t last_tsn;
} packet_t;

static void write_data(sctp_assoc_t *a, packet_t *p, out_rec_t *r)
{
    sctp_data_chunk_t d = {
        .flags = r->data_flags,
        .tsn = r->tsn,
        .stream = r->stream,
        .ssn = r->ssn,
        .ppid = r->ppid,
        .data = (const uint8_t *)(r + 1),
        .len = r->len,
    };
    p->last_data = p->b.w.len;
    p->last_tsn = r->tsn;
    p->wrote = true;
    sctp_data_write(&p->b.w, &d);
    r->sends++;
    r->misses = 0;
    out_clear_rtx(a, r);
    r->h.state |= OUT_SENT;
    r->after_tsn = a->next_tsn;
    a->flight += r->len;
    a->peer_rwnd = a->peer_rwnd > r->len ? a->peer_rwnd - r->len : 0;
    a->stats.tx_data_chunks++;
    if (a->t3_at == ZQ_TIME_NEVER) {
        a->t3_at = a->now + a->rto; /* §6.3.2 R1 */
    }
}

/* RFC 3758 §3.5 A3: a message out of retransmissions or lifetime is abandoned, not resent. */
static bool spent(const sctp_assoc_t *a, const out_rec_t *r)
{
    bool too_many = r->max_rtx != SCTP_RELIABLE && r->sends > r->max_rtx;
    bool too_old = r->expires != 0 && tsn_le(r->expires, sctp_clock(a));
    return a->peer_forward_tsn && (too_many || too_old);
}

/* One chunk sent again. §7.2.4 4 (and §6.3.2 R1): resending the earliest outstanding chunk
 * restarts T3-rtx, so the timer measures the retransmission, not the lost original. */
static void resend(sctp_assoc_t *a, packet_t *p, out_rec_t *r)
{
    if (r->tsn == a->rtt_tsn) {
        a->rtt_tsn = 0; /* Karn: never time a retransmission */
    }
    write_data(a, p, r);
    a->stats.retransmissions++;
    if (r->tsn == a->cum_ack_tsn + 1 && !a->rtx_probe) {
        a->t3_at = a->now + a->rto;
    }
}

/* Retransmissions go before new data (§6.1 C), as cwnd allows; the first packet after a Fast
 * Retransmit ignores cwnd (§7.2.4 3). After T3-rtx the window is one MTU and nothing is in
 * flight, so one packet goes (§6.3.3 E3). Returns true when it had to stop (packet full, or
 * cwnd), so no new data goes before them. a->n_rtx says when none are left to look for. */
static bool put_retransmissions(sctp_assoc_t *a, packet_t *p)
{
    bool sent = false;
    uint32_t off = a->n_rtx > 0 ? sctp_ring_first(&a->out) : SCTP_NO_OFFSET;
    for (; off != SCTP_NO_OFFSET && off != a->unsent_off && a->n_rtx > 0;
         off = sctp_ring_next(&a->out, off)) {
        out_rec_t *r = out_at(a, off);
        if (!(r->h.state & OUT_RTX)) {
            continue;
        }
        if (spent(a, r)) {
            sctp_abandon_message(a, off);
            continue;
        }
        bool cwnd_full = a->flight >= a->cwnd && !a->rtx_bypass;
        if (cwnd_full || sctp_data_size(r->len) > sctp_packet_space(&p->b)) {
            a->rtx_bypass = a->rtx_bypass && !sent;
            a->rtx_probe = a->rtx_probe && !sent;
            return true; /* the rest waits for the next packet */
        }
        resend(a, p, r);
        sent = true;
    }
    a->rtx_bypass = false;
    a->rtx_probe = false;
    return false;
}

/* A fragment's TSN, and an ordered message's SSN: the stream's next on the first fragment,
 * the same on the rest (nothing else is queued between a message's fragments, §6.9). */
void sctp_assign_tsn(sctp_assoc_t *a, out_rec_t *r)
{
    r->tsn = a->next_tsn++;
    sctp_stream_t *s = sctp_stream_find(a, r->stream);
    if (s == NULL || (r->data_flags & SCTP_DATA_UNORDERED)) {
        r->ssn = 0;
    } else {
        r->ssn = (r->data_flags & SCTP_DATA_BEGIN) ? s->out_ssn++ : (uint16_t)(s->out_ssn - 1);
    }
}

/* First transmission of a fragment: numbered, and timed if nothing is being timed. */
static void number(sctp_assoc_t *a, out_rec_t *r)
{
    sctp_assign_tsn(a, r);
    if (a->rtt_tsn == 0) {
        a->rtt_tsn = r->tsn;
        a->rtt_sent_at = a->now;
    }
}

static bool window_allows(const sctp_assoc_t *a, const out_rec_t *r, bool wrote)
{
    if (a->flight >= a->cwnd) {
        return false;
    }
    /* §6.1 A: within the peer's window, or one chunk to probe a zero window. */
    return r->len <= a->peer_rwnd || (a->flight == 0 && !wrote);
}

static void put_new_data(sctp_assoc_t *a, packet_t *p)
{
    while (a->unsent_off != SCTP_NO_OFFSET) {
        uint32_t off = a->unsent_off;
        out_rec_t *r = out_at(a, off);
        if (r->h.state & OUT_ABANDONED) {
            a->unsent_off = sctp_ring_next(&a->out, off);
            continue;
        }
        if ((r->data_flags & SCTP_DATA_BEGIN) && r->expires != 0 &&
            tsn_le(r->expires, sctp_clock(a))) {
            sctp_abandon_message(a, off); /* expired before it went out: never sent */
            continue;
        }
        if (off == a->part_tail) {
            return; /* its END flag is not known yet (sctp_send_part) */
        }
        if (!window_allows(a, r, p->wrote) || sctp_data_size(r->len) > sctp_packet_space(&p->b)) {
            return;
        }
        number(a, r);
        write_data(a, p, r);
        sctp_stream_t *s = sctp_stream_find(a, r->stream);
        if (s != NULL) {
            sctp_stream_unsent_changed(a, s, -(int32_t)r->len);
        }
        a->unsent_off = sctp_ring_next(&a->out, off);
    }
}

/* RFC 9260 §3.3.1 and §6.2 (the I bit of RFC 7053): when this packet is the last the sender
 * may send until a SACK opens a window (cwnd, the peer's) or frees the send buffer the
 * application waits on, its last DATA chunk asks for that SACK at once. Otherwise a receiver
 * holding an odd packet waits its delayed-SACK time (up to 200 ms) while the sender, with
 * nothing in flight to trigger a SACK, waits for it: a stall of hundreds of round trips on a
 * short path. A sender that is merely idle does not ask: its SACK may still ride on a reply.
 *
 * One ask at a time: while an earlier one is unanswered, its answer is on its way and makes
 * the sender send again, and that packet asks. A sender with a full send buffer is waiting
 * after nearly every packet; asking on each made dcSCTP send a SACK for each (one packet back
 * per packet out, 0.65x the bulk echo rate of Chromium to Chromium). The answer frees
 * congestion window, and a peer that reads sends its window update itself (§6.2), but the
 * send buffer it frees may still be too small for the message the application waits to
 * send: then nothing goes out, and what went out unasked is owed a SACK all the same, which
 * the probe sees to (tx/retransmit.c). */
static void ask_immediate_sack(sctp_assoc_t *a, packet_t *p)
{
    if (p->last_data == SIZE_MAX || p->b.w.failed) {
        return;
    }
    bool queued = a->unsent_off != SCTP_NO_OFFSET && a->unsent_off != a->part_tail;
    bool more_new = queued && window_allows(a, out_at(a, a->unsent_off), true);
    bool more_rtx = a->n_rtx > 0 && a->flight < a->cwnd;
    bool waiting = queued || a->n_rtx > 0 || a->blocked;
    if (!waiting || more_rtx || more_new) {
        return;
    }
    if (tsn_lt(a->cum_ack_tsn, a->asked_tsn)) {
        if (a->blocked && !queued) {
            a->unasked_tsn = p->last_tsn;
        }
        return;
    }
    p->b.w.data[p->last_data + 1] |= SCTP_DATA_IMMEDIATE; /* the chunk's flags */
    sctp_probe_asked(a, p->last_tsn);
}

/* Whether new DATA will go in this packet, so a delayed SACK may ride along. */
static bool has_data_to_send(const sctp_assoc_t *a)
{
    return a->unsent_off != SCTP_NO_OFFSET && a->unsent_off != a->part_tail &&
           a->flight < a->cwnd && a->peer_rwnd > 0;
}

size_t sctp_poll_transmit(sctp_assoc_t *a, uint64_t now, uint8_t *buf, size_t cap)
{
    a->now = now > a->now ? now : a->now;
    cap = cap < a->cfg.mtu ? cap : a->cfg.mtu;
    sctp_reconfig_progress(a); /* a stream to reset may have sent its last bytes */
    size_t lone = lone_chunk_packet(a, buf, cap);
    if (lone > 0 || a->state == SCTP_STATE_CLOSED || a->state == SCTP_STATE_COOKIE_WAIT) {
        return lone;
    }
    packet_t p = {.wrote = false, .last_data = SIZE_MAX, .last_tsn = 0};
    sctp_packet_begin(&p.b, buf, cap, a->cfg.local_port, a->cfg.remote_port, a->peer_vtag);
    p.wrote = put_controls(a, &p.b);
    bool established = a->state >= SCTP_STATE_ESTABLISHED;
    /* §6.2: a delayed SACK rides along with DATA; a due one goes alone. */
    if (established && a->sack_due && (a->sack_now || has_data_to_send(a)) &&
        sctp_sack_size(a) <= sctp_packet_space(&p.b)) {
        sctp_write_sack(a, &p.b.w);
        p.wrote = true;
    }
    a->need_fwd_tsn = a->need_fwd_tsn && tsn_lt(a->cum_ack_tsn, a->adv_peer_ack);
    if (established && a->need_fwd_tsn && sctp_forward_tsn_size(a) <= sctp_packet_space(&p.b)) {
        sctp_write_forward_tsn(a, &p.b.w);
        p.wrote = true;
    }
    if (established && a->state != SCTP_STATE_SHUTDOWN_ACK_SENT) {
        if (!put_retransmissions(a, &p)) {
            put_new_data(a, &p);
        }
        ask_immediate_sack(a, &p);
    }
    return p.wrote ? finish(a, &p.b) : 0;
}

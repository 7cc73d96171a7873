/* Stream reset (RFC 6525), how a data channel closes (RFC 8831 §6.7): we reset our outgoing
 * stream once everything queued on it has been sent, the peer resets its own in answer, and
 * both return the stream's SSNs to zero so the stream id can carry a new channel. */
#include <string.h>

#include "stack/sctp/sctp_internal.h"

static void push_reset_event(sctp_assoc_t *a, sctp_event_type_t type, uint16_t stream,
                             uint16_t result)
{
    sctp_event_t *e = sctp_push_event(a, type, stream);
    if (e != NULL) {
        e->cause = result;
    }
}

zq_err_t sctp_reset_stream(sctp_assoc_t *a, uint64_t now, uint16_t stream)
{
    a->now = now > a->now ? now : a->now;
    if (a->state != SCTP_STATE_ESTABLISHED) {
        return ZQ_ERR_STATE;
    }
    if (!a->peer_reconfig) {
        return ZQ_ERR_UNSUPPORTED; /* the peer did not list RE-CONFIG in its INIT */
    }
    sctp_stream_t *s = sctp_stream_get(a, stream);
    if (s == NULL) {
        return ZQ_ERR_CAPACITY;
    }
    if (s->flags & SCTP_STREAM_RESETTING) {
        return ZQ_OK;
    }
    if (a->n_pending_resets == ZQ_SCTP_MAX_PENDING_RESETS) {
        return ZQ_ERR_CAPACITY;
    }
    s->flags |= SCTP_STREAM_RESETTING;
    a->pending_resets[a->n_pending_resets++] = stream;
    sctp_reconfig_progress(a);
    return ZQ_OK;
}

/* Sends a request for the pending streams whose queued data has all gone out (§5.1.2). */
void sctp_reconfig_progress(sctp_assoc_t *a)
{
    if (a->reconf_in_flight || a->n_pending_resets == 0 || a->state != SCTP_STATE_ESTABLISHED) {
        return;
    }
    uint8_t kept = 0;
    for (uint8_t i = 0; i < a->n_pending_resets; i++) {
        const sctp_stream_t *s = sctp_stream_find(a, a->pending_resets[i]);
        if (s != NULL && s->unsent > 0) {
            a->pending_resets[kept++] = a->pending_resets[i];
        } else {
            a->inflight_resets[a->n_inflight_resets++] = a->pending_resets[i];
        }
    }
    a->n_pending_resets = kept;
    if (a->n_inflight_resets == 0) {
        return;
    }
    a->inflight_reset_last_tsn = a->next_tsn - 1;
    a->reconf_in_flight = true;
    a->ctl |= SCTP_CTL_RECONF_REQUEST;
    a->reconf_rto = a->rto;
    a->reconf_at = a->now + a->reconf_rto;
}

void sctp_reconfig_timeout(sctp_assoc_t *a)
{
    if (!a->reconf_in_flight) {
        return;
    }
    if (++a->error_count > a->cfg.max_retransmits) {
        sctp_fail(a, SCTP_ABORT_MAX_RETRANSMITS, 0);
        return;
    }
    a->ctl |= SCTP_CTL_RECONF_REQUEST; /* §5.1.1: retransmitted on the RTO */
    a->reconf_rto = a->reconf_rto * 2 > a->cfg.rto_max_ms ? a->cfg.rto_max_ms : a->reconf_rto * 2;
    a->reconf_at = a->now + a->reconf_rto;
}

/* ---- The peer's answer to our request (§5.2.7) -------------------------------------------- */

static void finish_our_request(sctp_assoc_t *a, uint32_t result)
{
    bool ok = result == SCTP_RECONFIG_SUCCESS_PERFORMED || result == SCTP_RECONFIG_SUCCESS_NOTHING;
    for (uint8_t i = 0; i < a->n_inflight_resets; i++) {
        sctp_stream_t *s = sctp_stream_find(a, a->inflight_resets[i]);
        if (s != NULL) {
            s->out_ssn = ok ? 0 : s->out_ssn;
            s->flags &= (uint16_t)~SCTP_STREAM_RESETTING;
        }
        push_reset_event(a, SCTP_EVENT_STREAM_RESET_DONE, a->inflight_resets[i],
                         ok ? 0 : (uint16_t)result);
        if (s != NULL) {
            sctp_stream_forget_if_idle(a, s);
        }
    }
    a->n_inflight_resets = 0;
    a->reconf_in_flight = false;
    a->reconf_at = ZQ_TIME_NEVER;
    a->my_reconf_seq++;
    sctp_reconfig_progress(a);
}

static void handle_response(sctp_assoc_t *a, const sctp_reconfig_param_t *p)
{
    if (!a->reconf_in_flight || p->response_seq != a->my_reconf_seq) {
        return; /* not about our request in flight */
    }
    if (p->result == SCTP_RECONFIG_IN_PROGRESS) {
        return; /* the peer still waits for our data: the timer resends the request */
    }
    a->error_count = 0;
    finish_our_request(a, p->result);
}

/* ---- The peer's request (§5.2.2) ---------------------------------------------------------- */

static void reset_incoming(sctp_assoc_t *a, uint16_t stream)
{
    sctp_stream_t *s = sctp_stream_find(a, stream);
    if (s == NULL) {
        return;
    }
    sctp_discard_stream_input(a, stream);
    s->in_ssn = 0;
    s->flags &= (uint16_t)~SCTP_STREAM_IN_MESSAGE;
    push_reset_event(a, SCTP_EVENT_STREAM_RESET_IN, stream, 0);
    sctp_stream_forget_if_idle(a, s);
}

static uint32_t perform_outgoing_reset(sctp_assoc_t *a, const sctp_reconfig_param_t *p)
{
    if (tsn_lt(a->peer_cum_tsn, p->last_tsn)) {
        return SCTP_RECONFIG_IN_PROGRESS; /* data sent before the reset is still missing */
    }
    if (p->n_streams == 0) {
        for (uint8_t i = a->n_streams; i > 0; i--) {
            reset_incoming(a, a->streams[i - 1].id); /* an empty list means every stream */
        }
    }
    for (uint16_t i = 0; i < p->n_streams; i++) {
        reset_incoming(a, p->streams[i]);
    }
    return SCTP_RECONFIG_SUCCESS_PERFORMED;
}

static void answer(sctp_assoc_t *a, uint32_t seq, uint32_t result)
{
    a->reconf_response_seq = seq;
    a->reconf_response_result = result;
    a->ctl |= SCTP_CTL_RECONF_RESPONSE;
}

static void handle_request(sctp_assoc_t *a, const sctp_reconfig_param_t *p)
{
    if (p->request_seq == a->peer_reconf_seq - 1) {
        answer(a, p->request_seq, a->last_reconf_result); /* a retransmission: same answer */
        return;
    }
    if (p->request_seq != a->peer_reconf_seq) {
        answer(a, p->request_seq, SCTP_RECONFIG_ERROR_BAD_SEQUENCE);
        return;
    }
    uint32_t result = p->kind == SCTP_RECONFIG_OUTGOING_RESET ? perform_outgoing_reset(a, p)
                                                                : SCTP_RECONFIG_DENIED;
    if (result != SCTP_RECONFIG_IN_PROGRESS) {
        a->peer_reconf_seq++;
        a->last_reconf_result = result; /* what a retransmitted request gets */
    }
    answer(a, p->request_seq, result);
}

void sctp_handle_reconfig(sctp_assoc_t *a, const sctp_chunk_t *c)
{
    sctp_reconfig_chunk_t r;
    if (sctp_reconfig_parse(c, &r) != ZQ_OK) {
        a->stats.rx_malformed++;
        return;
    }
    for (uint8_t i = 0; i < r.n_params; i++) {
        const sctp_reconfig_param_t *p = &r.params[i];
        if (p->kind == SCTP_RECONFIG_RESPONSE) {
            handle_response(a, p);
        } else if (p->kind != SCTP_RECONFIG_NONE) {
            handle_request(a, p);
        }
    }
}

/* ---- Writing ------------------------------------------------------------------------------ */

static void fill_request(const sctp_assoc_t *a, sctp_reconfig_param_t *p)
{
    memset(p, 0, sizeof *p);
    p->kind = SCTP_RECONFIG_OUTGOING_RESET;
    p->type = SCTP_PARAM_OUTGOING_RESET_REQUEST;
    p->request_seq = a->my_reconf_seq;
    p->response_seq = a->peer_reconf_seq - 1; /* §4.1: next expected minus one */
    p->last_tsn = a->inflight_reset_last_tsn;
    p->n_streams = a->n_inflight_resets;
    memcpy(p->streams, a->inflight_resets, a->n_inflight_resets * sizeof p->streams[0]);
}

size_t sctp_reconfig_size(const sctp_assoc_t *a, bool request)
{
    if (!request) {
        return 4 + 12;
    }
    return 4 + 16 + ((2u * a->n_inflight_resets + 3u) & ~3u);
}

void sctp_write_reconfig(sctp_assoc_t *a, zq_writer_t *w, bool request)
{
    sctp_reconfig_chunk_t r = {.n_params = 1};
    if (request) {
        fill_request(a, &r.params[0]);
    } else {
        memset(&r.params[0], 0, sizeof r.params[0]);
        r.params[0].kind = SCTP_RECONFIG_RESPONSE;
        r.params[0].type = SCTP_PARAM_RECONFIG_RESPONSE;
        r.params[0].response_seq = a->reconf_response_seq;
        r.params[0].result = a->reconf_response_result;
    }
    sctp_reconfig_write(w, &r);
}

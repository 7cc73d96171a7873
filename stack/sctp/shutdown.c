/* Graceful shutdown (RFC 9260 §9.2): no new data once asked; SHUTDOWN only when everything
 * sent has been acknowledged; then SHUTDOWN ACK and SHUTDOWN COMPLETE. T2 retransmits. */
#include "stack/sctp/sctp_internal.h"

static void start_t2(sctp_assoc_t *a)
{
    a->t2_rto = a->rto;
    a->t2_at = a->now + a->t2_rto;
}

static void closed(sctp_assoc_t *a)
{
    a->state = SCTP_STATE_CLOSED;
    a->t1_at = a->t2_at = a->t3_at = a->probe_at = a->sack_at = a->heartbeat_at =
        a->reconf_at = ZQ_TIME_NEVER;
    sctp_push_event(a, SCTP_EVENT_CLOSED, 0);
}

zq_err_t sctp_shutdown(sctp_assoc_t *a, uint64_t now)
{
    a->now = now > a->now ? now : a->now;
    if (a->state != SCTP_STATE_ESTABLISHED) {
        return a->state > SCTP_STATE_ESTABLISHED ? ZQ_OK : ZQ_ERR_STATE;
    }
    a->state = SCTP_STATE_SHUTDOWN_PENDING;
    sctp_shutdown_progress(a);
    return ZQ_OK;
}

/* Called after every input: moves on once the last byte we sent is acknowledged. */
void sctp_shutdown_progress(sctp_assoc_t *a)
{
    if (!sctp_all_acked(a)) {
        return;
    }
    if (a->state == SCTP_STATE_SHUTDOWN_PENDING) {
        a->state = SCTP_STATE_SHUTDOWN_SENT;
        a->ctl |= SCTP_CTL_SHUTDOWN;
        start_t2(a);
    } else if (a->state == SCTP_STATE_SHUTDOWN_RECEIVED) {
        a->state = SCTP_STATE_SHUTDOWN_ACK_SENT;
        a->ctl |= SCTP_CTL_SHUTDOWN_ACK;
        start_t2(a);
    }
}

void sctp_handle_shutdown(sctp_assoc_t *a, const sctp_chunk_t *c)
{
    uint32_t cum_tsn;
    if (sctp_shutdown_parse(c, &cum_tsn) != ZQ_OK) {
        a->stats.rx_malformed++;
        return;
    }
    switch (a->state) {
    case SCTP_STATE_ESTABLISHED:
    case SCTP_STATE_SHUTDOWN_PENDING:
        a->state = SCTP_STATE_SHUTDOWN_RECEIVED;
        break;
    case SCTP_STATE_SHUTDOWN_SENT: /* both shut down at once (§9.2) */
        a->state = SCTP_STATE_SHUTDOWN_ACK_SENT;
        a->ctl |= SCTP_CTL_SHUTDOWN_ACK;
        start_t2(a);
        break;
    default:
        break;
    }
}

void sctp_handle_shutdown_ack(sctp_assoc_t *a)
{
    if (a->state == SCTP_STATE_SHUTDOWN_SENT || a->state == SCTP_STATE_SHUTDOWN_ACK_SENT) {
        a->ctl = SCTP_CTL_SHUTDOWN_COMPLETE;
        closed(a);
    } else if (a->state == SCTP_STATE_CLOSED && a->peer_vtag != 0) {
        /* Our SHUTDOWN COMPLETE was lost and the peer sends SHUTDOWN ACK again: answer it
         * again (§9.2, and §8.4 5 for a SHUTDOWN ACK to no association), or the peer
         * retransmits it until Association.Max.Retrans gives up. */
        a->ctl |= SCTP_CTL_SHUTDOWN_COMPLETE;
    }
}

void sctp_handle_shutdown_complete(sctp_assoc_t *a)
{
    if (a->state == SCTP_STATE_SHUTDOWN_ACK_SENT) {
        a->ctl = 0;
        closed(a);
    }
}

void sctp_shutdown_timeout(sctp_assoc_t *a)
{
    if (a->state != SCTP_STATE_SHUTDOWN_SENT && a->state != SCTP_STATE_SHUTDOWN_ACK_SENT) {
        return;
    }
    if (++a->error_count > a->cfg.max_retransmits) {
        sctp_fail(a, SCTP_ABORT_MAX_RETRANSMITS, 0);
        return;
    }
    a->ctl |= a->state == SCTP_STATE_SHUTDOWN_SENT ? SCTP_CTL_SHUTDOWN : SCTP_CTL_SHUTDOWN_ACK;
    a->t2_rto = a->t2_rto * 2 > a->cfg.rto_max_ms ? a->cfg.rto_max_ms : a->t2_rto * 2;
    a->t2_at = a->now + a->t2_rto;
}

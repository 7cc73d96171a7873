/* HEARTBEAT (RFC 9260 §8.3): every HB.interval + RTO an idle association asks the peer to echo
 * a timestamp and a nonce; the answer is an RTT sample and proof of life, no answer counts
 * toward Association.Max.Retrans (§8.1). */
#include <string.h>

#include "stack/sctp/sctp_internal.h"

#define INFO_LEN 12 /* sent-at (8 bytes, our clock) + nonce (4) */

void sctp_heartbeat_timeout(sctp_assoc_t *a)
{
    if (a->state != SCTP_STATE_ESTABLISHED || a->cfg.heartbeat_ms == 0) {
        return;
    }
    if (a->heartbeat_unanswered && ++a->error_count > a->cfg.max_retransmits) {
        sctp_fail(a, SCTP_ABORT_MAX_RETRANSMITS, 0);
        return;
    }
    uint8_t nonce[4];
    (void)zq_rand_bytes(&a->cfg.rand, nonce, sizeof nonce);
    a->heartbeat_nonce = zq_load_be32(nonce);
    a->last_heartbeat_sent = a->now;
    a->heartbeat_unanswered = true;
    a->ctl |= SCTP_CTL_HEARTBEAT;
    a->heartbeat_at = a->now + a->rto + a->cfg.heartbeat_ms;
}

void sctp_write_heartbeat(sctp_assoc_t *a, zq_writer_t *w)
{
    uint8_t info[INFO_LEN];
    zq_store_be64(info, a->last_heartbeat_sent);
    zq_store_be32(info + 8, a->heartbeat_nonce);
    sctp_heartbeat_write(w, SCTP_CHUNK_HEARTBEAT, info, sizeof info);
}

void sctp_handle_heartbeat(sctp_assoc_t *a, const sctp_chunk_t *c)
{
    const uint8_t *info;
    size_t len;
    if (sctp_heartbeat_parse(c, &info, &len) != ZQ_OK || len > sizeof a->heartbeat_ack) {
        a->stats.rx_malformed++;
        return;
    }
    memcpy(a->heartbeat_ack, info, len); /* §8.3: echoed untouched */
    a->heartbeat_ack_len = (uint8_t)len;
    a->ctl |= SCTP_CTL_HEARTBEAT_ACK;
}

void sctp_handle_heartbeat_ack(sctp_assoc_t *a, const sctp_chunk_t *c)
{
    const uint8_t *info;
    size_t len;
    if (sctp_heartbeat_parse(c, &info, &len) != ZQ_OK || len != INFO_LEN ||
        zq_load_be32(info + 8) != a->heartbeat_nonce || !a->heartbeat_unanswered) {
        return; /* not an answer to our last heartbeat */
    }
    a->heartbeat_unanswered = false;
    a->error_count = 0;
    sctp_rto_sample(a, (uint32_t)(a->now - zq_load_be64(info)));
}

/* Server-reflexive candidates (RFC 8445 §5.1.1.2): a full agent asks a STUN server what
 * address its host candidates have from outside, one Binding request per host of the
 * server's family. Host candidates are announced when added; gathering ends when every
 * request has an answer or has timed out. */
#include "stack/ice/ice_internal.h"

#if ZQ_ICE_FULL /* else lite only: stack/ice/ice_lite_only.c */

void ice_gather_start(ice_agent_t *a, uint64_t now)
{
    if (a->cfg.stun_server.family == ZQ_AF_NONE) {
        return;
    }
    for (uint8_t i = 0; i < a->n_local; i++) {
        const ice_local_t *l = &a->local[i];
        if (l->cand.type == ICE_CAND_HOST && l->base.family == a->cfg.stun_server.family) {
            (void)ice_txn_start(a, now, ICE_TXN_GATHER, i, false);
        }
    }
}

void ice_gather_result(ice_agent_t *a, const ice_txn_t *txn, const stun_msg_t *msg)
{
    const zq_addr_t *mapped = (msg->present & STUN_HAS_XOR_MAPPED_ADDRESS) ? &msg->xor_mapped
                              : (msg->present & STUN_HAS_MAPPED_ADDRESS) ? &msg->mapped
                                                                           : NULL;
    if (mapped == NULL) {
        return;
    }
    uint8_t before = a->n_local;
    /* An address equal to a host's (no NAT) is found, not added: it would be redundant. */
    uint8_t index = ice_add_local(a, ICE_CAND_SRFLX, mapped, &a->local[txn->index].base);
    if (index != ICE_NONE && a->n_local > before) {
        ice_queue_event(a, ICE_EVENT_LOCAL_CANDIDATE, index);
    }
}

#endif /* ZQ_ICE_FULL */

/* Both modes: a lite agent has only host candidates, gathered at once. */
void ice_gather_check_done(ice_agent_t *a)
{
    if (a->gathering_done || !a->started) {
        return;
    }
    for (size_t i = 0; i < ZQ_ICE_MAX_TRANSACTIONS; i++) {
        if (a->txns[i].kind == ICE_TXN_GATHER) {
            return;
        }
    }
    a->gathering_done = true;
    ice_queue_event(a, ICE_EVENT_GATHERING_DONE, 0);
}

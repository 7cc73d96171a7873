/* Server-reflexive candidates (RFC 8445 §5.1.1.2): a full agent asks a STUN server what
 * address its host candidates have from outside, one Binding request per host of the
 * server's family. Relayed candidates come from a TURN allocation the caller holds. Host
 * candidates are announced when added; gathering ends when every request has an answer or
 * has timed out, and no relayed candidate is still expected. */
#include "stack/ice/ice_internal.h"

#if ZQ_ICE_FULL /* else lite only: stack/ice/ice_lite_only.c */

void ice_gather_start(ice_agent_t *a, uint64_t now)
{
    if (a->cfg.stun_server.family == ZQ_AF_NONE) {
        return;
    }
    for (uint8_t i = 0; i < a->n_local; i++) {
        const ice_local_t *l = &a->local[i];
        if (l->cand.type == ICE_CAND_HOST && zq_addr_can_reach(&l->base, &a->cfg.stun_server)) {
            (void)ice_txn_start(a, now, ICE_TXN_GATHER, i, false);
        }
    }
}

static void announce(ice_agent_t *a, ice_cand_type_t type, const zq_addr_t *addr,
                     const zq_addr_t *base, uint8_t *index)
{
    uint8_t before = a->n_local;
    *index = ice_add_local(a, type, addr, base);
    if (*index != ICE_NONE && a->n_local > before) {
        ice_queue_event(a, ICE_EVENT_LOCAL_CANDIDATE, *index);
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
    /* An address equal to a host's (no NAT) is found, not added: it would be redundant. */
    uint8_t index;
    announce(a, ICE_CAND_SRFLX, mapped, &a->local[txn->index].base, &index);
}

zq_err_t ice_agent_add_relay_candidate(ice_agent_t *a, uint64_t now, const ice_relay_t *relay,
                                       const zq_addr_t *host)
{
    if (a->cfg.mode != ICE_MODE_FULL || ice_is_terminal(a)) {
        return ZQ_ERR_STATE;
    }
    uint8_t h = ice_find_base(a, host);
    if (h == ICE_NONE || a->local[h].cand.type != ICE_CAND_HOST) {
        return ZQ_ERR_NOT_FOUND;
    }
    uint8_t index;
    if (relay->mapped_is_udp && relay->mapped.family != ZQ_AF_NONE) {
        announce(a, ICE_CAND_SRFLX, &relay->mapped, host, &index); /* §5.1.1.2: learnt with it */
    }
    announce(a, ICE_CAND_RELAY, &relay->relayed, &relay->relayed, &index);
    if (index == ICE_NONE) {
        return ZQ_ERR_CAPACITY;
    }
    /* RFC 8839 §5.1: a relayed candidate's raddr is its mapped address. */
    a->local[index].cand.related = relay->mapped;
    a->relay_expected = false;
    ice_form_pairs(a);
    if (a->started) {
        ice_checklist_tick(a, now);
        ice_gather_check_done(a);
    }
    return ZQ_OK;
}

#endif /* ZQ_ICE_FULL */

void ice_agent_expect_relay(ice_agent_t *a, bool expected)
{
    a->relay_expected = expected;
    ice_gather_check_done(a);
}

/* Both modes: a lite agent has only host candidates, gathered at once. */
void ice_gather_check_done(ice_agent_t *a)
{
    if (a->gathering_done || !a->started || a->relay_expected) {
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

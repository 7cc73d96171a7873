/* Our requests: connectivity checks, consent checks, server-reflexive gathering. Each is a STUN
 * client transaction (RFC 8489 §6.2.1): sent at 0, RTO, 3 RTO, 7 RTO, ... up to Rc times, then
 * failed Rm * RTO after the last send. Consent checks are never resent (RFC 7675 §5.1). */
#include <string.h>

#include "stack/ice/ice_internal.h"
#include "zq/log.h"

#if ZQ_ICE_FULL /* else lite only: stack/ice/ice_lite_only.c */

size_t ice_request_username(const ice_agent_t *a, char *out, size_t cap)
{
    /* RFC 8445 §7.2.2: "<their ufrag>:<our ufrag>". */
    size_t theirs = strlen(a->remote_cred.ufrag);
    size_t ours = strlen(a->local_cred.ufrag);
    if (theirs + 1 + ours > cap) {
        return 0;
    }
    memcpy(out, a->remote_cred.ufrag, theirs);
    out[theirs] = ':';
    memcpy(out + theirs + 1, a->local_cred.ufrag, ours);
    return theirs + 1 + ours;
}

/* RFC 8445 §7.1.1: PRIORITY is what a peer-reflexive candidate from this base would get. */
static uint32_t prflx_priority_of(const ice_agent_t *a, uint8_t host)
{
    uint32_t host_priority = a->local[host].cand.priority;
    uint16_t local_pref = (uint16_t)((host_priority >> 8) & 0xFFFFu);
    return ice_candidate_priority(ICE_CAND_PRFLX, local_pref, 1);
}

static size_t build_check(const ice_agent_t *a, const ice_txn_t *txn, uint8_t *buf, size_t cap)
{
    const ice_pair_t *p = &a->pairs[txn->index];
    char username[2 * ZQ_ICE_UFRAG_MAX + 1];
    size_t username_len = ice_request_username(a, username, sizeof username);
    stun_builder_t b;
    stun_build_start(&b, buf, cap, STUN_BINDING_REQUEST, txn->tid);
    stun_put_attr(&b, STUN_ATTR_USERNAME, username, username_len);
    stun_put_u32(&b, STUN_ATTR_PRIORITY, prflx_priority_of(a, p->local));
    stun_put_u64(&b,
                 txn->role_sent == ICE_ROLE_CONTROLLING ? STUN_ATTR_ICE_CONTROLLING
                                                        : STUN_ATTR_ICE_CONTROLLED,
                 a->tie_breaker);
    if (txn->nominating) {
        stun_put_attr(&b, STUN_ATTR_USE_CANDIDATE, NULL, 0);
    }
    stun_put_integrity(&b, (const uint8_t *)a->remote_cred.pwd, strlen(a->remote_cred.pwd));
    stun_put_fingerprint(&b);
    return stun_build_finish(&b);
}

/* RFC 8489 §6.1: a request to a STUN server carries no credentials. */
static size_t build_gather(const ice_txn_t *txn, uint8_t *buf, size_t cap)
{
    stun_builder_t b;
    stun_build_start(&b, buf, cap, STUN_BINDING_REQUEST, txn->tid);
    stun_put_fingerprint(&b);
    return stun_build_finish(&b);
}

void ice_txn_send(ice_agent_t *a, ice_txn_t *txn)
{
    uint8_t buf[ZQ_STUN_MAX_MESSAGE];
    txn->sends++;
    if (txn->kind == ICE_TXN_GATHER) {
        size_t len = build_gather(txn, buf, sizeof buf);
        ice_queue_datagram(a, &a->local[txn->index].base, &a->cfg.stun_server, buf, len);
        return;
    }
    const ice_pair_t *p = &a->pairs[txn->index];
    size_t len = build_check(a, txn, buf, sizeof buf);
    ice_queue_datagram(a, &a->local[p->local].base, &a->remote[p->remote].addr, buf, len);
}

/* After send number `sends`, when to act next: resend after the doubling RTO, or give up
 * Rm * RTO after the last one. A consent check only lives until the next one is due. */
static void schedule_next(const ice_agent_t *a, ice_txn_t *txn, uint64_t now)
{
    if (txn->kind == ICE_TXN_CONSENT) {
        txn->next_at = now + a->cfg.consent_interval_ms;
    } else {
        txn->next_at = stun_next_retransmit(now, txn->sends, a->cfg.max_sends, a->cfg.rto_ms,
                                            a->cfg.final_wait_factor, &txn->rto);
    }
}

ice_txn_t *ice_txn_start(ice_agent_t *a, uint64_t now, ice_txn_kind_t kind, uint8_t index,
                         bool nominating)
{
    ice_txn_t *txn = NULL;
    for (size_t i = 0; i < ZQ_ICE_MAX_TRANSACTIONS && txn == NULL; i++) {
        txn = a->txns[i].kind == ICE_TXN_FREE ? &a->txns[i] : NULL;
    }
    if (txn == NULL) {
        a->stats.capacity_exhausted++;
        return NULL;
    }
    memset(txn, 0, sizeof *txn);
    if (zq_rand_bytes(&a->cfg.rand, txn->tid, sizeof txn->tid) != ZQ_OK) {
        return NULL;
    }
    txn->kind = (uint8_t)kind;
    txn->index = index;
    txn->nominating = nominating;
    txn->role_sent = (uint8_t)a->role;
    txn->rto = a->cfg.rto_ms;
    ice_txn_send(a, txn);
    schedule_next(a, txn, now);
    return txn;
}

static int txn_index(const ice_agent_t *a, const uint8_t tid[STUN_TID_LEN])
{
    for (int i = 0; i < ZQ_ICE_MAX_TRANSACTIONS; i++) {
        const ice_txn_t *t = &a->txns[i];
        if (t->kind != ICE_TXN_FREE && memcmp(t->tid, tid, STUN_TID_LEN) == 0) {
            return i;
        }
    }
    return -1;
}

ice_txn_t *ice_txn_find(ice_agent_t *a, const uint8_t tid[STUN_TID_LEN])
{
    int i = txn_index(a, tid);
    return i >= 0 ? &a->txns[i] : NULL;
}

bool ice_txn_pending(const ice_agent_t *a, const uint8_t tid[STUN_TID_LEN])
{
    return txn_index(a, tid) >= 0;
}

void ice_txn_free(ice_txn_t *txn)
{
    txn->kind = ICE_TXN_FREE;
}

static void txn_timed_out(ice_agent_t *a, uint64_t now, ice_txn_t *txn)
{
    ice_txn_t done = *txn;
    ice_txn_free(txn);
    if (done.cancelled || done.kind == ICE_TXN_CONSENT) {
        return; /* superseded by a triggered check / consent rests on its own deadline */
    }
    if (done.kind == ICE_TXN_CHECK) {
        ice_check_failed(a, now, &done, 0);
    } else {
        ice_gather_check_done(a); /* no answer from the STUN server: no srflx candidate */
    }
}

void ice_txn_tick(ice_agent_t *a, uint64_t now)
{
    for (size_t i = 0; i < ZQ_ICE_MAX_TRANSACTIONS; i++) {
        ice_txn_t *txn = &a->txns[i];
        if (txn->kind == ICE_TXN_FREE || now < txn->next_at) {
            continue;
        }
        bool resend = txn->kind != ICE_TXN_CONSENT && !txn->cancelled &&
                      txn->sends < a->cfg.max_sends;
        if (resend) {
            a->stats.retransmits++;
            ice_txn_send(a, txn);
            schedule_next(a, txn, now);
        } else {
            txn_timed_out(a, now, txn);
        }
    }
}

uint64_t ice_txn_next_timeout(const ice_agent_t *a)
{
    uint64_t t = ZQ_TIME_NEVER;
    for (size_t i = 0; i < ZQ_ICE_MAX_TRANSACTIONS; i++) {
        if (a->txns[i].kind != ICE_TXN_FREE) {
            t = zq_time_min(t, a->txns[i].next_at);
        }
    }
    return t;
}

/* ---- Responses ---------------------------------------------------------------------------- */

static void handle_gather_response(ice_agent_t *a, ice_txn_t *txn, const stun_msg_t *msg)
{
    ice_txn_t done = *txn;
    ice_txn_free(txn);
    bool success = stun_class_of(msg->type) == 2 && msg->unknown_required_count == 0;
    if (success) {
        ice_gather_result(a, &done, msg);
    }
    ice_gather_check_done(a);
}

/* RFC 8445 §7.2.5.2.1: the answer must come from where the check went, to where it left. */
static bool is_symmetric(const ice_agent_t *a, const ice_txn_t *txn, uint8_t host,
                         const zq_addr_t *remote)
{
    const ice_pair_t *p = &a->pairs[txn->index];
    return p->local == host && zq_addr_equal(&a->remote[p->remote].addr, remote);
}

/* §7.2.5.1: 487 means we claimed the wrong role; switch (unless a switch already happened)
 * and check the pair again. */
static void handle_role_conflict(ice_agent_t *a, uint64_t now, const ice_txn_t *done)
{
    if (a->role == (ice_role_t)done->role_sent) {
        ice_switch_role(a, a->role == ICE_ROLE_CONTROLLING ? ICE_ROLE_CONTROLLED
                                                           : ICE_ROLE_CONTROLLING);
    }
    if (done->nominating && a->nominating == done->index) {
        a->nominating = ICE_NONE;
    }
    a->pairs[done->index].state = ICE_PAIR_WAITING;
    ice_trigger_check(a, now, done->index);
    ice_checklist_tick(a, now);
}

static void handle_check_response(ice_agent_t *a, uint64_t now, ice_txn_t *txn, uint8_t host,
                                  const zq_addr_t *remote, const stun_msg_t *msg)
{
    ice_txn_t done = *txn;
    ice_txn_free(txn);
    bool success = stun_class_of(msg->type) == 2;
    if (done.kind == ICE_TXN_CONSENT) {
        if (success && is_symmetric(a, &done, host, remote)) {
            ice_consent_proof(a, now);
        }
        return;
    }
    if (!success && msg->error_code == STUN_ERROR_ROLE_CONFLICT) {
        handle_role_conflict(a, now, &done);
    } else if (!success || msg->unknown_required_count > 0 ||
               !is_symmetric(a, &done, host, remote)) {
        ice_check_failed(a, now, &done, msg->error_code);
    } else {
        if (a->selected == done.index) {
            ice_consent_proof(a, now);
        }
        ice_check_succeeded(a, now, &done, msg);
    }
}

void ice_handle_response(ice_agent_t *a, uint64_t now, uint8_t host, const zq_addr_t *remote,
                         const stun_msg_t *msg)
{
    ice_txn_t *txn = ice_txn_find(a, msg->tid);
    if (txn == NULL) {
        a->stats.rx_unknown_txn++;
        return;
    }
    if (txn->kind == ICE_TXN_GATHER) {
        handle_gather_response(a, txn, msg);
        return;
    }
    /* Believe nothing before it is authenticated with the peer's password (§7.2.5.1). */
    if (stun_verify_integrity(msg, (const uint8_t *)a->remote_cred.pwd,
                              strlen(a->remote_cred.pwd)) != ZQ_OK) {
        a->stats.rx_bad_integrity++;
        return; /* the transaction continues: a forged answer cannot end it */
    }
    handle_check_response(a, now, txn, host, remote, msg);
}

#endif /* ZQ_ICE_FULL */

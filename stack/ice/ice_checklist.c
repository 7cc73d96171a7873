/* The check list of a full agent (RFC 8445 §6.1.2 - §6.1.4, §7.2.5, §8.1): pairs and their
 * states, the triggered-check queue, pacing by Ta, and regular nomination when controlling.
 * A lite agent keeps pairs too (learned from the peer's checks) but never sends a check. */
#include <string.h>

#include "stack/ice/ice_internal.h"
#include "zq/log.h"

/* ---- Pairs ------------------------------------------------------------------------------- */

/* RFC 8445 §6.1.2.3: G is the controlling side's candidate priority, D the controlled's. */
uint64_t ice_pair_priority(const ice_agent_t *a, const ice_pair_t *p)
{
    uint64_t local = a->local[p->local].cand.priority;
    uint64_t remote = a->remote[p->remote].priority;
    uint64_t g = a->role == ICE_ROLE_CONTROLLING ? local : remote;
    uint64_t d = a->role == ICE_ROLE_CONTROLLING ? remote : local;
    uint64_t lo = g < d ? g : d;
    uint64_t hi = g < d ? d : g;
    return (lo << 32) + 2 * hi + (g > d ? 1 : 0);
}

void ice_recompute_priorities(ice_agent_t *a)
{
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        a->pairs[i].priority = ice_pair_priority(a, &a->pairs[i]);
    }
}

uint8_t ice_find_pair(const ice_agent_t *a, uint8_t local, uint8_t remote)
{
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        if (a->pairs[i].local == local && a->pairs[i].remote == remote) {
            return i;
        }
    }
    return ICE_NONE;
}

static bool same_foundation(const ice_agent_t *a, const ice_pair_t *x, const ice_pair_t *y)
{
    return strcmp(a->local[x->local].cand.foundation, a->local[y->local].cand.foundation) == 0 &&
           strcmp(a->remote[x->remote].foundation, a->remote[y->remote].foundation) == 0;
}

/* RFC 8445 §6.1.2.6 (and RFC 8838 §10 for pairs that arrive later): a new pair waits unless
 * a pair of the same foundation is already being checked, in which case it stays frozen. */
static uint8_t initial_state(const ice_agent_t *a, const ice_pair_t *p)
{
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        const ice_pair_t *q = &a->pairs[i];
        bool active = q->state == ICE_PAIR_WAITING || q->state == ICE_PAIR_IN_PROGRESS;
        if (q != p && active && same_foundation(a, p, q)) {
            return ICE_PAIR_FROZEN;
        }
    }
    return ICE_PAIR_WAITING;
}

uint8_t ice_add_pair(ice_agent_t *a, uint8_t local, uint8_t remote)
{
    if (a->n_pairs == ZQ_ICE_MAX_PAIRS) {
        a->stats.capacity_exhausted++;
        return ICE_NONE;
    }
    ice_pair_t *p = &a->pairs[a->n_pairs];
    memset(p, 0, sizeof *p);
    p->local = local;
    p->remote = remote;
    p->priority = ice_pair_priority(a, p);
    p->state = initial_state(a, p);
    return a->n_pairs++;
}

void ice_form_pairs(ice_agent_t *a)
{
    if (a->cfg.mode == ICE_MODE_LITE) {
        return; /* a lite agent pairs only what the peer's checks show it */
    }
    for (uint8_t l = 0; l < a->n_local; l++) {
        ice_cand_type_t type = a->local[l].cand.type;
        if (type != ICE_CAND_HOST && type != ICE_CAND_RELAY) {
            continue; /* §6.1.2.4: a srflx candidate is replaced by its base: same pairs */
        }
        for (uint8_t r = 0; r < a->n_remote; r++) {
            /* §6.1.2.2: the same family; and one that can reach the other at all. */
            if (zq_addr_can_reach(&a->local[l].base, &a->remote[r].addr) &&
                ice_find_pair(a, l, r) == ICE_NONE) {
                (void)ice_add_pair(a, l, r);
            }
        }
    }
}

#if ZQ_ICE_FULL /* the rest is a full agent's: else stack/ice/ice_lite_only.c */

/* ---- Choosing the next check ------------------------------------------------------------- */

static uint8_t first_triggered(const ice_agent_t *a)
{
    uint8_t best = ICE_NONE;
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        const ice_pair_t *p = &a->pairs[i];
        if ((p->flags & ICE_PAIR_TRIGGERED) &&
            (best == ICE_NONE || p->triggered_order < a->pairs[best].triggered_order)) {
            best = i;
        }
    }
    return best;
}

static uint8_t best_in_state(const ice_agent_t *a, uint8_t state)
{
    uint8_t best = ICE_NONE;
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        const ice_pair_t *p = &a->pairs[i];
        if (p->state == state && (best == ICE_NONE || p->priority > a->pairs[best].priority)) {
            best = i;
        }
    }
    return best;
}

/* §6.1.4.2: the triggered queue first, then the best waiting pair, then unfreeze the best. */
static uint8_t next_pair_to_check(const ice_agent_t *a)
{
    uint8_t pair = first_triggered(a);
    if (pair == ICE_NONE) {
        pair = best_in_state(a, ICE_PAIR_WAITING);
    }
    if (pair == ICE_NONE) {
        pair = best_in_state(a, ICE_PAIR_FROZEN);
    }
    return pair;
}

static bool can_check(const ice_agent_t *a)
{
    return a->cfg.mode == ICE_MODE_FULL && a->started && a->have_remote_cred &&
           !ice_is_terminal(a);
}

void ice_trigger_check(ice_agent_t *a, uint64_t now, uint8_t pair)
{
    (void)now;
    ice_pair_t *p = &a->pairs[pair];
    if (p->state == ICE_PAIR_SUCCEEDED || (p->flags & ICE_PAIR_TRIGGERED)) {
        return;
    }
    if (p->state == ICE_PAIR_IN_PROGRESS) {
        /* §7.3.1.4: cancel the check in flight: no more retransmissions, but a late answer
         * still counts. A nomination carries over to the check that replaces it. */
        for (size_t i = 0; i < ZQ_ICE_MAX_TRANSACTIONS; i++) {
            ice_txn_t *t = &a->txns[i];
            if (t->kind == ICE_TXN_CHECK && t->index == pair && !t->cancelled) {
                t->cancelled = true;
                p->flags |= t->nominating ? ICE_PAIR_NOMINATE_NEXT : 0;
            }
        }
    }
    p->state = ICE_PAIR_WAITING;
    p->flags |= ICE_PAIR_TRIGGERED;
    p->triggered_order = a->triggered_counter++;
}

/* §8.1.1 regular nomination: the controlling agent picks the best valid pair. Returns it, or
 * ICE_NONE when there is nothing to nominate now; @p better_pending tells whether a pair of
 * higher priority is still being checked (worth waiting nomination_wait_ms for). */
static uint8_t nomination_candidate(const ice_agent_t *a, bool *better_pending)
{
    *better_pending = false;
    if (a->role != ICE_ROLE_CONTROLLING || a->nominating != ICE_NONE ||
        a->selected != ICE_NONE) {
        return ICE_NONE;
    }
    uint8_t best = ICE_NONE;
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        const ice_pair_t *p = &a->pairs[i];
        if ((p->flags & ICE_PAIR_VALID) && p->state == ICE_PAIR_SUCCEEDED &&
            (best == ICE_NONE || p->priority > a->pairs[best].priority)) {
            best = i;
        }
    }
    for (uint8_t i = 0; i < a->n_pairs && best != ICE_NONE; i++) {
        const ice_pair_t *p = &a->pairs[i];
        bool pending = p->state != ICE_PAIR_SUCCEEDED && p->state != ICE_PAIR_FAILED;
        *better_pending |= pending && p->priority > a->pairs[best].priority;
    }
    return best;
}

/* When the nomination of @p best is due. */
static uint64_t nomination_due(const ice_agent_t *a, bool better_pending)
{
    return better_pending ? a->first_valid_at + a->cfg.nomination_wait_ms : 0;
}

/* Once due, the best pair is checked again with USE-CANDIDATE. */
static void maybe_nominate(ice_agent_t *a, uint64_t now)
{
    bool better_pending;
    uint8_t best = nomination_candidate(a, &better_pending);
    if (best == ICE_NONE || now < nomination_due(a, better_pending)) {
        return;
    }
    ice_pair_t *p = &a->pairs[best];
    p->flags |= ICE_PAIR_NOMINATE_NEXT | ICE_PAIR_TRIGGERED;
    p->triggered_order = a->triggered_counter++;
    a->nominating = best;
}

void ice_checklist_tick(ice_agent_t *a, uint64_t now)
{
    if (!can_check(a)) {
        return;
    }
    maybe_nominate(a, now);
    if (a->next_check_at != ZQ_TIME_NEVER && now < a->next_check_at) {
        return;
    }
    uint8_t pair = next_pair_to_check(a);
    if (pair == ICE_NONE) {
        a->next_check_at = ZQ_TIME_NEVER;
        return;
    }
    ice_pair_t *p = &a->pairs[pair];
    bool nominate = (p->flags & ICE_PAIR_NOMINATE_NEXT) != 0;
    a->next_check_at = now + a->cfg.ta_ms;
    if (ice_txn_start(a, now, ICE_TXN_CHECK, pair, nominate) == NULL) {
        return; /* no free transaction: retried at the next pacing slot */
    }
    p->state = ICE_PAIR_IN_PROGRESS;
    p->flags &= (uint8_t)~(ICE_PAIR_TRIGGERED | ICE_PAIR_NOMINATE_NEXT);
    a->stats.checks_sent++;
}

static bool has_pending_work(const ice_agent_t *a)
{
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        const ice_pair_t *p = &a->pairs[i];
        if (p->state == ICE_PAIR_WAITING || p->state == ICE_PAIR_FROZEN ||
            (p->flags & ICE_PAIR_TRIGGERED)) {
            return true;
        }
    }
    return false;
}

uint64_t ice_checklist_next_timeout(const ice_agent_t *a)
{
    if (!can_check(a)) {
        return ZQ_TIME_NEVER;
    }
    uint64_t t = ZQ_TIME_NEVER;
    if (has_pending_work(a)) {
        t = a->next_check_at == ZQ_TIME_NEVER ? 0 : a->next_check_at; /* 0: due now */
    }
    bool better_pending;
    if (nomination_candidate(a, &better_pending) != ICE_NONE) {
        t = zq_time_min(t, nomination_due(a, better_pending));
    }
    return t;
}

/* ---- Outcomes ---------------------------------------------------------------------------- */

/* §7.2.5.3.3: success on one pair unfreezes the frozen pairs of its foundation. */
static void unfreeze_foundation(ice_agent_t *a, const ice_pair_t *done)
{
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        ice_pair_t *p = &a->pairs[i];
        if (p->state == ICE_PAIR_FROZEN && same_foundation(a, p, done)) {
            p->state = ICE_PAIR_WAITING;
        }
    }
}

/* §7.2.5.3.1: a mapped address that is none of ours is a local peer-reflexive candidate. It
 * shares the pair's base, so checks and data keep using the same socket. */
static void learn_local_prflx(ice_agent_t *a, const ice_pair_t *p, const stun_msg_t *msg)
{
    if (!(msg->present & STUN_HAS_XOR_MAPPED_ADDRESS)) {
        return;
    }
    for (uint8_t i = 0; i < a->n_local; i++) {
        if (zq_addr_equal(&a->local[i].cand.addr, &msg->xor_mapped)) {
            return;
        }
    }
    (void)ice_add_local(a, ICE_CAND_PRFLX, &msg->xor_mapped, &a->local[p->local].base);
}

void ice_check_succeeded(ice_agent_t *a, uint64_t now, const ice_txn_t *txn,
                         const stun_msg_t *msg)
{
    ice_pair_t *p = &a->pairs[txn->index];
    p->state = ICE_PAIR_SUCCEEDED;
    p->flags |= ICE_PAIR_VALID;
    if (a->first_valid_at == ZQ_TIME_NEVER) {
        a->first_valid_at = now;
    }
    learn_local_prflx(a, p, msg);
    unfreeze_foundation(a, p);
    bool nominated_by_us = txn->nominating && a->role == ICE_ROLE_CONTROLLING;
    bool nominated_by_peer = (p->flags & ICE_PAIR_PEER_NOMINATED) &&
                             a->role == ICE_ROLE_CONTROLLED;
    if (txn->nominating && a->nominating == txn->index) {
        a->nominating = ICE_NONE;
    }
    if (nominated_by_us || nominated_by_peer) {
        p->flags |= ICE_PAIR_NOMINATED;
        ice_update_selection(a, now);
    }
    ice_checklist_tick(a, now);
}

void ice_check_failed(ice_agent_t *a, uint64_t now, const ice_txn_t *txn, uint16_t error_code)
{
    ice_pair_t *p = &a->pairs[txn->index];
    ZQ_LOGD("ice", "check failed (error %u)", (unsigned)error_code);
    if (!(p->flags & ICE_PAIR_TRIGGERED)) {
        p->state = ICE_PAIR_FAILED;
    }
    if (txn->nominating) {
        p->flags &= (uint8_t)~ICE_PAIR_VALID; /* a failed nomination: the pair is not usable */
        if (a->nominating == txn->index) {
            a->nominating = ICE_NONE;
        }
    }
    ice_check_for_failure(a);
    ice_checklist_tick(a, now);
}

void ice_check_for_failure(ice_agent_t *a)
{
    if (a->cfg.mode != ICE_MODE_FULL || a->state != ICE_STATE_CHECKING ||
        !a->remote_gathering_done || a->n_pairs == 0) {
        return; /* without end-of-candidates, a peer-reflexive pair may still turn up */
    }
    for (uint8_t i = 0; i < a->n_pairs; i++) {
        if (a->pairs[i].state != ICE_PAIR_FAILED) {
            return;
        }
    }
    for (size_t i = 0; i < ZQ_ICE_MAX_TRANSACTIONS; i++) {
        if (a->txns[i].kind == ICE_TXN_CHECK) {
            return;
        }
    }
    ZQ_LOGI("ice", "every candidate pair failed");
    ice_fail(a, ICE_EVENT_FAILED);
}

#endif /* ZQ_ICE_FULL */

/* Answering the peer's connectivity checks, in both modes (RFC 8445 §7.3, RFC 8489 §6.3, §9.1).
 *
 * Order matters: nothing in a request is believed before its USERNAME names our ufrag and its
 * MESSAGE-INTEGRITY verifies with our password. Failures before that get 400/401 without
 * integrity (we cannot prove anything to an unauthenticated sender); after it, 420 and 487
 * carry MESSAGE-INTEGRITY so the peer can trust them. */
#include <string.h>

#include "stack/ice/ice_internal.h"
#include "zq/log.h"

/* RFC 8489 §5: a response keeps the request's method and sets the class bits. */
static uint16_t response_type(uint16_t request_type, bool error)
{
    return (uint16_t)((request_type & ~0x0110u) | (error ? 0x0110u : 0x0100u));
}

static void queue_built(ice_agent_t *a, uint8_t host, const zq_addr_t *remote,
                        const stun_builder_t *b)
{
    size_t len = stun_build_finish(b);
    if (len > 0) {
        ice_queue_datagram(a, &a->local[host].base, remote, b->w.data, len);
    }
}

static void send_error(ice_agent_t *a, uint8_t host, const zq_addr_t *remote,
                       const stun_msg_t *req, uint16_t code, bool authenticated)
{
    static const char *const reasons[] = {"Bad Request", "Unauthorized", "Unknown Attribute",
                                          "Role Conflict"};
    const char *reason = code == STUN_ERROR_BAD_REQUEST     ? reasons[0]
                         : code == STUN_ERROR_UNAUTHORIZED  ? reasons[1]
                         : code == STUN_ERROR_UNKNOWN_ATTRIBUTE ? reasons[2]
                                                                 : reasons[3];
    uint8_t buf[ZQ_STUN_MAX_MESSAGE];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, response_type(req->type, true), req->tid);
    stun_put_error_code(&b, code, reason);
    if (code == STUN_ERROR_UNKNOWN_ATTRIBUTE) {
        stun_put_unknown_attributes(&b, req->unknown_required, req->unknown_required_count);
    }
    if (authenticated) {
        stun_put_integrity(&b, (const uint8_t *)a->local_cred.pwd, strlen(a->local_cred.pwd));
    }
    stun_put_fingerprint(&b);
    queue_built(a, host, remote, &b);
}

static void send_success(ice_agent_t *a, uint8_t host, const zq_addr_t *remote,
                         const stun_msg_t *req)
{
    uint8_t buf[ZQ_STUN_MAX_MESSAGE];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, response_type(req->type, false), req->tid);
    stun_put_xor_address(&b, STUN_ATTR_XOR_MAPPED_ADDRESS, remote);
    stun_put_integrity(&b, (const uint8_t *)a->local_cred.pwd, strlen(a->local_cred.pwd));
    stun_put_fingerprint(&b);
    queue_built(a, host, remote, &b);
}

bool ice_agent_is_addressed(const ice_agent_t *a, const stun_msg_t *msg)
{
    if (stun_class_of(msg->type) >= 2) { /* a success or error response */
        return ice_txn_pending(a, msg->tid);
    }
    const stun_bytes_t *u = &msg->username;
    size_t ours = strlen(a->local_cred.ufrag);
    return (msg->present & STUN_HAS_USERNAME) && ours > 0 && u->len > ours &&
           memcmp(u->data, a->local_cred.ufrag, ours) == 0 && u->data[ours] == ':';
}

/* RFC 8445 §7.3: USERNAME is "<our ufrag>:<their ufrag>". The peer's part is checked once
 * known; before the answer arrives (trickle) it may legitimately be unknown. */
static bool username_is_ours(const ice_agent_t *a, const stun_msg_t *msg)
{
    if (!ice_agent_is_addressed(a, msg)) {
        return false;
    }
    if (!a->have_remote_cred) {
        return true;
    }
    const stun_bytes_t *u = &msg->username;
    size_t ours = strlen(a->local_cred.ufrag);
    size_t theirs = strlen(a->remote_cred.ufrag);
    return u->len - ours - 1 == theirs && memcmp(u->data + ours + 1, a->remote_cred.ufrag,
                                                 theirs) == 0;
}

static bool authenticated(const ice_agent_t *a, const stun_msg_t *msg)
{
    return username_is_ours(a, msg) &&
           stun_verify_integrity(msg, (const uint8_t *)a->local_cred.pwd,
                                 strlen(a->local_cred.pwd)) == ZQ_OK;
}

/* RFC 8445 §7.3.1.1: both sides claim the same role; the larger tie-breaker keeps
 * controlling. Returns true when the request must be answered with 487. */
static bool role_conflict_rejects(ice_agent_t *a, const stun_msg_t *msg)
{
    bool peer_controlling = (msg->present & STUN_HAS_ICE_CONTROLLING) != 0;
    if (peer_controlling && a->role == ICE_ROLE_CONTROLLING) {
        if (a->tie_breaker >= msg->tie_breaker) {
            return true;
        }
        ice_switch_role(a, ICE_ROLE_CONTROLLED);
    } else if (!peer_controlling && a->role == ICE_ROLE_CONTROLLED) {
        /* A lite agent cannot take control: 487 makes the full peer switch instead. */
        if (a->cfg.mode == ICE_MODE_LITE || a->tie_breaker < msg->tie_breaker) {
            return true;
        }
        ice_switch_role(a, ICE_ROLE_CONTROLLING);
    }
    return false;
}

/* RFC 8445 §7.3.1.3: a check from an unknown address reveals a peer-reflexive candidate. */
static uint8_t learn_remote(ice_agent_t *a, const zq_addr_t *remote, uint32_t priority)
{
    uint8_t index = ice_find_remote(a, remote);
    if (index != ICE_NONE) {
        return index;
    }
    ice_candidate_t cand = {.component = 1, .priority = priority, .type = ICE_CAND_PRFLX};
    cand.addr = *remote;
    cand.foundation[0] = 'p';
    cand.foundation[1] = (char)('a' + a->n_remote % 26);
    cand.foundation[2] = (char)('a' + a->n_remote / 26 % 26);
    index = ice_add_remote(a, &cand);
    if (index != ICE_NONE) {
        a->stats.prflx_learned++;
        ZQ_LOGD("ice", "learned a peer-reflexive candidate");
    }
    return index;
}

static uint8_t pair_for(ice_agent_t *a, uint8_t host, uint8_t remote)
{
    if (remote == ICE_NONE) {
        return ICE_NONE;
    }
    uint8_t pair = ice_find_pair(a, host, remote);
    return pair != ICE_NONE ? pair : ice_add_pair(a, host, remote);
}

/* RFC 8445 §7.3.1.5: USE-CANDIDATE nominates the pair once it is valid. A lite agent has
 * proved nothing itself: the full peer's check and our answer are the whole validation. */
static void note_nomination(ice_agent_t *a, uint64_t now, uint8_t pair, bool use_candidate)
{
    ice_pair_t *p = &a->pairs[pair];
    if (a->cfg.mode == ICE_MODE_LITE) {
        p->flags |= ICE_PAIR_VALID;
        p->state = ICE_PAIR_SUCCEEDED;
    }
    if (!use_candidate || a->role != ICE_ROLE_CONTROLLED) {
        return;
    }
    if (p->flags & ICE_PAIR_VALID) {
        p->flags |= ICE_PAIR_NOMINATED;
        ice_update_selection(a, now);
    } else {
        p->flags |= ICE_PAIR_PEER_NOMINATED;
    }
}

/* What a request must carry, checked after authentication: RFC 8445 §7.1.1. */
static bool has_ice_attributes(const stun_msg_t *msg)
{
    bool controlling = (msg->present & STUN_HAS_ICE_CONTROLLING) != 0;
    bool controlled = (msg->present & STUN_HAS_ICE_CONTROLLED) != 0;
    return (msg->present & STUN_HAS_PRIORITY) && controlling != controlled;
}

void ice_handle_request(ice_agent_t *a, uint64_t now, uint8_t host, const zq_addr_t *remote,
                        const stun_msg_t *msg)
{
    const uint32_t need = STUN_HAS_USERNAME | STUN_HAS_MESSAGE_INTEGRITY;
    if (msg->type != STUN_BINDING_REQUEST || (msg->present & need) != need) {
        a->stats.tx_bad_request++;
        send_error(a, host, remote, msg, STUN_ERROR_BAD_REQUEST, false);
        return;
    }
    if (!authenticated(a, msg)) {
        a->stats.tx_unauthorized++;
        send_error(a, host, remote, msg, STUN_ERROR_UNAUTHORIZED, false);
        return;
    }
    if (msg->unknown_required_count > 0) {
        a->stats.tx_unknown_attr++;
        send_error(a, host, remote, msg, STUN_ERROR_UNKNOWN_ATTRIBUTE, true);
        return;
    }
    if (!has_ice_attributes(msg)) {
        a->stats.tx_bad_request++;
        send_error(a, host, remote, msg, STUN_ERROR_BAD_REQUEST, true);
        return;
    }
    if (role_conflict_rejects(a, msg)) {
        a->stats.tx_role_conflict++;
        send_error(a, host, remote, msg, STUN_ERROR_ROLE_CONFLICT, true);
        return;
    }
    send_success(a, host, remote, msg);
    if (a->cfg.mode == ICE_MODE_LITE) {
        ice_consent_proof(a, now); /* the peer's checks are a lite agent's sign of life */
    }
    uint8_t pair = pair_for(a, host, learn_remote(a, remote, msg->priority));
    if (pair == ICE_NONE) {
        return; /* answered, but no room to remember the pair: counted in capacity_exhausted */
    }
    if (a->cfg.mode == ICE_MODE_FULL) {
        ice_trigger_check(a, now, pair);
    }
    note_nomination(a, now, pair, (msg->present & STUN_HAS_USE_CANDIDATE) != 0);
    ice_checklist_tick(a, now);
}

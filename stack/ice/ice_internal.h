/* Shared by the ICE agent's files; not part of the public API.
 *
 * The agent is split by concern:
 *   ice_agent.c        lifecycle, candidates, output queues, selection, timers
 *   ice_responder.c    answering the peer's checks (both modes): auth, errors, prflx, roles
 *   ice_checklist.c    full mode: pairs, their states, pacing, triggered checks, nomination
 *   ice_transaction.c  our requests: ids, retransmission schedule, matching responses
 *   ice_consent.c      consent freshness (RFC 7675) and the lite agent's liveness watch
 *   ice_gather.c       full mode: server-reflexive candidates from a STUN server
 *   ice_lite_only.c    what a lite-only build (ZQ_ICE_FULL 0) has in place of the full mode's
 *                      checks, transactions and gathering: nothing it would ever send
 */
#ifndef ZQ_ICE_INTERNAL_H
#define ZQ_ICE_INTERNAL_H

#include "stack/ice/ice.h"

#define ICE_NONE 0xFFu

/* RFC 8445 §6.1.2.6: a pair's state in the check list. */
typedef enum {
    ICE_PAIR_FROZEN = 0,
    ICE_PAIR_WAITING,
    ICE_PAIR_IN_PROGRESS,
    ICE_PAIR_SUCCEEDED,
    ICE_PAIR_FAILED,
} ice_pair_state_t;

/* Pair flags. */
enum {
    ICE_PAIR_VALID = 1u << 0,            /* in the valid list (§7.2.5.3.2) */
    ICE_PAIR_NOMINATED = 1u << 1,        /* nominated (§8.1.1) */
    ICE_PAIR_TRIGGERED = 1u << 2,        /* waiting in the triggered-check queue (§6.1.4.1) */
    ICE_PAIR_PEER_NOMINATED = 1u << 3,   /* USE-CANDIDATE seen before the pair was valid */
    ICE_PAIR_NOMINATE_NEXT = 1u << 4,    /* controlling: the next check carries USE-CANDIDATE */
};

typedef enum {
    ICE_TXN_FREE = 0,
    ICE_TXN_CHECK,   /* a connectivity check on a pair (index = pair) */
    ICE_TXN_CONSENT, /* a consent check on the selected pair (index = pair), never resent */
    ICE_TXN_GATHER,  /* a Binding request to the STUN server (index = local host) */
} ice_txn_kind_t;

/* ---- ice_agent.c ---- */
void ice_queue_event(ice_agent_t *a, ice_event_type_t type, uint8_t index);
/* Copies a built message into the transmit queue. */
void ice_queue_datagram(ice_agent_t *a, const zq_addr_t *local, const zq_addr_t *remote,
                        const uint8_t *data, size_t len);
/* Index of the host or relayed candidate whose base is @p addr, or ICE_NONE. */
uint8_t ice_find_base(const ice_agent_t *a, const zq_addr_t *addr);
/* Adds a local candidate (host, srflx, prflx or relay) and returns its index or ICE_NONE. */
uint8_t ice_add_local(ice_agent_t *a, ice_cand_type_t type, const zq_addr_t *addr,
                      const zq_addr_t *base);
/* Adds a remote candidate unless its address is known; returns its index or ICE_NONE. */
uint8_t ice_add_remote(ice_agent_t *a, const ice_candidate_t *cand);
uint8_t ice_find_remote(const ice_agent_t *a, const zq_addr_t *addr);
/* Re-evaluates the selected pair: the highest-priority nominated pair. */
void ice_update_selection(ice_agent_t *a, uint64_t now);
/* Terminal states. */
void ice_fail(ice_agent_t *a, ice_event_type_t why);
bool ice_is_terminal(const ice_agent_t *a);
/* Switches role (RFC 8445 §7.3.1.1, §7.2.5.1) and recomputes pair priorities. */
void ice_switch_role(ice_agent_t *a, ice_role_t role);

/* ---- ice_responder.c ---- */
void ice_handle_request(ice_agent_t *a, uint64_t now, uint8_t host, const zq_addr_t *remote,
                        const stun_msg_t *msg);

/* ---- ice_checklist.c ---- */
/* Pairs every host candidate with every remote candidate of its family (RFC 8445 §6.1.2.2),
 * adding only the pairs that do not exist yet. */
void ice_form_pairs(ice_agent_t *a);
uint8_t ice_find_pair(const ice_agent_t *a, uint8_t local, uint8_t remote);
uint8_t ice_add_pair(ice_agent_t *a, uint8_t local, uint8_t remote);
uint64_t ice_pair_priority(const ice_agent_t *a, const ice_pair_t *p);
void ice_recompute_priorities(ice_agent_t *a);
/* §7.3.1.4: a check arrived on this pair; schedule a triggered check (full mode). */
void ice_trigger_check(ice_agent_t *a, uint64_t now, uint8_t pair);
/* Pacing: starts the next ordinary or triggered check if one is due. */
void ice_checklist_tick(ice_agent_t *a, uint64_t now);
uint64_t ice_checklist_next_timeout(const ice_agent_t *a);
/* Outcome of a check transaction. */
void ice_check_succeeded(ice_agent_t *a, uint64_t now, const ice_txn_t *txn,
                         const stun_msg_t *msg);
void ice_check_failed(ice_agent_t *a, uint64_t now, const ice_txn_t *txn, uint16_t error_code);
/* Checks whether every pair has failed for good (full mode). */
void ice_check_for_failure(ice_agent_t *a);

/* ---- ice_transaction.c ---- */
/* Starts a request of @p kind; returns the transaction or NULL when the table is full. */
ice_txn_t *ice_txn_start(ice_agent_t *a, uint64_t now, ice_txn_kind_t kind, uint8_t index,
                         bool nominating);
void ice_txn_send(ice_agent_t *a, ice_txn_t *txn);
ice_txn_t *ice_txn_find(ice_agent_t *a, const uint8_t tid[STUN_TID_LEN]);
/* Whether one of our transactions has this ID (ice_txn_find() would find it). */
bool ice_txn_pending(const ice_agent_t *a, const uint8_t tid[STUN_TID_LEN]);
void ice_txn_free(ice_txn_t *txn);
void ice_handle_response(ice_agent_t *a, uint64_t now, uint8_t host, const zq_addr_t *remote,
                         const stun_msg_t *msg);
void ice_txn_tick(ice_agent_t *a, uint64_t now);
uint64_t ice_txn_next_timeout(const ice_agent_t *a);
/* The USERNAME and key our requests to the peer use (RFC 8445 §7.2.2). */
size_t ice_request_username(const ice_agent_t *a, char *out, size_t cap);

/* ---- ice_consent.c ---- */
void ice_consent_start(ice_agent_t *a, uint64_t now);
void ice_consent_proof(ice_agent_t *a, uint64_t now);
void ice_consent_tick(ice_agent_t *a, uint64_t now);
uint64_t ice_consent_next_timeout(const ice_agent_t *a);

/* ---- ice_gather.c ---- */
void ice_gather_start(ice_agent_t *a, uint64_t now);
void ice_gather_result(ice_agent_t *a, const ice_txn_t *txn, const stun_msg_t *msg);
/* Emits GATHERING_DONE once no gathering transaction is left. */
void ice_gather_check_done(ice_agent_t *a);

#endif /* ZQ_ICE_INTERNAL_H */

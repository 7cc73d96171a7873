/* A lite-only build (ZQ_ICE_FULL 0): the agent is ICE-lite (RFC 8445 §2.5), which answers the
 * peer's checks and never sends a request of its own, so the full mode's parts are left out
 * and these stand in for them. ice_agent_init() refuses ICE_MODE_FULL, so none of them is
 * asked to do what only a full agent does; a response that arrives anyway answers nothing we
 * sent, and is dropped as one to an unknown transaction is (RFC 8489 §6.3.3). */
#include "stack/ice/ice_internal.h"

#if !ZQ_ICE_FULL

/* ---- ice_transaction.c --------------------------------------------------------------------- */

size_t ice_request_username(const ice_agent_t *a, char *out, size_t cap)
{
    (void)a, (void)out, (void)cap;
    return 0;
}

ice_txn_t *ice_txn_start(ice_agent_t *a, uint64_t now, ice_txn_kind_t kind, uint8_t index,
                         bool nominating)
{
    (void)a, (void)now, (void)kind, (void)index, (void)nominating;
    return NULL;
}

void ice_txn_send(ice_agent_t *a, ice_txn_t *txn)
{
    (void)a, (void)txn;
}

ice_txn_t *ice_txn_find(ice_agent_t *a, const uint8_t tid[STUN_TID_LEN])
{
    (void)a, (void)tid;
    return NULL;
}

bool ice_txn_pending(const ice_agent_t *a, const uint8_t tid[STUN_TID_LEN])
{
    (void)a, (void)tid;
    return false;
}

void ice_txn_free(ice_txn_t *txn)
{
    txn->kind = ICE_TXN_FREE;
}

void ice_handle_response(ice_agent_t *a, uint64_t now, uint8_t host, const zq_addr_t *remote,
                         const stun_msg_t *msg)
{
    (void)now, (void)host, (void)remote, (void)msg;
    a->stats.rx_unknown_txn++; /* counted as the full mode counts one it never asked for */
}

void ice_txn_tick(ice_agent_t *a, uint64_t now)
{
    (void)a, (void)now;
}

uint64_t ice_txn_next_timeout(const ice_agent_t *a)
{
    (void)a;
    return ZQ_TIME_NEVER;
}

/* ---- ice_checklist.c's full part ----------------------------------------------------------- */

void ice_trigger_check(ice_agent_t *a, uint64_t now, uint8_t pair)
{
    (void)a, (void)now, (void)pair;
}

void ice_checklist_tick(ice_agent_t *a, uint64_t now)
{
    (void)a, (void)now;
}

uint64_t ice_checklist_next_timeout(const ice_agent_t *a)
{
    (void)a;
    return ZQ_TIME_NEVER;
}

void ice_check_succeeded(ice_agent_t *a, uint64_t now, const ice_txn_t *txn,
                         const stun_msg_t *msg)
{
    (void)a, (void)now, (void)txn, (void)msg;
}

void ice_check_failed(ice_agent_t *a, uint64_t now, const ice_txn_t *txn, uint16_t error_code)
{
    (void)a, (void)now, (void)txn, (void)error_code;
}

void ice_check_for_failure(ice_agent_t *a)
{
    (void)a;
}

/* ---- ice_gather.c -------------------------------------------------------------------------- */

void ice_gather_start(ice_agent_t *a, uint64_t now)
{
    (void)a, (void)now;
}

void ice_gather_result(ice_agent_t *a, const ice_txn_t *txn, const stun_msg_t *msg)
{
    (void)a, (void)txn, (void)msg;
}

zq_err_t ice_agent_add_relay_candidate(ice_agent_t *a, uint64_t now, const ice_relay_t *relay,
                                       const zq_addr_t *host)
{
    (void)a, (void)now, (void)relay, (void)host;
    return ZQ_ERR_STATE; /* RFC 8445 §2.5: a lite agent has host candidates only */
}

#endif /* !ZQ_ICE_FULL */

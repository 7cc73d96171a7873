/* Consent freshness (RFC 7675). A full agent proves, every few seconds, that the peer still
 * wants its traffic: a Binding request on the selected pair whose authenticated answer renews
 * consent; 30 s without one and it must stop sending. A lite agent sends no checks, so it
 * reads the full peer's own consent checks the same way: when they stop, the peer is gone. */
#include "stack/ice/ice_internal.h"
#include "zq/log.h"

/* RFC 7675 §5.1: the interval is randomised to [0.8, 1.2] times the base, so that checks of
 * many agents do not synchronise. */
static uint64_t jittered(const ice_agent_t *a, uint64_t now)
{
    uint32_t base = a->cfg.consent_interval_ms;
    uint32_t spread = 0;
    (void)zq_rand_below(&a->cfg.rand, base * 2 / 5 + 1, &spread);
    return now + base * 4 / 5 + spread;
}

void ice_consent_start(ice_agent_t *a, uint64_t now)
{
    a->last_proof_at = now;
    if (a->cfg.mode == ICE_MODE_FULL && a->consent_at == ZQ_TIME_NEVER) {
        a->consent_at = jittered(a, now);
    }
}

void ice_consent_proof(ice_agent_t *a, uint64_t now)
{
    a->last_proof_at = now;
}

void ice_consent_tick(ice_agent_t *a, uint64_t now)
{
    if (a->state != ICE_STATE_CONNECTED) {
        return;
    }
    if (now >= a->last_proof_at + a->cfg.consent_timeout_ms) {
        ZQ_LOGI("ice", "consent lost: nothing from the peer for %u ms",
                (unsigned)(now - a->last_proof_at));
        ice_fail(a, ICE_EVENT_DISCONNECTED);
        return;
    }
    if (a->cfg.mode == ICE_MODE_FULL && now >= a->consent_at) {
        (void)ice_txn_start(a, now, ICE_TXN_CONSENT, a->selected, false);
        a->consent_at = jittered(a, now);
    }
}

uint64_t ice_consent_next_timeout(const ice_agent_t *a)
{
    if (a->state != ICE_STATE_CONNECTED) {
        return ZQ_TIME_NEVER;
    }
    uint64_t expiry = a->last_proof_at + a->cfg.consent_timeout_ms;
    return a->cfg.mode == ICE_MODE_FULL ? zq_time_min(expiry, a->consent_at) : expiry;
}

/* ICE agents against each other over a simulated, impaired network with a manual clock:
 * lite<->full and full<->full, loss, reordering, duplication, role conflicts, peer-reflexive
 * discovery, server-reflexive gathering, consent, and failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ice_harness.h"

static harness_t h; /* large: keep it off the stack */

static const simnet_impairment_t clean = {0, 0, 5, 0};
static const simnet_impairment_t lossy = {10, 5, 20, 30}; /* 10% loss, 5% dup, 20-50 ms */

static zq_addr_t addr_a(void)
{
    return zq_addr_v4(10, 0, 0, 1, 5000);
}

static zq_addr_t addr_b(void)
{
    return zq_addr_v4(10, 0, 0, 2, 6000);
}

static ice_config_t config(ice_mode_t mode, ice_role_t role)
{
    ice_config_t cfg;
    ice_config_default(&cfg, mode);
    cfg.role = role;
    return cfg;
}

/* Two agents, each told the other's credentials and candidates, both started. */
static void setup_pair(uint64_t seed, simnet_impairment_t impair, ice_config_t a, ice_config_t b)
{
    harness_init(&h, seed, impair);
    assert_int_equal(harness_add_agent(&h, &a, addr_a(), seed * 7 + 1), 0);
    assert_int_equal(harness_add_agent(&h, &b, addr_b(), seed * 7 + 2), 1);
    harness_signal(&h, 0, 1, true);
    harness_signal(&h, 1, 0, true);
    harness_start(&h, 0);
    harness_start(&h, 1);
}

/* Both sides selected the same path, seen from each end. */
static void assert_consistent_selection(void)
{
    assert_true(harness_all_selected(&h));
    assert_true(zq_addr_equal(&h.ep[0].sel_local, &h.ep[1].sel_remote));
    assert_true(zq_addr_equal(&h.ep[1].sel_local, &h.ep[0].sel_remote));
    assert_int_equal(ice_agent_state(&h.ep[0].agent), ICE_STATE_CONNECTED);
    assert_int_equal(ice_agent_state(&h.ep[1].agent), ICE_STATE_CONNECTED);
}

static bool connected_or_ended(harness_t *hh)
{
    return harness_all_selected(hh) || hh->ep[0].failed || hh->ep[1].failed;
}

static void full_controlling_connects_to_lite(void **state)
{
    (void)state;
    setup_pair(1, clean, config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING),
               config(ICE_MODE_LITE, ICE_ROLE_CONTROLLED));
    assert_true(harness_run(&h, h.now + 5000, connected_or_ended));
    assert_consistent_selection();
    /* The lite agent never sent a request of its own. */
    assert_int_equal(ice_agent_stats(&h.ep[1].agent)->checks_sent, 0);
    assert_int_equal(h.ep[0].agent.role, ICE_ROLE_CONTROLLING);
}

static bool ep0_has_a_usable_pair(harness_t *hh)
{
    zq_addr_t l, r;
    return ice_agent_usable_pair(&hh->ep[0].agent, &l, &r);
}

/* RFC 8445 §12.1: data may flow on the first valid pair, one round trip after the first check;
 * the nominating check is a triggered check (§8.1.1), sent when Ta next fires (§6.1.4.2), so
 * selection comes at least one Ta after the first check. */
static void a_valid_pair_is_usable_at_once_and_its_nomination_waits_for_ta(void **state)
{
    (void)state;
    ice_config_t a = config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    setup_pair(21, clean, a, config(ICE_MODE_LITE, ICE_ROLE_CONTROLLED));
    uint64_t start = h.now;
    assert_true(harness_run(&h, start + 5000, ep0_has_a_usable_pair));
    assert_int_equal(h.now - start, 2 * clean.delay_ms); /* one round trip */
    assert_int_equal(h.ep[0].selected_events, 0);
    assert_true(harness_run(&h, start + 5000, connected_or_ended));
    assert_consistent_selection();
    assert_true(h.ep[0].selected_at >= start + a.ta_ms + 2 * clean.delay_ms);
    assert_int_equal(ice_agent_stats(&h.ep[0].agent)->checks_sent, 2);
}

static void full_full_connect_in_either_role(void **state)
{
    (void)state;
    setup_pair(2, clean, config(ICE_MODE_FULL, ICE_ROLE_CONTROLLED),
               config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING));
    assert_true(harness_run(&h, h.now + 5000, connected_or_ended));
    assert_consistent_selection();
    assert_int_equal(h.ep[0].role_changes + h.ep[1].role_changes, 0);
}

/* Many seeds: every run must connect through 10% loss, duplication and reordering. */
static void connects_through_loss_and_reordering(ice_mode_t b_mode, unsigned seeds)
{
    unsigned long lost = 0;
    uint64_t worst = 0;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
        setup_pair(seed, lossy, config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING),
                   config(b_mode, ICE_ROLE_CONTROLLED));
        uint64_t start = h.now;
        assert_true(harness_run(&h, h.now + 30000, connected_or_ended));
        assert_consistent_selection();
        uint64_t took = h.ep[0].selected_at - start;
        worst = took > worst ? took : worst;
        /* It stays connected afterwards: consent survives the same loss. */
        harness_run(&h, h.now + 120000, NULL);
        lost += h.net.lost;
        assert_int_equal(ice_agent_state(&h.ep[0].agent), ICE_STATE_CONNECTED);
        assert_int_equal(ice_agent_state(&h.ep[1].agent), ICE_STATE_CONNECTED);
    }
    assert_true(lost > 0); /* the impairment really happened */
    printf("    %u seeds connected; %lu datagrams lost; slowest selection %llu ms\n", seeds,
           lost, (unsigned long long)worst);
}

static void full_lite_connect_through_10pct_loss_and_reordering(void **state)
{
    (void)state;
    connects_through_loss_and_reordering(ICE_MODE_LITE, 50);
}

static void full_full_connect_through_10pct_loss_and_reordering(void **state)
{
    (void)state;
    connects_through_loss_and_reordering(ICE_MODE_FULL, 50);
}

static void role_conflict_between_two_controlling_agents_resolves(void **state)
{
    (void)state;
    setup_pair(3, clean, config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING),
               config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING));
    assert_true(harness_run(&h, h.now + 10000, connected_or_ended));
    assert_consistent_selection();
    assert_int_not_equal(h.ep[0].agent.role, h.ep[1].agent.role);
    assert_int_equal(h.ep[0].role_changes + h.ep[1].role_changes, 1);
    /* The side with the larger tie-breaker kept control (RFC 8445 §7.3.1.1). */
    int winner = h.ep[0].agent.tie_breaker > h.ep[1].agent.tie_breaker ? 0 : 1;
    assert_int_equal(h.ep[winner].agent.role, ICE_ROLE_CONTROLLING);
}

static void role_conflict_between_two_controlled_agents_resolves(void **state)
{
    (void)state;
    setup_pair(4, clean, config(ICE_MODE_FULL, ICE_ROLE_CONTROLLED),
               config(ICE_MODE_FULL, ICE_ROLE_CONTROLLED));
    assert_true(harness_run(&h, h.now + 10000, connected_or_ended));
    assert_consistent_selection();
    assert_int_not_equal(h.ep[0].agent.role, h.ep[1].agent.role);
    int winner = h.ep[0].agent.tie_breaker > h.ep[1].agent.tie_breaker ? 0 : 1;
    assert_int_equal(h.ep[winner].agent.role, ICE_ROLE_CONTROLLING);
}

static void full_controlled_agent_told_no_candidates_learns_peer_reflexive(void **state)
{
    (void)state;
    /* Like a Chromium offer with no candidates: B knows nothing of A's address. */
    harness_init(&h, 5, clean);
    ice_config_t a = config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    ice_config_t b = config(ICE_MODE_FULL, ICE_ROLE_CONTROLLED);
    harness_add_agent(&h, &a, addr_a(), 11);
    harness_add_agent(&h, &b, addr_b(), 12);
    harness_signal(&h, 1, 0, true);  /* A learns B's candidates */
    harness_signal(&h, 0, 1, false); /* B gets A's credentials only */
    harness_start(&h, 0);
    harness_start(&h, 1);
    assert_true(harness_run(&h, h.now + 5000, connected_or_ended));
    assert_consistent_selection();
    assert_int_equal(ice_agent_stats(&h.ep[1].agent)->prflx_learned, 1);
}

static void lite_agent_learns_peer_reflexive_from_checks(void **state)
{
    (void)state;
    harness_init(&h, 6, clean);
    ice_config_t a = config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    ice_config_t b = config(ICE_MODE_LITE, ICE_ROLE_CONTROLLED);
    harness_add_agent(&h, &a, addr_a(), 21);
    harness_add_agent(&h, &b, addr_b(), 22);
    harness_signal(&h, 1, 0, true);
    harness_signal(&h, 0, 1, false);
    harness_start(&h, 0);
    harness_start(&h, 1);
    assert_true(harness_run(&h, h.now + 5000, connected_or_ended));
    assert_consistent_selection();
    assert_int_equal(ice_agent_stats(&h.ep[1].agent)->prflx_learned, 1);
}

static bool ended(harness_t *hh)
{
    return hh->ep[0].disconnected || hh->ep[0].failed;
}

static bool both_ended(harness_t *hh)
{
    return (hh->ep[0].disconnected || hh->ep[0].failed) &&
           (hh->ep[1].disconnected || hh->ep[1].failed);
}

static void consent_is_lost_thirty_seconds_after_the_peer_goes_silent(void **state)
{
    (void)state;
    setup_pair(7, clean, config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING),
               config(ICE_MODE_LITE, ICE_ROLE_CONTROLLED));
    assert_true(harness_run(&h, h.now + 5000, connected_or_ended));
    assert_consistent_selection();
    harness_run(&h, h.now + 60000, NULL); /* a minute of healthy consent */
    assert_int_equal(ice_agent_state(&h.ep[0].agent), ICE_STATE_CONNECTED);
    assert_int_equal(ice_agent_state(&h.ep[1].agent), ICE_STATE_CONNECTED);
    uint64_t cut = h.now;
    h.ep[1].mute = true; /* B dies: A's consent checks go unanswered */
    h.ep[1].deaf = true;
    assert_true(harness_run(&h, h.now + 60000, ended));
    assert_true(h.ep[0].disconnected);
    /* RFC 7675 §5.1: 30 s after the last answer, which came at most ~6 s before the cut. */
    assert_in_range(h.ep[0].ended_at - cut, 30000 - 6000, 30000);
    assert_false(ice_agent_selected_pair(&h.ep[0].agent, &h.ep[0].sel_local,
                                         &h.ep[0].sel_remote));
}

static void lite_agent_declares_peer_gone_when_checks_stop(void **state)
{
    (void)state;
    setup_pair(8, clean, config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING),
               config(ICE_MODE_LITE, ICE_ROLE_CONTROLLED));
    assert_true(harness_run(&h, h.now + 5000, connected_or_ended));
    uint64_t cut = h.now;
    h.ep[0].mute = true; /* the full peer stops sending checks */
    h.ep[0].deaf = true;
    assert_true(harness_run(&h, h.now + 60000, both_ended));
    assert_true(h.ep[1].disconnected);
    assert_in_range(h.ep[1].ended_at - cut, 30000 - 6000, 30000);
}

static void consent_timeout_is_configurable(void **state)
{
    (void)state;
    ice_config_t a = config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    a.consent_timeout_ms = 10000;
    a.consent_interval_ms = 2000;
    setup_pair(9, clean, a, config(ICE_MODE_LITE, ICE_ROLE_CONTROLLED));
    assert_true(harness_run(&h, h.now + 5000, connected_or_ended));
    uint64_t cut = h.now;
    h.ep[1].mute = true;
    assert_true(harness_run(&h, h.now + 60000, ended));
    assert_in_range(h.ep[0].ended_at - cut, 10000 - 2500, 10000);
}

static void server_reflexive_candidate_is_gathered_from_stun_server(void **state)
{
    (void)state;
    harness_init(&h, 10, clean);
    zq_addr_t server = zq_addr_v4(192, 0, 2, 100, 3478);
    zq_addr_t outside = zq_addr_v4(203, 0, 113, 5, 40000);
    ice_config_t a = config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    a.stun_server = server;
    harness_add_agent(&h, &a, addr_a(), 31);
    harness_add_stun_server(&h, server, outside);
    harness_start(&h, 0);
    assert_int_equal(h.ep[0].n_local_cands, 1); /* the host, announced when added */
    assert_false(h.ep[0].gathering_done);
    harness_run(&h, h.now + 2000, NULL);
    assert_true(h.ep[0].gathering_done);
    assert_int_equal(h.ep[0].n_local_cands, 2);
    const ice_candidate_t *srflx = &h.ep[0].local_cands[1];
    assert_int_equal(srflx->type, ICE_CAND_SRFLX);
    assert_true(zq_addr_equal(&srflx->addr, &outside));
    zq_addr_t base = addr_a();
    assert_true(zq_addr_equal(&srflx->related, &base));
    assert_int_equal(srflx->priority >> 24, 100);
}

static void gathering_ends_without_srflx_when_server_is_silent(void **state)
{
    (void)state;
    harness_init(&h, 11, clean);
    ice_config_t a = config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    a.stun_server = zq_addr_v4(192, 0, 2, 99, 3478); /* nobody there */
    a.connect_timeout_ms = 120000;                   /* longer than gathering can take */
    harness_add_agent(&h, &a, addr_a(), 41);
    harness_start(&h, 0);
    harness_run(&h, h.now + 39000, NULL);
    assert_false(h.ep[0].gathering_done);
    harness_run(&h, h.now + 1000, NULL); /* RFC 8489: 39.5 s with Rc=7, Rm=16, RTO=500 */
    assert_true(h.ep[0].gathering_done);
    assert_int_equal(h.ep[0].n_local_cands, 1);
    assert_int_equal(ice_agent_stats(&h.ep[0].agent)->retransmits, 6);
}

static void gathering_is_done_at_start_without_stun_server(void **state)
{
    (void)state;
    setup_pair(12, clean, config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING),
               config(ICE_MODE_LITE, ICE_ROLE_CONTROLLED));
    assert_true(h.ep[0].gathering_done);
    assert_true(h.ep[1].gathering_done);
}

static ice_config_t patient(ice_mode_t mode, ice_role_t role)
{
    ice_config_t cfg = config(mode, role);
    cfg.connect_timeout_ms = 120000; /* longer than a check's 39.5 s of retransmissions */
    return cfg;
}

static void checks_to_an_unreachable_peer_fail_after_end_of_candidates(void **state)
{
    (void)state;
    setup_pair(13, clean, patient(ICE_MODE_FULL, ICE_ROLE_CONTROLLING),
               config(ICE_MODE_FULL, ICE_ROLE_CONTROLLED));
    h.ep[1].deaf = true;
    h.ep[1].mute = true;
    ice_agent_remote_gathering_done(&h.ep[0].agent);
    uint64_t start = h.now;
    assert_true(harness_run(&h, h.now + 60000, ended));
    assert_true(h.ep[0].failed);
    assert_in_range(h.ep[0].ended_at - start, 39000, 40000);
    assert_int_equal(ice_agent_state(&h.ep[0].agent), ICE_STATE_FAILED);
}

static void lite_agent_fails_when_no_check_ever_arrives(void **state)
{
    (void)state;
    setup_pair(14, clean, config(ICE_MODE_FULL, ICE_ROLE_CONTROLLING),
               config(ICE_MODE_LITE, ICE_ROLE_CONTROLLED));
    h.ep[0].mute = true;
    uint64_t start = h.now;
    assert_true(harness_run(&h, h.now + 60000, both_ended));
    assert_true(h.ep[1].failed);
    assert_int_equal(h.ep[1].ended_at - start, 30000);
}

static void retransmissions_follow_rfc8489_schedule(void **state)
{
    (void)state;
    /* One check to a peer that never answers: sent at 0, .5, 1.5, 3.5, 7.5, 15.5 and 31.5 s
     * (Rc = 7), and the pair fails Rm * RTO = 8 s after the last, at 39.5 s. */
    harness_init(&h, 15, clean);
    ice_config_t a = patient(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    ice_config_t b = config(ICE_MODE_FULL, ICE_ROLE_CONTROLLED);
    harness_add_agent(&h, &a, addr_a(), 51);
    harness_add_agent(&h, &b, addr_b(), 52);
    harness_signal(&h, 1, 0, true);
    h.ep[1].deaf = true; /* B is never started and hears nothing */
    uint64_t start = h.now;
    harness_start(&h, 0);
    static const uint64_t sends_at[] = {500, 1500, 3500, 7500, 15500, 31500};
    for (size_t i = 0; i < sizeof sends_at / sizeof sends_at[0]; i++) {
        harness_run(&h, start + sends_at[i] - 1, NULL);
        assert_int_equal(ice_agent_stats(&h.ep[0].agent)->retransmits, i);
        harness_run(&h, start + sends_at[i], NULL);
        assert_int_equal(ice_agent_stats(&h.ep[0].agent)->retransmits, i + 1);
    }
    harness_run(&h, start + 39499, NULL);
    assert_int_equal(h.ep[0].agent.pairs[0].state, 2 /* in progress */);
    harness_run(&h, start + 39500, NULL);
    assert_int_equal(h.ep[0].agent.pairs[0].state, 4 /* failed */);
    assert_int_equal(h.net.sent, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(full_controlling_connects_to_lite),
        cmocka_unit_test(full_full_connect_in_either_role),
        cmocka_unit_test(a_valid_pair_is_usable_at_once_and_its_nomination_waits_for_ta),
        cmocka_unit_test(full_lite_connect_through_10pct_loss_and_reordering),
        cmocka_unit_test(full_full_connect_through_10pct_loss_and_reordering),
        cmocka_unit_test(role_conflict_between_two_controlling_agents_resolves),
        cmocka_unit_test(role_conflict_between_two_controlled_agents_resolves),
        cmocka_unit_test(full_controlled_agent_told_no_candidates_learns_peer_reflexive),
        cmocka_unit_test(lite_agent_learns_peer_reflexive_from_checks),
        cmocka_unit_test(consent_is_lost_thirty_seconds_after_the_peer_goes_silent),
        cmocka_unit_test(lite_agent_declares_peer_gone_when_checks_stop),
        cmocka_unit_test(consent_timeout_is_configurable),
        cmocka_unit_test(server_reflexive_candidate_is_gathered_from_stun_server),
        cmocka_unit_test(gathering_ends_without_srflx_when_server_is_silent),
        cmocka_unit_test(gathering_is_done_at_start_without_stun_server),
        cmocka_unit_test(checks_to_an_unreachable_peer_fail_after_end_of_candidates),
        cmocka_unit_test(lite_agent_fails_when_no_check_ever_arrives),
        cmocka_unit_test(retransmissions_follow_rfc8489_schedule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

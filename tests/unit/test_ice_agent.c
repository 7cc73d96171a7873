/* The ICE agent, one rule at a time: requests are built by hand and the agent's answers are
 * parsed back, so each test shows exactly what goes on the wire. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "stack/ice/ice.h"
#include "test_rand.h"

static ice_agent_t agent;
static test_rand_t rng;
static const char peer_ufrag[] = "peer";
static const char peer_pwd[] = "peerpasswordpeerpassword";
static const uint8_t tid[STUN_TID_LEN] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

static zq_addr_t host(void)
{
    return zq_addr_v4(192, 168, 1, 10, 5000);
}

static zq_addr_t peer(void)
{
    return zq_addr_v4(192, 168, 1, 20, 6000);
}

static void init_agent(ice_mode_t mode, ice_role_t role)
{
    ice_config_t cfg;
    ice_config_default(&cfg, mode);
    cfg.role = role;
    cfg.rand = test_rand(&rng, 42);
    assert_int_equal(ice_agent_init(&agent, &cfg), ZQ_OK);
    zq_addr_t h = host();
    assert_int_equal(ice_agent_add_host_candidate(&agent, 0, &h), ZQ_OK);
    assert_int_equal(ice_agent_set_remote_credentials(&agent, peer_ufrag, 4, peer_pwd,
                                                      strlen(peer_pwd)),
                     ZQ_OK);
    assert_int_equal(ice_agent_start(&agent, 0), ZQ_OK);
    ice_event_t ev;
    while (ice_agent_poll_event(&agent, &ev)) {
    }
}

static int setup_lite(void **state)
{
    (void)state;
    init_agent(ICE_MODE_LITE, ICE_ROLE_CONTROLLED);
    return 0;
}

/* What a request carries; each field can be left out or broken by a test. */
typedef struct {
    bool username;
    const char *ufrag;      /* our ufrag as the peer names it */
    bool integrity;
    const char *key;        /* the key the peer signs with */
    bool priority;
    uint16_t role_attr;     /* STUN_ATTR_ICE_CONTROLLING / _CONTROLLED / 0 */
    uint64_t tie_breaker;
    bool use_candidate;
    uint16_t extra_attr;    /* an unknown attribute, 0 for none */
} request_t;

static request_t good_request(void)
{
    request_t r = {true, NULL, true, NULL, true, STUN_ATTR_ICE_CONTROLLING, 1, false, 0};
    return r;
}

static size_t build_request(const request_t *r, uint8_t *buf, size_t cap)
{
    const ice_credentials_t *ours = ice_agent_local_credentials(&agent);
    char username[80];
    size_t n = (size_t)snprintf(username, sizeof username, "%s:%s",
                                r->ufrag ? r->ufrag : ours->ufrag, peer_ufrag);
    stun_builder_t b;
    stun_build_start(&b, buf, cap, STUN_BINDING_REQUEST, tid);
    if (r->username) {
        stun_put_attr(&b, STUN_ATTR_USERNAME, username, n);
    }
    if (r->extra_attr) {
        stun_put_attr(&b, r->extra_attr, "xyz", 3);
    }
    if (r->priority) {
        stun_put_u32(&b, STUN_ATTR_PRIORITY, 0x6e7f1eff);
    }
    if (r->role_attr) {
        stun_put_u64(&b, r->role_attr, r->tie_breaker);
    }
    if (r->use_candidate) {
        stun_put_attr(&b, STUN_ATTR_USE_CANDIDATE, NULL, 0);
    }
    if (r->integrity) {
        const char *key = r->key ? r->key : ours->pwd;
        stun_put_integrity(&b, (const uint8_t *)key, strlen(key));
    }
    stun_put_fingerprint(&b);
    return stun_build_finish(&b);
}

static zq_err_t send_request(const request_t *r, const zq_addr_t *from)
{
    uint8_t buf[256];
    size_t len = build_request(r, buf, sizeof buf);
    zq_addr_t local = host();
    return ice_agent_handle_datagram(&agent, 100, &local, from, buf, len);
}

/* Pops the agent's one answer and parses it into @p out. */
static void take_answer(stun_msg_t *out, uint8_t *storage)
{
    ice_transmit_t tx;
    assert_true(ice_agent_poll_transmit(&agent, &tx));
    zq_addr_t h = host();
    assert_true(zq_addr_equal(&tx.local, &h));
    memcpy(storage, tx.data, tx.len);
    assert_int_equal(stun_parse(out, storage, tx.len), ZQ_OK);
    assert_memory_equal(out->tid, tid, STUN_TID_LEN);
    assert_true(out->present & STUN_HAS_FINGERPRINT);
}

static bool answer_is_signed_by_us(const stun_msg_t *m)
{
    const char *pwd = ice_agent_local_credentials(&agent)->pwd;
    return stun_verify_integrity(m, (const uint8_t *)pwd, strlen(pwd)) == ZQ_OK;
}

static void valid_check_gets_success_with_mapped_address_and_integrity(void **state)
{
    (void)state;
    request_t r = good_request();
    zq_addr_t from = peer();
    assert_int_equal(send_request(&r, &from), ZQ_OK);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.type, STUN_BINDING_SUCCESS);
    assert_true(zq_addr_equal(&m.xor_mapped, &from));
    assert_true(answer_is_signed_by_us(&m));
    ice_transmit_t tx;
    assert_false(ice_agent_poll_transmit(&agent, &tx)); /* a lite agent sends nothing else */
}

static void check_without_integrity_gets_400_unsigned(void **state)
{
    (void)state;
    request_t r = good_request();
    r.integrity = false;
    zq_addr_t from = peer();
    send_request(&r, &from);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.type, STUN_BINDING_ERROR);
    assert_int_equal(m.error_code, 400);
    assert_false(m.present & STUN_HAS_MESSAGE_INTEGRITY);
    assert_int_equal(ice_agent_stats(&agent)->tx_bad_request, 1);
}

static void check_without_username_gets_400(void **state)
{
    (void)state;
    request_t r = good_request();
    r.username = false;
    zq_addr_t from = peer();
    send_request(&r, &from);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.error_code, 400);
}

static void check_for_another_ufrag_gets_401(void **state)
{
    (void)state;
    request_t r = good_request();
    r.ufrag = "someoneelse";
    zq_addr_t from = peer();
    send_request(&r, &from);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.error_code, 401);
    assert_false(m.present & STUN_HAS_MESSAGE_INTEGRITY);
    assert_int_equal(ice_agent_stats(&agent)->tx_unauthorized, 1);
}

static void check_signed_with_wrong_key_gets_401_and_learns_nothing(void **state)
{
    (void)state;
    request_t r = good_request();
    r.key = "notthepasswordnotthepassword";
    r.use_candidate = true;
    zq_addr_t from = peer();
    send_request(&r, &from);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.error_code, 401);
    assert_int_equal(ice_agent_stats(&agent)->prflx_learned, 0);
    zq_addr_t l, rr;
    assert_false(ice_agent_selected_pair(&agent, &l, &rr));
}

static void oversized_username_gets_401_not_a_crash(void **state)
{
    (void)state;
    uint8_t buf[600];
    char name[500];
    memset(name, 'x', sizeof name);
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_REQUEST, tid);
    stun_put_attr(&b, STUN_ATTR_USERNAME, name, sizeof name);
    stun_put_integrity(&b, (const uint8_t *)"k", 1);
    stun_put_fingerprint(&b);
    size_t len = stun_build_finish(&b);
    zq_addr_t local = host();
    zq_addr_t from = peer();
    assert_int_equal(ice_agent_handle_datagram(&agent, 1, &local, &from, buf, len), ZQ_OK);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.error_code, 401);
}

static void unknown_required_attribute_gets_420_listing_it(void **state)
{
    (void)state;
    request_t r = good_request();
    r.extra_attr = 0x0077;
    zq_addr_t from = peer();
    send_request(&r, &from);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.error_code, 420);
    assert_int_equal(m.unknown_listed_count, 1);
    assert_int_equal(m.unknown_listed[0], 0x0077);
    assert_true(answer_is_signed_by_us(&m));
    assert_int_equal(ice_agent_stats(&agent)->tx_unknown_attr, 1);
}

static void unknown_optional_attribute_is_ignored(void **state)
{
    (void)state;
    request_t r = good_request();
    r.extra_attr = 0xC057; /* Chromium's GOOG-NETWORK-INFO */
    zq_addr_t from = peer();
    send_request(&r, &from);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.type, STUN_BINDING_SUCCESS);
}

static void check_without_priority_or_role_gets_400(void **state)
{
    (void)state;
    request_t r = good_request();
    r.priority = false;
    zq_addr_t from = peer();
    send_request(&r, &from);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.error_code, 400);
    r = good_request();
    r.role_attr = 0;
    send_request(&r, &from);
    take_answer(&m, storage);
    assert_int_equal(m.error_code, 400);
}

static void lite_agent_answers_controlled_peer_with_487(void **state)
{
    (void)state;
    request_t r = good_request();
    r.role_attr = STUN_ATTR_ICE_CONTROLLED; /* both claim controlled; lite cannot control */
    r.tie_breaker = 0;
    zq_addr_t from = peer();
    send_request(&r, &from);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.error_code, 487);
    assert_true(answer_is_signed_by_us(&m));
    assert_int_equal(ice_agent_role(&agent), ICE_ROLE_CONTROLLED);
}

static void controlling_agent_yields_to_larger_tie_breaker(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    ice_transmit_t tx;
    while (ice_agent_poll_transmit(&agent, &tx)) {
    }
    request_t r = good_request();
    r.tie_breaker = UINT64_MAX; /* theirs wins */
    zq_addr_t from = peer();
    send_request(&r, &from);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.type, STUN_BINDING_SUCCESS);
    assert_int_equal(ice_agent_role(&agent), ICE_ROLE_CONTROLLED);
    ice_event_t ev;
    assert_true(ice_agent_poll_event(&agent, &ev));
    assert_int_equal(ev.type, ICE_EVENT_ROLE_CHANGED);
    assert_int_equal(ev.role, ICE_ROLE_CONTROLLED);
}

static void controlling_agent_with_larger_tie_breaker_answers_487(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    ice_transmit_t tx;
    while (ice_agent_poll_transmit(&agent, &tx)) {
    }
    request_t r = good_request();
    r.tie_breaker = 0; /* ours wins */
    zq_addr_t from = peer();
    send_request(&r, &from);
    uint8_t storage[256];
    stun_msg_t m;
    take_answer(&m, storage);
    assert_int_equal(m.error_code, 487);
    assert_int_equal(ice_agent_role(&agent), ICE_ROLE_CONTROLLING);
    assert_int_equal(ice_agent_stats(&agent)->tx_role_conflict, 1);
}

static void use_candidate_selects_the_pair_on_a_lite_agent(void **state)
{
    (void)state;
    request_t r = good_request();
    r.use_candidate = true;
    zq_addr_t from = peer();
    send_request(&r, &from);
    ice_event_t ev;
    assert_true(ice_agent_poll_event(&agent, &ev));
    assert_int_equal(ev.type, ICE_EVENT_SELECTED_PAIR);
    zq_addr_t h = host();
    assert_true(zq_addr_equal(&ev.local, &h));
    assert_true(zq_addr_equal(&ev.remote, &from));
    assert_int_equal(ice_agent_state(&agent), ICE_STATE_CONNECTED);
    assert_int_equal(ice_agent_stats(&agent)->prflx_learned, 1);
}

static void higher_priority_nomination_wins_on_a_lite_agent(void **state)
{
    (void)state;
    /* Two nominated paths: the one with the higher pair priority is used. */
    ice_candidate_t low = {.foundation = "1", .component = 1, .priority = 100,
                           .type = ICE_CAND_HOST, .addr = zq_addr_v4(10, 0, 0, 1, 1)};
    ice_candidate_t high = low;
    high.priority = 2000000000u;
    high.addr = zq_addr_v4(10, 0, 0, 2, 2);
    (void)ice_agent_add_remote_candidate(&agent, 0, &low);
    (void)ice_agent_add_remote_candidate(&agent, 0, &high);
    request_t r = good_request();
    r.use_candidate = true;
    send_request(&r, &high.addr);
    send_request(&r, &low.addr);
    zq_addr_t l, remote;
    assert_true(ice_agent_selected_pair(&agent, &l, &remote));
    assert_true(zq_addr_equal(&remote, &high.addr));
}

static void garbage_and_truncated_datagrams_are_counted_not_answered(void **state)
{
    (void)state;
    uint8_t junk[64];
    memset(junk, 0x17, sizeof junk); /* a DTLS-looking first byte */
    zq_addr_t local = host();
    zq_addr_t from = peer();
    assert_int_equal(ice_agent_handle_datagram(&agent, 1, &local, &from, junk, sizeof junk),
                     ZQ_ERR_MALFORMED);
    request_t r = good_request();
    uint8_t buf[256];
    size_t len = build_request(&r, buf, sizeof buf);
    assert_int_equal(ice_agent_handle_datagram(&agent, 1, &local, &from, buf, len - 5),
                     ZQ_ERR_TRUNCATED);
    buf[len - 1] ^= 0xFF;
    assert_int_equal(ice_agent_handle_datagram(&agent, 1, &local, &from, buf, len),
                     ZQ_ERR_FINGERPRINT);
    const ice_stats_t *st = ice_agent_stats(&agent);
    assert_int_equal(st->rx_malformed, 2);
    assert_int_equal(st->rx_bad_fingerprint, 1);
    ice_transmit_t tx;
    assert_false(ice_agent_poll_transmit(&agent, &tx));
}

static void datagram_on_a_foreign_address_is_counted(void **state)
{
    (void)state;
    request_t r = good_request();
    uint8_t buf[256];
    size_t len = build_request(&r, buf, sizeof buf);
    zq_addr_t other = zq_addr_v4(1, 2, 3, 4, 5);
    zq_addr_t from = peer();
    assert_int_equal(ice_agent_handle_datagram(&agent, 1, &other, &from, buf, len),
                     ZQ_ERR_NOT_FOUND);
    assert_int_equal(ice_agent_stats(&agent)->rx_unknown_local, 1);
}

static void response_to_no_transaction_is_counted(void **state)
{
    (void)state;
    uint8_t buf[128];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_SUCCESS, tid);
    stun_put_fingerprint(&b);
    size_t len = stun_build_finish(&b);
    zq_addr_t local = host();
    zq_addr_t from = peer();
    assert_int_equal(ice_agent_handle_datagram(&agent, 1, &local, &from, buf, len), ZQ_OK);
    assert_int_equal(ice_agent_stats(&agent)->rx_unknown_txn, 1);
}

/* A loopback address reaches only this host's loopback: it is paired with a loopback remote
 * candidate only, and a routable one with routable ones; ice_agent_tried() counts the pairs. */
static void a_loopback_candidate_is_paired_only_with_a_loopback_one(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    zq_addr_t lo = zq_addr_v4(127, 0, 0, 1, 5001);
    assert_int_equal(ice_agent_add_host_candidate(&agent, 0, &lo), ZQ_OK);
    ice_candidate_t routable = {.foundation = "1", .component = 1, .priority = 1000,
                                .type = ICE_CAND_HOST, .addr = peer()};
    ice_candidate_t loopback = {.foundation = "2", .component = 1, .priority = 900,
                                .type = ICE_CAND_HOST, .addr = zq_addr_v4(127, 0, 0, 1, 6001)};
    assert_int_equal(ice_agent_add_remote_candidate(&agent, 0, &routable), ZQ_OK);
    assert_int_equal(ice_agent_add_remote_candidate(&agent, 0, &loopback), ZQ_OK);
    ice_tried_t t;
    ice_agent_tried(&agent, &t);
    assert_int_equal(t.pairs, 2); /* 192.168.1.10 - .20 and 127.0.0.1 - 127.0.0.1, not 4 */
    assert_int_equal(t.pairs_valid, 0);
    assert_int_equal(t.local_types, 1u << ICE_CAND_HOST);
    assert_int_equal(t.remote_types, 1u << ICE_CAND_HOST);
    ice_transmit_t tx;
    while (ice_agent_poll_transmit(&agent, &tx)) {
        assert_int_equal(zq_addr_is_loopback(&tx.local), zq_addr_is_loopback(&tx.remote));
    }
}

static void forged_response_is_dropped_and_check_continues(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    ice_candidate_t c = {.foundation = "1", .component = 1, .priority = 1000,
                         .type = ICE_CAND_HOST, .addr = peer()};
    assert_int_equal(ice_agent_add_remote_candidate(&agent, 0, &c), ZQ_OK);
    ice_transmit_t tx;
    assert_true(ice_agent_poll_transmit(&agent, &tx)); /* the check */
    stun_msg_t check;
    uint8_t copy[256];
    memcpy(copy, tx.data, tx.len);
    assert_int_equal(stun_parse(&check, copy, tx.len), ZQ_OK);
    assert_int_equal(stun_verify_integrity(&check, (const uint8_t *)peer_pwd, strlen(peer_pwd)),
                     ZQ_OK); /* checks are signed with the peer's password (§7.2.2) */
    /* An answer signed with the wrong key must not validate the pair. */
    uint8_t buf[128];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_SUCCESS, check.tid);
    stun_put_xor_address(&b, STUN_ATTR_XOR_MAPPED_ADDRESS, &tx.local);
    stun_put_integrity(&b, (const uint8_t *)"forgedforgedforgedforged", 24);
    stun_put_fingerprint(&b);
    size_t len = stun_build_finish(&b);
    zq_addr_t local = host();
    zq_addr_t from = peer();
    ice_agent_handle_datagram(&agent, 10, &local, &from, buf, len);
    assert_int_equal(ice_agent_stats(&agent)->rx_bad_integrity, 1);
    assert_int_equal(agent.pairs[0].state, 2 /* still in progress */);
    /* The genuine answer still completes it. */
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_SUCCESS, check.tid);
    stun_put_xor_address(&b, STUN_ATTR_XOR_MAPPED_ADDRESS, &tx.local);
    stun_put_integrity(&b, (const uint8_t *)peer_pwd, strlen(peer_pwd));
    stun_put_fingerprint(&b);
    len = stun_build_finish(&b);
    ice_agent_handle_datagram(&agent, 20, &local, &from, buf, len);
    assert_int_equal(agent.pairs[0].state, 3 /* succeeded */);
}

/* The peer's success answer to the check @p tx carried, signed with the peer's password. */
static void answer_check(const ice_transmit_t *tx, uint64_t now)
{
    stun_msg_t check;
    uint8_t copy[256];
    memcpy(copy, tx->data, tx->len);
    assert_int_equal(stun_parse(&check, copy, tx->len), ZQ_OK);
    uint8_t buf[128];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, STUN_BINDING_SUCCESS, check.tid);
    stun_put_xor_address(&b, STUN_ATTR_XOR_MAPPED_ADDRESS, &tx->local);
    stun_put_integrity(&b, (const uint8_t *)peer_pwd, strlen(peer_pwd));
    stun_put_fingerprint(&b);
    size_t len = stun_build_finish(&b);
    assert_int_equal(ice_agent_handle_datagram(&agent, now, &tx->local, &tx->remote, buf, len),
                     ZQ_OK);
}

/* RFC 8445 §12.1: "An ICE agent MAY send data on any valid pair before selected pairs have
 * been produced": the full agent's first successful check gives it a pair to send on, while
 * nomination (and selection) is still to come. */
static void a_full_agent_may_send_on_its_first_valid_pair_before_nominating(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    ice_candidate_t c = {.foundation = "1", .component = 1, .priority = 1000,
                         .type = ICE_CAND_HOST, .addr = peer()};
    assert_int_equal(ice_agent_add_remote_candidate(&agent, 0, &c), ZQ_OK);
    ice_transmit_t tx;
    assert_true(ice_agent_poll_transmit(&agent, &tx));
    zq_addr_t l, r;
    assert_false(ice_agent_usable_pair(&agent, &l, &r)); /* nothing validated yet */
    answer_check(&tx, 10);
    assert_true(ice_agent_usable_pair(&agent, &l, &r));
    zq_addr_t h = host();
    assert_true(zq_addr_equal(&l, &h));
    assert_true(zq_addr_equal(&r, &c.addr));
    assert_false(ice_agent_selected_pair(&agent, &l, &r));
    assert_int_equal(ice_agent_state(&agent), ICE_STATE_CHECKING);
}

/* RFC 8445 §7.3.2 and §12.1.1: a lite agent's valid list gets a pair only from a nominating
 * check, and it "MUST NOT send data" before; answering a plain check gives it nothing. */
static void a_lite_agent_has_no_pair_to_send_on_until_it_is_nominated(void **state)
{
    (void)state;
    request_t r = good_request();
    zq_addr_t from = peer();
    send_request(&r, &from);
    ice_transmit_t tx;
    assert_true(ice_agent_poll_transmit(&agent, &tx)); /* answered */
    zq_addr_t l, remote;
    assert_false(ice_agent_usable_pair(&agent, &l, &remote));
    r.use_candidate = true;
    send_request(&r, &from);
    assert_true(ice_agent_usable_pair(&agent, &l, &remote));
    assert_true(zq_addr_equal(&remote, &from));
}

static void check_carries_username_priority_and_role(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    ice_candidate_t c = {.foundation = "1", .component = 1, .priority = 1000,
                         .type = ICE_CAND_HOST, .addr = peer()};
    ice_agent_add_remote_candidate(&agent, 0, &c);
    ice_transmit_t tx;
    assert_true(ice_agent_poll_transmit(&agent, &tx));
    stun_msg_t m;
    assert_int_equal(stun_parse(&m, tx.data, tx.len), ZQ_OK);
    char want[64];
    int n = snprintf(want, sizeof want, "%s:%s", peer_ufrag,
                     ice_agent_local_credentials(&agent)->ufrag);
    assert_int_equal(m.username.len, n);
    assert_memory_equal(m.username.data, want, (size_t)n);
    assert_true(m.present & STUN_HAS_ICE_CONTROLLING);
    assert_int_equal(m.priority >> 24, 110); /* a prflx priority (RFC 8445 §7.1.1) */
    assert_true(zq_addr_equal(&tx.remote, &c.addr));
}

static void tcp_and_mdns_candidates_are_skipped_not_errors(void **state)
{
    (void)state;
    static const char tcp[] = "candidate:1 1 tcp 1518280447 192.168.1.5 9 typ host tcptype active";
    static const char mdns[] = "candidate:2 1 udp 2122260223 f3b6c0b6-0b5e-4d4d.local 5000 typ host";
    assert_int_equal(ice_agent_add_remote_candidate_line(&agent, 0, tcp, strlen(tcp)), ZQ_OK);
    assert_int_equal(ice_agent_add_remote_candidate_line(&agent, 0, mdns, strlen(mdns)), ZQ_OK);
    assert_int_equal(ice_agent_stats(&agent)->candidates_skipped, 2);
    assert_int_equal(ice_agent_add_remote_candidate_line(&agent, 0, "candidate:x", 11),
                     ZQ_ERR_MALFORMED);
}

static void remote_table_exhaustion_is_counted_and_checks_still_answered(void **state)
{
    (void)state;
    request_t r = good_request();
    for (uint16_t i = 0; i < ZQ_ICE_MAX_REMOTE_CANDIDATES + 3; i++) {
        zq_addr_t from = zq_addr_v4(10, 1, 0, 1, (uint16_t)(1000 + i));
        send_request(&r, &from);
        uint8_t storage[256];
        stun_msg_t m;
        take_answer(&m, storage);
        assert_int_equal(m.type, STUN_BINDING_SUCCESS);
    }
    assert_int_equal(ice_agent_stats(&agent)->prflx_learned, ZQ_ICE_MAX_REMOTE_CANDIDATES);
    assert_int_equal(ice_agent_stats(&agent)->capacity_exhausted, 3);
}

static void credentials_are_random_ice_chars_of_sufficient_length(void **state)
{
    (void)state;
    const ice_credentials_t *c = ice_agent_local_credentials(&agent);
    assert_true(strlen(c->ufrag) >= 4);
    assert_true(strlen(c->pwd) >= 22);
    ice_agent_t other;
    ice_config_t cfg;
    ice_config_default(&cfg, ICE_MODE_LITE);
    test_rand_t r2;
    cfg.rand = test_rand(&r2, 7);
    assert_int_equal(ice_agent_init(&other, &cfg), ZQ_OK);
    assert_string_not_equal(other.local_cred.pwd, c->pwd);
    assert_int_equal(ice_agent_set_remote_credentials(&other, "ab", 2, peer_pwd, 24),
                     ZQ_ERR_MALFORMED);
    assert_int_equal(ice_agent_set_remote_credentials(&other, "abcd", 4, "short", 5),
                     ZQ_ERR_MALFORMED);
    char longer[ZQ_ICE_UFRAG_MAX + 2];
    memset(longer, 'a', sizeof longer);
    assert_int_equal(ice_agent_set_remote_credentials(&other, longer, sizeof longer, peer_pwd,
                                                      24),
                     ZQ_ERR_TOO_LONG);
}

static void lite_agent_refuses_the_controlling_role(void **state)
{
    (void)state;
    ice_config_t cfg;
    ice_config_default(&cfg, ICE_MODE_LITE);
    cfg.rand = test_rand(&rng, 1);
    cfg.role = ICE_ROLE_CONTROLLING;
    ice_agent_t a;
    assert_int_equal(ice_agent_init(&a, &cfg), ZQ_ERR_UNSUPPORTED);
    assert_int_equal(ice_agent_set_role(&agent, ICE_ROLE_CONTROLLING), ZQ_ERR_STATE);
}

static void unspecified_host_address_is_rejected(void **state)
{
    (void)state;
    zq_addr_t any = zq_addr_v4(0, 0, 0, 0, 5000);
    assert_int_equal(ice_agent_add_host_candidate(&agent, 0, &any), ZQ_ERR_INVALID_ARG);
}

/* Three more host candidates, then role conflicts won by each side in turn (RFC 8445
 * §7.3.1.1), none drained: one more than fits, twice. */
static void a_full_event_queue_counts_the_refused_events_and_keeps_the_queued_ones(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    for (uint8_t i = 1; i < 4; i++) {
        zq_addr_t h = zq_addr_v4(192, 168, 1, (uint8_t)(10 + i), 5000);
        assert_int_equal(ice_agent_add_host_candidate(&agent, 0, &h), ZQ_OK);
    }
    const int role_changes = ZQ_ICE_EVENT_QUEUE - 3 + 2;
    zq_addr_t from = peer();
    ice_transmit_t tx;
    for (int i = 0; i < role_changes; i++) {
        request_t r = good_request();
        bool we_control = i % 2 == 0;
        r.role_attr = we_control ? STUN_ATTR_ICE_CONTROLLING : STUN_ATTR_ICE_CONTROLLED;
        r.tie_breaker = we_control ? UINT64_MAX : 0; /* the peer wins, then we do */
        assert_int_equal(send_request(&r, &from), ZQ_OK);
        while (ice_agent_poll_transmit(&agent, &tx)) {
        }
    }
    assert_int_equal(ice_agent_events_refused(&agent), 2);
    ice_event_t ev;
    for (uint8_t i = 1; i < 4; i++) {
        assert_true(ice_agent_poll_event(&agent, &ev));
        assert_int_equal(ev.type, ICE_EVENT_LOCAL_CANDIDATE);
        assert_int_equal(ev.candidate_index, i);
        zq_addr_t h = zq_addr_v4(192, 168, 1, (uint8_t)(10 + i), 5000);
        assert_true(zq_addr_equal(&ev.candidate.addr, &h));
    }
    for (int i = 0; i < ZQ_ICE_EVENT_QUEUE - 3; i++) {
        assert_true(ice_agent_poll_event(&agent, &ev));
        assert_int_equal(ev.type, ICE_EVENT_ROLE_CHANGED);
    }
    assert_false(ice_agent_poll_event(&agent, &ev));
}

/* ---- Relayed candidates (RFC 8445 §5.1.1.2) ------------------------------------------------ */

static zq_addr_t relayed(void)
{
    return zq_addr_v4(203, 0, 113, 3, 49152);
}

static zq_addr_t mapped(void)
{
    return zq_addr_v4(198, 51, 100, 7, 40000);
}

static bool next_candidate_event(ice_event_t *ev)
{
    while (ice_agent_poll_event(&agent, ev)) {
        if (ev->type == ICE_EVENT_LOCAL_CANDIDATE) {
            return true;
        }
    }
    return false;
}

/* The allocation brings two candidates: the mapped address as srflx of the host that spoke to
 * the server, and the relayed address, type preference 0 (§5.1.2.2), raddr the mapped one. */
static void a_relay_candidate_has_type_preference_zero_and_the_mapped_address_as_raddr(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    zq_addr_t rel = relayed(), map = mapped(), h = host();
    ice_relay_t relay = {.relayed = rel, .mapped = map, .mapped_is_udp = true};
    assert_int_equal(ice_agent_add_relay_candidate(&agent, 0, &relay, &h), ZQ_OK);
    ice_event_t ev;
    assert_true(next_candidate_event(&ev));
    assert_int_equal(ev.candidate.type, ICE_CAND_SRFLX);
    assert_true(zq_addr_equal(&ev.candidate.addr, &map));
    assert_true(zq_addr_equal(&ev.candidate.related, &h));
    assert_true(next_candidate_event(&ev));
    assert_int_equal(ev.candidate.type, ICE_CAND_RELAY);
    assert_true(zq_addr_equal(&ev.candidate.addr, &rel));
    assert_true(zq_addr_equal(&ev.candidate.related, &map));
    assert_int_equal(ev.candidate.priority >> 24, 0);
    char line[ICE_CANDIDATE_TEXT_MAX];
    assert_true(ice_candidate_format(&ev.candidate, line, sizeof line) > 0);
    assert_non_null(strstr(line, " typ relay raddr 198.51.100.7 rport 40000"));
}

/* An allocation over TCP or TLS was seen from a TCP address: no UDP check reaches it, so it
 * is no server-reflexive candidate, only the relayed one's raddr. */
static void an_allocation_over_tcp_brings_no_server_reflexive_candidate(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    zq_addr_t h = host();
    ice_relay_t relay = {.relayed = relayed(), .mapped = mapped(), .mapped_is_udp = false};
    assert_int_equal(ice_agent_add_relay_candidate(&agent, 0, &relay, &h), ZQ_OK);
    ice_event_t ev;
    assert_true(next_candidate_event(&ev));
    assert_int_equal(ev.candidate.type, ICE_CAND_RELAY);
    assert_true(zq_addr_equal(&ev.candidate.related, &relay.mapped));
    assert_false(next_candidate_event(&ev));
}

/* A relayed candidate is its own base: checks leave "from" it (the caller wraps them for the
 * TURN server), an answer arriving on it validates the pair, and data may go on that pair. */
static void checks_leave_from_the_relayed_address_and_its_answer_validates_the_pair(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    ice_transmit_t tx;
    ice_candidate_t c = {.foundation = "7", .component = 1, .priority = 1000,
                         .type = ICE_CAND_SRFLX, .addr = zq_addr_v4(198, 51, 100, 9, 7000)};
    zq_addr_t rel = relayed(), map = mapped(), h = host();
    ice_relay_t relay = {.relayed = rel, .mapped = map, .mapped_is_udp = true};
    assert_int_equal(ice_agent_add_relay_candidate(&agent, 0, &relay, &h), ZQ_OK);
    assert_int_equal(ice_agent_add_remote_candidate(&agent, 0, &c), ZQ_OK);
    bool from_relay = false;
    for (uint64_t now = 0; now < 500 && !from_relay; now += 10) {
        ice_agent_handle_timeout(&agent, now);
        while (ice_agent_poll_transmit(&agent, &tx)) {
            if (zq_addr_equal(&tx.local, &rel)) {
                from_relay = true;
                answer_check(&tx, now);
                break;
            }
        }
    }
    assert_true(from_relay);
    zq_addr_t l, r;
    assert_true(ice_agent_usable_pair(&agent, &l, &r));
    assert_true(zq_addr_equal(&l, &rel));
    assert_true(zq_addr_equal(&r, &c.addr));
    assert_int_equal(ice_agent_stats(&agent)->rx_unknown_local, 0);
}

static void a_lite_agent_refuses_a_relay_candidate(void **state)
{
    (void)state;
    zq_addr_t rel = relayed(), map = mapped(), h = host();
    ice_relay_t relay = {.relayed = rel, .mapped = map, .mapped_is_udp = true};
    assert_int_equal(ice_agent_add_relay_candidate(&agent, 0, &relay, &h), ZQ_ERR_STATE);
    assert_int_equal(ice_agent_local_candidate_count(&agent), 1);
}

static void a_relay_candidate_needs_a_host_of_ours(void **state)
{
    (void)state;
    init_agent(ICE_MODE_FULL, ICE_ROLE_CONTROLLING);
    zq_addr_t rel = relayed(), map = mapped(), other = peer();
    ice_relay_t relay = {.relayed = rel, .mapped = map, .mapped_is_udp = true};
    assert_int_equal(ice_agent_add_relay_candidate(&agent, 0, &relay, &other),
                     ZQ_ERR_NOT_FOUND);
}

static bool gathering_done_event(void)
{
    ice_event_t ev;
    while (ice_agent_poll_event(&agent, &ev)) {
        if (ev.type == ICE_EVENT_GATHERING_DONE) {
            return true;
        }
    }
    return false;
}

/* End-of-candidates (RFC 8838 §8.2) must not be announced while an allocation is under way,
 * or the peer would stop waiting for the one candidate that crosses two symmetric NATs. */
static void gathering_is_not_done_while_a_relay_is_expected(void **state)
{
    (void)state;
    ice_config_t cfg;
    ice_config_default(&cfg, ICE_MODE_FULL);
    cfg.rand = test_rand(&rng, 7);
    assert_int_equal(ice_agent_init(&agent, &cfg), ZQ_OK);
    zq_addr_t rel = relayed(), map = mapped(), h = host();
    ice_relay_t relay = {.relayed = rel, .mapped = map, .mapped_is_udp = true};
    assert_int_equal(ice_agent_add_host_candidate(&agent, 0, &h), ZQ_OK);
    ice_agent_expect_relay(&agent, true);
    assert_int_equal(ice_agent_start(&agent, 0), ZQ_OK);
    assert_false(gathering_done_event());
    assert_false(ice_agent_gathering_done(&agent));
    assert_int_equal(ice_agent_add_relay_candidate(&agent, 5, &relay, &h), ZQ_OK);
    assert_true(gathering_done_event());
}

static void gathering_ends_when_an_expected_relay_is_given_up(void **state)
{
    (void)state;
    ice_config_t cfg;
    ice_config_default(&cfg, ICE_MODE_FULL);
    cfg.rand = test_rand(&rng, 8);
    assert_int_equal(ice_agent_init(&agent, &cfg), ZQ_OK);
    zq_addr_t h = host();
    assert_int_equal(ice_agent_add_host_candidate(&agent, 0, &h), ZQ_OK);
    ice_agent_expect_relay(&agent, true);
    assert_int_equal(ice_agent_start(&agent, 0), ZQ_OK);
    assert_false(gathering_done_event());
    ice_agent_expect_relay(&agent, false);
    assert_true(gathering_done_event());
}

#define LITE(t) cmocka_unit_test_setup(t, setup_lite)

int main(void)
{
    const struct CMUnitTest tests[] = {
        LITE(valid_check_gets_success_with_mapped_address_and_integrity),
        LITE(check_without_integrity_gets_400_unsigned),
        LITE(check_without_username_gets_400),
        LITE(check_for_another_ufrag_gets_401),
        LITE(check_signed_with_wrong_key_gets_401_and_learns_nothing),
        LITE(oversized_username_gets_401_not_a_crash),
        LITE(unknown_required_attribute_gets_420_listing_it),
        LITE(unknown_optional_attribute_is_ignored),
        LITE(check_without_priority_or_role_gets_400),
        LITE(lite_agent_answers_controlled_peer_with_487),
        LITE(controlling_agent_yields_to_larger_tie_breaker),
        LITE(controlling_agent_with_larger_tie_breaker_answers_487),
        LITE(use_candidate_selects_the_pair_on_a_lite_agent),
        LITE(higher_priority_nomination_wins_on_a_lite_agent),
        LITE(garbage_and_truncated_datagrams_are_counted_not_answered),
        LITE(datagram_on_a_foreign_address_is_counted),
        LITE(response_to_no_transaction_is_counted),
        LITE(forged_response_is_dropped_and_check_continues),
        LITE(a_loopback_candidate_is_paired_only_with_a_loopback_one),
        LITE(check_carries_username_priority_and_role),
        LITE(a_full_agent_may_send_on_its_first_valid_pair_before_nominating),
        LITE(a_lite_agent_has_no_pair_to_send_on_until_it_is_nominated),
        LITE(tcp_and_mdns_candidates_are_skipped_not_errors),
        LITE(remote_table_exhaustion_is_counted_and_checks_still_answered),
        LITE(credentials_are_random_ice_chars_of_sufficient_length),
        LITE(lite_agent_refuses_the_controlling_role),
        LITE(unspecified_host_address_is_rejected),
        LITE(a_full_event_queue_counts_the_refused_events_and_keeps_the_queued_ones),
        LITE(a_relay_candidate_has_type_preference_zero_and_the_mapped_address_as_raddr),
        LITE(an_allocation_over_tcp_brings_no_server_reflexive_candidate),
        LITE(checks_leave_from_the_relayed_address_and_its_answer_validates_the_pair),
        LITE(a_lite_agent_refuses_a_relay_candidate),
        LITE(a_relay_candidate_needs_a_host_of_ours),
        LITE(gathering_is_not_done_while_a_relay_is_expected),
        LITE(gathering_ends_when_an_expected_relay_is_given_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

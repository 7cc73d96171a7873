/* A node reads each incoming datagram once (#17): the RFC 7983 demux and the STUN parse
 * happen once, before the node picks a peer by USERNAME or address, and the peer's ICE agent
 * acts on that same parse. The binary is linked with --wrap=stun_parse and
 * --wrap=stun_verify_integrity (tests/CMakeLists.txt), so every call is counted: FINGERPRINT
 * (inside the parse) and MESSAGE-INTEGRITY are each checked exactly once (RFC 8489 §7.3,
 * RFC 8445 §7.3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "browser_check.h"
#include "dtls_pair.h"
#include "node/node.h"
#include "stack/ice/stun.h"

static unsigned parses;
static unsigned integrity_checks;

zq_err_t __real_stun_parse(stun_msg_t *msg, const uint8_t *buf, size_t len);
zq_err_t __wrap_stun_parse(stun_msg_t *msg, const uint8_t *buf, size_t len);
zq_err_t __real_stun_verify_integrity(const stun_msg_t *msg, const uint8_t *key, size_t key_len);
zq_err_t __wrap_stun_verify_integrity(const stun_msg_t *msg, const uint8_t *key, size_t key_len);

zq_err_t __wrap_stun_parse(stun_msg_t *msg, const uint8_t *buf, size_t len)
{
    parses++;
    return __real_stun_parse(msg, buf, len);
}

zq_err_t __wrap_stun_verify_integrity(const stun_msg_t *msg, const uint8_t *key, size_t key_len)
{
    integrity_checks++;
    return __real_stun_verify_integrity(msg, key, key_len);
}

#define TARGET (ZQ_NODE_MAX_PEERS - 1) /* the last peer: every other one is asked first */

static node_t node;
static zq_addr_t host;
static zq_addr_t browser; /* an address no peer has heard of until its first check */

static void signal_frame(const char *frame)
{
    node_handle_signal(&node, 0, frame, strlen(frame));
}

static int setup_node(void **state)
{
    (void)state;
    host = zq_addr_v4(10, 0, 0, 1, 5000);
    browser = zq_addr_v4(10, 0, 0, 9, 6000);
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, "room", sizeof "room");
    cfg.rand = fx.rand;
    cfg.dtls = &fx.ctx_a;
    cfg.hosts[0] = host;
    cfg.n_hosts = 1;
    assert_int_equal(node_init(&node, &cfg), ZQ_OK);
    node_signal_connected(&node);
    signal_frame("{\"type\":\"welcome\",\"peerId\":\"me\"}");
    char frame[64];
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        (void)snprintf(frame, sizeof frame, "{\"type\":\"peer_joined\",\"peerId\":\"p%d\"}", i);
        signal_frame(frame);
    }
    return 0;
}

static int teardown_node(void **state)
{
    (void)state;
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        peer_free(&node.peers[i].peer);
    }
    return 0;
}

static const ice_agent_t *agent_of(int peer)
{
    return &node.peers[peer].peer.ice;
}

/* A browser's connectivity check to @p peer (RFC 8445 §7.1.1), signed with that peer's
 * password: USERNAME, PRIORITY, ICE-CONTROLLING, MESSAGE-INTEGRITY, FINGERPRINT. */
static size_t check_to(int peer, uint8_t *buf, size_t cap)
{
    size_t len = browser_check(ice_agent_local_credentials(agent_of(peer)), buf, cap);
    assert_true(len > 0);
    return len;
}

static void reset_counts(void)
{
    parses = 0;
    integrity_checks = 0;
}

/* Drains what the node sends; returns how many datagrams, and the type of the last one. */
static unsigned drain(uint16_t *last_type)
{
    unsigned sent = 0;
    peer_transmit_t tx;
    while (node_poll_transmit(&node, 0, &tx)) {
        stun_msg_t m;
        if (last_type != NULL && __real_stun_parse(&m, tx.data, tx.len) == ZQ_OK) {
            *last_type = m.type;
        }
        sent++;
    }
    node_event_t ev;
    while (node_poll_event(&node, &ev)) {
    }
    return sent;
}

static void a_check_routed_by_its_username_is_parsed_and_authenticated_once(void **state)
{
    (void)state;
    uint8_t req[256];
    size_t len = check_to(TARGET, req, sizeof req);
    reset_counts();
    assert_int_equal(node_handle_datagram(&node, 0, &host, &browser, req, len), ZQ_OK);
    assert_int_equal(parses, 1);
    assert_int_equal(integrity_checks, 1);
    /* ICE acted on that one parse: it learned the browser's address and answered. */
    assert_int_equal(ice_agent_stats(agent_of(TARGET))->prflx_learned, 1);
    assert_true(ice_agent_knows_remote(agent_of(TARGET), &browser));
    for (int i = 0; i < TARGET; i++) {
        assert_int_equal(ice_agent_stats(agent_of(i))->rx_datagrams, 0);
    }
    uint16_t type = 0;
    assert_int_equal(drain(&type), 1);
    assert_int_equal(type, STUN_BINDING_SUCCESS);
}

static void a_bad_fingerprint_is_found_by_the_one_parse_and_counted_by_the_peer(void **state)
{
    (void)state;
    uint8_t req[256];
    size_t len = check_to(TARGET, req, sizeof req);
    assert_int_equal(node_handle_datagram(&node, 0, &host, &browser, req, len), ZQ_OK);
    (void)drain(NULL);
    req[len - 1] ^= 0xFF;
    reset_counts();
    /* No USERNAME can be believed: the address the first check taught routes it. */
    assert_int_equal(node_handle_datagram(&node, 0, &host, &browser, req, len),
                     ZQ_ERR_FINGERPRINT);
    assert_int_equal(parses, 1);
    assert_int_equal(integrity_checks, 0);
    assert_int_equal(ice_agent_stats(agent_of(TARGET))->rx_bad_fingerprint, 1);
    assert_int_equal(drain(NULL), 0);
}

static void a_check_naming_no_peer_is_parsed_once_and_left_unmatched(void **state)
{
    (void)state;
    uint8_t req[256];
    size_t len = check_to(TARGET, req, sizeof req);
    req[STUN_HEADER_LEN + 4] ^= 0x01; /* the USERNAME's first byte: another ufrag */
    reset_counts();
    assert_int_equal(node_handle_datagram(&node, 0, &host, &browser, req, len),
                     ZQ_ERR_NOT_FOUND);
    assert_int_equal(parses, 1);
    assert_int_equal(integrity_checks, 0);
    assert_int_equal(node.stats.rx_unmatched, 1);
}

static void a_dtls_record_is_routed_without_a_stun_parse(void **state)
{
    (void)state;
    uint8_t req[256];
    size_t len = check_to(TARGET, req, sizeof req);
    assert_int_equal(node_handle_datagram(&node, 0, &host, &browser, req, len), ZQ_OK);
    (void)drain(NULL);
    uint8_t record[32];
    memset(record, 0, sizeof record);
    record[0] = 22; /* a handshake record (RFC 7983: 20..63 is DTLS) */
    reset_counts();
    assert_int_equal(node_handle_datagram(&node, 0, &host, &browser, record, sizeof record),
                     ZQ_ERR_STATE);
    assert_int_equal(parses, 0);
    assert_int_equal(node.peers[TARGET].peer.stats.rx_dtls_dropped, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            a_check_routed_by_its_username_is_parsed_and_authenticated_once, setup_node,
            teardown_node),
        cmocka_unit_test_setup_teardown(
            a_bad_fingerprint_is_found_by_the_one_parse_and_counted_by_the_peer, setup_node,
            teardown_node),
        cmocka_unit_test_setup_teardown(a_check_naming_no_peer_is_parsed_once_and_left_unmatched,
                                        setup_node, teardown_node),
        cmocka_unit_test_setup_teardown(a_dtls_record_is_routed_without_a_stun_parse, setup_node,
                                        teardown_node),
    };
    return cmocka_run_group_tests(tests, dtls_fixture_group_setup, dtls_fixture_group_teardown);
}

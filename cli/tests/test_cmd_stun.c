/* `zq stun`'s sans-IO client and server: RFC 8489 §6.2.1 retransmission on a manual clock,
 * response handling, the server's answers and drops, and both over the loop on loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/cmd_stun.h"
#include "port/posix/loop.h"
#include "port/zq_port.h"
#include "stack/ice/stun.h"

static const zq_addr_t *client_addr(void)
{
    static zq_addr_t a;
    a = zq_addr_v4(192, 0, 2, 10, 40000);
    return &a;
}

static const zq_addr_t *server_addr(void)
{
    static zq_addr_t a;
    a = zq_addr_v4(192, 0, 2, 1, 3478);
    return &a;
}

static void start(zq_stun_client_t *c, uint32_t timeout_ms, uint64_t now)
{
    zq_stun_client_config_t cfg;
    zq_stun_client_config_default(&cfg);
    cfg.timeout_ms = timeout_ms;
    zq_rand_t rand = zq_port_rand();
    assert_int_equal(zq_stun_client_start(c, &cfg, &rand, now, client_addr(), server_addr()),
                     ZQ_OK);
}

/* Pops the request the client wants sent; fails the test if there is none. */
static size_t take_request(zq_stun_client_t *c, const uint8_t **data)
{
    zq_addr_t local;
    zq_addr_t remote;
    size_t len = 0;
    assert_true(zq_stun_client_poll_transmit(c, &local, &remote, data, &len));
    assert_true(zq_addr_equal(&local, client_addr()));
    assert_true(zq_addr_equal(&remote, server_addr()));
    return len;
}

/* ---- client ------------------------------------------------------------------------------- */

static void client_request_is_a_binding_request_with_fingerprint(void **state)
{
    (void)state;
    zq_stun_client_t c;
    start(&c, 0, 0);
    const uint8_t *req;
    size_t len = take_request(&c, &req);
    stun_msg_t msg;
    assert_int_equal(stun_parse(&msg, req, len), ZQ_OK);
    assert_int_equal(msg.type, STUN_BINDING_REQUEST);
    assert_true(msg.present & STUN_HAS_FINGERPRINT);
    assert_true(msg.present & STUN_HAS_SOFTWARE);
    assert_memory_equal(msg.tid, c.tid, STUN_TID_LEN);
    zq_addr_t l;
    zq_addr_t r;
    const uint8_t *d;
    assert_false(zq_stun_client_poll_transmit(&c, &l, &r, &d, &len));
}

static void client_transaction_ids_are_random(void **state)
{
    (void)state;
    zq_stun_client_t a;
    zq_stun_client_t b;
    start(&a, 0, 0);
    start(&b, 0, 0);
    assert_memory_not_equal(a.tid, b.tid, STUN_TID_LEN);
}

/* Steps the clock to each deadline and returns when each request went out. */
static unsigned run_schedule(zq_stun_client_t *c, uint64_t *sent_at, unsigned max,
                             uint64_t *ended_at)
{
    unsigned n = 0;
    const uint8_t *data;
    zq_addr_t l;
    zq_addr_t r;
    size_t len;
    uint64_t now = 1000;
    while (c->state == ZQ_STUN_CLIENT_WAITING) {
        while (zq_stun_client_poll_transmit(c, &l, &r, &data, &len)) {
            assert_true(n < max);
            sent_at[n++] = now - 1000;
        }
        uint64_t next = zq_stun_client_next_timeout(c);
        assert_true(next > now); /* each deadline moves forward */
        now = next;
        zq_stun_client_handle_timeout(c, now);
    }
    *ended_at = now - 1000;
    assert_false(zq_stun_client_poll_transmit(c, &l, &r, &data, &len));
    assert_int_equal(zq_stun_client_next_timeout(c), ZQ_TIME_NEVER);
    return n;
}

static void client_retransmits_on_the_rfc_8489_schedule(void **state)
{
    (void)state;
    zq_stun_client_t c;
    start(&c, 0, 1000);
    /* RFC 8489 §6.2.1's example: requests at 0, 500, 1500, 3500, 7500, 15500 and 31500 ms,
     * and failure at 39500 ms, 16 RTOs after the last one. */
    static const uint64_t expected[] = {0, 500, 1500, 3500, 7500, 15500, 31500};
    uint64_t sent_at[16];
    uint64_t ended_at;
    assert_int_equal(run_schedule(&c, sent_at, 16, &ended_at), 7);
    assert_memory_equal(sent_at, expected, sizeof expected);
    assert_int_equal(ended_at, 39500);
    assert_int_equal(c.state, ZQ_STUN_CLIENT_TIMED_OUT);
    assert_int_equal(c.sends, 7);
}

static void client_timeout_option_cuts_the_schedule_short(void **state)
{
    (void)state;
    zq_stun_client_t c;
    start(&c, 2000, 1000);
    uint64_t sent_at[16];
    uint64_t ended_at;
    assert_int_equal(run_schedule(&c, sent_at, 16, &ended_at), 3);
    assert_int_equal(sent_at[2], 1500);
    assert_int_equal(ended_at, 2000);
    assert_int_equal(c.state, ZQ_STUN_CLIENT_TIMED_OUT);
}

/* A response to @p req, as a server would build it. */
static size_t build_response(uint8_t *buf, size_t cap, const uint8_t *req, uint16_t type,
                             const zq_addr_t *mapped, uint16_t error)
{
    stun_builder_t b;
    stun_build_start(&b, buf, cap, type, req + 8);
    if (mapped != NULL) {
        stun_put_xor_address(&b, STUN_ATTR_XOR_MAPPED_ADDRESS, mapped);
    }
    if (error != 0) {
        stun_put_error_code(&b, error, "Try Alternate");
    }
    stun_put_fingerprint(&b);
    return stun_build_finish(&b);
}

/* Starts a client at 1000 ms and feeds it, at @p at, a response to its request. */
static void answer(zq_stun_client_t *c, uint64_t at, uint16_t type, const zq_addr_t *mapped,
                   uint16_t error)
{
    start(c, 0, 1000);
    const uint8_t *req;
    (void)take_request(c, &req);
    uint8_t resp[128];
    size_t len = build_response(resp, sizeof resp, req, type, mapped, error);
    zq_stun_client_handle_datagram(c, at, client_addr(), server_addr(), resp, len);
}

static void client_takes_the_mapped_address_of_its_response(void **state)
{
    (void)state;
    zq_stun_client_t c;
    zq_addr_t mapped = zq_addr_v4(203, 0, 113, 7, 61000);
    answer(&c, 1042, STUN_BINDING_SUCCESS, &mapped, 0);
    assert_int_equal(c.state, ZQ_STUN_CLIENT_MAPPED);
    assert_true(zq_addr_equal(&c.mapped, &mapped));
    assert_true(c.mapped_is_xor);
    assert_int_equal(c.rtt_ms, 42);
    assert_int_equal(zq_stun_client_next_timeout(&c), ZQ_TIME_NEVER);
}

static void client_ignores_other_sources_and_other_transactions(void **state)
{
    (void)state;
    zq_stun_client_t c;
    start(&c, 0, 0);
    const uint8_t *req;
    (void)take_request(&c, &req);
    zq_addr_t mapped = zq_addr_v4(203, 0, 113, 7, 61000);
    uint8_t resp[128];
    size_t len = build_response(resp, sizeof resp, req, STUN_BINDING_SUCCESS, &mapped, 0);
    zq_addr_t stranger = zq_addr_v4(192, 0, 2, 66, 3478);
    zq_stun_client_handle_datagram(&c, 10, client_addr(), &stranger, resp, len);

    uint8_t other_req[STUN_HEADER_LEN] = {0};
    memcpy(other_req + 8, req + 8, STUN_TID_LEN);
    other_req[8] ^= 1;
    len = build_response(resp, sizeof resp, other_req, STUN_BINDING_SUCCESS, &mapped, 0);
    zq_stun_client_handle_datagram(&c, 10, client_addr(), server_addr(), resp, len);

    static const uint8_t junk[] = {0x16, 0xfe, 0xfd, 0, 0};
    zq_stun_client_handle_datagram(&c, 10, client_addr(), server_addr(), junk, sizeof junk);
    assert_int_equal(c.state, ZQ_STUN_CLIENT_WAITING);
    assert_int_equal(c.rx_ignored, 3);
}

static void client_reports_an_error_response(void **state)
{
    (void)state;
    zq_stun_client_t c;
    answer(&c, 1010, STUN_BINDING_ERROR, NULL, 300);
    assert_int_equal(c.state, ZQ_STUN_CLIENT_ERROR_RESPONSE);
    assert_int_equal(c.error_code, 300);
    assert_string_equal(c.error_reason, "Try Alternate");
}

static void client_fails_on_a_success_without_mapped_address(void **state)
{
    (void)state;
    zq_stun_client_t c;
    answer(&c, 1010, STUN_BINDING_SUCCESS, NULL, 0);
    assert_int_equal(c.state, ZQ_STUN_CLIENT_BAD_RESPONSE);
    assert_non_null(c.problem);
}

/* ---- server ------------------------------------------------------------------------------- */

static void server_answers_a_binding_request_with_the_source_address(void **state)
{
    (void)state;
    zq_stun_client_t c;
    start(&c, 0, 0);
    const uint8_t *req;
    size_t req_len = take_request(&c, &req);
    static zq_stun_server_t s;
    zq_stun_server_init(&s);
    zq_stun_server_handle_datagram(&s, server_addr(), client_addr(), req, req_len);

    zq_addr_t local;
    zq_addr_t remote;
    const uint8_t *resp;
    size_t len;
    assert_true(zq_stun_server_poll_transmit(&s, &local, &remote, &resp, &len));
    assert_true(zq_addr_equal(&local, server_addr()));
    assert_true(zq_addr_equal(&remote, client_addr()));
    assert_false(zq_stun_server_poll_transmit(&s, &local, &remote, &resp, &len));
    stun_msg_t msg;
    assert_int_equal(stun_parse(&msg, resp, len), ZQ_OK);
    assert_int_equal(msg.type, STUN_BINDING_SUCCESS);
    assert_true(msg.present & STUN_HAS_FINGERPRINT);

    zq_stun_client_handle_datagram(&c, 5, client_addr(), server_addr(), resp, len);
    assert_int_equal(c.state, ZQ_STUN_CLIENT_MAPPED);
    assert_true(zq_addr_equal(&c.mapped, client_addr()));
    assert_int_equal(s.stats.answered, 1);
}

static void server_answers_unknown_required_attributes_with_420(void **state)
{
    (void)state;
    uint8_t tid[STUN_TID_LEN] = {1, 2, 3};
    uint8_t req[64];
    stun_builder_t b;
    stun_build_start(&b, req, sizeof req, STUN_BINDING_REQUEST, tid);
    stun_put_u32(&b, 0x7f00, 7); /* below 0x8000: comprehension-required */
    size_t req_len = stun_build_finish(&b);
    static zq_stun_server_t s;
    zq_stun_server_init(&s);
    zq_stun_server_handle_datagram(&s, server_addr(), client_addr(), req, req_len);

    zq_addr_t local;
    zq_addr_t remote;
    const uint8_t *resp;
    size_t len;
    assert_true(zq_stun_server_poll_transmit(&s, &local, &remote, &resp, &len));
    stun_msg_t msg;
    assert_int_equal(stun_parse(&msg, resp, len), ZQ_OK);
    assert_int_equal(msg.type, STUN_BINDING_ERROR);
    assert_int_equal(msg.error_code, 420);
    assert_int_equal(msg.unknown_listed_count, 1);
    assert_int_equal(msg.unknown_listed[0], 0x7f00);
    assert_int_equal(s.stats.unknown_attr, 1);
}

static void server_counts_what_it_drops(void **state)
{
    (void)state;
    static zq_stun_server_t s;
    zq_stun_server_init(&s);
    static const uint8_t dtls[] = {0x16, 0xfe, 0xfd, 0, 0, 0, 0, 0};
    zq_stun_server_handle_datagram(&s, server_addr(), client_addr(), dtls, sizeof dtls);

    uint8_t tid[STUN_TID_LEN] = {9};
    uint8_t msg[64];
    stun_builder_t b;
    stun_build_start(&b, msg, sizeof msg, STUN_BINDING_INDICATION, tid);
    size_t len = stun_build_finish(&b);
    zq_stun_server_handle_datagram(&s, server_addr(), client_addr(), msg, len);

    stun_build_start(&b, msg, sizeof msg, STUN_BINDING_REQUEST, tid);
    stun_put_fingerprint(&b);
    len = stun_build_finish(&b);
    msg[len - 1] ^= 1; /* FINGERPRINT no longer matches */
    zq_stun_server_handle_datagram(&s, server_addr(), client_addr(), msg, len);

    assert_int_equal(s.stats.not_stun, 1);
    assert_int_equal(s.stats.ignored, 1);
    assert_int_equal(s.stats.malformed, 1);
    assert_int_equal(s.stats.answered, 0);
    zq_addr_t l;
    zq_addr_t r;
    const uint8_t *d;
    assert_false(zq_stun_server_poll_transmit(&s, &l, &r, &d, &len));
}

static void server_counts_answers_it_had_no_room_for(void **state)
{
    (void)state;
    static zq_stun_server_t s;
    zq_stun_server_init(&s);
    uint8_t tid[STUN_TID_LEN] = {7};
    uint8_t req[32];
    stun_builder_t b;
    stun_build_start(&b, req, sizeof req, STUN_BINDING_REQUEST, tid);
    size_t len = stun_build_finish(&b);
    for (int i = 0; i <= ZQ_STUN_SERVER_QUEUE; i++) {
        zq_stun_server_handle_datagram(&s, server_addr(), client_addr(), req, len);
    }
    assert_int_equal(s.stats.answered, ZQ_STUN_SERVER_QUEUE);
    assert_int_equal(s.stats.unsent, 1);
}

/* ---- both over the loop, on 127.0.0.1 ----------------------------------------------------- */

static void client_and_server_meet_over_the_loop_on_loopback(void **state)
{
    (void)state;
    static zq_loop_t loop;
    static zq_stun_client_run_t c;
    static zq_stun_server_t s;
    zq_loop_init(&loop);
    zq_stun_server_init(&s);
    c.loop = &loop;
    zq_addr_t ip = zq_addr_v4(127, 0, 0, 1, 0);
    zq_addr_t c_addr;
    zq_addr_t s_addr;
    zq_socket_t cs;
    zq_socket_t ss;
    assert_int_equal(zq_port_udp_open(&cs, &ip, &c_addr), ZQ_OK);
    assert_int_equal(zq_port_udp_open(&ss, &ip, &s_addr), ZQ_OK);
    zq_stun_client_config_t cfg;
    zq_stun_client_config_default(&cfg);
    zq_rand_t rand = zq_port_rand();
    assert_int_equal(
        zq_stun_client_start(&c.client, &cfg, &rand, zq_loop_now(&loop), &c_addr, &s_addr),
        ZQ_OK);
    size_t cid;
    size_t sid;
    assert_int_equal(zq_loop_add_driver(&loop, &zq_stun_client_driver, &c, &cid), ZQ_OK);
    assert_int_equal(zq_loop_add_driver(&loop, &zq_stun_server_driver, &s, &sid), ZQ_OK);
    assert_int_equal(zq_loop_add_socket(&loop, cid, cs, &c_addr), ZQ_OK);
    assert_int_equal(zq_loop_add_socket(&loop, sid, ss, &s_addr), ZQ_OK);

    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 5000), ZQ_OK);
    assert_int_equal(c.client.state, ZQ_STUN_CLIENT_MAPPED);
    assert_true(zq_addr_equal(&c.client.mapped, &c_addr));
    assert_int_equal(c.client.sends, 1);
    assert_int_equal(s.stats.answered, 1);
    zq_port_udp_close(cs);
    zq_port_udp_close(ss);
}

int main(void)
{
    (void)zq_port_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(client_request_is_a_binding_request_with_fingerprint),
        cmocka_unit_test(client_transaction_ids_are_random),
        cmocka_unit_test(client_retransmits_on_the_rfc_8489_schedule),
        cmocka_unit_test(client_timeout_option_cuts_the_schedule_short),
        cmocka_unit_test(client_takes_the_mapped_address_of_its_response),
        cmocka_unit_test(client_ignores_other_sources_and_other_transactions),
        cmocka_unit_test(client_reports_an_error_response),
        cmocka_unit_test(client_fails_on_a_success_without_mapped_address),
        cmocka_unit_test(server_answers_a_binding_request_with_the_source_address),
        cmocka_unit_test(server_answers_unknown_required_attributes_with_420),
        cmocka_unit_test(server_counts_what_it_drops),
        cmocka_unit_test(server_counts_answers_it_had_no_room_for),
        cmocka_unit_test(client_and_server_meet_over_the_loop_on_loopback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

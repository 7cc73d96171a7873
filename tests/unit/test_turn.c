/* TURN (RFC 8656, stack/turn): ChannelData framing, TURN's attributes, and the client against
 * a scripted server built here with STUN's builder, one rule per test. coturn is the real
 * server (tests/interop/turn/run.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "psa/crypto.h"
#include "stack/turn/turn.h"
#include "test_rand.h"
#include "zq/bytes.h"

/* ---- ChannelData ------------------------------------------------------------------------ */

static void channel_data_round_trips_padded_to_four(void **state)
{
    (void)state;
    uint8_t buf[32];
    size_t n = turn_channel_data_write(buf, sizeof buf, 0x4001, (const uint8_t *)"hello", 5);
    assert_int_equal(n, 4 + 8);
    assert_int_equal(zq_load_be16(buf), 0x4001);
    assert_int_equal(zq_load_be16(buf + 2), 5);
    uint16_t ch;
    const uint8_t *data;
    size_t len;
    assert_true(turn_is_channel_data(buf, n));
    assert_int_equal(turn_channel_data_parse(buf, n, &ch, &data, &len), ZQ_OK);
    assert_int_equal(ch, 0x4001);
    assert_int_equal(len, 5);
    assert_memory_equal(data, "hello", 5);
    /* §12.5: over UDP the padding may be missing. */
    assert_int_equal(turn_channel_data_parse(buf, 9, &ch, &data, &len), ZQ_OK);
    assert_int_equal(turn_channel_data_write(buf, 8, 0x4001, (const uint8_t *)"hello", 5), 0);
}

static void channel_data_outside_its_numbers_or_length_is_refused(void **state)
{
    (void)state;
    uint16_t ch;
    const uint8_t *data;
    size_t len;
    static const uint8_t reserved[] = {0x50, 0x00, 0x00, 0x00};  /* 0x5000: reserved (§12) */
    static const uint8_t too_long[] = {0x40, 0x00, 0x00, 0x08, 1, 2, 3, 4};
    static const uint8_t trailing[] = {0x40, 0x00, 0x00, 0x01, 1, 0, 0, 0, 9};
    assert_int_equal(turn_channel_data_parse(reserved, 4, &ch, &data, &len), ZQ_ERR_MALFORMED);
    assert_int_equal(turn_channel_data_parse(too_long, 8, &ch, &data, &len), ZQ_ERR_TRUNCATED);
    assert_int_equal(turn_channel_data_parse(trailing, 9, &ch, &data, &len), ZQ_ERR_MALFORMED);
    assert_int_equal(turn_channel_data_parse(reserved, 3, &ch, &data, &len), ZQ_ERR_TRUNCATED);
    static const uint8_t stun_first_byte[] = {0x01, 0x01};
    assert_false(turn_is_channel_data(stun_first_byte, 2));
}

/* ---- A scripted server ---------------------------------------------------------------- */

static turn_client_t turn;
static test_rand_t rng;
static uint64_t now;
static uint8_t sent[ZQ_TURN_DATAGRAM_MAX];
static size_t sent_len;
static stun_msg_t req; /* the last request the client sent, parsed */
static const zq_addr_t relayed_addr = {.family = ZQ_AF_INET4, .port = 49200, .ip = {203, 0, 113, 5}};
static const zq_addr_t peer = {.family = ZQ_AF_INET4, .port = 5000, .ip = {198, 51, 100, 7}};

static uint8_t key[16]; /* MD5("zq:zq.test:secret") */

static int setup(void **state)
{
    (void)state;
    now = 1000;
    turn_config_t cfg = {.server = zq_addr_v4(192, 0, 2, 1, 3478), .rto_ms = 100};
    cfg.rand = test_rand(&rng, 11);
    strcpy(cfg.username, "zq");
    strcpy(cfg.password, "secret");
    assert_int_equal(turn_client_start(&turn, &cfg, now), ZQ_OK);
    size_t n;
    static const char input[] = "zq:zq.test:secret";
    assert_int_equal(psa_hash_compute(PSA_ALG_MD5, (const uint8_t *)input, sizeof input - 1, key,
                                      sizeof key, &n),
                     PSA_SUCCESS);
    return 0;
}

/* What the client sends now, parsed into req; false if nothing. */
static bool take_request(void)
{
    const uint8_t *out;
    if (!turn_client_poll_output(&turn, now, &out, &sent_len)) {
        return false;
    }
    memcpy(sent, out, sent_len);
    assert_int_equal(stun_parse(&req, sent, sent_len), ZQ_OK);
    return true;
}

/* An answer to req of @p type, signed with the key when @p sign; @p extra adds attributes. */
static void reply(uint16_t type, uint16_t error, bool sign,
                  void (*extra)(stun_builder_t *b))
{
    uint8_t buf[512];
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, type, req.tid);
    if (error != 0) {
        stun_put_error_code(&b, error, "scripted");
    }
    if (extra != NULL) {
        extra(&b);
    }
    if (sign) {
        stun_put_integrity(&b, key, sizeof key);
    }
    stun_put_fingerprint(&b);
    size_t n = stun_build_finish(&b);
    assert_true(n > 0);
    turn_client_handle(&turn, now, buf, n);
}

static void realm_and_nonce(stun_builder_t *b)
{
    stun_put_attr(b, STUN_ATTR_REALM, "zq.test", 7);
    stun_put_attr(b, STUN_ATTR_NONCE, "n0nce", 5);
}

static void new_nonce(stun_builder_t *b)
{
    stun_put_attr(b, STUN_ATTR_NONCE, "fresh", 5);
}

static void allocation(stun_builder_t *b)
{
    stun_put_xor_address(b, TURN_ATTR_XOR_RELAYED_ADDRESS, &relayed_addr);
    stun_put_xor_address(b, STUN_ATTR_XOR_MAPPED_ADDRESS, &peer);
    stun_put_u32(b, TURN_ATTR_LIFETIME, 600);
}

static void unknown_required(stun_builder_t *b)
{
    allocation(b);
    stun_put_u32(b, 0x7001, 1);
}

static bool next_event(turn_event_t *ev)
{
    return turn_client_poll_event(&turn, ev);
}

/* Through 401 to an allocation. */
static void allocate(void)
{
    assert_true(take_request());
    reply(TURN_ALLOCATE_ERROR, 401, false, realm_and_nonce);
    assert_true(take_request());
    reply(TURN_ALLOCATE_SUCCESS, 0, true, allocation);
    turn_event_t ev;
    assert_true(next_event(&ev));
    assert_int_equal(ev.type, TURN_EVENT_ALLOCATED);
}

static void the_first_allocate_has_no_credential_and_the_second_the_long_term_one(void **state)
{
    (void)state;
    assert_true(take_request());
    assert_int_equal(req.type, TURN_ALLOCATE_REQUEST);
    assert_false(req.present & STUN_HAS_MESSAGE_INTEGRITY);
    uint8_t first_tid[STUN_TID_LEN];
    memcpy(first_tid, req.tid, sizeof first_tid);
    reply(TURN_ALLOCATE_ERROR, 401, false, realm_and_nonce);
    assert_true(take_request());
    assert_int_equal(req.type, TURN_ALLOCATE_REQUEST);
    assert_memory_not_equal(req.tid, first_tid, STUN_TID_LEN); /* a new transaction */
    assert_memory_equal(req.username.data, "zq", 2);
    assert_memory_equal(req.realm.data, "zq.test", 7);
    assert_memory_equal(req.nonce.data, "n0nce", 5);
    /* RFC 8489 §9.2.2: signed with MD5(username ":" realm ":" password). */
    assert_int_equal(stun_verify_integrity(&req, key, sizeof key), ZQ_OK);
    reply(TURN_ALLOCATE_SUCCESS, 0, true, allocation);
    turn_event_t ev;
    assert_true(next_event(&ev));
    assert_int_equal(ev.type, TURN_EVENT_ALLOCATED);
    assert_true(zq_addr_equal(&turn.relayed, &relayed_addr));
    assert_true(zq_addr_equal(&turn.mapped, &peer));
    assert_int_equal(turn.lifetime_s, 600);
}

static void an_answer_not_signed_with_the_key_is_dropped(void **state)
{
    (void)state;
    assert_true(take_request());
    reply(TURN_ALLOCATE_ERROR, 401, false, realm_and_nonce);
    assert_true(take_request());
    reply(TURN_ALLOCATE_SUCCESS, 0, false, allocation); /* forged: no integrity */
    turn_event_t ev;
    assert_false(next_event(&ev));
    assert_int_equal(turn.dropped, 1);
    assert_int_equal(turn.state, TURN_ALLOCATING);
}

static void wrong_credentials_end_the_allocation_with_their_code(void **state)
{
    (void)state;
    assert_true(take_request());
    reply(TURN_ALLOCATE_ERROR, 401, false, realm_and_nonce);
    assert_true(take_request());
    reply(TURN_ALLOCATE_ERROR, 401, false, realm_and_nonce); /* the key did not open it */
    turn_event_t ev;
    assert_true(next_event(&ev));
    assert_int_equal(ev.type, TURN_EVENT_FAILED);
    assert_int_equal(ev.code, 401);
    assert_false(take_request());
}

static void a_stale_nonce_is_replaced_and_the_request_sent_again(void **state)
{
    (void)state;
    allocate();
    now += 300 * 1000; /* lifetime 600 s: refreshed at half of it */
    (void)turn_client_timeout(&turn, now);
    assert_true(take_request());
    assert_int_equal(req.type, TURN_REFRESH_REQUEST);
    reply(TURN_REFRESH_ERROR, 438, false, new_nonce);
    assert_true(take_request());
    assert_int_equal(req.type, TURN_REFRESH_REQUEST);
    assert_memory_equal(req.nonce.data, "fresh", 5);
    reply(TURN_REFRESH_SUCCESS, 0, true, NULL);
    assert_int_equal(turn.refreshes, 1);
    assert_int_equal(turn.new_nonces, 1);
    assert_int_equal(turn.state, TURN_ALLOCATED);
}

/* Nothing is answered: how many requests go before the first event (@p ev), the clock
 * moved to each deadline. */
static unsigned sends_until_an_event(turn_event_t *ev)
{
    unsigned sends = 0;
    for (int i = 0; i < 1000; i++) {
        sends += take_request();
        uint64_t next = turn_client_timeout(&turn, now);
        if (next_event(ev)) {
            break;
        }
        now = next;
    }
    return sends;
}

static void an_unanswered_allocate_is_sent_seven_times_then_fails(void **state)
{
    (void)state;
    turn_event_t ev = {0};
    unsigned sends = sends_until_an_event(&ev);
    assert_int_equal(sends, 7); /* Rc (RFC 8489 §6.2.1) */
    assert_int_equal(ev.type, TURN_EVENT_FAILED);
    assert_int_equal(ev.code, 0);
    /* Sent at 0, 0.1, 0.3, 0.7, 1.5, 3.1 and 6.3 s (100 ms doubling), failed Rm = 16 RTOs of
     * 100 ms after the last. */
    assert_int_equal(now, 1000 + 6300 + 1600);
}

/* RFC 8489 §6.2.2: over TCP a request is sent once; unanswered, it fails after Ti = 39.5 s. */
static void over_tcp_a_request_is_sent_once_and_fails_after_ti(void **state)
{
    (void)state;
    turn.cfg.reliable = true;
    turn_event_t ev = {0};
    unsigned sends = sends_until_an_event(&ev);
    assert_int_equal(sends, 1);
    assert_int_equal(ev.type, TURN_EVENT_FAILED);
    assert_int_equal(now, 1000 + 39500);
}

static void an_unknown_required_attribute_fails_the_transaction(void **state)
{
    (void)state;
    assert_true(take_request());
    reply(TURN_ALLOCATE_ERROR, 401, false, realm_and_nonce);
    assert_true(take_request());
    reply(TURN_ALLOCATE_SUCCESS, 0, true, unknown_required);
    turn_event_t ev;
    assert_true(next_event(&ev));
    assert_int_equal(ev.type, TURN_EVENT_FAILED);
}

static void peer_data(stun_builder_t *b)
{
    stun_put_xor_address(b, TURN_ATTR_XOR_PEER_ADDRESS, &peer);
    stun_put_attr(b, TURN_ATTR_DATA, "hi", 2);
}

static void data_arrives_only_from_a_peer_with_a_permission(void **state)
{
    (void)state;
    allocate();
    reply(TURN_DATA_INDICATION, 0, false, peer_data); /* no permission yet */
    turn_event_t ev;
    assert_false(next_event(&ev));
    assert_int_equal(turn.dropped, 1);
    assert_int_equal(turn_client_permit(&turn, now, &peer), ZQ_OK);
    assert_true(take_request());
    assert_int_equal(req.type, TURN_CREATE_PERMISSION_REQUEST);
    reply(TURN_CREATE_PERMISSION_SUCCESS, 0, true, NULL);
    assert_true(next_event(&ev));
    assert_int_equal(ev.type, TURN_EVENT_PERMISSION);
    reply(TURN_DATA_INDICATION, 0, false, peer_data);
    assert_true(next_event(&ev));
    assert_int_equal(ev.type, TURN_EVENT_DATA);
    assert_true(zq_addr_equal(&ev.peer, &peer));
    assert_memory_equal(ev.data, "hi", 2);
}

static void a_bound_channel_carries_data_as_channel_data_both_ways(void **state)
{
    (void)state;
    allocate();
    uint8_t wire[64];
    size_t n = turn_client_wrap(&turn, &peer, (const uint8_t *)"abc", 3, wire, sizeof wire);
    assert_true(n > 0);
    assert_int_equal(zq_load_be16(wire), TURN_SEND_INDICATION); /* no channel yet */
    assert_int_equal(turn_client_bind(&turn, now, &peer), ZQ_OK);
    assert_true(take_request());
    assert_int_equal(req.type, TURN_CHANNEL_BIND_REQUEST);
    reply(TURN_CHANNEL_BIND_SUCCESS, 0, true, NULL);
    turn_event_t ev;
    assert_true(next_event(&ev));
    assert_int_equal(ev.type, TURN_EVENT_CHANNEL);
    assert_int_equal(ev.channel, TURN_CHANNEL_MIN);
    n = turn_client_wrap(&turn, &peer, (const uint8_t *)"abc", 3, wire, sizeof wire);
    assert_int_equal(n, 8);
    assert_int_equal(zq_load_be16(wire), TURN_CHANNEL_MIN);
    turn_client_handle(&turn, now, wire, n); /* the server's ChannelData looks the same */
    assert_true(next_event(&ev));
    assert_int_equal(ev.type, TURN_EVENT_DATA);
    assert_memory_equal(ev.data, "abc", 3);
    static const uint8_t unbound[] = {0x40, 0x09, 0x00, 0x01, 'x', 0, 0, 0};
    turn_client_handle(&turn, now, unbound, sizeof unbound);
    assert_false(next_event(&ev));
}

static void permissions_beyond_the_table_are_refused_cleanly(void **state)
{
    (void)state;
    allocate();
    for (unsigned i = 0; i < ZQ_TURN_MAX_PERMISSIONS; i++) {
        zq_addr_t p = zq_addr_v4(198, 51, 100, (uint8_t)(10 + i), 1);
        assert_int_equal(turn_client_permit(&turn, now, &p), ZQ_OK);
        while (take_request()) {
        }
    }
    zq_addr_t one_more = zq_addr_v4(198, 51, 100, 200, 1);
    assert_int_equal(turn_client_permit(&turn, now, &one_more), ZQ_ERR_CAPACITY);
    zq_addr_t again = zq_addr_v4(198, 51, 100, 10, 9); /* same IP, another port: the same */
    assert_int_equal(turn_client_permit(&turn, now, &again), ZQ_OK);
}

/* Grants one CreatePermission for @p ip and drains its event. */
static void grant_permission(const zq_addr_t *ip)
{
    assert_int_equal(turn_client_permit(&turn, now, ip), ZQ_OK);
    assert_true(take_request());
    assert_int_equal(req.type, TURN_CREATE_PERMISSION_REQUEST);
    reply(TURN_CREATE_PERMISSION_SUCCESS, 0, true, NULL);
    turn_event_t ev;
    while (next_event(&ev)) {
    }
}

/* Bounded over reconnects: a permission that carried nothing for a refresh period (a peer
 * gone, or one at an address it left) gives its slot back; one in use is refreshed. */
static void a_permission_idle_for_a_refresh_period_is_dropped_and_a_used_one_refreshed(void **state)
{
    (void)state;
    allocate();
    zq_addr_t idle = zq_addr_v4(198, 51, 100, 20, 1);
    grant_permission(&peer);
    grant_permission(&idle);
    uint8_t wire[64];
    assert_true(turn_client_wrap(&turn, &peer, (const uint8_t *)"x", 1, wire, sizeof wire) > 0);
    now += 150000; /* RFC 8656 §9: permissions last 300 s; zq refreshes at half of it */
    (void)turn_client_timeout(&turn, now);
    unsigned permission_requests = 0;
    while (take_request()) {
        if (req.type == TURN_CREATE_PERMISSION_REQUEST) {
            permission_requests++;
            turn_attrs_t a;
            assert_int_equal(turn_parse_attrs(&req, &a), ZQ_OK);
            assert_true(zq_addr_same_ip(&a.peer, &peer));
        }
    }
    assert_int_equal(permission_requests, 1);
    for (unsigned i = 0; i < ZQ_TURN_MAX_PERMISSIONS - 1; i++) { /* the idle slot is free */
        zq_addr_t p = zq_addr_v4(198, 51, 100, (uint8_t)(100 + i), 1);
        assert_int_equal(turn_client_permit(&turn, now, &p), ZQ_OK);
    }
}

static void a_refused_permission_gives_its_slot_back_and_can_be_asked_again(void **state)
{
    (void)state;
    allocate();
    assert_int_equal(turn_client_permit(&turn, now, &peer), ZQ_OK);
    assert_true(take_request());
    reply(TURN_CREATE_PERMISSION_ERROR, 403, true, NULL);
    turn_event_t ev;
    assert_true(next_event(&ev));
    assert_int_equal(ev.type, TURN_EVENT_REFUSED);
    assert_int_equal(ev.code, 403);
    assert_int_equal(turn_client_permit(&turn, now, &peer), ZQ_OK);
    assert_true(take_request()); /* asked again, not taken as granted */
    assert_int_equal(req.type, TURN_CREATE_PERMISSION_REQUEST);
}

/* Runs the client's clock to @p until, dropping what it sends (the network is down), or
 * only its ChannelBinds when @p only_channels_lost; @return how many of its requests were of
 * @p type. */
static unsigned run_dropping(uint64_t until, uint16_t type, bool only_channels_lost)
{
    unsigned n = 0;
    while (now < until) {
        while (take_request()) {
            n += req.type == type;
            if (only_channels_lost && req.type == TURN_REFRESH_REQUEST) {
                reply(TURN_REFRESH_SUCCESS, 0, true, allocation);
            } else if (only_channels_lost && req.type == TURN_CREATE_PERMISSION_REQUEST) {
                reply(TURN_CREATE_PERMISSION_SUCCESS, 0, true, NULL);
            }
        }
        uint64_t next = turn_client_timeout(&turn, now);
        now = next < until ? next : until;
    }
    return n;
}

/* RFC 8656 §7.2: the allocation lives until its lifetime ends unless refreshed. A Refresh
 * nobody answered (the network is down) is tried again while the server still holds the
 * allocation, and one that gets through keeps it; only a lifetime gone by ends it. */
static void an_unanswered_refresh_is_tried_again_until_the_lifetime_ends(void **state)
{
    (void)state;
    allocate(); /* at 1 s, 600 s of lifetime: refreshed from 301 s */
    unsigned refreshes = run_dropping(1000 + 590000, TURN_REFRESH_REQUEST, false);
    turn_event_t ev;
    assert_false(next_event(&ev)); /* not failed: the server still has it */
    assert_int_equal(turn.state, TURN_ALLOCATED);
    assert_true(turn.refresh_retries >= 1);
    assert_true(refreshes > 7); /* more than one transaction's sends */
    (void)turn_client_timeout(&turn, now);
    while (!take_request() || req.type != TURN_REFRESH_REQUEST) {
        now += 100;
        (void)turn_client_timeout(&turn, now);
    }
    reply(TURN_REFRESH_SUCCESS, 0, true, allocation); /* the network is back */
    assert_int_equal(turn.state, TURN_ALLOCATED);
    (void)run_dropping(now + 700000, TURN_REFRESH_REQUEST, false); /* down for good */
    assert_true(next_event(&ev));
    assert_int_equal(ev.type, TURN_EVENT_FAILED);
    assert_int_equal(ev.code, 0);
}

/* A channel whose refresh went unanswered stays bound while the server still binds it (RFC
 * 8656 §12: 600 s): what the peer sends on it meanwhile is still read. Past that, the slot is
 * given back and the peer is reported refused. (The allocation's Refreshes and the
 * permission's are answered here, so that only the channel's go unanswered.) */
static void an_unanswered_channel_refresh_keeps_the_channel_until_it_would_expire(void **state)
{
    (void)state;
    allocate();
    grant_permission(&peer);
    assert_int_equal(turn_client_bind(&turn, now, &peer), ZQ_OK);
    assert_true(take_request());
    assert_int_equal(req.type, TURN_CHANNEL_BIND_REQUEST);
    reply(TURN_CHANNEL_BIND_SUCCESS, 0, true, NULL);
    turn_event_t ev;
    while (next_event(&ev)) {
    }
    uint8_t wire[64];
    uint64_t bound_at = now;
    assert_true(turn_client_wrap(&turn, &peer, (const uint8_t *)"x", 1, wire, sizeof wire) > 0);
    unsigned binds = run_dropping(bound_at + 595000, TURN_CHANNEL_BIND_REQUEST, true);
    size_t n = turn_channel_data_write(wire, sizeof wire, 0x4000, (const uint8_t *)"y", 1);
    turn_client_handle(&turn, now, wire, n);
    bool data = false, refused = false;
    while (next_event(&ev)) {
        data |= ev.type == TURN_EVENT_DATA;
        refused |= ev.type == TURN_EVENT_REFUSED;
    }
    assert_true(data);
    assert_false(refused);
    assert_true(binds > 7); /* tried again, more than one transaction's sends */
    (void)run_dropping(bound_at + 640000, TURN_CHANNEL_BIND_REQUEST, true);
    while (next_event(&ev)) {
        refused |= ev.type == TURN_EVENT_REFUSED;
    }
    assert_true(refused);
}

static void asking_again_for_a_permission_sends_nothing(void **state)
{
    (void)state;
    allocate();
    grant_permission(&peer);
    assert_int_equal(turn_client_permit(&turn, now, &peer), ZQ_OK);
    assert_false(take_request());
}

static void the_release_asks_for_lifetime_zero(void **state)
{
    (void)state;
    allocate();
    turn_client_release(&turn, now);
    assert_true(take_request());
    assert_int_equal(req.type, TURN_REFRESH_REQUEST);
    turn_attrs_t a;
    assert_int_equal(turn_parse_attrs(&req, &a), ZQ_OK);
    assert_true(a.present & TURN_HAS_LIFETIME);
    assert_int_equal(a.lifetime_s, 0);
    reply(TURN_REFRESH_SUCCESS, 0, true, NULL);
    assert_int_equal(turn.state, TURN_IDLE);
}

/* RFC 8656 §3.1, §12.5: on a stream, STUN messages run 20 bytes and their length, ChannelData 4
 * and its length padded to 4; frames are found whole however the bytes were split. */
static void frames_on_a_stream_are_found_whole_across_any_split(void **state)
{
    (void)state;
    uint8_t bytes[128];
    size_t n = 0;
    static const uint8_t five[5] = {1, 2, 3, 4, 5};
    n += turn_channel_data_write(bytes + n, sizeof bytes - n, 0x4001, five, 5); /* 4 + 8 */
    stun_builder_t b;
    static const uint8_t tid[STUN_TID_LEN] = {1};
    stun_build_start(&b, bytes + n, sizeof bytes - n, STUN_BINDING_REQUEST, tid);
    n += stun_build_finish(&b); /* 20 */
    n += turn_channel_data_write(bytes + n, sizeof bytes - n, 0x4FFF, five, 0); /* 4 */
    static const size_t want[] = {12, 20, 4};
    for (size_t piece = 1; piece <= n; piece++) {
        turn_stream_t s = {0};
        size_t got = 0, at = 0;
        while (at < n) {
            size_t take = piece < n - at ? piece : n - at;
            assert_int_equal(turn_stream_feed(&s, bytes + at, take), take);
            at += take;
            const uint8_t *frame;
            size_t len;
            while (turn_stream_next(&s, &frame, &len) == ZQ_OK) {
                assert_true(got < 3);
                assert_int_equal(len, want[got]);
                got++;
                turn_stream_pop(&s, len);
            }
        }
        assert_int_equal(got, 3);
        assert_int_equal(s.len, 0);
    }
}

/* What cannot be followed ends the stream: other first bits, a reserved channel, a STUN
 * length not a multiple of 4 or no magic cookie, and a frame longer than the client takes. */
static void bytes_a_stream_cannot_be_followed_past_are_refused(void **state)
{
    (void)state;
    static const struct {
        uint8_t b[8];
        zq_err_t err;
    } cases[] = {
        {{0x80, 0, 0, 0}, ZQ_ERR_MALFORMED},                        /* RTP/DTLS range */
        {{0x50, 0x00, 0, 4}, ZQ_ERR_MALFORMED},                     /* reserved channel */
        {{0x00, 0x01, 0, 6, 0x21, 0x12, 0xA4, 0x42}, ZQ_ERR_MALFORMED}, /* length 6 */
        {{0x00, 0x01, 0, 0, 'H', 'T', 'T', 'P'}, ZQ_ERR_MALFORMED},     /* no cookie */
        {{0x40, 0x00, 0xFF, 0xFC}, ZQ_ERR_TOO_LONG},                 /* 65,532 bytes */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        turn_stream_t s = {0};
        (void)turn_stream_feed(&s, cases[i].b, sizeof cases[i].b);
        const uint8_t *frame;
        size_t len;
        assert_int_equal(turn_stream_next(&s, &frame, &len), cases[i].err);
    }
    turn_stream_t s = {0};
    (void)turn_stream_feed(&s, (const uint8_t[]){0x40, 0x00}, 2);
    const uint8_t *frame;
    size_t len;
    assert_int_equal(turn_stream_next(&s, &frame, &len), ZQ_ERR_WOULD_BLOCK);
}

static void turn_attributes_of_the_wrong_size_are_malformed(void **state)
{
    (void)state;
    uint8_t buf[128];
    uint8_t tid[STUN_TID_LEN] = {1};
    stun_builder_t b;
    stun_build_start(&b, buf, sizeof buf, TURN_ALLOCATE_SUCCESS, tid);
    stun_put_attr(&b, TURN_ATTR_LIFETIME, "abc", 3);
    size_t n = stun_build_finish(&b);
    stun_msg_t msg;
    turn_attrs_t a;
    assert_int_equal(stun_parse(&msg, buf, n), ZQ_OK);
    assert_int_equal(turn_parse_attrs(&msg, &a), ZQ_ERR_MALFORMED);
    stun_build_start(&b, buf, sizeof buf, TURN_CHANNEL_BIND_REQUEST, tid);
    stun_put_u32(&b, TURN_ATTR_CHANNEL_NUMBER, 0x3FFFu << 16); /* below 0x4000 */
    n = stun_build_finish(&b);
    assert_int_equal(stun_parse(&msg, buf, n), ZQ_OK);
    assert_int_equal(turn_parse_attrs(&msg, &a), ZQ_ERR_MALFORMED);
}

static zq_err_t parse_url(const char *url, turn_url_t *u)
{
    return turn_url_parse(url, strlen(url), u);
}

/* RFC 7064 §3.1 and RFC 7065 §3.1: scheme, IP literal host, default ports, transport. */
static void turn_urls_name_scheme_server_and_transport_with_default_ports(void **state)
{
    (void)state;
    turn_url_t u;
    assert_int_equal(parse_url("turn:192.0.2.1", &u), ZQ_OK);
    assert_int_equal(u.scheme, TURN_URL_TURN);
    assert_int_equal(u.server.port, 3478);
    assert_int_equal(u.transport, TURN_PROTOCOL_UDP);
    assert_int_equal(parse_url("turn:192.0.2.1:3479?transport=tcp", &u), ZQ_OK);
    assert_int_equal(u.server.port, 3479);
    assert_int_equal(u.transport, TURN_PROTOCOL_TCP);
    assert_int_equal(parse_url("turns:[2001:db8::1]", &u), ZQ_OK);
    assert_int_equal(u.scheme, TURN_URL_TURNS);
    assert_int_equal(u.server.family, ZQ_AF_INET6);
    assert_int_equal(u.server.port, 5349);
    assert_int_equal(u.transport, TURN_PROTOCOL_TCP);
    assert_int_equal(parse_url("stun:203.0.113.10:19302", &u), ZQ_OK);
    assert_int_equal(u.scheme, TURN_URL_STUN);
    zq_addr_t want = zq_addr_v4(203, 0, 113, 10, 19302);
    assert_true(zq_addr_equal(&u.server, &want));
}

static void turn_urls_with_names_or_other_transports_are_unsupported_and_broken_ones_malformed(
    void **state)
{
    (void)state;
    turn_url_t u = {.server.port = 1};
    static const char *const unsupported[] = {"turn:turn.example.org", "http://192.0.2.1",
                                              "turn:192.0.2.1?transport=sctp", "turn"};
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++) {
        assert_int_equal(parse_url(unsupported[i], &u), ZQ_ERR_UNSUPPORTED);
    }
    static const char *const malformed[] = {"turn:",          "turn:192.0.2.1:",
                                            "turn:192.0.2.1:0", "turn:192.0.2.1:65536",
                                            "turn:[2001:db8::1", "turn:[2001:db8::1]x",
                                            "stun:192.0.2.1?transport=udp",
                                            "turn:192.0.2.1?proto=udp"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        assert_int_equal(parse_url(malformed[i], &u), ZQ_ERR_MALFORMED);
    }
    assert_int_equal(u.server.port, 1); /* never written on an error */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(channel_data_round_trips_padded_to_four),
        cmocka_unit_test(channel_data_outside_its_numbers_or_length_is_refused),
        cmocka_unit_test(turn_attributes_of_the_wrong_size_are_malformed),
        cmocka_unit_test(frames_on_a_stream_are_found_whole_across_any_split),
        cmocka_unit_test(bytes_a_stream_cannot_be_followed_past_are_refused),
        cmocka_unit_test_setup(over_tcp_a_request_is_sent_once_and_fails_after_ti, setup),
        cmocka_unit_test_setup(
            the_first_allocate_has_no_credential_and_the_second_the_long_term_one, setup),
        cmocka_unit_test_setup(an_answer_not_signed_with_the_key_is_dropped, setup),
        cmocka_unit_test_setup(wrong_credentials_end_the_allocation_with_their_code, setup),
        cmocka_unit_test_setup(a_stale_nonce_is_replaced_and_the_request_sent_again, setup),
        cmocka_unit_test_setup(an_unanswered_allocate_is_sent_seven_times_then_fails, setup),
        cmocka_unit_test_setup(an_unknown_required_attribute_fails_the_transaction, setup),
        cmocka_unit_test_setup(data_arrives_only_from_a_peer_with_a_permission, setup),
        cmocka_unit_test_setup(a_bound_channel_carries_data_as_channel_data_both_ways, setup),
        cmocka_unit_test_setup(permissions_beyond_the_table_are_refused_cleanly, setup),
        cmocka_unit_test_setup(the_release_asks_for_lifetime_zero, setup),
        cmocka_unit_test_setup(
            a_permission_idle_for_a_refresh_period_is_dropped_and_a_used_one_refreshed, setup),
        cmocka_unit_test_setup(a_refused_permission_gives_its_slot_back_and_can_be_asked_again,
                               setup),
        cmocka_unit_test_setup(asking_again_for_a_permission_sends_nothing, setup),
        cmocka_unit_test_setup(an_unanswered_refresh_is_tried_again_until_the_lifetime_ends, setup),
        cmocka_unit_test_setup(an_unanswered_channel_refresh_keeps_the_channel_until_it_would_expire, setup),
        cmocka_unit_test(turn_urls_name_scheme_server_and_transport_with_default_ports),
        cmocka_unit_test(
            turn_urls_with_names_or_other_transports_are_unsupported_and_broken_ones_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

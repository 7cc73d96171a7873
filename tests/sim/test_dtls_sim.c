/* DTLS connections against each other over a simulated network with a manual clock: both
 * roles, lost/reordered/duplicated flights, fingerprint pinning both ways, a client with no
 * certificate, garbage mid-session, close from either side, a fragmented ClientHello, and
 * use_srtp offered and answered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dtls_pair.h"
#include "stack/dtls/dtls_mbedtls.h"
#include "zq/crypto.h"

static dtls_pair_t pair; /* large: keep it off the stack */
static const simnet_impairment_t clean = {0, 0, 5, 0};

/* A (client, ctx_a) against B (server, ctx_b), each pinning the other's real fingerprint. */
static void start(uint64_t seed, simnet_impairment_t impair)
{
    dtls_pair_init(&pair, seed, impair);
    dtls_pair_start(&pair, &fx.ctx_a, &fx.ctx_b, &fx.id_b.fingerprint, &fx.id_a.fingerprint);
}

static bool connected_or_failed(dtls_pair_t *p)
{
    return dtls_pair_both_connected(p) || dtls_pair_any_failed(p);
}

/* Sends @p messages records of @p size each way and checks they all arrived, in order, intact
 * and exactly once (counts and a running CRC on both ends). */
static void exchange(size_t messages, size_t size)
{
    uint8_t msg[1200];
    uint32_t crc[2] = {pair.end[1].crc, pair.end[0].crc};
    unsigned long before[2] = {pair.end[0].messages, pair.end[1].messages};
    for (size_t i = 0; i < messages; i++) {
        for (int side = 0; side < 2; side++) {
            for (size_t k = 0; k < size; k++) {
                msg[k] = (uint8_t)(i * 31 + k * 7 + (size_t)side);
            }
            assert_int_equal(dtls_pair_send(&pair, side, msg, size), ZQ_OK);
            crc[side] = zq_crc32_update(crc[side], msg, size);
        }
        dtls_pair_run(&pair, pair.now + 100, NULL);
    }
    for (int side = 0; side < 2; side++) {
        assert_int_equal(pair.end[1 - side].messages - before[1 - side], messages);
        assert_int_equal(pair.end[1 - side].crc, crc[side]);
    }
}

static void handshake_completes_and_data_flows_both_ways(void **state)
{
    (void)state;
    start(1, clean);
    assert_true(dtls_pair_run(&pair, pair.now + 5000, connected_or_failed));
    assert_true(dtls_pair_both_connected(&pair));
    assert_string_equal(dtls_cipher_suite(&pair.end[0].conn),
                        "TLS-ECDHE-ECDSA-WITH-AES-128-GCM-SHA256");
    /* RFC 6347 §4.2.1: the server demanded a cookie first. */
    assert_int_equal(dtls_stats(&pair.end[1].conn)->hello_verify_sent, 1);
    exchange(20, 1000);
    dtls_pair_free(&pair);
}

static void roles_swap_with_the_other_identity(void **state)
{
    (void)state;
    dtls_pair_init(&pair, 2, clean);
    dtls_pair_start(&pair, &fx.ctx_b, &fx.ctx_a, &fx.id_a.fingerprint, &fx.id_b.fingerprint);
    assert_true(dtls_pair_run(&pair, pair.now + 5000, connected_or_failed));
    assert_true(dtls_pair_both_connected(&pair));
    exchange(5, 300);
    dtls_pair_free(&pair);
}

static void largest_payload_fits_one_datagram_and_one_more_byte_is_refused(void **state)
{
    (void)state;
    start(3, clean);
    assert_true(dtls_pair_run(&pair, pair.now + 5000, connected_or_failed));
    size_t max = dtls_max_payload(&pair.end[0].conn);
    /* MTU 1200 less 13 (header) + 8 (explicit nonce) + 16 (GCM tag) */
    assert_int_equal(max, ZQ_DTLS_MTU - 13 - 8 - 16);
    static uint8_t big[ZQ_DTLS_MTU];
    assert_int_equal(dtls_pair_send(&pair, 0, big, max), ZQ_OK);
    assert_int_equal(dtls_pair_send(&pair, 0, big, max + 1), ZQ_ERR_TOO_LONG);
    dtls_pair_run(&pair, pair.now + 100, NULL);
    assert_int_equal(pair.end[1].bytes, max);
    dtls_pair_free(&pair);
}

static void handshake_survives_loss_reordering_and_duplication(void **state)
{
    (void)state;
    /* 20% loss, 10% duplication, 0-80 ms of reordering, many seeds. */
    const simnet_impairment_t bad = {20, 10, 10, 80};
    uint64_t slowest = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        start(seed, bad);
        uint64_t t0 = pair.now;
        assert_true(dtls_pair_run(&pair, pair.now + 60000, connected_or_failed));
        assert_true(dtls_pair_both_connected(&pair));
        slowest = pair.now - t0 > slowest ? pair.now - t0 : slowest;
        dtls_pair_free(&pair);
    }
    printf("    40 seeds connected; slowest handshake %llu ms (simulated)\n",
           (unsigned long long)slowest);
}

static void duplicated_records_are_delivered_once(void **state)
{
    (void)state;
    const simnet_impairment_t dup = {0, 50, 5, 20};
    start(7, dup);
    assert_true(dtls_pair_run(&pair, pair.now + 10000, connected_or_failed));
    assert_true(dtls_pair_both_connected(&pair));
    exchange(50, 200); /* exact counts and CRCs: replays were not delivered */
    assert_true(dtls_stats(&pair.end[1].conn)->rx_discarded > 0);
    dtls_pair_free(&pair);
}

static void client_rejects_server_with_wrong_fingerprint(void **state)
{
    (void)state;
    dtls_fingerprint_t wrong = fx.id_b.fingerprint;
    wrong.bytes[0] ^= 1;
    dtls_pair_init(&pair, 8, clean);
    dtls_pair_start(&pair, &fx.ctx_a, &fx.ctx_b, &wrong, &fx.id_a.fingerprint);
    assert_true(dtls_pair_run(&pair, pair.now + 60000, connected_or_failed));
    assert_true(pair.end[0].failed);
    assert_int_equal(pair.end[0].failure, DTLS_FAIL_FINGERPRINT);
    assert_false(pair.end[0].connected);
    dtls_pair_run(&pair, pair.now + 60000, NULL);
    assert_false(pair.end[1].connected); /* the server never completes either */
    dtls_pair_free(&pair);
}

static void server_rejects_client_with_wrong_fingerprint(void **state)
{
    (void)state;
    dtls_fingerprint_t wrong = fx.id_a.fingerprint;
    wrong.bytes[31] ^= 0x80;
    dtls_pair_init(&pair, 9, clean);
    dtls_pair_start(&pair, &fx.ctx_a, &fx.ctx_b, &fx.id_b.fingerprint, &wrong);
    assert_true(dtls_pair_run(&pair, pair.now + 60000, connected_or_failed));
    assert_true(pair.end[1].failed);
    assert_int_equal(pair.end[1].failure, DTLS_FAIL_FINGERPRINT);
    dtls_pair_run(&pair, pair.now + 60000, NULL);
    assert_false(pair.end[0].connected && pair.end[1].connected);
    dtls_pair_free(&pair);
}

static void server_rejects_client_without_certificate(void **state)
{
    (void)state;
    /* A client config with no certificate at all: what a non-WebRTC peer could do. */
    static dtls_context_t bare;
    bare = fx.ctx_a;
    mbedtls_ssl_config_init(&bare.client);
    assert_int_equal(mbedtls_ssl_config_defaults(&bare.client, MBEDTLS_SSL_IS_CLIENT,
                                                 MBEDTLS_SSL_TRANSPORT_DATAGRAM,
                                                 MBEDTLS_SSL_PRESET_DEFAULT),
                     0);
    dtls_mbedtls_conf_rng(&bare.client, &fx.rand);
    mbedtls_ssl_conf_authmode(&bare.client, MBEDTLS_SSL_VERIFY_OPTIONAL);
    dtls_pair_init(&pair, 10, clean);
    dtls_pair_start(&pair, &bare, &fx.ctx_b, &fx.id_b.fingerprint, &fx.id_a.fingerprint);
    assert_true(dtls_pair_run(&pair, pair.now + 60000, connected_or_failed));
    assert_true(pair.end[1].failed);
    assert_int_equal(pair.end[1].failure, DTLS_FAIL_NO_CERTIFICATE);
    assert_false(pair.end[1].connected);
    dtls_pair_run(&pair, pair.now + 1000, NULL);
    assert_true(pair.end[0].failed); /* the bad_certificate alert reached the client */
    assert_int_equal(pair.end[0].failure, DTLS_FAIL_ALERT);
    dtls_pair_free(&pair);
    mbedtls_ssl_config_free(&bare.client);
}

static void inject(int to_side, const uint8_t *data, size_t len)
{
    simnet_send(&pair.net, pair.now, &pair.end[1 - to_side].addr, &pair.end[to_side].addr, data,
                len);
}

static void garbage_mid_session_is_dropped_and_counted(void **state)
{
    (void)state;
    start(11, clean);
    assert_true(dtls_pair_run(&pair, pair.now + 5000, connected_or_failed));
    exchange(3, 100);
    /* Not a record at all, a truncated header, and a well-formed record with a forged body. */
    uint8_t junk[64];
    memset(junk, 0xEE, sizeof junk);
    inject(1, junk, sizeof junk);
    const uint8_t truncated[] = {23, 254, 253, 0, 1};
    inject(1, truncated, sizeof truncated);
    uint8_t forged[13 + 40] = {23, 254, 253, 0, 1, 0, 0, 0, 0, 0, 99, 0, 40};
    memset(forged + 13, 0x42, 40);
    inject(1, forged, sizeof forged);
    dtls_pair_run(&pair, pair.now + 100, NULL);
    const dtls_stats_t *st = dtls_stats(&pair.end[1].conn);
    assert_int_equal(st->rx_dropped, 2);
    assert_int_equal(st->rx_discarded, 1);
    assert_int_equal(dtls_state(&pair.end[1].conn), DTLS_STATE_CONNECTED);
    exchange(3, 100); /* still works, and nothing forged was delivered */
    dtls_pair_free(&pair);
}

/* RFC 6347 §4.1.2.7: invalid records are discarded. What an earlier connection between the
 * same addresses left in flight (its last application data, its close_notify) reaches a
 * server that waits for a ClientHello: it is counted and the handshake goes on. */
static void records_before_the_client_hello_leave_the_server_waiting(void **state)
{
    (void)state;
    start(12, clean);
    pair.end[0].mute = true; /* the client's first ClientHello is lost */
    uint8_t stale_data[13 + 40] = {23, 254, 253, 0, 1, 0, 0, 0, 0, 0, 7, 0, 40};
    memset(stale_data + 13, 0x42, 40);
    inject(1, stale_data, sizeof stale_data);
    const uint8_t stale_alert[13 + 26] = {21, 254, 253, 0, 1, 0, 0, 0, 0, 0, 8, 0, 26};
    inject(1, stale_alert, sizeof stale_alert);
    dtls_pair_run(&pair, pair.now + 100, NULL);
    assert_int_equal(dtls_stats(&pair.end[1].conn)->rx_discarded, 2);
    assert_int_equal(dtls_state(&pair.end[1].conn), DTLS_STATE_HANDSHAKE);
    pair.end[0].mute = false; /* its retransmission gets through */
    assert_true(dtls_pair_run(&pair, pair.now + 5000, connected_or_failed));
    assert_true(dtls_pair_both_connected(&pair));
    exchange(3, 100);
    dtls_pair_free(&pair);
}

static void close_from_client_reaches_server(void **state)
{
    (void)state;
    start(12, clean);
    assert_true(dtls_pair_run(&pair, pair.now + 5000, connected_or_failed));
    dtls_close(&pair.end[0].conn, pair.now);
    const uint8_t *data;
    size_t len;
    assert_true(dtls_poll_transmit(&pair.end[0].conn, &data, &len));
    simnet_send(&pair.net, pair.now, &pair.end[0].addr, &pair.end[1].addr, data, len);
    dtls_pair_run(&pair, pair.now + 100, NULL);
    assert_true(pair.end[1].closed);
    assert_int_equal(dtls_state(&pair.end[1].conn), DTLS_STATE_CLOSED);
    assert_int_equal(dtls_write(&pair.end[1].conn, pair.now, data, 1), ZQ_ERR_STATE);
    dtls_pair_free(&pair);
}

static bool client_connected(dtls_pair_t *p)
{
    return p->end[0].connected;
}

/* DTLS_EVENT_QUEUE holds a connection's every event: CONNECTED, then CLOSED (or FAILED), and
 * nothing after, here with the server polling none and garbage arriving after the close. */
static void a_connection_queues_its_two_events_and_its_queue_refuses_none(void **state)
{
    (void)state;
    start(14, clean);
    pair.end[1].not_polling = true;
    assert_true(dtls_pair_run(&pair, pair.now + 5000, client_connected));
    dtls_close(&pair.end[0].conn, pair.now);
    const uint8_t *data;
    size_t len;
    assert_true(dtls_poll_transmit(&pair.end[0].conn, &data, &len));
    simnet_send(&pair.net, pair.now, &pair.end[0].addr, &pair.end[1].addr, data, len);
    uint8_t junk[64];
    memset(junk, 0xEE, sizeof junk);
    inject(1, junk, sizeof junk);
    dtls_pair_run(&pair, pair.now + 100, NULL);

    dtls_t *server = &pair.end[1].conn;
    assert_int_equal(dtls_events_refused(server), 0);
    dtls_event_t ev;
    assert_true(dtls_poll_event(server, &ev));
    assert_int_equal(ev.type, DTLS_EVENT_CONNECTED);
    assert_true(dtls_poll_event(server, &ev));
    assert_int_equal(ev.type, DTLS_EVENT_CLOSED);
    assert_false(dtls_poll_event(server, &ev));
    dtls_pair_free(&pair);
}

static void close_from_server_reaches_client(void **state)
{
    (void)state;
    start(13, clean);
    assert_true(dtls_pair_run(&pair, pair.now + 5000, connected_or_failed));
    dtls_close(&pair.end[1].conn, pair.now);
    const uint8_t *data;
    size_t len;
    assert_true(dtls_poll_transmit(&pair.end[1].conn, &data, &len));
    simnet_send(&pair.net, pair.now, &pair.end[1].addr, &pair.end[0].addr, data, len);
    dtls_pair_run(&pair, pair.now + 100, NULL);
    assert_true(pair.end[0].closed);
    dtls_pair_free(&pair);
}

static void handshake_times_out_when_the_peer_is_silent(void **state)
{
    (void)state;
    start(14, clean);
    pair.end[1].deaf = true;
    uint64_t t0 = pair.now;
    assert_true(dtls_pair_run(&pair, pair.now + 120000, connected_or_failed));
    assert_true(pair.end[0].failed);
    assert_int_equal(pair.end[0].failure, DTLS_FAIL_TIMEOUT);
    /* RFC 6347 §4.2.4.1 doubling from 250 ms: 0.25+0.5+1+2+4+8+16 s, then it gives up. */
    assert_in_range(pair.now - t0, 31750, 32000);
    dtls_pair_free(&pair);
}

/* Counts the client's datagrams that carry a ClientHello fragment, and how many there were. */
typedef struct {
    int hello_records;
    int hello_datagrams;
} hello_count_t;

static bool count_client_hello(void *ctx, uint8_t *data, size_t *len, size_t cap)
{
    hello_count_t *c = ctx;
    (void)cap;
    int in_this = 0;
    for (size_t off = 0; off + 13 + 12 <= *len;) {
        size_t rec_len = (size_t)data[off + 11] << 8 | data[off + 12];
        if (data[off] == 22 && data[off + 3] == 0 && data[off + 4] == 0 && data[off + 13] == 1) {
            in_this++; /* handshake record, epoch 0, msg_type client_hello */
        }
        off += 13 + rec_len;
    }
    c->hello_records += in_this;
    c->hello_datagrams += in_this > 0;
    return true;
}

static void client_hello_fragmented_over_several_records_is_reassembled(void **state)
{
    (void)state;
    /* A client with a tiny MTU splits its ClientHello into fragments, in separate datagrams,
     * as 2026 browsers do with post-quantum key shares (mbedTLS 3.6.6 reassembles them). */
    dtls_config_t small;
    dtls_config_default(&small);
    small.rand = fx.rand;
    small.mtu = 64;
    static dtls_context_t tiny;
    assert_int_equal(dtls_context_init(&tiny, &small, &fx.id_a), ZQ_OK);
    hello_count_t count = {0, 0};
    dtls_pair_init(&pair, 15, clean);
    pair.end[0].tap = count_client_hello;
    pair.end[0].tap_ctx = &count;
    dtls_pair_start(&pair, &tiny, &fx.ctx_b, &fx.id_b.fingerprint, &fx.id_a.fingerprint);
    assert_true(dtls_pair_run(&pair, pair.now + 10000, connected_or_failed));
    assert_true(dtls_pair_both_connected(&pair));
    /* Both ClientHellos (before and after HelloVerifyRequest) came in several fragments. */
    assert_true(count.hello_records >= 4);
    assert_true(count.hello_datagrams >= 4);
    printf("    ClientHello fragments: %d records in %d datagrams\n", count.hello_records,
           count.hello_datagrams);
    exchange(3, 20); /* a 64-byte MTU leaves 27 bytes of payload */
    dtls_pair_free(&pair);
    dtls_context_free(&tiny);
}

/* ---- use_srtp (RFC 5764 §4.1.1) --------------------------------------------------------- */

enum { HS_CLIENT_HELLO = 1, HS_SERVER_HELLO = 2, EXT_USE_SRTP = 14 };

/* The use_srtp extension seen in the hellos a tap watched: 0 when absent, else its profiles. */
typedef struct {
    uint8_t msg_type; /* the hello to look for */
    int hellos;       /* how many were seen */
    int with_use_srtp;
    uint16_t profiles[4];
    size_t n_profiles;
    uint8_t mki_len;
} srtp_seen_t;

/* Skips an 8-bit or 16-bit length-prefixed vector; false past @p end. */
static bool skip_vector(const uint8_t **q, const uint8_t *end, int len_bytes)
{
    if (*q + len_bytes > end) {
        return false;
    }
    size_t n = len_bytes == 1 ? (*q)[0] : (size_t)((*q)[0] << 8 | (*q)[1]);
    *q += len_bytes + n;
    return *q <= end;
}

/* Reads use_srtp out of one unfragmented hello body (RFC 5246 §7.4.1.2 and §7.4.1.3; DTLS
 * adds the cookie to the ClientHello, RFC 6347 §4.2.1). */
static void read_hello(srtp_seen_t *s, const uint8_t *q, const uint8_t *end)
{
    q += 2 + 32; /* client_version or server_version, random */
    if (!skip_vector(&q, end, 1)) { /* session_id */
        return;
    }
    if (s->msg_type == HS_CLIENT_HELLO) {
        if (!skip_vector(&q, end, 1) || !skip_vector(&q, end, 2) || !skip_vector(&q, end, 1)) {
            return; /* cookie, cipher_suites, compression_methods */
        }
    } else {
        q += 2 + 1; /* cipher_suite, compression_method */
    }
    s->hellos++;
    if (q + 2 > end) {
        return;
    }
    const uint8_t *ext_end = q + 2 + (q[0] << 8 | q[1]);
    for (q += 2; q + 4 <= ext_end && ext_end <= end;) {
        unsigned type = (unsigned)(q[0] << 8 | q[1]);
        size_t len = (size_t)(q[2] << 8 | q[3]);
        const uint8_t *body = q + 4;
        q = body + len;
        if (type != EXT_USE_SRTP || len < 3) {
            continue;
        }
        /* RFC 5764 §4.1.1: SRTPProtectionProfiles<2..2^16-1> then srtp_mki<0..255>. */
        size_t plen = (size_t)(body[0] << 8 | body[1]);
        s->with_use_srtp++;
        s->n_profiles = 0;
        for (size_t i = 0; i + 1 < plen && 2 + i + 1 < len && s->n_profiles < 4; i += 2) {
            s->profiles[s->n_profiles++] = (uint16_t)(body[2 + i] << 8 | body[3 + i]);
        }
        s->mki_len = 2 + plen < len ? body[2 + plen] : 0xFF;
    }
}

static bool watch_use_srtp(void *ctx, uint8_t *data, size_t *len, size_t cap)
{
    srtp_seen_t *s = ctx;
    (void)cap;
    for (size_t off = 0; off + 13 + 12 <= *len;) {
        size_t rec_len = (size_t)data[off + 11] << 8 | data[off + 12];
        const uint8_t *hs = data + off + 13;
        size_t hs_len = (size_t)hs[1] << 16 | (size_t)hs[2] << 8 | hs[3];
        size_t frag_len = (size_t)hs[9] << 16 | (size_t)hs[10] << 8 | hs[11];
        /* A handshake record of epoch 0 holding the whole hello. */
        if (data[off] == 22 && data[off + 3] == 0 && data[off + 4] == 0 &&
            hs[0] == s->msg_type && frag_len == hs_len && off + 13 + 12 + hs_len <= *len) {
            read_hello(s, hs + 12, hs + 12 + hs_len);
        }
        off += 13 + rec_len;
    }
    return true;
}

/* RFC 5764 §4.1.1: a client offers use_srtp with its profiles, and a server willing to use it
 * answers with one of them. RFC 8827 §6.5 makes DTLS-SRTP mandatory for WebRTC endpoints, and
 * Pion 3.1.56 as client aborts (insufficient_security) on a ServerHello without use_srtp, data
 * channels only or not (tests/interop/pion/README.md). */
static void use_srtp_is_offered_and_answered(void **state)
{
    (void)state;
    srtp_seen_t client = {.msg_type = HS_CLIENT_HELLO};
    srtp_seen_t server = {.msg_type = HS_SERVER_HELLO};
    dtls_pair_init(&pair, 16, clean);
    pair.end[0].tap = watch_use_srtp;
    pair.end[0].tap_ctx = &client;
    pair.end[1].tap = watch_use_srtp;
    pair.end[1].tap_ctx = &server;
    dtls_pair_start(&pair, &fx.ctx_a, &fx.ctx_b, &fx.id_b.fingerprint, &fx.id_a.fingerprint);
    assert_true(dtls_pair_run(&pair, pair.now + 5000, connected_or_failed));
    assert_true(dtls_pair_both_connected(&pair));
    /* Both ClientHellos (before and after HelloVerifyRequest) offer it. */
    assert_int_equal(client.hellos, 2);
    assert_int_equal(client.with_use_srtp, 2);
    assert_int_equal(client.n_profiles, 1);
    assert_int_equal(client.profiles[0], 0x0001); /* SRTP_AES128_CM_HMAC_SHA1_80 */
    assert_int_equal(client.mki_len, 0);
    assert_int_equal(server.hellos, 1);
    assert_int_equal(server.with_use_srtp, 1);
    assert_int_equal(server.n_profiles, 1);
    assert_int_equal(server.profiles[0], 0x0001);
    assert_int_equal(server.mki_len, 0);
    dtls_pair_free(&pair);
}

static void keylog_lines_match_on_both_sides(void **state);

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handshake_completes_and_data_flows_both_ways),
        cmocka_unit_test(roles_swap_with_the_other_identity),
        cmocka_unit_test(largest_payload_fits_one_datagram_and_one_more_byte_is_refused),
        cmocka_unit_test(handshake_survives_loss_reordering_and_duplication),
        cmocka_unit_test(duplicated_records_are_delivered_once),
        cmocka_unit_test(client_rejects_server_with_wrong_fingerprint),
        cmocka_unit_test(server_rejects_client_with_wrong_fingerprint),
        cmocka_unit_test(server_rejects_client_without_certificate),
        cmocka_unit_test(garbage_mid_session_is_dropped_and_counted),
        cmocka_unit_test(records_before_the_client_hello_leave_the_server_waiting),
        cmocka_unit_test(close_from_client_reaches_server),
        cmocka_unit_test(close_from_server_reaches_client),
        cmocka_unit_test(a_connection_queues_its_two_events_and_its_queue_refuses_none),
        cmocka_unit_test(handshake_times_out_when_the_peer_is_silent),
        cmocka_unit_test(client_hello_fragmented_over_several_records_is_reassembled),
        cmocka_unit_test(keylog_lines_match_on_both_sides),
        cmocka_unit_test(use_srtp_is_offered_and_answered),
    };
    return cmocka_run_group_tests(tests, dtls_fixture_group_setup, dtls_fixture_group_teardown);
}

/* ---- Key log --------------------------------------------------------------------------- */

typedef struct {
    char line[256];
    int count;
} keylog_capture_t;

static void capture_keylog(void *ctx, const char *line)
{
    keylog_capture_t *c = ctx;
    snprintf(c->line, sizeof c->line, "%s", line);
    c->count++;
}

static void keylog_lines_match_on_both_sides(void **state)
{
    (void)state;
    static keylog_capture_t logs[2];
    static dtls_context_t with_log[2];
    for (int i = 0; i < 2; i++) {
        dtls_config_t cfg;
        dtls_config_default(&cfg);
        cfg.rand = fx.rand;
        cfg.keylog = capture_keylog;
        cfg.keylog_ctx = &logs[i];
        assert_int_equal(dtls_context_init(&with_log[i], &cfg, i == 0 ? &fx.id_a : &fx.id_b),
                         ZQ_OK);
    }
    dtls_pair_init(&pair, 16, clean);
    dtls_pair_start(&pair, &with_log[0], &with_log[1], &fx.id_b.fingerprint,
                    &fx.id_a.fingerprint);
    assert_true(dtls_pair_run(&pair, pair.now + 5000, connected_or_failed));
    assert_true(dtls_pair_both_connected(&pair));
    assert_int_equal(logs[0].count, 1);
    assert_int_equal(logs[1].count, 1);
    assert_string_equal(logs[0].line, logs[1].line);
    /* "CLIENT_RANDOM " + 64 hex + " " + 96 hex: the NSS key log format. */
    assert_int_equal(strlen(logs[0].line), 14 + 64 + 1 + 96);
    assert_memory_equal(logs[0].line, "CLIENT_RANDOM ", 14);
    dtls_pair_free(&pair);
    dtls_context_free(&with_log[0]);
    dtls_context_free(&with_log[1]);
}

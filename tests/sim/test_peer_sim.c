/* Two zq peer connections over a simulated network: offer/answer in both directions, ICE
 * (lite device against a full agent, and full against full), DTLS, SCTP and a data channel;
 * 10,000 messages, then close. The SDP goes through its text form, as signalling carries it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dtls_pair.h"
#include "simnet.h"
#include "stack/peer/peer.h"
#include "zq/crypto.h"

typedef struct {
    peer_t pc;
    zq_addr_t addr;
    zq_addr_t addr2;        /* a second host candidate, when family is not ZQ_AF_NONE */
    bool connected, failed, closed;
    int channels_open, channels_closed;
    uint16_t channel;
    unsigned long messages;
    uint32_t crc;
    peer_failure_t failure;
    bool not_reading;       /* the application does not call peer_read() */
    bool not_polling;       /* the application does not call peer_poll_event() */
    bool greet_on_open;     /* sends "hello" the moment a channel opens */
    bool read_before_open;  /* a message was read on a channel not yet reported open */
    /* DTLS records it sent (RFC 7983 §7: first byte 20-63) */
    unsigned long dtls_sent;
    bool first_dtls_before_selection; /* its first record left before ICE selected a pair */
    zq_addr_t first_dtls_from, last_dtls_from;
} side_t;

static side_t sides[2];
static simnet_t net;
static uint64_t now;
static zq_addr_t drop_first_from; /* the first datagram sent from here is lost */

static void note_dtls(side_t *s, const peer_transmit_t *tx)
{
    if (tx->len == 0 || tx->data[0] < 20 || tx->data[0] > 63) {
        return;
    }
    if (s->dtls_sent++ == 0) {
        s->first_dtls_before_selection = ice_agent_state(&s->pc.ice) == ICE_STATE_CHECKING;
        s->first_dtls_from = tx->local;
    }
    s->last_dtls_from = tx->local;
}

/* Events, then messages, then output: what the application sends in answer to an event goes
 * in the same packet as what the stack had queued (a DCEP ACK and a greeting). */
static void pump(int i)
{
    side_t *s = &sides[i];
    peer_transmit_t tx;
    peer_event_t ev;
    while (!s->not_polling && peer_poll_event(&s->pc, &ev)) {
        switch (ev.type) {
        case PEER_EVENT_CONNECTED:
            s->connected = true;
            break;
        case PEER_EVENT_CHANNEL_OPEN:
            s->channels_open++;
            s->channel = ev.channel;
            if (s->greet_on_open) {
                assert_int_equal(peer_send(&s->pc, now, ev.channel, (const uint8_t *)"hello", 5,
                                           false),
                                 ZQ_OK);
            }
            break;
        case PEER_EVENT_CHANNEL_CLOSED:
            s->channels_closed++;
            break;
        case PEER_EVENT_FAILED:
            s->failed = true;
            s->failure = ev.failure;
            break;
        case PEER_EVENT_CLOSED:
            s->closed = true;
            break;
        default:
            break;
        }
    }
    dc_message_t m;
    while (!s->not_reading && peer_read(&s->pc, now, &m)) {
        s->read_before_open |= s->channels_open == 0;
        s->crc = zq_crc32_update(s->crc, m.data, m.len);
        s->messages += m.last;
    }
    while (peer_poll_transmit(&s->pc, now, &tx)) {
        note_dtls(s, &tx);
        if (drop_first_from.family != ZQ_AF_NONE && zq_addr_equal(&tx.local, &drop_first_from)) {
            drop_first_from.family = ZQ_AF_NONE;
            continue;
        }
        simnet_send(&net, now, &tx.local, &tx.remote, tx.data, tx.len);
    }
}

static int side_at(const zq_addr_t *addr)
{
    return zq_addr_equal(addr, &sides[1].addr) || zq_addr_equal(addr, &sides[1].addr2) ? 1 : 0;
}

static bool run(uint64_t until, bool (*done)(void))
{
    while (!(done != NULL && done())) {
        uint64_t t = simnet_next_delivery(&net);
        for (int i = 0; i < 2; i++) {
            t = zq_time_min(t, peer_next_timeout(&sides[i].pc));
        }
        if (t > until) {
            now = until;
            return done != NULL && done();
        }
        now = t > now ? t : now;
        simnet_packet_t pkt;
        while (simnet_receive(&net, now, &pkt)) {
            int i = side_at(&pkt.to);
            (void)peer_handle_datagram(&sides[i].pc, now, &pkt.to, &pkt.from, pkt.data, pkt.len);
            pump(i);
        }
        for (int i = 0; i < 2; i++) {
            if (peer_next_timeout(&sides[i].pc) <= now) {
                peer_handle_timeout(&sides[i].pc, now);
                pump(i);
            }
        }
    }
    return true;
}

static bool both_connected(void)
{
    return (sides[0].connected && sides[1].connected) || sides[0].failed || sides[1].failed;
}

/* The previous test's peers freed (peer_free() takes a zeroed peer too): their DTLS state
 * goes back to the arena, and on mbedTLS 4 their PSA key slots too. */
static void release_sides(void)
{
    peer_free(&sides[0].pc);
    peer_free(&sides[1].pc);
    memset(sides, 0, sizeof sides);
}

/* A fresh pair of peers on a fresh network; ICE lite or full for each. */
static void init_sides(uint64_t seed, simnet_impairment_t impair, ice_mode_t mode0,
                       ice_mode_t mode1, uint32_t nomination_wait_ms)
{
    release_sides();
    drop_first_from.family = ZQ_AF_NONE;
    simnet_init(&net, seed, impair);
    now = 1000;
    for (int i = 0; i < 2; i++) {
        peer_config_t cfg;
        peer_config_default(&cfg, &fx.rand, i == 0 ? &fx.ctx_a : &fx.ctx_b);
        ice_config_default(&cfg.ice, i == 0 ? mode0 : mode1);
        cfg.ice.rand = fx.rand;
        cfg.ice.nomination_wait_ms = nomination_wait_ms;
        assert_int_equal(peer_init(&sides[i].pc, &cfg), ZQ_OK);
        sides[i].addr = zq_addr_v4(10, 0, 0, (uint8_t)(i + 1), (uint16_t)(5000 + i));
        assert_int_equal(peer_add_host_candidate(&sides[i].pc, now, &sides[i].addr), ZQ_OK);
        pump(i);
    }
}

/* Side 0 offers, side 1 answers, through the SDP's text. */
static void offer_and_answer(void)
{
    static char offer[PEER_SDP_MAX], answer[PEER_SDP_MAX];
    size_t offer_len, answer_len;
    const char *reason = NULL;
    assert_int_equal(peer_create_offer(&sides[0].pc, now, offer, sizeof offer, &offer_len), ZQ_OK);
    assert_non_null(strstr(offer, "a=setup:actpass"));
    assert_int_equal(
        peer_set_remote_description(&sides[1].pc, now, offer, offer_len, &reason), ZQ_OK);
    assert_int_equal(peer_create_answer(&sides[1].pc, now, answer, sizeof answer, &answer_len),
                     ZQ_OK);
    assert_int_equal(
        peer_set_remote_description(&sides[0].pc, now, answer, answer_len, &reason), ZQ_OK);
    /* RFC 8829 §5.3.1: zq answers an actpass offer as DTLS client */
    assert_non_null(strstr(answer, "a=setup:active"));
    assert_true(sides[0].pc.dtls_role == DTLS_ROLE_SERVER);
    assert_true(sides[1].pc.dtls_role == DTLS_ROLE_CLIENT);
    pump(0);
    pump(1);
}

/* Side 0 offers, side 1 answers; @p mode0/@p mode1 choose lite or full ICE. */
static void connect(uint64_t seed, simnet_impairment_t impair, ice_mode_t mode0,
                    ice_mode_t mode1)
{
    init_sides(seed, impair, mode0, mode1, 200);
    offer_and_answer();
    assert_true(run(now + 30000, both_connected));
    assert_true(sides[0].connected && sides[1].connected);
}

static bool channel_ready(void)
{
    return sides[0].channels_open == 1 && sides[1].channels_open == 1;
}

static void exchange_10000(void)
{
    uint16_t id;
    assert_int_equal(peer_open_channel(&sides[0].pc, now, "default-topic", "", DC_RELIABLE, 0,
                                       &id),
                     ZQ_OK);
    pump(0);
    assert_true(run(now + 10000, channel_ready));
    assert_string_equal(peer_channel(&sides[1].pc, sides[1].channel)->label, "default-topic");
    uint32_t crc = 0;
    char msg[64];
    for (unsigned i = 0; i < 10000;) {
        int n = snprintf(msg, sizeof msg, "{\"seq\":%u}", i);
        zq_err_t err = peer_send(&sides[0].pc, now, id, (const uint8_t *)msg, (size_t)n, false);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            pump(0);
            run(now + 50, NULL);
            continue;
        }
        assert_int_equal(err, ZQ_OK);
        crc = zq_crc32_update(crc, (const uint8_t *)msg, (size_t)n);
        i++;
        if (i % 20 == 0) {
            pump(0);
        }
    }
    pump(0);
    run(now + 20000, NULL);
    assert_int_equal(sides[1].messages, 10000);
    assert_int_equal(sides[1].crc, crc);
}

/* RFC 8832 §6: the channel opens on DATA_CHANNEL_OPEN (answerer) and DATA_CHANNEL_ACK
 * (opener). Both must surface as they arrive: an application reads the channels it knows. */
static void a_channel_is_reported_open_without_the_application_reading(void **state)
{
    (void)state;
    connect(11, (simnet_impairment_t){0}, ICE_MODE_FULL, ICE_MODE_LITE);
    sides[0].not_reading = sides[1].not_reading = true;
    uint16_t id;
    assert_int_equal(peer_open_channel(&sides[0].pc, now, "t", "", DC_RELIABLE, 0, &id), ZQ_OK);
    pump(0);
    assert_true(run(now + 1000, channel_ready));
}

/* RFC 8832 §6: a peer may send on a channel right after its ACK (here in the same packet).
 * The opener reads only once both have arrived: the channel must be known open by then. */
static void a_message_behind_the_ack_is_read_on_an_open_channel(void **state)
{
    (void)state;
    connect(12, (simnet_impairment_t){0}, ICE_MODE_FULL, ICE_MODE_LITE);
    sides[1].greet_on_open = true;
    sides[0].not_reading = true;
    uint16_t id;
    assert_int_equal(peer_open_channel(&sides[0].pc, now, "t", "", DC_RELIABLE, 0, &id), ZQ_OK);
    pump(0);
    run(now + 200, NULL);
    sides[0].not_reading = false;
    pump(0);
    assert_int_equal(sides[0].messages, 1);
    assert_false(sides[0].read_before_open);
}

static bool both_closed(void)
{
    return sides[0].channels_closed == 1 && sides[1].channels_closed == 1;
}

static void close_channel(void)
{
    assert_int_equal(peer_close_channel(&sides[0].pc, now, sides[0].channel), ZQ_OK);
    pump(0);
    assert_true(run(now + 10000, both_closed));
}

static void full_agent_offers_to_lite_device_and_10000_messages_flow(void **state)
{
    (void)state;
    connect(1, (simnet_impairment_t){0, 0, 5, 0}, ICE_MODE_FULL, ICE_MODE_LITE);
    exchange_10000();
    close_channel();
}

static void lite_device_offers_to_full_agent(void **state)
{
    (void)state;
    connect(2, (simnet_impairment_t){0, 0, 5, 0}, ICE_MODE_LITE, ICE_MODE_FULL);
    exchange_10000();
    close_channel();
}

static void full_agents_connect_through_loss(void **state)
{
    (void)state;
    connect(3, (simnet_impairment_t){10, 2, 20, 5}, ICE_MODE_FULL, ICE_MODE_FULL);
    exchange_10000();
}

static bool someone_closed(void)
{
    return sides[1].closed || sides[1].failed;
}

static void closing_the_connection_reaches_the_peer(void **state)
{
    (void)state;
    connect(4, (simnet_impairment_t){0, 0, 5, 0}, ICE_MODE_FULL, ICE_MODE_LITE);
    peer_close(&sides[0].pc, now);
    pump(0);
    assert_true(run(now + 10000, someone_closed));
}

static void answer_with_a_wrong_fingerprint_fails_dtls(void **state)
{
    (void)state;
    release_sides();
    simnet_init(&net, 5, (simnet_impairment_t){0, 0, 5, 0});
    now = 1000;
    for (int i = 0; i < 2; i++) {
        peer_config_t cfg;
        peer_config_default(&cfg, &fx.rand, i == 0 ? &fx.ctx_a : &fx.ctx_b);
        ice_config_default(&cfg.ice, i == 0 ? ICE_MODE_FULL : ICE_MODE_LITE);
        cfg.ice.rand = fx.rand;
        assert_int_equal(peer_init(&sides[i].pc, &cfg), ZQ_OK);
        sides[i].addr = zq_addr_v4(10, 0, 0, (uint8_t)(i + 1), (uint16_t)(5000 + i));
        peer_add_host_candidate(&sides[i].pc, now, &sides[i].addr);
    }
    static char offer[PEER_SDP_MAX], answer[PEER_SDP_MAX];
    size_t offer_len, answer_len;
    const char *reason = NULL;
    peer_create_offer(&sides[0].pc, now, offer, sizeof offer, &offer_len);
    peer_set_remote_description(&sides[1].pc, now, offer, offer_len, &reason);
    peer_create_answer(&sides[1].pc, now, answer, sizeof answer, &answer_len);
    char *fp = strstr(answer, "a=fingerprint:sha-256 ");
    assert_non_null(fp);
    fp[22] = fp[22] == 'A' ? 'B' : 'A'; /* a man in the middle's certificate */
    assert_int_equal(peer_set_remote_description(&sides[0].pc, now, answer, answer_len, &reason),
                     ZQ_OK);
    pump(0);
    pump(1);
    run(now + 60000, both_connected);
    assert_true(sides[0].failed);
    assert_int_equal(sides[0].failure, PEER_FAIL_DTLS);
    assert_false(sides[0].connected);
}

static bool both_selected(void)
{
    zq_addr_t l, r;
    return ice_agent_selected_pair(&sides[0].pc.ice, &l, &r) &&
           ice_agent_selected_pair(&sides[1].pc.ice, &l, &r);
}

/* RFC 8445 §12.1: a full agent may send data on a valid pair before selection. The full
 * answerer (DTLS client, as a browser answering a lite device) sends its ClientHello once its
 * first check succeeds, not one Ta later after the nominating check; the lite offerer, DTLS
 * server, takes it from the address it offered (§12.2). */
static void a_full_dtls_client_starts_dtls_on_its_first_valid_pair(void **state)
{
    (void)state;
    connect(21, (simnet_impairment_t){0, 0, 5, 0}, ICE_MODE_LITE, ICE_MODE_FULL);
    assert_true(sides[1].first_dtls_before_selection);
    assert_true(run(now + 5000, both_selected)); /* nomination still happens */
    assert_true(zq_addr_equal(&sides[1].last_dtls_from, &sides[1].addr));
}

/* RFC 8445 §12.1.1: a lite agent "MUST NOT send data until it has a valid list", which only a
 * nomination fills (§7.3.2). The lite answerer is DTLS client: its ClientHello waits for the
 * full offerer's USE-CANDIDATE check. */
static void a_lite_dtls_client_waits_for_its_nomination(void **state)
{
    (void)state;
    connect(22, (simnet_impairment_t){0, 0, 5, 0}, ICE_MODE_FULL, ICE_MODE_LITE);
    assert_false(sides[1].first_dtls_before_selection);
}

/* RFC 8445 §12.1: "Once selected pairs have been produced ... an agent MUST send data on
 * those pairs only." The full answerer has two hosts; the check from the better one is lost,
 * so DTLS starts on the other, the first valid pair. The better pair's retransmitted check
 * then succeeds within the nomination wait, is nominated, and DTLS (and SCTP in it) moves
 * there. */
static void dtls_moves_to_the_selected_pair_when_another_was_valid_first(void **state)
{
    (void)state;
    init_sides(23, (simnet_impairment_t){0, 0, 5, 0}, ICE_MODE_LITE, ICE_MODE_FULL, 2000);
    sides[1].addr2 = zq_addr_v4(10, 0, 0, 3, 5002); /* another IP: another foundation */
    assert_int_equal(peer_add_host_candidate(&sides[1].pc, now, &sides[1].addr2), ZQ_OK);
    drop_first_from = sides[1].addr; /* the first host's first check */
    offer_and_answer();
    assert_true(run(now + 30000, both_connected));
    assert_true(sides[0].connected && sides[1].connected);
    assert_true(zq_addr_equal(&sides[1].first_dtls_from, &sides[1].addr2));
    assert_true(run(now + 5000, both_selected));
    zq_addr_t l, r;
    assert_true(ice_agent_selected_pair(&sides[1].pc.ice, &l, &r));
    assert_true(zq_addr_equal(&l, &sides[1].addr));
    exchange_10000();
    assert_true(zq_addr_equal(&sides[1].last_dtls_from, &sides[1].addr));
    assert_true(zq_addr_equal(&sides[0].pc.path_remote, &sides[1].addr));
}

static void garbage_offer_is_refused_with_a_reason(void **state)
{
    (void)state;
    peer_config_t cfg;
    peer_config_default(&cfg, &fx.rand, &fx.ctx_a);
    static peer_t pc;
    assert_int_equal(peer_init(&pc, &cfg), ZQ_OK);
    const char *reason = NULL;
    static const char junk[] = "v=0\r\nthis is not sdp\r\n";
    assert_int_not_equal(peer_set_remote_description(&pc, 0, junk, sizeof junk - 1, &reason),
                         ZQ_OK);
    assert_non_null(reason);
    printf("    refused: %s\n", reason);
}

static void unanswered_offer_fails_after_the_connect_timeout(void **state)
{
    (void)state;
    release_sides();
    simnet_init(&net, 6, (simnet_impairment_t){0, 0, 5, 0});
    now = 1000;
    peer_config_t cfg;
    peer_config_default(&cfg, &fx.rand, &fx.ctx_a);
    ice_config_default(&cfg.ice, ICE_MODE_FULL);
    cfg.ice.rand = fx.rand;
    assert_int_equal(peer_init(&sides[0].pc, &cfg), ZQ_OK);
    sides[0].addr = zq_addr_v4(10, 0, 0, 1, 5000);
    peer_add_host_candidate(&sides[0].pc, now, &sides[0].addr);
    static char offer[PEER_SDP_MAX];
    size_t offer_len;
    assert_int_equal(peer_create_offer(&sides[0].pc, now, offer, sizeof offer, &offer_len), ZQ_OK);
    uint64_t sent_at = now;
    pump(0);
    assert_true(peer_next_timeout(&sides[0].pc) <= sent_at + ZQ_PEER_CONNECT_TIMEOUT_MS);
    while (!sides[0].failed && now < sent_at + 2 * ZQ_PEER_CONNECT_TIMEOUT_MS) {
        now = peer_next_timeout(&sides[0].pc);
        peer_handle_timeout(&sides[0].pc, now);
        pump(0);
    }
    assert_true(sides[0].failed);
    assert_int_equal(sides[0].failure, PEER_FAIL_TIMEOUT);
    assert_int_equal(now, sent_at + ZQ_PEER_CONNECT_TIMEOUT_MS);
    assert_int_equal(peer_state(&sides[0].pc), PEER_STATE_FAILED);
}

/* Opens ZQ_DC_MAX_CHANNELS channels from side 0, or closes them. */
static void open_or_close_every_channel(bool open, uint16_t ids[ZQ_DC_MAX_CHANNELS])
{
    for (int c = 0; c < ZQ_DC_MAX_CHANNELS; c++) {
        zq_err_t err = open ? peer_open_channel(&sides[0].pc, now, "t", "", DC_RELIABLE, 0, &ids[c])
                            : peer_close_channel(&sides[0].pc, now, ids[c]);
        assert_int_equal(err, ZQ_OK);
    }
    pump(0);
    run(now + 2000, NULL);
}

/* Side 1 polls no event while side 0 opens every channel (side 1 hears each open, then its
 * DCEP ACK's buffered amount falling to zero) and closes them; then side 1 gathers a candidate
 * on a full queue. Its line used to be written into the newest queued event when its own push
 * was refused. */
static void a_full_event_queue_counts_the_refused_events_and_keeps_the_queued_ones(void **state)
{
    (void)state;
    connect(17, (simnet_impairment_t){0}, ICE_MODE_FULL, ICE_MODE_LITE);
    sides[0].not_reading = sides[1].not_reading = true;
    sides[1].not_polling = true;
    uint16_t ids[ZQ_DC_MAX_CHANNELS];
    open_or_close_every_channel(true, ids);
    open_or_close_every_channel(false, ids);
    zq_addr_t later = zq_addr_v4(10, 0, 0, 9, 5009);
    assert_int_equal(peer_add_host_candidate(&sides[1].pc, now, &later), ZQ_OK);

    peer_t *pc = &sides[1].pc;
    const int pushed = 3 * ZQ_DC_MAX_CHANNELS + 1;
    assert_int_equal(peer_events_refused(pc), pushed - ZQ_PEER_EVENT_QUEUE);
    static const peer_event_type_t in_order[] = {
        PEER_EVENT_CHANNEL_OPEN, PEER_EVENT_BUFFERED_LOW, PEER_EVENT_CHANNEL_CLOSED};
    peer_event_t ev;
    for (int i = 0; i < ZQ_PEER_EVENT_QUEUE; i++) {
        assert_true(peer_poll_event(pc, &ev));
        assert_int_equal(ev.type, in_order[i / ZQ_DC_MAX_CHANNELS]);
        assert_int_equal(ev.channel, ids[i % ZQ_DC_MAX_CHANNELS]);
        assert_string_equal(ev.candidate, "");
    }
    assert_false(peer_poll_event(pc, &ev));
}

/* The candidate's line is written from ICE's list when the event is polled. */
static void a_local_candidate_event_carries_its_line(void **state)
{
    (void)state;
    connect(18, (simnet_impairment_t){0}, ICE_MODE_FULL, ICE_MODE_LITE);
    sides[1].not_polling = true;
    zq_addr_t later = zq_addr_v4(10, 0, 0, 9, 5009);
    assert_int_equal(peer_add_host_candidate(&sides[1].pc, now, &later), ZQ_OK);
    peer_event_t ev;
    assert_true(peer_poll_event(&sides[1].pc, &ev));
    assert_int_equal(ev.type, PEER_EVENT_LOCAL_CANDIDATE);
    ice_candidate_t c;
    assert_int_equal(ice_candidate_parse(ev.candidate, strlen(ev.candidate), &c), ZQ_OK);
    assert_true(zq_addr_equal(&c.addr, &later));
    assert_int_equal(c.type, ICE_CAND_HOST);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(full_agent_offers_to_lite_device_and_10000_messages_flow),
        cmocka_unit_test(lite_device_offers_to_full_agent),
        cmocka_unit_test(full_agents_connect_through_loss),
        cmocka_unit_test(a_channel_is_reported_open_without_the_application_reading),
        cmocka_unit_test(a_message_behind_the_ack_is_read_on_an_open_channel),
        cmocka_unit_test(closing_the_connection_reaches_the_peer),
        cmocka_unit_test(answer_with_a_wrong_fingerprint_fails_dtls),
        cmocka_unit_test(a_full_dtls_client_starts_dtls_on_its_first_valid_pair),
        cmocka_unit_test(a_lite_dtls_client_waits_for_its_nomination),
        cmocka_unit_test(dtls_moves_to_the_selected_pair_when_another_was_valid_first),
        cmocka_unit_test(garbage_offer_is_refused_with_a_reason),
        cmocka_unit_test(unanswered_offer_fails_after_the_connect_timeout),
        cmocka_unit_test(a_full_event_queue_counts_the_refused_events_and_keeps_the_queued_ones),
        cmocka_unit_test(a_local_candidate_event_carries_its_line),
    };
    return cmocka_run_group_tests(tests, dtls_fixture_group_setup, NULL);
}

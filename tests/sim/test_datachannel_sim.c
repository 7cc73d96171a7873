/* Data channels (RFC 8831, DCEP RFC 8832) between two zq associations over the simulated
 * network: opening from either side and both at once, data before the ACK, text, binary and
 * empty messages, max-message-size both ways, closing by stream reset, every channel type. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sctp_pair.h"
#include "stack/sctp/datachannel.h"
#include "zq/crypto.h"

static sctp_pair_t pair;
static const simnet_impairment_t clean = {0, 0, 5, 0};

/* What one side's application saw. */
typedef struct {
    dc_t dc;
    int opened;
    int closed;
    int buffered_low;
    uint16_t last_open_id;
    uint16_t last_closed_id;
    unsigned long messages;
    unsigned long text, binary, empty, aborted;
    unsigned long read_unopened; /* messages read on a channel not (yet) open */
    size_t last_len;
    uint8_t last_data[64];
    uint32_t crc;
    bool not_polling; /* the application does not call dc_poll_event() */
} app_t;

static app_t apps[2];

static void run_app(sctp_pair_t *p, int side, void *ctx)
{
    app_t *app = ctx;
    sctp_event_t sev;
    while (sctp_poll_event(&p->end[side].assoc, &sev)) {
        if (dc_handle_sctp_event(&app->dc, p->now, &sev)) {
            sctp_pair_log_event(&p->end[side], &sev);
        }
    }
    dc_message_t m;
    while (dc_read(&app->dc, p->now, &m)) {
        const dc_channel_t *ch = dc_channel(&app->dc, m.id);
        app->read_unopened += ch == NULL || ch->state != DC_STATE_OPEN;
        app->crc = zq_crc32_update(app->crc, m.data, m.len);
        app->aborted += m.aborted;
        if (m.last && !m.aborted) {
            app->messages++;
            app->binary += m.binary;
            app->text += !m.binary;
            app->empty += m.first && m.len == 0;
            app->last_len = m.len;
            memcpy(app->last_data, m.data, m.len < sizeof app->last_data ? m.len : 0);
        }
    }
    dc_event_t ev;
    while (!app->not_polling && dc_poll_event(&app->dc, &ev)) {
        if (ev.type == DC_EVENT_OPEN) {
            app->opened++;
            app->last_open_id = ev.id;
        } else if (ev.type == DC_EVENT_CLOSED) {
            app->closed++;
            app->last_closed_id = ev.id;
        } else {
            app->buffered_low++;
        }
    }
}

static bool established(sctp_pair_t *p)
{
    return sctp_pair_established(p);
}

static void start(uint64_t seed, simnet_impairment_t impair, uint32_t max0, uint32_t max1)
{
    memset(apps, 0, sizeof apps);
    sctp_pair_init(&pair, seed, impair, 16384, NULL);
    for (int i = 0; i < 2; i++) {
        /* end 0 plays the DTLS client (even ids), end 1 the server (odd ids) */
        dc_init(&apps[i].dc, &pair.end[i].assoc, i == 0, i == 0 ? max0 : max1,
                i == 0 ? max1 : max0);
        pair.end[i].app = run_app;
        pair.end[i].app_ctx = &apps[i];
    }
    sctp_pair_connect(&pair, true);
    assert_true(sctp_pair_run(&pair, pair.now + 30000, established));
}

static void settle(uint64_t ms)
{
    sctp_pair_run(&pair, pair.now + ms, NULL);
}

static uint16_t open_channel(int side, const char *label, dc_type_t type, uint32_t reliability)
{
    uint16_t id;
    assert_int_equal(dc_open(&apps[side].dc, pair.now, label, "zq", type, reliability, &id),
                     ZQ_OK);
    sctp_pair_flush(&pair, side);
    return id;
}

static void send_text(int side, uint16_t id, const char *text)
{
    assert_int_equal(dc_send(&apps[side].dc, pair.now, id, (const uint8_t *)text, strlen(text),
                             false),
                     ZQ_OK);
    sctp_pair_flush(&pair, side);
}

static void channel_opened_by_the_dtls_client_gets_an_even_id_and_an_ack(void **state)
{
    (void)state;
    start(1, clean, 65536, 65536);
    uint16_t id = open_channel(0, "default-topic", DC_RELIABLE, 0);
    assert_int_equal(id % 2, 0);
    settle(200);
    assert_int_equal(apps[1].opened, 1);
    assert_int_equal(apps[1].last_open_id, id);
    const dc_channel_t *ch = dc_channel(&apps[1].dc, id);
    assert_non_null(ch);
    assert_string_equal(ch->label, "default-topic");
    assert_string_equal(ch->protocol, "zq");
    assert_int_equal(apps[0].opened, 1); /* our own OPEN was acknowledged */
    assert_int_equal(dc_channel(&apps[0].dc, id)->state, DC_STATE_OPEN);
}

static void data_sent_before_the_ack_arrives_after_the_open(void **state)
{
    (void)state;
    start(2, clean, 65536, 65536);
    uint16_t id = open_channel(0, "eager", DC_RELIABLE, 0);
    send_text(0, id, "sent before the ack"); /* as Chromium does */
    settle(200);
    assert_int_equal(apps[1].opened, 1);
    assert_int_equal(apps[1].messages, 1);
    assert_memory_equal(apps[1].last_data, "sent before the ack", 19);
}

/* The answering side's first message overtakes its ACK (sent first on the stream here, as a
 * browser whose ACK is still queued would): the message opens the channel we opened, and is
 * read after the open event, not before and not lost; the late ACK opens nothing again. */
static void the_peers_data_before_its_ack_opens_our_channel(void **state)
{
    (void)state;
    start(7, clean, 65536, 65536);
    uint16_t id = open_channel(0, "eager", DC_RELIABLE, 0);
    assert_int_equal(sctp_send(&pair.end[1].assoc, pair.now, id, DC_PPID_STRING,
                               (const uint8_t *)"hello first", 11, NULL),
                     ZQ_OK);
    sctp_pair_flush(&pair, 1);
    settle(200);
    assert_int_equal(apps[1].opened, 1);
    assert_int_equal(apps[0].opened, 1);
    assert_int_equal(dc_channel(&apps[0].dc, id)->state, DC_STATE_OPEN);
    assert_int_equal(apps[0].messages, 1);
    assert_memory_equal(apps[0].last_data, "hello first", 11);
    assert_int_equal(apps[0].read_unopened, 0);
    assert_int_equal(apps[0].dc.stats.rx_bad_dcep, 0);
}

static void both_sides_open_at_once_without_colliding(void **state)
{
    (void)state;
    start(3, clean, 65536, 65536);
    uint16_t a = open_channel(0, "from-client", DC_RELIABLE, 0);
    uint16_t b = open_channel(1, "from-server", DC_RELIABLE, 0);
    assert_int_not_equal(a, b);
    assert_int_equal(b % 2, 1);
    settle(200);
    assert_int_equal(apps[0].opened, 2); /* the ack of ours and the peer's open */
    assert_int_equal(apps[1].opened, 2);
    send_text(0, a, "x");
    send_text(1, b, "y");
    settle(200);
    assert_int_equal(apps[0].messages, 1);
    assert_int_equal(apps[1].messages, 1);
}

static void text_binary_and_empty_messages_keep_their_kind(void **state)
{
    (void)state;
    start(4, clean, 65536, 65536);
    uint16_t id = open_channel(0, "kinds", DC_RELIABLE, 0);
    send_text(0, id, "text");
    static const uint8_t bin[] = {0, 1, 2, 255};
    assert_int_equal(dc_send(&apps[0].dc, pair.now, id, bin, sizeof bin, true), ZQ_OK);
    assert_int_equal(dc_send(&apps[0].dc, pair.now, id, NULL, 0, false), ZQ_OK);
    assert_int_equal(dc_send(&apps[0].dc, pair.now, id, NULL, 0, true), ZQ_OK);
    sctp_pair_flush(&pair, 0);
    settle(200);
    assert_int_equal(apps[1].messages, 4);
    assert_int_equal(apps[1].text, 2);
    assert_int_equal(apps[1].binary, 2);
    assert_int_equal(apps[1].empty, 2);
}

static void sending_over_the_peers_max_message_size_is_an_error(void **state)
{
    (void)state;
    start(5, clean, 65536, 1000); /* end 1 accepts at most 1000 bytes */
    uint16_t id = open_channel(0, "small", DC_RELIABLE, 0);
    static uint8_t big[1001];
    assert_int_equal(dc_send(&apps[0].dc, pair.now, id, big, 1000, true), ZQ_OK);
    assert_int_equal(dc_send(&apps[0].dc, pair.now, id, big, 1001, true), ZQ_ERR_TOO_LONG);
}

static void receiving_over_our_max_message_size_closes_the_channel(void **state)
{
    (void)state;
    /* End 1 promised 1000 bytes but end 0 was told 65536 (a lying or broken peer). */
    start(6, clean, 65536, 65536);
    apps[1].dc.local_max_message = 1000;
    uint16_t id = open_channel(0, "liar", DC_RELIABLE, 0);
    static uint8_t big[5000];
    assert_int_equal(dc_send(&apps[0].dc, pair.now, id, big, sizeof big, true), ZQ_OK);
    sctp_pair_flush(&pair, 0);
    settle(1000);
    assert_int_equal(apps[1].dc.stats.rx_oversize, 1);
    assert_int_equal(apps[1].messages, 0);
    assert_int_equal(apps[1].closed, 1);
    assert_int_equal(apps[0].closed, 1);
}

static void large_messages_arrive_in_pieces_intact(void **state)
{
    (void)state;
    start(7, (simnet_impairment_t){5, 0, 10, 5}, 262144, 262144);
    uint16_t id = open_channel(0, "bulk", DC_RELIABLE, 0);
    static uint8_t msg[12000];
    sctp_pair_pattern(msg, sizeof msg, 7);
    assert_int_equal(dc_send(&apps[0].dc, pair.now, id, msg, sizeof msg, true), ZQ_OK);
    sctp_pair_flush(&pair, 0);
    settle(5000);
    assert_int_equal(apps[1].messages, 1);
    assert_int_equal(apps[1].crc, zq_crc32_update(0, msg, sizeof msg));
}

static bool room_again(sctp_pair_t *p)
{
    return !p->end[0].assoc.blocked;
}

/* Sends @p len bytes of @p msg in parts of @p part bytes, waiting for room when asked to. */
static zq_err_t send_in_parts(uint16_t id, const uint8_t *msg, size_t len, size_t part)
{
    size_t done = 0;
    bool first = true;
    for (;;) {
        size_t n = len - done < part ? len - done : part;
        size_t took = 0;
        zq_err_t err = dc_send_part(&apps[0].dc, pair.now, id, msg + done, n, false, first,
                                    done + n == len, &took);
        sctp_pair_flush(&pair, 0);
        if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
            return err;
        }
        first = first && took == 0 && err == ZQ_ERR_WOULD_BLOCK;
        done += took;
        if (done == len && err == ZQ_OK) {
            return ZQ_OK;
        }
        if (took < n) {
            assert_true(sctp_pair_run(&pair, pair.now + 60000, room_again));
        }
    }
}

static void message_of_the_peers_maximum_goes_in_parts_through_a_small_buffer(void **state)
{
    (void)state;
    /* 16 KiB send buffer, 256 KiB message: what a device relays without holding it. */
    start(8, (simnet_impairment_t){2, 0, 10, 5}, 262144, 262144);
    uint16_t id = open_channel(0, "relay", DC_RELIABLE, 0);
    static uint8_t msg[262144];
    sctp_pair_pattern(msg, sizeof msg, 8);
    assert_int_equal(dc_send(&apps[0].dc, pair.now, id, msg, sizeof msg, false),
                     ZQ_ERR_TOO_LONG); /* whole, it could never fit */
    assert_int_equal(send_in_parts(id, msg, sizeof msg, 3000), ZQ_OK);
    settle(20000);
    assert_int_equal(apps[1].messages, 1);
    assert_int_equal(apps[1].text, 1);
    assert_int_equal(apps[1].crc, zq_crc32_update(0, msg, sizeof msg));
}

static void parts_beyond_the_peers_maximum_are_refused_and_withdrawn(void **state)
{
    (void)state;
    start(9, clean, 65536, 10000); /* end 1 takes at most 10000 bytes */
    uint16_t id = open_channel(0, "small", DC_RELIABLE, 0);
    /* Once the OPEN is in, the peer's window (counted for 1-byte chunks until DATA comes,
     * rx/tracker.c) lets a first part out before the third is refused. */
    settle(1000);
    static uint8_t msg[12000];
    assert_int_equal(send_in_parts(id, msg, sizeof msg, 4000), ZQ_ERR_TOO_LONG);
    settle(1000);
    send_text(0, id, "after");
    settle(1000);
    assert_int_equal(apps[1].messages, 1); /* only "after": the long one never completed */
    assert_int_equal(apps[1].last_len, 5);
    assert_int_equal(apps[1].aborted, 1);
    assert_int_equal(apps[1].closed, 0);
}

static void closing_resets_both_directions_and_frees_the_id(void **state)
{
    (void)state;
    start(8, clean, 65536, 65536);
    uint16_t id = open_channel(0, "short-lived", DC_RELIABLE, 0);
    send_text(0, id, "last words");
    settle(200);
    assert_int_equal(dc_close(&apps[0].dc, pair.now, id), ZQ_OK);
    sctp_pair_flush(&pair, 0);
    settle(1000);
    assert_int_equal(apps[1].messages, 1); /* sent before the close: delivered */
    assert_int_equal(apps[0].closed, 1);
    assert_int_equal(apps[1].closed, 1);
    assert_null(dc_channel(&apps[0].dc, id));
    assert_null(dc_channel(&apps[1].dc, id));
    /* The id is free again: a new channel may take it, from SSN 0. */
    uint16_t again = open_channel(0, "next", DC_RELIABLE, 0);
    send_text(0, again, "hello again");
    settle(200);
    assert_int_equal(apps[1].messages, 2);
}

static void sixteen_channels_at_once_and_a_seventeenth_is_refused(void **state)
{
    (void)state;
    start(9, clean, 65536, 65536);
    for (int i = 0; i < ZQ_DC_MAX_CHANNELS; i++) {
        char label[16];
        snprintf(label, sizeof label, "ch%d", i);
        uint16_t id = open_channel(0, label, DC_RELIABLE, 0);
        send_text(0, id, label);
    }
    settle(500);
    assert_int_equal(apps[1].opened, ZQ_DC_MAX_CHANNELS);
    assert_int_equal(apps[1].messages, ZQ_DC_MAX_CHANNELS);
    uint16_t id;
    assert_int_equal(dc_open(&apps[0].dc, pair.now, "one-too-many", "", DC_RELIABLE, 0, &id),
                     ZQ_ERR_CAPACITY);
}

static void open_on_the_wrong_parity_is_refused(void **state)
{
    (void)state;
    start(10, clean, 65536, 65536);
    /* End 1 (odd ids) forges an OPEN on an even id, which only end 0 may use. */
    uint8_t msg[32];
    dcep_open_t open = {DC_RELIABLE, 0, 0, (const uint8_t *)"bad", 3, (const uint8_t *)"", 0};
    size_t len = dcep_open_write(&open, msg, sizeof msg);
    assert_int_equal(sctp_send(&pair.end[1].assoc, pair.now, 4, DC_PPID_DCEP, msg, len, NULL),
                     ZQ_OK);
    sctp_pair_flush(&pair, 1);
    settle(500);
    assert_int_equal(apps[0].opened, 0);
    assert_int_equal(apps[0].dc.stats.refused_opens, 1);
}

static void partially_reliable_channel_drops_instead_of_stalling(void **state)
{
    (void)state;
    start(11, (simnet_impairment_t){20, 0, 20, 10}, 65536, 65536);
    uint16_t id = open_channel(0, "telemetry", DC_PARTIAL_RELIABLE_REXMIT_UNORDERED, 0);
    settle(2000); /* acknowledged: unordered from now on */
    static uint8_t msg[50];
    int sent = 0;
    for (int i = 0; i < 500; i++) {
        if (dc_send(&apps[0].dc, pair.now, id, msg, sizeof msg, true) == ZQ_OK) {
            sent++;
        }
        sctp_pair_flush(&pair, 0);
        settle(5);
    }
    /* A lost FORWARD TSN waits for T3, whose RTO has backed off in the storm (§6.3.3). */
    settle(120000);
    printf("    unreliable unordered at 20%% loss: %lu of %d delivered\n", apps[1].messages, sent);
    assert_true(apps[1].messages > (unsigned long)sent / 2);
    assert_true(apps[1].messages < (unsigned long)sent);
    assert_true(sctp_all_acked(&pair.end[0].assoc)); /* nothing stuck */
}

static void timed_channel_abandons_old_messages(void **state)
{
    (void)state;
    start(12, (simnet_impairment_t){30, 0, 50, 0}, 65536, 65536);
    uint16_t id = open_channel(0, "live", DC_PARTIAL_RELIABLE_TIMED, 150);
    settle(3000);
    static uint8_t msg[50];
    for (int i = 0; i < 200; i++) {
        (void)dc_send(&apps[0].dc, pair.now, id, msg, sizeof msg, false);
        sctp_pair_flush(&pair, 0);
        settle(10);
    }
    settle(20000);
    assert_true(sctp_stats(&pair.end[0].assoc)->abandoned > 0);
    assert_true(sctp_all_acked(&pair.end[0].assoc));
}

static void restart_closes_every_channel(void **state)
{
    (void)state;
    start(13, clean, 65536, 65536);
    open_channel(0, "a", DC_RELIABLE, 0);
    open_channel(0, "b", DC_RELIABLE, 0);
    settle(200);
    assert_int_equal(apps[1].opened, 2);
    sctp_event_t restart = {.type = SCTP_EVENT_RESTARTED};
    assert_true(dc_handle_sctp_event(&apps[1].dc, pair.now, &restart));
    dc_event_t ev;
    int closed = 0;
    while (dc_poll_event(&apps[1].dc, &ev)) {
        closed += ev.type == DC_EVENT_CLOSED;
    }
    assert_int_equal(closed, 2);
}

static void buffered_amount_low_is_reported_per_channel(void **state)
{
    (void)state;
    start(14, clean, 65536, 65536);
    uint16_t id = open_channel(0, "flow", DC_RELIABLE, 0);
    assert_int_equal(dc_set_buffered_low(&apps[0].dc, id, 1000), ZQ_OK);
    static uint8_t msg[1000];
    for (int i = 0; i < 8; i++) {
        assert_int_equal(dc_send(&apps[0].dc, pair.now, id, msg, sizeof msg, true), ZQ_OK);
    }
    assert_true(dc_buffered_amount(&apps[0].dc, id) >= 7000);
    sctp_pair_flush(&pair, 0);
    settle(1000);
    assert_int_equal(dc_buffered_amount(&apps[0].dc, id), 0);
    assert_true(apps[0].buffered_low >= 1);
}

static void dcep_open_codec_rejects_lies(void **state)
{
    (void)state;
    dcep_open_t open;
    static const uint8_t good[] = {0x03, 0x81, 0x00, 0x10, 0x00, 0x00, 0x00, 0x05,
                                   0x00, 0x03, 0x00, 0x02, 'a',  'b',  'c',  'x', 'y'};
    assert_int_equal(dcep_open_parse(good, sizeof good, &open), ZQ_OK);
    assert_int_equal(open.channel_type, DC_PARTIAL_RELIABLE_REXMIT_UNORDERED);
    assert_int_equal(open.priority, 16);
    assert_int_equal(open.reliability, 5);
    assert_memory_equal(open.label, "abc", 3);
    assert_memory_equal(open.protocol, "xy", 2);
    uint8_t back[32];
    assert_int_equal(dcep_open_write(&open, back, sizeof back), sizeof good);
    assert_memory_equal(back, good, sizeof good);
    assert_int_equal(dcep_open_parse(good, sizeof good - 1, &open), ZQ_ERR_MALFORMED);
    uint8_t bad_type[sizeof good];
    memcpy(bad_type, good, sizeof good);
    bad_type[1] = 0x03;
    assert_int_equal(dcep_open_parse(bad_type, sizeof bad_type, &open), ZQ_ERR_MALFORMED);
}

/* Side 1 polls no channel event while side 0 opens every channel (side 1 hears each open,
 * then its DCEP ACK's buffered amount falling to zero) and closes them. */
static void a_full_event_queue_counts_the_refused_events_and_keeps_the_queued_ones(void **state)
{
    (void)state;
    start(21, clean, 65536, 65536);
    apps[1].not_polling = true;
    uint16_t ids[ZQ_DC_MAX_CHANNELS];
    for (int c = 0; c < ZQ_DC_MAX_CHANNELS; c++) {
        ids[c] = open_channel(0, "t", DC_RELIABLE, 0);
    }
    settle(500);
    for (int c = 0; c < ZQ_DC_MAX_CHANNELS; c++) {
        assert_int_equal(dc_close(&apps[0].dc, pair.now, ids[c]), ZQ_OK);
    }
    sctp_pair_flush(&pair, 0);
    settle(1000);

    dc_t *dc = &apps[1].dc;
    assert_int_equal(dc_events_refused(dc), 3 * ZQ_DC_MAX_CHANNELS - ZQ_DC_EVENT_QUEUE);
    dc_event_t ev;
    for (int c = 0; c < ZQ_DC_MAX_CHANNELS; c++) { /* one open at a time: each then its ACK */
        assert_true(dc_poll_event(dc, &ev));
        assert_int_equal(ev.type, DC_EVENT_OPEN);
        assert_int_equal(ev.id, ids[c]);
        assert_true(dc_poll_event(dc, &ev));
        assert_int_equal(ev.type, DC_EVENT_BUFFERED_LOW);
        assert_int_equal(ev.id, ids[c]);
    }
    for (int c = 0; c < ZQ_DC_EVENT_QUEUE - 2 * ZQ_DC_MAX_CHANNELS; c++) {
        assert_true(dc_poll_event(dc, &ev));
        assert_int_equal(ev.type, DC_EVENT_CLOSED);
        assert_int_equal(ev.id, ids[c]);
    }
    assert_false(dc_poll_event(dc, &ev));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(channel_opened_by_the_dtls_client_gets_an_even_id_and_an_ack),
        cmocka_unit_test(data_sent_before_the_ack_arrives_after_the_open),
        cmocka_unit_test(the_peers_data_before_its_ack_opens_our_channel),
        cmocka_unit_test(both_sides_open_at_once_without_colliding),
        cmocka_unit_test(text_binary_and_empty_messages_keep_their_kind),
        cmocka_unit_test(sending_over_the_peers_max_message_size_is_an_error),
        cmocka_unit_test(receiving_over_our_max_message_size_closes_the_channel),
        cmocka_unit_test(large_messages_arrive_in_pieces_intact),
        cmocka_unit_test(message_of_the_peers_maximum_goes_in_parts_through_a_small_buffer),
        cmocka_unit_test(parts_beyond_the_peers_maximum_are_refused_and_withdrawn),
        cmocka_unit_test(closing_resets_both_directions_and_frees_the_id),
        cmocka_unit_test(sixteen_channels_at_once_and_a_seventeenth_is_refused),
        cmocka_unit_test(open_on_the_wrong_parity_is_refused),
        cmocka_unit_test(partially_reliable_channel_drops_instead_of_stalling),
        cmocka_unit_test(timed_channel_abandons_old_messages),
        cmocka_unit_test(restart_closes_every_channel),
        cmocka_unit_test(buffered_amount_low_is_reported_per_channel),
        cmocka_unit_test(dcep_open_codec_rejects_lies),
        cmocka_unit_test(a_full_event_queue_counts_the_refused_events_and_keeps_the_queued_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

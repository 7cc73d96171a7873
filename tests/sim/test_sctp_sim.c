/* Two zq SCTP associations over a simulated network with a manual clock: establishment (with
 * an INIT collision), 10 MB at 0/5/20% loss with reordering, duplication and 50 ms delay,
 * ordered, unordered and partially reliable delivery, messages far larger than the buffers,
 * backpressure, the peer's window, stream reset, restart, shutdown, abort, peer loss. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sctp_pair.h"
#include "stack/sctp/sctp_internal.h"
#include "zq/crypto.h"

static sctp_pair_t pair; /* large: off the stack */
static const simnet_impairment_t clean = {0, 0, 5, 0};
#define BUF 16384

static bool established(sctp_pair_t *p)
{
    return sctp_pair_established(p);
}

static void start(uint64_t seed, simnet_impairment_t impair, size_t bufsize, bool both)
{
    sctp_pair_init(&pair, seed, impair, bufsize, NULL);
    sctp_pair_connect(&pair, both);
    assert_true(sctp_pair_run(&pair, pair.now + 30000, established));
}

/* Sends @p count messages of sizes from @p size_of on @p stream, waiting for room whenever a
 * send would block (as an application waits for WRITABLE). Returns the CRC of what was sent. */
typedef size_t (*size_fn)(unsigned long n);

static bool sender_unblocked(sctp_pair_t *p)
{
    return !p->end[0].assoc.blocked;
}

static uint32_t transfer(uint16_t stream, unsigned long count, size_fn size_of,
                         const sctp_send_opts_t *opts, unsigned long *would_block)
{
    static uint8_t msg[300 * 1024];
    uint32_t crc = 0;
    for (unsigned long n = 0; n < count;) {
        size_t size = size_of(n);
        sctp_pair_pattern(msg, size, n);
        zq_err_t err = sctp_pair_send(&pair, 0, stream, msg, size, opts);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            *would_block += 1;
            assert_true(sctp_pair_run(&pair, pair.now + 120000, sender_unblocked));
            continue;
        }
        assert_int_equal(err, ZQ_OK);
        crc = zq_crc32_update(crc, msg, size);
        n++;
    }
    return crc;
}

static bool all_acked(sctp_pair_t *p)
{
    return sctp_all_acked(&p->end[0].assoc) || p->end[0].aborted;
}

static size_t size_1k(unsigned long n)
{
    return 1000 + n % 200;
}

static void bulk_10mb(uint64_t seed, simnet_impairment_t impair, const char *label)
{
    start(seed, impair, BUF, true);
    unsigned long blocked = 0;
    uint64_t t0 = pair.now;
    unsigned long count = 0;
    size_t total = 0;
    while (total < 10u * 1000 * 1000) {
        total += size_1k(count++);
    }
    uint32_t crc = transfer(1, count, size_1k, NULL, &blocked);
    assert_true(sctp_pair_run(&pair, pair.now + 600000, all_acked));
    sctp_pair_run(&pair, pair.now + 1000, NULL);
    const sctp_pair_stream_t *rx = &pair.end[1].rx[1];
    assert_int_equal(rx->messages, count);
    assert_int_equal(rx->bytes, total);
    assert_int_equal(rx->crc, crc);
    const sctp_stats_t *st = sctp_stats(&pair.end[0].assoc);
    double secs = (double)(pair.now - t0) / 1000.0;
    printf("    %s: 10 MB intact in %.1f s simulated (%.2f MB/s); %lu lost, %lu dup; "
           "%u retransmitted, %u fast, %u T3\n",
           label, secs, (double)total / 1e6 / secs, pair.net.lost, pair.net.duplicated,
           st->retransmissions, st->fast_retransmits, st->t3_expirations);
    /* Without loss the sender never overruns the window; with loss, reordered SACKs can
     * make it overshoot a shrinking one by a chunk now and then (dropped, counted, resent). */
    uint32_t overrun = sctp_stats(&pair.end[1].assoc)->rx_out_of_window;
    assert_true(impair.loss_percent == 0 ? overrun == 0 : overrun <= st->tx_packets / 100);
}

static void ten_megabytes_intact_without_loss(void **state)
{
    (void)state;
    bulk_10mb(1, clean, "0% loss");
}

static void ten_megabytes_intact_at_5pct_loss_with_reordering(void **state)
{
    (void)state;
    const simnet_impairment_t net = {5, 2, 50, 5};
    bulk_10mb(2, net, "5% loss, 50-55 ms, 2% dup");
}

static void ten_megabytes_intact_at_20pct_loss_with_reordering(void **state)
{
    (void)state;
    const simnet_impairment_t net = {20, 5, 50, 5};
    bulk_10mb(3, net, "20% loss, 50-55 ms, 5% dup");
}

static void association_establishes_with_an_init_collision(void **state)
{
    (void)state;
    start(4, clean, BUF, true);
    assert_int_equal(sctp_state(&pair.end[0].assoc), SCTP_STATE_ESTABLISHED);
    assert_int_equal(sctp_state(&pair.end[1].assoc), SCTP_STATE_ESTABLISHED);
}

static void association_establishes_when_one_side_connects(void **state)
{
    (void)state;
    start(5, clean, BUF, false);
    assert_true(pair.end[1].connected);
}

static void establishment_survives_loss(void **state)
{
    (void)state;
    const simnet_impairment_t net = {30, 10, 20, 40};
    for (uint64_t seed = 10; seed < 40; seed++) {
        start(seed, net, BUF, seed % 2 == 0);
    }
}

static size_t size_small(unsigned long n)
{
    return 1 + n % 100;
}

static void ordered_messages_on_several_streams_arrive_in_order(void **state)
{
    (void)state;
    const simnet_impairment_t net = {10, 5, 20, 30};
    start(6, net, BUF, true);
    static uint8_t msg[200];
    uint32_t crc[3] = {0, 0, 0};
    for (unsigned long n = 0; n < 3000; n++) {
        uint16_t stream = (uint16_t)(n % 3);
        size_t size = size_small(n);
        sctp_pair_pattern(msg, size, n);
        zq_err_t err = sctp_pair_send(&pair, 0, stream, msg, size, NULL);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            assert_true(sctp_pair_run(&pair, pair.now + 60000, sender_unblocked));
            n--;
            continue;
        }
        crc[stream] = zq_crc32_update(crc[stream], msg, size);
    }
    assert_true(sctp_pair_run(&pair, pair.now + 120000, all_acked));
    for (int s = 0; s < 3; s++) {
        assert_int_equal(pair.end[1].rx[s].messages, 1000);
        assert_int_equal(pair.end[1].rx[s].crc, crc[s]); /* in order: same CRC */
    }
}

static void unordered_messages_all_arrive(void **state)
{
    (void)state;
    const simnet_impairment_t net = {10, 5, 20, 30};
    start(7, net, BUF, true);
    sctp_send_opts_t uo = {true, SCTP_RELIABLE, 0};
    unsigned long blocked = 0;
    (void)transfer(2, 2000, size_small, &uo, &blocked);
    assert_true(sctp_pair_run(&pair, pair.now + 120000, all_acked));
    assert_int_equal(pair.end[1].rx[2].messages, 2000);
    assert_int_equal(pair.end[1].unordered_messages, 2000);
}

static void partially_reliable_messages_are_abandoned_not_stalled(void **state)
{
    (void)state;
    /* Zero retransmissions at 20% loss: lost messages are given up, FORWARD TSN moves the
     * receiver past them, and the channel keeps flowing. */
    const simnet_impairment_t net = {20, 0, 20, 10};
    start(8, net, BUF, true);
    sctp_send_opts_t pr = {false, 0, 0};
    unsigned long blocked = 0;
    (void)transfer(3, 2000, size_small, &pr, &blocked);
    assert_true(sctp_pair_run(&pair, pair.now + 120000, all_acked));
    unsigned long got = pair.end[1].rx[3].messages;
    uint32_t abandoned = sctp_stats(&pair.end[0].assoc)->abandoned;
    printf("    max_retransmits 0 at 20%% loss: %lu of 2000 delivered, %u abandoned\n", got,
           abandoned);
    /* A message can be both delivered and abandoned (its SACK was lost): never fewer. */
    assert_true(abandoned > 0);
    assert_true(got <= 2000 && got + abandoned >= 2000);
    /* A reliable message after all that still gets through. */
    static const uint8_t last[] = "reliable after the storm";
    assert_int_equal(sctp_pair_send(&pair, 0, 3, last, sizeof last, NULL), ZQ_OK);
    assert_true(sctp_pair_run(&pair, pair.now + 60000, all_acked));
    assert_int_equal(pair.end[1].rx[3].messages, got + 1);
}

static void lifetime_expired_messages_are_abandoned(void **state)
{
    (void)state;
    const simnet_impairment_t net = {20, 0, 50, 0};
    start(9, net, BUF, true);
    sctp_send_opts_t timed = {true, SCTP_RELIABLE, 100};
    unsigned long blocked = 0;
    (void)transfer(4, 500, size_small, &timed, &blocked);
    assert_true(sctp_pair_run(&pair, pair.now + 60000, all_acked));
    unsigned long got = pair.end[1].rx[4].messages;
    uint32_t abandoned = sctp_stats(&pair.end[0].assoc)->abandoned;
    assert_true(abandoned > 0);
    assert_true(got <= 500 && got + abandoned >= 500);
}

static size_t size_256k(unsigned long n)
{
    (void)n;
    return 256 * 1024;
}

static void message_larger_than_the_receive_buffer_arrives_in_pieces(void **state)
{
    (void)state;
    /* The sender holds 320 KiB; the receiver only 16 KiB, and takes 256 KiB messages whole,
     * piece by piece, in order. */
    sctp_pair_init_sizes(&pair, 10, (simnet_impairment_t){5, 0, 10, 10}, 320 * 1024, BUF,
                         NULL);
    sctp_pair_connect(&pair, true);
    assert_true(sctp_pair_run(&pair, pair.now + 30000, established));
    unsigned long blocked = 0;
    uint32_t crc = transfer(5, 4, size_256k, NULL, &blocked);
    assert_true(sctp_pair_run(&pair, pair.now + 300000, all_acked));
    const sctp_pair_stream_t *rx = &pair.end[1].rx[5];
    assert_int_equal(rx->messages, 4);
    assert_int_equal(rx->bytes, 4 * 256 * 1024);
    assert_int_equal(rx->crc, crc);
    assert_true(rx->pieces > 4 * 200);
}

/* Streams @p size bytes on @p stream with sctp_send_part(), @p part bytes per call, waiting
 * for room as an application would; the last call may be empty when @p empty_last. */
static uint32_t stream_message(uint16_t stream, size_t size, size_t part, bool empty_last,
                               unsigned long seed)
{
    static uint8_t msg[1024 * 1024];
    sctp_pair_pattern(msg, size, seed);
    size_t done = 0;
    bool first = true;
    while (done < size || (empty_last && first == false && done == size)) {
        size_t n = size - done < part ? size - done : part;
        bool last = empty_last ? n == 0 : done + n == size;
        size_t took = 0;
        zq_err_t err = sctp_send_part(&pair.end[0].assoc, pair.now, stream, 53, msg + done, n,
                                      first, last, NULL, &took);
        sctp_pair_flush(&pair, 0);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            assert_true(sctp_pair_run(&pair, pair.now + 120000, sender_unblocked));
            continue;
        }
        assert_int_equal(err, ZQ_OK);
        first = false;
        done += took;
        if (last && took == n) {
            break;
        }
        if (took < n) {
            assert_true(sctp_pair_run(&pair, pair.now + 120000, sender_unblocked));
        }
    }
    return zq_crc32_update(0, msg, size);
}

static void message_larger_than_the_send_buffer_goes_in_parts(void **state)
{
    (void)state;
    /* 16 KiB buffers both ways and a 1 MiB message, at 5% loss with reordering: the sender
     * never holds more than its buffer, the receiver takes it piece by piece. */
    start(30, (simnet_impairment_t){5, 1, 10, 10}, BUF, true);
    uint32_t crc = stream_message(3, 1024 * 1024, 5000, false, 1);
    assert_true(sctp_pair_run(&pair, pair.now + 600000, all_acked));
    const sctp_pair_stream_t *rx = &pair.end[1].rx[3];
    assert_int_equal(rx->messages, 1);
    assert_int_equal(rx->bytes, 1024 * 1024);
    assert_int_equal(rx->crc, crc);
    assert_int_equal(rx->aborted, 0);
}

static void last_part_may_be_empty(void **state)
{
    (void)state;
    start(31, clean, BUF, true);
    uint32_t crc = stream_message(2, 3000, 1000, true, 2);
    assert_true(sctp_pair_run(&pair, pair.now + 10000, all_acked));
    assert_int_equal(pair.end[1].rx[2].messages, 1);
    assert_int_equal(pair.end[1].rx[2].bytes, 3000);
    assert_int_equal(pair.end[1].rx[2].crc, crc);
}

static void other_sends_wait_while_a_message_is_open(void **state)
{
    (void)state;
    start(32, clean, BUF, true);
    sctp_assoc_t *a = &pair.end[0].assoc;
    static uint8_t part[2000];
    size_t took = 0;
    assert_int_equal(sctp_send_part(a, pair.now, 1, 53, part, sizeof part, true, false, NULL,
                                    &took),
                     ZQ_OK);
    assert_int_equal(took, sizeof part);
    /* §6.9: nothing may come between its fragments. */
    assert_int_equal(sctp_send(a, pair.now, 4, 53, part, 10, NULL), ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(sctp_send_part(a, pair.now, 4, 53, part, 10, true, true, NULL, &took),
                     ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(sctp_send_part(a, pair.now, 4, 53, part, 10, false, true, NULL, &took),
                     ZQ_ERR_STATE); /* no message of stream 4 is open */
    assert_int_equal(sctp_send_part(a, pair.now, 1, 53, part, sizeof part, false, true, NULL,
                                    &took),
                     ZQ_OK);
    assert_true(sctp_pair_run(&pair, pair.now + 10000, sender_unblocked));
    assert_true(sctp_pair_saw(&pair, 0, SCTP_EVENT_WRITABLE, 0xFFFF));
    assert_int_equal(sctp_pair_send(&pair, 0, 4, part, 10, NULL), ZQ_OK);
    assert_true(sctp_pair_run(&pair, pair.now + 10000, all_acked));
    assert_int_equal(pair.end[1].rx[1].messages, 1);
    assert_int_equal(pair.end[1].rx[1].bytes, 4000);
    assert_int_equal(pair.end[1].rx[4].messages, 1);
}

static void parts_out_of_turn_are_refused(void **state)
{
    (void)state;
    start(33, clean, BUF, true);
    sctp_assoc_t *a = &pair.end[0].assoc;
    static uint8_t part[100];
    size_t took = 1;
    assert_int_equal(sctp_send_part(a, pair.now, 1, 53, part, 10, false, false, NULL, &took),
                     ZQ_ERR_STATE);
    assert_int_equal(took, 0);
    assert_int_equal(sctp_send_part(a, pair.now, 1, 53, part, 0, true, false, NULL, &took),
                     ZQ_ERR_INVALID_ARG);
    assert_int_equal(sctp_send_part_abandon(a, pair.now), ZQ_ERR_STATE);
}

static void abandoning_an_open_message_withdraws_what_went_out(void **state)
{
    (void)state;
    start(34, clean, BUF, true);
    sctp_assoc_t *a = &pair.end[0].assoc;
    static uint8_t part[6000];
    size_t took = 0;
    assert_int_equal(sctp_send_part(a, pair.now, 1, 53, part, sizeof part, true, false, NULL,
                                    &took),
                     ZQ_OK);
    sctp_pair_flush(&pair, 0);
    sctp_pair_run(&pair, pair.now + 200, NULL); /* some fragments went out and were acked */
    assert_true(pair.end[1].rx[1].pieces >= 1);
    assert_int_equal(sctp_send_part_abandon(a, pair.now), ZQ_OK);
    sctp_pair_flush(&pair, 0);
    /* The association goes on: the next message arrives whole, and the withdrawn one was
     * reported as aborted, never as a message. */
    static uint8_t next[500];
    assert_true(sctp_pair_run(&pair, pair.now + 10000, sender_unblocked));
    assert_int_equal(sctp_pair_send(&pair, 0, 1, next, sizeof next, NULL), ZQ_OK);
    assert_true(sctp_pair_run(&pair, pair.now + 10000, all_acked));
    sctp_pair_run(&pair, pair.now + 500, NULL);
    assert_int_equal(pair.end[1].rx[1].aborted, 1);
    assert_int_equal(pair.end[1].rx[1].messages, 1);
}

static size_t size_10(unsigned long n)
{
    (void)n;
    return 10;
}

static bool receiver_has(sctp_pair_t *p)
{
    return p->end[1].rx[2].messages >= 300;
}

/* A burst of loss in a stream of small messages, with the receive buffer full of what came
 * after it: the retransmissions that fill the gap arrive one by one, each delivered and freed
 * behind data still waiting, and that space is used again (compaction). Against aiortc, which
 * ignores the window, not reusing it left the window at 0 for good after 40 lost messages in
 * a row: tests/interop/aiortc's lossy run (ZQ_AIORTC_LOSS) checks that case end to end. */
static void space_freed_behind_waiting_data_is_used_again(void **state)
{
    (void)state;
    /* A sender with more in flight than the receiver holds: its 4 KiB buffer fills with what
     * follows the lost packets, and the retransmissions come 14 small chunks a packet. */
    sctp_pair_init_sizes(&pair, 35, (simnet_impairment_t){0, 0, 10, 0}, 64 * 1024, 4096, NULL);
    sctp_pair_connect(&pair, true);
    assert_true(sctp_pair_run(&pair, pair.now + 30000, established));
    unsigned long blocked = 0;
    (void)transfer(2, 300, size_10, NULL, &blocked);
    assert_true(sctp_pair_run(&pair, pair.now + 60000, receiver_has));
    pair.end[1].drop_next = 4; /* ~50 messages in a row */
    (void)transfer(2, 3000, size_10, NULL, &blocked);
    assert_true(sctp_pair_run(&pair, pair.now + 120000, all_acked));
    sctp_pair_run(&pair, pair.now + 1000, NULL);
    const sctp_pair_stream_t *rx = &pair.end[1].rx[2];
    assert_int_equal(rx->messages, 3300);
    assert_int_equal(rx->bytes, 33000);
    uint32_t want = 0; /* what transfer() sent, in order: messages 0..299, then 0..2999 */
    uint8_t m[10];
    for (unsigned long n = 0; n < 3300; n++) {
        sctp_pair_pattern(m, sizeof m, n < 300 ? n : n - 300);
        want = zq_crc32_update(want, m, sizeof m);
    }
    assert_int_equal(rx->crc, want);
    const sctp_stats_t *st = sctp_stats(&pair.end[1].assoc);
    assert_true(st->rx_compactions > 0);
    printf("    %u compactions of the receive buffer\n", st->rx_compactions);
}

static void send_blocks_and_writable_follows(void **state)
{
    (void)state;
    start(11, clean, BUF, true);
    static uint8_t msg[1000];
    int sent = 0;
    while (sctp_pair_send(&pair, 0, 1, msg, sizeof msg, NULL) == ZQ_OK) {
        sent++;
    }
    assert_true(sent >= 10 && sent <= 16);
    assert_int_equal(sctp_pair_send(&pair, 0, 1, msg, sizeof msg, NULL), ZQ_ERR_WOULD_BLOCK);
    assert_true(sctp_pair_run(&pair, pair.now + 10000, sender_unblocked));
    assert_true(sctp_pair_saw(&pair, 0, SCTP_EVENT_WRITABLE, 0xFFFF));
    assert_int_equal(sctp_pair_send(&pair, 0, 1, msg, sizeof msg, NULL), ZQ_OK);
    static uint8_t huge[BUF + 1];
    assert_int_equal(sctp_pair_send(&pair, 0, 1, huge, sizeof huge, NULL), ZQ_ERR_TOO_LONG);
}

static void buffered_amount_falls_to_low_water_with_an_event(void **state)
{
    (void)state;
    start(12, clean, BUF, true);
    assert_int_equal(sctp_set_low_water(&pair.end[0].assoc, 6, 2000), ZQ_OK);
    static uint8_t msg[1000];
    for (int i = 0; i < 12; i++) {
        assert_int_equal(sctp_send(&pair.end[0].assoc, pair.now, 6, 53, msg, sizeof msg, NULL),
                         ZQ_OK);
    }
    assert_int_equal(sctp_buffered_amount(&pair.end[0].assoc, 6), 12000);
    assert_true(sctp_pair_run(&pair, pair.now + 10000, all_acked));
    assert_int_equal(sctp_buffered_amount(&pair.end[0].assoc, 6), 0);
    assert_true(sctp_pair_saw(&pair, 0, SCTP_EVENT_WRITABLE, 6));
}

static void sender_respects_the_window_of_a_receiver_that_does_not_read(void **state)
{
    (void)state;
    start(13, clean, BUF, true);
    pair.end[1].stalled = true;
    unsigned long blocked = 0;
    /* 40 KB into a 16 KB receiver that reads nothing: the sender stops at its window. */
    sctp_send_opts_t reliable = {false, SCTP_RELIABLE, 0};
    static uint8_t msg[1000];
    for (int i = 0; i < 40;) {
        if (sctp_pair_send(&pair, 0, 1, msg, sizeof msg, &reliable) == ZQ_OK) {
            i++;
            continue;
        }
        blocked++;
        sctp_pair_run(&pair, pair.now + 2000, NULL);
        if (blocked > 5) {
            break;
        }
    }
    assert_true(blocked > 0);
    /* Only zero-window probes (§6.1 A) find a full receiver; it drops them, one per RTO. */
    assert_true(sctp_stats(&pair.end[1].assoc)->rx_out_of_window <= 8);
    /* The application reads again: everything arrives. */
    pair.end[1].stalled = false;
    sctp_pair_read(&pair, 1);
    sctp_pair_flush(&pair, 1);
    assert_true(sctp_pair_run(&pair, pair.now + 60000, all_acked));
    sctp_pair_read(&pair, 1);
    assert_true(pair.end[1].rx[1].messages >= 14);
}

static bool reset_done(sctp_pair_t *p)
{
    return sctp_pair_saw(p, 0, SCTP_EVENT_STREAM_RESET_DONE, 7);
}

static void stream_reset_closes_a_channel_and_the_id_is_reused(void **state)
{
    (void)state;
    start(14, clean, BUF, true);
    static const uint8_t hello[] = "hello";
    assert_int_equal(sctp_pair_send(&pair, 0, 7, hello, sizeof hello, NULL), ZQ_OK);
    assert_int_equal(sctp_reset_stream(&pair.end[0].assoc, pair.now, 7), ZQ_OK);
    assert_int_equal(sctp_pair_send(&pair, 0, 7, hello, sizeof hello, NULL), ZQ_ERR_STATE);
    sctp_pair_flush(&pair, 0);
    assert_true(sctp_pair_run(&pair, pair.now + 10000, reset_done));
    assert_true(sctp_pair_saw(&pair, 1, SCTP_EVENT_STREAM_RESET_IN, 7));
    assert_int_equal(pair.end[1].rx[7].messages, 1); /* sent before the reset: delivered */
    /* The id carries a new channel from SSN 0. */
    assert_int_equal(sctp_pair_send(&pair, 0, 7, hello, sizeof hello, NULL), ZQ_OK);
    assert_true(sctp_pair_run(&pair, pair.now + 10000, all_acked));
    sctp_pair_run(&pair, pair.now + 500, NULL);
    assert_int_equal(pair.end[1].rx[7].messages, 2);
}

static bool restarted(sctp_pair_t *p)
{
    return p->end[0].restarted && p->end[1].connected;
}

static void peer_restart_is_detected_and_data_flows_again(void **state)
{
    (void)state;
    start(15, clean, BUF, true);
    /* Node B reboots: a fresh association, new tags, INIT towards A's live association. */
    sctp_config_t cfg;
    sctp_config_default(&cfg);
    cfg.rand = test_rand(&pair.end[1].rand, 999);
    assert_int_equal(sctp_assoc_init(&pair.end[1].assoc, &cfg, pair.end[1].sendbuf, BUF,
                                     pair.end[1].recvbuf, BUF),
                     ZQ_OK);
    pair.end[1].connected = false;
    assert_int_equal(sctp_connect(&pair.end[1].assoc, pair.now), ZQ_OK);
    sctp_pair_flush(&pair, 1);
    assert_true(sctp_pair_run(&pair, pair.now + 30000, restarted));
    static const uint8_t msg[] = "after restart";
    assert_int_equal(sctp_pair_send(&pair, 0, 1, msg, sizeof msg, NULL), ZQ_OK);
    assert_true(sctp_pair_run(&pair, pair.now + 10000, all_acked));
    sctp_pair_run(&pair, pair.now + 500, NULL);
    assert_int_equal(pair.end[1].rx[1].messages, 1);
}

static bool both_closed(sctp_pair_t *p)
{
    return p->end[0].closed && p->end[1].closed;
}

static void graceful_shutdown_delivers_everything_then_closes(void **state)
{
    (void)state;
    start(16, (simnet_impairment_t){10, 0, 10, 10}, BUF, true);
    unsigned long blocked = 0;
    uint32_t crc = transfer(1, 100, size_1k, NULL, &blocked);
    assert_int_equal(sctp_shutdown(&pair.end[0].assoc, pair.now), ZQ_OK);
    sctp_pair_flush(&pair, 0);
    assert_true(sctp_pair_run(&pair, pair.now + 60000, both_closed));
    assert_int_equal(pair.end[1].rx[1].messages, 100);
    assert_int_equal(pair.end[1].rx[1].crc, crc);
    assert_int_equal(sctp_state(&pair.end[0].assoc), SCTP_STATE_CLOSED);
}

static bool peer_aborted(sctp_pair_t *p)
{
    return p->end[1].aborted;
}

static void abort_reaches_the_peer(void **state)
{
    (void)state;
    start(17, clean, BUF, true);
    sctp_abort(&pair.end[0].assoc, pair.now);
    sctp_pair_flush(&pair, 0);
    assert_true(sctp_pair_run(&pair, pair.now + 1000, peer_aborted));
    const sctp_end_t *b = &pair.end[1];
    assert_int_equal(b->events[b->n_events - 1].reason, SCTP_ABORT_BY_PEER);
    assert_int_equal(b->events[b->n_events - 1].cause, SCTP_CAUSE_USER_ABORT);
}

static bool sender_gave_up(sctp_pair_t *p)
{
    return p->end[0].aborted;
}

static void vanished_peer_ends_the_association_after_max_retransmits(void **state)
{
    (void)state;
    start(18, clean, BUF, true);
    pair.end[1].deaf = true;
    pair.end[1].mute = true;
    static const uint8_t msg[] = "anyone?";
    assert_int_equal(sctp_pair_send(&pair, 0, 1, msg, sizeof msg, NULL), ZQ_OK);
    assert_true(sctp_pair_run(&pair, pair.now + 600000, sender_gave_up));
    const sctp_end_t *a = &pair.end[0];
    assert_int_equal(a->events[a->n_events - 1].reason, SCTP_ABORT_MAX_RETRANSMITS);
}

static void idle_association_stays_up_on_heartbeats(void **state)
{
    (void)state;
    start(19, clean, BUF, true);
    sctp_pair_run(&pair, pair.now + 300000, NULL); /* five idle minutes */
    assert_int_equal(sctp_state(&pair.end[0].assoc), SCTP_STATE_ESTABLISHED);
    assert_false(pair.end[0].aborted || pair.end[1].aborted);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(association_establishes_with_an_init_collision),
        cmocka_unit_test(association_establishes_when_one_side_connects),
        cmocka_unit_test(establishment_survives_loss),
        cmocka_unit_test(ordered_messages_on_several_streams_arrive_in_order),
        cmocka_unit_test(unordered_messages_all_arrive),
        cmocka_unit_test(ten_megabytes_intact_without_loss),
        cmocka_unit_test(ten_megabytes_intact_at_5pct_loss_with_reordering),
        cmocka_unit_test(ten_megabytes_intact_at_20pct_loss_with_reordering),
        cmocka_unit_test(partially_reliable_messages_are_abandoned_not_stalled),
        cmocka_unit_test(lifetime_expired_messages_are_abandoned),
        cmocka_unit_test(message_larger_than_the_receive_buffer_arrives_in_pieces),
        cmocka_unit_test(message_larger_than_the_send_buffer_goes_in_parts),
        cmocka_unit_test(last_part_may_be_empty),
        cmocka_unit_test(other_sends_wait_while_a_message_is_open),
        cmocka_unit_test(parts_out_of_turn_are_refused),
        cmocka_unit_test(abandoning_an_open_message_withdraws_what_went_out),
        cmocka_unit_test(space_freed_behind_waiting_data_is_used_again),
        cmocka_unit_test(send_blocks_and_writable_follows),
        cmocka_unit_test(buffered_amount_falls_to_low_water_with_an_event),
        cmocka_unit_test(sender_respects_the_window_of_a_receiver_that_does_not_read),
        cmocka_unit_test(stream_reset_closes_a_channel_and_the_id_is_reused),
        cmocka_unit_test(peer_restart_is_detected_and_data_flows_again),
        cmocka_unit_test(graceful_shutdown_delivers_everything_then_closes),
        cmocka_unit_test(abort_reaches_the_peer),
        cmocka_unit_test(vanished_peer_ends_the_association_after_max_retransmits),
        cmocka_unit_test(idle_association_stays_up_on_heartbeats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The broker over real peer connections in one process (tests/support/mesh.h): several nodes
 * in a room over a simulated, sometimes lossy network. Each test is one guarantee of
 * broker/PROTOCOL.md, or one of ZeroQ's gaps it closes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mesh.h"

static const simnet_impairment_t clean = {0, 0, 5, 0};

static unsigned want_members;

static bool all_connected(void)
{
    return mesh_all_connected(want_members);
}

static void dump(void)
{
    for (unsigned i = 0; i < mesh.n; i++) {
        node_t *n = &mesh.members[i].node;
        brk_t *b = &mesh.members[i].broker;
        printf("m%u id=%.6s malformed=%u unknown=%u rxf=%u txf=%u\n", i, n->my_id,
               b->stats.rx_malformed, b->stats.rx_unknown, b->stats.rx_frames, b->stats.tx_frames);
        for (int k = 0; k < ZQ_NODE_MAX_PEERS; k++) {
            if (n->peers[k].used) {
                printf("  p%d %.6s open=%d state=%d brk open=%d zq=%d sub=%d hello_due=%d\n", k,
                       n->peers[k].id, n->peers[k].open, n->peers[k].peer.state, b->peers[k].open,
                       b->peers[k].zq, b->peers[k].sub_received, b->peers[k].hello_due);
            }
        }
    }
}

/* @p n broker members in one room, every pair connected and past hello. */
static void room_of(unsigned n, uint64_t seed, simnet_impairment_t impair)
{
    mesh_reset(seed, impair);
    for (unsigned i = 0; i < n; i++) {
        mesh_add("room", true, NULL, -1);
    }
    want_members = n;
    if (!mesh_run(mesh.now + 60000, all_connected)) {
        dump();
    }
    assert_true(all_connected());
}

static brk_t *broker(unsigned i)
{
    return &mesh.members[i].broker;
}

static void publish(unsigned i, const char *topic, const char *payload, brk_qos_t qos)
{
    assert_int_equal(brk_publish(broker(i), mesh.now, topic, payload, strlen(payload), qos),
                     ZQ_OK);
}

/* ---- Topics ---------------------------------------------------------------------------------- */

static void messages_reach_exactly_the_subscribers_whose_patterns_match(void **state)
{
    (void)state;
    room_of(4, 1, clean);
    assert_int_equal(brk_subscribe(broker(1), mesh.now, "news.eu"), ZQ_OK);
    assert_int_equal(brk_subscribe(broker(2), mesh.now, "news.+"), ZQ_OK);
    assert_int_equal(brk_subscribe(broker(3), mesh.now, "sensors.#"), ZQ_OK);
    mesh_run_for(200); /* the sub frames travel */
    publish(0, "news.eu", "1", BRK_QOS_0);
    publish(0, "news.us", "2", BRK_QOS_0);
    publish(0, "sensors.kitchen.temp", "21.5", BRK_QOS_0);
    publish(0, "sensors", "{\"all\":true}", BRK_QOS_0);
    publish(0, "weather", "\"rain\"", BRK_QOS_0);
    mesh_run_for(500);
    assert_int_equal(mesh_count(1, BRK_EVENT_MESSAGE, NULL), 1);
    assert_int_equal(mesh_count(1, BRK_EVENT_MESSAGE, "news.eu"), 1);
    assert_int_equal(mesh_count(2, BRK_EVENT_MESSAGE, NULL), 2);
    assert_int_equal(mesh_count(3, BRK_EVENT_MESSAGE, NULL), 2);
    assert_int_equal(mesh_count(3, BRK_EVENT_MESSAGE, "sensors"), 1);
    /* Interest routing: nobody was sent what it did not ask for. */
    for (unsigned i = 1; i < 4; i++) {
        assert_int_equal(brk_stats(broker(i))->rx_unwanted, 0);
    }
    /* Payloads arrive verbatim, with the publisher's seq. */
    const mesh_event_t *e = &mesh.members[3].log[0];
    for (size_t k = 0; k < mesh.members[3].n_log; k++) {
        if (strcmp(mesh.members[3].log[k].topic, "sensors.kitchen.temp") == 0) {
            e = &mesh.members[3].log[k];
        }
    }
    assert_string_equal(e->payload, "21.5");
    assert_true(e->seq >= 1);
}

static void publishing_with_no_peer_is_not_an_error_and_reaches_later_subscribers_as_last_value(
    void **state)
{
    (void)state;
    mesh_reset(2, clean);
    mesh_add("room", true, NULL, -1);
    publish(0, "status", "\"up\"", BRK_QOS_0);
    publish(0, "status", "\"degraded\"", BRK_QOS_0);
    mesh_add("room", true, NULL, -1);
    assert_int_equal(brk_subscribe(broker(1), mesh.now, "status"), ZQ_OK);
    want_members = 2;
    assert_true(mesh_run(mesh.now + 60000, all_connected));
    mesh_run_for(500);
    assert_int_equal(mesh_count(1, BRK_EVENT_MESSAGE, "status"), 1);
    assert_string_equal(mesh.members[1].log[mesh.members[1].n_log - 1].payload, "\"degraded\"");
    assert_true(mesh.members[1].log[mesh.members[1].n_log - 1].last_value);
}

static void bad_topics_and_payloads_are_refused_not_sent(void **state)
{
    (void)state;
    room_of(2, 3, clean);
    assert_int_equal(brk_publish(broker(0), mesh.now, "t", "{oops", 5, BRK_QOS_0),
                     ZQ_ERR_MALFORMED);
    assert_int_equal(brk_publish(broker(0), mesh.now, "t", "1 2", 3, BRK_QOS_0),
                     ZQ_ERR_MALFORMED);
    assert_int_equal(brk_subscribe(broker(1), mesh.now, "a.#.b"), ZQ_ERR_MALFORMED);
    static char big[ZQ_BRK_FRAME_MAX + 16];
    memset(big, 'x', sizeof big);
    big[0] = '"';
    big[sizeof big - 1] = '"';
    assert_int_equal(brk_publish(broker(0), mesh.now, "t", big, sizeof big, BRK_QOS_0),
                     ZQ_ERR_TOO_LONG);
}

/* ---- Work queues ------------------------------------------------------------------------------ */

/* Consumers ack every job as it comes (the application is instant). */
static void ack_jobs(unsigned member, const brk_event_t *ev)
{
    if (ev->type == BRK_EVENT_JOB) {
        assert_int_equal(brk_job_done(broker(member), mesh.now, ev->handle, true), ZQ_OK);
    }
}

static void nack_jobs(unsigned member, const brk_event_t *ev)
{
    if (ev->type == BRK_EVENT_JOB) {
        assert_int_equal(brk_job_done(broker(member), mesh.now, ev->handle, false), ZQ_OK);
    }
}

static bool producer_empty(void)
{
    return brk_stats(broker(0))->jobs_done == 200;
}

static void jobs_are_processed_exactly_once_across_five_competing_consumers(void **state)
{
    (void)state;
    room_of(6, 10, (simnet_impairment_t){2, 0, 5, 3});
    for (unsigned i = 1; i < 6; i++) {
        mesh.members[i].on_event = ack_jobs;
        assert_int_equal(brk_consume(broker(i), mesh.now, "jobs", 2), ZQ_OK);
    }
    mesh_run_for(300);
    for (int n = 0; n < 200;) {
        char payload[32];
        int len = snprintf(payload, sizeof payload, "{\"n\":%d}", n);
        zq_err_t err = brk_enqueue(broker(0), mesh.now, "jobs", payload, (size_t)len, NULL);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            mesh_run_for(20);
            continue;
        }
        assert_int_equal(err, ZQ_OK);
        n++;
    }
    assert_true(mesh_run(mesh.now + 120000, producer_empty));
    /* Every job once, over all consumers: no job twice, none lost, every consumer worked. */
    static bool seen[200];
    memset(seen, 0, sizeof seen);
    size_t total = 0;
    for (unsigned i = 1; i < 6; i++) {
        size_t mine = mesh_count(i, BRK_EVENT_JOB, "jobs");
        assert_true(mine > 0);
        total += mine;
        for (size_t k = 0; k < mesh.members[i].n_log; k++) {
            const mesh_event_t *e = &mesh.members[i].log[k];
            int n = -1;
            if (e->type == BRK_EVENT_JOB && sscanf(e->payload, "{\"n\":%d}", &n) == 1) {
                assert_false(seen[n]);
                seen[n] = true;
            }
        }
        printf("    consumer %u processed %zu jobs\n", i, mine);
    }
    assert_int_equal(total, 200);
    assert_int_equal(brk_stats(broker(0))->jobs_redelivered, 0);
}

static bool job_taken(void)
{
    return mesh_count(1, BRK_EVENT_JOB, "work") == 1;
}

static bool job_redone(void)
{
    return mesh_count(2, BRK_EVENT_JOB, "work") == 1;
}

static void a_job_held_by_a_crashed_consumer_goes_to_another(void **state)
{
    (void)state;
    room_of(3, 11, clean);
    assert_int_equal(brk_consume(broker(1), mesh.now, "work", 1), ZQ_OK); /* holds, never acks */
    mesh_run_for(300);
    assert_int_equal(brk_enqueue(broker(0), mesh.now, "work", "\"resize\"", 8, NULL), ZQ_OK);
    assert_true(mesh_run(mesh.now + 5000, job_taken));
    mesh.members[2].on_event = ack_jobs;
    assert_int_equal(brk_consume(broker(2), mesh.now, "work", 1), ZQ_OK);
    mesh_crash(1);
    uint64_t crashed_at = mesh.now;
    assert_true(mesh_run(mesh.now + 60000, job_redone));
    assert_int_equal(mesh.members[2].log[mesh.members[2].n_log - 1].attempt, 1);
    printf("    redelivered %llu ms after the crash\n",
           (unsigned long long)(mesh.now - crashed_at));
}

static void a_job_not_finished_within_its_lease_goes_to_another(void **state)
{
    (void)state;
    brk_config_t cfg;
    brk_config_default(&cfg);
    cfg.lease_ms = 2000;
    mesh_reset(12, clean);
    mesh_add("room", true, &cfg, -1);
    mesh_add("room", true, NULL, -1);
    mesh_add("room", true, NULL, -1);
    want_members = 3;
    assert_true(mesh_run(mesh.now + 60000, all_connected));
    assert_int_equal(brk_consume(broker(1), mesh.now, "work", 1), ZQ_OK); /* alive, but stuck */
    mesh_run_for(300);
    assert_int_equal(brk_enqueue(broker(0), mesh.now, "work", "1", 1, NULL), ZQ_OK);
    assert_true(mesh_run(mesh.now + 5000, job_taken));
    uint64_t taken_at = mesh.now;
    mesh.members[2].on_event = ack_jobs;
    assert_int_equal(brk_consume(broker(2), mesh.now, "work", 1), ZQ_OK);
    assert_true(mesh_run(mesh.now + 10000, job_redone));
    assert_true(mesh.now - taken_at >= 2000); /* the lease, not before */
    /* The stuck consumer's late ack is ignored: the job is done once, by the other. */
    assert_int_equal(brk_job_done(broker(1), mesh.now, mesh.members[1].log[mesh.members[1].n_log - 1].handle, true), ZQ_OK);
    mesh_run_for(500);
    assert_int_equal(brk_stats(broker(0))->jobs_done, 1);
}

static bool dead_lettered(void)
{
    return mesh_count(0, BRK_EVENT_DEAD_LETTER, "work") == 1;
}

static void dlq_count(void *ctx, brk_str_t id, brk_str_t payload, uint32_t attempts)
{
    (void)id;
    (void)payload;
    *(uint32_t *)ctx = attempts;
}

static void a_job_nacked_max_attempts_times_is_dead_lettered_and_can_be_requeued(void **state)
{
    (void)state;
    room_of(3, 13, clean);
    mesh.members[1].on_event = nack_jobs;
    mesh.members[2].on_event = nack_jobs;
    assert_int_equal(brk_consume(broker(1), mesh.now, "work", 1), ZQ_OK);
    assert_int_equal(brk_consume(broker(2), mesh.now, "work", 1), ZQ_OK);
    mesh_run_for(300);
    assert_int_equal(brk_enqueue(broker(0), mesh.now, "work", "\"poison\"", 8, NULL), ZQ_OK);
    assert_true(mesh_run(mesh.now + 10000, dead_lettered));
    assert_int_equal(mesh_count(1, BRK_EVENT_JOB, NULL) + mesh_count(2, BRK_EVENT_JOB, NULL), 3);
    /* After a nack, the job went to the other consumer first. */
    assert_true(mesh_count(1, BRK_EVENT_JOB, NULL) >= 1 && mesh_count(2, BRK_EVENT_JOB, NULL) >= 1);
    uint32_t attempts = 0;
    assert_int_equal(brk_dlq_list(broker(0), "work", dlq_count, &attempts), 1);
    assert_int_equal(attempts, 3);
    /* A fixed consumer, the dead letter requeued: processed, and the DLQ is empty. */
    mesh.members[1].on_event = ack_jobs;
    mesh.members[2].on_event = ack_jobs;
    assert_int_equal(brk_dlq_requeue(broker(0), mesh.now, "work"), 1);
    mesh_run_for(2000);
    assert_int_equal(brk_stats(broker(0))->jobs_done, 1);
    assert_int_equal(brk_dlq_list(broker(0), "work", NULL, NULL), 0);
}

static void a_full_job_store_says_would_block_and_then_writable(void **state)
{
    (void)state;
    room_of(2, 14, clean);
    size_t accepted = 0;
    zq_err_t err;
    while ((err = brk_enqueue(broker(0), mesh.now, "nobody", "0", 1, NULL)) == ZQ_OK) {
        accepted++;
    }
    assert_int_equal(err, ZQ_ERR_WOULD_BLOCK); /* no consumer: held, bounded, never dropped */
    assert_int_equal(accepted, ZQ_BRK_MAX_JOBS);
    mesh.members[1].on_event = ack_jobs;
    assert_int_equal(brk_consume(broker(1), mesh.now, "nobody", 4), ZQ_OK);
    mesh_run_for(3000);
    assert_true(mesh_count(0, BRK_EVENT_WRITABLE, NULL) >= 1);
    assert_int_equal(brk_stats(broker(0))->jobs_done, ZQ_BRK_MAX_JOBS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(messages_reach_exactly_the_subscribers_whose_patterns_match),
        cmocka_unit_test(
            publishing_with_no_peer_is_not_an_error_and_reaches_later_subscribers_as_last_value),
        cmocka_unit_test(bad_topics_and_payloads_are_refused_not_sent),
        cmocka_unit_test(jobs_are_processed_exactly_once_across_five_competing_consumers),
        cmocka_unit_test(a_job_held_by_a_crashed_consumer_goes_to_another),
        cmocka_unit_test(a_job_not_finished_within_its_lease_goes_to_another),
        cmocka_unit_test(a_job_nacked_max_attempts_times_is_dead_lettered_and_can_be_requeued),
        cmocka_unit_test(a_full_job_store_says_would_block_and_then_writable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

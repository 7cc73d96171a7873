/* What a broker built without a feature (zq/config.h, "Features") does when the feature is
 * asked for: its API says ZQ_ERR_SWITCHED_OFF, its hello does not offer it, and a peer's frame
 * that needs it is dropped and counted (brk_stats_t.rx_switched_off), never half served. Each
 * test is compiled where its switch is off (CI's minimal profile, config/zq_minimal_config.h,
 * turns all of these off); the status service, which the minimal profile keeps, is tested in
 * every build. Member 0 is the broker, member 1 speaks raw frames (tests/support/mesh.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "app/sensor.h"
#include "broker/frame.h"
#include "mesh.h"

static const simnet_impairment_t clean = {0, 0, 5, 0};

static bool two_connected(void)
{
    return mesh_all_connected(2);
}

static brk_t *broker(unsigned i)
{
    return &mesh.members[i].broker;
}

static bool raw_saw(const char *needle)
{
    const mesh_member_t *m = &mesh.members[1];
    for (size_t k = 0; k < m->n_raw; k++) {
        if (strstr(m->raw[k].text, needle) != NULL) {
            return true;
        }
    }
    return false;
}

/* Whether broker 0's hello to member 1 offers @p feature (a name of its "feat" array). */
static bool hello_offers(const char *feature)
{
    char quoted[32];
    (void)snprintf(quoted, sizeof quoted, "\"%s\"", feature);
    const mesh_member_t *m = &mesh.members[1];
    for (size_t k = 0; k < m->n_raw; k++) {
        const char *feat = strstr(m->raw[k].text, "\"feat\":[");
        if (strstr(m->raw[k].text, "\"type\":\"__zq_hello__\"") != NULL && feat != NULL) {
            const char *end = strchr(feat, ']');
            const char *at = strstr(feat, quoted);
            return at != NULL && end != NULL && at < end;
        }
    }
    fail_msg("member 1 was sent no hello");
    return false;
}

/* Broker 0 and raw member 1, connected, member 1 a zq peer (it said hello, offering every
 * feature): what it sends next is a zq peer's frame. */
static void zq_raw_room(uint64_t seed)
{
    mesh_reset(seed, clean);
    mesh_add("room", true, NULL, -1);
    mesh_add("room", false, NULL, -1);
    assert_true(mesh_run(mesh.now + 60000, two_connected));
    mesh_send_raw(1, 0, "{\"type\":\"__zq_hello__\",\"v\":1,\"epoch\":\"5f0c9a2e\",\"max\":8000,"
                        "\"feat\":[\"sub\",\"qos1\",\"queue\",\"rpc\",\"chunk\",\"replay\"]}");
    mesh_run_for(200);
}

static uint32_t switched_off_count(void)
{
    return brk_stats(broker(0))->rx_switched_off;
}

/* ---- Kept by the minimal profile: status (ZQ_BRK_REQUEST_SERVER) ------------------------- */

static sensor_t sensor;

static bool constant_read(void *ctx, uint64_t now, sensor_reading_t *out)
{
    (void)ctx, (void)now;
    out->temperature_centi = 2150;
    out->humidity_centi = 4000;
    return true;
}

static void sensor_answers(unsigned member, const brk_event_t *ev)
{
    (void)member;
    (void)sensor_handle_event(&sensor, mesh.now, ev);
}

static void a_zq_peer_s_status_request_is_answered_by_the_app(void **state)
{
    (void)state;
    zq_raw_room(1);
    mesh.members[0].on_event = sensor_answers;
    assert_int_equal(sensor_init(&sensor, broker(0), mesh.now, "sensor-1", 1000, constant_read,
                                 NULL),
                     ZQ_OK);
    assert_int_equal(sensor_start(&sensor, mesh.now), ZQ_OK);
    mesh_run_for(200);
    assert_true(hello_offers("sub") && hello_offers("rpc"));
    assert_true(raw_saw("\"status\"")); /* announced in the sub frame */
    mesh_send_raw(1, 0, "{\"id\":\"r-1\",\"topic\":\"status\",\"payload\":{},\"timestamp\":1,"
                        "\"seq\":0,\"retryCount\":0,\"k\":\"req\",\"corr\":\"c-1\","
                        "\"timeout\":5000}");
    mesh_run_for(200);
    assert_true(raw_saw("\"type\":\"__zq_rep__\""));
    assert_true(raw_saw("\"kind\":\"sensor\""));
    assert_int_equal(switched_off_count(), 0);
}

/* ---- ZQ_BRK_WORK_QUEUES 0 ---------------------------------------------------------------- */
#if !ZQ_BRK_WORK_QUEUES
static void a_build_without_work_queues_refuses_a_consume_with_a_clear_error(void **state)
{
    (void)state;
    zq_raw_room(2);
    char id[64];
    assert_int_equal(brk_consume(broker(0), mesh.now, "jobs", 1), ZQ_ERR_SWITCHED_OFF);
    assert_int_equal(brk_enqueue(broker(0), mesh.now, "jobs", "1", 1, id), ZQ_ERR_SWITCHED_OFF);
    assert_false(hello_offers("queue"));
    mesh_send_raw(1, 0, "{\"type\":\"__zq_ready__\",\"queue\":\"jobs\",\"credit\":4}");
    mesh_send_raw(1, 0, "{\"id\":\"j-1\",\"topic\":\"jobs\",\"payload\":1,\"timestamp\":1,"
                        "\"seq\":0,\"retryCount\":0,\"k\":\"job\",\"lease\":30000}");
    mesh_send_raw(1, 0, "{\"type\":\"__zq_done__\",\"id\":\"j-2\",\"ok\":true}");
    mesh_run_for(200);
    assert_int_equal(mesh_count(0, BRK_EVENT_JOB, NULL), 0);
    assert_int_equal(switched_off_count(), 3);
}
#endif

/* ---- ZQ_BRK_REQUEST_CLIENT 0 ------------------------------------------------------------- */
#if !ZQ_BRK_REQUEST_CLIENT
static void a_build_without_the_request_client_refuses_a_request_and_drops_a_reply(void **state)
{
    (void)state;
    zq_raw_room(3);
    uint32_t handle = 0;
    assert_int_equal(brk_request(broker(0), mesh.now, "status", "{}", 2, 0, 0, &handle),
                     ZQ_ERR_SWITCHED_OFF);
    mesh_send_raw(1, 0, "{\"type\":\"__zq_rep__\",\"corr\":\"c-1\",\"payload\":1,\"ok\":true}");
    mesh_run_for(200);
    assert_int_equal(mesh_count(0, BRK_EVENT_REPLY, NULL), 0);
    assert_int_equal(switched_off_count(), 1);
}
#endif

/* ---- ZQ_BRK_ZEROQ_COMPAT 0 --------------------------------------------------------------- */
#if !ZQ_BRK_ZEROQ_COMPAT
static void a_build_without_zeroq_compatibility_drops_a_peer_s_envelope_before_its_hello(
    void **state)
{
    (void)state;
    mesh_reset(4, clean);
    mesh_add("room", true, NULL, -1);
    mesh_add("room", false, NULL, -1);
    assert_true(mesh_run(mesh.now + 60000, two_connected));
    assert_int_equal(brk_subscribe(broker(0), mesh.now, "news"), ZQ_OK);
    mesh_send_raw(1, 0, "{\"type\":\"__gossip__\",\"peers\":[]}"); /* ZeroQ's dc.onopen */
    mesh_send_raw(1, 0, "{\"id\":\"3b241101-e2bb-4255-8caf-4136c566a962\",\"topic\":\"news\","
                        "\"payload\":1,\"timestamp\":1,\"seq\":0,\"retryCount\":0}");
    mesh_run_for(200);
    assert_int_equal(mesh_count(0, BRK_EVENT_MESSAGE, NULL), 0);
    assert_int_equal(switched_off_count(), 1);
}
#endif

/* ---- ZQ_BRK_CHUNKING 0 ------------------------------------------------------------------- */
#if !ZQ_BRK_CHUNKING
static void a_build_without_chunking_does_not_offer_it_and_drops_a_chunk(void **state)
{
    (void)state;
    zq_raw_room(5);
    assert_false(hello_offers("chunk"));
    static const char piece[] = "{\"type\":\"__zq_ready__\",\"queue\":\"q\",\"credit\":1}";
    brk_chunk_t c = {7, 0, 2, (const uint8_t *)piece, sizeof piece - 1}; /* the first of two */
    uint8_t msg[BRK_CHUNK_HEADER + sizeof piece];
    size_t n = brk_chunk_write(msg, sizeof msg, &c);
    assert_true(n > 0);
    int slot = mesh_slot(1, 0);
    assert_true(slot >= 0);
    assert_int_equal(node_send(&mesh.members[1].node, mesh.now, (uint8_t)slot, msg, n, true),
                     ZQ_OK);
    mesh_run_for(200);
    assert_int_equal(switched_off_count(), 1);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_zq_peer_s_status_request_is_answered_by_the_app),
#if !ZQ_BRK_WORK_QUEUES
        cmocka_unit_test(a_build_without_work_queues_refuses_a_consume_with_a_clear_error),
#endif
#if !ZQ_BRK_REQUEST_CLIENT
        cmocka_unit_test(a_build_without_the_request_client_refuses_a_request_and_drops_a_reply),
#endif
#if !ZQ_BRK_ZEROQ_COMPAT
        cmocka_unit_test(
            a_build_without_zeroq_compatibility_drops_a_peer_s_envelope_before_its_hello),
#endif
#if !ZQ_BRK_CHUNKING
        cmocka_unit_test(a_build_without_chunking_does_not_offer_it_and_drops_a_chunk),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

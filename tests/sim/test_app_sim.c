/* The demo's device apps (app/sensor.c, app/actuator.c) with a "dashboard" broker in a
 * simulated room: what `zq demo` shows, checked on the same code the devices run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "app/actuator.h"
#include "app/sensor.h"
#include "mesh.h"

static sensor_t sensor;
static actuator_t actuator;

/* Members: 0 the dashboard (a broker driven by the test), 1 the sensor, 2 the actuator. */
static void device_events(unsigned member, const brk_event_t *ev)
{
    if (member == 1) {
        (void)sensor_handle_event(&sensor, mesh.now, ev);
    } else if (member == 2) {
        (void)actuator_handle_event(&actuator, mesh.now, ev);
    }
}

static unsigned want_members = 3;

static bool all_up(void)
{
    return mesh_all_connected(want_members);
}

/* The devices' own timers, between the mesh's: run in small steps. */
static void run_devices(uint64_t ms)
{
    uint64_t until = mesh.now + ms;
    while (mesh.now < until) {
        uint64_t next = zq_time_min(sensor_next_timeout(&sensor), actuator_next_timeout(&actuator));
        uint64_t step = next > mesh.now ? next : mesh.now + 1;
        step = step > until ? until : step;
        step = step < mesh.now + 1 ? mesh.now + 1 : step;
        mesh_run(step, NULL);
        sensor_tick(&sensor, mesh.now);
        actuator_tick(&actuator, mesh.now);
    }
}

static int setup(void **state)
{
    (void)state;
    mesh_reset(7, (simnet_impairment_t){0, 0, 5, 0});
    want_members = 3;
    mesh_add("default-topic", true, NULL, -1);
    unsigned s = mesh_add("default-topic", true, NULL, -1);
    unsigned a = mesh_add("default-topic", true, NULL, -1);
    mesh.members[s].on_event = device_events;
    mesh.members[a].on_event = device_events;
    assert_int_equal(sensor_init(&sensor, &mesh.members[s].broker, mesh.now, "sensor-1", 1000,
                                 sensor_simulated_read, NULL),
                     ZQ_OK);
    assert_int_equal(actuator_init(&actuator, &mesh.members[a].broker, mesh.now, "actuator-1",
                                   200, NULL, NULL),
                     ZQ_OK);
    assert_int_equal(sensor_start(&sensor, mesh.now), ZQ_OK);
    assert_int_equal(actuator_start(&actuator, mesh.now), ZQ_OK);
    assert_true(mesh_run(mesh.now + 60000, all_up));
    return 0;
}

static brk_t *dashboard(void)
{
    return &mesh.members[0].broker;
}

static const mesh_event_t *last_event(brk_event_type_t type)
{
    const mesh_member_t *m = &mesh.members[0];
    for (size_t k = m->n_log; k-- > 0;) {
        if (m->log[k].type == type) {
            return &m->log[k];
        }
    }
    return NULL;
}

static void the_sensor_publishes_a_reading_every_second(void **state)
{
    (void)state;
    assert_int_equal(brk_subscribe(dashboard(), mesh.now, "sensors.#"), ZQ_OK);
    run_devices(10500);
    size_t n = mesh_count(0, BRK_EVENT_MESSAGE, "sensors.sensor-1");
    assert_true(n >= 9 && n <= 11);
    const mesh_event_t *e = last_event(BRK_EVENT_MESSAGE);
    float t = 0;
    float h = 0;
    unsigned long up = 0;
    assert_int_equal(sscanf(e->payload, "{\"temperature\":%f,\"humidity\":%f,\"uptime\":%lu}", &t,
                            &h, &up),
                     3);
    assert_true(t > 15 && t < 30 && h > 30 && h < 60);
    printf("    %zu readings in 10.5 s, last %s\n", n, e->payload);
}

/* Over a day, both readings stay within their waves' amplitude and really drift across it. */
static void the_simulated_reading_drifts_within_its_range(void **state)
{
    (void)state;
    int32_t t_min = INT32_MAX, t_max = INT32_MIN, h_min = INT32_MAX, h_max = INT32_MIN;
    for (uint64_t now = 0; now < 24u * 3600u * 1000u; now += 997) {
        sensor_reading_t r;
        assert_true(sensor_simulated_read(NULL, now, &r));
        t_min = r.temperature_centi < t_min ? r.temperature_centi : t_min;
        t_max = r.temperature_centi > t_max ? r.temperature_centi : t_max;
        h_min = r.humidity_centi < h_min ? r.humidity_centi : h_min;
        h_max = r.humidity_centi > h_max ? r.humidity_centi : h_max;
    }
    assert_true(t_min >= 2100 - 280 && t_max <= 2100 + 280 && t_max - t_min > 500);
    assert_true(h_min >= 4500 - 850 && h_max <= 4500 + 850 && h_max - h_min > 1600);
    printf("    temperature %d..%d, humidity %d..%d (hundredths)\n", (int)t_min, (int)t_max,
           (int)h_min, (int)h_max);
}

static void a_led_command_reaches_the_actuator_which_reports_its_state(void **state)
{
    (void)state;
    assert_int_equal(brk_subscribe(dashboard(), mesh.now, "actuators.+.led"), ZQ_OK);
    run_devices(500);
    assert_int_equal(brk_publish(dashboard(), mesh.now, "cmd.led", "\"on\"", 4, BRK_QOS_1),
                     ZQ_OK);
    run_devices(1000);
    assert_true(actuator.led_on);
    const mesh_event_t *e = last_event(BRK_EVENT_MESSAGE);
    assert_string_equal(e->topic, "actuators.actuator-1.led");
    assert_string_equal(e->payload, "{\"on\":true}");
    assert_int_equal(brk_publish(dashboard(), mesh.now, "cmd.led", "{\"state\":\"off\"}", 15,
                                 BRK_QOS_1),
                     ZQ_OK);
    run_devices(1000);
    assert_false(actuator.led_on);
}

static void a_queued_job_is_done_and_a_failing_one_is_dead_lettered(void **state)
{
    (void)state;
    char id[BRK_ID_MAX];
    assert_int_equal(brk_enqueue(dashboard(), mesh.now, "jobs", "{\"resize\":1}", 12, id),
                     ZQ_OK);
    assert_int_equal(brk_enqueue(dashboard(), mesh.now, "jobs", "{\"fail\":true}", 13, NULL),
                     ZQ_OK);
    run_devices(5000);
    assert_int_equal(actuator.jobs_done, 1);
    assert_int_equal(actuator.jobs_failed, 3);
    assert_int_equal(brk_stats(dashboard())->jobs_done, 1);
    assert_int_equal(brk_dlq_list(dashboard(), "jobs", NULL, NULL), 1);
}

static void status_requests_are_answered_by_each_device(void **state)
{
    (void)state;
    run_devices(2000);
    uint32_t h = 0;
    assert_int_equal(brk_request(dashboard(), mesh.now, "status", "{}", 2, 1000, 1, &h), ZQ_OK);
    run_devices(1000);
    const mesh_event_t *e = last_event(BRK_EVENT_REPLY);
    assert_non_null(e);
    assert_true(e->ok);
    assert_true(strstr(e->payload, "\"kind\":\"sensor\"") != NULL ||
                strstr(e->payload, "\"kind\":\"actuator\"") != NULL);
    printf("    status: %s\n", e->payload);
}

/* The devices and member 3, a plain ZeroQ page (raw frames: no broker). */
static int setup_with_zeroq(void **state)
{
    (void)setup(state);
    mesh_add("default-topic", false, NULL, -1);
    want_members = 4;
    assert_true(mesh_run(mesh.now + 60000, all_up));
    mesh_send_raw(3, 2, "{\"type\":\"__gossip__\",\"peers\":[]}"); /* ZeroQ's dc.onopen */
    run_devices(100);
    return 0;
}

/* A ZeroQ producer broadcasts jobs regardless of the actuator's credit of 1: it works them
 * in turn, and nacks none (a nack would have every ZeroQ consumer run the job again). */
static void jobs_a_zeroq_page_broadcasts_are_worked_in_turn(void **state)
{
    (void)state;
    for (int n = 0; n < 3; n++) {
        char job[128];
        (void)snprintf(job, sizeof job,
                       "{\"id\":\"z%d\",\"topic\":\"jobs\",\"payload\":{\"n\":%d},"
                       "\"timestamp\":1,\"seq\":0,\"retryCount\":0}",
                       n, n);
        mesh_send_raw(3, 2, job);
    }
    run_devices(2000);
    assert_int_equal(actuator.jobs_done, 3);
    for (size_t k = 0; k < mesh.members[3].n_raw; k++) {
        assert_null(strstr(mesh.members[3].raw[k].text, "\"retryCount\":1"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(the_sensor_publishes_a_reading_every_second, setup),
        cmocka_unit_test(the_simulated_reading_drifts_within_its_range),
        cmocka_unit_test_setup(a_led_command_reaches_the_actuator_which_reports_its_state, setup),
#if ZQ_BRK_WORK_QUEUES
        cmocka_unit_test_setup(a_queued_job_is_done_and_a_failing_one_is_dead_lettered, setup),
#endif
#if ZQ_BRK_REQUEST_CLIENT /* the dashboard asks; test_brk_switched_off asks without it */
        cmocka_unit_test_setup(status_requests_are_answered_by_each_device, setup),
#endif
#if ZQ_BRK_WORK_QUEUES && ZQ_BRK_ZEROQ_COMPAT
        cmocka_unit_test_setup(jobs_a_zeroq_page_broadcasts_are_worked_in_turn, setup_with_zeroq),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

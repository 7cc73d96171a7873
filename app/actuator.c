/* The demo's actuator device (see actuator.h). */
#include <string.h>

#include "app/actuator.h"
#include "app/app.h"
#include "zq/json.h"
#include "zq/text.h"

zq_err_t actuator_init(actuator_t *a, brk_t *brk, uint64_t now, const char *name,
                       uint32_t job_ms, actuator_led_fn led, void *led_ctx)
{
    if (brk == NULL || !app_name_ok(name)) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(a, 0, sizeof *a);
    a->brk = brk;
    memcpy(a->name, name, strlen(name) + 1);
    zq_writer_t topic = zq_text_writer(a->led_topic, sizeof a->led_topic);
    zq_write_str(&topic, "actuators.");
    zq_write_str(&topic, name);
    zq_write_str(&topic, ".led");
    (void)zq_text_end(&topic); /* sized for the longest name app_name_ok() takes */
    a->job_ms = job_ms;
    a->led = led;
    a->led_ctx = led_ctx;
    a->started_at = now;
    a->led_report_due = true;
    return ZQ_OK;
}

zq_err_t actuator_start(actuator_t *a, uint64_t now)
{
    zq_err_t err = brk_subscribe(a->brk, now, "cmd.led");
    if (err == ZQ_OK && ZQ_BRK_WORK_QUEUES) { /* a build without work queues takes no jobs */
        err = brk_consume(a->brk, now, "jobs", 1); /* one job at a time */
    }
    if (err == ZQ_OK && ZQ_BRK_REQUEST_SERVER) {
        err = brk_serve(a->brk, now, "status");
    }
    return err;
}

static void set_led(actuator_t *a, bool on)
{
    if (a->led != NULL) {
        a->led(a->led_ctx, on);
    }
    a->led_report_due = a->led_report_due || a->led_on != on;
    a->led_on = on;
}

/* "on", "off", "toggle", or {"state":"on"}. */
static void obey(actuator_t *a, brk_str_t payload)
{
    a->commands++;
    if (app_payload_says(payload, "state", "on")) {
        set_led(a, true);
    } else if (app_payload_says(payload, "state", "off")) {
        set_led(a, false);
    } else if (app_payload_says(payload, "state", "toggle")) {
        set_led(a, !a->led_on);
    }
}

/* A job whose payload is {"fail":true, ...} fails: how the demo shows nacks and dead letters. */
static bool asks_to_fail(brk_str_t payload)
{
    json_value_t v;
    json_value_t fail;
    bool yes = false;
    return json_parse(payload.p, payload.len, &v) == ZQ_OK && json_type(v) == JSON_OBJECT &&
           json_object_get(v, "fail", &fail) == ZQ_OK && json_get_bool(fail, &yes) && yes;
}

static void start_job(actuator_t *a, uint64_t now, uint32_t handle, bool fails)
{
    a->working = true;
    a->job_handle = handle;
    a->job_fails = fails;
    a->job_done_at = now + a->job_ms;
}

/* A job now, or after the ones before it. A nack would make a ZeroQ mesh run it again
 * everywhere (zeroq-wire.md §4), so only a job beyond the backlog is nacked. */
static void take_job(actuator_t *a, uint64_t now, const brk_event_t *ev)
{
    bool fails = asks_to_fail(ev->payload);
    if (!a->working) {
        start_job(a, now, ev->handle, fails);
    } else if (a->backlog_count < ZQ_BRK_MAX_HELD) {
        unsigned at = (a->backlog_head + a->backlog_count++) % ZQ_BRK_MAX_HELD;
        a->backlog[at].handle = ev->handle;
        a->backlog[at].fails = fails;
    } else {
        (void)brk_job_done(a->brk, now, ev->handle, false); /* only a job with handle 0 */
    }
}

static void next_job(actuator_t *a, uint64_t now)
{
    if (a->backlog_count > 0) {
        unsigned at = a->backlog_head;
        a->backlog_head = (uint8_t)((at + 1u) % ZQ_BRK_MAX_HELD);
        a->backlog_count--;
        start_job(a, now, a->backlog[at].handle, a->backlog[at].fails);
    }
}

static void answer_status(actuator_t *a, uint64_t now, uint32_t handle)
{
    char json[192];
    zq_writer_t w = zq_text_writer(json, sizeof json);
    zq_write_str(&w, "{\"name\":\"");
    zq_write_str(&w, a->name);
    zq_write_str(&w, "\",\"kind\":\"actuator\",\"uptime\":");
    zq_write_udec(&w, (now - a->started_at) / 1000u);
    zq_write_str(&w, a->led_on ? ",\"led\":\"on\"" : ",\"led\":\"off\"");
    zq_write_str(&w, ",\"jobs_done\":");
    zq_write_udec(&w, a->jobs_done);
    zq_write_str(&w, ",\"jobs_failed\":");
    zq_write_udec(&w, a->jobs_failed);
    zq_write_str(&w, ",\"commands\":");
    zq_write_udec(&w, a->commands);
    zq_write_char(&w, '}');
    size_t n = zq_text_end(&w);
    if (n > 0) {
        app_reply_status(a->brk, now, handle, json, n);
    }
}

bool actuator_handle_event(actuator_t *a, uint64_t now, const brk_event_t *ev)
{
    if (ev->type == BRK_EVENT_MESSAGE && ev->topic.len == 7 &&
        memcmp(ev->topic.p, "cmd.led", 7) == 0) {
        obey(a, ev->payload);
        return true;
    }
    if (ev->type == BRK_EVENT_JOB) {
        take_job(a, now, ev);
        return true;
    }
    if (ev->type == BRK_EVENT_REQUEST && ev->topic.len == 6 &&
        memcmp(ev->topic.p, "status", 6) == 0) {
        answer_status(a, now, ev->handle);
        return true;
    }
    return false;
}

static void finish_job(actuator_t *a, uint64_t now)
{
    if (brk_job_done(a->brk, now, a->job_handle, !a->job_fails) == ZQ_ERR_WOULD_BLOCK) {
        a->job_done_at = now + 10; /* the channel is full: tell the producer a moment later */
        return;
    }
    a->working = false;
    if (a->job_fails) {
        a->jobs_failed++;
    } else {
        a->jobs_done++;
    }
    next_job(a, now);
}

void actuator_tick(actuator_t *a, uint64_t now)
{
    if (a->working && now >= a->job_done_at) {
        finish_job(a, now);
    }
    if (a->led_report_due && now >= a->led_retry_at) {
        const char *json = a->led_on ? "{\"on\":true}" : "{\"on\":false}";
        /* QoS 1: the dashboard must not miss a state change. */
        a->led_report_due = brk_publish(a->brk, now, a->led_topic, json, strlen(json),
                                        BRK_QOS_1) != ZQ_OK;
        a->led_retry_at = now + 100; /* if it could not go, again a little later */
    }
}

uint64_t actuator_next_timeout(const actuator_t *a)
{
    uint64_t t = a->working ? a->job_done_at : ZQ_TIME_NEVER;
    return a->led_report_due ? zq_time_min(t, a->led_retry_at) : t;
}

/* The demo's sensor device (see sensor.h). */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/sensor.h"

zq_err_t sensor_init(sensor_t *s, brk_t *brk, uint64_t now, const char *name,
                     uint32_t period_ms, sensor_read_fn read, void *read_ctx)
{
    if (brk == NULL || read == NULL || period_ms == 0 || !app_name_ok(name)) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(s, 0, sizeof *s);
    s->brk = brk;
    memcpy(s->name, name, strlen(name) + 1);
    (void)snprintf(s->topic, sizeof s->topic, "sensors.%s", name);
    s->period_ms = period_ms;
    s->read = read;
    s->read_ctx = read_ctx;
    s->started_at = now;
    s->next_at = now;
    return ZQ_OK;
}

zq_err_t sensor_start(sensor_t *s, uint64_t now)
{
    return brk_serve(s->brk, now, "status");
}

static long centi(double v)
{
    return (long)(v * 100.0 + (v < 0 ? -0.5 : 0.5));
}

/* {"temperature":21.34,"humidity":45.10,"uptime":123} */
static size_t reading_json(const sensor_t *s, uint64_t now, char *out, size_t cap)
{
    char t[24];
    char h[24];
    if (app_format_centi(t, sizeof t, centi(s->last.temperature)) == 0 ||
        app_format_centi(h, sizeof h, centi(s->last.humidity)) == 0) {
        return 0;
    }
    int n = snprintf(out, cap, "{\"temperature\":%s,\"humidity\":%s,\"uptime\":%lu}", t, h,
                     (unsigned long)((now - s->started_at) / 1000u));
    return n > 0 && (size_t)n < cap ? (size_t)n : 0;
}

void sensor_tick(sensor_t *s, uint64_t now)
{
    if (now < s->next_at) {
        return;
    }
    s->next_at += s->period_ms;
    if (s->next_at <= now) { /* far behind (a stall): keep the rhythm from now on */
        s->next_at = now + s->period_ms;
    }
    char json[128];
    size_t n = 0;
    if (s->read(s->read_ctx, now, &s->last)) {
        n = reading_json(s, now, json, sizeof json);
    }
    /* QoS 0: telemetry is a stream; a reading that cannot go now is superseded by the next. */
    if (n > 0 && brk_publish(s->brk, now, s->topic, json, n, BRK_QOS_0) == ZQ_OK) {
        s->published++;
    } else {
        s->missed++;
    }
}

uint64_t sensor_next_timeout(const sensor_t *s)
{
    return s->next_at;
}

bool sensor_handle_event(sensor_t *s, uint64_t now, const brk_event_t *ev)
{
    if (ev->type != BRK_EVENT_REQUEST || ev->topic.len != 6 ||
        memcmp(ev->topic.p, "status", 6) != 0) {
        return false;
    }
    char t[24];
    char json[160];
    (void)app_format_centi(t, sizeof t, centi(s->last.temperature));
    int n = snprintf(json, sizeof json,
                     "{\"name\":\"%s\",\"kind\":\"sensor\",\"uptime\":%lu,\"published\":%lu,"
                     "\"temperature\":%s}",
                     s->name, (unsigned long)((now - s->started_at) / 1000u),
                     (unsigned long)s->published, t);
    if (n > 0 && (size_t)n < sizeof json) {
        app_reply_status(s->brk, now, ev->handle, json, (size_t)n);
    }
    return true;
}

/* A triangle wave of the given period between -1 and 1: a smooth-looking drift without libm. */
static double triangle(uint64_t now, uint64_t period)
{
    double x = (double)(now % period) / (double)period; /* 0..1 */
    return x < 0.5 ? 4.0 * x - 1.0 : 3.0 - 4.0 * x;
}

bool sensor_simulated_read(void *ctx, uint64_t now, sensor_reading_t *out)
{
    (void)ctx;
    out->temperature = 21.0 + 2.5 * triangle(now, 120000) + 0.3 * triangle(now, 7000);
    out->humidity = 45.0 + 8.0 * triangle(now + 30000, 180000) + 0.5 * triangle(now, 11000);
    return true;
}

/* The demo's sensor device (see sensor.h). */
#include <string.h>

#include "app/app.h"
#include "app/sensor.h"
#include "zq/text.h"

zq_err_t sensor_init(sensor_t *s, brk_t *brk, uint64_t now, const char *name,
                     uint32_t period_ms, sensor_read_fn read, void *read_ctx)
{
    if (brk == NULL || read == NULL || period_ms == 0 || !app_name_ok(name)) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(s, 0, sizeof *s);
    s->brk = brk;
    memcpy(s->name, name, strlen(name) + 1);
    zq_writer_t topic = zq_text_writer(s->topic, sizeof s->topic);
    zq_write_str(&topic, "sensors.");
    zq_write_str(&topic, name);
    (void)zq_text_end(&topic); /* sized for the longest name app_name_ok() takes */
    s->period_ms = period_ms;
    s->read = read;
    s->read_ctx = read_ctx;
    s->started_at = now;
    s->next_at = now;
    return ZQ_OK;
}

zq_err_t sensor_start(sensor_t *s, uint64_t now)
{
    /* A build without the request server (ZQ_BRK_REQUEST_SERVER 0) publishes only. */
    return ZQ_BRK_REQUEST_SERVER ? brk_serve(s->brk, now, "status") : ZQ_OK;
}

/* {"temperature":21.34,"humidity":45.10,"uptime":123} */
static size_t reading_json(const sensor_t *s, uint64_t now, char *out, size_t cap)
{
    zq_writer_t w = zq_text_writer(out, cap);
    zq_write_str(&w, "{\"temperature\":");
    app_write_centi(&w, s->last.temperature_centi);
    zq_write_str(&w, ",\"humidity\":");
    app_write_centi(&w, s->last.humidity_centi);
    zq_write_str(&w, ",\"uptime\":");
    zq_write_udec(&w, (now - s->started_at) / 1000u);
    zq_write_char(&w, '}');
    return zq_text_end(&w);
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
    char json[160];
    zq_writer_t w = zq_text_writer(json, sizeof json);
    zq_write_str(&w, "{\"name\":\"");
    zq_write_str(&w, s->name);
    zq_write_str(&w, "\",\"kind\":\"sensor\",\"uptime\":");
    zq_write_udec(&w, (now - s->started_at) / 1000u);
    zq_write_str(&w, ",\"published\":");
    zq_write_udec(&w, s->published);
    zq_write_str(&w, ",\"temperature\":");
    app_write_centi(&w, s->last.temperature_centi);
    zq_write_char(&w, '}');
    size_t n = zq_text_end(&w);
    if (n > 0) {
        app_reply_status(s->brk, now, ev->handle, json, n);
    }
    return true;
}

/* A triangle wave of the given period, in thousandths between -1000 and 1000: a smooth-looking
 * drift without libm or floating point. */
static int32_t triangle_milli(uint64_t now, uint32_t period)
{
    int32_t x = (int32_t)(((now % period) * 4000u) / period); /* 0..3999 */
    return x < 2000 ? x - 1000 : 3000 - x;
}

bool sensor_simulated_read(void *ctx, uint64_t now, sensor_reading_t *out)
{
    (void)ctx;
    /* 21.00 °C ± 2.50 over two minutes, ± 0.30 over 7 s; 45.00 % ± 8.00 and ± 0.50. */
    out->temperature_centi =
        2100 + (250 * triangle_milli(now, 120000) + 30 * triangle_milli(now, 7000)) / 1000;
    out->humidity_centi =
        4500 + (800 * triangle_milli(now + 30000, 180000) + 50 * triangle_milli(now, 11000)) / 1000;
    return true;
}

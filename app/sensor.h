/**
 * @file sensor.h
 * @brief The demo's sensor device: publishes its readings on `sensors.<name>` every period,
 *        and answers `status` requests. Portable device code: the same file runs in `zq demo`
 *        (port/posix, simulated readings) and on an ESP32 (examples/, a real sensor).
 *
 * Sans-IO like the broker under it: the caller gives it `now` and its broker events, and
 * calls sensor_tick() at sensor_next_timeout().
 */
#ifndef ZQ_APP_SENSOR_H
#define ZQ_APP_SENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broker/brk.h"

/* Hundredths, as the JSON carries them: a device needs no floating point (the ESP32-C3 has no
 * FPU, the ESP32's is single precision) and links no soft-float library for its readings. */
typedef struct {
    int32_t temperature_centi; /**< 0.01 °C */
    int32_t humidity_centi;    /**< 0.01 % relative */
} sensor_reading_t;

/** Reads the sensor; false if it could not (the tick publishes nothing, and says so). */
typedef bool (*sensor_read_fn)(void *ctx, uint64_t now, sensor_reading_t *out);

typedef struct {
    brk_t *brk;               /* borrowed */
    char name[32];
    char topic[48];           /* sensors.<name> */
    uint32_t period_ms;
    sensor_read_fn read;
    void *read_ctx;
    uint64_t started_at;
    uint64_t next_at;
    uint32_t published;
    uint32_t missed;          /* periods whose publish would block (the next one catches up) */
    sensor_reading_t last;
} sensor_t;

/** @p name: 1-31 characters of [A-Za-z0-9_-]. @return ZQ_OK, ZQ_ERR_INVALID_ARG. */
zq_err_t sensor_init(sensor_t *s, brk_t *brk, uint64_t now, const char *name,
                     uint32_t period_ms, sensor_read_fn read, void *read_ctx);

/** Serves `status` (call once the broker runs). */
zq_err_t sensor_start(sensor_t *s, uint64_t now);

/** Publishes a reading when one is due. */
void sensor_tick(sensor_t *s, uint64_t now);
uint64_t sensor_next_timeout(const sensor_t *s);

/** A broker event: answers the `status` requests addressed to it. @return whether it was
 *  the sensor's. */
bool sensor_handle_event(sensor_t *s, uint64_t now, const brk_event_t *ev);

/** A plausible reading that drifts slowly, for a device without the hardware: deterministic
 *  in @p now (two triangle waves each: a slow drift and a small wobble), integers only. */
bool sensor_simulated_read(void *ctx, uint64_t now, sensor_reading_t *out);

#endif /* ZQ_APP_SENSOR_H */

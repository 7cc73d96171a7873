/**
 * @file actuator.h
 * @brief The demo's actuator device: obeys `cmd.led` ("on", "off", or {"state":"on"}),
 *        reports its LED on `actuators.<name>.led`, works the `jobs` queue (each job takes a
 *        little while, then is acked; a payload {"fail":true} is nacked), and answers
 *        `status`. Portable device code (see sensor.h).
 */
#ifndef ZQ_APP_ACTUATOR_H
#define ZQ_APP_ACTUATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broker/brk.h"

/** Drives the real LED (NULL: none, as in the simulated device). */
typedef void (*actuator_led_fn)(void *ctx, bool on);

typedef struct {
    brk_t *brk;               /* borrowed */
    char name[32];
    char led_topic[48];       /* actuators.<name>.led */
    actuator_led_fn led;
    void *led_ctx;
    bool led_on;
    bool led_report_due;      /* the state is to be published (it changed, or at start) */
    uint64_t led_retry_at;
    uint32_t job_ms;          /* how long a job takes */
    bool working;
    uint32_t job_handle;
    bool job_fails;
    /* Jobs beyond our credit of 1 (a ZeroQ producer broadcasts without credit), worked in
     * turn: as many as the broker can hold for us. */
    struct {
        uint32_t handle;
        bool fails;
    } backlog[ZQ_BRK_MAX_HELD];
    uint8_t backlog_head, backlog_count;
    uint64_t job_done_at;
    uint64_t started_at;
    uint32_t jobs_done;
    uint32_t jobs_failed;
    uint32_t commands;
} actuator_t;

zq_err_t actuator_init(actuator_t *a, brk_t *brk, uint64_t now, const char *name,
                       uint32_t job_ms, actuator_led_fn led, void *led_ctx);
/** Subscribes to cmd.led, consumes `jobs`, serves `status`. */
zq_err_t actuator_start(actuator_t *a, uint64_t now);
void actuator_tick(actuator_t *a, uint64_t now);
uint64_t actuator_next_timeout(const actuator_t *a);
bool actuator_handle_event(actuator_t *a, uint64_t now, const brk_event_t *ev);

#endif /* ZQ_APP_ACTUATOR_H */

/* The POSIX port's clock, random source and log sink. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "port/posix/psa_random.h"
#include "port/zq_port.h"
#include "psa/crypto.h"
#include "zq/log.h"

/* Log timestamps count from zq_port_init(), so a run reads from 0 rather than from boot. */
static uint64_t log_origin_ms;

uint64_t zq_port_now_ms(void)
{
    struct timespec ts;
    /* CLOCK_MONOTONIC cannot fail with a valid pointer on Linux; it also ignores settimeofday,
     * so `now` never jumps back when NTP steps the wall clock. */
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static const char *level_name(int level)
{
    switch (level) {
    case ZQ_LOG_ERROR:
        return "error";
    case ZQ_LOG_WARN:
        return "warn";
    case ZQ_LOG_INFO:
        return "info";
    default:
        return "debug";
    }
}

static void stderr_sink(int level, const char *module, const char *line)
{
    /* One fputs of a whole line: stderr is unbuffered, so several fprintf pieces could
     * interleave with another process writing to the same terminal. */
    char out[ZQ_LOG_LINE_MAX + 64];
    uint64_t ms = zq_port_now_ms() - log_origin_ms;
    (void)snprintf(out, sizeof out, "%8" PRIu64 " ms zq[%s] %s: %s\n", ms, level_name(level),
                   module, line);
    (void)fputs(out, stderr);
}

zq_err_t zq_port_init(void)
{
    log_origin_ms = zq_port_now_ms();
    zq_log_set_sink(stderr_sink);
    return ZQ_OK;
}

/* mbedTLS's f_rng convention: 0 on success, a negative error code otherwise (PSA's, which both
 * mbedTLS 3.6 and 4 pass through). */
static int getrandom_fill(void *ctx, unsigned char *out, size_t len)
{
    if (zq_posix_getrandom(ctx, out, len) != 0) {
        ZQ_LOGE("port", "getrandom: %s", strerror(errno));
        return (int)PSA_ERROR_INSUFFICIENT_ENTROPY;
    }
    return 0;
}

zq_rand_t zq_port_rand(void)
{
    zq_rand_t r = {getrandom_fill, NULL};
    return r;
}

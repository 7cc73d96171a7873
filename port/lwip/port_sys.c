/* The lwIP port's clock, random generator and console (port/zq_port.h, zq_lwip.h).
 *
 * Randomness: one CTR_DRBG (NIST SP 800-90A, AES-256) seeded from the board's entropy hook on
 * first use, and reseeded from it every MBEDTLS_CTR_DRBG_RESEED_INTERVAL requests. zq's
 * zq_rand_t (ICE transaction ids, ufrag and password, SCTP tags, WebSocket masks) and PSA's
 * external RNG (the identity's key, each handshake's randoms and ECDHE keys) both draw from
 * it. A board whose hook fails leaves the generator unseeded: every request fails, so no key
 * is ever made from a guess. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mbedtls/ctr_drbg.h"
#include "port/lwip/zq_lwip.h"
#include "psa/crypto.h"
#include "zq/config.h"
#include "zq/log.h"

/* A console line: a zq log line (ZQ_LOG_LINE_MAX) with its time, level and module. */
#define CONSOLE_LINE_MAX (ZQ_LOG_LINE_MAX + 48)

static mbedtls_ctr_drbg_context drbg;
static bool drbg_seeded;

/* mbedTLS's entropy callback convention: 0 when @p out is filled. */
static int board_entropy(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    return zq_lwip_board_entropy(out, len) == 0 ? 0 : MBEDTLS_ERR_CTR_DRBG_ENTROPY_SOURCE_FAILED;
}

static int drbg_fill(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    if (!drbg_seeded) {
        static const unsigned char personal[] = "zq lwip port";
        mbedtls_ctr_drbg_init(&drbg);
        if (mbedtls_ctr_drbg_seed(&drbg, board_entropy, NULL, personal, sizeof personal - 1) !=
            0) {
            return MBEDTLS_ERR_CTR_DRBG_ENTROPY_SOURCE_FAILED;
        }
        drbg_seeded = true;
    }
    /* One request gives at most MBEDTLS_CTR_DRBG_MAX_REQUEST bytes (1024). */
    while (len > 0) {
        size_t n = len < MBEDTLS_CTR_DRBG_MAX_REQUEST ? len : MBEDTLS_CTR_DRBG_MAX_REQUEST;
        int rc = mbedtls_ctr_drbg_random(&drbg, out, n);
        if (rc != 0) {
            return rc;
        }
        out += n;
        len -= n;
    }
    return 0;
}

zq_rand_t zq_port_rand(void)
{
    zq_rand_t r = {drbg_fill, NULL};
    return r;
}

psa_status_t mbedtls_psa_external_get_random(mbedtls_psa_external_random_context_t *context,
                                             uint8_t *output, size_t output_size,
                                             size_t *output_length)
{
    (void)context;
    if (drbg_fill(NULL, output, output_size) != 0) {
        *output_length = 0;
        return PSA_ERROR_INSUFFICIENT_ENTROPY;
    }
    *output_length = output_size;
    return PSA_SUCCESS;
}

uint64_t zq_port_now_ms(void)
{
    return zq_lwip_board_now_ms();
}

static void console_line(char *line, size_t cap, int n)
{
    size_t len = n < 0 ? 0 : (size_t)n;
    if (len > cap - 2) {
        len = cap - 2; /* truncated by vsnprintf: still a whole line */
    }
    line[len++] = '\n';
    zq_lwip_board_console(line, len);
}

void zq_lwip_printf(const char *fmt, ...)
{
    char line[CONSOLE_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    console_line(line, sizeof line, n);
}

static const char *level_name(int level)
{
    return level == ZQ_LOG_ERROR ? "E" : level == ZQ_LOG_WARN ? "W" : level == ZQ_LOG_INFO ? "I"
                                                                                           : "D";
}

/* zq's log lines on the console, with the time since boot: "[12.345] W ice: ...". */
static void console_sink(int level, const char *module, const char *line)
{
    uint64_t now = zq_lwip_board_now_ms();
    zq_lwip_printf("[%lu.%03u] %s %s: %s", (unsigned long)(now / 1000u), (unsigned)(now % 1000u),
                   level_name(level), module, line);
}

zq_err_t zq_port_init(void)
{
    zq_log_set_sink(console_sink);
    return ZQ_OK;
}

uint32_t zq_lwip_rand32(void)
{
    uint32_t v = 0;
    /* A failed draw (no entropy) leaves 0: lwIP's ISN and port choice still work, and the
     * DRBG's refusal already stopped everything that needs secrecy. */
    (void)drbg_fill(NULL, (unsigned char *)&v, sizeof v);
    return v;
}

/* The lwIP board's wall clock (see zq_lwip.h): UTC seconds, set once from outside (the
 * configuration block, an RTC, SNTP) and carried on by the board's millisecond clock. mbedTLS
 * reads it to check certificates' dates when the image has TLS (config/zq_mbedtls_lwip_config.h
 * binds mbedtls_time() to zq_lwip_wall_time()). Unset, it is unknown, and says so: dates are
 * then refused rather than compared with 1970. */
#include "port/lwip/zq_lwip.h"

#include "mbedtls/build_info.h"

static bool known;
static int64_t epoch_at_zero; /* UTC seconds when zq_lwip_board_now_ms() read 0 */

void zq_lwip_wall_clock_set(int64_t unix_s)
{
    epoch_at_zero = unix_s - (int64_t)(zq_lwip_board_now_ms() / 1000u);
    known = true;
}

bool zq_lwip_wall_clock_known(void)
{
    return known;
}

time_t zq_lwip_wall_time(time_t *out)
{
    time_t t = known ? (time_t)(epoch_at_zero + (int64_t)(zq_lwip_board_now_ms() / 1000u))
                     : (time_t)-1;
    if (out != NULL) {
        *out = t;
    }
    return t;
}

#if defined(MBEDTLS_PLATFORM_MS_TIME_ALT)
#include "mbedtls/platform_time.h"
#include "mbedtls/platform_util.h"

/* mbedTLS's elapsed-time source (session ages): any monotonic milliseconds do. */
mbedtls_ms_time_t mbedtls_ms_time(void)
{
    return (mbedtls_ms_time_t)zq_lwip_board_now_ms();
}

/* An unknown date converts to nothing: mbedTLS then takes every certificate as out of its
 * validity period (x509.c), never as valid. */
struct tm *mbedtls_platform_gmtime_r(const mbedtls_time_t *tt, struct tm *tm_buf)
{
    return known ? gmtime_r(tt, tm_buf) : NULL;
}
#endif

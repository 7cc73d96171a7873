/**
 * @file zq_mbedtls_lwip_config.h
 * @brief mbedTLS 3.6 for an lwIP board (port/lwip, the firmware of firmware/): zq's
 *        configuration (zq_mbedtls_config.h) with mbedTLS's calloc and free bound at compile
 *        time to zq's arena (port/lwip/mbedtls_arena.c over port/arena/arena.c), and CTR_DRBG
 *        for the port's random generator.
 *
 * With MBEDTLS_PLATFORM_CALLOC_MACRO and MBEDTLS_PLATFORM_FREE_MACRO, mbedtls_calloc and
 * mbedtls_free are those functions and nothing else (mbedtls/platform.h): mbedTLS keeps no
 * pointer to a default allocator, so the image links no calloc or free of the C library
 * (MBEDTLS_MEMORY_BUFFER_ALLOC_C's runtime mbedtls_platform_set_calloc_free() would keep
 * libc's as the default until it is called). The firmware's link refuses the C heap.
 *
 * CTR_DRBG (NIST SP 800-90A, AES-256) is the generator the port seeds from the board's
 * entropy hook (port/lwip/zq_lwip.h): PSA's external RNG and zq's zq_rand_t both draw from it.
 */
#ifndef ZQ_MBEDTLS_LWIP_CONFIG_H
#define ZQ_MBEDTLS_LWIP_CONFIG_H

#include <stddef.h>

#include "zq_mbedtls_config.h"

#undef MBEDTLS_MEMORY_BUFFER_ALLOC_C
#undef MBEDTLS_MEMORY_DEBUG /* that allocator's counters: the arena keeps its own */

void *zq_lwip_mbedtls_calloc(size_t n, size_t size);
void zq_lwip_mbedtls_free(void *p);
#define MBEDTLS_PLATFORM_CALLOC_MACRO zq_lwip_mbedtls_calloc
#define MBEDTLS_PLATFORM_FREE_MACRO zq_lwip_mbedtls_free

#define MBEDTLS_CTR_DRBG_C

/* With TLS (ZQ_MBEDTLS_WITH_TLS: wss:// signalling), certificates' dates are checked against
 * the port's wall clock (port/lwip/wall_clock.c), not libc's, which a board without system
 * calls does not have: mbedtls_time() is the port's; mbedtls_ms_time() (which mbedTLS has no
 * portable default for) and gmtime_r() (newlib's, which keeps no state) come from there too. */
#if defined(ZQ_MBEDTLS_WITH_TLS)
#include <time.h>
time_t zq_lwip_wall_time(time_t *out);
#define MBEDTLS_PLATFORM_TIME_MACRO zq_lwip_wall_time
#define MBEDTLS_PLATFORM_MS_TIME_ALT
#define MBEDTLS_PLATFORM_GMTIME_R_ALT
#endif

#endif /* ZQ_MBEDTLS_LWIP_CONFIG_H */

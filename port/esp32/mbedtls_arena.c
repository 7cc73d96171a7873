/* mbedTLS's memory on ESP-IDF, bounded: with CONFIG_MBEDTLS_CUSTOM_MEM_ALLOC, ESP-IDF's
 * esp_config.h leaves MBEDTLS_PLATFORM_MEMORY on without its own allocator
 * (components/mbedtls/port/include/mbedtls/esp_config.h, v5.5.5 and v6.0.2) and expects the
 * application to call mbedtls_platform_set_calloc_free() (the Kconfig's help). This gives it:
 *
 * - what zq's task allocates comes from a static arena of CONFIG_ZQ_ESP32_MBEDTLS_ARENA bytes
 *   (arena.h), and a request it cannot hold fails (mbedTLS reports an allocation error, the
 *   handshake fails, the node tries again later): zq's mbedTLS memory has a cap;
 * - every other task's mbedTLS use (Wi-Fi's WPA3 and enterprise crypto, esp-tls, HTTPS)
 *   allocates from ESP-IDF's internal heap as the default strategy
 *   (CONFIG_MBEDTLS_INTERNAL_MEM_ALLOC) would: zq neither starves them nor is starved by them.
 *
 * A free goes to the arena when the pointer is in it, to the heap otherwise (blocks allocated
 * before the switch included). Only zq's task allocates from the arena and frees into it
 * (zq's mbedTLS objects live in its state, which nothing else touches): no lock. */
#include "port/esp32/mbedtls_arena.h"

#include <string.h>

#include "sdkconfig.h"
#include "zq_esp32.h"

#if CONFIG_MBEDTLS_CUSTOM_MEM_ALLOC

#include "esp_heap_caps.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"
#include "mbedtls/platform.h"
#include "port/arena/arena.h"

static uint8_t arena_buf[CONFIG_ZQ_ESP32_MBEDTLS_ARENA] __attribute__((aligned(ZQ_ARENA_ALIGN)));
static zq_arena_t arena;
static TaskHandle_t zq_task; /* set by the task itself: NULL until it runs */

static void *zq_mbedtls_calloc(size_t n, size_t size)
{
    if (zq_task != NULL && xTaskGetCurrentTaskHandle() == zq_task) {
        return zq_arena_calloc(&arena, n, size);
    }
    return heap_caps_calloc(n, size, MALLOC_CAP_INTERNAL | MALLOC_CAP_8BIT);
}

static void zq_mbedtls_free(void *p)
{
    if (zq_arena_owns(&arena, p)) {
        zq_arena_free(&arena, p);
    } else {
        heap_caps_free(p);
    }
}

void zq_esp32_mbedtls_arena_install(void)
{
    static bool installed;
    if (!installed) {
        zq_arena_init(&arena, arena_buf, sizeof arena_buf);
        (void)mbedtls_platform_set_calloc_free(zq_mbedtls_calloc, zq_mbedtls_free);
        installed = true;
    }
}

void zq_esp32_mbedtls_arena_claim(void)
{
    zq_task = xTaskGetCurrentTaskHandle();
}

bool zq_esp32_arena_stats(zq_arena_stats_t *out)
{
    *out = arena.stats;
    return true;
}

#else /* mbedTLS allocates from ESP-IDF's heap, as ESP-IDF's strategy says */

void zq_esp32_mbedtls_arena_install(void) {}

void zq_esp32_mbedtls_arena_claim(void) {}

bool zq_esp32_arena_stats(zq_arena_stats_t *out)
{
    memset(out, 0, sizeof *out);
    return false;
}

#endif

/* ESP-IDF's mbedTLS as the example's sdkconfig.defaults asks for it, for scripts/esp32-check:
 * zq's own configuration (config/zq_mbedtls_config.h, the same API and features), minus
 * mbedTLS's static arena (MBEDTLS_MEMORY_BUFFER_ALLOC_C), which ESP-IDF's mbedTLS Kconfig
 * does not offer. MBEDTLS_PLATFORM_MEMORY stays on with no allocator macros, as ESP-IDF's
 * esp_config.h leaves it with CONFIG_MBEDTLS_CUSTOM_MEM_ALLOC (v5.5.5 and v6.0.2): that is
 * what declares mbedtls_platform_set_calloc_free(), which port/esp32/mbedtls_arena.c calls.
 * The check compiles zq without dtls_arena.c, as the component does. */
#include "zq_mbedtls_config.h"

#undef MBEDTLS_MEMORY_BUFFER_ALLOC_C
#undef MBEDTLS_MEMORY_ALIGN_MULTIPLE

/* ESP-IDF's mbedTLS as the example's sdkconfig.defaults asks for it, for scripts/esp32-check:
 * zq's own configuration (config/zq_mbedtls_config.h, the same API and features), minus the
 * static arena, which ESP-IDF's mbedTLS Kconfig does not offer (port/esp32/README.md). The
 * check compiles zq without it, as the component does (it leaves out dtls_arena.c). */
#include "zq_mbedtls_config.h"

#undef MBEDTLS_MEMORY_BUFFER_ALLOC_C
#undef MBEDTLS_MEMORY_ALIGN_MULTIPLE

/* Stub of ESP-IDF's esp_heap_caps.h (components/heap/include/esp_heap_caps.h, the same at
 * v5.5.5 and v6.0.2): heap_caps_calloc and heap_caps_free, and the two capabilities
 * port/esp32/mbedtls_arena.c asks for, with their values there. */
#ifndef ZQ_STUB_ESP_HEAP_CAPS_H
#define ZQ_STUB_ESP_HEAP_CAPS_H

#include <stddef.h>
#include <stdint.h>

#define MALLOC_CAP_8BIT (1 << 2)      /* 8/16/...-bit data accesses */
#define MALLOC_CAP_INTERNAL (1 << 11) /* internal RAM, not PSRAM */

void *heap_caps_calloc(size_t n, size_t size, uint32_t caps);
void heap_caps_free(void *ptr);

#endif

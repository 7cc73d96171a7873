/* The runner's side of mbedTLS's arena (mbedtls_arena.c); zq_esp32_arena_stats() is public
 * (zq_esp32.h). Both do nothing without CONFIG_MBEDTLS_CUSTOM_MEM_ALLOC. */
#ifndef ZQ_PORT_ESP32_MBEDTLS_ARENA_H
#define ZQ_PORT_ESP32_MBEDTLS_ARENA_H

/** Gives mbedTLS the arena's calloc and free (mbedtls_platform_set_calloc_free), once. Any
 *  time before zq's task starts: blocks other tasks took from the heap before it are freed to
 *  the heap. */
void zq_esp32_mbedtls_arena_install(void);

/** Called by zq's task as it starts: its mbedTLS allocations come from the arena from now. */
void zq_esp32_mbedtls_arena_claim(void);

#endif /* ZQ_PORT_ESP32_MBEDTLS_ARENA_H */

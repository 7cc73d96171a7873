/**
 * @file arena.h
 * @brief A bounded first-fit allocator over one caller buffer, for mbedTLS where zq gives it
 *        the memory: on ESP-IDF (port/esp32/mbedtls_arena.c), where mbedTLS's own arena
 *        (MBEDTLS_MEMORY_BUFFER_ALLOC_C) is not built, and on lwIP boards
 *        (port/lwip/mbedtls_arena.c), where mbedTLS's calloc and free are bound to it at compile
 *        time. Plain C: no OS, no heap, no locks; tests/unit/test_port_arena.c runs it on the
 *        host.
 *
 * The buffer is a row of blocks, each an 8-byte header (its size and its left neighbour's,
 * boundary tags) and a payload aligned to 8. A request takes the first free block that fits
 * and splits off the rest; a free merges the block with free neighbours on both sides, so
 * freeing everything leaves one free block again. Exhaustion returns NULL and changes nothing.
 *
 * @code
 * static uint8_t buf[57344] __attribute__((aligned(8)));
 * static zq_arena_t arena;
 * zq_arena_init(&arena, buf, sizeof buf);
 * void *p = zq_arena_calloc(&arena, 1, 300);    // NULL when nothing fits
 * if (zq_arena_owns(&arena, p)) zq_arena_free(&arena, p);
 * @endcode
 *
 * One user at a time: the caller serialises calls (on ESP-IDF, only zq's task uses it; on an
 * lwIP board, the one main loop).
 */
#ifndef ZQ_PORT_ARENA_H
#define ZQ_PORT_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Bytes of bookkeeping per block, before its payload. */
#define ZQ_ARENA_HEADER 8u
/** Payload alignment and size granule. */
#define ZQ_ARENA_ALIGN 8u

typedef struct {
    size_t capacity; /**< bytes of blocks the buffer holds (headers included) */
    size_t in_use;   /**< bytes of blocks handed out now, headers included */
    size_t peak;     /**< the highest in_use since init */
    size_t blocks;   /**< blocks handed out now */
    size_t failures; /**< requests that found no room (returned NULL) */
} zq_arena_stats_t;

typedef struct {
    uint8_t *base; /* the first header, aligned to ZQ_ARENA_ALIGN */
    uint8_t *end;  /* one past the last block */
    zq_arena_stats_t stats;
} zq_arena_t;

/** Lays one free block over @p buf (its start rounded up to ZQ_ARENA_ALIGN, its length down).
 *  A buffer too small for one block leaves an arena that refuses every request. */
void zq_arena_init(zq_arena_t *a, void *buf, size_t len);

/** calloc(): @p n * @p size zeroed bytes aligned to ZQ_ARENA_ALIGN, or NULL when nothing
 *  fits, when the product overflows, or for 0 bytes. */
void *zq_arena_calloc(zq_arena_t *a, size_t n, size_t size);

/** Whether @p p points into the arena's buffer (a block's payload if it came from it). */
bool zq_arena_owns(const zq_arena_t *a, const void *p);

/** free() of a pointer zq_arena_calloc returned; NULL does nothing. */
void zq_arena_free(zq_arena_t *a, void *p);

#endif /* ZQ_PORT_ARENA_H */

/* mbedTLS's memory on an lwIP board: config/zq_mbedtls_lwip_config.h binds mbedtls_calloc and
 * mbedtls_free to these two functions at compile time, over one static arena of
 * ZQ_LWIP_MBEDTLS_ARENA bytes (port/arena/arena.h). A request it cannot hold fails: mbedTLS
 * reports an allocation error, the handshake fails, the node tries again later. Nothing of
 * mbedTLS's reaches a C heap, and the image has none. */
#include "mbedtls/platform.h" /* the configuration's prototypes of the two */
#include "port/arena/arena.h"
#include "port/lwip/zq_lwip.h"

static uint8_t arena_buf[ZQ_LWIP_MBEDTLS_ARENA] __attribute__((aligned(ZQ_ARENA_ALIGN)));
static zq_arena_t arena;

/* On first use: mbedTLS may allocate before anything else of the port runs. */
static zq_arena_t *the_arena(void)
{
    if (arena.base == NULL) {
        zq_arena_init(&arena, arena_buf, sizeof arena_buf);
    }
    return &arena;
}

void *zq_lwip_mbedtls_calloc(size_t n, size_t size)
{
    return zq_arena_calloc(the_arena(), n, size);
}

void zq_lwip_mbedtls_free(void *p)
{
    zq_arena_free(the_arena(), p);
}

void zq_lwip_mbedtls_arena_stats(zq_arena_stats_t *stats)
{
    *stats = the_arena()->stats;
}

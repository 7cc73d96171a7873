/* mbedTLS's allocator over one static arena: after dtls_arena_init() no mbedTLS call reaches
 * the C heap, and what a connection takes comes back when it is freed. */
#include "mbedtls/memory_buffer_alloc.h"
#include "stack/dtls/dtls.h"

void dtls_arena_init(uint8_t *buf, size_t len)
{
    mbedtls_memory_buffer_alloc_init(buf, len);
}

zq_err_t dtls_arena_stats(dtls_arena_stats_t *stats)
{
#if defined(MBEDTLS_MEMORY_DEBUG)
    size_t peak_blocks;
    mbedtls_memory_buffer_alloc_cur_get(&stats->in_use, &stats->blocks);
    mbedtls_memory_buffer_alloc_max_get(&stats->peak, &peak_blocks);
    return ZQ_OK;
#else
    (void)stats;
    return ZQ_ERR_UNSUPPORTED;
#endif
}

void dtls_arena_reset_peak(void)
{
#if defined(MBEDTLS_MEMORY_DEBUG)
    mbedtls_memory_buffer_alloc_max_reset();
#endif
}

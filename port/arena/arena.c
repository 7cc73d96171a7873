/* First-fit over boundary-tagged blocks (arena.h). Each header holds the block's whole size
 * (header included, a multiple of ZQ_ARENA_ALIGN) with bit 0 set while it is handed out, and
 * its left neighbour's size (0 for the first block), so a free finds both neighbours in O(1).
 * A request walks the row from the start: O(blocks), a few hundred at most for mbedTLS's
 * sessions of one device. */
#include "port/arena/arena.h"

#include <string.h>

#define USED 1u
/* The smallest block worth splitting off: a header and one granule of payload. */
#define MIN_BLOCK (ZQ_ARENA_HEADER + ZQ_ARENA_ALIGN)

typedef struct {
    uint32_t size_used; /* block size | USED */
    uint32_t prev_size; /* the left neighbour's block size, 0 for the first */
} header_t;

_Static_assert(sizeof(header_t) == ZQ_ARENA_HEADER, "the header is ZQ_ARENA_HEADER bytes");

static header_t *at(uint8_t *p)
{
    return (header_t *)(void *)p;
}

static size_t block_size(const header_t *h)
{
    return h->size_used & ~(uint32_t)USED;
}

static bool is_used(const header_t *h)
{
    return (h->size_used & USED) != 0;
}

static void set_block(zq_arena_t *a, uint8_t *p, size_t size, bool used)
{
    at(p)->size_used = (uint32_t)size | (used ? USED : 0u);
    uint8_t *next = p + size;
    if (next < a->end) {
        at(next)->prev_size = (uint32_t)size;
    }
}

void zq_arena_init(zq_arena_t *a, void *buf, size_t len)
{
    memset(a, 0, sizeof *a);
    uintptr_t start = (uintptr_t)buf;
    size_t skip = (size_t)((ZQ_ARENA_ALIGN - start % ZQ_ARENA_ALIGN) % ZQ_ARENA_ALIGN);
    size_t usable = len > skip ? (len - skip) / ZQ_ARENA_ALIGN * ZQ_ARENA_ALIGN : 0;
    if (usable > UINT32_MAX - ZQ_ARENA_ALIGN) {
        usable = (UINT32_MAX - ZQ_ARENA_ALIGN) / ZQ_ARENA_ALIGN * ZQ_ARENA_ALIGN;
    }
    a->base = (uint8_t *)buf + skip;
    a->end = a->base;
    if (usable < MIN_BLOCK) {
        return; /* no block: every request fails */
    }
    a->end = a->base + usable;
    a->stats.capacity = usable;
    at(a->base)->prev_size = 0;
    set_block(a, a->base, usable, false);
}

/* The block size a request of @p bytes needs, or 0 if it cannot be had. */
static size_t needed(const zq_arena_t *a, size_t n, size_t size)
{
    if (n == 0 || size == 0 || n > SIZE_MAX / size) {
        return 0;
    }
    size_t bytes = n * size;
    if (bytes > a->stats.capacity) {
        return 0;
    }
    return ZQ_ARENA_HEADER + (bytes + ZQ_ARENA_ALIGN - 1) / ZQ_ARENA_ALIGN * ZQ_ARENA_ALIGN;
}

static uint8_t *first_fit(zq_arena_t *a, size_t want)
{
    for (uint8_t *p = a->base; p < a->end; p += block_size(at(p))) {
        if (!is_used(at(p)) && block_size(at(p)) >= want) {
            return p;
        }
    }
    return NULL;
}

void *zq_arena_calloc(zq_arena_t *a, size_t n, size_t size)
{
    size_t want = needed(a, n, size);
    uint8_t *p = want != 0 ? first_fit(a, want) : NULL;
    if (p == NULL) {
        a->stats.failures++;
        return NULL;
    }
    size_t have = block_size(at(p));
    if (have - want >= MIN_BLOCK) {
        set_block(a, p + want, have - want, false); /* the rest stays free */
        have = want;
    }
    set_block(a, p, have, true);
    a->stats.in_use += have;
    a->stats.blocks++;
    if (a->stats.in_use > a->stats.peak) {
        a->stats.peak = a->stats.in_use;
    }
    memset(p + ZQ_ARENA_HEADER, 0, have - ZQ_ARENA_HEADER);
    return p + ZQ_ARENA_HEADER;
}

bool zq_arena_owns(const zq_arena_t *a, const void *p)
{
    const uint8_t *q = p;
    return q != NULL && q >= a->base && q < a->end;
}

void zq_arena_free(zq_arena_t *a, void *ptr)
{
    if (!zq_arena_owns(a, ptr)) {
        return;
    }
    uint8_t *p = (uint8_t *)ptr - ZQ_ARENA_HEADER;
    if (!is_used(at(p))) {
        return; /* freed twice: nothing to give back */
    }
    size_t size = block_size(at(p));
    a->stats.in_use -= size;
    a->stats.blocks--;
    uint8_t *next = p + size;
    if (next < a->end && !is_used(at(next))) {
        size += block_size(at(next));
    }
    if (at(p)->prev_size != 0 && !is_used(at(p - at(p)->prev_size))) {
        p -= at(p)->prev_size;
        size += block_size(at(p));
    }
    set_block(a, p, size, false);
}

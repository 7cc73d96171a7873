/* A byte ring of variable-size records, one for each direction. Records are appended at the
 * head and reclaimed at the front, so memory is exactly the caller's buffer: no per-chunk
 * allocation, no fixed chunk count. A record that does not fit before the end of the buffer
 * goes to its start, behind a WRAP record that fills the rest. `used` counts every byte
 * between front and head, WRAP filler included, which is what separates full from empty. */
#include <string.h>

#include "stack/sctp/sctp_internal.h"

void sctp_ring_init(sctp_ring_t *r, uint8_t *mem, size_t cap)
{
    /* Records hold 32-bit fields: start on a 4-byte boundary, whatever the caller gave. */
    size_t skew = (size_t)(-(uintptr_t)mem & 3u);
    skew = skew > cap ? cap : skew;
    r->mem = mem + skew;
    r->cap = (uint32_t)((cap - skew) & ~(size_t)3u);
    r->start = 0;
    r->head = 0;
    r->used = 0;
}

static void put_wrap(sctp_ring_t *r)
{
    rec_header_t *h = sctp_ring_at(r, r->head);
    h->size = (uint16_t)(r->cap - r->head);
    h->kind = REC_WRAP;
    h->state = 0;
    r->used += r->cap - r->head;
    r->head = 0;
}

uint32_t sctp_ring_alloc(sctp_ring_t *r, uint32_t size)
{
    if (r->used == 0) {
        r->start = 0;
        r->head = 0;
    }
    if (size == 0 || size > 0xFFFFu || r->used + size > r->cap) {
        return SCTP_NO_OFFSET;
    }
    if (r->head >= r->start && r->used < r->cap) {
        if (size <= r->cap - r->head) {
            uint32_t off = r->head;
            r->head = (r->head + size) % r->cap;
            r->used += size;
            return off;
        }
        if (size > r->start) {
            return SCTP_NO_OFFSET;
        }
        put_wrap(r);
    }
    if (r->head < r->start && size <= r->start - r->head) {
        uint32_t off = r->head;
        r->head += size;
        r->used += size;
        return off;
    }
    return SCTP_NO_OFFSET;
}

bool sctp_ring_extend(sctp_ring_t *r, uint32_t off, uint32_t extra)
{
    rec_header_t *h = sctp_ring_at(r, off);
    /* The free bytes that follow the head without a wrap: up to the end of the buffer, or up
     * to the front once the head has wrapped behind it (none when the ring is full). */
    uint32_t room = r->head > r->start ? r->cap - r->head
                    : r->head < r->start ? r->start - r->head : 0;
    if (r->used == 0 || off + h->size != r->head || extra > room ||
        h->size + extra > 0xFFFFu) {
        return false;
    }
    h->size = (uint16_t)(h->size + extra);
    r->head = (r->head + extra) % r->cap;
    r->used += extra;
    return true;
}

uint32_t sctp_ring_largest_free(const sctp_ring_t *r)
{
    if (r->used == 0) {
        return r->cap;
    }
    if (r->used == r->cap) {
        return 0;
    }
    if (r->head >= r->start) {
        uint32_t tail = r->cap - r->head;
        return tail > r->start ? tail : r->start;
    }
    return r->start - r->head;
}

void sctp_ring_reclaim(sctp_ring_t *r, bool (*is_free)(const rec_header_t *h))
{
    while (r->used > 0) {
        const rec_header_t *h = sctp_ring_at(r, r->start);
        if (h->kind != REC_WRAP && !is_free(h)) {
            break;
        }
        r->start = (r->start + h->size) % r->cap;
        r->used -= h->size;
    }
    if (r->used == 0) {
        r->start = 0;
        r->head = 0;
    }
}

/* Records move only toward the front in ring order, so a move never overwrites a record not
 * yet moved: before the source wraps, the destination is at or before it in the same stretch
 * (and a record fits there since it fitted further on); after, the destination either wraps
 * to 0 (at or before the source) or lies in the first stretch, past the end of the second. */
void sctp_ring_compact(sctp_ring_t *r, bool (*is_free)(const rec_header_t *h),
                       void (*moved)(void *ctx, uint32_t from, uint32_t to), void *ctx)
{
    sctp_ring_reclaim(r, is_free);
    uint32_t src = r->start;
    uint32_t dst = r->start;
    uint32_t remaining = r->used;
    uint32_t used = 0;
    while (remaining > 0) {
        rec_header_t *h = sctp_ring_at(r, src);
        uint32_t size = h->size;
        remaining -= size;
        uint32_t next = (src + size) % r->cap;
        if (h->kind != REC_WRAP && !is_free(h)) {
            if (size > r->cap - dst) {
                rec_header_t *w = sctp_ring_at(r, dst);
                w->size = (uint16_t)(r->cap - dst);
                w->kind = REC_WRAP;
                w->state = 0;
                used += r->cap - dst;
                dst = 0;
            }
            if (dst != src) {
                memmove(sctp_ring_at(r, dst), h, size);
                moved(ctx, src, dst);
            }
            dst = (dst + size) % r->cap;
            used += size;
        }
        src = next;
    }
    r->head = dst;
    r->used = used;
    if (used == 0) {
        r->start = 0;
        r->head = 0;
    }
}

static void reverse(uint8_t *p, uint32_t n)
{
    for (uint32_t i = 0, j = n; i + 1 < j; i++, j--) {
        uint8_t t = p[i];
        p[i] = p[j - 1];
        p[j - 1] = t;
    }
}

/* In place, without a second buffer: three reversals rotate left by `start` bytes. */
uint32_t sctp_ring_rotate_to_front(sctp_ring_t *r)
{
    uint32_t shift = r->start;
    if (shift == 0 || r->used == 0) {
        return 0;
    }
    reverse(r->mem, shift);
    reverse(r->mem + shift, r->cap - shift);
    reverse(r->mem, r->cap);
    r->start = 0;
    r->head = (r->head + r->cap - shift) % r->cap;
    return shift;
}

static uint32_t skip_wrap(const sctp_ring_t *r, uint32_t off)
{
    if (off == r->cap) {
        off = 0;
    }
    if (off != r->head && sctp_ring_at(r, off)->kind == REC_WRAP) {
        off = 0;
    }
    return off;
}

uint32_t sctp_ring_first(const sctp_ring_t *r)
{
    if (r->used == 0) {
        return SCTP_NO_OFFSET;
    }
    uint32_t off = r->start;
    if (sctp_ring_at(r, off)->kind == REC_WRAP) {
        off = 0;
        if (off == r->head) {
            return SCTP_NO_OFFSET;
        }
    }
    return off;
}

uint32_t sctp_ring_next(const sctp_ring_t *r, uint32_t off)
{
    uint32_t next = skip_wrap(r, off + sctp_ring_at(r, off)->size);
    return next == r->head ? SCTP_NO_OFFSET : next;
}

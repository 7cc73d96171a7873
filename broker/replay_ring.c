/* The replay ring (PROTOCOL.md §5, §7): variable-size entries in one caller buffer.
 *
 * Each entry, at an offset that is a multiple of 4:
 *
 *    0          4          8                  16              16 + len
 *   +----------+----------+------------------+---------------+--------------+
 *   | len      | pending  | seq              | frame text    | pad to 4     |
 *   +----------+----------+------------------+---------------+--------------+
 *
 * (host byte order: the buffer never leaves this process). An entry never straddles the end of
 * the buffer, so every text is one contiguous span a caller can hand to a send call. When the
 * next entry does not fit before the end, a skip marker (len = SKIP) at the old tail says
 * "continue at offset 0", and the bytes from there to the end count as used until the oldest
 * entry moves past them. An entry ending exactly at the end needs no marker.
 *
 * Geometry, with count > 0: if tail > head the entries are one run [head, tail), with room
 * after it and before it; otherwise they wrap, [head, marker or end) then [0, tail), and the
 * only room is [tail, head) (tail == head: full). An empty ring restarts at offset 0.
 *
 * Appending first plans its evictions on a copy of the positions (eviction only moves head, it
 * never writes the buffer), so an append that would block changes nothing: the entry still
 * owed an ack and every newer entry behind it stay; its cost is O(entries evicted).
 *
 * Ack (up to its seq), forget and find_after walk the entries from the oldest: O(entries);
 * each brk_ring_next() is O(1). find_after is linear because entries have no fixed size to
 * index by (a binary search would need an offset table as large as the ring's entry count);
 * a resume runs once per reconnect, over one ring. Acks and forgets rewrite pending masks in
 * place and move nothing, so a walk in progress goes on undisturbed; an append may evict, so
 * cursors taken before it are void (replay_ring.h).
 */
#include "broker/replay_ring.h"

#include <string.h>

typedef struct {
    uint32_t len;
    uint32_t pending;
    uint64_t seq;
} hdr_t;

#define HDR ((uint32_t)sizeof(hdr_t))
_Static_assert(sizeof(hdr_t) == 16, "the entry header is 16 bytes on every target");

#define SKIP UINT32_MAX              /* a len no entry can have: the marker */
#define CURSOR_END UINT32_MAX        /* a cursor past the newest entry */
#define PENDING_OFFSET 4u

/* Headers go through memcpy: the buffer is only promised 4-byte alignment, seq wants 8. */
static hdr_t read_hdr(const brk_ring_t *r, uint32_t off)
{
    hdr_t h;
    memcpy(&h, r->buf + off, HDR);
    return h;
}

/* The first word alone: a skip marker may sit in the last 4 bytes of the buffer. */
static uint32_t read_len(const brk_ring_t *r, uint32_t off)
{
    uint32_t len;
    memcpy(&len, r->buf + off, sizeof len);
    return len;
}

static void write_pending(brk_ring_t *r, uint32_t off, uint32_t pending)
{
    memcpy(r->buf + off + PENDING_OFFSET, &pending, sizeof pending);
}

/* Bytes an entry of @p len text bytes takes, in 64 bits so that no len can wrap it. */
static uint64_t entry_size(uint32_t len)
{
    return HDR + (((uint64_t)len + 3u) & ~(uint64_t)3u);
}

/* Where the entry after the one at @p off (of @p len bytes of text) starts: through a skip
 * marker or the end of the buffer to 0. Only for an entry that has a successor: the bytes at
 * the tail are stale. */
static uint32_t successor(const brk_ring_t *r, uint32_t off, uint32_t len)
{
    uint32_t next = off + (uint32_t)entry_size(len);
    if (next == r->cap || read_len(r, next) == SKIP) {
        return 0;
    }
    return next;
}

void brk_ring_init(brk_ring_t *r, uint8_t *buf, uint32_t cap)
{
    memset(r, 0, sizeof *r);
    r->buf = buf;
    r->cap = cap & ~3u; /* entries are multiples of 4: a ragged end could never be used */
}

/* Whether @p need bytes fit without evicting, and at which offset (*at). */
static bool fits(const brk_ring_t *r, uint32_t need, uint32_t *at)
{
    if (r->count == 0) {
        *at = 0;
        return need <= r->cap;
    }
    if (r->tail > r->head) {
        if (r->cap - r->tail >= need) {
            *at = r->tail;
            return true;
        }
        *at = 0;
        return r->head >= need;
    }
    *at = r->tail;
    return r->head - r->tail >= need;
}

/* Removes the oldest entry: moves head only (and past a skip marker). */
static void drop_oldest(brk_ring_t *r)
{
    hdr_t h = read_hdr(r, r->head);
    uint32_t size = (uint32_t)entry_size(h.len);
    r->count--;
    if (r->count == 0) {
        r->head = r->tail = r->used = 0;
        r->first_seq = 0;
        return;
    }
    uint32_t next = successor(r, r->head, h.len);
    /* Moving to 0 from before the end frees the entry and the skipped bytes after it. */
    r->used -= next == 0 ? r->cap - r->head : size;
    r->head = next;
    r->first_seq = read_hdr(r, next).seq;
}

/* Evicts the oldest acknowledged entries until @p need bytes fit (at *at); false when an entry
 * still owed an ack is in the way. @p need must be at most cap. */
static bool make_room(brk_ring_t *r, uint32_t need, uint32_t *at)
{
    while (!fits(r, need, at)) {
        if (read_hdr(r, r->head).pending != 0) {
            return false;
        }
        drop_oldest(r);
    }
    return true;
}

bool brk_ring_has_room(const brk_ring_t *r, uint32_t len)
{
    uint64_t need = entry_size(len);
    if (need > r->cap) {
        return false;
    }
    brk_ring_t plan = *r;
    uint32_t at;
    return make_room(&plan, (uint32_t)need, &at);
}

static void place(brk_ring_t *r, uint32_t at, const hdr_t *h, const char *text)
{
    uint32_t need = (uint32_t)entry_size(h->len);
    if (at != r->tail) { /* wrapping early: mark the unused end */
        uint32_t skip = SKIP;
        memcpy(r->buf + r->tail, &skip, sizeof skip);
        r->used += r->cap - r->tail;
    }
    memcpy(r->buf + at, h, HDR);
    if (h->len > 0) {
        memcpy(r->buf + at + HDR, text, h->len);
    }
    r->tail = at + need == r->cap ? 0 : at + need;
    r->used += need;
    r->count++;
    r->first_seq = r->count == 1 ? h->seq : r->first_seq;
    r->last_seq = h->seq;
}

zq_err_t brk_ring_append(brk_ring_t *r, uint64_t seq, const char *text, uint32_t len,
                         uint32_t pending)
{
    /* seq 0 is refused too: seq numbers start at 1 (PROTOCOL.md §4) and 0 means "none". */
    if (seq <= r->last_seq || (text == NULL && len > 0)) {
        return ZQ_ERR_INVALID_ARG;
    }
    uint64_t need = entry_size(len);
    if (need > r->cap) {
        return ZQ_ERR_TOO_LONG;
    }
    brk_ring_t plan = *r;
    uint32_t at;
    if (!make_room(&plan, (uint32_t)need, &at)) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    *r = plan;
    hdr_t h = {len, pending, seq};
    place(r, at, &h, text);
    return ZQ_OK;
}

void brk_ring_ack(brk_ring_t *r, uint32_t receivers, uint64_t upto)
{
    uint32_t off = r->head;
    for (uint32_t i = 0; i < r->count; i++) {
        hdr_t h = read_hdr(r, off);
        if (h.seq > upto) {
            return; /* seq increases: nothing further is covered */
        }
        write_pending(r, off, h.pending & ~receivers);
        if (i + 1 < r->count) {
            off = successor(r, off, h.len);
        }
    }
}

uint32_t brk_ring_forget(brk_ring_t *r, uint32_t receivers)
{
    uint32_t owed = 0;
    uint32_t off = r->head;
    for (uint32_t i = 0; i < r->count; i++) {
        hdr_t h = read_hdr(r, off);
        if ((h.pending & receivers) != 0) {
            owed++;
            write_pending(r, off, h.pending & ~receivers);
        }
        if (i + 1 < r->count) {
            off = successor(r, off, h.len);
        }
    }
    return owed;
}

/* A cursor is 0 (the oldest entry), an entry's offset + 1, or CURSOR_END. Offsets are below
 * cap - HDR, so offset + 1 never reaches CURSOR_END. The newest entry is the one whose seq is
 * last_seq: eviction only ever takes the oldest. */
bool brk_ring_next(const brk_ring_t *r, uint32_t *cursor, brk_ring_entry_t *out)
{
    if (r->count == 0 || *cursor == CURSOR_END) {
        return false;
    }
    uint32_t off = *cursor == 0 ? r->head : *cursor - 1;
    hdr_t h = read_hdr(r, off);
    out->seq = h.seq;
    out->pending = h.pending;
    out->text = (const char *)(r->buf + off + HDR);
    out->len = h.len;
    *cursor = h.seq == r->last_seq ? CURSOR_END : successor(r, off, h.len) + 1;
    return true;
}

bool brk_ring_find_after(const brk_ring_t *r, uint64_t after, uint32_t *cursor)
{
    if (r->count == 0 || after >= r->last_seq) {
        return false;
    }
    uint32_t off = r->head;
    for (hdr_t h = read_hdr(r, off); h.seq <= after; h = read_hdr(r, off)) {
        off = successor(r, off, h.len); /* a newer entry exists: after < last_seq */
    }
    *cursor = off + 1;
    return true;
}

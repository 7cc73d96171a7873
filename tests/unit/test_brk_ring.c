/* The replay ring (broker/replay_ring.h, PROTOCOL.md §5, §7): one test per rule of the header,
 * then 100,000 random operations against a reference model that lays entries out by the same
 * rule stated differently (an entry goes right after the newest one, or at 0 when it would
 * cross the end; the oldest entries go until it overlaps none) and predicts every result,
 * every byte of every entry and every WOULD_BLOCK. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "broker/replay_ring.h"
#include "test_rand.h"

#define HDR 16u

static _Alignas(4) uint8_t buf[1024];

static zq_err_t append(brk_ring_t *r, uint64_t seq, const char *text, uint32_t pending)
{
    return brk_ring_append(r, seq, text, (uint32_t)strlen(text), pending);
}

/* Appends @p n entries seq first..first+n-1 of @p len bytes each. */
static void append_n(brk_ring_t *r, uint64_t first, unsigned n, uint32_t len, uint32_t pending)
{
    char text[256];
    for (unsigned i = 0; i < n; i++) {
        memset(text, 'a' + (int)((first + i) % 26), len);
        assert_int_equal(brk_ring_append(r, first + i, text, len, pending), ZQ_OK);
    }
}

/* The seqs of the ring, oldest first, into @p seqs; returns how many. */
static unsigned walk(const brk_ring_t *r, uint64_t *seqs, uint32_t *pending)
{
    unsigned n = 0;
    uint32_t cursor = 0;
    brk_ring_entry_t e;
    while (brk_ring_next(r, &cursor, &e)) {
        seqs[n] = e.seq;
        if (pending != NULL) {
            pending[n] = e.pending;
        }
        n++;
    }
    return n;
}

static void expect_seqs(const brk_ring_t *r, const uint64_t *want, unsigned n)
{
    uint64_t got[64];
    assert_int_equal(walk(r, got, NULL), n);
    assert_memory_equal(got, want, n * sizeof *want);
    assert_int_equal(r->count, n);
}

static void empty_ring_has_nothing_to_walk(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 128);
    uint32_t cursor = 0;
    brk_ring_entry_t e;
    assert_false(brk_ring_next(&r, &cursor, &e));
    assert_false(brk_ring_find_after(&r, 0, &cursor));
    assert_int_equal(brk_ring_forget(&r, 1), 0);
    brk_ring_ack(&r, 1, 100);
    assert_true(brk_ring_has_room(&r, 0));
    assert_int_equal(r.first_seq, 0);
    assert_int_equal(r.last_seq, 0);
}

static void init_rounds_capacity_down_to_whole_words(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 67);
    assert_int_equal(r.cap, 64);
}

static void entries_walk_oldest_first_with_their_text(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 256);
    assert_int_equal(append(&r, 1, "{\"id\":\"a\"}", 0), ZQ_OK);
    assert_int_equal(append(&r, 2, "", 3), ZQ_OK);
    assert_int_equal(append(&r, 7, "xyz", 1), ZQ_OK);
    uint32_t cursor = 0;
    brk_ring_entry_t e;
    assert_true(brk_ring_next(&r, &cursor, &e));
    assert_int_equal(e.seq, 1);
    assert_int_equal(e.len, 10);
    assert_memory_equal(e.text, "{\"id\":\"a\"}", 10);
    assert_true(brk_ring_next(&r, &cursor, &e));
    assert_int_equal(e.seq, 2);
    assert_int_equal(e.len, 0);
    assert_int_equal(e.pending, 3);
    assert_true(brk_ring_next(&r, &cursor, &e));
    assert_int_equal(e.seq, 7);
    assert_memory_equal(e.text, "xyz", 3);
    assert_false(brk_ring_next(&r, &cursor, &e));
    assert_false(brk_ring_next(&r, &cursor, &e)); /* and stays at the end */
    assert_int_equal(r.used, (HDR + 12) + HDR + (HDR + 4));
    assert_int_equal(r.first_seq, 1);
    assert_int_equal(r.last_seq, 7);
}

static void seq_must_increase(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 256);
    assert_int_equal(append(&r, 0, "zero", 0), ZQ_ERR_INVALID_ARG); /* seqs start at 1 */
    assert_int_equal(append(&r, 5, "five", 0), ZQ_OK);
    assert_int_equal(append(&r, 5, "again", 0), ZQ_ERR_INVALID_ARG);
    assert_int_equal(append(&r, 4, "older", 0), ZQ_ERR_INVALID_ARG);
    assert_int_equal(append(&r, 6, "six", 0), ZQ_OK);
    expect_seqs(&r, (const uint64_t[]){5, 6}, 2);
}

static void too_long_when_text_and_header_exceed_capacity(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 64);
    char text[64];
    memset(text, 'x', sizeof text);
    assert_false(brk_ring_has_room(&r, 64 - HDR + 1));
    assert_int_equal(brk_ring_append(&r, 1, text, 64 - HDR + 1, 0), ZQ_ERR_TOO_LONG);
    assert_int_equal(brk_ring_append(&r, 1, text, UINT32_MAX, 0), ZQ_ERR_TOO_LONG);
    assert_int_equal(brk_ring_append(&r, 1, text, UINT32_MAX - 2, 0), ZQ_ERR_TOO_LONG);
    assert_int_equal(r.count, 0);
    assert_true(brk_ring_has_room(&r, 64 - HDR));
    assert_int_equal(brk_ring_append(&r, 1, text, 64 - HDR, 1), ZQ_OK); /* the whole ring */
    assert_int_equal(r.used, 64);
}

static void exactly_full_ring_uses_every_byte(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 128);
    append_n(&r, 1, 4, 16, 1); /* 4 x (16 + 16) */
    assert_int_equal(r.used, 128);
    assert_int_equal(r.head, r.tail);
    assert_false(brk_ring_has_room(&r, 0));
    assert_int_equal(append(&r, 5, "", 0), ZQ_ERR_WOULD_BLOCK);
    brk_ring_ack(&r, 1, 4);
    assert_int_equal(append(&r, 5, "0123456789abcdef", 0), ZQ_OK); /* evicts exactly one */
    expect_seqs(&r, (const uint64_t[]){2, 3, 4, 5}, 4);
    assert_int_equal(r.used, 128);
}

static void wrap_leaves_a_skip_marker_and_text_stays_contiguous(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 100);
    append_n(&r, 1, 2, 20, 0); /* 36 bytes each: [0,36) [36,72), 28 left at the end */
    append_n(&r, 3, 1, 20, 0); /* does not fit in 28: evicts seq 1 and goes to 0 */
    expect_seqs(&r, (const uint64_t[]){2, 3}, 2);
    assert_int_equal(r.used, 100); /* the 28 skipped bytes stay used while seq 2 is there */
    uint32_t cursor = 0;
    brk_ring_entry_t e;
    assert_true(brk_ring_next(&r, &cursor, &e) && brk_ring_next(&r, &cursor, &e));
    assert_ptr_equal(e.text, (const char *)buf + HDR);
    assert_memory_equal(e.text, "dddddddddddddddddddd", 20);
    append_n(&r, 4, 1, 20, 0); /* evicts seq 2, which frees the skipped bytes too */
    expect_seqs(&r, (const uint64_t[]){3, 4}, 2);
    assert_int_equal(r.used, 72);
    assert_int_equal(r.head, 0);
}

static void making_room_evicts_several_oldest_entries(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 200);
    append_n(&r, 1, 5, 4, 0);  /* 5 x 20 bytes */
    append_n(&r, 6, 1, 80, 0); /* 96 bytes, to 196 */
    append_n(&r, 7, 1, 44, 0); /* 60 bytes: only at 0, once seqs 1..3 are gone */
    expect_seqs(&r, (const uint64_t[]){4, 5, 6, 7}, 4);
    assert_int_equal(r.first_seq, 4);
}

static void unacked_oldest_entry_blocks_while_newer_acked_entries_stay(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 128);
    append_n(&r, 1, 1, 16, 1);
    append_n(&r, 2, 3, 16, 0);
    assert_false(brk_ring_has_room(&r, 16));
    assert_int_equal(append(&r, 5, "late", 0), ZQ_ERR_WOULD_BLOCK);
    expect_seqs(&r, (const uint64_t[]){1, 2, 3, 4}, 4); /* nothing was evicted */
    brk_ring_ack(&r, 1, 1);                              /* the ack that makes it writable */
    assert_true(brk_ring_has_room(&r, 16));
    assert_int_equal(append(&r, 5, "late", 0), ZQ_OK);
    expect_seqs(&r, (const uint64_t[]){2, 3, 4, 5}, 4);
}

static void unacked_entry_behind_the_oldest_blocks_only_when_reached(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 128);
    append_n(&r, 1, 1, 16, 0);
    append_n(&r, 2, 3, 16, 2);
    assert_int_equal(append(&r, 5, "fits once 1 goes", 0), ZQ_OK);
    expect_seqs(&r, (const uint64_t[]){2, 3, 4, 5}, 4);
    assert_int_equal(append(&r, 6, "x", 0), ZQ_ERR_WOULD_BLOCK);
}

static void ack_clears_bits_up_to_seq(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 512);
    append_n(&r, 1, 5, 8, 0x3);
    brk_ring_ack(&r, 0x1, 3);
    uint64_t seqs[8];
    uint32_t pending[8];
    assert_int_equal(walk(&r, seqs, pending), 5);
    assert_memory_equal(pending, ((const uint32_t[]){2, 2, 2, 3, 3}), 5 * sizeof(uint32_t));
    brk_ring_ack(&r, 0x2, 10);
    assert_int_equal(walk(&r, seqs, pending), 5);
    assert_memory_equal(pending, ((const uint32_t[]){0, 0, 0, 1, 1}), 5 * sizeof(uint32_t));
    brk_ring_ack(&r, 0x1, 0); /* below every seq: nothing */
    assert_int_equal(walk(&r, seqs, pending), 5);
    assert_int_equal(pending[3], 1);
}

static void forget_clears_bits_everywhere_and_counts_what_was_owed(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 512);
    static const uint32_t masks[] = {0x1, 0x3, 0x2, 0x1, 0x0};
    for (unsigned i = 0; i < 5; i++) {
        append_n(&r, i + 1, 1, 4, masks[i]);
    }
    assert_int_equal(brk_ring_forget(&r, 0x1), 3);
    uint64_t seqs[8];
    uint32_t pending[8];
    assert_int_equal(walk(&r, seqs, pending), 5);
    assert_memory_equal(pending, ((const uint32_t[]){0, 2, 2, 0, 0}), 5 * sizeof(uint32_t));
    assert_int_equal(brk_ring_forget(&r, 0x1), 0);
    assert_int_equal(brk_ring_forget(&r, 0x2), 2);
}

static void find_after_gives_the_first_newer_entry(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 512);
    append_n(&r, 10, 1, 4, 0);
    append_n(&r, 20, 1, 4, 0);
    append_n(&r, 30, 1, 4, 0);
    static const uint64_t after[] = {0, 5, 10, 15, 19, 20, 29};
    static const uint64_t first[] = {10, 10, 20, 20, 20, 30, 30};
    for (unsigned i = 0; i < 7; i++) {
        uint32_t cursor;
        brk_ring_entry_t e;
        assert_true(brk_ring_find_after(&r, after[i], &cursor));
        assert_true(brk_ring_next(&r, &cursor, &e));
        assert_int_equal(e.seq, first[i]);
    }
    uint32_t cursor;
    assert_false(brk_ring_find_after(&r, 30, &cursor));
    assert_false(brk_ring_find_after(&r, 1000, &cursor));
    brk_ring_entry_t e;
    assert_true(brk_ring_find_after(&r, 10, &cursor)); /* and the walk goes on from there */
    assert_true(brk_ring_next(&r, &cursor, &e) && e.seq == 20);
    assert_true(brk_ring_next(&r, &cursor, &e) && e.seq == 30);
    assert_false(brk_ring_next(&r, &cursor, &e));
}

static void iteration_is_stable_across_acks_and_forgets(void **state)
{
    (void)state;
    brk_ring_t r;
    brk_ring_init(&r, buf, 100); /* small, so the entries wrap */
    append_n(&r, 1, 2, 20, 0);  /* [0,36) [36,72) */
    append_n(&r, 3, 3, 4, 0x5); /* 3 at 72, then a skip marker at 92: 4 at 0, 5 at 20 */
    uint32_t cursor = 0;
    brk_ring_entry_t e;
    uint64_t seen[8];
    unsigned n = 0;
    while (brk_ring_next(&r, &cursor, &e)) {
        seen[n++] = e.seq;
        brk_ring_ack(&r, 0x1, e.seq);
        if (e.seq == 3) {
            assert_int_equal(brk_ring_forget(&r, 0x4), 3);
        }
    }
    assert_int_equal(n, 3);
    assert_memory_equal(seen, ((const uint64_t[]){3, 4, 5}), 3 * sizeof(uint64_t));
    uint32_t pending[8];
    assert_int_equal(walk(&r, seen, pending), 3);
    assert_memory_equal(pending, ((const uint32_t[]){0, 0, 0}), 3 * sizeof(uint32_t));
}

/* ---- The model ------------------------------------------------------------------------------ */

#define MODEL_MAX 64 /* entries: a 1000-byte ring holds at most 62 */
#define TEXT_MAX 300

typedef struct {
    uint64_t seq;
    uint32_t pending, len, off, size;
    char text[TEXT_MAX];
} m_entry_t;

typedef struct {
    m_entry_t e[MODEL_MAX]; /* a ring of entries: e[(first + i) % MODEL_MAX] */
    unsigned first, n;
    uint32_t cap;
    uint64_t last_seq;
} model_t;

static model_t model;

static m_entry_t *m_at(unsigned i)
{
    return &model.e[(model.first + i) % MODEL_MAX];
}

static uint32_t m_size(uint32_t len)
{
    return HDR + ((len + 3u) & ~3u);
}

/* Whether an entry at [start, start + size) overlaps any of entries k.. of the model. */
static bool m_overlaps(unsigned k, uint32_t start, uint32_t size)
{
    for (unsigned i = k; i < model.n; i++) {
        const m_entry_t *e = m_at(i);
        if (start < e->off + e->size && e->off < start + size) {
            return true;
        }
    }
    return false;
}

/* How many oldest entries must go for @p size bytes, and where the entry lands; -1 blocked. */
static int m_plan(uint32_t size, uint32_t *start)
{
    for (unsigned k = 0;; k++) {
        if (k == model.n) {
            *start = 0;
            return (int)k;
        }
        const m_entry_t *newest = m_at(model.n - 1);
        uint32_t end = newest->off + newest->size;
        *start = end + size <= model.cap ? end : 0;
        if (!m_overlaps(k, *start, size)) {
            return (int)k;
        }
        if (m_at(k)->pending != 0) {
            return -1;
        }
    }
}

static zq_err_t m_append(uint64_t seq, const char *text, uint32_t len, uint32_t pending)
{
    if (seq <= model.last_seq) {
        return ZQ_ERR_INVALID_ARG;
    }
    if ((uint64_t)len + HDR > model.cap) {
        return ZQ_ERR_TOO_LONG;
    }
    uint32_t start;
    int evict = m_plan(m_size(len), &start);
    if (evict < 0) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    model.first = (model.first + (unsigned)evict) % MODEL_MAX;
    model.n -= (unsigned)evict;
    assert_true(model.n < MODEL_MAX);
    m_entry_t *e = m_at(model.n++);
    *e = (m_entry_t){seq, pending, len, start, m_size(len), {0}};
    memcpy(e->text, text, len);
    model.last_seq = seq;
    return ZQ_OK;
}

static void m_ack(uint32_t receivers, uint64_t upto)
{
    for (unsigned i = 0; i < model.n; i++) {
        if (m_at(i)->seq <= upto) {
            m_at(i)->pending &= ~receivers;
        }
    }
}

static uint32_t m_forget(uint32_t receivers)
{
    uint32_t owed = 0;
    for (unsigned i = 0; i < model.n; i++) {
        owed += (m_at(i)->pending & receivers) != 0;
        m_at(i)->pending &= ~receivers;
    }
    return owed;
}

/* Bytes in use: the run from the oldest entry to the end of the newest, across the end. */
static uint32_t m_used(void)
{
    if (model.n == 0) {
        return 0;
    }
    const m_entry_t *oldest = m_at(0), *newest = m_at(model.n - 1);
    uint32_t end = newest->off + newest->size;
    return newest->off >= oldest->off ? end - oldest->off : model.cap - oldest->off + end;
}

static void m_compare(const brk_ring_t *r)
{
    assert_int_equal(r->count, model.n);
    assert_int_equal(r->used, m_used());
    assert_int_equal(r->first_seq, model.n > 0 ? m_at(0)->seq : 0);
    assert_int_equal(r->last_seq, model.last_seq);
    uint32_t cursor = 0;
    brk_ring_entry_t got;
    for (unsigned i = 0; i < model.n; i++) {
        const m_entry_t *want = m_at(i);
        assert_true(brk_ring_next(r, &cursor, &got));
        assert_int_equal(got.seq, want->seq);
        assert_int_equal(got.pending, want->pending);
        assert_int_equal(got.len, want->len);
        assert_ptr_equal(got.text, (const char *)r->buf + want->off + HDR);
        assert_memory_equal(got.text, want->text, want->len);
    }
    assert_false(brk_ring_next(r, &cursor, &got));
}

static void m_check_find_after(const brk_ring_t *r, uint64_t after)
{
    unsigned i = 0;
    while (i < model.n && m_at(i)->seq <= after) {
        i++;
    }
    uint32_t cursor;
    bool found = brk_ring_find_after(r, after, &cursor);
    assert_int_equal(found, i < model.n);
    if (found) {
        brk_ring_entry_t e;
        assert_true(brk_ring_next(r, &cursor, &e));
        assert_int_equal(e.seq, m_at(i)->seq);
    }
}

typedef struct {
    unsigned ok, blocked, too_long, invalid, evicted;
} outcomes_t;

static uint32_t random_len(test_rand_t *rng, uint32_t cap)
{
    uint64_t x = test_rand_next(rng);
    switch (x % 16) {
    case 0:
        return cap - HDR + 1 + (uint32_t)((x >> 8) % 8); /* too long */
    case 1:
    case 2:
        return (uint32_t)((x >> 8) % TEXT_MAX);
    default:
        return (uint32_t)((x >> 8) % 64);
    }
}

static void random_append(brk_ring_t *r, test_rand_t *rng, outcomes_t *out)
{
    static char text[TEXT_MAX + 16];
    uint64_t x = test_rand_next(rng);
    uint32_t len = random_len(rng, r->cap);
    uint64_t seq = model.last_seq + 1 + x % 3;
    if (x % 50 == 0) { /* not above the newest: refused */
        seq = model.last_seq - (model.last_seq > 0 ? (x >> 8) % 2 : 0);
    }
    uint32_t pending = (x >> 16) % 10 < 3 ? 0 : (uint32_t)((x >> 20) & 0xF);
    for (uint32_t i = 0; i < len && i < sizeof text; i++) {
        text[i] = (char)(seq * 31 + i);
    }
    unsigned before = model.n;
    zq_err_t want = m_append(seq, text, len, pending);
    if (seq > r->last_seq) {
        assert_int_equal(brk_ring_has_room(r, len), want == ZQ_OK);
    }
    assert_int_equal(brk_ring_append(r, seq, text, len, pending), want);
    out->ok += want == ZQ_OK;
    out->blocked += want == ZQ_ERR_WOULD_BLOCK;
    out->too_long += want == ZQ_ERR_TOO_LONG;
    out->invalid += want == ZQ_ERR_INVALID_ARG;
    out->evicted += want == ZQ_OK ? before + 1 - model.n : 0;
}

static void random_step(brk_ring_t *r, test_rand_t *rng, outcomes_t *out)
{
    uint64_t x = test_rand_next(rng);
    uint32_t receiver = 1u << ((x >> 8) % 4);
    uint64_t around = model.n > 0 ? m_at(0)->seq + (x >> 16) % (model.last_seq - m_at(0)->seq + 3)
                                  : model.last_seq;
    around = around > 0 ? around - 1 : 0; /* from just below the oldest to just above the newest */
    unsigned pick = (unsigned)(x % 100);
    if (pick < 55) {
        random_append(r, rng, out);
    } else if (pick < 82) {
        m_ack(receiver, around);
        brk_ring_ack(r, receiver, around);
    } else if (pick < 85) {
        assert_int_equal(brk_ring_forget(r, receiver), m_forget(receiver));
    } else {
        m_check_find_after(r, around);
    }
    m_compare(r);
}

static void run_model(uint32_t cap, uint64_t seed, unsigned steps)
{
    static _Alignas(4) uint8_t ring_buf[1024];
    brk_ring_t r;
    brk_ring_init(&r, ring_buf, cap);
    memset(&model, 0, sizeof model);
    model.cap = r.cap;
    test_rand_t rng;
    (void)test_rand(&rng, seed);
    outcomes_t out = {0, 0, 0, 0, 0};
    for (unsigned i = 0; i < steps; i++) {
        random_step(&r, &rng, &out);
    }
    print_message("cap %u: ok %u, would block %u, too long %u, invalid %u, evicted %u\n",
                  r.cap, out.ok, out.blocked, out.too_long, out.invalid, out.evicted);
    assert_true(out.ok > steps / 20 && out.blocked > steps / 100 && out.evicted > steps / 20);
    assert_true(out.too_long > 0 && out.invalid > 0);
}

static void random_operations_agree_with_the_model(void **state)
{
    (void)state;
    run_model(1002, 0xB0B0CAFE, 100000); /* 1002: the ragged end is rounded away */
}

static void random_operations_agree_with_the_model_in_a_tiny_ring(void **state)
{
    (void)state;
    run_model(132, 0x7177, 20000); /* most appends wrap or evict */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_ring_has_nothing_to_walk),
        cmocka_unit_test(init_rounds_capacity_down_to_whole_words),
        cmocka_unit_test(entries_walk_oldest_first_with_their_text),
        cmocka_unit_test(seq_must_increase),
        cmocka_unit_test(too_long_when_text_and_header_exceed_capacity),
        cmocka_unit_test(exactly_full_ring_uses_every_byte),
        cmocka_unit_test(wrap_leaves_a_skip_marker_and_text_stays_contiguous),
        cmocka_unit_test(making_room_evicts_several_oldest_entries),
        cmocka_unit_test(unacked_oldest_entry_blocks_while_newer_acked_entries_stay),
        cmocka_unit_test(unacked_entry_behind_the_oldest_blocks_only_when_reached),
        cmocka_unit_test(ack_clears_bits_up_to_seq),
        cmocka_unit_test(forget_clears_bits_everywhere_and_counts_what_was_owed),
        cmocka_unit_test(find_after_gives_the_first_newer_entry),
        cmocka_unit_test(iteration_is_stable_across_acks_and_forgets),
        cmocka_unit_test(random_operations_agree_with_the_model),
        cmocka_unit_test(random_operations_agree_with_the_model_in_a_tiny_ring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* port/arena/arena.h: the allocator mbedTLS takes on ESP-IDF (port/esp32/mbedtls_arena.c),
 * bounded by its buffer: exhaustion is a clean NULL, frees coalesce, the peak is kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "port/arena/arena.h"

#define ARENA_LEN 1024
#define GUARD 64

/* The arena between two runs of 0xA5 guard bytes, to catch a write outside it. */
typedef struct {
    _Alignas(8) uint8_t before[GUARD];
    uint8_t buf[ARENA_LEN];
    uint8_t after[GUARD];
} guarded_t;

static guarded_t mem;
static zq_arena_t arena;

static int setup(void **state)
{
    (void)state;
    memset(&mem, 0xA5, sizeof mem);
    zq_arena_init(&arena, mem.buf, sizeof mem.buf);
    return 0;
}

static void guards_hold(void)
{
    for (size_t i = 0; i < GUARD; i++) {
        assert_int_equal(mem.before[i], 0xA5);
        assert_int_equal(mem.after[i], 0xA5);
    }
}

static void calloc_gives_zeroed_aligned_memory_inside_the_buffer(void **state)
{
    (void)state;
    uint8_t *p = zq_arena_calloc(&arena, 3, 7);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % ZQ_ARENA_ALIGN, 0);
    assert_true(zq_arena_owns(&arena, p));
    for (size_t i = 0; i < 21; i++) {
        assert_int_equal(p[i], 0);
    }
    memset(p, 0xFF, 21);
    zq_arena_free(&arena, p);
    p = zq_arena_calloc(&arena, 1, 21); /* the same block again: zeroed again */
    for (size_t i = 0; i < 21; i++) {
        assert_int_equal(p[i], 0);
    }
    guards_hold();
}

static void an_exhausted_arena_returns_null_and_keeps_what_it_handed_out(void **state)
{
    (void)state;
    void *held[ARENA_LEN / 64];
    size_t n = 0;
    void *p;
    while ((p = zq_arena_calloc(&arena, 1, 64 - ZQ_ARENA_HEADER)) != NULL) {
        memset(p, 0x5A, 64 - ZQ_ARENA_HEADER);
        held[n++] = p;
    }
    assert_int_equal(n, ARENA_LEN / 64);
    zq_arena_stats_t before = arena.stats;
    assert_null(zq_arena_calloc(&arena, 1, 1));
    assert_int_equal(arena.stats.failures, before.failures + 1);
    assert_int_equal(arena.stats.in_use, before.in_use);
    assert_int_equal(arena.stats.blocks, n);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *b = held[i];
        for (size_t j = 0; j < 64 - ZQ_ARENA_HEADER; j++) {
            assert_int_equal(b[j], 0x5A);
        }
    }
    guards_hold();
}

static void a_request_larger_than_the_arena_or_overflowing_returns_null(void **state)
{
    (void)state;
    assert_null(zq_arena_calloc(&arena, 1, ARENA_LEN));
    assert_null(zq_arena_calloc(&arena, SIZE_MAX / 2, 3));
    assert_null(zq_arena_calloc(&arena, 0, 16));
    assert_int_equal(arena.stats.in_use, 0);
    assert_int_equal(arena.stats.failures, 3);
}

static void freeing_neighbours_coalesces_them_into_one_block(void **state)
{
    (void)state;
    void *a = zq_arena_calloc(&arena, 1, 200);
    void *b = zq_arena_calloc(&arena, 1, 200);
    void *c = zq_arena_calloc(&arena, 1, 200);
    assert_non_null(c);
    /* Left, then right of b: b's free must merge on both sides for the big one to fit. */
    zq_arena_free(&arena, a);
    zq_arena_free(&arena, c);
    zq_arena_free(&arena, b);
    assert_int_equal(arena.stats.in_use, 0);
    assert_int_equal(arena.stats.blocks, 0);
    void *whole = zq_arena_calloc(&arena, 1, ARENA_LEN - ZQ_ARENA_HEADER);
    assert_non_null(whole);
    assert_int_equal(arena.stats.in_use, ARENA_LEN);
    guards_hold();
}

static void a_hole_between_held_blocks_is_reused_first(void **state)
{
    (void)state;
    void *a = zq_arena_calloc(&arena, 1, 100);
    void *b = zq_arena_calloc(&arena, 1, 100);
    void *c = zq_arena_calloc(&arena, 1, 100);
    assert_non_null(c);
    zq_arena_free(&arena, b);
    void *d = zq_arena_calloc(&arena, 1, 48); /* first fit: b's hole, before c */
    assert_ptr_equal(d, b);
    (void)a;
}

static void the_peak_stays_at_the_highest_use_after_frees(void **state)
{
    (void)state;
    void *a = zq_arena_calloc(&arena, 1, 120);
    void *b = zq_arena_calloc(&arena, 1, 120);
    size_t top = arena.stats.in_use;
    assert_int_equal(top, 2 * (ZQ_ARENA_HEADER + 120));
    zq_arena_free(&arena, a);
    zq_arena_free(&arena, b);
    assert_int_equal(arena.stats.in_use, 0);
    assert_int_equal(arena.stats.peak, top);
    void *c = zq_arena_calloc(&arena, 1, 16);
    assert_non_null(c);
    assert_int_equal(arena.stats.peak, top);
}

static void pointers_from_elsewhere_are_not_its_own_and_free_ignores_them(void **state)
{
    (void)state;
    static uint8_t other[16];
    assert_false(zq_arena_owns(&arena, other));
    assert_false(zq_arena_owns(&arena, NULL));
    zq_arena_free(&arena, other);
    zq_arena_free(&arena, NULL);
    void *p = zq_arena_calloc(&arena, 1, 32);
    zq_arena_free(&arena, p);
    zq_arena_free(&arena, p); /* a second free gives nothing back twice */
    assert_int_equal(arena.stats.in_use, 0);
    assert_int_equal(arena.stats.blocks, 0);
}

static void a_misaligned_buffer_is_trimmed_to_aligned_blocks(void **state)
{
    (void)state;
    zq_arena_t a;
    zq_arena_init(&a, mem.buf + 3, 100);
    assert_int_equal(a.stats.capacity, 88); /* 5 bytes skipped to align, 95 rounded down */
    uint8_t *p = zq_arena_calloc(&a, 1, 80);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % ZQ_ARENA_ALIGN, 0);
    zq_arena_t tiny;
    zq_arena_init(&tiny, mem.buf, ZQ_ARENA_HEADER);
    assert_null(zq_arena_calloc(&tiny, 1, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(calloc_gives_zeroed_aligned_memory_inside_the_buffer, setup),
        cmocka_unit_test_setup(an_exhausted_arena_returns_null_and_keeps_what_it_handed_out,
                               setup),
        cmocka_unit_test_setup(a_request_larger_than_the_arena_or_overflowing_returns_null,
                               setup),
        cmocka_unit_test_setup(freeing_neighbours_coalesces_them_into_one_block, setup),
        cmocka_unit_test_setup(a_hole_between_held_blocks_is_reused_first, setup),
        cmocka_unit_test_setup(the_peak_stays_at_the_highest_use_after_frees, setup),
        cmocka_unit_test_setup(pointers_from_elsewhere_are_not_its_own_and_free_ignores_them,
                               setup),
        cmocka_unit_test_setup(a_misaligned_buffer_is_trimmed_to_aligned_blocks, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

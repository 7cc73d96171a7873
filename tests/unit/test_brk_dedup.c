/* The dedup window (broker/dedup.h, PROTOCOL.md §9): duplicates are caught, the window forgets
 * first in first out, the key covers identity, id and retry count, and a million inserts of
 * churn agree with a reference set while the table's probe runs stay short (measured on the
 * table itself: the longest run of occupied slots bounds any lookup). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "broker/dedup.h"
#include "test_rand.h"

#define W ZQ_BRK_DEDUP_WINDOW
#define SLOTS (2 * W)

static brk_dedup_t dedup; /* 24 KiB with the default window: not on the stack */

/* Distinct, well-mixed test keys (splitmix64 of a counter), never 0 or 1 in practice. */
static uint64_t key_of(uint64_t n)
{
    uint64_t z = n + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (z ^ (z >> 31)) | 2;
}

static uint64_t key_str(const char *identity, const char *id, uint32_t retry)
{
    return brk_dedup_key((const uint8_t *)identity, strlen(identity), id, strlen(id), retry);
}

static void duplicate_is_detected(void **state)
{
    (void)state;
    brk_dedup_init(&dedup, 0x5EED);
    uint64_t k = key_str("9a1f03c4b2e8d7a6", "3b241101", 0);
    assert_false(brk_dedup_seen(&dedup, k));
    assert_true(brk_dedup_seen(&dedup, k));
    assert_true(brk_dedup_seen(&dedup, k));
    assert_int_equal(dedup.count, 1);
}

static void window_forgets_oldest_key_first(void **state)
{
    (void)state;
    brk_dedup_init(&dedup, 0x5EED);
    for (uint64_t n = 0; n < W; n++) {
        assert_false(brk_dedup_seen(&dedup, key_of(n)));
    }
    for (uint64_t n = 0; n < W; n++) { /* a full window remembers every key */
        assert_true(brk_dedup_seen(&dedup, key_of(n)));
    }
    assert_false(brk_dedup_seen(&dedup, key_of(W))); /* key W forgets key 0 ... */
    assert_true(brk_dedup_seen(&dedup, key_of(1)));  /* ... and only key 0 */
    assert_true(brk_dedup_seen(&dedup, key_of(W)));
    assert_false(brk_dedup_seen(&dedup, key_of(0))); /* new again: now key 1 is forgotten */
    assert_false(brk_dedup_seen(&dedup, key_of(1)));
    assert_true(brk_dedup_seen(&dedup, key_of(3)));
    assert_int_equal(dedup.count, W);
}

static void seeing_a_duplicate_does_not_refresh_it(void **state)
{
    (void)state;
    brk_dedup_init(&dedup, 0x5EED);
    for (uint64_t n = 0; n < W; n++) {
        brk_dedup_seen(&dedup, key_of(n));
    }
    assert_true(brk_dedup_seen(&dedup, key_of(0))); /* FIFO by first sight, not LRU */
    brk_dedup_seen(&dedup, key_of(W));
    assert_false(brk_dedup_seen(&dedup, key_of(0)));
}

static void identity_is_part_of_the_key(void **state)
{
    (void)state;
    brk_dedup_init(&dedup, 0x5EED);
    uint64_t a = key_str("9a1f03c4b2e8d7a6", "msg-1", 0);
    uint64_t b = key_str("0c77e1d25f0c9a2e", "msg-1", 0);
    assert_true(a != b);
    assert_false(brk_dedup_seen(&dedup, a));
    assert_false(brk_dedup_seen(&dedup, b)); /* the same id from another sender is delivered */
}

static void retry_count_is_part_of_the_key(void **state)
{
    (void)state;
    uint64_t first = key_str("9a1f03c4b2e8d7a6", "j-1", 0);
    assert_true(first != key_str("9a1f03c4b2e8d7a6", "j-1", 1));
    assert_true(key_str("9a1f03c4b2e8d7a6", "j-1", 1) != key_str("9a1f03c4b2e8d7a6", "j-1", 256));
    assert_true(first == key_str("9a1f03c4b2e8d7a6", "j-1", 0)); /* and it is a function */
}

static void key_fields_do_not_run_together(void **state)
{
    (void)state;
    assert_true(key_str("ab", "c", 0) != key_str("a", "bc", 0));
    assert_true(key_str("", "abc", 0) != key_str("abc", "", 0));
}

static void key_is_never_a_reserved_slot_value(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < 100000; i++) {
        char id[16];
        for (int j = 0; j < 8; j++) {
            id[j] = (char)('a' + ((i >> (3 * j)) & 7));
        }
        assert_true(brk_dedup_key(NULL, 0, id, 8, i) >= 2);
    }
}

static void raw_keys_zero_and_one_are_still_remembered(void **state)
{
    (void)state;
    brk_dedup_init(&dedup, 0x5EED);
    assert_false(brk_dedup_seen(&dedup, 0));
    assert_true(brk_dedup_seen(&dedup, 0));
    assert_false(brk_dedup_seen(&dedup, 1));
    assert_true(brk_dedup_seen(&dedup, 1));
}

/* ---- Churn ---------------------------------------------------------------------------------- */

typedef struct {
    unsigned live, tombstones, longest_run;
} table_shape_t;

/* Occupancy of the table and its longest run of non-empty slots (circular): a lookup probes at
 * most that run plus one slot, whatever the key. */
static table_shape_t shape(const brk_dedup_t *d)
{
    table_shape_t s = {0, 0, 0};
    unsigned first_empty = SLOTS;
    for (unsigned i = 0; i < SLOTS; i++) {
        s.live += d->table[i] >= 2;
        s.tombstones += d->table[i] == 1;
        if (d->table[i] == 0 && first_empty == SLOTS) {
            first_empty = i;
        }
    }
    assert_true(first_empty < SLOTS); /* an empty slot always ends a probe */
    unsigned run = 0;
    for (unsigned n = 1; n <= SLOTS; n++) {
        unsigned i = (first_empty + n) % SLOTS;
        run = d->table[i] != 0 ? run + 1 : 0;
        s.longest_run = run > s.longest_run ? run : s.longest_run;
    }
    return s;
}

/* Keys from a pool of 3W ids repeat often (duplicates and re-sends of forgotten ids); half the
 * traffic is fresh ids that never repeat, so the window churns. */
#define POOL (3 * W)

typedef struct {
    int64_t inserted_at[POOL]; /* ordinal of the id's last insertion, -1 never */
    int64_t inserts;           /* keys the window took as new, in total */
} reference_t;

static reference_t ref;

static bool ref_seen(uint64_t pool_id)
{
    if (pool_id < POOL && ref.inserted_at[pool_id] >= 0 &&
        ref.inserts - ref.inserted_at[pool_id] <= W) {
        return true;
    }
    if (pool_id < POOL) {
        ref.inserted_at[pool_id] = ref.inserts;
    }
    ref.inserts++;
    return false;
}

static void heavy_churn_agrees_with_a_reference_and_keeps_probes_short(void **state)
{
    (void)state;
    brk_dedup_init(&dedup, 0x5EED);
    memset(ref.inserted_at, 0xFF, sizeof ref.inserted_at);
    ref.inserts = 0;
    test_rand_t r;
    (void)test_rand(&r, 0xD5D5D5D5);
    uint64_t fresh = (uint64_t)1 << 40, duplicates = 0;
    unsigned longest = 0, most_tombstones = 0;
    for (unsigned i = 0; i < 1000000; i++) {
        uint64_t x = test_rand_next(&r);
        uint64_t id = (x & 1) != 0 ? fresh++ : (x >> 8) % POOL;
        bool expected = ref_seen(id);
        if (brk_dedup_seen(&dedup, key_of(id)) != expected) {
            fail_msg("insert %u (id %llu): expected %d", i, (unsigned long long)id, expected);
        }
        duplicates += expected;
        if (i % 997 == 0) {
            table_shape_t s = shape(&dedup);
            assert_int_equal(s.live, dedup.count);
            longest = s.longest_run > longest ? s.longest_run : longest;
            most_tombstones = s.tombstones > most_tombstones ? s.tombstones : most_tombstones;
        }
    }
    print_message("duplicates %llu, longest probe run %u, most tombstones %u\n",
                  (unsigned long long)duplicates, longest, most_tombstones);
    assert_true(duplicates > 50000); /* the window had real work */
    assert_true(most_tombstones < W / 4);
    /* Linear probing below a fixed load keeps the longest run O(log slots): 8 x log2 leaves
     * room (55 of 88 measured with the default window), and is far from a table-wide walk. */
    unsigned log2_slots = 0;
    while ((1u << log2_slots) < SLOTS) {
        log2_slots++;
    }
    assert_true(longest <= 8 * log2_slots);
}

/* Keys a sender ground to share their low bits (the home slot of an unseeded table) spread
 * over the table: where a key lives depends on the window's secret seed, not on the key alone. */
static void keys_aimed_at_one_slot_spread_under_the_seed(void **state)
{
    (void)state;
    brk_dedup_init(&dedup, 0x5EED);
    for (uint64_t n = 0; n < W; n++) {
        assert_false(brk_dedup_seen(&dedup, 2 + n * SLOTS)); /* all equal modulo SLOTS */
    }
    table_shape_t s = shape(&dedup);
    assert_int_equal(s.live, W);
    assert_true(s.longest_run < W / 4); /* one shared home slot would make a run of W */
    brk_dedup_t other;
    brk_dedup_init(&other, 0x5EED + 1);
    for (uint64_t n = 0; n < W; n++) {
        (void)brk_dedup_seen(&other, 2 + n * SLOTS);
    }
    assert_memory_not_equal(dedup.table, other.table, sizeof dedup.table);
}

/* dedup.c rebuilds the table every W/4 evictions: tombstones never pass that, insert by insert. */
static void tombstones_are_swept_before_they_pile_up(void **state)
{
    (void)state;
    brk_dedup_init(&dedup, 0x5EED);
    for (uint64_t n = 0; n < 4 * W; n++) {
        assert_false(brk_dedup_seen(&dedup, key_of(n)));
        table_shape_t s = shape(&dedup);
        assert_true(s.tombstones < W / 4);
        assert_int_equal(s.live, dedup.count);
        assert_true(s.live + s.tombstones <= SLOTS * 5 / 8);
    }
    for (uint64_t n = 3 * W; n < 4 * W; n++) { /* and the rebuilt table still finds them all */
        assert_true(brk_dedup_seen(&dedup, key_of(n)));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(duplicate_is_detected),
        cmocka_unit_test(window_forgets_oldest_key_first),
        cmocka_unit_test(seeing_a_duplicate_does_not_refresh_it),
        cmocka_unit_test(identity_is_part_of_the_key),
        cmocka_unit_test(retry_count_is_part_of_the_key),
        cmocka_unit_test(key_fields_do_not_run_together),
        cmocka_unit_test(key_is_never_a_reserved_slot_value),
        cmocka_unit_test(raw_keys_zero_and_one_are_still_remembered),
        cmocka_unit_test(heavy_churn_agrees_with_a_reference_and_keeps_probes_short),
        cmocka_unit_test(tombstones_are_swept_before_they_pile_up),
        cmocka_unit_test(keys_aimed_at_one_slot_spread_under_the_seed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

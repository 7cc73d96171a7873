/* The event queue every layer uses (include/zq/queue.h): one overflow policy, refuse and
 * count, and first in, first out across the wrap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "zq/queue.h"

typedef struct {
    uint32_t seq;
    uint8_t tag;
} item_t;

/* Five slots between guard bytes: a push or pop past the array shows in the guards. */
static struct {
    uint8_t before[16];
    item_t slots[5];
    uint8_t after[16];
} store;
static zq_queue_t q;

static int setup(void **state)
{
    (void)state;
    memset(&store, 0xA5, sizeof store);
    memset(&q, 0, sizeof q);
    return 0;
}

static void guards_are_intact(void)
{
    for (size_t i = 0; i < sizeof store.before; i++) {
        assert_int_equal(store.before[i], 0xA5);
        assert_int_equal(store.after[i], 0xA5);
    }
}

static bool push(uint32_t seq)
{
    item_t *it = ZQ_QUEUE_PUSH(&q, store.slots);
    if (it != NULL) {
        it->seq = seq;
    }
    return it != NULL;
}

static uint32_t pop(void)
{
    const item_t *it = ZQ_QUEUE_POP(&q, store.slots);
    assert_non_null(it);
    return it->seq;
}

static void an_empty_queue_pops_nothing(void **state)
{
    (void)state;
    assert_null(ZQ_QUEUE_POP(&q, store.slots));
    assert_int_equal(zq_queue_count(&q), 0);
    assert_int_equal(zq_queue_refused(&q), 0);
}

static void a_push_hands_back_a_zeroed_slot(void **state)
{
    (void)state;
    item_t *it = ZQ_QUEUE_PUSH(&q, store.slots);
    assert_non_null(it);
    assert_int_equal(it->seq, 0);
    assert_int_equal(it->tag, 0);
    assert_int_equal(zq_queue_count(&q), 1);
}

static void a_full_queue_refuses_and_counts_the_push(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < 5; i++) {
        assert_true(push(i));
    }
    assert_false(push(100));
    assert_false(push(101));
    assert_int_equal(zq_queue_refused(&q), 2);
    assert_int_equal(zq_queue_count(&q), 5);
    guards_are_intact();
}

static void a_refused_push_leaves_every_queued_event_as_it_was(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < 5; i++) {
        assert_true(push(10 + i));
    }
    assert_false(push(99));
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(pop(), 10 + i);
    }
    assert_null(ZQ_QUEUE_POP(&q, store.slots));
    guards_are_intact();
}

static void events_come_out_in_order_across_the_wrap(void **state)
{
    (void)state;
    uint32_t next_in = 0;
    uint32_t next_out = 0;
    for (int round = 0; round < 7; round++) { /* 3 in, 2 out: the head goes round twice */
        for (int k = 0; k < 3; k++) {
            if (push(next_in)) {
                next_in++;
            }
        }
        for (int k = 0; k < 2; k++) {
            assert_int_equal(pop(), next_out++);
        }
    }
    while (zq_queue_count(&q) > 0) {
        assert_int_equal(pop(), next_out++);
    }
    assert_int_equal(next_out, next_in);
    assert_int_equal(zq_queue_refused(&q), 21 - next_in);
    guards_are_intact();
}

static void at_reads_the_queued_events_oldest_first_without_taking_them(void **state)
{
    (void)state;
    for (uint32_t i = 0; i < 4; i++) {
        assert_true(push(i));
    }
    (void)pop();
    (void)pop();
    assert_true(push(4));
    assert_true(push(5));
    assert_true(push(6)); /* slots 4, 0 and 1: wrapped */
    for (size_t i = 0; i < 5; i++) {
        const item_t *it = ZQ_QUEUE_AT(&q, store.slots, i);
        assert_non_null(it);
        assert_int_equal(it->seq, 2 + i);
    }
    assert_null(ZQ_QUEUE_AT(&q, store.slots, 5));
    assert_int_equal(zq_queue_count(&q), 5);
}

static void a_queue_of_one_slot_holds_one_event(void **state)
{
    (void)state;
    item_t one[1];
    assert_non_null(ZQ_QUEUE_PUSH(&q, one));
    assert_null(ZQ_QUEUE_PUSH(&q, one));
    assert_int_equal(zq_queue_refused(&q), 1);
    assert_ptr_equal(ZQ_QUEUE_POP(&q, one), &one[0]);
    assert_non_null(ZQ_QUEUE_PUSH(&q, one));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(an_empty_queue_pops_nothing, setup),
        cmocka_unit_test_setup(a_push_hands_back_a_zeroed_slot, setup),
        cmocka_unit_test_setup(a_full_queue_refuses_and_counts_the_push, setup),
        cmocka_unit_test_setup(a_refused_push_leaves_every_queued_event_as_it_was, setup),
        cmocka_unit_test_setup(events_come_out_in_order_across_the_wrap, setup),
        cmocka_unit_test_setup(at_reads_the_queued_events_oldest_first_without_taking_them,
                               setup),
        cmocka_unit_test_setup(a_queue_of_one_slot_holds_one_event, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

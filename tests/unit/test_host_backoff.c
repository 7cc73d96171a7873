/* host/backoff.h: the reconnect schedule every port runs (ZeroQ's 1 s doubling to 30 s),
 * bounded, jittered from the randomness it is given, and reset by a success. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "host/backoff.h"
#include "test_rand.h"

static int zeros(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    for (size_t i = 0; i < len; i++) {
        out[i] = 0;
    }
    return 0;
}

static int broken(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    (void)out;
    (void)len;
    return -1;
}

static void waits_double_from_the_first_step_up_to_the_bound(void **state)
{
    (void)state;
    zq_rand_t r = {zeros, NULL}; /* draws 0: no jitter off the step */
    zq_backoff_t b;
    zq_backoff_init(&b, 1000, 30000);
    static const uint32_t want[] = {1000, 2000, 4000, 8000, 16000, 30000, 30000};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(zq_backoff_next(&b, &r), want[i]);
    }
}

static void jitter_takes_at_most_a_quarter_off_each_step(void **state)
{
    (void)state;
    test_rand_t tr;
    zq_rand_t r = test_rand(&tr, 7);
    bool uneven = false;
    for (int run = 0; run < 200; run++) {
        zq_backoff_t b;
        zq_backoff_init(&b, 1000, 30000);
        uint32_t step = 1000;
        for (int i = 0; i < 8; i++) {
            uint32_t w = zq_backoff_next(&b, &r);
            assert_true(w <= step && w >= step - step / 4);
            uneven = uneven || w != step;
            step = step * 2 > 30000 ? 30000 : step * 2;
        }
    }
    assert_true(uneven);
}

static void the_same_randomness_gives_the_same_waits(void **state)
{
    (void)state;
    test_rand_t ta, tb;
    zq_rand_t ra = test_rand(&ta, 42);
    zq_rand_t rb = test_rand(&tb, 42);
    zq_backoff_t a, b;
    zq_backoff_init(&a, 1000, 30000);
    zq_backoff_init(&b, 1000, 30000);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(zq_backoff_next(&a, &ra), zq_backoff_next(&b, &rb));
    }
}

static void a_success_starts_the_schedule_over(void **state)
{
    (void)state;
    zq_rand_t r = {zeros, NULL};
    zq_backoff_t b;
    zq_backoff_init(&b, 1000, 30000);
    for (int i = 0; i < 6; i++) {
        (void)zq_backoff_next(&b, &r);
    }
    zq_backoff_reset(&b);
    assert_int_equal(zq_backoff_next(&b, &r), 1000);
    assert_int_equal(zq_backoff_next(&b, &r), 2000);
}

static void a_failing_random_source_still_waits_the_step(void **state)
{
    (void)state;
    zq_rand_t r = {broken, NULL};
    zq_backoff_t b;
    zq_backoff_init(&b, 1000, 30000);
    assert_int_equal(zq_backoff_next(&b, &r), 1000);
    assert_int_equal(zq_backoff_next(&b, &r), 2000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(waits_double_from_the_first_step_up_to_the_bound),
        cmocka_unit_test(jitter_takes_at_most_a_quarter_off_each_step),
        cmocka_unit_test(the_same_randomness_gives_the_same_waits),
        cmocka_unit_test(a_success_starts_the_schedule_over),
        cmocka_unit_test(a_failing_random_source_still_waits_the_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

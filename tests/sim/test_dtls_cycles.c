/* A device must survive thousands of reconnects with no memory growth, the most common field
 * failure of embedded WebRTC stacks: 1,000 handshake + data + close cycles in one process, the
 * arena back at its baseline after every one, and not one call to the C heap from zq or mbedTLS
 * (this binary is linked with --wrap=malloc,calloc,realloc,free to count them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dtls_pair.h"
#include "heap_count.h"

static dtls_pair_t pair;

static bool connected_or_failed(dtls_pair_t *p)
{
    return dtls_pair_both_connected(p) || dtls_pair_any_failed(p);
}

static unsigned cycle_count(void)
{
    const char *env = getenv("ZQ_DTLS_CYCLES"); /* shorter runs when debugging */
    return env != NULL ? (unsigned)atoi(env) : 1000;
}

/* One reconnect: handshake, one record each way, close_notify, free. */
static bool one_cycle(uint64_t seed)
{
    static const simnet_impairment_t clean = {0, 0, 1, 0};
    dtls_pair_init(&pair, seed, clean);
    dtls_pair_start(&pair, &fx.ctx_a, &fx.ctx_b, &fx.id_b.fingerprint, &fx.id_a.fingerprint);
    bool ok = dtls_pair_run(&pair, pair.now + 5000, connected_or_failed) &&
              dtls_pair_both_connected(&pair);
    const uint8_t msg[] = "ping";
    ok = ok && dtls_pair_send(&pair, 0, msg, sizeof msg) == ZQ_OK &&
         dtls_pair_send(&pair, 1, msg, sizeof msg) == ZQ_OK;
    dtls_pair_run(&pair, pair.now + 100, NULL);
    ok = ok && pair.end[0].messages == 1 && pair.end[1].messages == 1;
    dtls_close(&pair.end[0].conn, pair.now);
    dtls_pair_free(&pair);
    return ok;
}

/* The counter must be able to see a heap call, or its zero proves nothing. */
static void heap_wrappers_count_calls(void **state)
{
    (void)state;
    heap_counting = true;
    void *volatile p = malloc(16);
    free(p);
    heap_counting = false;
    assert_int_equal(heap_calls, 2);
    heap_calls = 0;
}

static void thousand_reconnects_return_the_arena_to_baseline_without_heap(void **state)
{
    (void)state;
    unsigned cycles = cycle_count();
    dtls_arena_stats_t base;
    assert_int_equal(dtls_arena_stats(&base), ZQ_OK);
    size_t worst_leak = 0;
    unsigned failures = 0;
    heap_counting = true;
    for (unsigned i = 0; i < cycles; i++) {
        failures += !one_cycle(i + 1);
        dtls_arena_stats_t now;
        (void)dtls_arena_stats(&now);
        size_t leak = now.in_use > base.in_use ? now.in_use - base.in_use : 0;
        worst_leak = leak > worst_leak ? leak : worst_leak;
        worst_leak += now.blocks != base.blocks;
    }
    heap_counting = false;
    dtls_arena_stats_t end;
    assert_int_equal(dtls_arena_stats(&end), ZQ_OK);
    printf("    %u cycles: %u failed, arena baseline %zu B in %zu blocks, peak %zu B, "
           "worst growth %zu B, heap calls %lu\n",
           cycles, failures, base.in_use, base.blocks, end.peak, worst_leak, heap_calls);
    assert_int_equal(failures, 0);
    assert_int_equal(worst_leak, 0);
    assert_int_equal(end.in_use, base.in_use);
    assert_int_equal(heap_calls, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heap_wrappers_count_calls),
        cmocka_unit_test(thousand_reconnects_return_the_arena_to_baseline_without_heap),
    };
    return cmocka_run_group_tests(tests, dtls_fixture_group_setup, NULL);
}

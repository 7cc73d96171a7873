/* A whole node, broker included, makes no heap call after init and gives every byte back to
 * the DTLS arena on every reconnect: 100 cycles of connect, exchange (a QoS 1 message both
 * ways), close, between two brokers in a simulated room. This binary is linked with
 * --wrap=malloc,calloc,realloc,free: every call to the C heap from zq or mbedTLS is counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mesh.h"
#include "heap_count.h"

static size_t arena_in_use(void)
{
    dtls_arena_stats_t st;
    assert_int_equal(dtls_arena_stats(&st), ZQ_OK);
    return st.in_use;
}

static bool both_up(void)
{
    return mesh_all_connected(2);
}

static size_t received(unsigned i)
{
    return mesh_count(i, BRK_EVENT_MESSAGE, NULL);
}

static void connect_exchange_close_100_times_without_heap_or_growth(void **state)
{
    (void)state;
    mesh_reset(1, (simnet_impairment_t){0, 0, 2, 0});
    mesh_add("room", true, NULL, -1);
    mesh_add("room", true, NULL, -1);
    assert_int_equal(brk_subscribe(&mesh.members[0].broker, mesh.now, "ping"), ZQ_OK);
    assert_int_equal(brk_subscribe(&mesh.members[1].broker, mesh.now, "ping"), ZQ_OK);
    size_t baseline = arena_in_use(); /* the two identities and their contexts */
    heap_counting = true;
    unsigned cycles = getenv("ZQ_NODE_CYCLES") != NULL ? (unsigned)atoi(getenv("ZQ_NODE_CYCLES"))
                                                          : 100;
    for (unsigned c = 0; c < cycles; c++) {
        size_t before0 = received(0);
        size_t before1 = received(1);
        assert_true(mesh_run(mesh.now + 30000, both_up));
        mesh_run_for(300); /* hello and sub */
        assert_int_equal(brk_publish(&mesh.members[0].broker, mesh.now, "ping", "1", 1,
                                     BRK_QOS_1),
                         ZQ_OK);
        assert_int_equal(brk_publish(&mesh.members[1].broker, mesh.now, "ping", "2", 1,
                                     BRK_QOS_1),
                         ZQ_OK);
        mesh_run_for(500);
        assert_int_equal(received(0), before0 + 1);
        assert_int_equal(received(1), before1 + 1);
        /* Member 1 leaves (its process would exit): connections closed, signalling gone. */
        mesh_close_peers(1);
        mesh_offline(1);
        mesh_run_for(2000);
        mesh_close_peers(0); /* and member 0 lets its side go too */
        mesh_run_for(500);
        assert_int_equal(arena_in_use(), baseline);
        mesh_online(1);
    }
    heap_counting = false;
    assert_int_equal(heap_calls, 0);
    printf("    %u cycles: 0 heap calls, the DTLS arena back at %zu bytes after each\n", cycles,
           baseline);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(connect_exchange_close_100_times_without_heap_or_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The TLS client's input side as port/ws/ws_link.c uses it (stack/tls/tls_client.h): a read
 * from the socket of tls_session_input_room() bytes is taken whole. The handshakes themselves
 * run against nginx (tests/interop/wss/run.sh) and fuzz_tls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stack/tls/tls_client.h"

static tls_session_t t; /* zeroed: no session, its buffers empty */

static void what_input_room_promises_feed_takes_whole(void **state)
{
    (void)state;
    static uint8_t junk[TLS_IO_BUF];
    assert_int_equal(tls_session_input_room(&t), TLS_IO_BUF);
    assert_int_equal(tls_session_feed(&t, junk, 3000), 3000);
    size_t room = tls_session_input_room(&t);
    assert_int_equal(room, TLS_IO_BUF - 3000);
    assert_int_equal(tls_session_feed(&t, junk, room), room);
    assert_int_equal(tls_session_input_room(&t), 0);
    assert_int_equal(tls_session_feed(&t, junk, 1), 0); /* full: nothing taken, nothing lost */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(what_input_room_promises_feed_takes_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The one ws:// URL parser (signal/ws_url.h, RFC 6455 §3), which both WebSocket clients use:
 * its rules, moved here from the POSIX client's tests, and the copies into a client's
 * buffers, inside 0xA5 guard bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "signal/ws_url.h"

static zq_err_t parse(const char *text, ws_url_t *u, const char **why)
{
    return ws_url_parse(text, strlen(text), u, why);
}

static void assert_span(const char *p, size_t len, const char *want)
{
    assert_int_equal(len, strlen(want));
    assert_memory_equal(p, want, len);
}

static void a_url_without_port_or_path_is_port_80_and_slash(void **state)
{
    (void)state;
    ws_url_t u;
    assert_int_equal(parse("ws://h", &u, NULL), ZQ_OK);
    assert_span(u.host, u.host_len, "h");
    assert_int_equal(u.port, 80);
    assert_int_equal(u.target_len, 0);
    assert_int_equal(u.addr.family, ZQ_AF_NONE); /* a name: the client resolves it */
    char target[4];
    assert_int_equal(ws_url_copy_target(&u, target, sizeof target), ZQ_OK);
    assert_string_equal(target, "/");
}

static void url_keeps_port_path_and_query(void **state)
{
    (void)state;
    ws_url_t u;
    char target[32];
    assert_int_equal(parse("ws://h:1/p?q", &u, NULL), ZQ_OK);
    assert_span(u.host, u.host_len, "h");
    assert_int_equal(u.port, 1);
    assert_span(u.target, u.target_len, "/p?q");
    assert_int_equal(parse("ws://signal.local?token=ab", &u, NULL), ZQ_OK);
    assert_int_equal(ws_url_copy_target(&u, target, sizeof target), ZQ_OK);
    assert_string_equal(target, "/?token=ab");
    assert_int_equal(parse("WS://H:8080/ws", &u, NULL), ZQ_OK); /* RFC 3986 §3.1 */
    assert_int_equal(u.port, 8080);
    assert_int_equal(parse("ws://h:00080/", &u, NULL), ZQ_OK);
    assert_int_equal(u.port, 80);
}

static void url_numeric_hosts_carry_their_address(void **state)
{
    (void)state;
    ws_url_t u;
    assert_int_equal(parse("ws://127.0.0.1:9/ws", &u, NULL), ZQ_OK);
    zq_addr_t want = zq_addr_v4(127, 0, 0, 1, 9);
    assert_true(zq_addr_equal(&u.addr, &want));
    assert_int_equal(parse("ws://[::1]:8080/ws", &u, NULL), ZQ_OK);
    assert_span(u.host, u.host_len, "::1");
    assert_int_equal(u.addr.family, ZQ_AF_INET6);
    assert_int_equal(u.addr.ip[15], 1);
    assert_int_equal(u.addr.port, 8080);
    assert_int_equal(parse("ws://[::1]", &u, NULL), ZQ_OK);
    assert_int_equal(u.addr.port, 80);
}

static void url_refuses_other_schemes(void **state)
{
    (void)state;
    ws_url_t u;
    const char *why = NULL;
    assert_int_equal(parse("http://h/", &u, &why), ZQ_ERR_MALFORMED);
    assert_non_null(strstr(why, "ws://"));
    assert_int_equal(parse("h:8080", &u, &why), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("", &u, &why), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("ws:/", &u, &why), ZQ_ERR_MALFORMED);
}

static void wss_is_secure_and_defaults_to_port_443(void **state)
{
    (void)state;
    ws_url_t u;
    const char *why = NULL;
    assert_int_equal(parse("wss://signal.example/ws?token=1.ab", &u, &why), ZQ_OK);
    assert_true(u.secure);
    assert_int_equal(u.port, 443);
    assert_int_equal(parse("WSS://signal.example:8443", &u, &why), ZQ_OK);
    assert_true(u.secure);
    assert_int_equal(u.port, 8443);
    assert_int_equal(parse("ws://signal.example", &u, &why), ZQ_OK);
    assert_false(u.secure);
    assert_int_equal(u.port, 80);
    assert_int_equal(parse("https://signal.example", &u, &why), ZQ_ERR_MALFORMED);
    assert_string_equal(why, "a WebSocket URL starts with ws:// or wss://");
}

static void url_refuses_an_empty_host(void **state)
{
    (void)state;
    ws_url_t u;
    const char *why = NULL;
    static const char *const bad[] = {"ws://", "ws://:80/", "ws:///ws", "ws://?q", "ws://[]:1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why = NULL;
        assert_int_not_equal(parse(bad[i], &u, &why), ZQ_OK);
        assert_non_null(why);
    }
    assert_int_equal(parse("ws://", &u, &why), ZQ_ERR_MALFORMED);
    assert_string_equal(why, "the URL has no host");
}

static void url_refuses_ports_outside_1_to_65535(void **state)
{
    (void)state;
    ws_url_t u;
    const char *why = NULL;
    static const char *const bad[] = {"ws://h:0/", "ws://h:65536/", "ws://h:/", "ws://h:x",
                                      "ws://h:-1", "ws://h:123456", "ws://[::1]:0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(bad[i], &u, &why), ZQ_ERR_MALFORMED);
        assert_string_equal(why, "the port must be 1-65535");
    }
    assert_int_equal(parse("ws://h:65535/", &u, &why), ZQ_OK);
}

static void url_refuses_fragments_userinfo_and_unbracketed_ipv6(void **state)
{
    (void)state;
    ws_url_t u;
    const char *why = NULL;
    static const char *const bad[] = {"ws://h/ws#frag", "ws://user@h/", "ws://::1/",
                                      "ws://[::1/", "ws://[h]:1/", "ws://[::1]x/",
                                      "ws://h/a b", "ws://h/\x01", "ws://h%41/", "ws://h#f"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        why = NULL;
        assert_int_equal(parse(bad[i], &u, &why), ZQ_ERR_MALFORMED);
        assert_non_null(why);
    }
}

static void url_reads_only_its_span(void **state)
{
    (void)state;
    ws_url_t u;
    static const char text[] = "ws://h/ws#not-this";
    assert_int_equal(ws_url_parse(text, 9, &u, NULL), ZQ_OK);
    assert_span(u.target, u.target_len, "/ws");
    static const char nul[] = "ws://h/\0x";
    assert_int_equal(ws_url_parse(nul, sizeof nul - 1, &u, NULL), ZQ_ERR_MALFORMED);
}

static void a_copy_that_does_not_fit_is_too_long_and_empty(void **state)
{
    (void)state;
    ws_url_t u;
    assert_int_equal(parse("ws://host/path", &u, NULL), ZQ_OK);
    char buf[1 + 6 + 1];
    memset(buf, 0xA5, sizeof buf);
    assert_int_equal(ws_url_copy_host(&u, buf + 1, 5), ZQ_OK); /* "host" and its NUL: exact */
    assert_string_equal(buf + 1, "host");
    assert_int_equal(ws_url_copy_host(&u, buf + 1, 4), ZQ_ERR_TOO_LONG);
    assert_string_equal(buf + 1, "");
    memset(buf, 0xA5, sizeof buf);
    assert_int_equal(ws_url_copy_target(&u, buf + 1, 6), ZQ_OK);
    assert_string_equal(buf + 1, "/path");
    assert_int_equal(ws_url_copy_target(&u, buf + 1, 5), ZQ_ERR_TOO_LONG);
    assert_string_equal(buf + 1, "");
    assert_int_equal((uint8_t)buf[0], 0xA5);
    assert_int_equal((uint8_t)buf[7], 0xA5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_url_without_port_or_path_is_port_80_and_slash),
        cmocka_unit_test(url_keeps_port_path_and_query),
        cmocka_unit_test(url_numeric_hosts_carry_their_address),
        cmocka_unit_test(url_refuses_other_schemes),
        cmocka_unit_test(wss_is_secure_and_defaults_to_port_443),
        cmocka_unit_test(url_refuses_an_empty_host),
        cmocka_unit_test(url_refuses_ports_outside_1_to_65535),
        cmocka_unit_test(url_refuses_fragments_userinfo_and_unbracketed_ipv6),
        cmocka_unit_test(url_reads_only_its_span),
        cmocka_unit_test(a_copy_that_does_not_fit_is_too_long_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* port/lwip/config_block.h: the firmware's key=value settings, read at boot. Every line is
 * read or refused with its number and a reason; required keys are checked; defaults apply. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "port/lwip/config_block.h"

static zq_config_block_t cfg;
static const char *why;
static unsigned line;

static zq_err_t parse(const char *text)
{
    why = NULL;
    return zq_config_block_parse(text, strlen(text), &cfg, &why, &line);
}

static void a_full_block_sets_every_value(void **state)
{
    (void)state;
    assert_int_equal(parse("ip=192.0.2.2\nnetmask=255.255.255.0\ngw=192.0.2.1\n"
                           "mac=02:aa:bb:cc:dd:0f\napp=sensor\nsignal=ws://192.0.2.1:8080/ws\n"
                           "room=lab\nname=kitchen\nperiod=250\n"),
                     ZQ_OK);
    assert_true(zq_addr_equal(&cfg.ip, &(zq_addr_t){.family = ZQ_AF_INET4, .ip = {192, 0, 2, 2}}));
    assert_int_equal(cfg.gw.ip[3], 1);
    assert_int_equal(cfg.mac[1], 0xaa);
    assert_int_equal(cfg.mac[5], 0x0f);
    assert_int_equal(cfg.app, ZQ_FW_APP_SENSOR);
    assert_string_equal(cfg.signal, "ws://192.0.2.1:8080/ws");
    assert_string_equal(cfg.room, "lab");
    assert_string_equal(cfg.name, "kitchen");
    assert_int_equal(cfg.period_ms, 250);
}

static void time_and_pin_set_the_wss_clients_clock_and_key(void **state)
{
    (void)state;
    /* The pin of 32 bytes 0x00..0x1f, as `openssl ... | base64` prints it. */
    assert_int_equal(parse("ip=192.0.2.2\nsignal=wss://192.0.2.1:8443/ws\ntime=1796601600\n"
                           "pin=sha256/AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"),
                     ZQ_OK);
    assert_true(cfg.has_time);
    assert_true(cfg.time_s == 1796601600u);
    assert_true(cfg.has_pin);
    assert_int_equal(cfg.pin[0], 0x00);
    assert_int_equal(cfg.pin[31], 0x1f);
    assert_int_equal(parse("ip=192.0.2.2\nsignal=wss://192.0.2.1/ws\n"), ZQ_OK);
    assert_false(cfg.has_time);
    assert_false(cfg.has_pin);
}

static void a_time_or_pin_that_is_not_one_is_refused(void **state)
{
    (void)state;
    assert_int_equal(parse("time=-1\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("time=17966016OO\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("time=4102444801\n"), ZQ_ERR_MALFORMED); /* after 2100 */
    assert_int_equal(parse("pin=AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n"),
                     ZQ_ERR_MALFORMED); /* no sha256/ */
    assert_int_equal(parse("pin=sha256/AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==\n"),
                     ZQ_ERR_MALFORMED); /* 31 bytes */
    assert_int_equal(parse("pin=sha256/\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(line, 1);
}

static void missing_optional_keys_take_their_defaults(void **state)
{
    (void)state;
    assert_int_equal(parse("ip=192.0.2.2\r\nsignal=ws://192.0.2.1/ws\r\n"), ZQ_OK);
    assert_int_equal(cfg.app, ZQ_FW_APP_ECHO);
    assert_string_equal(cfg.room, "default-topic");
    assert_int_equal(cfg.netmask.ip[0], 255);
    assert_int_equal(cfg.netmask.ip[3], 0);
    assert_int_equal(cfg.gw.family, ZQ_AF_NONE);
    assert_int_equal(cfg.mac[0], 0x02);
    assert_int_equal(cfg.period_ms, 1000);
}

static void blank_lines_and_comments_are_ignored(void **state)
{
    (void)state;
    assert_int_equal(parse("# written by scripts/firmware\n\nip=192.0.2.2\n\n"
                           "signal=ws://192.0.2.1/ws"),
                     ZQ_OK);
}

static void the_block_ends_at_its_first_nul(void **state)
{
    (void)state;
    static const char text[] = "ip=192.0.2.2\nsignal=ws://192.0.2.1/ws\n\0garbage=1\n";
    assert_int_equal(zq_config_block_parse(text, sizeof text, &cfg, &why, &line), ZQ_OK);
}

static void an_unknown_key_is_refused_with_its_line(void **state)
{
    (void)state;
    assert_int_equal(parse("ip=192.0.2.2\nsignall=ws://x/\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(line, 2);
    assert_string_equal(why, "unknown key");
}

static void a_key_given_twice_is_refused(void **state)
{
    (void)state;
    assert_int_equal(parse("ip=192.0.2.2\nip=192.0.2.3\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(line, 2);
}

static void a_line_without_equals_is_refused(void **state)
{
    (void)state;
    assert_int_equal(parse("ip 192.0.2.2\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(line, 1);
}

static void malformed_values_are_refused(void **state)
{
    (void)state;
    assert_int_equal(parse("ip=192.0.2\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("ip=2001:db8::1\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("mac=02:00:00:00:00\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("mac=02:00:00:00:00:0g\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("app=blinker\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("period=0\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("period=3600001\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("room=\n"), ZQ_ERR_MALFORMED);
}

static void a_value_longer_than_its_buffer_is_refused(void **state)
{
    (void)state;
    char text[ZQ_CONFIG_URL_MAX + 32];
    memcpy(text, "signal=", 7);
    memset(text + 7, 'a', ZQ_CONFIG_URL_MAX + 1);
    text[7 + ZQ_CONFIG_URL_MAX + 1] = '\0';
    assert_int_equal(parse(text), ZQ_ERR_TOO_LONG);
    memset(text + 7, 'a', ZQ_CONFIG_URL_MAX);
    memcpy(text + 7 + ZQ_CONFIG_URL_MAX, "\nip=192.0.2.2", 14);
    assert_int_equal(parse(text), ZQ_OK);
}

static void a_block_without_ip_or_signal_names_what_is_missing(void **state)
{
    (void)state;
    assert_int_equal(parse("signal=ws://192.0.2.1/ws\n"), ZQ_ERR_NOT_FOUND);
    assert_string_equal(why, "no ip= line");
    assert_int_equal(line, 0);
    assert_int_equal(parse("ip=192.0.2.2\n"), ZQ_ERR_NOT_FOUND);
    assert_string_equal(why, "no signal= line");
    assert_int_equal(parse(""), ZQ_ERR_NOT_FOUND);
}

static void a_block_longer_than_its_region_is_refused(void **state)
{
    (void)state;
    static char text[ZQ_CONFIG_BLOCK_MAX + 2];
    memset(text, '\n', sizeof text - 1);
    assert_int_equal(parse(text), ZQ_ERR_TOO_LONG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_full_block_sets_every_value),
        cmocka_unit_test(time_and_pin_set_the_wss_clients_clock_and_key),
        cmocka_unit_test(a_time_or_pin_that_is_not_one_is_refused),
        cmocka_unit_test(missing_optional_keys_take_their_defaults),
        cmocka_unit_test(blank_lines_and_comments_are_ignored),
        cmocka_unit_test(the_block_ends_at_its_first_nul),
        cmocka_unit_test(an_unknown_key_is_refused_with_its_line),
        cmocka_unit_test(a_key_given_twice_is_refused),
        cmocka_unit_test(a_line_without_equals_is_refused),
        cmocka_unit_test(malformed_values_are_refused),
        cmocka_unit_test(a_value_longer_than_its_buffer_is_refused),
        cmocka_unit_test(a_block_without_ip_or_signal_names_what_is_missing),
        cmocka_unit_test(a_block_longer_than_its_region_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

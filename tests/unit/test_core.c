/* The shared core: addresses, byte cursors, CRC-32, HMAC-SHA1, errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "zq/addr.h"
#include "zq/bytes.h"
#include "zq/crypto.h"
#include "zq/err.h"

static zq_err_t parse_ip(const char *s, zq_addr_t *a)
{
    return zq_addr_parse_ip(s, strlen(s), a);
}

static void ip_text_round_trips_in_rfc5952_form(void **state)
{
    (void)state;
    static const char *canonical[] = {
        "0.0.0.0", "127.0.0.1", "255.255.255.255", "::", "::1", "2001:db8::1",
        "2001:db8:1234:5678:11:2233:4455:6677", "fe80::1:0:0:1", "2001:0:0:1::1",
        "::ffff:192.0.2.1" /* RFC 5952 §5 prefers dotted IPv4 here; zq prints hex groups */,
    };
    static const char *formatted[] = {
        "0.0.0.0", "127.0.0.1", "255.255.255.255", "::", "::1", "2001:db8::1",
        "2001:db8:1234:5678:11:2233:4455:6677", "fe80::1:0:0:1", "2001:0:0:1::1",
        "::ffff:c000:201",
    };
    for (size_t i = 0; i < sizeof canonical / sizeof canonical[0]; i++) {
        zq_addr_t a;
        char out[ZQ_ADDR_TEXT_MAX];
        assert_int_equal(parse_ip(canonical[i], &a), ZQ_OK);
        assert_true(zq_addr_format_ip(&a, out, sizeof out) > 0);
        assert_string_equal(out, formatted[i]);
    }
}

static void ipv6_compresses_longest_zero_run_first_on_tie(void **state)
{
    (void)state;
    zq_addr_t a;
    char out[ZQ_ADDR_TEXT_MAX];
    assert_int_equal(parse_ip("2001:db8:0:0:1:0:0:1", &a), ZQ_OK);
    zq_addr_format_ip(&a, out, sizeof out);
    assert_string_equal(out, "2001:db8::1:0:0:1");
    assert_int_equal(parse_ip("2001:DB8:0:0:0:0:0:1", &a), ZQ_OK);
    zq_addr_format_ip(&a, out, sizeof out);
    assert_string_equal(out, "2001:db8::1");
}

static void malformed_ips_are_rejected(void **state)
{
    (void)state;
    static const char *bad[] = {
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3", "1.2.3.4 ", "a.b.c.d", ":::",
        "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "1:2:3:4:5:6:7:", ":1::", "1:::2",
        "::g", "fe80::1%eth0", "1:2:3:4:5:6:7::8:9",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        zq_addr_t a;
        assert_int_equal(parse_ip(bad[i], &a), ZQ_ERR_MALFORMED);
    }
}

static void address_with_port_parses_and_formats(void **state)
{
    (void)state;
    zq_addr_t a;
    char out[ZQ_ADDR_TEXT_MAX];
    assert_int_equal(zq_addr_parse("127.0.0.1:8080", 14, &a), ZQ_OK);
    assert_int_equal(a.port, 8080);
    zq_addr_format(&a, out, sizeof out);
    assert_string_equal(out, "127.0.0.1:8080");
    assert_int_equal(zq_addr_parse("[::1]:65535", 11, &a), ZQ_OK);
    zq_addr_format(&a, out, sizeof out);
    assert_string_equal(out, "[::1]:65535");
    assert_int_equal(zq_addr_parse("::1:80", 6, &a), ZQ_ERR_MALFORMED);
    assert_int_equal(zq_addr_parse("1.2.3.4:65536", 13, &a), ZQ_ERR_MALFORMED);
    assert_int_equal(zq_addr_parse("1.2.3.4:", 8, &a), ZQ_ERR_MALFORMED);
    assert_int_equal(zq_addr_parse("[::1]80", 7, &a), ZQ_ERR_MALFORMED);
}

static void format_refuses_a_buffer_too_small(void **state)
{
    (void)state;
    zq_addr_t a = zq_addr_v4(192, 168, 100, 200, 1234);
    char out[8];
    assert_int_equal(zq_addr_format(&a, out, sizeof out), 0);
    assert_string_equal(out, "");
}

static void address_equality_considers_family_ip_and_port(void **state)
{
    (void)state;
    zq_addr_t a = zq_addr_v4(10, 0, 0, 1, 1);
    zq_addr_t b = zq_addr_v4(10, 0, 0, 1, 2);
    assert_true(zq_addr_same_ip(&a, &b));
    assert_false(zq_addr_equal(&a, &b));
    b.port = 1;
    assert_true(zq_addr_equal(&a, &b));
    zq_addr_t none = {0};
    assert_false(zq_addr_same_ip(&none, &none));
}

static void loopback_is_127_slash_8_and_colon_colon_1_only(void **state)
{
    (void)state;
    static const char *const yes[] = {"127.0.0.1", "127.255.0.9", "::1"};
    static const char *const no[] = {"128.0.0.1", "0.0.0.0", "::", "192.0.2.1", "::2",
                                     "::ffff:127.0.0.1", "fe80::1"};
    zq_addr_t a;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        assert_int_equal(zq_addr_parse_ip(yes[i], strlen(yes[i]), &a), ZQ_OK);
        assert_true(zq_addr_is_loopback(&a));
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        assert_int_equal(zq_addr_parse_ip(no[i], strlen(no[i]), &a), ZQ_OK);
        assert_false(zq_addr_is_loopback(&a));
    }
    zq_addr_t none = {0};
    assert_false(zq_addr_is_loopback(&none));
}

static void an_address_reaches_only_its_family_and_loopback_only_loopback(void **state)
{
    (void)state;
    zq_addr_t lo = zq_addr_v4(127, 0, 0, 1, 1), lo2 = zq_addr_v4(127, 0, 0, 2, 2);
    zq_addr_t lan = zq_addr_v4(192, 0, 2, 10, 3), wan = zq_addr_v4(203, 0, 113, 10, 4);
    zq_addr_t v6;
    assert_int_equal(zq_addr_parse_ip("2001:db8::1", 11, &v6), ZQ_OK);
    assert_true(zq_addr_can_reach(&lo, &lo2));
    assert_true(zq_addr_can_reach(&lan, &wan));
    assert_false(zq_addr_can_reach(&lo, &wan));
    assert_false(zq_addr_can_reach(&lan, &lo));
    assert_false(zq_addr_can_reach(&lan, &v6));
}

static void reader_fails_sticky_past_the_end(void **state)
{
    (void)state;
    const uint8_t data[] = {1, 2, 3};
    zq_reader_t r = zq_reader(data, sizeof data);
    assert_int_equal(zq_read_be16(&r), 0x0102);
    assert_int_equal(zq_read_be16(&r), 0);
    assert_true(r.failed);
    assert_int_equal(zq_read_u8(&r), 0); /* stays failed, even though one byte is left */
    assert_int_equal(zq_reader_left(&r), 0);
}

static void writer_fails_sticky_when_full(void **state)
{
    (void)state;
    uint8_t buf[6] = {0};
    zq_writer_t w = zq_writer(buf, 5);
    zq_write_be32(&w, 0xA1B2C3D4u);
    zq_write_be16(&w, 0xFFFF);
    assert_true(w.failed);
    zq_write_u8(&w, 0xEE);
    assert_int_equal(w.len, 4);
    assert_int_equal(buf[4], 0);
    assert_int_equal(zq_load_be32(buf), 0xA1B2C3D4u);
}

static void be64_round_trips(void **state)
{
    (void)state;
    uint8_t b[8];
    zq_store_be64(b, 0x0102030405060708ULL);
    assert_int_equal(b[0], 1);
    assert_int_equal(b[7], 8);
    assert_true(zq_load_be64(b) == 0x0102030405060708ULL);
}

static void crc32_matches_the_standard_check_value(void **state)
{
    (void)state;
    /* CRC-32/ISO-HDLC of "123456789" is 0xCBF43926. */
    assert_int_equal(zq_crc32_update(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
    uint32_t split = zq_crc32_update(zq_crc32_update(0, (const uint8_t *)"1234", 4),
                                     (const uint8_t *)"56789", 5);
    assert_int_equal(split, 0xCBF43926u);
}

/* Against the bit-at-a-time definition, at every length up to 300 and from any start: the
 * byte table and the nibble table (ZQ_CRC32_BYTE_TABLE 0, test_core_crc32_nibble) alike. */
static void crc32_matches_the_bitwise_definition(void **state)
{
    (void)state;
    uint8_t buf[300];
    for (size_t i = 0; i < sizeof buf; i++) {
        buf[i] = (uint8_t)(i * 73 + 5);
    }
    for (size_t len = 0; len <= sizeof buf; len++) {
        uint32_t crc = 0xFFFFFFFFu;
        for (size_t i = 0; i < len; i++) {
            crc ^= buf[i];
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 1u) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
            }
        }
        assert_int_equal(zq_crc32_update(0, buf, len), ~crc);
    }
}

static void hmac_sha1_matches_rfc2202(void **state)
{
    (void)state;
    /* RFC 2202 §3 test cases 2 and 6 (a key longer than one block). */
    static const uint8_t mac2[] = {0xef, 0xfc, 0xdf, 0x6a, 0xe5, 0xeb, 0x2f, 0xa2, 0xd2, 0x74,
                                   0x16, 0xd5, 0xf1, 0x84, 0xdf, 0x9c, 0x25, 0x9a, 0x7c, 0x79};
    static const uint8_t mac6[] = {0xaa, 0x4a, 0xe5, 0xe1, 0x52, 0x72, 0xd0, 0x0e, 0x95, 0x70,
                                   0x56, 0x37, 0xce, 0x8a, 0x3b, 0x55, 0xed, 0x40, 0x21, 0x12};
    uint8_t out[ZQ_SHA1_LEN];
    zq_hmac_sha1_t h;
    zq_hmac_sha1_start(&h, (const uint8_t *)"Jefe", 4);
    zq_hmac_sha1_update(&h, (const uint8_t *)"what do ya want ", 16);
    zq_hmac_sha1_update(&h, (const uint8_t *)"for nothing?", 12);
    zq_hmac_sha1_finish(&h, out);
    assert_memory_equal(out, mac2, sizeof mac2);
    uint8_t key[80];
    memset(key, 0xaa, sizeof key);
    const char *text = "Test Using Larger Than Block-Size Key - Hash Key First";
    zq_hmac_sha1_start(&h, key, sizeof key);
    zq_hmac_sha1_update(&h, (const uint8_t *)text, strlen(text));
    zq_hmac_sha1_finish(&h, out);
    assert_memory_equal(out, mac6, sizeof mac6);
}

static void hmac_sha256_matches_rfc4231(void **state)
{
    (void)state;
    /* RFC 4231 §4.3 (test case 2) and §4.7 (test case 6: a key longer than one block). */
    static const uint8_t mac2[] = {0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04,
                                   0x24, 0x26, 0x08, 0x95, 0x75, 0xc7, 0x5a, 0x00, 0x3f, 0x08,
                                   0x9d, 0x27, 0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec,
                                   0x38, 0x43};
    static const uint8_t mac6[] = {0x60, 0xe4, 0x31, 0x59, 0x1e, 0xe0, 0xb6, 0x7f, 0x0d, 0x8a,
                                   0x26, 0xaa, 0xcb, 0xf5, 0xb7, 0x7f, 0x8e, 0x0b, 0xc6, 0x21,
                                   0x37, 0x28, 0xc5, 0x14, 0x05, 0x46, 0x04, 0x0f, 0x0e, 0xe3,
                                   0x7f, 0x54};
    uint8_t out[ZQ_SHA256_LEN];
    const char *text = "what do ya want for nothing?";
    zq_hmac_sha256((const uint8_t *)"Jefe", 4, (const uint8_t *)text, strlen(text), out);
    assert_memory_equal(out, mac2, sizeof mac2);
    uint8_t key[131];
    memset(key, 0xaa, sizeof key);
    text = "Test Using Larger Than Block-Size Key - Hash Key First";
    zq_hmac_sha256(key, sizeof key, (const uint8_t *)text, strlen(text), out);
    assert_memory_equal(out, mac6, sizeof mac6);
}

static void every_error_has_a_name_and_text(void **state)
{
    (void)state;
    assert_string_equal(zq_strerror(ZQ_OK), "ok");
    assert_string_equal(zq_errname(ZQ_ERR_CAPACITY), "ZQ_ERR_CAPACITY");
    for (int e = 0; e >= ZQ_ERR_SWITCHED_OFF; e--) {
        assert_string_not_equal(zq_strerror(e), "unknown error");
        assert_string_not_equal(zq_errname(e), "ZQ_ERR_UNKNOWN");
    }
    assert_string_equal(zq_strerror(12345), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ip_text_round_trips_in_rfc5952_form),
        cmocka_unit_test(ipv6_compresses_longest_zero_run_first_on_tie),
        cmocka_unit_test(malformed_ips_are_rejected),
        cmocka_unit_test(address_with_port_parses_and_formats),
        cmocka_unit_test(format_refuses_a_buffer_too_small),
        cmocka_unit_test(address_equality_considers_family_ip_and_port),
        cmocka_unit_test(loopback_is_127_slash_8_and_colon_colon_1_only),
        cmocka_unit_test(an_address_reaches_only_its_family_and_loopback_only_loopback),
        cmocka_unit_test(reader_fails_sticky_past_the_end),
        cmocka_unit_test(writer_fails_sticky_when_full),
        cmocka_unit_test(be64_round_trips),
        cmocka_unit_test(crc32_matches_the_standard_check_value),
        cmocka_unit_test(crc32_matches_the_bitwise_definition),
        cmocka_unit_test(hmac_sha1_matches_rfc2202),
        cmocka_unit_test(hmac_sha256_matches_rfc4231),
        cmocka_unit_test(every_error_has_a_name_and_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

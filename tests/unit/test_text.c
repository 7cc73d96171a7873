/* Protocol text (zq/text.h): each writer at its limits (0, UINT32_MAX, INT32_MIN, the 64-bit
 * extremes), exact fit and one byte short, inside 0xA5 guard bytes; the decimal reader at the
 * edges of its range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "zq/text.h"

#define GUARD 0xA5
#define ROOM 32

/* A buffer of ROOM bytes between guard bytes, and a writer over its first @p cap. */
typedef struct {
    uint8_t bytes[1 + ROOM + 1];
    zq_writer_t w;
} guarded_t;

static void guarded_init(guarded_t *g, size_t cap)
{
    memset(g->bytes, GUARD, sizeof g->bytes);
    g->w = zq_writer(g->bytes + 1, cap);
}

/* The writer holds exactly @p want, and nothing outside its capacity was touched. */
static void assert_wrote(const guarded_t *g, const char *want)
{
    assert_false(g->w.failed);
    assert_int_equal(g->w.len, strlen(want));
    assert_memory_equal(g->bytes + 1, want, g->w.len);
    assert_int_equal(g->bytes[0], GUARD);
    for (size_t i = 1 + g->w.cap; i < sizeof g->bytes; i++) {
        assert_int_equal(g->bytes[i], GUARD);
    }
}

/* A write that does not fit fails the writer and writes nothing at all. */
static void assert_refused(const guarded_t *g, size_t len_before)
{
    assert_true(g->w.failed);
    assert_int_equal(g->w.len, len_before);
    for (size_t i = 1 + len_before; i < sizeof g->bytes; i++) {
        assert_int_equal(g->bytes[i], GUARD);
    }
}

static void udec_writes_the_shortest_decimal(void **state)
{
    (void)state;
    static const struct {
        uint64_t v;
        const char *text;
    } cases[] = {
        {0, "0"}, {9, "9"}, {10, "10"}, {65535, "65535"}, {UINT32_MAX, "4294967295"},
        {(uint64_t)UINT32_MAX + 1, "4294967296"}, {UINT64_MAX, "18446744073709551615"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        guarded_t g;
        guarded_init(&g, ROOM);
        zq_write_udec(&g.w, cases[i].v);
        assert_wrote(&g, cases[i].text);
    }
}

static void sdec_writes_a_minus_only_below_zero(void **state)
{
    (void)state;
    static const struct {
        int64_t v;
        const char *text;
    } cases[] = {
        {0, "0"}, {-1, "-1"}, {INT32_MAX, "2147483647"}, {INT32_MIN, "-2147483648"},
        {INT64_MAX, "9223372036854775807"}, {INT64_MIN, "-9223372036854775808"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        guarded_t g;
        guarded_init(&g, ROOM);
        zq_write_sdec(&g.w, cases[i].v);
        assert_wrote(&g, cases[i].text);
    }
}

static void hex_writes_lower_case_without_leading_zeros(void **state)
{
    (void)state;
    static const struct {
        uint32_t v;
        const char *text;
    } cases[] = {{0, "0"}, {0xf, "f"}, {0xdb8, "db8"}, {0xABCD, "abcd"}, {UINT32_MAX, "ffffffff"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        guarded_t g;
        guarded_init(&g, ROOM);
        zq_write_hex(&g.w, cases[i].v);
        assert_wrote(&g, cases[i].text);
    }
}

static void a_number_that_fits_exactly_is_written(void **state)
{
    (void)state;
    guarded_t g;
    guarded_init(&g, 10);
    zq_write_udec(&g.w, UINT32_MAX);
    assert_wrote(&g, "4294967295");
    guarded_init(&g, 11);
    zq_write_sdec(&g.w, INT32_MIN);
    assert_wrote(&g, "-2147483648");
    guarded_init(&g, 8);
    zq_write_hex(&g.w, UINT32_MAX);
    assert_wrote(&g, "ffffffff");
}

static void a_number_one_byte_short_writes_no_digit_and_fails(void **state)
{
    (void)state;
    guarded_t g;
    guarded_init(&g, 9);
    zq_write_udec(&g.w, UINT32_MAX);
    assert_refused(&g, 0);
    guarded_init(&g, 10);
    zq_write_sdec(&g.w, INT32_MIN);
    assert_refused(&g, 0);
    guarded_init(&g, 7);
    zq_write_hex(&g.w, UINT32_MAX);
    assert_refused(&g, 0);
    guarded_init(&g, 0);
    zq_write_udec(&g.w, 0);
    assert_refused(&g, 0);
}

static void a_failed_writer_stays_failed(void **state)
{
    (void)state;
    guarded_t g;
    guarded_init(&g, 4);
    zq_write_str(&g.w, "ab");
    zq_write_udec(&g.w, 123); /* one byte short */
    zq_write_char(&g.w, 'c');  /* would fit, but the writer has failed */
    assert_refused(&g, 2);
    assert_memory_equal(g.bytes + 1, "ab", 2);
}

static void strings_and_chars_are_written_without_their_nul(void **state)
{
    (void)state;
    guarded_t g;
    guarded_init(&g, 6);
    zq_write_str(&g.w, "");
    zq_write_str(&g.w, "ab");
    zq_write_char(&g.w, ':');
    zq_write_bytes(&g.w, "cdx", 2);
    zq_write_char(&g.w, '\0');
    assert_false(g.w.failed);
    assert_int_equal(g.w.len, 6);
    assert_memory_equal(g.bytes + 1, "ab:cd\0", 6);
    zq_write_char(&g.w, 'e');
    assert_refused(&g, 6);
    guarded_init(&g, 2);
    zq_write_str(&g.w, "abc");
    assert_refused(&g, 0);
}

static void a_text_ends_with_a_nul_or_is_empty(void **state)
{
    (void)state;
    char buf[6];
    memset(buf, GUARD, sizeof buf);
    zq_writer_t w = zq_text_writer(buf, 6);
    zq_write_str(&w, "ab");
    zq_write_udec(&w, 123); /* 5 bytes and the NUL: an exact fit */
    assert_int_equal(zq_text_end(&w), 5);
    assert_string_equal(buf, "ab123");

    memset(buf, GUARD, sizeof buf);
    w = zq_text_writer(buf, 5);
    zq_write_str(&w, "ab");
    zq_write_udec(&w, 123); /* one byte short: no partial text */
    assert_int_equal(zq_text_end(&w), 0);
    assert_string_equal(buf, "");
    assert_int_equal((uint8_t)buf[2], GUARD);

    memset(buf, GUARD, sizeof buf);
    w = zq_text_writer(buf, 0);
    assert_true(w.failed);
    zq_write_char(&w, 'a');
    assert_int_equal(zq_text_end(&w), 0);
    assert_int_equal((uint8_t)buf[0], GUARD); /* not even a NUL fits in none */
}

static zq_err_t parse(const char *s, uint64_t max, uint64_t *out)
{
    return zq_parse_udec(s, strlen(s), max, out);
}

static void udec_reads_only_digits_up_to_its_max(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(parse("0", 0, &v), ZQ_OK);
    assert_int_equal(v, 0);
    assert_int_equal(parse("000123", 123, &v), ZQ_OK);
    assert_int_equal(v, 123);
    assert_int_equal(parse("4294967295", UINT32_MAX, &v), ZQ_OK);
    assert_int_equal(v, UINT32_MAX);
    assert_int_equal(parse("18446744073709551615", UINT64_MAX, &v), ZQ_OK);
    assert_true(v == UINT64_MAX);
    static const char *malformed[] = {"", "-1", "+1", " 1", "1 ", "0x10", "1a", "١"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        v = 7;
        assert_int_equal(parse(malformed[i], UINT64_MAX, &v), ZQ_ERR_MALFORMED);
        assert_int_equal(v, 7);
    }
}

static void udec_above_its_max_is_too_long_unless_a_non_digit_follows(void **state)
{
    (void)state;
    uint64_t v = 7;
    assert_int_equal(parse("124", 123, &v), ZQ_ERR_TOO_LONG);
    assert_int_equal(parse("4294967296", UINT32_MAX, &v), ZQ_ERR_TOO_LONG);
    assert_int_equal(parse("18446744073709551616", UINT64_MAX, &v), ZQ_ERR_TOO_LONG);
    assert_int_equal(parse("99999999999999999999999", UINT64_MAX, &v), ZQ_ERR_TOO_LONG);
    assert_int_equal(parse("99999999999999999999999x", UINT64_MAX, &v), ZQ_ERR_MALFORMED);
    assert_int_equal(v, 7);
    assert_int_equal(zq_parse_udec("12345", 2, 99, &v), ZQ_OK); /* the span, not the string */
    assert_int_equal(v, 12);
}

static void a_port_is_one_to_five_digits_up_to_65535(void **state)
{
    (void)state;
    uint16_t port = 7;
    assert_int_equal(zq_parse_port("0", 1, &port), ZQ_OK);
    assert_int_equal(port, 0);
    assert_int_equal(zq_parse_port("65535", 5, &port), ZQ_OK);
    assert_int_equal(port, 65535);
    assert_int_equal(zq_parse_port("00080", 5, &port), ZQ_OK);
    assert_int_equal(port, 80);
    static const char *bad[] = {"", "65536", "000080", "99999", "8o", "-1", "80 "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        port = 7;
        assert_int_equal(zq_parse_port(bad[i], strlen(bad[i]), &port), ZQ_ERR_MALFORMED);
        assert_int_equal(port, 7);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(udec_writes_the_shortest_decimal),
        cmocka_unit_test(sdec_writes_a_minus_only_below_zero),
        cmocka_unit_test(hex_writes_lower_case_without_leading_zeros),
        cmocka_unit_test(a_number_that_fits_exactly_is_written),
        cmocka_unit_test(a_number_one_byte_short_writes_no_digit_and_fails),
        cmocka_unit_test(a_failed_writer_stays_failed),
        cmocka_unit_test(strings_and_chars_are_written_without_their_nul),
        cmocka_unit_test(a_text_ends_with_a_nul_or_is_empty),
        cmocka_unit_test(udec_reads_only_digits_up_to_its_max),
        cmocka_unit_test(udec_above_its_max_is_too_long_unless_a_non_digit_follows),
        cmocka_unit_test(a_port_is_one_to_five_digits_up_to_65535),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

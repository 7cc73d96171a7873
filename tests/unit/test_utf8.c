/* UTF-8 validation (RFC 3629 §4): each row of the well-formed table at its edges, the classic
 * malformations, and the incremental form fed one byte at a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "zq/utf8.h"

typedef struct {
    const char *s;
    size_t len;
} bytes_t;

#define B(lit) {(lit), sizeof(lit) - 1}

static const bytes_t valid[] = {
    B(""), B("ascii"), B("\x00"), B("\x7f"),
    B("\xc2\x80"), B("\xdf\xbf"),                       /* U+0080, U+07FF */
    B("\xe0\xa0\x80"), B("\xe0\xbf\xbf"),               /* U+0800, U+0FFF */
    B("\xe1\x80\x80"), B("\xec\xbf\xbf"),               /* U+1000, U+CFFF */
    B("\xed\x80\x80"), B("\xed\x9f\xbf"),               /* U+D000, U+D7FF */
    B("\xee\x80\x80"), B("\xef\xbf\xbf"),               /* U+E000, U+FFFF */
    B("\xf0\x90\x80\x80"), B("\xf0\xbf\xbf\xbf"),       /* U+10000, U+3FFFF */
    B("\xf1\x80\x80\x80"), B("\xf3\xbf\xbf\xbf"),       /* U+40000, U+FFFFF */
    B("\xf4\x80\x80\x80"), B("\xf4\x8f\xbf\xbf"),       /* U+100000, U+10FFFF */
    B("Hello-\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5-\xf0\x9f\x98\x80"),
};

static const bytes_t invalid[] = {
    B("\x80"), B("\xbf"),                               /* lone continuation bytes */
    B("\xc0\x80"), B("\xc1\xbf"),                       /* overlong two-byte forms */
    B("\xe0\x80\x80"), B("\xe0\x9f\xbf"),               /* overlong three-byte forms */
    B("\xf0\x80\x80\x80"), B("\xf0\x8f\xbf\xbf"),       /* overlong four-byte forms */
    B("\xed\xa0\x80"), B("\xed\xbf\xbf"),               /* UTF-16 surrogates */
    B("\xf4\x90\x80\x80"), B("\xf7\xbf\xbf\xbf"),       /* beyond U+10FFFF */
    B("\xf5"), B("\xf8\x88\x80\x80\x80"), B("\xfe"), B("\xff"),
    B("\xc2"), B("\xe1\x80"), B("\xf1\x80\x80"),        /* cut short */
    B("\xc2\x41"), B("\xe1\x80\x41"), B("a\xc3\x28z"),  /* a continuation missing */
};

static void accepts_each_well_formed_row(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        assert_true(zq_utf8_valid((const uint8_t *)valid[i].s, valid[i].len));
    }
}

static void refuses_each_malformation(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        if (zq_utf8_valid((const uint8_t *)invalid[i].s, invalid[i].len)) {
            fail_msg("case %zu accepted", i);
        }
    }
}

static void byte_at_a_time_agrees_with_whole_buffer(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++) {
        zq_utf8_t s = {0};
        for (size_t k = 0; k < valid[i].len; k++) {
            assert_true(zq_utf8_feed(&s, (const uint8_t *)valid[i].s + k, 1));
        }
        assert_true(zq_utf8_complete(&s));
    }
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        zq_utf8_t s = {0};
        bool ok = true;
        for (size_t k = 0; k < invalid[i].len; k++) {
            ok = zq_utf8_feed(&s, (const uint8_t *)invalid[i].s + k, 1) && ok;
        }
        assert_false(ok && zq_utf8_complete(&s));
    }
}

static void incomplete_is_not_invalid_yet(void **state)
{
    (void)state;
    zq_utf8_t s = {0};
    assert_true(zq_utf8_feed(&s, (const uint8_t *)"\xf0\x9f", 2));
    assert_false(zq_utf8_complete(&s));
    assert_true(zq_utf8_feed(&s, (const uint8_t *)"\x98\x80", 2));
    assert_true(zq_utf8_complete(&s));
    assert_false(zq_utf8_feed(&s, (const uint8_t *)"\x80", 1));
    assert_false(zq_utf8_feed(&s, (const uint8_t *)"a", 1)); /* sticky */
}

static void sequence_length_never_reads_past_the_end(void **state)
{
    (void)state;
    const uint8_t *euro = (const uint8_t *)"\xe2\x82\xac";
    assert_int_equal(zq_utf8_sequence(euro, 3), 3);
    assert_int_equal(zq_utf8_sequence(euro, 2), 0);
    assert_int_equal(zq_utf8_sequence(euro, 0), 0);
    assert_int_equal(zq_utf8_sequence((const uint8_t *)"a", 1), 1);
    assert_int_equal(zq_utf8_sequence((const uint8_t *)"\xc0\x80", 2), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_each_well_formed_row),
        cmocka_unit_test(refuses_each_malformation),
        cmocka_unit_test(byte_at_a_time_agrees_with_whole_buffer),
        cmocka_unit_test(incomplete_is_not_invalid_yet),
        cmocka_unit_test(sequence_length_never_reads_past_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

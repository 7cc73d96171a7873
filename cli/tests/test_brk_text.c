/* How the broker commands give payloads to a shell (issue 16 §2): a JSON string as its text,
 * any other value as its JSON text, --json as the wire's JSON text; and the round trip from
 * the command line's MSG (zq_brk_json_value) back out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/brk_runner.h"

/* What zq_brk_print_payload() wrote, read back from a temporary file (NUL bytes included). */
typedef struct {
    char text[3 * ZQ_BRK_FRAME_MAX];
    size_t len;
} printed_t;

static printed_t printed;

static zq_err_t print_to(brk_str_t head, const char *payload, size_t len, zq_brk_form_t form)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    zq_err_t err = zq_brk_print_payload(f, head, (brk_str_t){payload, len}, form);
    rewind(f);
    printed.len = fread(printed.text, 1, sizeof printed.text, f);
    (void)fclose(f);
    return err;
}

/* Prints @p payload (a JSON value) with no head and checks it came out as @p want. */
static void assert_prints(const char *payload, zq_brk_form_t form, const char *want,
                          size_t want_len)
{
    assert_int_equal(print_to((brk_str_t){NULL, 0}, payload, strlen(payload), form), ZQ_OK);
    assert_int_equal(printed.len, want_len);
    assert_memory_equal(printed.text, want, want_len);
}

#define PRINTS(payload, form, want) assert_prints((payload), (form), (want), sizeof(want) - 1)

/* ---- The text form (the default) ------------------------------------------------------------ */

static void a_json_string_payload_prints_as_its_text(void **state)
{
    (void)state;
    PRINTS("\"hi\"", ZQ_BRK_FORM_TEXT, "hi\n");
    PRINTS("\"job-1\"", ZQ_BRK_FORM_TEXT, "job-1\n");
    PRINTS("\"say \\\"hi\\\" \\\\ o/\"", ZQ_BRK_FORM_TEXT, "say \"hi\" \\ o/\n");
}

static void numbers_objects_arrays_and_literals_print_as_their_json_text(void **state)
{
    (void)state;
    PRINTS("21.5", ZQ_BRK_FORM_TEXT, "21.5\n");
    PRINTS("-1e3", ZQ_BRK_FORM_TEXT, "-1e3\n");
    PRINTS("{\"t\":21.5,\"s\":\"a\\nb\"}", ZQ_BRK_FORM_TEXT, "{\"t\":21.5,\"s\":\"a\\nb\"}\n");
    PRINTS("[1, \"x\"]", ZQ_BRK_FORM_TEXT, "[1, \"x\"]\n"); /* as received: its spaces too */
    PRINTS("true", ZQ_BRK_FORM_TEXT, "true\n");
    PRINTS("false", ZQ_BRK_FORM_TEXT, "false\n");
    PRINTS("null", ZQ_BRK_FORM_TEXT, "null\n");
}

static void unicode_escapes_print_as_utf8(void **state)
{
    (void)state;
    /* é (U+00E9), € (U+20AC), 😀 (U+1F600, a surrogate pair), and UTF-8 that came unescaped */
    PRINTS("\"caf\\u00e9 \\u20ac \\ud83d\\ude00 \xc3\xa9\"", ZQ_BRK_FORM_TEXT,
           "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc3\xa9\n");
}

static void newlines_and_control_characters_print_as_their_bytes(void **state)
{
    (void)state;
    PRINTS("\"line 1\\nline 2\\r\\n\\ttab \\u0001\\u001f\"", ZQ_BRK_FORM_TEXT,
           "line 1\nline 2\r\n\ttab \x01\x1f\n");
}

static void a_nul_escape_prints_as_a_nul_byte_not_the_end_of_the_text(void **state)
{
    (void)state;
    PRINTS("\"a\\u0000b\"", ZQ_BRK_FORM_TEXT, "a\0b\n");
}

static void an_empty_string_prints_an_empty_line(void **state)
{
    (void)state;
    PRINTS("\"\"", ZQ_BRK_FORM_TEXT, "\n");
    assert_int_equal(print_to((brk_str_t){"news", 4}, "\"\"", 2, ZQ_BRK_FORM_TEXT), ZQ_OK);
    assert_int_equal(printed.len, 6);
    assert_memory_equal(printed.text, "news \n", 6);
}

static void a_head_and_a_space_come_before_the_payload(void **state)
{
    (void)state;
    assert_int_equal(print_to((brk_str_t){"news.eu", 7}, "\"hi\"", 4, ZQ_BRK_FORM_TEXT), ZQ_OK);
    assert_int_equal(printed.len, 11);
    assert_memory_equal(printed.text, "news.eu hi\n", 11);
}

/* ---- The JSON form (--json) ----------------------------------------------------------------- */

static void with_json_a_string_keeps_its_quotes_and_escapes(void **state)
{
    (void)state;
    PRINTS("\"hi\"", ZQ_BRK_FORM_JSON, "\"hi\"\n");
    PRINTS("\"21.5\"", ZQ_BRK_FORM_JSON, "\"21.5\"\n");
    PRINTS("\"a\\nb \\u00e9\"", ZQ_BRK_FORM_JSON, "\"a\\nb \\u00e9\"\n");
    PRINTS("\"\"", ZQ_BRK_FORM_JSON, "\"\"\n");
}

static void with_json_other_values_print_as_in_the_text_form(void **state)
{
    (void)state;
    PRINTS("21.5", ZQ_BRK_FORM_JSON, "21.5\n");
    PRINTS("{\"t\":21.5}", ZQ_BRK_FORM_JSON, "{\"t\":21.5}\n");
    PRINTS("null", ZQ_BRK_FORM_JSON, "null\n");
}

/* ---- Sizes and errors ----------------------------------------------------------------------- */

static char big[2 * ZQ_BRK_FRAME_MAX + 3];

/* A JSON string of @p n bytes in all: quotes and n - 2 times @p c. */
static size_t make_string(size_t n, char c)
{
    big[0] = '"';
    memset(big + 1, c, n - 2);
    big[n - 1] = '"';
    return n;
}

static void the_longest_string_a_frame_carries_prints_in_full(void **state)
{
    (void)state;
    size_t n = make_string(ZQ_BRK_FRAME_MAX, 'x');
    assert_int_equal(print_to((brk_str_t){NULL, 0}, big, n, ZQ_BRK_FORM_TEXT), ZQ_OK);
    assert_int_equal(printed.len, n - 2 + 1);
    assert_memory_equal(printed.text, big + 1, n - 2);
    assert_int_equal(printed.text[n - 2], '\n');
}

static void a_string_longer_than_any_frame_is_an_error_and_prints_nothing(void **state)
{
    (void)state;
    size_t n = make_string(sizeof big, 'x');
    assert_int_equal(print_to((brk_str_t){"t", 1}, big, n, ZQ_BRK_FORM_TEXT), ZQ_ERR_TOO_LONG);
    assert_int_equal(printed.len, 0);
    brk_str_t text;
    assert_int_equal(zq_brk_payload_text((brk_str_t){big, n}, ZQ_BRK_FORM_TEXT, &text),
                     ZQ_ERR_TOO_LONG);
    assert_int_equal(text.len, 0);
    /* --json copies nothing: the same value goes out whole */
    assert_int_equal(print_to((brk_str_t){NULL, 0}, big, n, ZQ_BRK_FORM_JSON), ZQ_OK);
    assert_int_equal(printed.len, n + 1);
}

static void a_failing_output_is_an_io_error(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w");
    if (full == NULL) {
        skip();
    }
    zq_err_t err = zq_brk_print_payload(full, (brk_str_t){NULL, 0}, (brk_str_t){"\"hi\"", 4},
                                        ZQ_BRK_FORM_TEXT);
    (void)fclose(full);
    assert_int_equal(err, ZQ_ERR_IO);
}

/* What an --exec command gets on stdin: the same text, without a copy when there is nothing
 * to undo. */
static void payload_text_is_what_an_exec_command_reads(void **state)
{
    (void)state;
    static const char object[] = "{\"a\":1}";
    brk_str_t text;
    assert_int_equal(zq_brk_payload_text((brk_str_t){object, 7}, ZQ_BRK_FORM_TEXT, &text), ZQ_OK);
    assert_ptr_equal(text.p, object);
    assert_int_equal(text.len, 7);
    assert_int_equal(zq_brk_payload_text((brk_str_t){"\"job-1\"", 7}, ZQ_BRK_FORM_TEXT, &text),
                     ZQ_OK);
    assert_int_equal(text.len, 5);
    assert_memory_equal(text.p, "job-1", 5);
    assert_int_equal(zq_brk_payload_text((brk_str_t){"\"job-1\"", 7}, ZQ_BRK_FORM_JSON, &text),
                     ZQ_OK);
    assert_int_equal(text.len, 7);
}

/* ---- The round trip from MSG ---------------------------------------------------------------- */

/* MSG as zq pub sends it, printed back in @p form. */
static void assert_round_trip(const char *msg, zq_brk_form_t form, const char *want)
{
    char value[ZQ_BRK_FRAME_MAX];
    size_t n = zq_brk_json_value(msg, strlen(msg), value, sizeof value);
    assert_true(n > 0);
    assert_int_equal(print_to((brk_str_t){NULL, 0}, value, n, form), ZQ_OK);
    assert_int_equal(printed.len, strlen(want));
    assert_memory_equal(printed.text, want, printed.len);
}

static void text_given_to_pub_comes_out_as_that_text(void **state)
{
    (void)state;
    assert_round_trip("hi", ZQ_BRK_FORM_TEXT, "hi\n");
    assert_round_trip("job 1", ZQ_BRK_FORM_TEXT, "job 1\n");
    assert_round_trip("caf\xc3\xa9 \"quoted\" \\", ZQ_BRK_FORM_TEXT,
                      "caf\xc3\xa9 \"quoted\" \\\n");
    assert_round_trip("hi", ZQ_BRK_FORM_JSON, "\"hi\"\n"); /* sent as a JSON string */
}

static void json_given_to_pub_comes_out_as_that_json(void **state)
{
    (void)state;
    assert_round_trip("{\"t\":21.5}", ZQ_BRK_FORM_TEXT, "{\"t\":21.5}\n");
    assert_round_trip("21.5", ZQ_BRK_FORM_TEXT, "21.5\n");
    assert_round_trip("[1,2]", ZQ_BRK_FORM_TEXT, "[1,2]\n");
    /* A quoted MSG is a JSON string: its text as text, the string itself with --json. */
    assert_round_trip("\"21.5\"", ZQ_BRK_FORM_TEXT, "21.5\n");
    assert_round_trip("\"21.5\"", ZQ_BRK_FORM_JSON, "\"21.5\"\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_json_string_payload_prints_as_its_text),
        cmocka_unit_test(numbers_objects_arrays_and_literals_print_as_their_json_text),
        cmocka_unit_test(unicode_escapes_print_as_utf8),
        cmocka_unit_test(newlines_and_control_characters_print_as_their_bytes),
        cmocka_unit_test(a_nul_escape_prints_as_a_nul_byte_not_the_end_of_the_text),
        cmocka_unit_test(an_empty_string_prints_an_empty_line),
        cmocka_unit_test(a_head_and_a_space_come_before_the_payload),
        cmocka_unit_test(with_json_a_string_keeps_its_quotes_and_escapes),
        cmocka_unit_test(with_json_other_values_print_as_in_the_text_form),
        cmocka_unit_test(the_longest_string_a_frame_carries_prints_in_full),
        cmocka_unit_test(a_string_longer_than_any_frame_is_an_error_and_prints_nothing),
        cmocka_unit_test(a_failing_output_is_an_io_error),
        cmocka_unit_test(payload_text_is_what_an_exec_command_reads),
        cmocka_unit_test(text_given_to_pub_comes_out_as_that_text),
        cmocka_unit_test(json_given_to_pub_comes_out_as_that_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* JSON codec: RFC 8259's examples, JSONTestSuite-style accept ("y_") and reject ("n_") cases,
 * the ZeroQ signalling and data-channel frames, and writer round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "zq/json.h"

/* A test input that may hold NUL bytes. */
typedef struct {
    const char *s;
    size_t len;
} text_t;

#define T(lit) {(lit), sizeof(lit) - 1}

static json_value_t parse_ok(const char *s)
{
    json_value_t v;
    assert_int_equal(json_parse(s, strlen(s), &v), ZQ_OK);
    return v;
}

static json_value_t member(json_value_t obj, const char *key)
{
    json_value_t v;
    assert_int_equal(json_object_get(obj, key, &v), ZQ_OK);
    return v;
}

static void assert_string_member(json_value_t obj, const char *key, const char *want)
{
    char buf[256];
    size_t len;
    assert_int_equal(json_get_string(member(obj, key), buf, sizeof buf, &len), ZQ_OK);
    assert_int_equal(len, strlen(want));
    assert_string_equal(buf, want);
}

static int64_t int_member(json_value_t obj, const char *key)
{
    int64_t v;
    assert_int_equal(json_get_int64(member(obj, key), &v), ZQ_OK);
    return v;
}

/* ---- RFC 8259 §13 examples ---------------------------------------------------------------- */

static const char rfc8259_object[] =
    "{\n"
    "  \"Image\": {\n"
    "    \"Width\":  800,\n"
    "    \"Height\": 600,\n"
    "    \"Title\":  \"View from 15th Floor\",\n"
    "    \"Thumbnail\": {\n"
    "      \"Url\":    \"http://www.example.com/image/481989943\",\n"
    "      \"Height\": 125,\n"
    "      \"Width\":  100\n"
    "    },\n"
    "    \"Animated\" : false,\n"
    "    \"IDs\": [116, 943, 234, 38793]\n"
    "  }\n"
    "}";

static const char rfc8259_array[] =
    "[\n"
    "  {\n"
    "     \"precision\": \"zip\",\n"
    "     \"Latitude\":  37.7668,\n"
    "     \"Longitude\": -122.3959,\n"
    "     \"Address\":   \"\",\n"
    "     \"City\":      \"SAN FRANCISCO\",\n"
    "     \"State\":     \"CA\",\n"
    "     \"Zip\":       \"94107\",\n"
    "     \"Country\":   \"US\"\n"
    "  },\n"
    "  {\n"
    "     \"precision\": \"zip\",\n"
    "     \"Latitude\":  37.371991,\n"
    "     \"Longitude\": -122.026020,\n"
    "     \"Address\":   \"\",\n"
    "     \"City\":      \"SUNNYVALE\",\n"
    "     \"State\":     \"CA\",\n"
    "     \"Zip\":       \"94085\",\n"
    "     \"Country\":   \"US\"\n"
    "  }\n"
    "]";

static void rfc8259_image_object_reads_back(void **state)
{
    (void)state;
    json_value_t doc = parse_ok(rfc8259_object);
    assert_int_equal(json_type(doc), JSON_OBJECT);
    json_value_t image = member(doc, "Image");
    assert_int_equal(int_member(image, "Width"), 800);
    assert_int_equal(int_member(image, "Height"), 600);
    assert_string_member(image, "Title", "View from 15th Floor");
    json_value_t thumb = member(image, "Thumbnail");
    assert_string_member(thumb, "Url", "http://www.example.com/image/481989943");
    assert_int_equal(int_member(thumb, "Height"), 125);
    bool animated = true;
    assert_true(json_get_bool(member(image, "Animated"), &animated));
    assert_false(animated);
    static const int64_t ids[] = {116, 943, 234, 38793};
    json_iter_t it;
    json_iter_init(&it, member(image, "IDs"));
    json_value_t v;
    size_t n = 0;
    while (json_iter_next(&it, NULL, &v)) {
        int64_t id;
        assert_int_equal(json_get_int64(v, &id), ZQ_OK);
        assert_int_equal(id, ids[n++]);
    }
    assert_int_equal(n, 4);
}

static void rfc8259_array_of_objects_reads_back(void **state)
{
    (void)state;
    json_value_t doc = parse_ok(rfc8259_array);
    json_iter_t it;
    json_iter_init(&it, doc);
    json_value_t first, second, none;
    assert_true(json_iter_next(&it, NULL, &first));
    assert_true(json_iter_next(&it, NULL, &second));
    assert_false(json_iter_next(&it, NULL, &none));
    double lat, lon;
    assert_int_equal(json_get_double(member(first, "Latitude"), &lat), ZQ_OK);
    assert_int_equal(json_get_double(member(second, "Longitude"), &lon), ZQ_OK);
    assert_true(lat == 37.7668);
    assert_true(lon == -122.026020);
    assert_string_member(second, "City", "SUNNYVALE");
    assert_string_member(first, "Address", "");
}

static void rfc8259_scalar_texts_are_values(void **state)
{
    (void)state;
    /* §13: "Here are three small JSON texts containing only values". */
    assert_int_equal(json_type(parse_ok("\"Hello world!\"")), JSON_STRING);
    assert_int_equal(json_type(parse_ok("42")), JSON_NUMBER);
    assert_int_equal(json_type(parse_ok("true")), JSON_TRUE);
    json_value_t v = parse_ok(" \t\r\n null \n");
    assert_int_equal(json_type(v), JSON_NULL);
    assert_int_equal(v.len, 4); /* the span excludes the surrounding whitespace */
    assert_memory_equal(v.p, "null", 4);
}

/* ---- JSONTestSuite-style cases ------------------------------------------------------------ */

static const text_t accept_cases[] = {
    T("[[]   ]"), T("[\"\"]"), T("[]"), T("[\"a\"]"), T("[false]"), T("[null, 1, \"1\", {}]"),
    T("[null]"), T("[1\n]"), T(" [1]"), T("[1,null,null,null,2]"), T("[2] "), T("[123e65]"),
    T("[0e+1]"), T("[0e1]"), T("[ 4]"), T("[-0.000000000000000000000000000000000001]"),
    T("[20e1]"), T("[-0]"), T("[-123]"), T("[-1]"), T("[1E22]"), T("[1E-2]"), T("[1E+2]"),
    T("[123.456e78]"), T("[1e-2]"), T("[123]"), T("[123.456789]"), T("[0]"), T("[0.5]"),
    T("[1.5e999]"), /* grammatical; only json_get_double refuses its magnitude */
    T("{\"asd\":\"sdf\", \"dfg\":\"fgh\"}"), T("{\"a\":\"b\",\"a\":\"c\"}"), T("{}"),
    T("{\"\":0}"), T("{\"foo\\u0000bar\": 42}"), T("{ \"min\": -1.0e+28, \"max\": 1.0e+28 }"),
    T("{\"x\":[{\"id\": \"xxxxx\"}], \"id\": \"xxxxx\"}"), T("{\"a\":[]}"), T("{\n\"a\": \"b\"\n}"),
    T("[\"\\u0060\\u012a\\u12AB\"]"), T("[\"\\uD801\\udc37\"]"),
    T("[\"\\ud83d\\ude39\\ud83d\\udc8d\"]"),
    T("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]"), T("[\"\\\\u0000\"]"), T("[\"a/*b*/c/*d//e\"]"),
    T("[\"\\u0012\"]"), T("[\"\\uFFFF\"]"), T("[\"\\uDBFF\\uDFFF\"]"), T("[\"\\u0000\"]"),
    T("[\"\xcf\x80\"]"),                 /* π */
    T("[\"\xf0\x9b\xbf\xbf\"]"),         /* U+1BFFF */
    T("[\"\xf4\x8f\xbf\xbf\"]"),         /* U+10FFFF, the last code point */
    T("[\"\xef\xbf\xbf\"]"),             /* U+FFFF, a noncharacter but valid */
    T("[\"\xe2\x80\xa8\xe2\x80\xa9\"]"), /* U+2028, U+2029 */
    T("[\"\x7f\"]"),                     /* DEL needs no escape */
    T("[\"\\u2028\"]"), T("[\"\\uFDD0\"]"), T("[\"\\uFFFE\"]"), T("\" \""), T("false"),
    T("42"), T("-0.1"), T("null"), T("\"asd\""), T("true"), T("\"\""), T("[\"a\"]\n"),
    T(" [] "), T("0"), T("-0"), T("1e5"),
};

static const text_t reject_cases[] = {
    /* structure */
    T(""), T(" "), T("[1 true]"), T("[a]"), T("[\"\": 1]"), T("[\"\"],"), T("[,1]"), T("[1,,2]"),
    T("[\"x\",,]"), T("[\"x\"]]"), T("[\"\",]"), T("[\"x\""), T("[x"), T("[3[4]]"), T("[1:2]"),
    T("[,]"), T("[   , \"\"]"), T("[1,]"), T("[1,,]"), T("[*]"), T("[1,"), T("[{}"),
    T("[\"a\" \"b\"]"), T("[tru]"), T("[True]"), T("1]"), T("[][]"), T("]"), T("["), T("{"),
    T("[] []"), T("2 3"), T("{\"a\":true} \"x\""), T("[1]x"), T("nul"), T("truex"),
    T("[nulls]"), T("\xef\xbb\xbf{}"), /* a byte order mark */
    T("{\"x\", null}"), T("{\"x\"::\"b\"}"), T("{\"a\":\"a\" 123}"), T("{key: 'value'}"),
    T("{\"a\" b}"), T("{:\"b\"}"), T("{\"a\" \"b\"}"), T("{\"a\":"), T("{\"a\""), T("{1:1}"),
    T("{null:null}"), T("{\"id\":0,,,,,}"), T("{'a':0}"), T("{\"id\":0,}"),
    T("{\"a\":\"b\"}/**/"), T("{\"a\":\"b\"}//"), T("{\"a\":\"b\",,\"c\":\"d\"}"),
    T("{\"a\":\"b\"}#"), T("{ \"foo\" : \"bar\", \"a\" }"), T("{\"a\":\"b\""), T("{,}"),
    T("[\x00]"), T("[1]\x00"), T("\x0c[]"), /* form feed is not whitespace (§2) */
    /* numbers (§6) */
    T("[++1234]"), T("[+1]"), T("[+Inf]"), T("[-01]"), T("[-1.0.]"), T("[-2.]"), T("[-NaN]"),
    T("[.-1]"), T("[.2e-3]"), T("[0.1.2]"), T("[0.3e+]"), T("[0.3e]"), T("[0.e1]"), T("[0E+]"),
    T("[0E]"), T("[0e+]"), T("[0e]"), T("[1.0e+]"), T("[1.0e-]"), T("[1.0e]"), T("[1 000.0]"),
    T("[1eE2]"), T("[2.e+3]"), T("[2.e3]"), T("[9.e+]"), T("[Inf]"), T("[NaN]"),
    T("[\xef\xbc\x91]"), T("[1+2]"), T("[0x1]"), T("[Infinity]"), T("[0e+-1]"),
    T("[-123.123foo]"), T("[-Infinity]"), T("[-foo]"), T("[- 1]"), T("[-012]"), T("[-.123]"),
    T("[-1x]"), T("[1ea]"), T("[1.]"), T("[.123]"), T("[1.2a-3]"), T("[012]"), T("00"),
    T("-"), T("01"), T("1.e1"),
    /* strings and escapes (§7) */
    T("[\"\\uD800\\\"]"), T("[\"\\uD800\\u\"]"), T("[\"\\uD800\\u1\"]"), T("[\"\\uD800\\u1x\"]"),
    T("[\xc3\xa9]"), T("[\"\x00\"]"), T("[\"\\\x00\"]"), T("[\"\\x00\"]"), T("[\"\\u00A\"]"),
    T("[\"\\uD834\\uDd\"]"), T("[\"\\uE\"]"), T("[\"\\a\"]"), T("[\"new\nline\"]"),
    T("[\"\t\"]"), T("\"\\UA66D\""), T("\"\\u"), T("\"\\"), T("\""), T("[\"asd]"), T("['a']"),
    T("[\"\\'\"]"),
    /* lone surrogates (§8.2): refused so every string unescapes to valid UTF-8 */
    T("[\"\\ud800\"]"), T("[\"\\udc00\"]"), T("[\"\\ud800abc\"]"), T("[\"\\uDd1ea\"]"),
    T("[\"\\uD800\\n\"]"), T("[\"\\uDFAA\"]"), T("[\"\\uD800\\uD800\"]"),
    T("[\"\\udc00\\ud800\"]"),
    /* invalid UTF-8 (§8.1, RFC 3629) */
    T("[\"\xed\xa0\x80\"]"),     /* an encoded surrogate */
    T("[\"\xc0\xaf\"]"),         /* overlong '/' */
    T("[\"\xe0\x80\xaf\"]"),     /* overlong, three bytes */
    T("[\"\xf0\x80\x80\xaf\"]"), /* overlong, four bytes */
    T("[\"\xf4\x90\x80\x80\"]"), /* beyond U+10FFFF */
    T("[\"\xff\"]"), T("[\"\xfe\"]"), T("[\"\x80\"]"), T("[\"\xe9\"]"), T("[\"\xe6\x97\"]"),
    T("[\"\xc2\"]"), T("[\"\xf8\x88\x80\x80\x80\"]"),
};

static void accepts_every_valid_text(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof accept_cases / sizeof accept_cases[0]; i++) {
        json_value_t v;
        zq_err_t err = json_parse(accept_cases[i].s, accept_cases[i].len, &v);
        if (err != ZQ_OK) {
            fail_msg("case %zu rejected: %s", i, zq_errname(err));
        }
    }
}

static void rejects_every_invalid_text(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof reject_cases / sizeof reject_cases[0]; i++) {
        json_value_t v;
        zq_err_t err = json_parse(reject_cases[i].s, reject_cases[i].len, &v);
        if (err != ZQ_ERR_MALFORMED) {
            fail_msg("case %zu (%.*s) gave %s", i, (int)reject_cases[i].len, reject_cases[i].s,
                     zq_errname(err));
        }
    }
}

static void rejects_each_truncation_of_a_valid_text(void **state)
{
    (void)state;
    /* Every proper prefix of a document that is not itself a number is invalid. */
    size_t len = strlen(rfc8259_object);
    for (size_t cut = 0; cut < len; cut++) {
        json_value_t v;
        assert_int_equal(json_parse(rfc8259_object, cut, &v), ZQ_ERR_MALFORMED);
    }
}

static char nest_buf[4096];

static const char *nested(size_t depth, char open, char close)
{
    memset(nest_buf, 0, sizeof nest_buf);
    memset(nest_buf, open, depth);
    memset(nest_buf + depth, close, depth);
    return nest_buf;
}

static void nesting_up_to_the_maximum_is_accepted(void **state)
{
    (void)state;
    json_value_t v;
    const char *s = nested(ZQ_JSON_MAX_DEPTH, '[', ']');
    assert_int_equal(json_parse(s, strlen(s), &v), ZQ_OK);
    assert_int_equal(v.len, 2 * ZQ_JSON_MAX_DEPTH);
}

static void nesting_beyond_the_maximum_is_too_long(void **state)
{
    (void)state;
    json_value_t v;
    const char *s = nested(ZQ_JSON_MAX_DEPTH + 1, '[', ']');
    assert_int_equal(json_parse(s, strlen(s), &v), ZQ_ERR_TOO_LONG);
    /* JSONTestSuite's n_structure_100000_opening_arrays, scaled to this buffer: no recursion,
     * so no stack to overflow, just the depth limit. */
    memset(nest_buf, '[', sizeof nest_buf);
    assert_int_equal(json_parse(nest_buf, sizeof nest_buf, &v), ZQ_ERR_TOO_LONG);
    char objects[8 * (ZQ_JSON_MAX_DEPTH + 1) + 1] = {0};
    for (size_t i = 0; i <= ZQ_JSON_MAX_DEPTH; i++) {
        strcat(objects, "{\"a\":");
    }
    assert_int_equal(json_parse(objects, strlen(objects), &v), ZQ_ERR_TOO_LONG);
}

static void mixed_nesting_closes_with_the_matching_bracket(void **state)
{
    (void)state;
    json_value_t v;
    static const char *const good = "[{\"a\":[{}]}]";
    static const char *const bad[] = {"[{\"a\":[{}]]]", "{\"a\":[}", "[}", "{]", "[[]}"};
    assert_int_equal(json_parse(good, strlen(good), &v), ZQ_OK);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(json_parse(bad[i], strlen(bad[i]), &v), ZQ_ERR_MALFORMED);
    }
}

static void parse_rejects_null_text(void **state)
{
    (void)state;
    json_value_t v;
    assert_int_equal(json_parse(NULL, 0, &v), ZQ_ERR_INVALID_ARG);
}

/* ---- Strings ------------------------------------------------------------------------------ */

static void assert_unescapes_to(const char *json, const char *want, size_t want_len)
{
    json_value_t v;
    assert_int_equal(json_parse(json, strlen(json), &v), ZQ_OK);
    char buf[64];
    size_t len;
    assert_int_equal(json_get_string(v, buf, sizeof buf, &len), ZQ_OK);
    assert_int_equal(len, want_len);
    assert_memory_equal(buf, want, want_len);
    assert_int_equal(buf[len], '\0');
    assert_true(json_string_equals_n(v, want, want_len));
}

static void string_escapes_unescape_to_utf8(void **state)
{
    (void)state;
    assert_unescapes_to("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t", 8);
    assert_unescapes_to("\"\\u0041\\u00e9\\u20AC\"", "A\xc3\xa9\xe2\x82\xac", 6);
    assert_unescapes_to("\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4); /* surrogate pair */
    assert_unescapes_to("\"\\uDBFF\\uDFFF\"", "\xf4\x8f\xbf\xbf", 4);   /* U+10FFFF */
    assert_unescapes_to("\"a\\u0000b\"", "a\0b", 3);
    assert_unescapes_to("\"\xe2\x82\xac raw\"", "\xe2\x82\xac raw", 7);
    assert_unescapes_to("\"\"", "", 0);
}

static void get_string_reports_no_space_and_the_size_needed(void **state)
{
    (void)state;
    json_value_t v = parse_ok("\"h\\u00e9llo\""); /* "héllo": 6 bytes */
    char buf[16];
    size_t len = 0;
    for (size_t cap = 0; cap <= 6; cap++) {
        memset(buf, 0xA5, sizeof buf);
        assert_int_equal(json_get_string(v, buf + 1, cap, &len), ZQ_ERR_NO_SPACE);
        assert_int_equal(len, 6);
        if (cap > 0) {
            assert_int_equal(buf[1], '\0');
        }
        assert_int_equal((uint8_t)buf[0], 0xA5);
        for (size_t i = 1 + cap; i < sizeof buf; i++) {
            assert_int_equal((uint8_t)buf[i], 0xA5);
        }
    }
    memset(buf, 0xA5, sizeof buf);
    assert_int_equal(json_get_string(v, buf + 1, 7, &len), ZQ_OK);
    assert_string_equal(buf + 1, "h\xc3\xa9llo");
    assert_int_equal((uint8_t)buf[8], 0xA5);
}

static void get_string_refuses_non_strings(void **state)
{
    (void)state;
    char buf[8];
    assert_int_equal(json_get_string(parse_ok("42"), buf, sizeof buf, NULL),
                     ZQ_ERR_INVALID_ARG);
    assert_int_equal(json_get_string(parse_ok("[\"a\"]"), buf, sizeof buf, NULL),
                     ZQ_ERR_INVALID_ARG);
    json_value_t empty = {"", 0};
    assert_int_equal(json_get_string(empty, buf, sizeof buf, NULL), ZQ_ERR_INVALID_ARG);
}

static void string_equals_compares_unescaped_without_copying(void **state)
{
    (void)state;
    json_value_t v = parse_ok("\"\\u006fffer\"");
    assert_true(json_string_equals(v, "offer"));
    assert_false(json_string_equals(v, "offe"));
    assert_false(json_string_equals(v, "offers"));
    assert_false(json_string_equals(v, "Offer"));
    assert_false(json_string_equals(parse_ok("null"), "null"));
    assert_false(json_string_equals(parse_ok("\"a\\u0000\""), "a"));
    assert_true(json_string_equals_n(parse_ok("\"a\\u0000\""), "a\0", 2));
}

/* ---- Objects and arrays ------------------------------------------------------------------- */

static void object_get_finds_first_match_after_unescaping(void **state)
{
    (void)state;
    json_value_t obj = parse_ok("{ \"a\" : 1 , \"\\u0062\" : [2] , \"a\" : 3, \"c\":{\"a\":4} }");
    assert_int_equal(int_member(obj, "a"), 1); /* §4: duplicate names; the first wins */
    json_value_t b = member(obj, "b");
    assert_int_equal(json_type(b), JSON_ARRAY);
    assert_int_equal(b.len, 3);
    json_value_t out;
    assert_int_equal(json_object_get(obj, "d", &out), ZQ_ERR_NOT_FOUND);
    assert_int_equal(json_object_get(obj, "", &out), ZQ_ERR_NOT_FOUND);
    assert_int_equal(json_object_get(parse_ok("[1]"), "a", &out), ZQ_ERR_INVALID_ARG);
    assert_int_equal(json_object_get(parse_ok("{}"), "a", &out), ZQ_ERR_NOT_FOUND);
    assert_int_equal(int_member(member(obj, "c"), "a"), 4); /* nested keys are not members */
}

static void pick_agrees_with_object_get_for_every_key(void **state)
{
    (void)state;
    json_value_t obj =
        parse_ok("{\"a\":1, \"\\u0062\":[2], \"a\":3, \"c\":{\"d\":4}, \"\u00e9\":\"x\"}");
    static const char *const keys[] = {"a", "b", "c", "d", "\u00e9", ""};
    json_value_t got[6];
    assert_int_equal(json_object_pick(obj, keys, 6, got), ZQ_OK);
    for (size_t i = 0; i < 6; i++) {
        json_value_t want = {NULL, 0};
        (void)json_object_get(obj, keys[i], &want);
        assert_ptr_equal(got[i].p, want.p); /* the first match, or absent */
        assert_int_equal(got[i].len, want.len);
    }
    assert_null(got[3].p); /* "d" is nested, not a member */
    assert_int_equal(json_object_pick(parse_ok("[1]"), keys, 1, got), ZQ_ERR_INVALID_ARG);
    assert_null(got[0].p);
}

static void strings_of_plain_ascii_and_escapes_compare_alike(void **state)
{
    (void)state;
    assert_true(json_string_equals(parse_ok("\"retryCount\""), "retryCount"));
    assert_true(json_string_equals(parse_ok("\"retry\\u0043ount\""), "retryCount"));
    assert_false(json_string_equals(parse_ok("\"retryCount\""), "retryCoun"));
    assert_false(json_string_equals(parse_ok("\"retryCoun\""), "retryCount"));
    assert_false(json_string_equals(parse_ok("\"\\\"\""), "\\"));
    assert_true(json_string_equals(parse_ok("\"\\\\\""), "\\"));
}

static void iterator_walks_members_and_elements(void **state)
{
    (void)state;
    json_value_t obj = parse_ok("{\"x\":\"s,}]\",\"y\":[1,[2,{\"z\":\"]\"}]],\"w\":{}}");
    static const char *const keys[] = {"x", "y", "w"};
    static const char *const values[] = {"\"s,}]\"", "[1,[2,{\"z\":\"]\"}]]", "{}"};
    json_iter_t it;
    json_iter_init(&it, obj);
    json_value_t k, v;
    size_t n = 0;
    while (json_iter_next(&it, &k, &v)) {
        assert_true(json_string_equals(k, keys[n]));
        assert_int_equal(v.len, strlen(values[n]));
        assert_memory_equal(v.p, values[n], v.len);
        n++;
    }
    assert_int_equal(n, 3);
    assert_false(json_iter_next(&it, &k, &v)); /* stays at the end */

    json_iter_init(&it, parse_ok("[ ]"));
    assert_false(json_iter_next(&it, NULL, &v));
    json_iter_init(&it, parse_ok("\"not a container\""));
    assert_false(json_iter_next(&it, NULL, &v));
}

static void accessors_stay_inside_garbage_spans(void **state)
{
    (void)state;
    /* Spans that never came from json_parse(): each accessor stops at the span's end even
     * where the bytes beyond it would complete the value. */
    static const char text[] = "{\"a\":[1,2],\"b\":\"xyz\"}";
    json_value_t out;
    for (size_t len = 0; len < sizeof text - 1; len++) {
        json_value_t v = {text, len};
        json_iter_t it;
        json_iter_init(&it, v);
        json_value_t k, e;
        while (json_iter_next(&it, &k, &e)) {
            assert_true(e.p >= text && e.p + e.len <= text + len);
        }
        zq_err_t err = json_object_get(v, "b", &out);
        assert_true(err != ZQ_OK || out.p + out.len <= text + len);
    }
    json_value_t cut_string = {"\"abc\\\"", 6}; /* ends inside an escape */
    char buf[16];
    assert_int_equal(json_get_string(cut_string, buf, sizeof buf, NULL), ZQ_ERR_MALFORMED);
    json_value_t cut_u = {"\"\\u12\"", 6};
    assert_int_equal(json_get_string(cut_u, buf, sizeof buf, NULL), ZQ_ERR_MALFORMED);
    json_value_t cut_number = {"12345", 3};
    int64_t i;
    assert_int_equal(json_get_int64(cut_number, &i), ZQ_OK);
    assert_int_equal(i, 123);
    json_value_t not_number = {"1.", 2};
    assert_int_equal(json_get_int64(not_number, &i), ZQ_ERR_INVALID_ARG);
    json_value_t cut_true = {"true", 3};
    bool b;
    assert_false(json_get_bool(cut_true, &b));
    json_value_t none = {NULL, 0};
    assert_int_equal(json_type(none), JSON_INVALID);
}

/* ---- Numbers ------------------------------------------------------------------------------ */

static void expect_int(const char *text, zq_err_t want_err, int64_t want)
{
    int64_t v = 0;
    zq_err_t err = json_get_int64(parse_ok(text), &v);
    if (err != want_err) {
        fail_msg("%s: got %s", text, zq_errname(err));
    }
    if (err == ZQ_OK && v != want) {
        fail_msg("%s: got %lld", text, (long long)v);
    }
}

static void int64_reads_whole_numbers_in_any_form(void **state)
{
    (void)state;
    expect_int("0", ZQ_OK, 0);
    expect_int("-0", ZQ_OK, 0);
    expect_int("42", ZQ_OK, 42);
    expect_int("-17", ZQ_OK, -17);
    expect_int("1754040000000", ZQ_OK, 1754040000000);
    expect_int("1e3", ZQ_OK, 1000);
    expect_int("1E+3", ZQ_OK, 1000);
    expect_int("2.50e1", ZQ_OK, 25);
    expect_int("1.0", ZQ_OK, 1);
    expect_int("-0.0", ZQ_OK, 0);
    expect_int("12300e-2", ZQ_OK, 123);
    expect_int("0e999999999999999999999", ZQ_OK, 0);
    expect_int("9223372036854775807", ZQ_OK, INT64_MAX);
    expect_int("-9223372036854775808", ZQ_OK, INT64_MIN);
    expect_int("922337203685477580.7e1", ZQ_OK, INT64_MAX);
    expect_int("0.0000000000000000000001e22", ZQ_OK, 1);
}

static void int64_refuses_fractions_and_overflow(void **state)
{
    (void)state;
    expect_int("1.5", ZQ_ERR_INVALID_ARG, 0);
    expect_int("1e-1", ZQ_ERR_INVALID_ARG, 0);
    expect_int("123e-5", ZQ_ERR_INVALID_ARG, 0);
    expect_int("9223372036854775808", ZQ_ERR_TOO_LONG, 0);
    expect_int("-9223372036854775809", ZQ_ERR_TOO_LONG, 0);
    expect_int("10000000000000000000", ZQ_ERR_TOO_LONG, 0);
    expect_int("1e19", ZQ_ERR_TOO_LONG, 0);
    expect_int("1e999999999999999999999", ZQ_ERR_TOO_LONG, 0);
    expect_int("\"1\"", ZQ_ERR_INVALID_ARG, 0);
    expect_int("true", ZQ_ERR_INVALID_ARG, 0);
}

static double read_double(const char *text)
{
    double d = 0;
    assert_int_equal(json_get_double(parse_ok(text), &d), ZQ_OK);
    return d;
}

static void assert_close(double got, double want)
{
    double diff = got > want ? got - want : want - got;
    double mag = want < 0 ? -want : want;
    if (diff > mag * 4e-16) {
        fail_msg("got %.17g, want %.17g", got, want);
    }
}

static void double_is_exact_on_the_fast_path(void **state)
{
    (void)state;
    assert_true(read_double("21.5") == 21.5);
    assert_true(read_double("0.1") == 0.1);
    assert_true(read_double("-1.25e-3") == -1.25e-3);
    assert_true(read_double("37.371991") == 37.371991);
    assert_true(read_double("-122.026020") == -122.026020);
    assert_true(read_double("123456789012345") == 123456789012345.0);
    assert_true(read_double("1e22") == 1e22);
    assert_true(read_double("1754040000000") == 1754040000000.0);
    assert_true(read_double("0") == 0.0);
    double neg_zero = read_double("-0");
    assert_true(neg_zero == 0.0 && 1.0 / neg_zero < 0);
}

static void double_is_close_everywhere_else(void **state)
{
    (void)state;
    assert_close(read_double("3.14159265358979323846264338327950288"), 3.14159265358979323846);
    assert_close(read_double("1.7976931348623157e308"), 1.7976931348623157e308);
    assert_close(read_double("2.2250738585072014e-308"), 2.2250738585072014e-308);
    assert_close(read_double("123.456e78"), 123.456e78);
    assert_close(read_double("-1.0e+28"), -1.0e+28);
    assert_close(read_double("6.02214076e23"), 6.02214076e23);
    assert_close(read_double("0.000000000000000000000000000000000001"), 1e-36);
    assert_true(read_double("1e-400") == 0.0);
    assert_true(read_double("1e-99999999999999999999") == 0.0);
    assert_true(read_double("5e-324") > 0.0);
}

static void double_refuses_overflow_and_non_numbers(void **state)
{
    (void)state;
    double d;
    assert_int_equal(json_get_double(parse_ok("1e309"), &d), ZQ_ERR_TOO_LONG);
    assert_int_equal(json_get_double(parse_ok("-1.5e999"), &d), ZQ_ERR_TOO_LONG);
    assert_int_equal(json_get_double(parse_ok("1e99999999999999999999"), &d), ZQ_ERR_TOO_LONG);
    assert_int_equal(json_get_double(parse_ok("null"), &d), ZQ_ERR_INVALID_ARG);
}

static void expect_count(const char *text, zq_err_t err, uint32_t want)
{
    uint32_t got = 12345;
    assert_int_equal(json_get_count(parse_ok(text), &got), err);
    if (err == ZQ_OK && got != want) {
        fail_msg("%s: got %u, want %u", text, (unsigned)got, (unsigned)want);
    }
}

static void count_is_floored_and_held_at_uint32_max(void **state)
{
    (void)state;
    expect_count("0", ZQ_OK, 0);
    expect_count("-0", ZQ_OK, 0);
    expect_count("-0.0e5", ZQ_OK, 0);
    expect_count("3", ZQ_OK, 3);
    expect_count("2.7", ZQ_OK, 2);
    expect_count("0.9", ZQ_OK, 0);
    expect_count("1e-400", ZQ_OK, 0);
    expect_count("3e0", ZQ_OK, 3);
    expect_count("25e-1", ZQ_OK, 2);
    expect_count("0.00042e4", ZQ_OK, 4);
    expect_count("12e3", ZQ_OK, 12000);
    expect_count("4294967295", ZQ_OK, UINT32_MAX);
    expect_count("4294967294.999", ZQ_OK, 4294967294u);
    expect_count("4294967296", ZQ_OK, UINT32_MAX);
    expect_count("9999999999", ZQ_OK, UINT32_MAX);
    expect_count("1e300", ZQ_OK, UINT32_MAX);
}

/* JavaScript reads a literal at or above DBL_MAX + half an ulp as Infinity, below as finite. */
static void count_beyond_a_double_is_refused_as_javascript_rounds(void **state)
{
    (void)state;
    expect_count("1.7976931348623157e308", ZQ_OK, UINT32_MAX);
    expect_count("1.7976931348623158e308", ZQ_OK, UINT32_MAX);
    expect_count("1.79769313486231580793728971e308", ZQ_OK, UINT32_MAX);
    expect_count("1.79769313486231580793728972e308", ZQ_ERR_TOO_LONG, 0);
    expect_count("1.8e308", ZQ_ERR_TOO_LONG, 0);
    expect_count("9e308", ZQ_ERR_TOO_LONG, 0);
    expect_count("1e309", ZQ_ERR_TOO_LONG, 0);
    expect_count("1e99999999999999999999", ZQ_ERR_TOO_LONG, 0);
}

static void count_refuses_negatives_and_non_numbers(void **state)
{
    (void)state;
    expect_count("-1", ZQ_ERR_INVALID_ARG, 0);
    expect_count("-0.5", ZQ_ERR_INVALID_ARG, 0);
    expect_count("-1e400", ZQ_ERR_INVALID_ARG, 0);
    expect_count("null", ZQ_ERR_INVALID_ARG, 0);
    expect_count("\"2\"", ZQ_ERR_INVALID_ARG, 0);
}

static void bool_reads_true_and_false_only(void **state)
{
    (void)state;
    bool b = false;
    assert_true(json_get_bool(parse_ok("true"), &b));
    assert_true(b);
    assert_true(json_get_bool(parse_ok("false"), &b));
    assert_false(b);
    assert_false(json_get_bool(parse_ok("null"), &b));
    assert_false(json_get_bool(parse_ok("0"), &b));
    assert_false(json_get_bool(parse_ok("\"true\""), &b));
}

/* ---- ZeroQ frames (docs/zeroq-wire.md) ---------------------------------------------------- */

static void zeroq_join_frame_reads(void **state)
{
    (void)state;
    json_value_t doc = parse_ok("{\"type\":\"join\",\"topicId\":\"default-topic\"}");
    assert_true(json_string_equals(member(doc, "type"), "join"));
    assert_string_member(doc, "topicId", "default-topic");
}

static void zeroq_offer_frame_reads_nested_sdp(void **state)
{
    (void)state;
    json_value_t doc = parse_ok(
        "{\"type\":\"offer\",\"peerId\":\"peer-7\",\"sdp\":{\"type\":\"offer\",\"sdp\":"
        "\"v=0\\r\\no=- 4611731400430051336 2 IN IP4 127.0.0.1\\r\\ns=-\\r\\nt=0 0\\r\\n"
        "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\\r\\na=sctp-port:5000\\r\\n\"}}");
    assert_true(json_string_equals(member(doc, "type"), "offer"));
    assert_string_member(doc, "peerId", "peer-7");
    json_value_t sdp = member(doc, "sdp");
    assert_int_equal(json_type(sdp), JSON_OBJECT); /* an RTCSessionDescription, not a string */
    assert_true(json_string_equals(member(sdp, "type"), "offer"));
    char text[256];
    size_t len;
    assert_int_equal(json_get_string(member(sdp, "sdp"), text, sizeof text, &len), ZQ_OK);
    static const char head[] = "v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\n";
    assert_memory_equal(text, head, sizeof head - 1);
    assert_memory_equal(text + len - 18, "a=sctp-port:5000\r\n", 18);
}

static void zeroq_ice_candidate_frame_reads_nested_candidate(void **state)
{
    (void)state;
    json_value_t doc = parse_ok(
        "{\"type\":\"ice_candidate\",\"peerId\":\"p2\",\"candidate\":{\"candidate\":"
        "\"candidate:1 1 udp 2122260223 192.168.1.20 54321 typ host\",\"sdpMid\":\"0\","
        "\"sdpMLineIndex\":0,\"usernameFragment\":\"Xq3f\"}}");
    json_value_t cand = member(doc, "candidate");
    assert_int_equal(json_type(cand), JSON_OBJECT);
    assert_string_member(cand, "candidate",
                         "candidate:1 1 udp 2122260223 192.168.1.20 54321 typ host");
    assert_string_member(cand, "sdpMid", "0");
    assert_int_equal(int_member(cand, "sdpMLineIndex"), 0);
    assert_string_member(cand, "usernameFragment", "Xq3f");
}

static void zeroq_peer_joined_and_control_frames_read(void **state)
{
    (void)state;
    assert_string_member(parse_ok("{\"type\":\"peer_joined\",\"peerId\":\"X\"}"), "peerId", "X");
    assert_true(json_string_equals(member(parse_ok("{\"type\":\"__ping__\"}"), "type"),
                                   "__ping__"));
    assert_true(json_string_equals(member(parse_ok("{\"type\":\"__pong__\"}"), "type"),
                                   "__pong__"));
}

static void zeroq_gossip_frame_reads_peer_array(void **state)
{
    (void)state;
    json_value_t doc = parse_ok("{\"type\":\"__gossip__\",\"peers\":[\"idA\",\"idB\",7]}");
    json_iter_t it;
    json_iter_init(&it, member(doc, "peers"));
    json_value_t v;
    size_t strings = 0, others = 0;
    while (json_iter_next(&it, NULL, &v)) {
        /* §3: the receiver dials every string id and skips anything else. */
        if (json_type(v) == JSON_STRING) {
            assert_true(json_string_equals(v, strings == 0 ? "idA" : "idB"));
            strings++;
        } else {
            others++;
        }
    }
    assert_int_equal(strings, 2);
    assert_int_equal(others, 1);
}

static const char envelope[] =
    "{\"id\":\"3b241101-e2bb-4255-8caf-4136c566a962\",\"topic\":\"news\",\"payload\":"
    "{\"headline\":\"hi\"},\"timestamp\":1754040000000,\"seq\":0,\"retryCount\":0}";

static void zeroq_envelope_reads_with_payload_object(void **state)
{
    (void)state;
    json_value_t doc = parse_ok(envelope);
    assert_string_member(doc, "id", "3b241101-e2bb-4255-8caf-4136c566a962");
    assert_string_member(doc, "topic", "news");
    json_value_t payload = member(doc, "payload");
    assert_int_equal(payload.len, strlen("{\"headline\":\"hi\"}"));
    assert_string_member(payload, "headline", "hi");
    assert_int_equal(int_member(doc, "timestamp"), 1754040000000);
    assert_int_equal(int_member(doc, "seq"), 0);
    assert_int_equal(int_member(doc, "retryCount"), 0);
    json_value_t none;
    assert_int_equal(json_object_get(doc, "priority", &none), ZQ_ERR_NOT_FOUND);
}

/* ---- Writer ------------------------------------------------------------------------------- */

static size_t write_envelope(uint8_t *buf, size_t cap, json_value_t payload, int64_t retry)
{
    json_writer_t w;
    json_writer_init(&w, buf, cap);
    json_object_begin(&w);
    json_key(&w, "id");
    json_string(&w, "3b241101-e2bb-4255-8caf-4136c566a962", 36);
    json_key(&w, "topic");
    json_string(&w, "news", 4);
    json_key(&w, "payload");
    json_raw(&w, payload);
    json_key(&w, "timestamp");
    json_int64(&w, 1754040000000);
    json_key(&w, "seq");
    json_uint64(&w, 0);
    json_key(&w, "retryCount");
    json_int64(&w, retry);
    json_object_end(&w);
    return json_finish(&w);
}

static void writer_builds_zeroq_envelope_byte_for_byte(void **state)
{
    (void)state;
    json_value_t payload = parse_ok(" {\"headline\":\"hi\"} ");
    uint8_t buf[256];
    size_t n = write_envelope(buf, sizeof buf, payload, 0);
    assert_int_equal(n, strlen(envelope));
    assert_memory_equal(buf, envelope, n);
}

static void writer_never_writes_past_its_buffer(void **state)
{
    (void)state;
    json_value_t payload = parse_ok("{\"headline\":\"hi\"}");
    size_t want = strlen(envelope);
    for (size_t cap = 0; cap <= want + 1; cap++) {
        uint8_t buf[sizeof envelope + 8];
        memset(buf, 0xA5, sizeof buf);
        size_t n = write_envelope(buf + 4, cap, payload, 0);
        assert_int_equal(n, cap >= want ? want : 0);
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(buf[i], 0xA5);
        }
        for (size_t i = 4 + cap; i < sizeof buf; i++) {
            assert_int_equal(buf[i], 0xA5);
        }
    }
}

static size_t write_one_string(uint8_t *buf, size_t cap, const char *s, size_t len)
{
    json_writer_t w;
    json_writer_init(&w, buf, cap);
    json_string(&w, s, len);
    return json_finish(&w);
}

static void writer_escapes_quotes_backslashes_and_controls(void **state)
{
    (void)state;
    uint8_t buf[128];
    static const char in[] = "a\"b\\c/\b\f\n\r\t\x01\x1f\x7f\0\xc3\xa9\xf0\x9f\x98\x80";
    static const char want[] =
        "\"a\\\"b\\\\c/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\\u0000\xc3\xa9\xf0\x9f\x98\x80\"";
    size_t n = write_one_string(buf, sizeof buf, in, sizeof in - 1);
    assert_int_equal(n, sizeof want - 1);
    assert_memory_equal(buf, want, n);
    /* And it reads back to the same bytes. */
    json_value_t v;
    assert_int_equal(json_parse((const char *)buf, n, &v), ZQ_OK);
    assert_true(json_string_equals_n(v, in, sizeof in - 1));
}

static void writer_refuses_invalid_utf8(void **state)
{
    (void)state;
    uint8_t buf[64];
    static const char *const bad[] = {"\xff", "a\xc0\xaf", "\xed\xa0\x80", "\xe2\x82"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        json_writer_t w;
        json_writer_init(&w, buf, sizeof buf);
        json_string(&w, bad[i], strlen(bad[i]));
        assert_int_equal(json_finish(&w), 0);
        assert_int_equal(json_writer_error(&w), ZQ_ERR_MALFORMED);
    }
}

static void expect_double_text(double d, const char *want)
{
    uint8_t buf[64];
    json_writer_t w;
    json_writer_init(&w, buf, sizeof buf);
    json_double(&w, d);
    size_t n = json_finish(&w);
    if (n != strlen(want) || memcmp(buf, want, n) != 0) {
        fail_msg("%.17g: got \"%.*s\", want \"%s\"", d, (int)n, (const char *)buf, want);
    }
    double back;
    json_value_t v;
    assert_int_equal(json_parse((const char *)buf, n, &v), ZQ_OK);
    assert_int_equal(json_get_double(v, &back), ZQ_OK);
}

static void writer_formats_doubles_briefly(void **state)
{
    (void)state;
    expect_double_text(21.5, "21.5");
    expect_double_text(3.0, "3");
    expect_double_text(-0.0, "0");
    expect_double_text(0.1, "0.1");
    expect_double_text(-1.25, "-1.25");
    expect_double_text(0.000001, "0.000001");
    expect_double_text(1e-7, "1e-7");
    expect_double_text(-1.5e-7, "-1.5e-7");
    expect_double_text(123456.789, "123456.789");
    expect_double_text(1e20, "100000000000000000000");
    expect_double_text(1e21, "1e21");
    expect_double_text(1.5e300, "1.5e300");
    expect_double_text(1.7976931348623157e308, "1.79769313486231e308"); /* not rounded up */
    expect_double_text(5e-324, "4.94065645841247e-324");
    expect_double_text(1.0 / 3.0, "0.333333333333333");
    expect_double_text(9007199254740993.0, "9007199254740992"); /* whole: printed exactly */
    expect_double_text(37.371991, "37.371991");
    expect_double_text(0.3, "0.3");
    expect_double_text(9.9999999999999995e22, "1e23");
}

static void writer_refuses_nan_and_infinity(void **state)
{
    (void)state;
    uint8_t buf[16];
    double zero = 0.0;
    const double bad[] = {zero / zero, 1.0 / zero, -1.0 / zero};
    for (size_t i = 0; i < 3; i++) {
        json_writer_t w;
        json_writer_init(&w, buf, sizeof buf);
        json_double(&w, bad[i]);
        assert_int_equal(json_finish(&w), 0);
        assert_int_equal(json_writer_error(&w), ZQ_ERR_INVALID_ARG);
    }
}

static void writer_round_trips_every_kind_of_value(void **state)
{
    (void)state;
    uint8_t buf[512];
    json_writer_t w;
    json_writer_init(&w, buf, sizeof buf);
    json_object_begin(&w);
    json_key(&w, "s");
    json_string(&w, "line\nbreak \xe2\x82\xac", 14);
    json_key(&w, "min");
    json_int64(&w, INT64_MIN);
    json_key(&w, "max");
    json_uint64(&w, UINT64_MAX);
    json_key(&w, "d");
    json_double(&w, -2.5e-5);
    json_key(&w, "t");
    json_bool(&w, true);
    json_key(&w, "f");
    json_bool(&w, false);
    json_key(&w, "n");
    json_null(&w);
    json_key(&w, "a");
    json_array_begin(&w);
    json_int64(&w, 1);
    json_array_begin(&w);
    json_array_end(&w);
    json_object_begin(&w);
    json_object_end(&w);
    json_string(&w, "", 0);
    json_array_end(&w);
    json_key_n(&w, "k\"ey", 4);
    json_int64(&w, 7);
    json_object_end(&w);
    size_t n = json_finish(&w);
    assert_true(n > 0);

    json_value_t doc;
    assert_int_equal(json_parse((const char *)buf, n, &doc), ZQ_OK);
    assert_string_member(doc, "s", "line\nbreak \xe2\x82\xac");
    assert_true(int_member(doc, "min") == INT64_MIN);
    json_value_t max = member(doc, "max");
    assert_int_equal(max.len, 20);
    assert_memory_equal(max.p, "18446744073709551615", 20);
    int64_t too_big;
    assert_int_equal(json_get_int64(max, &too_big), ZQ_ERR_TOO_LONG);
    double d;
    assert_int_equal(json_get_double(member(doc, "d"), &d), ZQ_OK);
    assert_true(d == -2.5e-5);
    bool b;
    assert_true(json_get_bool(member(doc, "t"), &b) && b);
    assert_true(json_get_bool(member(doc, "f"), &b) && !b);
    assert_int_equal(json_type(member(doc, "n")), JSON_NULL);
    json_value_t a = member(doc, "a");
    assert_int_equal(a.len, strlen("[1,[],{},\"\"]"));
    assert_memory_equal(a.p, "[1,[],{},\"\"]", a.len);
    assert_int_equal(int_member(doc, "k\"ey"), 7);
}

static zq_err_t misuse(void (*script)(json_writer_t *))
{
    uint8_t buf[64];
    json_writer_t w;
    json_writer_init(&w, buf, sizeof buf);
    script(&w);
    assert_int_equal(json_finish(&w), 0);
    return json_writer_error(&w);
}

static void key_outside_object(json_writer_t *w)
{
    json_array_begin(w);
    json_key(w, "a");
}

static void value_without_key(json_writer_t *w)
{
    json_object_begin(w);
    json_int64(w, 1);
}

static void key_without_value(json_writer_t *w)
{
    json_object_begin(w);
    json_key(w, "a");
    json_object_end(w);
}

static void mismatched_end(json_writer_t *w)
{
    json_object_begin(w);
    json_array_end(w);
}

static void unclosed(json_writer_t *w)
{
    json_array_begin(w);
}

static void two_top_level_values(json_writer_t *w)
{
    json_null(w);
    json_null(w);
}

static void nothing(json_writer_t *w)
{
    (void)w;
}

static void too_deep(json_writer_t *w)
{
    for (size_t i = 0; i <= ZQ_JSON_MAX_DEPTH; i++) {
        json_array_begin(w);
    }
}

static void empty_raw(json_writer_t *w)
{
    json_value_t none = {NULL, 0};
    json_raw(w, none);
}

static void writer_misuse_fails_sticky(void **state)
{
    (void)state;
    assert_int_equal(misuse(key_outside_object), ZQ_ERR_STATE);
    assert_int_equal(misuse(value_without_key), ZQ_ERR_STATE);
    assert_int_equal(misuse(key_without_value), ZQ_ERR_STATE);
    assert_int_equal(misuse(mismatched_end), ZQ_ERR_STATE);
    assert_int_equal(misuse(unclosed), ZQ_OK); /* no error, but no document either */
    assert_int_equal(misuse(two_top_level_values), ZQ_ERR_STATE);
    assert_int_equal(misuse(nothing), ZQ_OK);
    assert_int_equal(misuse(too_deep), ZQ_ERR_TOO_LONG);
    assert_int_equal(misuse(empty_raw), ZQ_ERR_INVALID_ARG);
}

static void writer_nests_to_the_maximum_depth(void **state)
{
    (void)state;
    uint8_t buf[2 * ZQ_JSON_MAX_DEPTH];
    json_writer_t w;
    json_writer_init(&w, buf, sizeof buf);
    for (size_t i = 0; i < ZQ_JSON_MAX_DEPTH; i++) {
        json_array_begin(&w);
    }
    for (size_t i = 0; i < ZQ_JSON_MAX_DEPTH; i++) {
        json_array_end(&w);
    }
    size_t n = json_finish(&w);
    assert_int_equal(n, sizeof buf);
    json_value_t v;
    assert_int_equal(json_parse((const char *)buf, n, &v), ZQ_OK);
}

static void writer_passes_a_payload_through_unchanged(void **state)
{
    (void)state;
    /* A received envelope's payload is forwarded with json_raw() after a nack: retryCount + 1,
     * every other field the same (docs/zeroq-wire.md §3). */
    json_value_t doc = parse_ok(envelope);
    uint8_t buf[256];
    int64_t retry = int_member(doc, "retryCount") + 1;
    size_t n = write_envelope(buf, sizeof buf, member(doc, "payload"), retry);
    json_value_t again;
    assert_int_equal(json_parse((const char *)buf, n, &again), ZQ_OK);
    assert_int_equal(int_member(again, "retryCount"), 1);
    json_value_t p1 = member(doc, "payload"), p2 = member(again, "payload");
    assert_int_equal(p1.len, p2.len);
    assert_memory_equal(p1.p, p2.p, p1.len);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc8259_image_object_reads_back),
        cmocka_unit_test(rfc8259_array_of_objects_reads_back),
        cmocka_unit_test(rfc8259_scalar_texts_are_values),
        cmocka_unit_test(accepts_every_valid_text),
        cmocka_unit_test(rejects_every_invalid_text),
        cmocka_unit_test(rejects_each_truncation_of_a_valid_text),
        cmocka_unit_test(nesting_up_to_the_maximum_is_accepted),
        cmocka_unit_test(nesting_beyond_the_maximum_is_too_long),
        cmocka_unit_test(mixed_nesting_closes_with_the_matching_bracket),
        cmocka_unit_test(parse_rejects_null_text),
        cmocka_unit_test(string_escapes_unescape_to_utf8),
        cmocka_unit_test(get_string_reports_no_space_and_the_size_needed),
        cmocka_unit_test(get_string_refuses_non_strings),
        cmocka_unit_test(string_equals_compares_unescaped_without_copying),
        cmocka_unit_test(object_get_finds_first_match_after_unescaping),
        cmocka_unit_test(pick_agrees_with_object_get_for_every_key),
        cmocka_unit_test(strings_of_plain_ascii_and_escapes_compare_alike),
        cmocka_unit_test(iterator_walks_members_and_elements),
        cmocka_unit_test(accessors_stay_inside_garbage_spans),
        cmocka_unit_test(int64_reads_whole_numbers_in_any_form),
        cmocka_unit_test(int64_refuses_fractions_and_overflow),
        cmocka_unit_test(double_is_exact_on_the_fast_path),
        cmocka_unit_test(double_is_close_everywhere_else),
        cmocka_unit_test(double_refuses_overflow_and_non_numbers),
        cmocka_unit_test(count_is_floored_and_held_at_uint32_max),
        cmocka_unit_test(count_beyond_a_double_is_refused_as_javascript_rounds),
        cmocka_unit_test(count_refuses_negatives_and_non_numbers),
        cmocka_unit_test(bool_reads_true_and_false_only),
        cmocka_unit_test(zeroq_join_frame_reads),
        cmocka_unit_test(zeroq_offer_frame_reads_nested_sdp),
        cmocka_unit_test(zeroq_ice_candidate_frame_reads_nested_candidate),
        cmocka_unit_test(zeroq_peer_joined_and_control_frames_read),
        cmocka_unit_test(zeroq_gossip_frame_reads_peer_array),
        cmocka_unit_test(zeroq_envelope_reads_with_payload_object),
        cmocka_unit_test(writer_builds_zeroq_envelope_byte_for_byte),
        cmocka_unit_test(writer_never_writes_past_its_buffer),
        cmocka_unit_test(writer_escapes_quotes_backslashes_and_controls),
        cmocka_unit_test(writer_refuses_invalid_utf8),
        cmocka_unit_test(writer_formats_doubles_briefly),
        cmocka_unit_test(writer_refuses_nan_and_infinity),
        cmocka_unit_test(writer_round_trips_every_kind_of_value),
        cmocka_unit_test(writer_misuse_fails_sticky),
        cmocka_unit_test(writer_nests_to_the_maximum_depth),
        cmocka_unit_test(writer_passes_a_payload_through_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

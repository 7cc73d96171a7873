/* Topic patterns (broker/pattern.h, PROTOCOL.md §3) against the one table both sides are
 * tested with, tests/web/fixtures/patterns.json: tests/web/match.test.mjs reads it too, so
 * broker/pattern.c and web/zq/match.js cannot drift apart. Each test named after a rule runs
 * the rows of that rule, and the last one checks that every rule of the table has its test.
 * Then a brute-force comparison with a small backtracking reference matcher over the table's
 * alphabet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "broker/pattern.h"
#include "pattern_ref.h"
#include "fixture_table.h"
#include "zq/json.h"
#include "test_rand.h"
#include "zq/hex.h"

#ifndef ZQ_PATTERN_TABLE
#error "ZQ_PATTERN_TABLE: the path of tests/web/fixtures/patterns.json (tests/CMakeLists.txt)"
#endif

/* ---- The table ------------------------------------------------------------------------------ */

static char table_text[1 << 16];
static json_value_t table;

static int load_table(void **state)
{
    (void)state;
    return fixture_table_load(ZQ_PATTERN_TABLE, table_text, sizeof table_text, &table);
}


/* A string of the table, unescaped (it may hold NUL bytes); NUL-terminated too. */
static size_t text_of(json_value_t v, char *out, size_t cap)
{
    size_t len = 0;
    assert_int_equal(json_get_string(v, out, cap, &len), ZQ_OK);
    return len;
}

/* A "hex" member of the table as bytes. */
static size_t bytes_of(json_value_t row, const char *key, char *out, size_t cap)
{
    char hex[128];
    size_t n = text_of(fixture_member(row, key), hex, sizeof hex);
    assert_true(n % 2 == 0 && n / 2 <= cap);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = zq_hex_digit(hex[2 * i]), lo = zq_hex_digit(hex[2 * i + 1]);
        assert_true(hi >= 0 && lo >= 0);
        out[i] = (char)(hi << 4 | lo);
    }
    return n / 2;
}

static bool rule_is(json_value_t obj, const char *rule)
{
    json_value_t r;
    return json_object_get(obj, "rule", &r) == ZQ_OK && json_string_equals(r, rule);
}

static bool match(const char *p, size_t plen, const char *t, size_t tlen)
{
    return brk_pattern_match(p, plen, t, tlen);
}

/* ---- One row of each kind ------------------------------------------------------------------- */

/* The pattern is usable and matches every topic of "yes", none of "no". */
static void expect_row(json_value_t row)
{
    char p[128], t[128];
    size_t plen = text_of(fixture_member(row, "pattern"), p, sizeof p);
    const char *why = brk_pattern_problem(p, plen);
    if (why != NULL || brk_pattern_check(p, plen) != ZQ_OK) {
        fail_msg("\"%s\" should be usable: %s", p, why != NULL ? why : "check refused it");
    }
    static const char *const lists[] = {"yes", "no"};
    for (int want = 1; want >= 0; want--) {
        json_iter_t it;
        json_value_t v;
        json_iter_init(&it, fixture_member(row, lists[1 - want]));
        while (json_iter_next(&it, NULL, &v)) {
            size_t tlen = text_of(v, t, sizeof t);
            if (match(p, plen, t, tlen) != want) {
                fail_msg("\"%s\" should %smatch \"%s\"", p, want ? "" : "not ", t);
            }
        }
    }
}

/* brk_pattern_problem() gives the row's reason, and brk_pattern_check() refuses it. */
static void refused(const char *p, size_t plen, json_value_t reason)
{
    const char *why = brk_pattern_problem(p, plen);
    if (why == NULL || !json_string_equals(reason, why)) {
        fail_msg("\"%.*s\": the reason is \"%s\"", (int)plen, p, why != NULL ? why : "(none)");
    }
    assert_int_equal(brk_pattern_check(p, plen), ZQ_ERR_MALFORMED);
}

static void refused_row(json_value_t row)
{
    char p[128];
    size_t plen = text_of(fixture_member(row, "pattern"), p, sizeof p);
    refused(p, plen, fixture_member(row, "reason"));
}

static void refused_bytes_row(json_value_t row)
{
    char p[64];
    size_t plen = bytes_of(row, "hex", p, sizeof p);
    refused(p, plen, fixture_member(row, "reason"));
}

static void bytes_not_matched_row(json_value_t row)
{
    char p[64], t[64];
    size_t plen = text_of(fixture_member(row, "pattern"), p, sizeof p);
    size_t tlen = bytes_of(row, "topicHex", t, sizeof t);
    assert_int_equal(brk_pattern_check(p, plen), ZQ_OK);
    assert_false(match(p, plen, t, tlen));
}

/* ---- Rules: each test runs the rows of its name --------------------------------------------- */

/* Runs @p each on every row of @p section that belongs to @p rule; returns how many. */
static unsigned run_rows(const char *section, const char *rule, void (*each)(json_value_t))
{
    unsigned n = 0;
    json_iter_t it;
    json_value_t row;
    json_iter_init(&it, fixture_member(table, section));
    while (json_iter_next(&it, NULL, &row)) {
        if (rule_is(row, rule)) {
            each(row);
            n++;
        }
    }
    return n;
}

/* Topics brk_topic_problem() lets publish, and those it refuses with the reason. */
static unsigned run_topics(const char *rule)
{
    json_value_t topics = fixture_member(table, "topics");
    if (!rule_is(topics, rule)) {
        return 0;
    }
    char t[128];
    json_iter_t it;
    json_value_t v;
    json_iter_init(&it, fixture_member(topics, "usable"));
    while (json_iter_next(&it, NULL, &v)) {
        size_t tlen = text_of(v, t, sizeof t);
        const char *why = brk_topic_problem(t, tlen);
        if (why != NULL) {
            fail_msg("\"%s\" should be a topic: %s", t, why);
        }
    }
    json_iter_init(&it, fixture_member(topics, "refused"));
    while (json_iter_next(&it, NULL, &v)) {
        size_t tlen = text_of(fixture_member(v, "topic"), t, sizeof t);
        const char *why = brk_topic_problem(t, tlen);
        if (why == NULL || !json_string_equals(fixture_member(v, "reason"), why)) {
            fail_msg("topic \"%s\": the reason is \"%s\"", t, why != NULL ? why : "(none)");
        }
    }
    return 1;
}

/* Usable patterns with no wildcard ("yes") and with one ("no"). */
static unsigned run_exact(const char *rule)
{
    json_value_t exact = fixture_member(table, "exact");
    if (!rule_is(exact, rule)) {
        return 0;
    }
    static const char *const lists[] = {"no", "yes"};
    for (int want = 0; want <= 1; want++) {
        char p[128];
        json_iter_t it;
        json_value_t v;
        json_iter_init(&it, fixture_member(exact, lists[want]));
        while (json_iter_next(&it, NULL, &v)) {
            size_t plen = text_of(v, p, sizeof p);
            assert_int_equal(brk_pattern_check(p, plen), ZQ_OK);
            if (brk_pattern_is_exact(p, plen) != want) {
                fail_msg("\"%s\" is %sexact", p, want ? "" : "not ");
            }
        }
    }
    return 1;
}

/* Every row of @p rule, whatever its section; a test with no rows in the table fails. */
static void run_rule(const char *rule)
{
    unsigned n = run_rows("expect", rule, expect_row) + run_rows("refused", rule, refused_row) +
                 run_rows("refusedBytes", rule, refused_bytes_row) +
                 run_rows("bytesNotMatched", rule, bytes_not_matched_row) + run_topics(rule) +
                 run_exact(rule);
    if (n == 0) {
        fail_msg("no row of the table is about %s", rule);
    }
}

#define RULE(name)                                                                              \
    static void name(void **state)                                                              \
    {                                                                                           \
        (void)state;                                                                            \
        run_rule(#name);                                                                        \
    }

/* The header's table */
RULE(exact_pattern_matches_only_itself)
RULE(plus_matches_exactly_one_level)
RULE(hash_matches_zero_or_more_trailing_levels)
RULE(slash_hash_matches_the_parent_level)
RULE(lone_hash_matches_every_topic)
RULE(plus_between_levels_matches_one_level)
RULE(star_suffix_matches_every_topic_with_that_prefix)
RULE(lone_star_matches_every_topic)
/* The separator */
RULE(a_dot_is_a_plain_byte_in_a_slashed_pattern)
RULE(a_slash_is_a_plain_byte_in_a_dotted_pattern)
RULE(a_pattern_of_one_level_splits_the_topic_at_its_own_separator)
/* Where wildcards are wildcards, and what is refused */
RULE(hash_level_not_last_is_refused)
RULE(plus_or_hash_inside_a_level_is_refused)
RULE(star_not_last_is_a_plain_byte)
RULE(star_as_its_own_last_level_is_a_prefix_ending_in_the_separator)
RULE(wildcard_levels_combine_with_a_star_prefix)
RULE(empty_levels_are_levels)
RULE(empty_topic_is_one_empty_level)
RULE(empty_pattern_is_refused)
RULE(utf8_patterns_match_utf8_topics)
RULE(invalid_utf8_is_refused)
RULE(control_bytes_are_refused)
RULE(exact_means_no_wildcard_at_all)
RULE(topic_with_plus_or_hash_is_refused)

/* Empty strings may come as NULL pointers, which the table cannot say. */
static void null_strings_are_empty(void **state)
{
    (void)state;
    assert_non_null(brk_pattern_problem(NULL, 0));
    assert_int_equal(brk_pattern_check(NULL, 0), ZQ_ERR_MALFORMED);
    assert_null(brk_topic_problem(NULL, 0));
    assert_true(brk_pattern_match("#", 1, NULL, 0));
    assert_false(brk_pattern_match("a", 1, NULL, 0));
}

/* ---- Brute force against a reference -------------------------------------------------------- */

/* The reference (tests/support/pattern_ref.h): a different algorithm from the same rules. */
#define REF_MAX 64

static bool ref_match(const char *p, size_t plen, const char *t, size_t tlen)
{
    pattern_ref_token_t tokens[PATTERN_REF_TOKENS(REF_MAX)];
    assert_true(plen <= REF_MAX);
    return pattern_ref_match(p, plen, t, tlen, tokens);
}

typedef struct {
    char symbols[16];
    size_t n;
} alphabet_t;

static alphabet_t alphabet_of_table(void)
{
    alphabet_t a = {{0}, 0};
    json_iter_t it;
    json_value_t v;
    json_iter_init(&it, fixture_member(fixture_member(table, "reference"), "alphabet"));
    while (json_iter_next(&it, NULL, &v)) {
        char s[8];
        assert_int_equal(text_of(v, s, sizeof s), 1);
        assert_true(a.n < sizeof a.symbols);
        a.symbols[a.n++] = s[0];
    }
    return a;
}

static unsigned long count_of_table(const char *key)
{
    uint32_t n = 0;
    assert_int_equal(json_get_count(fixture_member(fixture_member(table, "reference"), key), &n), ZQ_OK);
    return n;
}

static size_t random_string(test_rand_t *r, const alphabet_t *a, char *out, size_t max)
{
    size_t len = (size_t)(test_rand_next(r) % (max + 1));
    for (size_t i = 0; i < len; i++) {
        out[i] = a->symbols[test_rand_next(r) % a->n];
    }
    return len;
}

typedef struct {
    unsigned compared, matched;
} tally_t;

static void compare_one(const char *p, size_t plen, const char *t, size_t tlen, tally_t *tally)
{
    bool ok = brk_pattern_check(p, plen) == ZQ_OK;
    if (ok != pattern_ref_check(p, plen)) {
        fail_msg("check disagrees on \"%.*s\"", (int)plen, p);
    }
    if (!ok) {
        return;
    }
    bool got = brk_pattern_match(p, plen, t, tlen);
    if (got != ref_match(p, plen, t, tlen)) {
        fail_msg("\"%.*s\" vs \"%.*s\": got %d", (int)plen, p, (int)tlen, t, got);
    }
    if (brk_pattern_is_exact(p, plen)) {
        assert_int_equal(got, plen == tlen && memcmp(p, t, plen) == 0);
    }
    tally->compared++;
    tally->matched += got;
}

/* A topic near @p p: a random string, or @p p itself (which wildcards also match) with a byte
 * changed, inserted or removed, or with a random tail: the near misses are what matter. */
static size_t random_topic(test_rand_t *r, const alphabet_t *a, const char *p, size_t plen,
                           char *t, size_t max)
{
    uint64_t x = test_rand_next(r);
    if (x % 3 == 0 || plen + 4 > max) {
        return random_string(r, a, t, max);
    }
    memcpy(t, p, plen);
    size_t at = (size_t)((x >> 8) % (plen + 1));
    char c = a->symbols[(x >> 16) % a->n];
    switch ((x >> 24) % 4) {
    case 0: /* unchanged */
        return plen;
    case 1: /* a tail */
        return plen + random_string(r, a, t + plen, 3);
    case 2: /* a byte inserted */
        memmove(t + at + 1, t + at, plen - at);
        t[at] = c;
        return plen + 1;
    default: /* a byte changed, or removed at the end */
        if (at == plen) {
            return plen > 0 ? plen - 1 : 0;
        }
        t[at] = c;
        return plen;
    }
}

static void matches_reference_on_random_pairs(void **state)
{
    (void)state;
    alphabet_t a = alphabet_of_table();
    test_rand_t r;
    (void)test_rand(&r, 0x5EED0001);
    tally_t tally = {0, 0};
    for (int i = 0; i < 40000; i++) {
        char p[10], t[16];
        size_t plen = random_string(&r, &a, p, sizeof p);
        size_t tlen = random_topic(&r, &a, p, plen, t, sizeof t);
        compare_one(p, plen, t, tlen, &tally);
    }
    print_message("compared %u, matched %u\n", tally.compared, tally.matched);
    /* Both answers must be common, or the comparison proves little. */
    assert_true(tally.compared > 5000 && tally.matched > 1000);
    assert_true(tally.compared - tally.matched > 1000);
}

/* Every string of length <= n over the alphabet, in turn: index -> string. */
static size_t nth_string(const alphabet_t *a, unsigned long index, char *out)
{
    size_t len = 0;
    unsigned long count = 1;
    while (index >= count) {
        index -= count;
        count *= a->n;
        len++;
    }
    for (size_t i = 0; i < len; i++) {
        out[i] = a->symbols[index % a->n];
        index /= a->n;
    }
    return len;
}

static void matches_reference_on_every_short_pair(void **state)
{
    (void)state;
    alphabet_t a = alphabet_of_table();
    unsigned long patterns = count_of_table("patterns"), topics = count_of_table("topics");
    tally_t tally = {0, 0};
    for (unsigned long pi = 0; pi < patterns; pi++) {
        for (unsigned long ti = 0; ti < topics; ti++) {
            char p[8], t[8];
            size_t plen = nth_string(&a, pi, p);
            size_t tlen = nth_string(&a, ti, t);
            compare_one(p, plen, t, tlen, &tally);
        }
    }
    print_message("compared %u, matched %u\n", tally.compared, tally.matched);
    assert_true(tally.matched > 1000 && tally.compared - tally.matched > 1000);
}

/* ---- Main ----------------------------------------------------------------------------------- */

static void every_rule_of_the_table_has_its_test(void **state);

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(exact_pattern_matches_only_itself),
    cmocka_unit_test(plus_matches_exactly_one_level),
    cmocka_unit_test(hash_matches_zero_or_more_trailing_levels),
    cmocka_unit_test(slash_hash_matches_the_parent_level),
    cmocka_unit_test(lone_hash_matches_every_topic),
    cmocka_unit_test(plus_between_levels_matches_one_level),
    cmocka_unit_test(star_suffix_matches_every_topic_with_that_prefix),
    cmocka_unit_test(lone_star_matches_every_topic),
    cmocka_unit_test(a_dot_is_a_plain_byte_in_a_slashed_pattern),
    cmocka_unit_test(a_slash_is_a_plain_byte_in_a_dotted_pattern),
    cmocka_unit_test(a_pattern_of_one_level_splits_the_topic_at_its_own_separator),
    cmocka_unit_test(hash_level_not_last_is_refused),
    cmocka_unit_test(plus_or_hash_inside_a_level_is_refused),
    cmocka_unit_test(star_not_last_is_a_plain_byte),
    cmocka_unit_test(star_as_its_own_last_level_is_a_prefix_ending_in_the_separator),
    cmocka_unit_test(wildcard_levels_combine_with_a_star_prefix),
    cmocka_unit_test(empty_levels_are_levels),
    cmocka_unit_test(empty_topic_is_one_empty_level),
    cmocka_unit_test(empty_pattern_is_refused),
    cmocka_unit_test(utf8_patterns_match_utf8_topics),
    cmocka_unit_test(invalid_utf8_is_refused),
    cmocka_unit_test(control_bytes_are_refused),
    cmocka_unit_test(exact_means_no_wildcard_at_all),
    cmocka_unit_test(topic_with_plus_or_hash_is_refused),
    cmocka_unit_test(null_strings_are_empty),
    cmocka_unit_test(matches_reference_on_random_pairs),
    cmocka_unit_test(matches_reference_on_every_short_pair),
    cmocka_unit_test(every_rule_of_the_table_has_its_test),
};

static bool has_test(json_value_t rule)
{
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (json_string_equals(rule, tests[i].name)) {
            return true;
        }
    }
    return false;
}

/* A row whose rule no test is named after would be run by none: the table and the tests
 * above must name the same rules. */
static void every_rule_of_the_table_has_its_test(void **state)
{
    (void)state;
    static const char *const sections[] = {"expect", "refused", "refusedBytes", "bytesNotMatched"};
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        json_iter_t it;
        json_value_t row;
        json_iter_init(&it, fixture_member(table, sections[s]));
        while (json_iter_next(&it, NULL, &row)) {
            json_value_t rule = fixture_member(row, "rule");
            if (!has_test(rule)) {
                fail_msg("no test runs the %s row of rule %.*s", sections[s], (int)rule.len,
                         rule.p);
            }
        }
    }
    assert_true(has_test(fixture_member(fixture_member(table, "topics"), "rule")));
    assert_true(has_test(fixture_member(fixture_member(table, "exact"), "rule")));
}

int main(void)
{
    return cmocka_run_group_tests(tests, load_table, NULL);
}

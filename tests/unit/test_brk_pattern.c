/* Topic patterns (broker/pattern.h, PROTOCOL.md §3): each row of the header's table, the rules
 * on where '+', '#' and '*' are wildcards, what brk_pattern_check() refuses, and a brute-force
 * comparison with a small backtracking reference matcher over a six-symbol alphabet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "broker/pattern.h"
#include "pattern_ref.h"
#include "test_rand.h"

static bool match(const char *pattern, const char *topic)
{
    return brk_pattern_match(pattern, strlen(pattern), topic, strlen(topic));
}

static zq_err_t check(const char *pattern)
{
    return brk_pattern_check(pattern, strlen(pattern));
}

static bool exact(const char *pattern)
{
    return brk_pattern_is_exact(pattern, strlen(pattern));
}

/* Asserts @p pattern is usable and matches exactly the topics of @p yes, none of @p no. */
static void expect(const char *pattern, const char *const *yes, const char *const *no)
{
    assert_int_equal(check(pattern), ZQ_OK);
    for (; *yes != NULL; yes++) {
        if (!match(pattern, *yes)) {
            fail_msg("\"%s\" should match \"%s\"", pattern, *yes);
        }
    }
    for (; *no != NULL; no++) {
        if (match(pattern, *no)) {
            fail_msg("\"%s\" should not match \"%s\"", pattern, *no);
        }
    }
}

#define TOPICS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NONE ((const char *const[]){NULL})

/* ---- The header's table, row by row --------------------------------------------------------- */

static void exact_pattern_matches_only_itself(void **state)
{
    (void)state;
    expect("news", TOPICS("news"), TOPICS("new", "newsx", "news.eu", "x.news", "", "News"));
}

static void plus_matches_exactly_one_level(void **state)
{
    (void)state;
    expect("news.+", TOPICS("news.eu", "news.us", "news."),
           TOPICS("news", "news.eu.fr", "newsx.eu", "eu"));
}

static void hash_matches_zero_or_more_trailing_levels(void **state)
{
    (void)state;
    expect("news.#", TOPICS("news", "news.eu", "news.eu.fr", "news."),
           TOPICS("newsx", "new", "x.news", "", "news2.eu"));
}

static void lone_hash_matches_every_topic(void **state)
{
    (void)state;
    expect("#", TOPICS("", "a", "a.b.c", ".", "news.eu.fr"), NONE);
}

static void plus_between_levels_matches_one_level(void **state)
{
    (void)state;
    expect("sensors.+.temp", TOPICS("sensors.kitchen.temp", "sensors..temp"),
           TOPICS("sensors.temp", "sensors.a.b.temp", "sensors.kitchen.temp.c",
                  "sensors.kitchen.tempx"));
}

static void star_suffix_matches_every_topic_with_that_prefix(void **state)
{
    (void)state;
    expect("log*", TOPICS("log", "logs", "log.x", "log.x.y"), TOPICS("lo", "xlog", "", "Log"));
}

static void lone_star_matches_every_topic(void **state)
{
    (void)state;
    expect("*", TOPICS("", "a", "a.b.c", ".", "*"), NONE);
}

/* ---- Where wildcards are wildcards ---------------------------------------------------------- */

static void hash_level_not_last_is_malformed(void **state)
{
    (void)state;
    assert_int_equal(check("#.a"), ZQ_ERR_MALFORMED);
    assert_int_equal(check("a.#.b"), ZQ_ERR_MALFORMED);
    assert_int_equal(check("#."), ZQ_ERR_MALFORMED);
    assert_int_equal(check("a.#.#"), ZQ_ERR_MALFORMED);
    assert_int_equal(check("#.*"), ZQ_ERR_MALFORMED);
    assert_int_equal(check("a.#"), ZQ_OK);
}

static void plus_and_hash_inside_a_level_are_plain_bytes(void **state)
{
    (void)state;
    expect("a+", TOPICS("a+"), TOPICS("a", "ab", "a.b"));
    expect("+a", TOPICS("+a"), TOPICS("a", "ba"));
    expect("a#", TOPICS("a#"), TOPICS("a", "ab", "a.b"));
    expect("#b.c", TOPICS("#b.c"), TOPICS("b.c", "x.c", "xb.c"));
    expect("a.++", TOPICS("a.++"), TOPICS("a.b", "a.bb"));
    expect("a.##", TOPICS("a.##"), TOPICS("a", "a.b"));
}

static void star_not_last_is_a_plain_byte(void **state)
{
    (void)state;
    expect("a*b", TOPICS("a*b"), TOPICS("ab", "axb", "a*bc"));
    expect("*.a", TOPICS("*.a"), TOPICS("x.a", ".a", "a"));
    expect("a**", TOPICS("a*", "a*x", "a*.b"), TOPICS("a", "ab"));
}

static void star_as_its_own_last_level_is_a_prefix_ending_in_a_dot(void **state)
{
    (void)state;
    expect("news.*", TOPICS("news.", "news.eu", "news.eu.fr"), TOPICS("news", "newsx"));
}

/* '*' makes the last level a plain prefix: "+*" and "#*" are not wildcard levels. */
static void star_after_plus_or_hash_is_a_plain_prefix(void **state)
{
    (void)state;
    expect("a.+*", TOPICS("a.+", "a.+x", "a.+.b"), TOPICS("a.b", "a", "a."));
    expect("#*", TOPICS("#", "#a", "#.a"), TOPICS("a", ""));
}

static void wildcard_levels_combine_with_a_star_prefix(void **state)
{
    (void)state;
    expect("sensors.+.temp*", TOPICS("sensors.a.temp", "sensors.a.temperature", "sensors.a.temp.c"),
           TOPICS("sensors.a.tem", "sensors.temp", "sensors.a.b.temp"));
}

static void empty_levels_are_levels(void **state)
{
    (void)state;
    expect("a..b", TOPICS("a..b"), TOPICS("a.b", "a...b"));
    expect("a.+.b", TOPICS("a..b", "a.x.b"), TOPICS("a.b"));
    expect(".", TOPICS("."), TOPICS("", "..", "a."));
    expect("+.+", TOPICS(".", "a.b", "a."), TOPICS("", "a", "a.b.c"));
    expect("a.", TOPICS("a."), TOPICS("a", "a.b"));
}

static void empty_topic_is_one_empty_level(void **state)
{
    (void)state;
    expect("+", TOPICS("", "a"), TOPICS(".", "a.b"));
    assert_false(match("a", ""));
    assert_false(match("a.#", ""));
    assert_true(match("#", ""));
    assert_true(match("*", ""));
}

static void empty_pattern_is_malformed(void **state)
{
    (void)state;
    assert_int_equal(brk_pattern_check("", 0), ZQ_ERR_MALFORMED);
    assert_int_equal(brk_pattern_check(NULL, 0), ZQ_ERR_MALFORMED);
}

static void utf8_patterns_match_utf8_topics(void **state)
{
    (void)state;
#define DROPS "\xd0\xba\xd0\xb0\xd0\xbf\xd0\xbb\xd0\xb8" /* "капли" */
#define RAIN "\xd0\xb4\xd0\xbe\xd0\xb6\xd0\xb4\xd1\x8f"      /* "дождя" */
    expect(DROPS ".+", TOPICS(DROPS "." RAIN), TOPICS(DROPS, RAIN "." DROPS ".x"));
    expect("\xe6\x97\xa5\xe6\x9c\xac*", /* "日本*" */
           TOPICS("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", "\xe6\x97\xa5\xe6\x9c\xac"),
           TOPICS("\xe6\x97\xa5"));
    expect("\xf0\x9f\x8c\xa1.#", TOPICS("\xf0\x9f\x8c\xa1", "\xf0\x9f\x8c\xa1.a.b"), /* "🌡.#" */
           TOPICS("\xf0\x9f\x8c"));
}

static void invalid_utf8_is_malformed(void **state)
{
    (void)state;
    assert_int_equal(check("a.\xc3"), ZQ_ERR_MALFORMED);        /* cut short */
    assert_int_equal(check("\xc0\xae"), ZQ_ERR_MALFORMED);      /* overlong '.' */
    assert_int_equal(check("\xed\xa0\x80"), ZQ_ERR_MALFORMED);  /* a surrogate */
    assert_int_equal(check("\xf4\x90\x80\x80"), ZQ_ERR_MALFORMED); /* above U+10FFFF */
    assert_int_equal(check("\x80.+"), ZQ_ERR_MALFORMED);        /* a lone continuation */
}

static void control_bytes_are_refused(void **state)
{
    (void)state;
    assert_int_equal(brk_pattern_check("a\0b", 3), ZQ_ERR_MALFORMED);
    assert_int_equal(check("a\x1f"), ZQ_ERR_MALFORMED);
    assert_int_equal(check("\x7f"), ZQ_ERR_MALFORMED);
    assert_int_equal(check("a\tb"), ZQ_ERR_MALFORMED);
    assert_int_equal(check("news.\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(check("a b"), ZQ_OK); /* space is a printable byte */
}

static void exact_means_no_wildcard_at_all(void **state)
{
    (void)state;
    static const char *const yes[] = {"news", "a+", "a#", "a*b", "*.a", "a..b", "#b"};
    static const char *const no[] = {"news.+", "news.#", "#", "+", "log*", "*", "a.+.b",
                                     "a.+*"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        assert_true(exact(yes[i]));
    }
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        assert_false(exact(no[i]));
    }
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

static const char alphabet[] = {'.', '+', '#', '*', 'a', 'b'};

static size_t random_string(test_rand_t *r, char *out, size_t max)
{
    size_t len = (size_t)(test_rand_next(r) % (max + 1));
    for (size_t i = 0; i < len; i++) {
        out[i] = alphabet[test_rand_next(r) % sizeof alphabet];
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
static size_t random_topic(test_rand_t *r, const char *p, size_t plen, char *t, size_t max)
{
    uint64_t x = test_rand_next(r);
    if (x % 3 == 0 || plen + 4 > max) {
        return random_string(r, t, max);
    }
    memcpy(t, p, plen);
    size_t at = (size_t)((x >> 8) % (plen + 1));
    char c = alphabet[(x >> 16) % sizeof alphabet];
    switch ((x >> 24) % 4) {
    case 0: /* unchanged */
        return plen;
    case 1: /* a tail */
        return plen + random_string(r, t + plen, 3);
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
    test_rand_t r;
    (void)test_rand(&r, 0x5EED0001);
    tally_t tally = {0, 0};
    for (int i = 0; i < 20000; i++) {
        char p[10], t[16];
        size_t plen = random_string(&r, p, sizeof p);
        size_t tlen = random_topic(&r, p, plen, t, sizeof t);
        compare_one(p, plen, t, tlen, &tally);
    }
    print_message("compared %u, matched %u\n", tally.compared, tally.matched);
    /* Both answers must be common, or the comparison proves little. */
    assert_true(tally.compared > 10000 && tally.matched > 1000);
    assert_true(tally.compared - tally.matched > 1000);
}

/* Every string of length <= n over the alphabet, in turn: index -> string. */
static size_t nth_string(unsigned long index, char *out)
{
    size_t len = 0;
    unsigned long count = 1;
    while (index >= count) {
        index -= count;
        count *= sizeof alphabet;
        len++;
    }
    for (size_t i = 0; i < len; i++) {
        out[i] = alphabet[index % sizeof alphabet];
        index /= sizeof alphabet;
    }
    return len;
}

static void matches_reference_on_every_short_pair(void **state)
{
    (void)state;
    tally_t tally = {0, 0};
    /* Patterns up to 4 bytes (1555), topics up to 3 (259). */
    for (unsigned long pi = 0; pi < 1555; pi++) {
        for (unsigned long ti = 0; ti < 259; ti++) {
            char p[8], t[8];
            size_t plen = nth_string(pi, p);
            size_t tlen = nth_string(ti, t);
            compare_one(p, plen, t, tlen, &tally);
        }
    }
    assert_true(tally.matched > 1000 && tally.compared - tally.matched > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_pattern_matches_only_itself),
        cmocka_unit_test(plus_matches_exactly_one_level),
        cmocka_unit_test(hash_matches_zero_or_more_trailing_levels),
        cmocka_unit_test(lone_hash_matches_every_topic),
        cmocka_unit_test(plus_between_levels_matches_one_level),
        cmocka_unit_test(star_suffix_matches_every_topic_with_that_prefix),
        cmocka_unit_test(lone_star_matches_every_topic),
        cmocka_unit_test(hash_level_not_last_is_malformed),
        cmocka_unit_test(plus_and_hash_inside_a_level_are_plain_bytes),
        cmocka_unit_test(star_not_last_is_a_plain_byte),
        cmocka_unit_test(star_as_its_own_last_level_is_a_prefix_ending_in_a_dot),
        cmocka_unit_test(star_after_plus_or_hash_is_a_plain_prefix),
        cmocka_unit_test(wildcard_levels_combine_with_a_star_prefix),
        cmocka_unit_test(empty_levels_are_levels),
        cmocka_unit_test(empty_topic_is_one_empty_level),
        cmocka_unit_test(empty_pattern_is_malformed),
        cmocka_unit_test(utf8_patterns_match_utf8_topics),
        cmocka_unit_test(invalid_utf8_is_malformed),
        cmocka_unit_test(control_bytes_are_refused),
        cmocka_unit_test(exact_means_no_wildcard_at_all),
        cmocka_unit_test(matches_reference_on_random_pairs),
        cmocka_unit_test(matches_reference_on_every_short_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* libFuzzer target for topic patterns (broker/pattern.h). The input is a pattern, a NUL, and a
 * topic (no NUL: all pattern, empty topic). Any bytes go to brk_pattern_check(); a pattern it
 * accepts must match exactly when a backtracking reference matcher (tests/support/pattern_ref.h,
 * also the unit test's: a different algorithm from the same rules) says so, and an
 * exact pattern must match exactly itself. brk_pattern_problem() has a reason exactly for the
 * patterns the check refuses; brk_topic_problem() takes any bytes. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "broker/pattern.h"
#include "pattern_ref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reference recurses once per topic byte: inputs are kept short enough for any stack. */
#define MAX_INPUT 4096

static void require(bool ok)
{
    if (!ok) {
        abort();
    }
}

static pattern_ref_token_t tokens[PATTERN_REF_TOKENS(MAX_INPUT)];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT) {
        return 0;
    }
    const char *pattern = (const char *)data;
    const uint8_t *nul = memchr(data, 0, size);
    size_t plen = nul != NULL ? (size_t)(nul - data) : size;
    const char *topic = nul != NULL ? (const char *)nul + 1 : "";
    size_t tlen = nul != NULL ? size - plen - 1 : 0;

    bool ok = brk_pattern_check(pattern, plen) == ZQ_OK;
    require(ok == pattern_ref_check(pattern, plen));
    require(ok == (brk_pattern_problem(pattern, plen) == NULL));
    (void)brk_topic_problem(topic, tlen);
    (void)brk_pattern_check(pattern, size); /* with the NUL and topic: refused, never a crash */
    if (!ok) {
        return 0;
    }
    bool got = brk_pattern_match(pattern, plen, topic, tlen);
    require(got == pattern_ref_match(pattern, plen, topic, tlen, tokens));
    require(brk_pattern_match(pattern, plen, pattern, plen)); /* read as a topic, it matches */
    if (brk_pattern_is_exact(pattern, plen)) {
        require(got == (plen == tlen && memcmp(pattern, topic, plen) == 0));
    }
    return 0;
}

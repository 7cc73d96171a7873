/**
 * @file pattern_ref.h
 * @brief A reference for broker/pattern.h, for the unit test's brute force and the fuzz target:
 *        a pattern compiled into tokens and matched by backtracking over bytes, a different
 *        algorithm from the level walk, written from the same rules (PROTOCOL.md §3).
 */
#ifndef ZQ_TEST_PATTERN_REF_H
#define ZQ_TEST_PATTERN_REF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int kind;
    char byte;
} pattern_ref_token_t;

/** Tokens a pattern of @p plen bytes compiles into, at most. */
#define PATTERN_REF_TOKENS(plen) (2 * (plen) + 4)

/** brk_pattern_check()'s rules: non-empty, no C0 or DEL, UTF-8, '+' and '#' only as whole
 *  levels (split at '/' if the pattern has one, else at '.'), '#' only last. */
bool pattern_ref_check(const char *p, size_t plen);
/** Whether pattern @p p matches topic @p t, both split at the pattern's separator (or the
 *  topic's, for a pattern of one level); @p tokens holds PATTERN_REF_TOKENS(plen). It
 *  recurses once per topic byte: keep topics short enough for the stack. */
bool pattern_ref_match(const char *p, size_t plen, const char *t, size_t tlen,
                       pattern_ref_token_t *tokens);

#endif /* ZQ_TEST_PATTERN_REF_H */

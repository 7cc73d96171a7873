/* libFuzzer target for topic patterns (broker/pattern.h). The input is a pattern, a NUL, and a
 * topic (no NUL: all pattern, empty topic). Any bytes go to brk_pattern_check(); a pattern it
 * accepts must match exactly when a backtracking reference matcher (the one of
 * tests/unit/test_brk_pattern.c: a different algorithm from the same rules) says so, and an
 * exact pattern must match exactly itself. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "broker/pattern.h"
#include "zq/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reference recurses once per topic byte: inputs are kept short enough for any stack. */
#define MAX_INPUT 4096

static void require(bool ok)
{
    if (!ok) {
        abort();
    }
}

enum { T_BYTE, T_ONE_LEVEL, T_REST_LEVELS, T_ANYTHING, T_END };

typedef struct {
    int kind;
    char byte;
} token_t;

static token_t tokens[2 * MAX_INPUT + 4];

/* Pattern -> tokens: a level's bytes, "." between levels, "+" as any run of non-dots, a last
 * "#" as "nothing or '.' then anything" (or anything when it is the whole pattern), and a final
 * '*' as anything after the last level's other bytes. */
static size_t compile(const char *p, size_t plen, token_t *out)
{
    size_t n = 0, from = 0;
    bool prefix = plen > 0 && p[plen - 1] == '*';
    for (;;) {
        size_t end = from;
        while (end < plen && p[end] != '.') {
            end++;
        }
        bool last = end == plen;
        bool hash = last && end - from == 1 && p[from] == '#';
        if (from > 0 && !hash) {
            out[n++] = (token_t){T_BYTE, '.'};
        }
        if (last && prefix) {
            for (size_t i = from; i + 1 < end; i++) {
                out[n++] = (token_t){T_BYTE, p[i]};
            }
            out[n++] = (token_t){T_ANYTHING, 0};
        } else if (hash) {
            out[n++] = (token_t){from > 0 ? T_REST_LEVELS : T_ANYTHING, 0};
        } else if (end - from == 1 && p[from] == '+') {
            out[n++] = (token_t){T_ONE_LEVEL, 0};
        } else {
            for (size_t i = from; i < end; i++) {
                out[n++] = (token_t){T_BYTE, p[i]};
            }
        }
        if (last) {
            out[n++] = (token_t){T_END, 0};
            return n;
        }
        from = end + 1;
    }
}

static bool ref_run(const token_t *tk, const char *t, size_t tlen)
{
    switch (tk->kind) {
    case T_END:
        return tlen == 0;
    case T_ANYTHING:
        return true;
    case T_REST_LEVELS:
        return tlen == 0 || t[0] == '.';
    case T_BYTE:
        return tlen > 0 && t[0] == tk->byte && ref_run(tk + 1, t + 1, tlen - 1);
    default: /* T_ONE_LEVEL: only the run that ends at a '.' or the end can go on */
        for (size_t i = 0;; i++) {
            if (ref_run(tk + 1, t + i, tlen - i)) {
                return true;
            }
            if (i == tlen || t[i] == '.') {
                return false;
            }
        }
    }
}

static bool ref_match(const char *p, size_t plen, const char *t, size_t tlen)
{
    compile(p, plen, tokens);
    return ref_run(tokens, t, tlen);
}

/* The reference's brk_pattern_check(): non-empty, no C0/DEL, UTF-8, '#' level only last. */
static bool ref_check(const char *p, size_t plen)
{
    if (plen == 0 || !zq_utf8_valid((const uint8_t *)p, plen)) {
        return false;
    }
    for (size_t i = 0; i < plen; i++) {
        uint8_t b = (uint8_t)p[i];
        bool whole_level = (i == 0 || p[i - 1] == '.') && (i + 1 == plen || p[i + 1] == '.');
        if (b < 0x20 || b == 0x7F || (b == '#' && whole_level && i + 1 != plen)) {
            return false;
        }
    }
    return true;
}

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
    require(ok == ref_check(pattern, plen));
    (void)brk_pattern_check(pattern, size); /* with the NUL and topic: refused, never a crash */
    if (!ok) {
        return 0;
    }
    bool got = brk_pattern_match(pattern, plen, topic, tlen);
    require(got == ref_match(pattern, plen, topic, tlen));
    require(brk_pattern_match(pattern, plen, pattern, plen)); /* read as a topic, it matches */
    if (brk_pattern_is_exact(pattern, plen)) {
        require(got == (plen == tlen && memcmp(pattern, topic, plen) == 0));
    }
    return 0;
}

/* The pattern reference (pattern_ref.h). */
#include "pattern_ref.h"

#include <stdint.h>

#include "zq/utf8.h"

enum { T_BYTE, T_ONE_LEVEL, T_REST_LEVELS, T_ANYTHING, T_END };

typedef pattern_ref_token_t token_t;

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

bool pattern_ref_match(const char *p, size_t plen, const char *t, size_t tlen,
                       pattern_ref_token_t *tokens)
{
    compile(p, plen, tokens);
    return ref_run(tokens, t, tlen);
}

bool pattern_ref_check(const char *p, size_t plen)
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

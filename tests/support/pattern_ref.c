/* The pattern reference (pattern_ref.h). */
#include "pattern_ref.h"

#include <stdint.h>

#include "zq/utf8.h"

enum { T_BYTE, T_ONE_LEVEL, T_REST_LEVELS, T_ANYTHING, T_END };

typedef pattern_ref_token_t token_t;

static bool contains(const char *s, size_t len, char c)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == c) {
            return true;
        }
    }
    return false;
}

/* The byte levels end at: the pattern's '/' or else '.', else the topic's, else '.'. */
static char ref_separator(const char *p, size_t plen, const char *t, size_t tlen)
{
    static const char order[] = {'/', '.'};
    for (int side = 0; side < 2; side++) {
        for (size_t k = 0; k < sizeof order; k++) {
            if (side == 0 ? contains(p, plen, order[k]) : contains(t, tlen, order[k])) {
                return order[k];
            }
        }
    }
    return '.';
}

/* Pattern -> tokens: a level's bytes, the separator between levels, "+" as any run of
 * non-separators, a last "#" as "nothing or a separator then anything" (or anything when it is
 * the whole pattern), and a final '*' as anything after the last level's other bytes. */
static size_t compile(const char *p, size_t plen, char sep, token_t *out)
{
    size_t n = 0, from = 0;
    bool prefix = plen > 0 && p[plen - 1] == '*';
    for (;;) {
        size_t end = from;
        while (end < plen && p[end] != sep) {
            end++;
        }
        bool last = end == plen;
        bool hash = last && end - from == 1 && p[from] == '#';
        if (from > 0 && !hash) {
            out[n++] = (token_t){T_BYTE, sep};
        }
        if (last && prefix) {
            for (size_t i = from; i + 1 < end; i++) {
                out[n++] = (token_t){T_BYTE, p[i]};
            }
            out[n++] = (token_t){T_ANYTHING, 0};
        } else if (hash) {
            out[n++] = (token_t){from > 0 ? T_REST_LEVELS : T_ANYTHING, sep};
        } else if (end - from == 1 && p[from] == '+') {
            out[n++] = (token_t){T_ONE_LEVEL, sep};
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
    case T_REST_LEVELS: /* its byte is the separator */
        return tlen == 0 || t[0] == tk->byte;
    case T_BYTE:
        return tlen > 0 && t[0] == tk->byte && ref_run(tk + 1, t + 1, tlen - 1);
    default: /* T_ONE_LEVEL: only the run that ends at a separator or the end can go on */
        for (size_t i = 0;; i++) {
            if (ref_run(tk + 1, t + i, tlen - i)) {
                return true;
            }
            if (i == tlen || t[i] == tk->byte) {
                return false;
            }
        }
    }
}

bool pattern_ref_match(const char *p, size_t plen, const char *t, size_t tlen,
                       pattern_ref_token_t *tokens)
{
    compile(p, plen, ref_separator(p, plen, t, tlen), tokens);
    return ref_run(tokens, t, tlen);
}

bool pattern_ref_check(const char *p, size_t plen)
{
    if (plen == 0 || !zq_utf8_valid((const uint8_t *)p, plen)) {
        return false;
    }
    char sep = ref_separator(p, plen, "", 0);
    for (size_t i = 0; i < plen; i++) {
        uint8_t b = (uint8_t)p[i];
        bool whole_level = (i == 0 || p[i - 1] == sep) && (i + 1 == plen || p[i + 1] == sep);
        bool wildcard = b == '+' || b == '#';
        if (b < 0x20 || b == 0x7F || (wildcard && !whole_level) || (b == '#' && i + 1 != plen)) {
            return false;
        }
    }
    return true;
}

/* Subject names (protocol doc, "Subject names"): case-sensitive, one or more tokens separated
 * by '.', each non-empty and without whitespace. In a subscription '*' stands for one whole
 * token and '>' for all the remaining ones, so it may only be the last; "wildcard tokens
 * should only be used in a wildcard capacity and not part of a literal token", and a publish
 * names a literal subject. */
#include "stack/nats/nats.h"

static bool literal_char(char ch)
{
    unsigned char u = (unsigned char)ch;
    /* Printable: no space, tab, CR, LF or other control character; no wildcard. */
    return u > 0x20 && u != 0x7F && ch != '*' && ch != '>' && ch != '.';
}

static bool token_valid(const char *t, size_t n, bool wildcards, bool last)
{
    if (n == 1 && (t[0] == '*' || t[0] == '>')) {
        return wildcards && (t[0] == '*' || last);
    }
    for (size_t i = 0; i < n; i++) {
        if (!literal_char(t[i])) {
            return false;
        }
    }
    return n > 0;
}

bool nats_subject_valid(const char *s, bool wildcards)
{
    if (s == NULL) {
        return false;
    }
    /* Bounded: no subject longer than a control line could ever be read back. */
    for (size_t start = 0, i = 0; i <= ZQ_NATS_LINE_MAX; i++) {
        if (s[i] == '.' || s[i] == '\0') {
            bool last = s[i] == '\0';
            if (!token_valid(s + start, i - start, wildcards, last)) {
                return false;
            }
            if (last) {
                return true;
            }
            start = i + 1;
        }
    }
    return false;
}

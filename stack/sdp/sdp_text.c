/* SDP text (RFC 8866 §5): lines of "<type>=<value>", each ended by CRLF, over a blob that is not
 * NUL-terminated. Everything here is a bounded walk over (pointer, length): the line walker
 * never looks further than one maximal line ahead, and field helpers never leave their span.
 *
 *   v=0\r\n                                  <- type 'v', value "0"
 *   a=ice-ufrag:wSZt\r\n                     <- type 'a', value "ice-ufrag:wSZt"
 *   ^ ^\________________/
 *   | |      value: up to CR LF (or a bare LF: RFC 8866 §5 asks parsers to accept it)
 *   | '=' with no space around it
 *   type: one case-significant character
 */
#include <string.h>

#include "stack/sdp/sdp_internal.h"
#include "zq/ascii.h"
#include "zq/text.h"

bool sdp_span_ieq(sdp_span_t s, const char *word)
{
    size_t n = strlen(word);
    if (s.len != n) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (zq_ascii_lower(s.p[i]) != word[i]) {
            return false;
        }
    }
    return true;
}

bool sdp_span_eq(sdp_span_t s, const char *str)
{
    return strlen(str) == s.len && memcmp(s.p, str, s.len) == 0;
}

bool sdp_next_field(sdp_span_t *rest, sdp_span_t *field)
{
    size_t i = 0;
    while (i < rest->len && rest->p[i] == ' ') {
        i++;
    }
    size_t start = i;
    while (i < rest->len && rest->p[i] != ' ') {
        i++;
    }
    field->p = rest->p + start;
    field->len = i - start;
    rest->p += i;
    rest->len -= i;
    return field->len > 0;
}

bool sdp_parse_decimal(sdp_span_t s, uint64_t max, bool saturate, uint64_t *out)
{
    zq_err_t err = zq_parse_udec(s.p, s.len, max, out);
    if (err == ZQ_ERR_TOO_LONG && saturate) {
        *out = max;
        return true;
    }
    return err == ZQ_OK;
}

bool sdp_is_ice_chars(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (!zq_ascii_is_alpha(p[i]) && !zq_ascii_is_digit(p[i]) && p[i] != '+' && p[i] != '/') {
            return false;
        }
    }
    return true;
}

/* RFC 8866 §9: token-char = ALPHA / DIGIT / "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" /
 * "-" / "." / "^" / "_" / "`" / "{" / "|" / "}" / "~" */
bool sdp_is_token(const char *p, size_t len)
{
    static const char extra[] = "!#$%&'*+-.^_`{|}~";
    if (len == 0) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!zq_ascii_is_alpha(p[i]) && !zq_ascii_is_digit(p[i]) && (p[i] == '\0' || strchr(extra, p[i]) == NULL)) {
            return false;
        }
    }
    return true;
}

/* RFC 8839 §5.4: ice-ufrag = 4*256ice-char, ice-pwd = 22*256ice-char. The writer holds itself
 * to the same minimums the reader does: Chromium refuses shorter credentials. */
bool sdp_ufrag_ok(const char *p, size_t len)
{
    return len >= SDP_ICE_UFRAG_MIN && len <= ZQ_ICE_UFRAG_MAX && sdp_is_ice_chars(p, len);
}

bool sdp_pwd_ok(const char *p, size_t len)
{
    return len >= SDP_ICE_PWD_MIN && len <= ZQ_ICE_PWD_MAX && sdp_is_ice_chars(p, len);
}

/* RFC 5888 §4: identification-tag = token. */
bool sdp_mid_ok(const char *p, size_t len)
{
    return len <= ZQ_SDP_MID_MAX && sdp_is_token(p, len);
}

/* RFC 8866 §5: text is UTF-8 or another charset, never a control byte; a CR inside a line (a
 * bare CR, not part of CRLF) is one too. */
static bool has_control_byte(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7F) {
            return true;
        }
    }
    return false;
}

zq_err_t sdp_next_line(sdp_lines_t *it, sdp_span_t *line, const char **reason)
{
    line->p = NULL;
    line->len = 0;
    size_t left = it->len - it->off;
    if (left == 0) {
        return ZQ_OK;
    }
    const char *start = it->text + it->off;
    /* Look no further than the longest line plus its CRLF. */
    size_t window = left < ZQ_SDP_LINE_MAX + 2 ? left : ZQ_SDP_LINE_MAX + 2;
    const char *lf = memchr(start, '\n', window);
    if (lf == NULL && window < left) {
        *reason = "line longer than ZQ_SDP_LINE_MAX";
        return ZQ_ERR_TOO_LONG;
    }
    size_t n = lf != NULL ? (size_t)(lf - start) : window;
    it->off += lf != NULL ? n + 1 : n;
    if (n > 0 && start[n - 1] == '\r') {
        n--;
    }
    if (n > ZQ_SDP_LINE_MAX) {
        *reason = "line longer than ZQ_SDP_LINE_MAX";
        return ZQ_ERR_TOO_LONG;
    }
    if (has_control_byte(start, n)) {
        *reason = "control byte in a line";
        return ZQ_ERR_MALFORMED;
    }
    line->p = start;
    line->len = n;
    return ZQ_OK;
}

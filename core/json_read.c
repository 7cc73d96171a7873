/* JSON reading (RFC 8259): the validator and the span accessors. Every scanner takes [p, end)
 * and returns the end of what it recognised, or NULL; none reads at or past `end`. */
#include <float.h>
#include <string.h>

#include "zq/json.h"
#include "core/json_internal.h"
#include "zq/ascii.h"
#include "zq/utf8.h"
#include "zq/hex.h"

/* ---- Tokens (RFC 8259 §2, §3, §6, §7) ----------------------------------------------------- */

/* §2: ws = *( %x20 / %x09 / %x0A / %x0D ) */
static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && is_ws(*p)) {
        p++;
    }
    return p;
}

static const char *skip_digits(const char *p, const char *end)
{
    while (p < end && zq_ascii_is_digit(*p)) {
        p++;
    }
    return p;
}

/* §3: false / null / true, lowercase only. */
static const char *scan_literal(const char *p, const char *end)
{
    static const char *const words[] = {"true", "false", "null"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(end - p) >= n && memcmp(p, words[i], n) == 0) {
            return p + n;
        }
    }
    return NULL;
}

/* §6: number = [ minus ] int [ frac ] [ exp ]; int = zero / ( digit1-9 *DIGIT );
 *     frac = "." 1*DIGIT; exp = ( "e" / "E" ) [ "-" / "+" ] 1*DIGIT */
static const char *scan_number(const char *p, const char *end)
{
    if (p < end && *p == '-') {
        p++;
    }
    if (p == end || !zq_ascii_is_digit(*p)) {
        return NULL;
    }
    p = *p == '0' ? p + 1 : skip_digits(p, end);
    if (p < end && *p == '.') {
        const char *digits = p + 1;
        p = skip_digits(digits, end);
        if (p == digits) {
            return NULL;
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) {
            p++;
        }
        const char *digits = p;
        p = skip_digits(digits, end);
        if (p == digits) {
            return NULL;
        }
    }
    return p;
}

/* "\uXXXX" at p (p[0] == '\\'): the 16-bit code unit, or -1. */
static long read_u_escape(const char *p, const char *end)
{
    if (end - p < 6 || p[0] != '\\' || p[1] != 'u') {
        return -1;
    }
    long v = 0;
    for (size_t i = 2; i < 6; i++) {
        int h = zq_hex_digit(p[i]);
        if (h < 0) {
            return -1;
        }
        v = v << 4 | h;
    }
    return v;
}

static size_t utf8_encode(uint32_t cp, uint8_t out[4])
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | cp >> 6);
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | cp >> 12);
        out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | cp >> 18);
    out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* §7: a \u escape, or a pair of them forming a surrogate pair; lone surrogates are refused
 * (§8.2), so what comes out is always valid UTF-8. */
static const char *decode_u(const char *p, const char *end, uint8_t out[4], size_t *n)
{
    long hi = read_u_escape(p, end);
    if (hi < 0 || (hi >= 0xDC00 && hi <= 0xDFFF)) {
        return NULL;
    }
    if (hi < 0xD800 || hi > 0xDBFF) {
        *n = utf8_encode((uint32_t)hi, out);
        return p + 6;
    }
    long lo = read_u_escape(p + 6, end);
    if (lo < 0xDC00 || lo > 0xDFFF) {
        return NULL;
    }
    *n = utf8_encode(0x10000u + ((uint32_t)(hi - 0xD800) << 10 | (uint32_t)(lo - 0xDC00)), out);
    return p + 12;
}

/* §7: the escape at p (p[0] == '\\') as UTF-8 bytes. */
static const char *decode_escape(const char *p, const char *end, uint8_t out[4], size_t *n)
{
    static const char from[] = "\"\\/bfnrt";
    static const char to[] = "\"\\/\b\f\n\r\t";
    if (end - p < 2) {
        return NULL;
    }
    if (p[1] == 'u') {
        return decode_u(p, end, out, n);
    }
    for (size_t i = 0; i < sizeof from - 1; i++) {
        if (p[1] == from[i]) {
            out[0] = (uint8_t)to[i];
            *n = 1;
            return p + 2;
        }
    }
    return NULL;
}

/* One character of a string body at p (p < end): its unescaped UTF-8 bytes in out[0..*n).
 * Raw bytes pass through; a control character, an unescaped '"' or invalid UTF-8 fails. */
static const char *next_char(const char *p, const char *end, uint8_t out[4], size_t *n)
{
    uint8_t c = (uint8_t)*p;
    if (c == '\\') {
        return decode_escape(p, end, out, n);
    }
    if (c < 0x20 || c == '"') {
        return NULL;
    }
    size_t len = c < 0x80 ? 1 : zq_utf8_sequence((const uint8_t *)p, (size_t)(end - p));
    if (len == 0) {
        return NULL;
    }
    memcpy(out, p, len);
    *n = len;
    return p + len;
}

/* Printable ASCII other than the quote and the backslash: a byte that stands for itself in a
 * string, as nearly every byte of the frames zq reads does, so the loops below step over it
 * without decoding. */
static bool is_plain(char c)
{
    uint8_t b = (uint8_t)c;
    return b >= 0x20 && b < 0x80 && b != '"' && b != '\\';
}

/* §7: a whole string at p (p[0] == '"'), validated; returns just past the closing quote. */
static const char *scan_string(const char *p, const char *end)
{
    if (p == end || *p != '"') {
        return NULL;
    }
    p++;
    while (p < end && *p != '"') {
        if (is_plain(*p)) {
            p++;
            continue;
        }
        uint8_t buf[4];
        size_t n;
        p = next_char(p, end, buf, &n);
        if (p == NULL) {
            return NULL;
        }
    }
    return p < end ? p + 1 : NULL;
}

static const char *scan_scalar(const char *p, const char *end)
{
    if (p == end) {
        return NULL;
    }
    if (*p == '"') {
        return scan_string(p, end);
    }
    if (*p == '-' || zq_ascii_is_digit(*p)) {
        return scan_number(p, end);
    }
    return scan_literal(p, end);
}

/* ---- The validator (§2: JSON-text = ws value ws) ------------------------------------------ */

typedef struct {
    const char *p;
    const char *end;
    unsigned depth;                   /* open containers */
    uint32_t objects[JSON_NEST_WORDS]; /* bit depth-1: the container at that level is an object */
    bool want_value;                  /* a value must come next (else: after a value) */
} parser_t;

static bool top_is_object(const parser_t *ps)
{
    unsigned i = ps->depth - 1;
    return (ps->objects[i / 32] >> (i % 32) & 1u) != 0;
}

/* §4: member = string name-separator value. Leaves p at the value. */
static zq_err_t take_key(parser_t *ps)
{
    const char *p = scan_string(skip_ws(ps->p, ps->end), ps->end);
    if (p == NULL) {
        return ZQ_ERR_MALFORMED;
    }
    p = skip_ws(p, ps->end);
    if (p == ps->end || *p != ':') {
        return ZQ_ERR_MALFORMED;
    }
    ps->p = p + 1;
    return ZQ_OK;
}

/* '{' or '[' at p: push a level; an empty container closes at once. */
static zq_err_t open_container(parser_t *ps)
{
    bool object = *ps->p == '{';
    if (ps->depth == ZQ_JSON_MAX_DEPTH) {
        return ZQ_ERR_TOO_LONG;
    }
    unsigned i = ps->depth++;
    uint32_t bit = 1u << (i % 32);
    ps->objects[i / 32] = object ? ps->objects[i / 32] | bit : ps->objects[i / 32] & ~bit;
    const char *p = skip_ws(ps->p + 1, ps->end);
    if (p < ps->end && *p == (object ? '}' : ']')) {
        ps->depth--;
        ps->p = p + 1;
        ps->want_value = false;
        return ZQ_OK;
    }
    ps->p = p;
    ps->want_value = true;
    return object ? take_key(ps) : ZQ_OK;
}

static zq_err_t take_value(parser_t *ps)
{
    ps->p = skip_ws(ps->p, ps->end);
    if (ps->p < ps->end && (*ps->p == '{' || *ps->p == '[')) {
        return open_container(ps);
    }
    ps->p = scan_scalar(ps->p, ps->end);
    ps->want_value = false;
    return ps->p != NULL ? ZQ_OK : ZQ_ERR_MALFORMED;
}

/* After a value inside a container: a ',' and the next member, or the closing bracket. */
static zq_err_t after_value(parser_t *ps)
{
    const char *p = skip_ws(ps->p, ps->end);
    if (p == ps->end) {
        return ZQ_ERR_MALFORMED;
    }
    bool object = top_is_object(ps);
    if (*p == ',') {
        ps->p = p + 1;
        ps->want_value = true;
        return object ? take_key(ps) : ZQ_OK;
    }
    if (*p != (object ? '}' : ']')) {
        return ZQ_ERR_MALFORMED;
    }
    ps->depth--;
    ps->p = p + 1;
    return ZQ_OK;
}

zq_err_t json_parse(const char *text, size_t len, json_value_t *out)
{
    if (text == NULL || out == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    parser_t ps = {.p = text, .end = text + len, .want_value = true};
    ps.p = skip_ws(ps.p, ps.end);
    const char *start = ps.p;
    zq_err_t err = ZQ_OK;
    do {
        err = ps.want_value ? take_value(&ps) : after_value(&ps);
    } while (err == ZQ_OK && (ps.want_value || ps.depth > 0));
    if (err != ZQ_OK) {
        return err;
    }
    if (skip_ws(ps.p, ps.end) != ps.end) {
        return ZQ_ERR_MALFORMED; /* §2: exactly one value */
    }
    out->p = start;
    out->len = (size_t)(ps.p - start);
    return ZQ_OK;
}

/* ---- Walking spans ------------------------------------------------------------------------ */

json_type_t json_type(json_value_t v)
{
    if (v.p == NULL || v.len == 0) {
        return JSON_INVALID;
    }
    switch (v.p[0]) {
    case 'n':
        return JSON_NULL;
    case 'f':
        return JSON_FALSE;
    case 't':
        return JSON_TRUE;
    case '"':
        return JSON_STRING;
    case '[':
        return JSON_ARRAY;
    case '{':
        return JSON_OBJECT;
    default:
        return v.p[0] == '-' || zq_ascii_is_digit(v.p[0]) ? JSON_NUMBER : JSON_INVALID;
    }
}

/* A container at p, found by counting brackets outside strings: the document was validated,
 * so no stack is needed; on garbage the count is merely wrong, never out of bounds. */
static const char *skip_container(const char *p, const char *end)
{
    size_t depth = 0;
    while (p < end) {
        if (*p == '"') {
            p = scan_string(p, end);
            if (p == NULL) {
                return NULL;
            }
            continue;
        }
        if (*p == '{' || *p == '[') {
            depth++;
        } else if ((*p == '}' || *p == ']') && --depth == 0) {
            return p + 1;
        }
        p++;
    }
    return NULL;
}

static const char *skip_value(const char *p, const char *end)
{
    if (p < end && (*p == '{' || *p == '[')) {
        return skip_container(p, end);
    }
    return scan_scalar(p, end);
}

void json_iter_init(json_iter_t *it, json_value_t container)
{
    json_type_t t = json_type(container);
    it->object = t == JSON_OBJECT;
    it->done = !(t == JSON_OBJECT || t == JSON_ARRAY) || container.len < 2;
    it->p = it->done ? NULL : container.p + 1;
    it->end = it->done ? NULL : container.p + container.len - 1;
}

/* An object member's name and ':' at it->p; leaves it->p at the value. */
static bool iter_key(json_iter_t *it, json_value_t *key)
{
    const char *k = it->p;
    const char *k_end = scan_string(k, it->end);
    if (k_end == NULL) {
        return false;
    }
    const char *p = skip_ws(k_end, it->end);
    if (p == it->end || *p != ':') {
        return false;
    }
    if (key != NULL) {
        key->p = k;
        key->len = (size_t)(k_end - k);
    }
    it->p = skip_ws(p + 1, it->end);
    return true;
}

bool json_iter_next(json_iter_t *it, json_value_t *key, json_value_t *value)
{
    if (it->done) {
        return false;
    }
    const char *p = skip_ws(it->p, it->end);
    if (p < it->end && *p == ',') {
        p = skip_ws(p + 1, it->end);
    }
    it->p = p;
    if (!it->object && key != NULL) {
        *key = (json_value_t){NULL, 0};
    }
    it->done = p >= it->end || (it->object && !iter_key(it, key));
    const char *v = it->p;
    const char *v_end = it->done ? NULL : skip_value(v, it->end);
    if (v_end == NULL) {
        it->done = true;
        return false;
    }
    value->p = v;
    value->len = (size_t)(v_end - v);
    it->p = v_end;
    return true;
}

zq_err_t json_object_get(json_value_t obj, const char *key, json_value_t *out)
{
    if (json_type(obj) != JSON_OBJECT || key == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    json_iter_t it;
    json_iter_init(&it, obj);
    json_value_t k, v;
    while (json_iter_next(&it, &k, &v)) {
        if (json_string_equals(k, key)) {
            *out = v;
            return ZQ_OK;
        }
    }
    return ZQ_ERR_NOT_FOUND;
}

/* Which of keys[0..n) the member name k is, among those not yet found; n if none. */
static size_t pick_index(json_value_t k, const char *const *keys, size_t n,
                         const json_value_t *out)
{
    for (size_t i = 0; i < n; i++) {
        if (out[i].p == NULL && json_string_equals(k, keys[i])) {
            return i;
        }
    }
    return n;
}

zq_err_t json_object_pick(json_value_t obj, const char *const *keys, size_t n,
                          json_value_t *out)
{
    for (size_t i = 0; i < n; i++) {
        out[i] = (json_value_t){NULL, 0};
    }
    if (json_type(obj) != JSON_OBJECT) {
        return ZQ_ERR_INVALID_ARG;
    }
    json_iter_t it;
    json_iter_init(&it, obj);
    json_value_t k, v;
    while (json_iter_next(&it, &k, &v)) {
        size_t i = pick_index(k, keys, n, out);
        if (i < n) {
            out[i] = v;
        }
    }
    return ZQ_OK;
}

/* ---- Strings ------------------------------------------------------------------------------ */

/* The body of a string span, between its quotes. */
static bool string_body(json_value_t v, const char **p, const char **end)
{
    if (json_type(v) != JSON_STRING || v.len < 2 || v.p[v.len - 1] != '"') {
        return false;
    }
    *p = v.p + 1;
    *end = v.p + v.len - 1;
    return true;
}

zq_err_t json_get_string(json_value_t v, char *out, size_t cap, size_t *len)
{
    const char *p, *end;
    if (!string_body(v, &p, &end) || (out == NULL && cap > 0)) {
        return ZQ_ERR_INVALID_ARG;
    }
    size_t n = 0;
    while (p < end) {
        uint8_t buf[4];
        size_t k;
        p = next_char(p, end, buf, &k);
        if (p == NULL) {
            return ZQ_ERR_MALFORMED;
        }
        if (n + k < cap) {
            memcpy(out + n, buf, k);
        }
        n += k;
    }
    if (len != NULL) {
        *len = n;
    }
    if (n >= cap) {
        if (cap > 0) {
            out[0] = '\0';
        }
        return ZQ_ERR_NO_SPACE;
    }
    out[n] = '\0';
    return ZQ_OK;
}

bool json_string_equals_n(json_value_t v, const char *s, size_t n)
{
    const char *p, *end;
    if (!string_body(v, &p, &end) || (s == NULL && n > 0)) {
        return false;
    }
    size_t off = 0;
    while (p < end) {
        if (is_plain(*p)) {
            if (off == n || *p != s[off]) {
                return false;
            }
            p++;
            off++;
            continue;
        }
        uint8_t buf[4];
        size_t k;
        p = next_char(p, end, buf, &k);
        if (p == NULL || k > n - off || memcmp(buf, s + off, k) != 0) {
            return false;
        }
        off += k;
    }
    return off == n;
}

bool json_string_equals(json_value_t v, const char *s)
{
    return s != NULL && json_string_equals_n(v, s, strlen(s));
}

bool json_get_bool(json_value_t v, bool *out)
{
    json_type_t t = json_type(v);
    bool ok = (t == JSON_TRUE && v.len == 4 && memcmp(v.p, "true", 4) == 0) ||
              (t == JSON_FALSE && v.len == 5 && memcmp(v.p, "false", 5) == 0);
    if (ok && out != NULL) {
        *out = t == JSON_TRUE;
    }
    return ok;
}

/* ---- Numbers ------------------------------------------------------------------------------ */

/* A number split by §6's grammar. Its value is digits × 10^(exp - frac_len), where digits is
 * the integer part followed by the fraction part. */
typedef struct {
    bool neg;
    const char *digits; /* int digits, then '.', then frac digits (the '.' is skipped) */
    size_t int_len;
    size_t frac_len;
    int64_t exp; /* clamped to ±EXP_CLAMP: any larger exponent already over/underflows */
} number_t;

#define EXP_CLAMP 1000000000

static bool split_number(json_value_t v, number_t *n)
{
    if (json_type(v) != JSON_NUMBER || scan_number(v.p, v.p + v.len) != v.p + v.len) {
        return false;
    }
    const char *p = v.p, *end = v.p + v.len;
    n->neg = *p == '-';
    p += n->neg;
    n->digits = p;
    n->int_len = (size_t)(skip_digits(p, end) - p);
    p += n->int_len;
    n->frac_len = 0;
    if (p < end && *p == '.') {
        n->frac_len = (size_t)(skip_digits(p + 1, end) - (p + 1));
        p += 1 + n->frac_len;
    }
    n->exp = 0;
    if (p < end) {
        bool neg_exp = p[1] == '-';
        for (p += 1 + (p[1] == '-' || p[1] == '+'); p < end; p++) {
            n->exp = n->exp < EXP_CLAMP ? n->exp * 10 + (*p - '0') : EXP_CLAMP;
        }
        n->exp = neg_exp ? -n->exp : n->exp;
    }
    return true;
}

/* Digit i of the combined integer+fraction digit string. */
static unsigned digit_at(const number_t *n, size_t i)
{
    char c = i < n->int_len ? n->digits[i] : n->digits[i + 1];
    return (unsigned)(c - '0');
}

/* The first and last non-zero digits; false if the number is zero. */
static bool significant_range(const number_t *n, size_t *first, size_t *last)
{
    size_t total = n->int_len + n->frac_len;
    size_t f = 0;
    while (f < total && digit_at(n, f) == 0) {
        f++;
    }
    if (f == total) {
        return false;
    }
    size_t l = total - 1;
    while (digit_at(n, l) == 0) {
        l--;
    }
    *first = f;
    *last = l;
    return true;
}

static bool mul10_add(uint64_t *acc, unsigned d)
{
    if (*acc > (UINT64_MAX - d) / 10) {
        return false;
    }
    *acc = *acc * 10 + d;
    return true;
}

zq_err_t json_get_int64(json_value_t v, int64_t *out)
{
    number_t n;
    size_t first, last;
    if (!split_number(v, &n)) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (!significant_range(&n, &first, &last)) {
        *out = 0;
        return ZQ_OK;
    }
    /* value = digits[first..last] × 10^scale */
    int64_t total = (int64_t)(n.int_len + n.frac_len);
    int64_t scale = n.exp - (int64_t)n.frac_len + (total - 1 - (int64_t)last);
    if (scale < 0) {
        return ZQ_ERR_INVALID_ARG; /* a fraction remains */
    }
    if ((int64_t)(last - first + 1) + scale > 19) {
        return ZQ_ERR_TOO_LONG; /* 20 digits exceed 2^63 */
    }
    uint64_t mag = 0;
    for (size_t i = first; i <= last; i++) {
        (void)mul10_add(&mag, digit_at(&n, i)); /* at most 19 digits: cannot overflow */
    }
    for (int64_t i = 0; i < scale; i++) {
        if (!mul10_add(&mag, 0)) {
            return ZQ_ERR_TOO_LONG;
        }
    }
    uint64_t limit = n.neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (mag > limit) {
        return ZQ_ERR_TOO_LONG;
    }
    /* -(2^63) has no positive int64_t counterpart: spelled out, not converted. */
    *out = !n.neg ? (int64_t)mag : mag > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)mag;
    return ZQ_OK;
}

/* The halfway point between DBL_MAX and 2^1024, 2^1024 - 2^970 = 1.7976931348623158079372...e308:
 * a decimal literal from there up is Infinity to JavaScript (ECMA-262 §6.1.6.1: round to
 * nearest, ties to even, and DBL_MAX's significand is odd), below it DBL_MAX. Its first 40 of
 * 309 digits: a literal that agrees with them (within 1e-39 of the point) counts as Infinity. */
static const char infinity_from[] = "1797693134862315807937289714053034150799";

/* digits[first..] read as 309 integer digits: at or above infinity_from? */
static bool at_least_infinity(const number_t *n, size_t first, size_t last)
{
    for (size_t k = 0; infinity_from[k] != '\0'; k++) {
        unsigned d = first + k <= last ? digit_at(n, first + k) : 0;
        unsigned ref = (unsigned)(infinity_from[k] - '0');
        if (d != ref) {
            return d > ref;
        }
    }
    return true;
}

zq_err_t json_get_count(json_value_t v, uint32_t *out)
{
    number_t n;
    size_t first, last;
    if (!split_number(v, &n)) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (!significant_range(&n, &first, &last)) {
        *out = 0; /* 0 and -0 */
        return ZQ_OK;
    }
    if (n.neg) {
        return ZQ_ERR_INVALID_ARG;
    }
    /* 10^(int_digits - 1) <= value < 10^int_digits */
    int64_t total = (int64_t)(n.int_len + n.frac_len);
    int64_t int_digits = n.exp - (int64_t)n.frac_len + (total - (int64_t)first);
    if (int_digits > 309 || (int_digits == 309 && at_least_infinity(&n, first, last))) {
        return ZQ_ERR_TOO_LONG;
    }
    if (int_digits > 10) {
        *out = UINT32_MAX;
        return ZQ_OK;
    }
    uint64_t whole = 0; /* at most 10 digits: no overflow */
    for (int64_t k = 0; k < int_digits; k++) {
        whole = whole * 10 + (first + (size_t)k <= last ? digit_at(&n, first + (size_t)k) : 0);
    }
    *out = whole > UINT32_MAX ? UINT32_MAX : (uint32_t)whole;
    return ZQ_OK;
}

/* 10^0 .. 10^22 are exact doubles (5^22 < 2^53). */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

double json_scale10(double x, int e10)
{
    while (e10 > 22) {
        x *= 1e22;
        e10 -= 22;
    }
    while (e10 < -22) {
        x /= 1e22;
        e10 += 22;
    }
    return e10 >= 0 ? x * pow10_exact[e10] : x / pow10_exact[-e10];
}

zq_err_t json_get_double(json_value_t v, double *out)
{
    number_t n;
    size_t first, last;
    if (!split_number(v, &n)) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (!significant_range(&n, &first, &last)) {
        *out = n.neg ? -0.0 : 0.0;
        return ZQ_OK;
    }
    /* Up to 19 significant digits exactly in an integer, the next one rounds. */
    uint64_t m = 0;
    size_t i = first;
    for (; i <= last && i < first + 19; i++) {
        m = m * 10 + digit_at(&n, i);
    }
    if (i <= last && digit_at(&n, i) >= 5) {
        m++;
    }
    int64_t total = (int64_t)(n.int_len + n.frac_len);
    int64_t e10 = n.exp - (int64_t)n.frac_len + (total - (int64_t)i);
    int64_t magnitude = e10 + (int64_t)(i - first); /* value < 10^magnitude */
    if (magnitude > 310) {
        return ZQ_ERR_TOO_LONG;
    }
    double x = magnitude < -330 ? 0.0 : json_scale10((double)m, (int)e10);
    if (x > DBL_MAX) {
        return ZQ_ERR_TOO_LONG;
    }
    *out = n.neg ? -x : x;
    return ZQ_OK;
}

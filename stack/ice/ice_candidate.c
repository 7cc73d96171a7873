/* ICE candidates as SDP text (RFC 8839 §5.1) and their priorities (RFC 8445 §5.1.2).
 *
 *   candidate-attribute = "candidate" ":" foundation SP component-id SP transport SP
 *                         priority SP connection-address SP port SP cand-type
 *                         [SP rel-addr] [SP rel-port] *(SP cand-extension)
 *
 *   candidate:3125151278 1 udp 2122260223 192.0.2.1 45606 typ host generation 0
 *             \________/ | \_/ \________/ \_______/ \___/ \______/ \__________/
 *             foundation |  |   priority   address  port    type    extensions
 *                component  transport
 *
 * The line comes straight out of an SDP blob or a signaling message and is not NUL-terminated,
 * so the parser is a bounded tokenizer over (pointer, length). A line is judged whole: a
 * malformed field anywhere makes it ZQ_ERR_MALFORMED, even in a candidate zq would skip anyway,
 * and only a well-formed line zq cannot use (TCP, a hostname, component 2, an unknown type)
 * is ZQ_ERR_UNSUPPORTED.
 */
#include <string.h>

#include "stack/ice/ice.h"
#include "zq/ascii.h"
#include "zq/bytes.h"
#include "zq/text.h"

/* RFC 8445 §5.1.2.2: recommended type preferences. */
#define TYPE_PREF_HOST 126u
#define TYPE_PREF_PRFLX 110u
#define TYPE_PREF_SRFLX 100u
#define TYPE_PREF_RELAY 0u

/* RFC 1035 §2.3.4: a label has at most 63 octets, a name at most 253 characters of text. */
#define HOSTNAME_LABEL_MAX 63
#define HOSTNAME_MAX 253

/* One space-separated field of the line. */
typedef struct {
    const char *p;
    size_t len;
} cand_token_t;

/* A bounded cursor over the line; copy it to look ahead. */
typedef struct {
    const char *p;
    size_t len;
    size_t off;
} cand_lexer_t;

/* ---- Small text helpers ------------------------------------------------------------------- */

/* ABNF literals are case-insensitive (RFC 5234 §2.3): "typ", "UDP", "host", "raddr"... */
static bool token_is(const cand_token_t *t, const char *word)
{
    size_t n = strlen(word);
    if (t->len != n) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (zq_ascii_lower(t->p[i]) != word[i]) {
            return false;
        }
    }
    return true;
}

/* 1*max_digits DIGIT with a value <= max: the grammar caps the digits, leading zeros
 * included, before the value. */
static bool parse_decimal(const cand_token_t *t, size_t max_digits, uint32_t max, uint32_t *out)
{
    uint64_t v;
    if (t->len > max_digits || zq_parse_udec(t->p, t->len, max, &v) != ZQ_OK) {
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* ---- The tokenizer ------------------------------------------------------------------------ */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Drops surrounding whitespace and the line's CRLF (RFC 4566 §5: SDP lines end in CRLF). */
static void trim(const char **p, size_t *len)
{
    while (*len > 0 && is_blank((*p)[0])) {
        (*p)++;
        (*len)--;
    }
    while (*len > 0 && is_blank((*p)[*len - 1])) {
        (*len)--;
    }
}

/* Case-insensitively strips @p prefix from the front of the line; false if it is not there. */
static bool strip_prefix(const char **p, size_t *len, const char *prefix)
{
    cand_token_t head = {*p, strlen(prefix)};
    if (*len < head.len || !token_is(&head, prefix)) {
        return false;
    }
    *p += head.len;
    *len -= head.len;
    return true;
}

/* Accepts "a=candidate:<value>", "candidate:<value>" and the bare value. RFC 4566 §5: the
 * type letter "a" is case-significant; the attribute name is an ABNF literal. */
static zq_err_t lexer_start(cand_lexer_t *lx, const char *line, size_t len)
{
    trim(&line, &len);
    bool has_a = len >= 2 && line[0] == 'a' && line[1] == '=';
    if (has_a) {
        line += 2;
        len -= 2;
    }
    if (!strip_prefix(&line, &len, "candidate:") && has_a) {
        return ZQ_ERR_MALFORMED; /* another attribute */
    }
    /* Only one line: no byte-string in RFC 8839 may hold NUL, CR or LF. */
    if (memchr(line, '\0', len) != NULL || memchr(line, '\r', len) != NULL ||
        memchr(line, '\n', len) != NULL) {
        return ZQ_ERR_MALFORMED;
    }
    lx->p = line;
    lx->len = len;
    lx->off = 0;
    return ZQ_OK;
}

/* The next field. RFC 8839 separates fields by one SP; a run of them is tolerated. */
static bool next_token(cand_lexer_t *lx, cand_token_t *t)
{
    while (lx->off < lx->len && lx->p[lx->off] == ' ') {
        lx->off++;
    }
    size_t start = lx->off;
    while (lx->off < lx->len && lx->p[lx->off] != ' ') {
        lx->off++;
    }
    t->p = lx->p + start;
    t->len = lx->off - start;
    return t->len > 0;
}

/* ---- Fields ------------------------------------------------------------------------------- */

/* Keeps the first failure, but a malformed field outranks an unsupported one: the caller
 * may skip an unsupported candidate silently, never a broken line. */
static zq_err_t merge(zq_err_t verdict, zq_err_t err)
{
    if (verdict == ZQ_ERR_MALFORMED || err == ZQ_ERR_MALFORMED) {
        return ZQ_ERR_MALFORMED;
    }
    return verdict != ZQ_OK ? verdict : err;
}

/* RFC 8839 §5.1: ice-char = ALPHA / DIGIT / "+" / "/". */
static bool is_ice_char(char c)
{
    return zq_ascii_is_alpha(c) || zq_ascii_is_digit(c) || c == '+' || c == '/';
}

/* foundation = 1*32 ice-char */
static zq_err_t parse_foundation(const cand_token_t *t, char out[ZQ_ICE_FOUNDATION_MAX + 1])
{
    if (t->len > ZQ_ICE_FOUNDATION_MAX) {
        return ZQ_ERR_MALFORMED;
    }
    for (size_t i = 0; i < t->len; i++) {
        if (!is_ice_char(t->p[i])) {
            return ZQ_ERR_MALFORMED;
        }
    }
    memcpy(out, t->p, t->len);
    out[t->len] = '\0';
    return ZQ_OK;
}

/* component-id = 1*3 DIGIT, 1..256 (RFC 8445 §5.1.1.1). zq has one component: with BUNDLE
 * and rtcp-mux a data channel never needs a second. */
static zq_err_t parse_component(const cand_token_t *t, uint8_t *out)
{
    uint32_t v;
    if (!parse_decimal(t, 3, 256, &v) || v == 0) {
        return ZQ_ERR_MALFORMED;
    }
    *out = 1;
    return v == 1 ? ZQ_OK : ZQ_ERR_UNSUPPORTED;
}

/* RFC 4566 §9: token-char = %x21 / %x23-27 / %x2A-2B / %x2D-2E / %x30-39 / %x41-5A /
 * %x5E-7E; an unknown transport or candidate type must still be a token. */
static bool is_token(const cand_token_t *t)
{
    for (size_t i = 0; i < t->len; i++) {
        unsigned char c = (unsigned char)t->p[i];
        if (c < 0x21 || c > 0x7E || c == 0x22 || c == 0x28 || c == 0x29 || c == 0x2C || c == 0x2F ||
            (c >= 0x3A && c <= 0x40) || c == 0x5B || c == 0x5C || c == 0x5D) {
            return false;
        }
    }
    return true;
}

/* transport = "UDP" / transport-extension. TCP candidates (RFC 6544) are well-formed but not
 * for zq. */
static zq_err_t parse_transport(const cand_token_t *t)
{
    if (token_is(t, "udp")) {
        return ZQ_OK;
    }
    return is_token(t) ? ZQ_ERR_UNSUPPORTED : ZQ_ERR_MALFORMED;
}

/* RFC 1123 §2.1 host name: LDH labels of 1..63 characters, no hyphen at either end. */
static bool is_hostname(const cand_token_t *t)
{
    size_t len = t->len;
    if (len > 0 && t->p[len - 1] == '.') {
        len--; /* a fully qualified "example.com." */
    }
    if (len == 0 || len > HOSTNAME_MAX) {
        return false;
    }
    size_t label = 0;
    for (size_t i = 0; i < len; i++) {
        char c = t->p[i];
        if (c == '.') {
            if (label == 0 || t->p[i - 1] == '-') {
                return false;
            }
            label = 0;
        } else if (zq_ascii_is_alpha(c) || zq_ascii_is_digit(c) || (c == '-' && label > 0)) {
            if (++label > HOSTNAME_LABEL_MAX) {
                return false;
            }
        } else {
            return false;
        }
    }
    return label > 0 && t->p[len - 1] != '-';
}

/* RFC 1123 §2.1: a host name never ends in a numeric label, so "999.1.1.1" is a bad IPv4
 * address, not a name; anything with a ':' is IPv6. */
static bool looks_like_ip(const cand_token_t *t)
{
    if (memchr(t->p, ':', t->len) != NULL) {
        return true;
    }
    size_t len = t->len;
    if (len > 0 && t->p[len - 1] == '.') {
        len--; /* "192.0.2.1." is no name either */
    }
    size_t i = len;
    while (i > 0 && zq_ascii_is_digit(t->p[i - 1])) {
        i--;
    }
    return i < len && (i == 0 || t->p[i - 1] == '.');
}

/* connection-address = an IP address or an FQDN (RFC 8839 §5.1). A name, above all the mDNS
 * "<uuid>.local" name a browser uses to hide its host address (draft-ietf-mmusic-mdns-ice-
 * candidates §3.1), would need a resolver zq does not have. */
static zq_err_t parse_address(const cand_token_t *t, zq_addr_t *out)
{
    if (looks_like_ip(t)) {
        return zq_addr_parse_ip(t->p, t->len, out) == ZQ_OK ? ZQ_OK : ZQ_ERR_MALFORMED;
    }
    return is_hostname(t) ? ZQ_ERR_UNSUPPORTED : ZQ_ERR_MALFORMED;
}

/* priority = 1*10 DIGIT; RFC 8445 §5.1.2 keeps it within 32 bits. */
static zq_err_t parse_priority(const cand_token_t *t, uint32_t *out)
{
    return parse_decimal(t, 10, UINT32_MAX, out) ? ZQ_OK : ZQ_ERR_MALFORMED;
}

static zq_err_t parse_port(const cand_token_t *t, uint16_t *out)
{
    return zq_parse_port(t->p, t->len, out);
}

/* cand-type = "typ" SP candidate-types; an unknown type is a token-valued extension. */
static zq_err_t parse_type(const cand_token_t *typ, const cand_token_t *t, ice_cand_type_t *out)
{
    static const ice_cand_type_t types[] = {ICE_CAND_HOST, ICE_CAND_SRFLX, ICE_CAND_PRFLX,
                                            ICE_CAND_RELAY};
    if (!token_is(typ, "typ")) {
        return ZQ_ERR_MALFORMED;
    }
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (token_is(t, ice_cand_type_name(types[i]))) {
            *out = types[i];
            return ZQ_OK;
        }
    }
    return is_token(t) ? ZQ_ERR_UNSUPPORTED : ZQ_ERR_MALFORMED;
}

/* rel-addr SP rel-port, after "raddr" was read. The two come as a pair: zq keeps them as one
 * transport address. A related host name is dropped rather than rejected: related addresses
 * only serve diagnostics (RFC 8839 §5.1), and the candidate itself is usable. */
static zq_err_t parse_related(cand_lexer_t *lx, zq_addr_t *out)
{
    cand_token_t addr;
    cand_token_t rport;
    cand_token_t port;
    if (!next_token(lx, &addr) || !next_token(lx, &rport) || !token_is(&rport, "rport") ||
        !next_token(lx, &port)) {
        return ZQ_ERR_MALFORMED;
    }
    uint16_t port_value = 0;
    zq_addr_t related = {0};
    zq_err_t err = merge(parse_port(&port, &port_value), parse_address(&addr, &related));
    if (err == ZQ_OK) {
        related.port = port_value;
        *out = related;
    }
    return err == ZQ_ERR_UNSUPPORTED ? ZQ_OK : err;
}

/* [SP rel-addr SP rel-port] *(SP extension-att-name SP extension-att-value). Extensions
 * (generation, ufrag, network-id, network-cost, tcptype...) are read and ignored. */
static zq_err_t parse_tail(cand_lexer_t *lx, zq_addr_t *related)
{
    cand_lexer_t look = *lx;
    cand_token_t name;
    cand_token_t value;
    if (next_token(&look, &name) && token_is(&name, "raddr")) {
        *lx = look;
        zq_err_t err = parse_related(lx, related);
        if (err != ZQ_OK) {
            return err;
        }
    }
    while (next_token(lx, &name)) {
        if (!next_token(lx, &value)) {
            return ZQ_ERR_MALFORMED; /* a name without its value */
        }
    }
    return ZQ_OK;
}

/* ---- API ---------------------------------------------------------------------------------- */

/* The eight mandatory fields, from foundation to the type. */
enum {
    F_FOUNDATION,
    F_COMPONENT,
    F_TRANSPORT,
    F_PRIORITY,
    F_ADDRESS,
    F_PORT,
    F_TYP,
    F_TYPE,
    F_COUNT
};

static zq_err_t parse_fields(const cand_token_t f[F_COUNT], ice_candidate_t *c)
{
    zq_err_t v = parse_foundation(&f[F_FOUNDATION], c->foundation);
    v = merge(v, parse_component(&f[F_COMPONENT], &c->component));
    v = merge(v, parse_transport(&f[F_TRANSPORT]));
    v = merge(v, parse_priority(&f[F_PRIORITY], &c->priority));
    v = merge(v, parse_address(&f[F_ADDRESS], &c->addr));
    v = merge(v, parse_port(&f[F_PORT], &c->addr.port));
    return merge(v, parse_type(&f[F_TYP], &f[F_TYPE], &c->type));
}

zq_err_t ice_candidate_parse(const char *line, size_t len, ice_candidate_t *out)
{
    if (line == NULL || out == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    cand_lexer_t lx;
    zq_err_t err = lexer_start(&lx, line, len);
    if (err != ZQ_OK) {
        return err;
    }
    cand_token_t fields[F_COUNT];
    for (size_t i = 0; i < F_COUNT; i++) {
        if (!next_token(&lx, &fields[i])) {
            return ZQ_ERR_MALFORMED;
        }
    }
    ice_candidate_t c;
    memset(&c, 0, sizeof c);
    err = parse_fields(fields, &c);
    err = merge(err, parse_tail(&lx, &c.related));
    if (err == ZQ_OK) {
        *out = c; /* the caller's candidate changes only on success */
    }
    return err;
}

static bool is_ip_family(uint8_t family)
{
    return family == ZQ_AF_INET4 || family == ZQ_AF_INET6;
}

static bool is_known_type(ice_cand_type_t type)
{
    switch (type) {
    case ICE_CAND_HOST:
    case ICE_CAND_SRFLX:
    case ICE_CAND_PRFLX:
    case ICE_CAND_RELAY:
        return true;
    default:
        return false;
    }
}

/* Only a well-formed line: a foundation of 1..32 ice-chars, a component, a known type and
 * real addresses. */
static bool is_formattable(const ice_candidate_t *c)
{
    const char *end = memchr(c->foundation, '\0', sizeof c->foundation);
    if (end == NULL || end == c->foundation) {
        return false;
    }
    for (const char *p = c->foundation; p < end; p++) {
        if (!is_ice_char(*p)) {
            return false;
        }
    }
    return c->component != 0 && is_known_type(c->type) && is_ip_family(c->addr.family) &&
           (c->related.family == ZQ_AF_NONE || is_ip_family(c->related.family));
}

size_t ice_candidate_format(const ice_candidate_t *cand, char *out, size_t cap)
{
    zq_writer_t w = zq_text_writer(out, cap);
    if (cand == NULL || !is_formattable(cand)) {
        return zq_text_end(&w);
    }
    zq_write_str(&w, "candidate:");
    zq_write_str(&w, cand->foundation);
    zq_write_char(&w, ' ');
    zq_write_udec(&w, cand->component);
    zq_write_str(&w, " udp ");
    zq_write_udec(&w, cand->priority);
    zq_write_char(&w, ' ');
    zq_addr_write_ip(&w, &cand->addr);
    zq_write_char(&w, ' ');
    zq_write_udec(&w, cand->addr.port);
    zq_write_str(&w, " typ ");
    zq_write_str(&w, ice_cand_type_name(cand->type));
    if (cand->related.family != ZQ_AF_NONE) {
        zq_write_str(&w, " raddr ");
        zq_addr_write_ip(&w, &cand->related);
        zq_write_str(&w, " rport ");
        zq_write_udec(&w, cand->related.port);
    }
    return zq_text_end(&w);
}

static uint32_t type_preference(ice_cand_type_t type)
{
    switch (type) {
    case ICE_CAND_HOST:
        return TYPE_PREF_HOST;
    case ICE_CAND_PRFLX:
        return TYPE_PREF_PRFLX;
    case ICE_CAND_SRFLX:
        return TYPE_PREF_SRFLX;
    case ICE_CAND_RELAY:
    default:
        return TYPE_PREF_RELAY;
    }
}

uint32_t ice_candidate_priority(ice_cand_type_t type, uint16_t local_pref, uint8_t component)
{
    /* RFC 8445 §5.1.2.1: priority = (2^24)*(type preference) + (2^8)*(local preference)
     *                               + (2^0)*(256 - component ID) */
    return (type_preference(type) << 24) + ((uint32_t)local_pref << 8) +
           (256u - (uint32_t)component);
}

const char *ice_cand_type_name(ice_cand_type_t type)
{
    switch (type) {
    case ICE_CAND_HOST:
        return "host";
    case ICE_CAND_SRFLX:
        return "srflx";
    case ICE_CAND_PRFLX:
        return "prflx";
    case ICE_CAND_RELAY:
        return "relay";
    default:
        return "unknown";
    }
}

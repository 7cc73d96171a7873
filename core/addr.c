#include "zq/addr.h"
#include "zq/bytes.h"
#include "zq/hex.h"
#include "zq/text.h"

#include <string.h>

zq_addr_t zq_addr_v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port)
{
    zq_addr_t addr = {.family = ZQ_AF_INET4, .port = port, .ip = {a, b, c, d}};
    return addr;
}

static size_t ip_len(const zq_addr_t *a)
{
    return a->family == ZQ_AF_INET6 ? 16 : 4;
}

bool zq_addr_same_ip(const zq_addr_t *a, const zq_addr_t *b)
{
    return a->family == b->family && a->family != ZQ_AF_NONE &&
           memcmp(a->ip, b->ip, ip_len(a)) == 0;
}

bool zq_addr_equal(const zq_addr_t *a, const zq_addr_t *b)
{
    return zq_addr_same_ip(a, b) && a->port == b->port;
}

bool zq_addr_is_loopback(const zq_addr_t *a)
{
    static const uint8_t v6_loopback[16] = {[15] = 1};
    return (a->family == ZQ_AF_INET4 && a->ip[0] == 127) ||
           (a->family == ZQ_AF_INET6 && memcmp(a->ip, v6_loopback, 16) == 0);
}

bool zq_addr_can_reach(const zq_addr_t *from, const zq_addr_t *to)
{
    return from->family == to->family && zq_addr_is_loopback(from) == zq_addr_is_loopback(to);
}

/* ---- parsing ------------------------------------------------------------------------------ */

/* Dotted quad, exactly four decimal octets. */
static zq_err_t parse_v4(const char *s, size_t len, uint8_t out[4])
{
    size_t i = 0;
    for (int octet = 0; octet < 4; octet++) {
        if (octet > 0) {
            if (i >= len || s[i] != '.') {
                return ZQ_ERR_MALFORMED;
            }
            i++;
        }
        unsigned value = 0;
        size_t digits = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9' && digits < 3) {
            value = value * 10 + (unsigned)(s[i] - '0');
            i++;
            digits++;
        }
        if (digits == 0 || value > 255) {
            return ZQ_ERR_MALFORMED;
        }
        out[octet] = (uint8_t)value;
    }
    return i == len ? ZQ_OK : ZQ_ERR_MALFORMED;
}

/* Whether s[0..len) holds a '.', i.e. the IPv6 text ends in an embedded IPv4 address. */
static bool has_dot(const char *s, size_t len)
{
    return memchr(s, '.', len) != NULL;
}

/* Parses a run of ':'-separated hex groups (no "::") into 16-bit words; returns the count. */
static int parse_v6_groups(const char *s, size_t len, uint16_t *words, int max_words,
                           bool allow_v4_tail)
{
    int n = 0;
    size_t i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && s[end] != ':') {
            end++;
        }
        if (allow_v4_tail && end == len && has_dot(s + i, end - i)) {
            uint8_t v4[4];
            if (n + 2 > max_words || parse_v4(s + i, end - i, v4) != ZQ_OK) {
                return -1;
            }
            words[n++] = (uint16_t)(v4[0] << 8 | v4[1]);
            words[n++] = (uint16_t)(v4[2] << 8 | v4[3]);
            return n;
        }
        if (end == i || end - i > 4 || n >= max_words) {
            return -1;
        }
        uint16_t w = 0;
        for (size_t k = i; k < end; k++) {
            int h = zq_hex_digit(s[k]);
            if (h < 0) {
                return -1;
            }
            w = (uint16_t)(w << 4 | (uint16_t)h);
        }
        words[n++] = w;
        i = end;
        if (i < len) {
            i++; /* the ':' */
            if (i == len) {
                return -1; /* trailing single ':' */
            }
        }
    }
    return n;
}

static zq_err_t parse_v6(const char *s, size_t len, uint8_t out[16])
{
    uint16_t head[8] = {0};
    uint16_t tail[8] = {0};
    int n_head;
    int n_tail = 0;
    const char *gap = NULL;
    for (size_t i = 0; i + 1 < len; i++) {
        if (s[i] == ':' && s[i + 1] == ':') {
            gap = s + i;
            break;
        }
    }
    if (gap == NULL) {
        n_head = parse_v6_groups(s, len, head, 8, true);
        if (n_head != 8) {
            return ZQ_ERR_MALFORMED;
        }
    } else {
        size_t head_len = (size_t)(gap - s);
        size_t tail_off = head_len + 2;
        if (tail_off < len && s[tail_off] == ':') {
            return ZQ_ERR_MALFORMED; /* ":::" */
        }
        n_head = parse_v6_groups(s, head_len, head, 7, false);
        n_tail = parse_v6_groups(s + tail_off, len - tail_off, tail, 7, true);
        /* A second "::" shows up as an empty group inside the tail. */
        if (n_head < 0 || n_tail < 0 || n_head + n_tail > 7) {
            return ZQ_ERR_MALFORMED;
        }
    }
    uint16_t words[8] = {0};
    memcpy(words, head, (size_t)n_head * sizeof words[0]);
    memcpy(words + 8 - n_tail, tail, (size_t)n_tail * sizeof words[0]);
    for (int k = 0; k < 8; k++) {
        out[2 * k] = (uint8_t)(words[k] >> 8);
        out[2 * k + 1] = (uint8_t)words[k];
    }
    return ZQ_OK;
}

zq_err_t zq_addr_parse_ip(const char *text, size_t len, zq_addr_t *out)
{
    zq_addr_t a = {0};
    zq_err_t err;
    if (text == NULL || len == 0) {
        return ZQ_ERR_MALFORMED;
    }
    if (memchr(text, ':', len) != NULL) {
        a.family = ZQ_AF_INET6;
        err = parse_v6(text, len, a.ip);
    } else {
        a.family = ZQ_AF_INET4;
        err = parse_v4(text, len, a.ip);
    }
    if (err == ZQ_OK) {
        *out = a;
    }
    return err;
}

zq_err_t zq_addr_parse(const char *text, size_t len, zq_addr_t *out)
{
    const char *ip = text;
    size_t ip_len_chars;
    size_t port_off;
    if (text == NULL || len == 0) {
        return ZQ_ERR_MALFORMED;
    }
    if (text[0] == '[') {
        const char *close = memchr(text, ']', len);
        if (close == NULL || (size_t)(close - text) + 1 >= len || close[1] != ':') {
            return ZQ_ERR_MALFORMED;
        }
        ip = text + 1;
        ip_len_chars = (size_t)(close - ip);
        port_off = (size_t)(close - text) + 2;
    } else {
        const char *colon = memchr(text, ':', len);
        if (colon == NULL || memchr(colon + 1, ':', len - (size_t)(colon - text) - 1) != NULL) {
            return ZQ_ERR_MALFORMED; /* bare IPv6 must be bracketed to carry a port */
        }
        ip_len_chars = (size_t)(colon - text);
        port_off = ip_len_chars + 1;
    }
    zq_addr_t a;
    zq_err_t err = zq_addr_parse_ip(ip, ip_len_chars, &a);
    if (err == ZQ_OK) {
        err = zq_parse_port(text + port_off, len - port_off, &a.port);
    }
    if (err == ZQ_OK) {
        *out = a;
    }
    return err;
}

/* ---- formatting --------------------------------------------------------------------------- */

/* RFC 5952 §4.2: compress the longest run (>= 2) of zero groups, the first one on a tie. */
static void longest_zero_run(const uint16_t w[8], int *start, int *len)
{
    *start = -1;
    *len = 0;
    for (int i = 0; i < 8;) {
        if (w[i] != 0) {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && w[j] == 0) {
            j++;
        }
        if (j - i > *len && j - i >= 2) {
            *start = i;
            *len = j - i;
        }
        i = j;
    }
}

static void write_v4(zq_writer_t *w, const uint8_t ip[4])
{
    for (int i = 0; i < 4; i++) {
        if (i > 0) {
            zq_write_char(w, '.');
        }
        zq_write_udec(w, ip[i]);
    }
}

/* RFC 5952 §4: lower-case groups without leading zeros, the longest zero run as "::". */
static void write_v6(zq_writer_t *w, const uint8_t ip[16])
{
    uint16_t g[8];
    for (int i = 0; i < 8; i++) {
        g[i] = zq_load_be16(ip + 2 * i);
    }
    int run_start;
    int run_len;
    longest_zero_run(g, &run_start, &run_len);
    for (int i = 0; i < 8; i++) {
        if (i == run_start) {
            zq_write_str(w, "::");
            i += run_len - 1;
            continue;
        }
        if (i > 0 && i != run_start + run_len) {
            zq_write_char(w, ':');
        }
        zq_write_hex(w, g[i]);
    }
}

static bool is_ip_family(uint8_t family)
{
    return family == ZQ_AF_INET4 || family == ZQ_AF_INET6;
}

void zq_addr_write_ip(zq_writer_t *w, const zq_addr_t *addr)
{
    if (addr->family == ZQ_AF_INET4) {
        write_v4(w, addr->ip);
    } else if (addr->family == ZQ_AF_INET6) {
        write_v6(w, addr->ip);
    }
}

size_t zq_addr_format_ip(const zq_addr_t *addr, char *out, size_t cap)
{
    zq_writer_t w = zq_text_writer(out, cap);
    zq_addr_write_ip(&w, addr);
    return zq_text_end(&w);
}

size_t zq_addr_format(const zq_addr_t *addr, char *out, size_t cap)
{
    zq_writer_t w = zq_text_writer(out, cap);
    if (!is_ip_family(addr->family)) {
        return zq_text_end(&w);
    }
    bool v6 = addr->family == ZQ_AF_INET6;
    if (v6) {
        zq_write_char(&w, '[');
    }
    zq_addr_write_ip(&w, addr);
    if (v6) {
        zq_write_char(&w, ']');
    }
    zq_write_char(&w, ':');
    zq_write_udec(&w, addr->port);
    return zq_text_end(&w);
}

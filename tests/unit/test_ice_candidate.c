/* ICE candidate lines (RFC 8839 §5.1) and priorities (RFC 8445 §5.1.2): real lines from
 * Chromium 156 and aiortc 1.4 (the shared fixtures/sdp captures), then one test per
 * rule of the grammar. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stack/ice/ice.h"

static zq_err_t parse(const char *line, ice_candidate_t *c)
{
    return ice_candidate_parse(line, strlen(line), c);
}

/* Parses @p line and checks the verdict, naming the line when it is not the expected one. */
static void expect_result(const char *line, zq_err_t want)
{
    ice_candidate_t c;
    zq_err_t got = parse(line, &c);
    if (got != want) {
        print_error("\"%s\": %s, want %s\n", line, zq_errname(got), zq_errname(want));
    }
    assert_int_equal(got, want);
}

static zq_addr_t ip(const char *text, uint16_t port)
{
    zq_addr_t a;
    assert_int_equal(zq_addr_parse_ip(text, strlen(text), &a), ZQ_OK);
    a.port = port;
    return a;
}

/* ---- Every a=candidate line of /work/shared/fixtures/sdp/, as captured (with CRLF) -------- */

typedef struct {
    const char *line;
    const char *foundation;
    uint32_t priority;
    uint16_t port;
} fixture_udp_t;

static const fixture_udp_t fixture_udp[] = {
    /* aiortc14-answer-to-chromium.sdp */
    {"a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 37386 typ host\r\n",
     "16572de626da4e5384a0ce2d0d93678a", 2130706431u, 37386},
    /* aiortc14-offer-legacy.sdp */
    {"a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 44323 typ host\r\n",
     "16572de626da4e5384a0ce2d0d93678a", 2130706431u, 44323},
    /* chromium156-answer-to-aiortc-legacy.sdp */
    {"a=candidate:3125151278 1 udp 2122260223 127.0.0.1 45606 typ host generation 0 "
     "network-id 1 network-cost 50\r\n",
     "3125151278", 2122260223u, 45606},
    /* chromium156-offer-gathered.sdp */
    {"a=candidate:35077654 1 udp 2122260223 127.0.0.1 42993 typ host generation 0 "
     "network-id 1 network-cost 50\r\n",
     "35077654", 2122260223u, 42993},
    /* chromium156-offer-to-aiortc.sdp */
    {"a=candidate:1869553834 1 udp 2122260223 127.0.0.1 52274 typ host generation 0 "
     "network-id 1 network-cost 50\r\n",
     "1869553834", 2122260223u, 52274},
};

static const char *const fixture_tcp[] = {
    /* chromium156-offer-gathered.sdp */
    "a=candidate:4240304770 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 "
    "network-id 1 network-cost 50\r\n",
    /* chromium156-offer-to-aiortc.sdp */
    "a=candidate:2445669438 1 tcp 1518280447 127.0.0.1 9 typ host tcptype active generation 0 "
    "network-id 1 network-cost 50\r\n",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void fixture_udp_lines_parse_with_exact_values(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT(fixture_udp); i++) {
        const fixture_udp_t *f = &fixture_udp[i];
        ice_candidate_t c;
        assert_int_equal(parse(f->line, &c), ZQ_OK);
        assert_string_equal(c.foundation, f->foundation);
        assert_int_equal(c.component, 1);
        assert_int_equal(c.priority, f->priority);
        assert_int_equal(c.type, ICE_CAND_HOST);
        zq_addr_t want = zq_addr_v4(127, 0, 0, 1, f->port);
        assert_true(zq_addr_equal(&c.addr, &want));
        assert_int_equal(c.related.family, ZQ_AF_NONE);
    }
}

static void fixture_tcp_lines_are_unsupported(void **state)
{
    (void)state;
    for (size_t i = 0; i < COUNT(fixture_tcp); i++) {
        expect_result(fixture_tcp[i], ZQ_ERR_UNSUPPORTED);
    }
}

static void fixture_lines_format_back_without_extensions(void **state)
{
    (void)state;
    ice_candidate_t c;
    char out[ICE_CANDIDATE_TEXT_MAX];
    assert_int_equal(parse(fixture_udp[3].line, &c), ZQ_OK);
    const char *want = "candidate:35077654 1 udp 2122260223 127.0.0.1 42993 typ host";
    assert_int_equal(ice_candidate_format(&c, out, sizeof out), strlen(want));
    assert_string_equal(out, want);
}

/* ---- The line around the value ------------------------------------------------------------ */

static const char host_value[] = "1 1 udp 2130706431 192.0.2.1 5000 typ host";

static void expect_host_value(const char *line)
{
    ice_candidate_t c;
    assert_int_equal(parse(line, &c), ZQ_OK);
    zq_addr_t want = zq_addr_v4(192, 0, 2, 1, 5000);
    assert_true(zq_addr_equal(&c.addr, &want));
    assert_string_equal(c.foundation, "1");
}

static void sdp_attribute_form_is_accepted(void **state)
{
    (void)state;
    expect_host_value("a=candidate:1 1 udp 2130706431 192.0.2.1 5000 typ host");
}

static void candidate_prefix_without_a_equals_is_accepted(void **state)
{
    (void)state;
    expect_host_value("candidate:1 1 udp 2130706431 192.0.2.1 5000 typ host");
}

static void bare_value_is_accepted(void **state)
{
    (void)state;
    expect_host_value(host_value);
}

static void leading_and_trailing_whitespace_is_ignored(void **state)
{
    (void)state;
    expect_host_value("  \tcandidate:1 1 udp 2130706431 192.0.2.1 5000 typ host \t ");
}

static void trailing_crlf_or_lf_is_ignored(void **state)
{
    (void)state;
    expect_host_value("a=candidate:1 1 udp 2130706431 192.0.2.1 5000 typ host\r\n");
    expect_host_value("a=candidate:1 1 udp 2130706431 192.0.2.1 5000 typ host\n");
}

static void line_is_read_only_up_to_its_length(void **state)
{
    (void)state;
    /* No NUL after the line: a sanitizer build would catch any read past it. */
    char exact[sizeof host_value - 1];
    memcpy(exact, host_value, sizeof exact);
    ice_candidate_t c;
    assert_int_equal(ice_candidate_parse(exact, sizeof exact, &c), ZQ_OK);
    /* Bytes after len are not part of the line: here they would make it malformed. */
    const char *longer = "1 1 udp 2130706431 192.0.2.1 5000 typ host generation";
    assert_int_equal(ice_candidate_parse(longer, strlen(host_value), &c), ZQ_OK);
    assert_int_equal(ice_candidate_parse(longer, strlen(longer), &c), ZQ_ERR_MALFORMED);
}

static void line_break_inside_the_line_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 2130706431 192.0.2.1\r\n5000 typ host", ZQ_ERR_MALFORMED);
    const char with_nul[] = "candidate:1 1 udp 2130706431 192.0.2.1 5000 typ host x\0y";
    ice_candidate_t c;
    assert_int_equal(ice_candidate_parse(with_nul, sizeof with_nul - 1, &c), ZQ_ERR_MALFORMED);
}

static void other_attribute_is_malformed(void **state)
{
    (void)state;
    expect_result("a=ice-ufrag:wSZt", ZQ_ERR_MALFORMED);
    expect_result("a=end-of-candidates", ZQ_ERR_MALFORMED);
}

static void empty_line_is_malformed(void **state)
{
    (void)state;
    expect_result("", ZQ_ERR_MALFORMED);
    expect_result(" \r\n", ZQ_ERR_MALFORMED);
    expect_result("a=candidate:", ZQ_ERR_MALFORMED);
}

static void missing_fields_are_malformed(void **state)
{
    (void)state;
    /* Cut the value after each of its first seven fields ("typ" included). */
    size_t len = strlen(host_value);
    size_t fields = 0;
    for (size_t i = 0; i < len; i++) {
        if (host_value[i] == ' ') {
            ice_candidate_t c;
            assert_int_equal(ice_candidate_parse(host_value, i, &c), ZQ_ERR_MALFORMED);
            fields++;
        }
    }
    assert_int_equal(fields, 7);
}

static void failed_parse_leaves_output_untouched(void **state)
{
    (void)state;
    ice_candidate_t c;
    memset(&c, 0x5A, sizeof c);
    ice_candidate_t before = c;
    assert_int_equal(parse("candidate:1 1 tcp 1 192.0.2.1 9 typ host", &c), ZQ_ERR_UNSUPPORTED);
    assert_int_equal(parse("candidate:1 1 udp 1 192.0.2.1 x typ host", &c), ZQ_ERR_MALFORMED);
    assert_memory_equal(&c, &before, sizeof c);
}

static void null_arguments_are_invalid(void **state)
{
    (void)state;
    ice_candidate_t c;
    assert_int_equal(ice_candidate_parse(NULL, 0, &c), ZQ_ERR_INVALID_ARG);
    assert_int_equal(ice_candidate_parse(host_value, strlen(host_value), NULL), ZQ_ERR_INVALID_ARG);
}

static void runs_of_spaces_between_fields_are_tolerated(void **state)
{
    (void)state;
    expect_host_value("candidate:1  1 udp   2130706431 192.0.2.1 5000  typ host");
}

/* ---- foundation = 1*32 ice-char ----------------------------------------------------------- */

static void foundation_of_32_ice_chars_is_accepted(void **state)
{
    (void)state;
    ice_candidate_t c;
    assert_int_equal(
        parse("candidate:aZ09+/aZ09+/aZ09+/aZ09+/aZ09+/ab 1 udp 1 192.0.2.1 1 typ host", &c),
        ZQ_OK);
    assert_string_equal(c.foundation, "aZ09+/aZ09+/aZ09+/aZ09+/aZ09+/ab");
}

static void foundation_longer_than_32_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:123456789012345678901234567890123 1 udp 1 192.0.2.1 1 "
                  "typ host",
                  ZQ_ERR_MALFORMED);
}

static void foundation_with_non_ice_char_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:ab-c 1 udp 1 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:a_b 1 udp 1 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:a=b 1 udp 1 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
}

/* ---- component-id = 1*3 DIGIT, 1..256; zq uses component 1 only ---------------------------- */

static void component_other_than_1_is_unsupported(void **state)
{
    (void)state;
    expect_result("candidate:1 2 udp 1 192.0.2.1 1 typ host", ZQ_ERR_UNSUPPORTED);
    expect_result("candidate:1 256 udp 1 192.0.2.1 1 typ host", ZQ_ERR_UNSUPPORTED);
}

static void component_with_leading_zeros_is_1(void **state)
{
    (void)state;
    ice_candidate_t c;
    assert_int_equal(parse("candidate:1 001 udp 1 192.0.2.1 1 typ host", &c), ZQ_OK);
    assert_int_equal(c.component, 1);
}

static void component_outside_1_to_256_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 0 udp 1 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 257 udp 1 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 0001 udp 1 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 x udp 1 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
}

/* ---- transport ---------------------------------------------------------------------------- */

static void udp_transport_is_case_insensitive(void **state)
{
    (void)state;
    expect_result("candidate:1 1 UDP 1 192.0.2.1 1 typ host", ZQ_OK);
    expect_result("candidate:1 1 Udp 1 192.0.2.1 1 typ host", ZQ_OK);
}

static void tcp_candidate_is_unsupported_not_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 tcp 1 192.0.2.1 9 typ host tcptype active", ZQ_ERR_UNSUPPORTED);
    expect_result("candidate:1 1 TCP 1 192.0.2.1 5000 typ host tcptype passive",
                  ZQ_ERR_UNSUPPORTED);
}

static void transport_that_is_not_a_token_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 u(p 1 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
}

static void malformed_field_outranks_unsupported(void **state)
{
    (void)state;
    expect_result("candidate:1 1 tcp 1 192.0.2.1 99999 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 2 udp x 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 abc.local 1 typ host generation", ZQ_ERR_MALFORMED);
}

/* ---- priority = 1*10 DIGIT, fits 32 bits --------------------------------------------------- */

static void priority_up_to_uint32_max_is_accepted(void **state)
{
    (void)state;
    ice_candidate_t c;
    assert_int_equal(parse("candidate:1 1 udp 4294967295 192.0.2.1 1 typ host", &c), ZQ_OK);
    assert_true(c.priority == 4294967295u);
    assert_int_equal(parse("candidate:1 1 udp 0 192.0.2.1 1 typ host", &c), ZQ_OK);
    assert_int_equal(c.priority, 0);
}

static void priority_overflow_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 4294967296 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 99999999999 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
}

static void non_numeric_priority_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 12a 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp -1 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp +1 192.0.2.1 1 typ host", ZQ_ERR_MALFORMED);
}

/* ---- connection-address ------------------------------------------------------------------- */

static void ipv6_connection_address_parses(void **state)
{
    (void)state;
    ice_candidate_t c;
    assert_int_equal(parse("candidate:2 1 udp 2122262783 2001:db8::1:2 51000 typ host", &c), ZQ_OK);
    zq_addr_t want = ip("2001:db8::1:2", 51000);
    assert_true(zq_addr_equal(&c.addr, &want));
}

static void mdns_hostname_is_unsupported(void **state)
{
    (void)state;
    /* Chromium hides host addresses behind a random UUID in ".local". */
    expect_result("a=candidate:1510613869 1 udp 2122260223 "
                  "4dd6a9a7-6f3b-4f9c-8a54-1c8b5b4b9a8e.local 54400 typ host "
                  "generation 0 network-cost 999\r\n",
                  ZQ_ERR_UNSUPPORTED);
}

static void fqdn_connection_address_is_unsupported(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 1 turn.example.com 3478 typ relay raddr "
                  "192.0.2.1 rport 5000",
                  ZQ_ERR_UNSUPPORTED);
    expect_result("candidate:1 1 udp 1 example.com. 3478 typ host", ZQ_ERR_UNSUPPORTED);
}

static void bad_ip_address_is_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "candidate:1 1 udp 1 999.1.1.1 1 typ host",
        "candidate:1 1 udp 1 192.0.2 1 typ host",
        "candidate:1 1 udp 1 192.0.2.1. 1 typ host",
        "candidate:1 1 udp 1 123 1 typ host",
        "candidate:1 1 udp 1 1::2::3 1 typ host",
        "candidate:1 1 udp 1 fe80::1%eth0 1 typ host",
        "candidate:1 1 udp 1 [2001:db8::1] 1 typ host",
    };
    for (size_t i = 0; i < COUNT(bad); i++) {
        expect_result(bad[i], ZQ_ERR_MALFORMED);
    }
}

static void name_that_is_no_hostname_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 1 a_b.local 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 -ab.local 1 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 a..local 1 typ host", ZQ_ERR_MALFORMED);
}

/* ---- port --------------------------------------------------------------------------------- */

static void port_0_to_65535_is_accepted(void **state)
{
    (void)state;
    ice_candidate_t c;
    assert_int_equal(parse("candidate:1 1 udp 1 192.0.2.1 65535 typ host", &c), ZQ_OK);
    assert_int_equal(c.addr.port, 65535);
    assert_int_equal(parse("candidate:1 1 udp 1 192.0.2.1 0 typ host", &c), ZQ_OK);
    assert_int_equal(c.addr.port, 0);
}

static void port_above_65535_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 1 192.0.2.1 65536 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 192.0.2.1 100000 typ host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 192.0.2.1 5x typ host", ZQ_ERR_MALFORMED);
}

/* ---- cand-type = "typ" SP (host / srflx / prflx / relay / token) -------------------------- */

static void each_candidate_type_parses(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        ice_cand_type_t type;
    } rows[] = {
        {"candidate:1 1 udp 1 192.0.2.1 1 typ host", ICE_CAND_HOST},
        {"candidate:1 1 udp 1 192.0.2.1 1 typ srflx raddr 10.0.0.1 rport 2", ICE_CAND_SRFLX},
        {"candidate:1 1 udp 1 192.0.2.1 1 typ prflx raddr 10.0.0.1 rport 2", ICE_CAND_PRFLX},
        {"candidate:1 1 udp 1 192.0.2.1 1 typ relay raddr 10.0.0.1 rport 2", ICE_CAND_RELAY},
        {"candidate:1 1 udp 1 192.0.2.1 1 TYP HOST", ICE_CAND_HOST},
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        ice_candidate_t c;
        assert_int_equal(parse(rows[i].line, &c), ZQ_OK);
        assert_int_equal(c.type, rows[i].type);
    }
}

static void unknown_candidate_type_is_unsupported(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 typ foo", ZQ_ERR_UNSUPPORTED);
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 typ foo bar 1", ZQ_ERR_UNSUPPORTED);
}

static void missing_typ_keyword_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 type host", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 typ", ZQ_ERR_MALFORMED);
}

/* ---- rel-addr, rel-port, extensions ------------------------------------------------------- */

static void related_address_and_port_parse(void **state)
{
    (void)state;
    ice_candidate_t c;
    assert_int_equal(parse("candidate:842163049 1 udp 1677729535 203.0.113.7 61000 typ srflx "
                           "raddr 192.168.1.20 rport 54321",
                           &c),
                     ZQ_OK);
    zq_addr_t want = zq_addr_v4(192, 168, 1, 20, 54321);
    assert_true(zq_addr_equal(&c.related, &want));
    assert_int_equal(c.type, ICE_CAND_SRFLX);
}

static void raddr_without_rport_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 typ srflx raddr 10.0.0.1", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 typ srflx raddr 10.0.0.1 "
                  "generation 0",
                  ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 typ srflx raddr 10.0.0.1 rport",
                  ZQ_ERR_MALFORMED);
}

static void bad_related_address_or_port_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 typ srflx raddr 10.0.0.256 "
                  "rport 2",
                  ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 typ srflx raddr 10.0.0.1 "
                  "rport 70000",
                  ZQ_ERR_MALFORMED);
}

static void related_hostname_is_dropped_not_rejected(void **state)
{
    (void)state;
    ice_candidate_t c;
    assert_int_equal(parse("candidate:1 1 udp 1 198.51.100.3 1 typ srflx raddr "
                           "4dd6a9a7-6f3b-4f9c-8a54-1c8b5b4b9a8e.local rport 0",
                           &c),
                     ZQ_OK);
    assert_int_equal(c.related.family, ZQ_AF_NONE);
}

static void hidden_related_address_is_kept_as_zero(void **state)
{
    (void)state;
    /* Browsers using mDNS hide the base of a srflx candidate as 0.0.0.0:0. */
    ice_candidate_t c;
    assert_int_equal(
        parse("candidate:1 1 udp 1 198.51.100.3 1 typ srflx raddr 0.0.0.0 rport 0", &c), ZQ_OK);
    zq_addr_t want = zq_addr_v4(0, 0, 0, 0, 0);
    assert_true(zq_addr_equal(&c.related, &want));
}

static void extensions_after_type_are_skipped(void **state)
{
    (void)state;
    ice_candidate_t c;
    assert_int_equal(parse("candidate:1 1 udp 1 192.0.2.1 1 typ host generation 0 ufrag wSZt "
                           "network-id 1 network-cost 10",
                           &c),
                     ZQ_OK);
    assert_int_equal(c.related.family, ZQ_AF_NONE);
}

static void extensions_after_related_address_are_skipped(void **state)
{
    (void)state;
    ice_candidate_t c;
    assert_int_equal(parse("a=candidate:3 1 udp 1686052607 198.51.100.3 61000 typ srflx raddr "
                           "10.0.0.5 rport 61000 generation 0 ufrag wSZt network-id 1 "
                           "network-cost 10\r\n",
                           &c),
                     ZQ_OK);
    zq_addr_t want = zq_addr_v4(10, 0, 0, 5, 61000);
    assert_true(zq_addr_equal(&c.related, &want));
}

static void extension_name_without_value_is_malformed(void **state)
{
    (void)state;
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 typ host generation", ZQ_ERR_MALFORMED);
    expect_result("candidate:1 1 udp 1 192.0.2.1 1 typ host generation 0 ufrag", ZQ_ERR_MALFORMED);
}

/* ---- Priority (RFC 8445 §5.1.2.1) --------------------------------------------------------- */

static void host_priority_with_local_pref_65535_is_2130706431(void **state)
{
    (void)state;
    assert_int_equal(ice_candidate_priority(ICE_CAND_HOST, 65535, 1), 2130706431u);
}

static void type_preferences_are_rfc8445_recommended(void **state)
{
    (void)state;
    /* §5.1.2.2: host 126, peer-reflexive 110, server-reflexive 100, relayed 0. */
    assert_int_equal(ice_candidate_priority(ICE_CAND_PRFLX, 65535, 1),
                     (110u << 24) + (65535u << 8) + 255u);
    assert_int_equal(ice_candidate_priority(ICE_CAND_PRFLX, 65535, 1), 1862270975u);
    assert_int_equal(ice_candidate_priority(ICE_CAND_SRFLX, 65535, 1), 1694498815u);
    assert_int_equal(ice_candidate_priority(ICE_CAND_RELAY, 65535, 1), 16777215u);
    assert_int_equal(ice_candidate_priority(ICE_CAND_RELAY, 0, 1), 255u);
}

static void component_lowers_priority_by_one_each(void **state)
{
    (void)state;
    assert_int_equal(ice_candidate_priority(ICE_CAND_HOST, 65535, 2), 2130706430u);
}

static void chromium_host_priority_matches_the_formula(void **state)
{
    (void)state;
    /* Chromium's 2122260223: type preference 126, local preference 32542, component 1. */
    assert_int_equal(ice_candidate_priority(ICE_CAND_HOST, 32542, 1), 2122260223u);
}

static void type_names_are_the_sdp_tokens(void **state)
{
    (void)state;
    assert_string_equal(ice_cand_type_name(ICE_CAND_HOST), "host");
    assert_string_equal(ice_cand_type_name(ICE_CAND_SRFLX), "srflx");
    assert_string_equal(ice_cand_type_name(ICE_CAND_PRFLX), "prflx");
    assert_string_equal(ice_cand_type_name(ICE_CAND_RELAY), "relay");
    assert_non_null(ice_cand_type_name((ice_cand_type_t)42));
}

/* ---- Formatting --------------------------------------------------------------------------- */

static ice_candidate_t ipv6_srflx(void)
{
    ice_candidate_t c;
    memset(&c, 0, sizeof c);
    strcpy(c.foundation, "a+b/9");
    c.component = 1;
    c.priority = ice_candidate_priority(ICE_CAND_SRFLX, 65535, 1);
    c.type = ICE_CAND_SRFLX;
    c.addr = ip("2001:db8:85a3::8a2e:370:7334", 61000);
    c.related = ip("fe80::1", 50000);
    return c;
}

static void format_host_ipv4_writes_the_sdp_value(void **state)
{
    (void)state;
    ice_candidate_t c;
    memset(&c, 0, sizeof c);
    strcpy(c.foundation, "1");
    c.component = 1;
    c.priority = 2130706431u;
    c.type = ICE_CAND_HOST;
    c.addr = zq_addr_v4(192, 0, 2, 1, 5000);
    char out[ICE_CANDIDATE_TEXT_MAX];
    size_t n = ice_candidate_format(&c, out, sizeof out);
    assert_string_equal(out, "candidate:1 1 udp 2130706431 192.0.2.1 5000 typ host");
    assert_int_equal(n, strlen(out));
}

static void format_srflx_adds_raddr_and_rport(void **state)
{
    (void)state;
    ice_candidate_t c = ipv6_srflx();
    char out[ICE_CANDIDATE_TEXT_MAX];
    assert_true(ice_candidate_format(&c, out, sizeof out) > 0);
    assert_string_equal(out, "candidate:a+b/9 1 udp 1694498815 2001:db8:85a3::8a2e:370:7334 "
                             "61000 typ srflx raddr fe80::1 rport 50000");
}

static void format_parse_round_trip_ipv6_srflx(void **state)
{
    (void)state;
    ice_candidate_t c = ipv6_srflx();
    char out[ICE_CANDIDATE_TEXT_MAX];
    size_t n = ice_candidate_format(&c, out, sizeof out);
    ice_candidate_t back;
    assert_int_equal(ice_candidate_parse(out, n, &back), ZQ_OK);
    assert_string_equal(back.foundation, c.foundation);
    assert_int_equal(back.component, c.component);
    assert_int_equal(back.priority, c.priority);
    assert_int_equal(back.type, c.type);
    assert_true(zq_addr_equal(&back.addr, &c.addr));
    assert_true(zq_addr_equal(&back.related, &c.related));
}

static void format_parse_round_trip_every_type(void **state)
{
    (void)state;
    for (int t = ICE_CAND_HOST; t <= ICE_CAND_RELAY; t++) {
        ice_candidate_t c = ipv6_srflx();
        c.type = (ice_cand_type_t)t;
        c.addr = zq_addr_v4(198, 51, 100, 3, 1);
        char out[ICE_CANDIDATE_TEXT_MAX];
        ice_candidate_t back;
        assert_int_equal(ice_candidate_parse(out, ice_candidate_format(&c, out, sizeof out), &back),
                         ZQ_OK);
        assert_int_equal(back.type, t);
    }
}

static void longest_candidate_fits_text_max(void **state)
{
    (void)state;
    ice_candidate_t c;
    memset(&c, 0, sizeof c);
    memset(c.foundation, 'f', ZQ_ICE_FOUNDATION_MAX);
    c.component = 1;
    c.priority = UINT32_MAX;
    c.type = ICE_CAND_RELAY;
    c.addr = ip("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535);
    c.related = c.addr;
    char out[ICE_CANDIDATE_TEXT_MAX];
    size_t n = ice_candidate_format(&c, out, sizeof out);
    assert_true(n > 0 && n < ICE_CANDIDATE_TEXT_MAX);
}

static void format_never_writes_past_cap(void **state)
{
    (void)state;
    ice_candidate_t c = ipv6_srflx();
    char full[ICE_CANDIDATE_TEXT_MAX];
    size_t want = ice_candidate_format(&c, full, sizeof full);
    assert_true(want > 0);
    /* 0xA5 guard bytes on both sides catch any overrun, at every capacity. */
    for (size_t cap = 0; cap <= want + 1; cap++) {
        unsigned char buf[4 + ICE_CANDIDATE_TEXT_MAX + 4];
        memset(buf, 0xA5, sizeof buf);
        char *out = (char *)buf + 4;
        size_t n = ice_candidate_format(&c, out, cap);
        assert_int_equal(n, cap > want ? want : 0);
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(buf[i], 0xA5);
        }
        for (size_t i = 4 + cap; i < sizeof buf; i++) {
            assert_int_equal(buf[i], 0xA5);
        }
        if (cap > 0) {
            assert_int_equal(out[n], '\0');
        }
        if (n > 0) {
            assert_memory_equal(out, full, want + 1);
        }
    }
}

static void format_refuses_what_would_not_parse_back(void **state)
{
    (void)state;
    char out[ICE_CANDIDATE_TEXT_MAX];
    ice_candidate_t c = ipv6_srflx();
    c.addr.family = ZQ_AF_NONE;
    assert_int_equal(ice_candidate_format(&c, out, sizeof out), 0);
    assert_string_equal(out, "");
    c = ipv6_srflx();
    c.type = (ice_cand_type_t)9;
    assert_int_equal(ice_candidate_format(&c, out, sizeof out), 0);
    c = ipv6_srflx();
    c.foundation[0] = '\0';
    assert_int_equal(ice_candidate_format(&c, out, sizeof out), 0);
    c = ipv6_srflx();
    c.foundation[1] = '-';
    assert_int_equal(ice_candidate_format(&c, out, sizeof out), 0);
    c = ipv6_srflx();
    memset(c.foundation, 'x', sizeof c.foundation); /* no NUL */
    assert_int_equal(ice_candidate_format(&c, out, sizeof out), 0);
    c = ipv6_srflx();
    c.component = 0;
    assert_int_equal(ice_candidate_format(&c, out, sizeof out), 0);
    c = ipv6_srflx();
    c.related.family = 5;
    assert_int_equal(ice_candidate_format(&c, out, sizeof out), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixture_udp_lines_parse_with_exact_values),
        cmocka_unit_test(fixture_tcp_lines_are_unsupported),
        cmocka_unit_test(fixture_lines_format_back_without_extensions),
        cmocka_unit_test(sdp_attribute_form_is_accepted),
        cmocka_unit_test(candidate_prefix_without_a_equals_is_accepted),
        cmocka_unit_test(bare_value_is_accepted),
        cmocka_unit_test(leading_and_trailing_whitespace_is_ignored),
        cmocka_unit_test(trailing_crlf_or_lf_is_ignored),
        cmocka_unit_test(line_is_read_only_up_to_its_length),
        cmocka_unit_test(line_break_inside_the_line_is_malformed),
        cmocka_unit_test(other_attribute_is_malformed),
        cmocka_unit_test(empty_line_is_malformed),
        cmocka_unit_test(missing_fields_are_malformed),
        cmocka_unit_test(failed_parse_leaves_output_untouched),
        cmocka_unit_test(null_arguments_are_invalid),
        cmocka_unit_test(runs_of_spaces_between_fields_are_tolerated),
        cmocka_unit_test(foundation_of_32_ice_chars_is_accepted),
        cmocka_unit_test(foundation_longer_than_32_is_malformed),
        cmocka_unit_test(foundation_with_non_ice_char_is_malformed),
        cmocka_unit_test(component_other_than_1_is_unsupported),
        cmocka_unit_test(component_with_leading_zeros_is_1),
        cmocka_unit_test(component_outside_1_to_256_is_malformed),
        cmocka_unit_test(udp_transport_is_case_insensitive),
        cmocka_unit_test(tcp_candidate_is_unsupported_not_malformed),
        cmocka_unit_test(transport_that_is_not_a_token_is_malformed),
        cmocka_unit_test(malformed_field_outranks_unsupported),
        cmocka_unit_test(priority_up_to_uint32_max_is_accepted),
        cmocka_unit_test(priority_overflow_is_malformed),
        cmocka_unit_test(non_numeric_priority_is_malformed),
        cmocka_unit_test(ipv6_connection_address_parses),
        cmocka_unit_test(mdns_hostname_is_unsupported),
        cmocka_unit_test(fqdn_connection_address_is_unsupported),
        cmocka_unit_test(bad_ip_address_is_malformed),
        cmocka_unit_test(name_that_is_no_hostname_is_malformed),
        cmocka_unit_test(port_0_to_65535_is_accepted),
        cmocka_unit_test(port_above_65535_is_malformed),
        cmocka_unit_test(each_candidate_type_parses),
        cmocka_unit_test(unknown_candidate_type_is_unsupported),
        cmocka_unit_test(missing_typ_keyword_is_malformed),
        cmocka_unit_test(related_address_and_port_parse),
        cmocka_unit_test(raddr_without_rport_is_malformed),
        cmocka_unit_test(bad_related_address_or_port_is_malformed),
        cmocka_unit_test(related_hostname_is_dropped_not_rejected),
        cmocka_unit_test(hidden_related_address_is_kept_as_zero),
        cmocka_unit_test(extensions_after_type_are_skipped),
        cmocka_unit_test(extensions_after_related_address_are_skipped),
        cmocka_unit_test(extension_name_without_value_is_malformed),
        cmocka_unit_test(host_priority_with_local_pref_65535_is_2130706431),
        cmocka_unit_test(type_preferences_are_rfc8445_recommended),
        cmocka_unit_test(component_lowers_priority_by_one_each),
        cmocka_unit_test(chromium_host_priority_matches_the_formula),
        cmocka_unit_test(type_names_are_the_sdp_tokens),
        cmocka_unit_test(format_host_ipv4_writes_the_sdp_value),
        cmocka_unit_test(format_srflx_adds_raddr_and_rport),
        cmocka_unit_test(format_parse_round_trip_ipv6_srflx),
        cmocka_unit_test(format_parse_round_trip_every_type),
        cmocka_unit_test(longest_candidate_fits_text_max),
        cmocka_unit_test(format_never_writes_past_cap),
        cmocka_unit_test(format_refuses_what_would_not_parse_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

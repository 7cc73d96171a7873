/* HTTP/1.1 heads (RFC 9112): each parsing rule, the WebSocket upgrade check (RFC 6455 §4.2.1),
 * the response builder, and the static-file path and content-type helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "signal/http.h"

static http_request_t req; /* about 1 KB: keep it off the stack */

static zq_err_t parse(const char *text)
{
    return http_parse_request(text, strlen(text), &req);
}

static void assert_span(const char *p, size_t len, const char *want)
{
    assert_int_equal(len, strlen(want));
    assert_memory_equal(p, want, len);
}

static void assert_header(const char *name, const char *want)
{
    const char *v;
    size_t len;
    assert_true(http_header(&req, name, &v, &len));
    assert_span(v, len, want);
}

/* What Chromium sends to open a WebSocket. */
static const char chromium_upgrade[] =
    "GET /ws?room=lab HTTP/1.1\r\n"
    "Host: 192.168.1.10:8080\r\n"
    "Connection: Upgrade\r\n"
    "Pragma: no-cache\r\n"
    "Cache-Control: no-cache\r\n"
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36\r\n"
    "Upgrade: websocket\r\n"
    "Origin: http://192.168.1.10:8080\r\n"
    "Sec-WebSocket-Version: 13\r\n"
    "Accept-Encoding: gzip, deflate\r\n"
    "Accept-Language: en-US,en;q=0.9\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
    "\r\n";

/* ---- Request line and fields -------------------------------------------------------------- */

static void parses_a_browser_upgrade_request(void **state)
{
    (void)state;
    assert_int_equal(parse(chromium_upgrade), ZQ_OK);
    assert_span(req.method, req.method_len, "GET");
    assert_span(req.path, req.path_len, "/ws");
    assert_span(req.query, req.query_len, "room=lab");
    assert_int_equal(req.version_minor, 1);
    assert_int_equal(req.n_headers, 12);
    assert_int_equal(req.head_len, sizeof chromium_upgrade - 1);
    assert_header("host", "192.168.1.10:8080"); /* §5.1: names are case-insensitive */
    assert_header("SEC-WEBSOCKET-KEY", "dGhlIHNhbXBsZSBub25jZQ==");
    assert_header("Accept-Language", "en-US,en;q=0.9");
    const char *v;
    size_t len;
    assert_false(http_header(&req, "Cookie", &v, &len));
    assert_true(http_is_websocket_upgrade(&req));
    assert_true(http_path_is(&req, "/ws"));
    assert_false(http_path_is(&req, "/ws?room=lab"));
}

static void field_values_lose_surrounding_whitespace(void **state)
{
    (void)state;
    assert_int_equal(parse("GET / HTTP/1.1\r\nHost:h\r\nX-A: \t a b \t \r\nX-B:\r\n\r\n"), ZQ_OK);
    assert_header("Host", "h");
    assert_header("X-A", "a b");
    assert_header("X-B", "");
    assert_int_equal(parse("GET / HTTP/1.1\r\nHost: h\r\nX-Bin: caf\xc3\xa9\r\n\r\n"), ZQ_OK);
    assert_header("X-Bin", "caf\xc3\xa9"); /* obs-text passes */
}

static void path_and_query_are_split(void **state)
{
    (void)state;
    assert_int_equal(parse("GET /api/topics?x=1&y HTTP/1.1\r\nHost: h\r\n\r\n"), ZQ_OK);
    assert_span(req.path, req.path_len, "/api/topics");
    assert_span(req.query, req.query_len, "x=1&y");
    assert_int_equal(parse("GET /a? HTTP/1.1\r\nHost: h\r\n\r\n"), ZQ_OK);
    assert_non_null(req.query);
    assert_int_equal(req.query_len, 0);
    assert_int_equal(parse("GET /a HTTP/1.1\r\nHost: h\r\n\r\n"), ZQ_OK);
    assert_null(req.query);
}

/* The value of @p name in @p target's query, or the error. */
static zq_err_t param(const char *target, const char *name, char *out, size_t cap)
{
    char text[512];
    (void)snprintf(text, sizeof text, "GET %s HTTP/1.1\r\nHost: h\r\n\r\n", target);
    assert_int_equal(parse(text), ZQ_OK);
    size_t n = 0;
    zq_err_t err = http_query_param(&req, name, out, cap, &n);
    if (err == ZQ_OK) {
        assert_int_equal(n, strlen(out));
    }
    return err;
}

static void a_query_parameter_is_found_by_its_whole_name_and_percent_decoded(void **state)
{
    (void)state;
    char v[32];
    assert_int_equal(param("/ws?room=lab&token=12.ab", "token", v, sizeof v), ZQ_OK);
    assert_string_equal(v, "12.ab");
    assert_int_equal(param("/ws?room=lab&token=12.ab", "room", v, sizeof v), ZQ_OK);
    assert_string_equal(v, "lab");
    assert_int_equal(param("/ws?xroom=no&room=my%20lab%2F1", "room", v, sizeof v), ZQ_OK);
    assert_string_equal(v, "my lab/1");
    assert_int_equal(param("/ws?room=a+b", "room", v, sizeof v), ZQ_OK);
    assert_string_equal(v, "a+b"); /* '+' is a space in form bodies only */
    assert_int_equal(param("/ws?room=&room=second", "room", v, sizeof v), ZQ_OK);
    assert_string_equal(v, ""); /* the first one counts */
    assert_int_equal(param("/ws?room=caf%C3%A9", "room", v, sizeof v), ZQ_OK);
    assert_string_equal(v, "caf\xc3\xa9");
}

static void a_missing_parameter_is_not_found(void **state)
{
    (void)state;
    char v[32];
    assert_int_equal(param("/ws", "room", v, sizeof v), ZQ_ERR_NOT_FOUND);
    assert_int_equal(param("/ws?", "room", v, sizeof v), ZQ_ERR_NOT_FOUND);
    assert_int_equal(param("/ws?room", "room", v, sizeof v), ZQ_ERR_NOT_FOUND);
    assert_int_equal(param("/ws?rooms=x&ro=y", "room", v, sizeof v), ZQ_ERR_NOT_FOUND);
    assert_string_equal(v, "");
}

static void a_bad_escape_or_a_decoded_control_byte_is_malformed(void **state)
{
    (void)state;
    char v[32];
    assert_int_equal(param("/ws?room=%zz", "room", v, sizeof v), ZQ_ERR_MALFORMED);
    assert_int_equal(param("/ws?room=ab%4", "room", v, sizeof v), ZQ_ERR_MALFORMED);
    assert_int_equal(param("/ws?room=ab%", "room", v, sizeof v), ZQ_ERR_MALFORMED);
    assert_int_equal(param("/ws?room=a%00b", "room", v, sizeof v), ZQ_ERR_MALFORMED);
    assert_int_equal(param("/ws?room=a%0Ab", "room", v, sizeof v), ZQ_ERR_MALFORMED);
    assert_int_equal(param("/ws?room=a%7Fb", "room", v, sizeof v), ZQ_ERR_MALFORMED);
}

static void a_value_longer_than_the_buffer_is_too_long_not_cut(void **state)
{
    (void)state;
    char v[4];
    assert_int_equal(param("/ws?room=abc", "room", v, sizeof v), ZQ_OK);
    assert_string_equal(v, "abc");
    assert_int_equal(param("/ws?room=abcd", "room", v, sizeof v), ZQ_ERR_TOO_LONG);
    assert_int_equal(param("/ws?room=%61%62%63", "room", v, sizeof v), ZQ_OK); /* 3 decoded */
}

static void absolute_form_target_yields_its_path(void **state)
{
    (void)state;
    /* RFC 9112 §3.2.2: a server must accept the absolute form. */
    assert_int_equal(parse("GET http://h:8080/ws?q=1 HTTP/1.1\r\nHost: h:8080\r\n\r\n"), ZQ_OK);
    assert_span(req.path, req.path_len, "/ws");
    assert_span(req.query, req.query_len, "q=1");
    assert_int_equal(parse("GET HTTPS://h HTTP/1.1\r\nHost: h\r\n\r\n"), ZQ_OK);
    assert_span(req.path, req.path_len, "/");
    assert_int_equal(parse("GET http://h?x HTTP/1.1\r\nHost: h\r\n\r\n"), ZQ_OK);
    assert_span(req.path, req.path_len, "/");
    assert_span(req.query, req.query_len, "x");
    assert_int_equal(parse("GET http:///x HTTP/1.1\r\nHost: h\r\n\r\n"), ZQ_ERR_MALFORMED);
}

static void asterisk_form_only_for_options(void **state)
{
    (void)state;
    assert_int_equal(parse("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n"), ZQ_OK);
    assert_span(req.path, req.path_len, "*");
    assert_int_equal(parse("GET * HTTP/1.1\r\nHost: h\r\n\r\n"), ZQ_ERR_MALFORMED);
}

static void empty_lines_before_the_request_line_are_skipped(void **state)
{
    (void)state;
    assert_int_equal(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"), ZQ_OK);
    assert_span(req.method, req.method_len, "GET");
}

static void http_1_0_needs_no_host(void **state)
{
    (void)state;
    assert_int_equal(parse("GET / HTTP/1.0\r\n\r\n"), ZQ_OK);
    assert_int_equal(req.version_minor, 0);
    assert_false(http_is_websocket_upgrade(&req));
}

static void other_major_versions_are_unsupported(void **state)
{
    (void)state;
    assert_int_equal(parse("GET / HTTP/2.0\r\nHost: h\r\n\r\n"), ZQ_ERR_UNSUPPORTED);
    assert_int_equal(parse("GET / HTTP/0.9\r\nHost: h\r\n\r\n"), ZQ_ERR_UNSUPPORTED);
}

static void every_prefix_needs_more(void **state)
{
    (void)state;
    for (size_t len = 0; len < sizeof chromium_upgrade - 1; len++) {
        zq_err_t err = http_parse_request(chromium_upgrade, len, &req);
        if (err != ZQ_ERR_NEED_MORE) {
            fail_msg("prefix of %zu bytes: %s", len, zq_errname(err));
        }
    }
}

static void body_starts_after_the_head(void **state)
{
    (void)state;
    static const char text[] = "POST /api/x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello";
    assert_int_equal(http_parse_request(text, sizeof text - 1, &req), ZQ_OK);
    size_t len;
    assert_int_equal(http_content_length(&req, &len), ZQ_OK);
    assert_int_equal(len, 5);
    assert_memory_equal(text + req.head_len, "hello", 5);
}

static const char *const malformed_requests[] = {
    "GET / HTTP/1.1\nHost: h\r\n\r\n",           /* bare LF */
    "GET / HTTP/1.1\r\nHost: h\n\n",             /* bare LFs */
    "GET / HTTP/1.1\rHost: h\r\n\r\n",           /* bare CR */
    "GET / HTTP/1.1\r\nHost : h\r\n\r\n",        /* §5.1: space before the colon */
    "GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", /* §5.2: obs-fold */
    "GET / HTTP/1.1\r\n Host: h\r\n\r\n",        /* §2.2: whitespace before the first field */
    "GET / HTTP/1.1\r\n\tHost: h\r\n\r\n",
    "GET / HTTP/1.1\r\n\r\n",                    /* §3.2: no Host */
    "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", /* two Hosts */
    "GET / HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n",
    "GET / HTTP/1.1x\r\nHost: h\r\n\r\n",
    "GET / http/1.1\r\nHost: h\r\n\r\n",         /* §2.3: the name is case-sensitive */
    "GET / HTTP/1\r\nHost: h\r\n\r\n",
    "GET / HTTP/11.1\r\nHost: h\r\n\r\n",
    "GET /\r\nHost: h\r\n\r\n",                  /* HTTP/0.9 style */
    "G(T / HTTP/1.1\r\nHost: h\r\n\r\n",         /* method is a token */
    " GET / HTTP/1.1\r\nHost: h\r\n\r\n",
    "GET  / HTTP/1.1\r\nHost: h\r\n\r\n",        /* two spaces */
    "GET / HTTP/1.1 \r\nHost: h\r\n\r\n",
    "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n",
    "GET /\x01 HTTP/1.1\r\nHost: h\r\n\r\n",
    "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: h\r\n\r\n", /* raw non-ASCII in the target */
    "GET /a#frag HTTP/1.1\r\nHost: h\r\n\r\n",
    "GET  HTTP/1.1\r\nHost: h\r\n\r\n",
    "CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n", /* authority form: not served */
    "GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n",
    "GET / HTTP/1.1\r\n: empty-name\r\nHost: h\r\n\r\n",
    "GET / HTTP/1.1\r\nNo-Colon\r\nHost: h\r\n\r\n",
    "GET / HTTP/1.1\r\nBad\"Name: x\r\nHost: h\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: h\r\nX: a\x01z\r\n\r\n", /* control character in a value */
    "GET / HTTP/1.1\r\nHost: h\r\nX: a\x7fz\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: h\r\nX: a\x00z\r\n\r\n",
    "\x16\x03\x01\x02\x10\x01\x02\x0c\x03\x03\r\n", /* the start of a TLS ClientHello */
};

static void malformed_requests_are_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof malformed_requests / sizeof malformed_requests[0]; i++) {
        const char *text = malformed_requests[i];
        size_t len = strlen(text);
        if (i == sizeof malformed_requests / sizeof malformed_requests[0] - 2) {
            len = strlen("GET / HTTP/1.1\r\nHost: h\r\nX: a") + 6; /* past the NUL */
        }
        zq_err_t err = http_parse_request(text, len, &req);
        if (err != ZQ_ERR_MALFORMED) {
            fail_msg("case %zu: %s", i, zq_errname(err));
        }
    }
}

static void garbage_is_refused_before_the_head_ends(void **state)
{
    (void)state;
    /* A broken first line fails at once, without waiting for a blank line. */
    assert_int_equal(parse("GET / HTTP/9\r\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("hello\n"), ZQ_ERR_MALFORMED);
    assert_int_equal(parse("GET / HTTP/1.1\r\nbad line\r\n"), ZQ_ERR_MALFORMED);
}

static char large[ZQ_HTTP_MAX_REQUEST + 64];

/* A request of exactly @p total bytes, padded with one long field. */
static size_t padded_request(size_t total)
{
    static const char head[] = "GET / HTTP/1.1\r\nHost: h\r\nX-Pad: ";
    size_t n = sizeof head - 1;
    memcpy(large, head, n);
    size_t pad = total - n - 4;
    memset(large + n, 'p', pad);
    memcpy(large + n + pad, "\r\n\r\n", 4);
    return total;
}

static void head_of_the_maximum_size_is_accepted_and_one_more_is_too_long(void **state)
{
    (void)state;
    size_t len = padded_request(ZQ_HTTP_MAX_REQUEST);
    assert_int_equal(http_parse_request(large, len, &req), ZQ_OK);
    assert_int_equal(req.head_len, ZQ_HTTP_MAX_REQUEST);
    len = padded_request(ZQ_HTTP_MAX_REQUEST + 1);
    assert_int_equal(http_parse_request(large, len, &req), ZQ_ERR_TOO_LONG);
    /* An endless head is refused once the limit is reached, not before. */
    memset(large, 'a', sizeof large);
    memcpy(large, "GET / HTTP/1.1\r\nHost: h\r\nX: ", 28);
    assert_int_equal(http_parse_request(large, ZQ_HTTP_MAX_REQUEST - 1, &req), ZQ_ERR_NEED_MORE);
    assert_int_equal(http_parse_request(large, ZQ_HTTP_MAX_REQUEST, &req), ZQ_ERR_TOO_LONG);
    assert_int_equal(http_parse_request(large, sizeof large, &req), ZQ_ERR_TOO_LONG);
}

static void too_many_fields_are_too_long(void **state)
{
    (void)state;
    size_t n = 0;
    n += (size_t)snprintf(large + n, sizeof large - n, "GET / HTTP/1.1\r\nHost: h\r\n");
    for (size_t i = 1; i < ZQ_HTTP_MAX_HEADERS; i++) {
        n += (size_t)snprintf(large + n, sizeof large - n, "X-%zu: v\r\n", i);
    }
    memcpy(large + n, "\r\n", 2);
    assert_int_equal(http_parse_request(large, n + 2, &req), ZQ_OK);
    assert_int_equal(req.n_headers, ZQ_HTTP_MAX_HEADERS);
    memcpy(large + n, "X-Last: v\r\n\r\n", 13);
    assert_int_equal(http_parse_request(large, n + 13, &req), ZQ_ERR_TOO_LONG);
}

/* ---- Content-Length (§6.3) ---------------------------------------------------------------- */

static zq_err_t content_length_of(const char *fields, size_t *len)
{
    char text[256];
    snprintf(text, sizeof text, "POST / HTTP/1.1\r\nHost: h\r\n%s\r\n", fields);
    assert_int_equal(parse(text), ZQ_OK);
    return http_content_length(&req, len);
}

static void content_length_rules(void **state)
{
    (void)state;
    size_t len = 99;
    assert_int_equal(content_length_of("", &len), ZQ_OK);
    assert_int_equal(len, 0);
    assert_int_equal(content_length_of("Content-Length: 42\r\n", &len), ZQ_OK);
    assert_int_equal(len, 42);
    assert_int_equal(content_length_of("content-length: 7\r\nContent-Length: 7\r\n", &len), ZQ_OK);
    assert_int_equal(len, 7);
    assert_int_equal(content_length_of("Content-Length: 7\r\nContent-Length: 8\r\n", &len),
                     ZQ_ERR_MALFORMED);
    assert_int_equal(content_length_of("Content-Length: 4x\r\n", &len), ZQ_ERR_MALFORMED);
    assert_int_equal(content_length_of("Content-Length: -1\r\n", &len), ZQ_ERR_MALFORMED);
    assert_int_equal(content_length_of("Content-Length: +1\r\n", &len), ZQ_ERR_MALFORMED);
    assert_int_equal(content_length_of("Content-Length: 1 2\r\n", &len), ZQ_ERR_MALFORMED);
    assert_int_equal(content_length_of("Content-Length:\r\n", &len), ZQ_ERR_MALFORMED);
    assert_int_equal(content_length_of("Content-Length: 99999999999999999999999999\r\n", &len),
                     ZQ_ERR_TOO_LONG);
    assert_int_equal(content_length_of("Transfer-Encoding: chunked\r\n", &len),
                     ZQ_ERR_UNSUPPORTED);
    assert_int_equal(
        content_length_of("Transfer-Encoding: chunked\r\nContent-Length: 3\r\n", &len),
        ZQ_ERR_UNSUPPORTED);
}

/* ---- Lists and the WebSocket upgrade ------------------------------------------------------ */

static void token_lists_span_repeated_fields(void **state)
{
    (void)state;
    assert_int_equal(parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive\r\n"
                           "Connection: , UPGRADE ,\r\nX: upgraded\r\n\r\n"),
                     ZQ_OK);
    assert_true(http_headers_have_token(req.headers, req.n_headers, "connection", "upgrade"));
    assert_true(http_headers_have_token(req.headers, req.n_headers, "Connection", "keep-alive"));
    assert_false(http_headers_have_token(req.headers, req.n_headers, "Connection", "close"));
    assert_false(http_headers_have_token(req.headers, req.n_headers, "X", "upgrade"));
}

static bool upgrade_with(const char *from, const char *to)
{
    char text[sizeof chromium_upgrade + 64];
    const char *at = strstr(chromium_upgrade, from);
    assert_non_null(at);
    size_t head = (size_t)(at - chromium_upgrade);
    memcpy(text, chromium_upgrade, head);
    snprintf(text + head, sizeof text - head, "%s%s", to, at + strlen(from));
    assert_int_equal(parse(text), ZQ_OK);
    return http_is_websocket_upgrade(&req);
}

static void websocket_upgrade_needs_every_part(void **state)
{
    (void)state;
    assert_true(upgrade_with("Upgrade: websocket", "Upgrade: WebSocket"));
    assert_true(upgrade_with("Connection: Upgrade", "Connection: keep-alive, Upgrade"));
    assert_false(upgrade_with("GET", "POST"));
    assert_false(upgrade_with("HTTP/1.1", "HTTP/1.0"));
    assert_false(upgrade_with("Upgrade: websocket\r\n", ""));
    assert_false(upgrade_with("Upgrade: websocket", "Upgrade: h2c"));
    assert_false(upgrade_with("Connection: Upgrade", "Connection: keep-alive"));
    assert_false(upgrade_with("Sec-WebSocket-Version: 13", "Sec-WebSocket-Version: 8"));
    assert_false(upgrade_with("Sec-WebSocket-Version: 13\r\n", ""));
    assert_false(upgrade_with("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", ""));
    /* §4.2.1 item 5: the key is 16 bytes, base64-encoded. */
    assert_false(upgrade_with("dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25jZQ"));
    assert_false(upgrade_with("dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25jZT=="));
    assert_false(upgrade_with("dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25j"));
    assert_false(upgrade_with("dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25jZ!=="));
    assert_false(upgrade_with("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
                              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"));
}

/* ---- Responses ---------------------------------------------------------------------------- */

static http_response_t res;

static void response_heads_parse(void **state)
{
    (void)state;
    static const char text[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\nXY";
    assert_int_equal(http_parse_response(text, sizeof text - 1, &res), ZQ_OK);
    assert_int_equal(res.status, 101);
    assert_span(res.reason, res.reason_len, "Switching Protocols");
    assert_int_equal(res.head_len, sizeof text - 3);
    const char *v;
    size_t len;
    assert_true(http_response_header(&res, "upgrade", &v, &len));
    assert_span(v, len, "websocket");
    assert_int_equal(http_parse_response("HTTP/1.1 204 \r\n\r\n", 17, &res), ZQ_OK);
    assert_int_equal(res.reason_len, 0);
    assert_int_equal(http_parse_response("HTTP/1.0 200\r\n\r\n", 16, &res), ZQ_OK);
    assert_int_equal(res.version_minor, 0);
    static const char *const bad[] = {"HTTP/1.1 099 x\r\n\r\n", "HTTP/1.1 600 x\r\n\r\n",
                                      "HTTP/1.1 2000 x\r\n\r\n", "HTTP/1.1 20x OK\r\n\r\n",
                                      "HTTP/1.1  200 OK\r\n\r\n", "HTTP/1.1 200 O\x01K\r\n\r\n",
                                      "ICY 200 OK\r\n\r\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(http_parse_response(bad[i], strlen(bad[i]), &res), ZQ_ERR_MALFORMED);
    }
    assert_int_equal(http_parse_response("HTTP/1.1 200 OK\r\n", 17, &res), ZQ_ERR_NEED_MORE);
}

static void response_builder_writes_every_field(void **state)
{
    (void)state;
    uint8_t buf[512];
    zq_writer_t w = zq_writer(buf, sizeof buf);
    static const char body[] = "[\"news\",\"jobs\"]";
    assert_int_equal(http_response(&w, 200, "application/json", body, sizeof body - 1,
                                   "Access-Control-Allow-Origin: *\r\n"),
                     ZQ_OK);
    static const char want[] = "HTTP/1.1 200 OK\r\n"
                               "Content-Type: application/json\r\n"
                               "Content-Length: 15\r\n"
                               "Connection: close\r\n"
                               "Cache-Control: no-store\r\n"
                               "Access-Control-Allow-Origin: *\r\n"
                               "\r\n"
                               "[\"news\",\"jobs\"]";
    assert_int_equal(w.len, sizeof want - 1);
    assert_memory_equal(buf, want, w.len);
    /* And it reads back. */
    assert_int_equal(http_parse_response((const char *)buf, w.len, &res), ZQ_OK);
    assert_int_equal(res.status, 200);
    assert_int_equal(w.len - res.head_len, 15);
}

static void response_head_for_a_file_leaves_the_body_to_the_caller(void **state)
{
    (void)state;
    uint8_t buf[256];
    zq_writer_t w = zq_writer(buf, sizeof buf);
    assert_int_equal(http_response_head(&w, 404, NULL, 0, NULL), ZQ_OK);
    static const char want[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
                               "Connection: close\r\nCache-Control: no-store\r\n\r\n";
    assert_int_equal(w.len, sizeof want - 1);
    assert_memory_equal(buf, want, w.len);
    w = zq_writer(buf, sizeof buf);
    assert_int_equal(http_response_head(&w, 204, NULL, 0, NULL), ZQ_OK);
    zq_write_u8(&w, 0);
    assert_null(strstr((const char *)buf, "Content-Length")); /* §6.3: none on a 204 */
    w = zq_writer(buf, sizeof buf);
    assert_int_equal(
        http_response_head(&w, 426, "text/plain", 1234567, "Sec-WebSocket-Version: 13\r\n"),
        ZQ_OK);
    zq_write_u8(&w, 0);
    assert_memory_equal(buf, "HTTP/1.1 426 Upgrade Required\r\n", 31);
    assert_non_null(strstr((const char *)buf, "\r\nContent-Length: 1234567\r\n"));
    assert_non_null(strstr((const char *)buf, "\r\nSec-WebSocket-Version: 13\r\n\r\n"));
}

static void response_builder_refuses_injection(void **state)
{
    (void)state;
    uint8_t buf[256];
    static const char *const bad_extra[] = {
        "X: 1",                             /* no CRLF */
        "X: 1\r\n\r\nHTTP/1.1 200 OK\r\n",  /* a second response */
        "X: 1\nY: 2\r\n",                   /* bare LF */
        "Bad Name: 1\r\n",
        "X: a\rb\r\n",
    };
    for (size_t i = 0; i < sizeof bad_extra / sizeof bad_extra[0]; i++) {
        zq_writer_t w = zq_writer(buf, sizeof buf);
        assert_int_equal(http_response_head(&w, 200, NULL, 0, bad_extra[i]), ZQ_ERR_INVALID_ARG);
        assert_int_equal(w.len, 0);
    }
    zq_writer_t w = zq_writer(buf, sizeof buf);
    assert_int_equal(http_response_head(&w, 200, "text/html\r\nX: y", 0, NULL),
                     ZQ_ERR_INVALID_ARG);
    assert_int_equal(http_response_head(&w, 99, NULL, 0, NULL), ZQ_ERR_INVALID_ARG);
    assert_int_equal(http_response_head(&w, 600, NULL, 0, NULL), ZQ_ERR_INVALID_ARG);
    assert_int_equal(http_response(&w, 200, NULL, NULL, 3, NULL), ZQ_ERR_INVALID_ARG);
}

static void response_builder_never_writes_past_its_buffer(void **state)
{
    (void)state;
    static const char body[] = "hello";
    for (size_t cap = 0; cap < 120; cap++) {
        uint8_t buf[128];
        memset(buf, 0xA5, sizeof buf);
        zq_writer_t w = zq_writer(buf + 4, cap);
        zq_err_t err = http_response(&w, 200, "text/plain", body, 5, NULL);
        size_t want = strlen("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
                             "Connection: close\r\nCache-Control: no-store\r\n\r\nhello");
        assert_int_equal(err, cap >= want ? ZQ_OK : ZQ_ERR_NO_SPACE);
        for (size_t i = 0; i < 4; i++) {
            assert_int_equal(buf[i], 0xA5);
        }
        for (size_t i = 4 + cap; i < sizeof buf; i++) {
            assert_int_equal(buf[i], 0xA5);
        }
    }
}

static void reason_phrases(void **state)
{
    (void)state;
    assert_string_equal(http_reason(200), "OK");
    assert_string_equal(http_reason(101), "Switching Protocols");
    assert_string_equal(http_reason(431), "Request Header Fields Too Large");
    assert_string_equal(http_reason(299), "Unknown");
}

/* ---- Static files ------------------------------------------------------------------------- */

static void assert_safe(const char *path, const char *want)
{
    char out[64];
    zq_err_t err = http_safe_path(path, strlen(path), out, sizeof out);
    if (err != ZQ_OK) {
        fail_msg("%s: %s", path, zq_errname(err));
    }
    assert_string_equal(out, want);
}

static void safe_path_maps_requests_to_files(void **state)
{
    (void)state;
    assert_safe("/", "index.html");
    assert_safe("/index.html", "index.html");
    assert_safe("/app/", "app/index.html");
    assert_safe("/js/zq.mjs", "js/zq.mjs");
    assert_safe("/a%20b.js", "a b.js");
    assert_safe("/caf%C3%A9.txt", "caf\xc3\xa9.txt");
    assert_safe("/a%2fb", "a/b"); /* an encoded separator is a separator */
    assert_safe("/a.b.c", "a.b.c");
    assert_safe("/x/y..z", "x/y..z"); /* dots inside a name are fine */
}

static const char *const unsafe_paths[] = {
    "index.html", "*", "/..", "/../etc/passwd", "/a/../b", "/a/..", "/%2e%2e/x", "/%2E%2E%2Fx",
    "/a%2F..%2Fb", "/.git/config", "/.env", "/a/./b", "/.", "//etc/passwd", "/a//b", "/a\\b",
    "/a%5cb", "/a%5Cb", "/a%00b", "/%", "/%4", "/%zz", "/%4g", "/a%0a", "/a%0D", "/a%7f",
    "/%ff", "/%C3", "/%C3%28", "/%ED%A0%80", "/%2F", "/a/%2F",
};

static void safe_path_refuses_escapes_and_oddities(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof unsafe_paths / sizeof unsafe_paths[0]; i++) {
        char out[64];
        zq_err_t err = http_safe_path(unsafe_paths[i], strlen(unsafe_paths[i]), out, sizeof out);
        if (err != ZQ_ERR_MALFORMED) {
            fail_msg("%s: %s", unsafe_paths[i], zq_errname(err));
        }
    }
    char out[8];
    assert_int_equal(http_safe_path("", 0, out, sizeof out), ZQ_ERR_MALFORMED);
    assert_int_equal(http_safe_path("/a\0b", 4, out, sizeof out), ZQ_ERR_MALFORMED);
}

static void safe_path_reports_no_space_without_overrun(void **state)
{
    (void)state;
    static const char path[] = "/dir/file.js"; /* "dir/file.js": 11 bytes and a NUL */
    for (size_t cap = 0; cap <= 13; cap++) {
        char buf[20];
        memset(buf, 0xA5, sizeof buf);
        zq_err_t err = http_safe_path(path, sizeof path - 1, buf + 2, cap);
        assert_int_equal(err, cap >= 12 ? ZQ_OK : ZQ_ERR_NO_SPACE);
        assert_int_equal((uint8_t)buf[0], 0xA5);
        assert_int_equal((uint8_t)buf[1], 0xA5);
        for (size_t i = 2 + cap; i < sizeof buf; i++) {
            assert_int_equal((uint8_t)buf[i], 0xA5);
        }
    }
    char out[10];
    assert_int_equal(http_safe_path("/", 1, out, 10), ZQ_ERR_NO_SPACE); /* "index.html" + NUL */
    /* A malformed path is malformed whatever the room. */
    assert_int_equal(http_safe_path("/../x", 5, out, 1), ZQ_ERR_MALFORMED);
}

static void content_types_by_extension(void **state)
{
    (void)state;
    assert_string_equal(http_content_type("index.html"), "text/html; charset=utf-8");
    assert_string_equal(http_content_type("js/zq.js"), "text/javascript; charset=utf-8");
    assert_string_equal(http_content_type("js/zq.MJS"), "text/javascript; charset=utf-8");
    assert_string_equal(http_content_type("style.css"), "text/css; charset=utf-8");
    assert_string_equal(http_content_type("api.json"), "application/json");
    assert_string_equal(http_content_type("zq.js.map"), "application/json");
    assert_string_equal(http_content_type("logo.svg"), "image/svg+xml");
    assert_string_equal(http_content_type("logo.PNG"), "image/png");
    assert_string_equal(http_content_type("favicon.ico"), "image/x-icon");
    assert_string_equal(http_content_type("robots.txt"), "text/plain; charset=utf-8");
    assert_string_equal(http_content_type("zq.wasm"), "application/wasm");
    assert_string_equal(http_content_type("README"), "application/octet-stream");
    assert_string_equal(http_content_type("v1.2/README"), "application/octet-stream");
    assert_string_equal(http_content_type("file.html.gz"), "application/octet-stream");
    assert_string_equal(http_content_type("trailing."), "application/octet-stream");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_a_browser_upgrade_request),
        cmocka_unit_test(field_values_lose_surrounding_whitespace),
        cmocka_unit_test(path_and_query_are_split),
        cmocka_unit_test(a_query_parameter_is_found_by_its_whole_name_and_percent_decoded),
        cmocka_unit_test(a_missing_parameter_is_not_found),
        cmocka_unit_test(a_bad_escape_or_a_decoded_control_byte_is_malformed),
        cmocka_unit_test(a_value_longer_than_the_buffer_is_too_long_not_cut),
        cmocka_unit_test(absolute_form_target_yields_its_path),
        cmocka_unit_test(asterisk_form_only_for_options),
        cmocka_unit_test(empty_lines_before_the_request_line_are_skipped),
        cmocka_unit_test(http_1_0_needs_no_host),
        cmocka_unit_test(other_major_versions_are_unsupported),
        cmocka_unit_test(every_prefix_needs_more),
        cmocka_unit_test(body_starts_after_the_head),
        cmocka_unit_test(malformed_requests_are_refused),
        cmocka_unit_test(garbage_is_refused_before_the_head_ends),
        cmocka_unit_test(head_of_the_maximum_size_is_accepted_and_one_more_is_too_long),
        cmocka_unit_test(too_many_fields_are_too_long),
        cmocka_unit_test(content_length_rules),
        cmocka_unit_test(token_lists_span_repeated_fields),
        cmocka_unit_test(websocket_upgrade_needs_every_part),
        cmocka_unit_test(response_heads_parse),
        cmocka_unit_test(response_builder_writes_every_field),
        cmocka_unit_test(response_head_for_a_file_leaves_the_body_to_the_caller),
        cmocka_unit_test(response_builder_refuses_injection),
        cmocka_unit_test(response_builder_never_writes_past_its_buffer),
        cmocka_unit_test(reason_phrases),
        cmocka_unit_test(safe_path_maps_requests_to_files),
        cmocka_unit_test(safe_path_refuses_escapes_and_oddities),
        cmocka_unit_test(safe_path_reports_no_space_without_overrun),
        cmocka_unit_test(content_types_by_extension),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

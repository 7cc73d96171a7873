/* WebSocket: RFC 6455's examples byte for byte (§1.3, §5.7), the opening handshake both ways,
 * each protocol rule with its close code, partial feeds, and the close handshake. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "signal/http.h"
#include "signal/ws.h"
#include "test_rand.h"

/* §5.7's masking key 37 fa 21 3d, over and over. */
static int fixed_mask(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    static const uint8_t key[4] = {0x37, 0xfa, 0x21, 0x3d};
    for (size_t i = 0; i < len; i++) {
        out[i] = key[i % 4];
    }
    return 0;
}

static int broken_rand(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    (void)out;
    (void)len;
    return -1;
}

static const zq_rand_t rfc_mask = {fixed_mask, NULL};

/* Connections are large (two 64 KiB buffers): keep them out of the stack. */
static ws_conn_t client, server;

/* ---- Recording what a connection reports --------------------------------------------------- */

#define MAX_EVENTS 16

typedef struct {
    ws_event_type_t type;
    bool text;
    bool remote;
    uint16_t code;
    size_t len;
    uint8_t head[160]; /* the first bytes of the payload or reason */
} seen_event_t;

typedef struct {
    seen_event_t ev[MAX_EVENTS];
    size_t n;
    zq_err_t last_feed;
} recorder_t;

static uint8_t last_message[ZQ_WS_MAX_MESSAGE]; /* a full copy of the latest message */
static size_t last_message_len;

static void record(recorder_t *r, const ws_event_t *ev)
{
    assert_true(r->n < MAX_EVENTS);
    seen_event_t *s = &r->ev[r->n++];
    s->type = ev->type;
    s->text = ev->text;
    s->remote = ev->remote;
    s->code = ev->code;
    s->len = ev->len;
    memcpy(s->head, ev->data, ev->len < sizeof s->head ? ev->len : sizeof s->head);
    if (ev->type == WS_EVENT_MESSAGE) {
        memcpy(last_message, ev->data, ev->len);
        last_message_len = ev->len;
    }
}

/* Feeds @p len bytes in pieces of at most @p step, polling events as the API asks. */
static void feed_in_steps(ws_conn_t *c, const uint8_t *data, size_t len, size_t step,
                          recorder_t *r)
{
    size_t off = 0;
    for (;;) {
        size_t piece = len - off < step ? len - off : step;
        size_t used = 0;
        r->last_feed = ws_feed(c, data + off, piece, &used);
        off += used;
        ws_event_t ev;
        bool any = false;
        while (ws_poll_event(c, &ev)) {
            record(r, &ev);
            any = true;
        }
        if (r->last_feed != ZQ_OK || off == len || (used == 0 && !any)) {
            return;
        }
    }
}

static recorder_t feed(ws_conn_t *c, const uint8_t *data, size_t len)
{
    recorder_t r = {0};
    feed_in_steps(c, data, len, len > 0 ? len : 1, &r);
    return r;
}

/* Everything the connection has to send, consumed. */
static size_t take_output(ws_conn_t *c, uint8_t *out, size_t cap)
{
    const uint8_t *p;
    size_t len, total = 0;
    while (ws_pending_output(c, &p, &len)) {
        assert_true(total + len <= cap);
        memcpy(out + total, p, len);
        total += len;
        ws_output_consumed(c, len);
    }
    return total;
}

static void assert_output(ws_conn_t *c, const uint8_t *want, size_t want_len)
{
    static uint8_t out[ZQ_WS_TX_BUFFER];
    size_t n = take_output(c, out, sizeof out);
    assert_int_equal(n, want_len);
    if (want_len > 0) {
        assert_memory_equal(out, want, want_len);
    }
}

static void assert_message(const recorder_t *r, size_t i, bool text, const char *want)
{
    assert_true(i < r->n);
    assert_int_equal(r->ev[i].type, WS_EVENT_MESSAGE);
    assert_int_equal(r->ev[i].text, text);
    assert_int_equal(r->ev[i].len, strlen(want));
    assert_memory_equal(r->ev[i].head, want, strlen(want));
}

static void assert_closed(const recorder_t *r, uint16_t code, bool remote)
{
    assert_true(r->n > 0);
    const seen_event_t *last = &r->ev[r->n - 1];
    assert_int_equal(last->type, WS_EVENT_CLOSED);
    assert_int_equal(last->code, code);
    assert_int_equal(last->remote, remote);
}

/* ---- §1.3 and §4: the opening handshake --------------------------------------------------- */

static const uint8_t sample_nonce[16] = "the sample nonce"; /* §1.3's key decodes to this */

static void rfc6455_accept_key_example(void **state)
{
    (void)state;
    char accept[WS_ACCEPT_LEN + 1];
    ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", 24, accept);
    assert_string_equal(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

static size_t build_request(char *buf, size_t cap, const char *extra)
{
    ws_client_handshake_t hs = {.host = "server.example.com",
                                .path = "/chat",
                                .origin = "http://example.com",
                                .extra_header = extra};
    memcpy(hs.nonce, sample_nonce, 16);
    zq_writer_t w = zq_writer((uint8_t *)buf, cap);
    assert_int_equal(ws_client_request(&w, &hs), ZQ_OK);
    return w.len;
}

static void client_request_is_rfc6455_section_1_3_request(void **state)
{
    (void)state;
    static const char want[] = "GET /chat HTTP/1.1\r\n"
                               "Host: server.example.com\r\n"
                               "Upgrade: websocket\r\n"
                               "Connection: Upgrade\r\n"
                               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                               "Sec-WebSocket-Version: 13\r\n"
                               "Origin: http://example.com\r\n"
                               "Authorization: Bearer t0k3n\r\n"
                               "\r\n";
    char buf[512];
    size_t n = build_request(buf, sizeof buf, "Authorization: Bearer t0k3n");
    assert_int_equal(n, sizeof want - 1);
    assert_memory_equal(buf, want, n);
    http_request_t req;
    assert_int_equal(http_parse_request(buf, n, &req), ZQ_OK);
    assert_true(http_is_websocket_upgrade(&req));
}

static void client_request_refuses_header_injection(void **state)
{
    (void)state;
    char buf[512];
    zq_writer_t w = zq_writer((uint8_t *)buf, sizeof buf);
    ws_client_handshake_t hs = {.host = "h", .path = "/ws"};
    assert_int_equal(ws_client_request(&w, &hs), ZQ_OK);
    static const char *const bad_hosts[] = {"h\r\nX-Evil: 1", "", "h\n"};
    for (size_t i = 0; i < 3; i++) {
        hs.host = bad_hosts[i];
        assert_int_equal(ws_client_request(&w, &hs), ZQ_ERR_INVALID_ARG);
    }
    hs.host = "h";
    static const char *const bad_paths[] = {"ws", "/a b", "/\r\n", ""};
    for (size_t i = 0; i < 4; i++) {
        hs.path = bad_paths[i];
        assert_int_equal(ws_client_request(&w, &hs), ZQ_ERR_INVALID_ARG);
    }
    hs.path = "/ws";
    static const char *const bad_extra[] = {"X: 1\r\nY: 2", "no colon", "Bad Name: 1", ": v"};
    for (size_t i = 0; i < 4; i++) {
        hs.extra_header = bad_extra[i];
        assert_int_equal(ws_client_request(&w, &hs), ZQ_ERR_INVALID_ARG);
    }
    hs.extra_header = NULL;
    hs.origin = "o\r\n";
    assert_int_equal(ws_client_request(&w, &hs), ZQ_ERR_INVALID_ARG);
}

static void client_request_reports_no_space(void **state)
{
    (void)state;
    char full[512];
    size_t want = build_request(full, sizeof full, NULL);
    for (size_t cap = 0; cap < want; cap += 7) {
        char buf[512];
        memset(buf, 0xA5, sizeof buf);
        zq_writer_t w = zq_writer((uint8_t *)buf, cap);
        ws_client_handshake_t hs = {.host = "server.example.com", .path = "/chat",
                                    .origin = "http://example.com"};
        memcpy(hs.nonce, sample_nonce, 16);
        assert_int_equal(ws_client_request(&w, &hs), ZQ_ERR_NO_SPACE);
        assert_int_equal((uint8_t)buf[cap], 0xA5);
    }
}

static void server_answer_completes_client_handshake(void **state)
{
    (void)state;
    char req_buf[512];
    size_t req_len = build_request(req_buf, sizeof req_buf, NULL);
    http_request_t req;
    assert_int_equal(http_parse_request(req_buf, req_len, &req), ZQ_OK);

    char res_buf[512];
    zq_writer_t w = zq_writer((uint8_t *)res_buf, sizeof res_buf);
    assert_int_equal(ws_server_response(&w, &req, NULL), ZQ_OK);
    static const char want[] = "HTTP/1.1 101 Switching Protocols\r\n"
                               "Upgrade: websocket\r\n"
                               "Connection: Upgrade\r\n"
                               "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
                               "\r\n";
    assert_int_equal(w.len, sizeof want - 1);
    assert_memory_equal(res_buf, want, w.len);

    /* The first frame may arrive in the same read as the head. */
    static const uint8_t hello[] = {0x81, 0x05, 'H', 'e', 'l', 'l', 'o'};
    memcpy(res_buf + w.len, hello, sizeof hello);
    size_t consumed = 0;
    int status = 0;
    assert_int_equal(ws_client_check_response(res_buf, w.len + sizeof hello, sample_nonce,
                                              &consumed, &status),
                     ZQ_OK);
    assert_int_equal(status, 101);
    assert_int_equal(consumed, w.len);
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    recorder_t r = feed(&client, (const uint8_t *)res_buf + consumed, sizeof hello);
    assert_int_equal(r.n, 1);
    assert_message(&r, 0, true, "Hello");
}

static zq_err_t check_response(const char *text, int *status)
{
    size_t consumed;
    return ws_client_check_response(text, strlen(text), sample_nonce, &consumed, status);
}

static void client_check_refuses_bad_answers(void **state)
{
    (void)state;
    int status = 0;
    assert_int_equal(check_response("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n",
                                    &status),
                     ZQ_ERR_NEED_MORE);
    assert_int_equal(check_response("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", &status),
                     ZQ_ERR_UNSUPPORTED);
    assert_int_equal(status, 404);
    assert_int_equal(check_response("HTTP/1.1 101 OK\r\nConnection: Upgrade\r\n"
                                    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
                                    &status),
                     ZQ_ERR_UNSUPPORTED); /* no Upgrade */
    assert_int_equal(check_response("HTTP/1.1 101 OK\r\nUpgrade: WebSocket\r\n"
                                    "Connection: keep-alive, upgrade\r\n"
                                    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
                                    &status),
                     ZQ_OK); /* tokens are case-insensitive, Connection is a list */
    assert_int_equal(check_response("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\n"
                                    "Connection: Upgrade\r\n"
                                    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
                                    "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n",
                                    &status),
                     ZQ_ERR_UNSUPPORTED);
    assert_int_equal(check_response("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\n"
                                    "Connection: Upgrade\r\n"
                                    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo+\r\n\r\n",
                                    &status),
                     ZQ_ERR_INTEGRITY);
    assert_int_equal(check_response("HTTP/1.1 101 OK\r\nUpgrade: websocket\r\n"
                                    "Connection: Upgrade\r\n\r\n",
                                    &status),
                     ZQ_ERR_INTEGRITY);
    assert_int_equal(check_response("SSH-2.0-OpenSSH_9.6\r\n\r\n", &status), ZQ_ERR_MALFORMED);
}

static void server_response_refuses_non_upgrades(void **state)
{
    (void)state;
    static const char text[] = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
    http_request_t req;
    assert_int_equal(http_parse_request(text, sizeof text - 1, &req), ZQ_OK);
    char buf[256];
    zq_writer_t w = zq_writer((uint8_t *)buf, sizeof buf);
    assert_int_equal(ws_server_response(&w, &req, NULL), ZQ_ERR_INVALID_ARG);
}

/* ---- §5.7 examples ------------------------------------------------------------------------ */

static const uint8_t unmasked_hello[] = {0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f};
static const uint8_t masked_hello[] = {0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d,
                                       0x7f, 0x9f, 0x4d, 0x51, 0x58};
static const uint8_t fragmented_hello[] = {0x01, 0x03, 0x48, 0x65, 0x6c, /* "Hel" */
                                           0x80, 0x02, 0x6c, 0x6f};      /* "lo" */
static const uint8_t unmasked_ping[] = {0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f};
static const uint8_t masked_pong[] = {0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d,
                                      0x7f, 0x9f, 0x4d, 0x51, 0x58};

static void rfc6455_unmasked_text_reaches_client(void **state)
{
    (void)state;
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    recorder_t r = feed(&client, unmasked_hello, sizeof unmasked_hello);
    assert_int_equal(r.n, 1);
    assert_message(&r, 0, true, "Hello");
}

static void rfc6455_masked_text_reaches_server(void **state)
{
    (void)state;
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    recorder_t r = feed(&server, masked_hello, sizeof masked_hello);
    assert_int_equal(r.n, 1);
    assert_message(&r, 0, true, "Hello");
}

static void rfc6455_client_masks_hello_byte_for_byte(void **state)
{
    (void)state;
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    assert_int_equal(ws_send_text(&client, "Hello", 5), ZQ_OK);
    assert_output(&client, masked_hello, sizeof masked_hello);
}

static void rfc6455_server_sends_hello_unmasked(void **state)
{
    (void)state;
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    assert_int_equal(ws_send_text(&server, "Hello", 5), ZQ_OK);
    assert_output(&server, unmasked_hello, sizeof unmasked_hello);
}

static void rfc6455_fragmented_text_is_one_message(void **state)
{
    (void)state;
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    recorder_t r = feed(&client, fragmented_hello, sizeof fragmented_hello);
    assert_int_equal(r.n, 1);
    assert_message(&r, 0, true, "Hello");
}

static void rfc6455_ping_is_answered_with_masked_pong(void **state)
{
    (void)state;
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    recorder_t r = feed(&client, unmasked_ping, sizeof unmasked_ping);
    assert_int_equal(r.n, 0); /* answered without involving the caller */
    assert_output(&client, masked_pong, sizeof masked_pong);
}

static void rfc6455_pong_reaches_server_as_event(void **state)
{
    (void)state;
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    recorder_t r = feed(&server, masked_pong, sizeof masked_pong);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ev[0].type, WS_EVENT_PONG);
    assert_int_equal(r.ev[0].len, 5);
    assert_memory_equal(r.ev[0].head, "Hello", 5);
}

static uint8_t big[ZQ_WS_MAX_MESSAGE + 16];

static void fill_pattern(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(i * 7 + 3);
    }
}

static void rfc6455_256_byte_binary_uses_16_bit_length(void **state)
{
    (void)state;
    uint8_t payload[256];
    fill_pattern(payload, sizeof payload);
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    assert_int_equal(ws_send_binary(&server, payload, sizeof payload), ZQ_OK);
    big[0] = 0x82;
    big[1] = 0x7E;
    big[2] = 0x01;
    big[3] = 0x00;
    memcpy(big + 4, payload, sizeof payload);
    assert_output(&server, big, 4 + sizeof payload);

    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    recorder_t r = feed(&client, big, 4 + sizeof payload);
    assert_int_equal(r.n, 1);
    assert_false(r.ev[0].text);
    assert_int_equal(last_message_len, 256);
    assert_memory_equal(last_message, payload, 256);
}

static void rfc6455_64k_binary_uses_64_bit_length(void **state)
{
    (void)state;
    static uint8_t payload[65536];
    fill_pattern(payload, sizeof payload);
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    assert_int_equal(ws_send_binary(&server, payload, sizeof payload), ZQ_OK);
    static const uint8_t head[] = {0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0};
    memcpy(big, head, sizeof head);
    memcpy(big + sizeof head, payload, sizeof payload);
    assert_output(&server, big, sizeof head + sizeof payload);

    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    recorder_t r = feed(&client, big, sizeof head + sizeof payload);
    assert_int_equal(r.n, 1);
    assert_int_equal(last_message_len, sizeof payload);
    assert_memory_equal(last_message, payload, sizeof payload);
}

/* §5.2: 7-bit lengths up to 125, 16-bit from 126 to 65535, 64-bit from 65536; both roles. */
static void length_forms_switch_at_126_and_65536(void **state)
{
    (void)state;
    static const size_t lengths[] = {0, 1, 125, 126, 127, 65535, 65536};
    static uint8_t wire[ZQ_WS_TX_BUFFER];
    fill_pattern(big, sizeof big);
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
        size_t len = lengths[i];
        size_t ext = len < 126 ? 0 : len < 65536 ? 2 : 8;
        for (int sender = 0; sender < 2; sender++) {
            ws_conn_t *from = sender == 0 ? &server : &client;
            ws_conn_t *to = sender == 0 ? &client : &server;
            ws_conn_init(&server, WS_ROLE_SERVER, NULL);
            ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
            assert_int_equal(ws_send_binary(from, big, len), ZQ_OK);
            size_t n = take_output(from, wire, sizeof wire);
            size_t mask = sender == 0 ? 0 : 4;
            assert_int_equal(n, 2 + ext + mask + len);
            uint8_t len7 = ext == 0 ? (uint8_t)len : ext == 2 ? 126 : 127;
            assert_int_equal(wire[1] & 0x7F, len7);
            recorder_t r = feed(to, wire, n);
            assert_int_equal(r.n, 1);
            assert_int_equal(last_message_len, len);
            if (len > 0) {
                assert_memory_equal(last_message, big, len);
            }
        }
    }
}

/* ---- §5.4 fragmentation ------------------------------------------------------------------- */

static void ping_between_fragments_is_answered_and_message_completes(void **state)
{
    (void)state;
    static const uint8_t frames[] = {0x01, 0x03, 'H', 'e', 'l', 0x89, 0x02, 'h', 'i',
                                     0x00, 0x00, /* an empty middle fragment */
                                     0x8A, 0x00, 0x80, 0x02, 'l', 'o'};
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    recorder_t r = feed(&client, frames, sizeof frames);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.ev[0].type, WS_EVENT_PONG);
    assert_message(&r, 1, true, "Hello");
    static const uint8_t pong[] = {0x8a, 0x82, 0x37, 0xfa, 0x21, 0x3d, 'h' ^ 0x37, 'i' ^ 0xfa};
    assert_output(&client, pong, sizeof pong);
}

static void utf8_split_across_fragments_is_valid(void **state)
{
    (void)state;
    static const uint8_t frames[] = {0x01, 0x01, 0xc3, 0x80, 0x01, 0xa9}; /* "é" in two */
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    recorder_t r = feed(&client, frames, sizeof frames);
    assert_int_equal(r.n, 1);
    assert_message(&r, 0, true, "\xc3\xa9");
}

static void a_waiting_event_stops_the_feed(void **state)
{
    (void)state;
    uint8_t two[2 * sizeof unmasked_hello];
    memcpy(two, unmasked_hello, sizeof unmasked_hello);
    memcpy(two + sizeof unmasked_hello, unmasked_hello, sizeof unmasked_hello);
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    size_t used;
    assert_int_equal(ws_feed(&client, two, sizeof two, &used), ZQ_OK);
    assert_int_equal(used, sizeof unmasked_hello);
    assert_int_equal(ws_feed(&client, two + used, sizeof two - used, &used), ZQ_OK);
    assert_int_equal(used, 0); /* the first message has not been polled */
    ws_event_t ev;
    assert_true(ws_poll_event(&client, &ev));
    assert_false(ws_poll_event(&client, &ev));
    assert_int_equal(ws_feed(&client, two + 7, 7, &used), ZQ_OK);
    assert_int_equal(used, 7);
    assert_true(ws_poll_event(&client, &ev));
    assert_int_equal(ev.len, 5);
}

/* A stream with every kind of frame, fed whole and then byte by byte. */
static void byte_by_byte_feed_gives_the_same_events(void **state)
{
    (void)state;
    static uint8_t stream[1024];
    size_t n = 0;
    memcpy(stream + n, fragmented_hello, sizeof fragmented_hello);
    n += sizeof fragmented_hello;
    memcpy(stream + n, unmasked_ping, sizeof unmasked_ping);
    n += sizeof unmasked_ping;
    stream[n++] = 0x82;
    stream[n++] = 0x7E;
    stream[n++] = 0x01;
    stream[n++] = 0x2C; /* 300 bytes */
    fill_pattern(stream + n, 300);
    n += 300;
    memcpy(stream + n, unmasked_hello, sizeof unmasked_hello);
    n += sizeof unmasked_hello;
    static const uint8_t close[] = {0x88, 0x05, 0x03, 0xE8, 'b', 'y', 'e'};
    memcpy(stream + n, close, sizeof close);
    n += sizeof close;

    static recorder_t whole, bytes;
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    whole = feed(&client, stream, n);
    static uint8_t out_whole[512], out_bytes[512];
    size_t out_whole_len = take_output(&client, out_whole, sizeof out_whole);

    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    memset(&bytes, 0, sizeof bytes);
    feed_in_steps(&client, stream, n, 1, &bytes);
    size_t out_bytes_len = take_output(&client, out_bytes, sizeof out_bytes);

    assert_int_equal(whole.n, 4); /* Hello, 300 bytes, Hello, closed */
    assert_int_equal(bytes.n, whole.n);
    for (size_t i = 0; i < whole.n; i++) {
        assert_int_equal(bytes.ev[i].type, whole.ev[i].type);
        assert_int_equal(bytes.ev[i].len, whole.ev[i].len);
        assert_memory_equal(bytes.ev[i].head, whole.ev[i].head, sizeof whole.ev[i].head);
    }
    assert_closed(&whole, 1000, true);
    assert_int_equal(out_bytes_len, out_whole_len);
    assert_memory_equal(out_bytes, out_whole, out_whole_len);
}

/* ---- Protocol violations and their close codes (§7.4.1) ----------------------------------- */

typedef struct {
    const char *rule;
    ws_role_t role; /* the receiving side */
    uint8_t bytes[24];
    size_t len;
    uint16_t code;
} violation_t;

static const violation_t violations[] = {
    {"RSV1 set without an extension", WS_ROLE_CLIENT, {0xC1, 0x00}, 2, 1002},
    {"RSV3 set", WS_ROLE_CLIENT, {0x91, 0x00}, 2, 1002},
    {"reserved data opcode 3", WS_ROLE_CLIENT, {0x83, 0x00}, 2, 1002},
    {"reserved control opcode 0xB", WS_ROLE_CLIENT, {0x8B, 0x00}, 2, 1002},
    {"fragmented ping", WS_ROLE_CLIENT, {0x09, 0x00}, 2, 1002},
    {"ping longer than 125", WS_ROLE_CLIENT, {0x89, 0x7E, 0x00, 0x7E}, 4, 1002},
    {"close longer than 125", WS_ROLE_CLIENT, {0x88, 0x7E}, 2, 1002},
    {"unmasked frame from a client", WS_ROLE_SERVER, {0x81, 0x01, 'a'}, 3, 1002},
    {"masked frame from a server", WS_ROLE_CLIENT, {0x81, 0x81, 1, 2, 3, 4, 'a'}, 7, 1002},
    {"continuation without a message", WS_ROLE_CLIENT, {0x80, 0x01, 'a'}, 3, 1002},
    {"text inside a fragmented message", WS_ROLE_CLIENT,
     {0x01, 0x01, 'a', 0x81, 0x01, 'b'}, 6, 1002},
    {"binary inside a fragmented message", WS_ROLE_CLIENT,
     {0x02, 0x01, 'a', 0x02, 0x01, 'b'}, 6, 1002},
    {"64-bit length with top bit", WS_ROLE_CLIENT,
     {0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1}, 10, 1002},
    {"close with a 1-byte payload", WS_ROLE_CLIENT, {0x88, 0x01, 0x03}, 3, 1002},
    {"close code 999", WS_ROLE_CLIENT, {0x88, 0x02, 0x03, 0xE7}, 4, 1002},
    {"close code 1004", WS_ROLE_CLIENT, {0x88, 0x02, 0x03, 0xEC}, 4, 1002},
    {"close code 1005", WS_ROLE_CLIENT, {0x88, 0x02, 0x03, 0xED}, 4, 1002},
    {"close code 1006", WS_ROLE_CLIENT, {0x88, 0x02, 0x03, 0xEE}, 4, 1002},
    {"close code 1015", WS_ROLE_CLIENT, {0x88, 0x02, 0x03, 0xF7}, 4, 1002},
    {"close code 2000", WS_ROLE_CLIENT, {0x88, 0x02, 0x07, 0xD0}, 4, 1002},
    {"close code 5000", WS_ROLE_CLIENT, {0x88, 0x02, 0x13, 0x88}, 4, 1002},
    {"text not UTF-8", WS_ROLE_CLIENT, {0x81, 0x02, 0xc3, 0x28}, 4, 1007},
    {"text with an encoded surrogate", WS_ROLE_CLIENT, {0x81, 0x03, 0xed, 0xa0, 0x80}, 5, 1007},
    {"text ending inside a character", WS_ROLE_CLIENT, {0x81, 0x01, 0xc3}, 3, 1007},
    {"text fragments ending inside a character", WS_ROLE_CLIENT,
     {0x01, 0x01, 'a', 0x80, 0x02, 'b', 0xe2}, 7, 1007},
    {"close reason not UTF-8", WS_ROLE_CLIENT, {0x88, 0x03, 0x03, 0xE8, 0xff}, 5, 1007},
    {"message longer than the maximum", WS_ROLE_CLIENT,
     {0x82, 0x7F, 0, 0, 0, 0, 0, (ZQ_WS_MAX_MESSAGE + 1) >> 16 & 0xFF,
      (ZQ_WS_MAX_MESSAGE + 1) >> 8 & 0xFF, (ZQ_WS_MAX_MESSAGE + 1) & 0xFF}, 10, 1009},
    {"length of 2^62", WS_ROLE_CLIENT, {0x82, 0x7F, 0x40, 0, 0, 0, 0, 0, 0, 0}, 10, 1009},
};

static void each_violation_fails_with_its_close_code(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof violations / sizeof violations[0]; i++) {
        const violation_t *v = &violations[i];
        ws_conn_t *c = v->role == WS_ROLE_CLIENT ? &client : &server;
        ws_conn_init(c, v->role, &rfc_mask);
        recorder_t r = feed(c, v->bytes, v->len);
        if (r.n == 0 || r.ev[r.n - 1].type != WS_EVENT_CLOSED || r.ev[r.n - 1].code != v->code ||
            r.ev[r.n - 1].remote) {
            fail_msg("%s: no local close %u", v->rule, v->code);
        }
        assert_int_equal(ws_state(c), WS_STATE_CLOSED);
        /* The close frame we send carries the code (a client's is masked). */
        uint8_t out[160];
        size_t n = take_output(c, out, sizeof out);
        size_t off = v->role == WS_ROLE_CLIENT ? 6 : 2;
        assert_true(n >= off + 2);
        assert_int_equal(out[0], 0x88);
        uint8_t hi = out[off] ^ (v->role == WS_ROLE_CLIENT ? 0x37 : 0);
        uint8_t lo = out[off + 1] ^ (v->role == WS_ROLE_CLIENT ? 0xfa : 0);
        assert_int_equal(hi << 8 | lo, v->code);
        size_t used;
        assert_int_equal(ws_feed(c, v->bytes, v->len, &used), ZQ_ERR_CLOSED);
    }
}

static void oversize_fragmented_message_fails_with_1009(void **state)
{
    (void)state;
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    /* Fragments of 60000 bytes: the second takes the total past ZQ_WS_MAX_MESSAGE. */
    size_t frag = ZQ_WS_MAX_MESSAGE / 2 + 1;
    uint8_t head[4] = {0x02, 0x7E, (uint8_t)(frag >> 8), (uint8_t)frag};
    memset(big, 'x', sizeof big);
    recorder_t r = feed(&client, head, 4);
    assert_int_equal(r.n, 0);
    r = feed(&client, big, frag);
    assert_int_equal(r.n, 0);
    head[0] = 0x80;
    r = feed(&client, head, 4);
    assert_closed(&r, WS_CLOSE_TOO_BIG, false);
}

static void message_of_exactly_the_maximum_is_accepted(void **state)
{
    (void)state;
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    size_t half = ZQ_WS_MAX_MESSAGE / 2;
    uint8_t head[10] = {0x02, 0x7F, 0, 0, 0, 0, 0, (uint8_t)(half >> 16), (uint8_t)(half >> 8),
                        (uint8_t)half};
    memset(big, 'y', sizeof big);
    recorder_t r = feed(&client, head, 10);
    r = feed(&client, big, half);
    head[0] = 0x80;
    size_t rest = ZQ_WS_MAX_MESSAGE - half;
    head[7] = (uint8_t)(rest >> 16);
    head[8] = (uint8_t)(rest >> 8);
    head[9] = (uint8_t)rest;
    r = feed(&client, head, 10);
    r = feed(&client, big, rest);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ev[0].len, ZQ_WS_MAX_MESSAGE);
}

/* ---- §7 closing --------------------------------------------------------------------------- */

static void peer_close_is_echoed_then_closed(void **state)
{
    (void)state;
    static const uint8_t close[] = {0x88, 0x05, 0x03, 0xE8, 'b', 'y', 'e'};
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    recorder_t r = feed(&client, close, sizeof close);
    assert_int_equal(r.n, 1);
    assert_closed(&r, 1000, true);
    assert_int_equal(r.ev[0].len, 3);
    assert_memory_equal(r.ev[0].head, "bye", 3);
    assert_int_equal(ws_state(&client), WS_STATE_CLOSED);
    static const uint8_t echo[] = {0x88, 0x82, 0x37, 0xfa, 0x21, 0x3d, 0x03 ^ 0x37, 0xE8 ^ 0xfa};
    assert_output(&client, echo, sizeof echo);
    assert_int_equal(ws_send_text(&client, "x", 1), ZQ_ERR_CLOSED);
    assert_int_equal(ws_close(&client, 1000, NULL), ZQ_ERR_CLOSED);
}

static void empty_close_reports_1005_and_is_echoed_empty(void **state)
{
    (void)state;
    static const uint8_t close[] = {0x88, 0x80, 1, 2, 3, 4};
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    recorder_t r = feed(&server, close, sizeof close);
    assert_closed(&r, WS_CLOSE_NO_STATUS, true);
    static const uint8_t echo[] = {0x88, 0x00};
    assert_output(&server, echo, sizeof echo);
}

static void local_close_waits_for_the_peer(void **state)
{
    (void)state;
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    assert_int_equal(ws_close(&server, 1001, "going"), ZQ_OK);
    assert_int_equal(ws_state(&server), WS_STATE_CLOSING);
    static const uint8_t sent[] = {0x88, 0x07, 0x03, 0xE9, 'g', 'o', 'i', 'n', 'g'};
    assert_output(&server, sent, sizeof sent);
    assert_int_equal(ws_send_text(&server, "late", 4), ZQ_ERR_STATE);
    assert_int_equal(ws_close(&server, 1000, NULL), ZQ_ERR_STATE);

    /* A message still in flight from the peer is delivered; a ping is not answered (§5.5.1
     * nothing follows our close). */
    static const uint8_t late_msg[] = {0x81, 0x81, 0, 0, 0, 0, 'z', 0x89, 0x80, 0, 0, 0, 0};
    recorder_t r = feed(&server, late_msg, sizeof late_msg);
    assert_int_equal(r.n, 1);
    assert_message(&r, 0, true, "z");
    static const uint8_t reply[] = {0x88, 0x82, 0, 0, 0, 0, 0x03, 0xE9};
    r = feed(&server, reply, sizeof reply);
    assert_closed(&r, 1001, true);
    assert_output(&server, NULL, 0); /* no second close */
}

static void local_close_validates_code_and_reason(void **state)
{
    (void)state;
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    static const uint16_t bad[] = {1, 999, 1004, 1005, 1006, 1015, 2999, 5000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ws_close(&server, bad[i], NULL), ZQ_ERR_INVALID_ARG);
    }
    assert_int_equal(ws_close(&server, 0, "reason without a code"), ZQ_ERR_INVALID_ARG);
    assert_int_equal(ws_close(&server, 1000, "\xff"), ZQ_ERR_INVALID_ARG);
    char long_reason[125];
    memset(long_reason, 'r', 124);
    long_reason[124] = '\0';
    assert_int_equal(ws_close(&server, 1000, long_reason), ZQ_ERR_INVALID_ARG);
    long_reason[123] = '\0';
    assert_int_equal(ws_close(&server, 4000, long_reason), ZQ_OK);
    const uint8_t *p;
    size_t n;
    assert_true(ws_pending_output(&server, &p, &n));
    assert_int_equal(n, 2 + 125);
    assert_int_equal(p[1], 125);
}

static void transport_end_without_close_reports_1006(void **state)
{
    (void)state;
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    assert_int_equal(ws_send_text(&client, "unsent", 6), ZQ_OK);
    ws_transport_closed(&client);
    ws_event_t ev;
    assert_true(ws_poll_event(&client, &ev));
    assert_int_equal(ev.type, WS_EVENT_CLOSED);
    assert_int_equal(ev.code, WS_CLOSE_ABNORMAL);
    assert_false(ev.remote);
    const uint8_t *p;
    size_t n;
    assert_false(ws_pending_output(&client, &p, &n));
    /* After a complete close handshake, the end of TCP is no news. */
    ws_conn_init(&client, WS_ROLE_CLIENT, &rfc_mask);
    static const uint8_t close[] = {0x88, 0x02, 0x03, 0xE8};
    recorder_t r = feed(&client, close, sizeof close);
    assert_int_equal(r.n, 1);
    ws_transport_closed(&client);
    assert_false(ws_poll_event(&client, &ev));
}

/* ---- Sending ------------------------------------------------------------------------------ */

static void sends_refuse_what_the_protocol_forbids(void **state)
{
    (void)state;
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    assert_int_equal(ws_send_text(&server, "\xc3\x28", 2), ZQ_ERR_INVALID_ARG);
    uint8_t ping[126] = {0};
    assert_int_equal(ws_send_ping(&server, ping, 126), ZQ_ERR_TOO_LONG);
    assert_int_equal(ws_send_ping(&server, ping, 125), ZQ_OK);
    assert_int_equal(ws_send_binary(&server, NULL, 1), ZQ_ERR_INVALID_ARG);
    assert_int_equal(ws_send_binary(&server, NULL, 0), ZQ_OK);
    static const uint8_t empty[] = {0x82, 0x00};
    const uint8_t *p;
    size_t n;
    assert_true(ws_pending_output(&server, &p, &n));
    assert_int_equal(n, 2 + 125 + 2);
    assert_memory_equal(p + 127, empty, 2);
}

static void client_without_random_source_cannot_send(void **state)
{
    (void)state;
    ws_conn_init(&client, WS_ROLE_CLIENT, NULL);
    assert_int_equal(ws_send_text(&client, "a", 1), ZQ_ERR_INVALID_ARG);
    zq_rand_t broken = {broken_rand, NULL};
    ws_conn_init(&client, WS_ROLE_CLIENT, &broken);
    assert_int_equal(ws_send_text(&client, "a", 1), ZQ_ERR_CRYPTO);
    const uint8_t *p;
    size_t n;
    assert_false(ws_pending_output(&client, &p, &n)); /* nothing half-written */
}

static void full_output_would_block_and_oversize_is_too_long(void **state)
{
    (void)state;
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    assert_int_equal(ws_send_binary(&server, big, ZQ_WS_TX_BUFFER), ZQ_ERR_TOO_LONG);
    size_t fits = ZQ_WS_TX_BUFFER - 10; /* a 64-bit length header */
    assert_int_equal(ws_send_binary(&server, big, fits), ZQ_OK);
    assert_int_equal(ws_send_binary(&server, big, 1), ZQ_ERR_WOULD_BLOCK);
    const uint8_t *p;
    size_t n;
    assert_true(ws_pending_output(&server, &p, &n));
    assert_int_equal(n, ZQ_WS_TX_BUFFER);
    ws_output_consumed(&server, 100); /* a partial TCP write */
    assert_int_equal(ws_send_binary(&server, big, 98), ZQ_OK);
    assert_int_equal(ws_send_binary(&server, big, 1), ZQ_ERR_WOULD_BLOCK);
    assert_true(ws_pending_output(&server, &p, &n));
    assert_int_equal(n, ZQ_WS_TX_BUFFER);
    assert_int_equal(p[n - 100], 0x82); /* the new frame follows, after compaction */
    assert_int_equal(p[n - 99], 98);
}

static void pong_waits_for_room_and_only_the_latest_is_sent(void **state)
{
    (void)state;
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    assert_int_equal(ws_send_binary(&server, big, ZQ_WS_TX_BUFFER - 10), ZQ_OK);
    static const uint8_t pings[] = {0x89, 0x81, 0, 0, 0, 0, '1', 0x89, 0x81, 0, 0, 0, 0, '2'};
    recorder_t r = feed(&server, pings, sizeof pings);
    assert_int_equal(r.n, 0);
    const uint8_t *p;
    size_t n;
    assert_true(ws_pending_output(&server, &p, &n));
    assert_int_equal(n, ZQ_WS_TX_BUFFER); /* no room yet */
    ws_output_consumed(&server, n);
    static const uint8_t pong[] = {0x8A, 0x01, '2'}; /* §5.5.3: only the most recent */
    assert_output(&server, pong, sizeof pong);
}

static void close_waits_behind_a_full_output(void **state)
{
    (void)state;
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    assert_int_equal(ws_send_binary(&server, big, ZQ_WS_TX_BUFFER - 10), ZQ_OK);
    assert_int_equal(ws_close(&server, 1000, NULL), ZQ_OK); /* never blocks */
    const uint8_t *p;
    size_t n;
    assert_true(ws_pending_output(&server, &p, &n));
    ws_output_consumed(&server, n);
    static const uint8_t close[] = {0x88, 0x02, 0x03, 0xE8};
    assert_output(&server, close, sizeof close);
}

/* ---- Two ends back to back ---------------------------------------------------------------- */

static recorder_t pump(ws_conn_t *from, ws_conn_t *to)
{
    static uint8_t wire[ZQ_WS_TX_BUFFER];
    size_t n = take_output(from, wire, sizeof wire);
    return feed(to, wire, n);
}

static void client_and_server_talk_and_close(void **state)
{
    (void)state;
    test_rand_t tr;
    zq_rand_t rand = test_rand(&tr, 42);
    ws_conn_init(&client, WS_ROLE_CLIENT, &rand);
    ws_conn_init(&server, WS_ROLE_SERVER, NULL);
    const char *join = "{\"type\":\"join\",\"topicId\":\"default-topic\"}";
    assert_int_equal(ws_send_text(&client, join, strlen(join)), ZQ_OK);
    assert_int_equal(ws_send_ping(&client, (const uint8_t *)"t1", 2), ZQ_OK);
    recorder_t r = pump(&client, &server);
    assert_int_equal(r.n, 1);
    assert_message(&r, 0, true, join);
    const char *joined = "{\"type\":\"peer_joined\",\"peerId\":\"X\"}";
    assert_int_equal(ws_send_text(&server, joined, strlen(joined)), ZQ_OK);
    r = pump(&server, &client);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.ev[0].type, WS_EVENT_PONG);
    assert_memory_equal(r.ev[0].head, "t1", 2);
    assert_message(&r, 1, true, joined);

    assert_int_equal(ws_close(&client, WS_CLOSE_NORMAL, "bye"), ZQ_OK);
    r = pump(&client, &server);
    assert_closed(&r, 1000, true);
    assert_int_equal(ws_state(&server), WS_STATE_CLOSED);
    r = pump(&server, &client);
    assert_closed(&r, 1000, true);
    assert_int_equal(ws_state(&client), WS_STATE_CLOSED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rfc6455_accept_key_example),
        cmocka_unit_test(client_request_is_rfc6455_section_1_3_request),
        cmocka_unit_test(client_request_refuses_header_injection),
        cmocka_unit_test(client_request_reports_no_space),
        cmocka_unit_test(server_answer_completes_client_handshake),
        cmocka_unit_test(client_check_refuses_bad_answers),
        cmocka_unit_test(server_response_refuses_non_upgrades),
        cmocka_unit_test(rfc6455_unmasked_text_reaches_client),
        cmocka_unit_test(rfc6455_masked_text_reaches_server),
        cmocka_unit_test(rfc6455_client_masks_hello_byte_for_byte),
        cmocka_unit_test(rfc6455_server_sends_hello_unmasked),
        cmocka_unit_test(rfc6455_fragmented_text_is_one_message),
        cmocka_unit_test(rfc6455_ping_is_answered_with_masked_pong),
        cmocka_unit_test(rfc6455_pong_reaches_server_as_event),
        cmocka_unit_test(rfc6455_256_byte_binary_uses_16_bit_length),
        cmocka_unit_test(rfc6455_64k_binary_uses_64_bit_length),
        cmocka_unit_test(length_forms_switch_at_126_and_65536),
        cmocka_unit_test(ping_between_fragments_is_answered_and_message_completes),
        cmocka_unit_test(utf8_split_across_fragments_is_valid),
        cmocka_unit_test(a_waiting_event_stops_the_feed),
        cmocka_unit_test(byte_by_byte_feed_gives_the_same_events),
        cmocka_unit_test(each_violation_fails_with_its_close_code),
        cmocka_unit_test(oversize_fragmented_message_fails_with_1009),
        cmocka_unit_test(message_of_exactly_the_maximum_is_accepted),
        cmocka_unit_test(peer_close_is_echoed_then_closed),
        cmocka_unit_test(empty_close_reports_1005_and_is_echoed_empty),
        cmocka_unit_test(local_close_waits_for_the_peer),
        cmocka_unit_test(local_close_validates_code_and_reason),
        cmocka_unit_test(transport_end_without_close_reports_1006),
        cmocka_unit_test(sends_refuse_what_the_protocol_forbids),
        cmocka_unit_test(client_without_random_source_cannot_send),
        cmocka_unit_test(full_output_would_block_and_oversize_is_too_long),
        cmocka_unit_test(pong_waits_for_room_and_only_the_latest_is_sent),
        cmocka_unit_test(close_waits_behind_a_full_output),
        cmocka_unit_test(client_and_server_talk_and_close),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The port's TCP on loopback (listen, accept, connect, partial sends, would-block, closed,
 * address in use, refused), ws:// URL parsing, and the WebSocket client's opening against
 * small scripted servers in a child process. */
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "port/posix/loop.h"
#include "port/posix/ws_client.h"
#include "port/zq_port.h"
#include "signal/http.h"
#include "signal/ws.h"

/* ---- helpers --------------------------------------------------------------------------------- */

static zq_addr_t loopback4(void)
{
    return zq_addr_v4(127, 0, 0, 1, 0);
}

static bool wait_fd(int fd, short events, int ms)
{
    struct pollfd p = {.fd = fd, .events = events};
    return poll(&p, 1, ms) == 1;
}

static zq_socket_t listen_on(zq_addr_t *bound)
{
    zq_addr_t want = loopback4();
    zq_socket_t l;
    assert_int_equal(zq_port_tcp_listen(&l, &want, bound), ZQ_OK);
    return l;
}

/* A connected pair on 127.0.0.1: @p client from connect(), @p server from accept(). */
static void connect_pair(zq_socket_t *client, zq_socket_t *server)
{
    zq_addr_t bound;
    zq_socket_t l = listen_on(&bound);
    assert_int_equal(zq_port_tcp_connect(client, &bound, 2000), ZQ_OK);
    assert_true(wait_fd(l, POLLIN, 2000));
    zq_addr_t peer;
    assert_int_equal(zq_port_tcp_accept(l, server, &peer), ZQ_OK);
    assert_int_equal(peer.family, ZQ_AF_INET4);
    assert_int_not_equal(peer.port, 0);
    zq_port_tcp_close(l);
}

static size_t recv_some(zq_socket_t s, uint8_t *buf, size_t cap)
{
    size_t len = 0;
    assert_true(wait_fd(s, POLLIN, 2000));
    assert_int_equal(zq_port_tcp_recv(s, buf, cap, &len), ZQ_OK);
    return len;
}

/* ---- TCP ------------------------------------------------------------------------------------- */

static void tcp_listen_on_port_zero_binds_a_real_port(void **state)
{
    (void)state;
    zq_addr_t bound;
    zq_socket_t l = listen_on(&bound);
    zq_addr_t lo = loopback4();
    assert_true(zq_addr_same_ip(&bound, &lo));
    assert_int_not_equal(bound.port, 0);
    zq_port_tcp_close(l);
}

static void tcp_bytes_round_trip_both_ways(void **state)
{
    (void)state;
    zq_socket_t c;
    zq_socket_t s;
    connect_pair(&c, &s);
    static const uint8_t hello[] = "hello over tcp";
    size_t sent = 0;
    assert_int_equal(zq_port_tcp_send(c, hello, sizeof hello, &sent), ZQ_OK);
    assert_int_equal(sent, sizeof hello);
    uint8_t buf[64];
    size_t got = 0;
    while (got < sizeof hello) {
        got += recv_some(s, buf + got, sizeof buf - got);
    }
    assert_memory_equal(buf, hello, sizeof hello);
    assert_int_equal(zq_port_tcp_send(s, (const uint8_t *)"ok", 2, &sent), ZQ_OK);
    assert_int_equal(recv_some(c, buf, sizeof buf), 2);
    zq_port_tcp_close(c);
    zq_port_tcp_close(s);
}

static void tcp_accepted_and_connected_sockets_are_nonblocking_with_nodelay(void **state)
{
    (void)state;
    zq_socket_t c;
    zq_socket_t s;
    connect_pair(&c, &s);
    zq_socket_t both[2] = {c, s};
    for (int i = 0; i < 2; i++) {
        assert_true(fcntl(both[i], F_GETFL) & O_NONBLOCK);
        int v = 0;
        socklen_t len = sizeof v;
        assert_int_equal(getsockopt(both[i], IPPROTO_TCP, TCP_NODELAY, &v, &len), 0);
        assert_int_not_equal(v, 0);
    }
    zq_port_tcp_close(c);
    zq_port_tcp_close(s);
}

static void tcp_accept_with_nobody_waiting_would_block(void **state)
{
    (void)state;
    zq_socket_t l = listen_on(NULL);
    zq_socket_t conn = 5;
    assert_int_equal(zq_port_tcp_accept(l, &conn, NULL), ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(conn, ZQ_SOCKET_INVALID);
    zq_port_tcp_close(l);
}

static void tcp_recv_with_nothing_waiting_would_block(void **state)
{
    (void)state;
    zq_socket_t c;
    zq_socket_t s;
    connect_pair(&c, &s);
    uint8_t buf[8];
    size_t len = 99;
    assert_int_equal(zq_port_tcp_recv(s, buf, sizeof buf, &len), ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(len, 99);
    assert_int_equal(zq_port_tcp_recv(s, buf, 0, &len), ZQ_ERR_INVALID_ARG);
    zq_port_tcp_close(c);
    zq_port_tcp_close(s);
}

static void tcp_recv_after_the_peer_closes_is_closed(void **state)
{
    (void)state;
    zq_socket_t c;
    zq_socket_t s;
    connect_pair(&c, &s);
    size_t sent;
    assert_int_equal(zq_port_tcp_send(c, (const uint8_t *)"x", 1, &sent), ZQ_OK);
    zq_port_tcp_close(c);
    uint8_t buf[8];
    size_t len = 0;
    assert_int_equal(recv_some(s, buf, sizeof buf), 1); /* what was sent before the FIN */
    assert_true(wait_fd(s, POLLIN, 2000));
    assert_int_equal(zq_port_tcp_recv(s, buf, sizeof buf, &len), ZQ_ERR_CLOSED);
    zq_port_tcp_close(s);
}

static void tcp_send_to_a_closed_peer_is_closed_without_sigpipe(void **state)
{
    (void)state;
    zq_socket_t c;
    zq_socket_t s;
    connect_pair(&c, &s);
    zq_port_tcp_close(s);
    /* The first send may still be accepted (the peer answers it with a reset); a later one
     * fails. SIGPIPE is at its default action here: MSG_NOSIGNAL is what keeps us alive. */
    zq_err_t err = ZQ_OK;
    for (int i = 0; i < 200 && err == ZQ_OK; i++) {
        size_t sent;
        err = zq_port_tcp_send(c, (const uint8_t *)"data", 4, &sent);
        if (err == ZQ_OK) {
            struct timespec ts = {0, 5000000};
            (void)nanosleep(&ts, NULL);
        }
    }
    assert_int_equal(err, ZQ_ERR_CLOSED);
    zq_port_tcp_close(c);
}

static void tcp_send_takes_what_fits_then_would_block(void **state)
{
    (void)state;
    zq_socket_t c;
    zq_socket_t s;
    connect_pair(&c, &s);
    static uint8_t chunk[65536];
    size_t total = 0;
    zq_err_t err = ZQ_OK;
    while (err == ZQ_OK && total < ((size_t)64 << 20)) {
        size_t sent = 0;
        err = zq_port_tcp_send(c, chunk, sizeof chunk, &sent);
        assert_true(sent <= sizeof chunk);
        total += sent;
    }
    assert_int_equal(err, ZQ_ERR_WOULD_BLOCK); /* nobody reads: the buffers fill */
    assert_true(total > 0);
    size_t sent = 99;
    assert_int_equal(zq_port_tcp_send(c, chunk, 1, &sent), ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(sent, 0);
    zq_port_tcp_close(c);
    zq_port_tcp_close(s);
}

static void tcp_listen_on_an_address_in_use_is_a_state_error(void **state)
{
    (void)state;
    zq_addr_t bound;
    zq_socket_t l = listen_on(&bound);
    zq_socket_t second = 5;
    assert_int_equal(zq_port_tcp_listen(&second, &bound, NULL), ZQ_ERR_STATE);
    assert_int_equal(second, ZQ_SOCKET_INVALID);
    zq_port_tcp_close(l);
}

static void tcp_connect_to_a_port_nobody_listens_on_is_an_io_error(void **state)
{
    (void)state;
    zq_addr_t bound;
    zq_socket_t l = listen_on(&bound);
    zq_port_tcp_close(l); /* the port was free a moment ago and nobody listens now */
    zq_socket_t c = 5;
    assert_int_equal(zq_port_tcp_connect(&c, &bound, 2000), ZQ_ERR_IO);
    assert_int_equal(c, ZQ_SOCKET_INVALID);
}

static void tcp_calls_refuse_an_address_without_family(void **state)
{
    (void)state;
    zq_addr_t none = {0};
    zq_socket_t s;
    assert_int_equal(zq_port_tcp_listen(&s, &none, NULL), ZQ_ERR_INVALID_ARG);
    assert_int_equal(zq_port_tcp_connect(&s, &none, 10), ZQ_ERR_INVALID_ARG);
}

static void tcp_round_trips_on_ipv6_loopback(void **state)
{
    (void)state;
    zq_addr_t v6 = {.family = ZQ_AF_INET6};
    v6.ip[15] = 1;
    zq_socket_t l;
    zq_addr_t bound;
    if (zq_port_tcp_listen(&l, &v6, &bound) != ZQ_OK) {
        print_message("::1 is not available here: IPv6 part skipped\n");
        skip();
    }
    zq_socket_t c;
    zq_socket_t s;
    assert_int_equal(zq_port_tcp_connect(&c, &bound, 2000), ZQ_OK);
    assert_true(wait_fd(l, POLLIN, 2000));
    zq_addr_t peer;
    assert_int_equal(zq_port_tcp_accept(l, &s, &peer), ZQ_OK);
    assert_int_equal(peer.family, ZQ_AF_INET6);
    size_t sent;
    assert_int_equal(zq_port_tcp_send(c, (const uint8_t *)"six", 3, &sent), ZQ_OK);
    uint8_t buf[8];
    assert_int_equal(recv_some(s, buf, sizeof buf), 3);
    zq_port_tcp_close(c);
    zq_port_tcp_close(s);
    zq_port_tcp_close(l);
}

/* ---- ws:// URLs: the client's copy of signal/ws_url.h's parts (its rules: test_ws_url) ------- */

static void url_defaults_to_port_80_and_path_slash(void **state)
{
    (void)state;
    zq_ws_url_t u;
    const char *why = NULL;
    assert_int_equal(zq_ws_url_parse("ws://h", &u, &why), ZQ_OK);
    assert_string_equal(u.host, "h");
    assert_int_equal(u.port, 80);
    assert_string_equal(u.path, "/");
    assert_int_equal(u.addr.family, ZQ_AF_NONE); /* a name: resolved when opening */
}

static void url_numeric_hosts_carry_their_address(void **state)
{
    (void)state;
    zq_ws_url_t u;
    assert_int_equal(zq_ws_url_parse("ws://127.0.0.1:9/ws", &u, NULL), ZQ_OK);
    zq_addr_t want = zq_addr_v4(127, 0, 0, 1, 9);
    assert_true(zq_addr_equal(&u.addr, &want));
    assert_int_equal(zq_ws_url_parse("ws://[::1]:8080/ws", &u, NULL), ZQ_OK);
    assert_string_equal(u.host, "::1");
    assert_int_equal(u.addr.family, ZQ_AF_INET6);
    assert_int_equal(u.addr.ip[15], 1);
    assert_int_equal(u.addr.port, 8080);
    assert_int_equal(zq_ws_url_parse("ws://[::1]", &u, NULL), ZQ_OK);
    assert_int_equal(u.addr.port, 80);
}

static void url_refuses_what_does_not_fit(void **state)
{
    (void)state;
    static char url[1200];
    zq_ws_url_t u;
    (void)snprintf(url, sizeof url, "ws://%0300d/", 0);
    assert_int_equal(zq_ws_url_parse(url, &u, NULL), ZQ_ERR_TOO_LONG);
    (void)snprintf(url, sizeof url, "ws://h/%0600d", 0);
    assert_int_equal(zq_ws_url_parse(url, &u, NULL), ZQ_ERR_TOO_LONG);
}

/* ---- The client's opening, against scripted servers ------------------------------------------ */

typedef enum { SCRIPT_UPGRADE_THEN_FRAME, SCRIPT_404, SCRIPT_SILENT, SCRIPT_CLOSE } script_t;

/* Reads one request head from @p fd (blocking). */
static size_t read_request(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    while (len < cap) {
        ssize_t n = recv(fd, buf + len, cap - len, 0);
        if (n <= 0) {
            break;
        }
        len += (size_t)n;
        http_request_t req;
        if (http_parse_request(buf, len, &req) != ZQ_ERR_NEED_MORE) {
            break;
        }
    }
    return len;
}

/* The child's side: accept one connection and play @p script on it. */
static void play(zq_socket_t l, script_t script)
{
    (void)fcntl(l, F_SETFL, 0);
    int fd = accept(l, NULL, NULL);
    char req_buf[4096];
    size_t len = read_request(fd, req_buf, sizeof req_buf);
    uint8_t out[1024];
    zq_writer_t w = zq_writer(out, sizeof out);
    http_request_t req;
    if (script == SCRIPT_UPGRADE_THEN_FRAME && http_parse_request(req_buf, len, &req) == ZQ_OK &&
        ws_server_response(&w, &req, NULL) == ZQ_OK) {
        /* A text frame in the same write as the 101: the client must leave it to the loop. */
        static const uint8_t frame[] = {0x81, 5, 'h', 'e', 'l', 'l', 'o'};
        zq_write_bytes(&w, frame, sizeof frame);
    } else if (script == SCRIPT_404) {
        (void)http_response(&w, 404, "text/plain", "no\n", 3, NULL);
    } else if (script == SCRIPT_SILENT) {
        (void)sleep(3);
    }
    if (w.len > 0) {
        (void)send(fd, out, w.len, MSG_NOSIGNAL);
    }
    if (script == SCRIPT_UPGRADE_THEN_FRAME) {
        (void)read_request(fd, req_buf, sizeof req_buf); /* until the client closes */
    }
    (void)close(fd);
}

static pid_t scripted_server(script_t script, zq_ws_url_t *url)
{
    zq_addr_t bound;
    zq_socket_t l = listen_on(&bound);
    char text[64];
    (void)snprintf(text, sizeof text, "ws://127.0.0.1:%u/ws", (unsigned)bound.port);
    assert_int_equal(zq_ws_url_parse(text, url, NULL), ZQ_OK);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        play(l, script);
        _exit(0);
    }
    zq_port_tcp_close(l);
    return pid;
}

static void reap_child(pid_t pid)
{
    (void)kill(pid, SIGKILL);
    (void)waitpid(pid, NULL, 0);
}

typedef struct {
    zq_loop_t *loop;
    char text[64];
    unsigned texts;
} recorder_t;

static void record_text(void *ctx, uint64_t now, const char *text, size_t len)
{
    (void)now;
    recorder_t *r = ctx;
    r->texts++;
    size_t n = len < sizeof r->text - 1 ? len : sizeof r->text - 1;
    memcpy(r->text, text, n);
    r->text[n] = '\0';
    zq_loop_stop(r->loop);
}

static zq_loop_t loop;
static zq_ws_client_t client;

static void client_open_leaves_frames_after_the_handshake_to_the_loop(void **state)
{
    (void)state;
    zq_ws_url_t url;
    pid_t pid = scripted_server(SCRIPT_UPGRADE_THEN_FRAME, &url);
    zq_loop_init(&loop);
    recorder_t rec = {.loop = &loop};
    zq_ws_client_callbacks_t cb = {.on_text = record_text};
    const char *why = NULL;
    assert_int_equal(zq_ws_client_open(&client, &loop, &url, &cb, &rec, 5000, &why), ZQ_OK);
    assert_true(zq_ws_client_is_open(&client));
    assert_int_equal(rec.texts, 0); /* nothing is delivered from inside open */
    (void)zq_loop_run(&loop, zq_loop_now(&loop) + 5000);
    assert_int_equal(rec.texts, 1);
    assert_string_equal(rec.text, "hello");
    zq_ws_client_close(&client);
    assert_false(zq_ws_client_is_open(&client));
    assert_int_equal(zq_ws_client_send_text(&client, "x", 1), ZQ_ERR_CLOSED);
    reap_child(pid);
}

static void client_open_reports_a_404_with_its_status(void **state)
{
    (void)state;
    zq_ws_url_t url;
    pid_t pid = scripted_server(SCRIPT_404, &url);
    zq_loop_init(&loop);
    zq_ws_client_callbacks_t cb = {0};
    const char *why = NULL;
    assert_int_equal(zq_ws_client_open(&client, &loop, &url, &cb, NULL, 5000, &why),
                     ZQ_ERR_MALFORMED);
    assert_string_equal(why, "the server answered 404 Not Found, not a WebSocket upgrade");
    assert_false(zq_ws_client_is_open(&client));
    reap_child(pid);
}

static void client_open_times_out_on_a_silent_server(void **state)
{
    (void)state;
    zq_ws_url_t url;
    pid_t pid = scripted_server(SCRIPT_SILENT, &url);
    zq_loop_init(&loop);
    zq_ws_client_callbacks_t cb = {0};
    const char *why = NULL;
    assert_int_equal(zq_ws_client_open(&client, &loop, &url, &cb, NULL, 300, &why),
                     ZQ_ERR_TIMEOUT);
    assert_non_null(why);
    reap_child(pid);
}

static void client_open_reports_a_server_that_hangs_up(void **state)
{
    (void)state;
    zq_ws_url_t url;
    pid_t pid = scripted_server(SCRIPT_CLOSE, &url);
    zq_loop_init(&loop);
    zq_ws_client_callbacks_t cb = {0};
    const char *why = NULL;
    assert_int_equal(zq_ws_client_open(&client, &loop, &url, &cb, NULL, 5000, &why), ZQ_ERR_IO);
    assert_non_null(strstr(why, "closed"));
    reap_child(pid);
}

static void client_open_reports_a_refused_connection(void **state)
{
    (void)state;
    zq_addr_t bound;
    zq_socket_t l = listen_on(&bound);
    zq_port_tcp_close(l);
    char text[64];
    (void)snprintf(text, sizeof text, "ws://127.0.0.1:%u/", (unsigned)bound.port);
    zq_ws_url_t url;
    assert_int_equal(zq_ws_url_parse(text, &url, NULL), ZQ_OK);
    zq_loop_init(&loop);
    zq_ws_client_callbacks_t cb = {0};
    const char *why = NULL;
    assert_int_equal(zq_ws_client_open(&client, &loop, &url, &cb, NULL, 2000, &why), ZQ_ERR_IO);
    assert_string_equal(why, "connection refused");
}

/* "localhost" comes from /etc/hosts, never DNS: the tests stay on loopback. Whichever family
 * it resolves to first, the 127.0.0.1 server is reached. */
static void client_open_resolves_a_host_name(void **state)
{
    (void)state;
    zq_ws_url_t url;
    pid_t pid = scripted_server(SCRIPT_UPGRADE_THEN_FRAME, &url);
    char text[64];
    (void)snprintf(text, sizeof text, "ws://localhost:%u/ws", (unsigned)url.port);
    assert_int_equal(zq_ws_url_parse(text, &url, NULL), ZQ_OK);
    zq_loop_init(&loop);
    recorder_t rec = {.loop = &loop};
    zq_ws_client_callbacks_t cb = {.on_text = record_text};
    const char *why = NULL;
    assert_int_equal(zq_ws_client_open(&client, &loop, &url, &cb, &rec, 5000, &why), ZQ_OK);
    (void)zq_loop_run(&loop, zq_loop_now(&loop) + 5000);
    assert_string_equal(rec.text, "hello");
    zq_ws_client_close(&client);
    reap_child(pid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tcp_listen_on_port_zero_binds_a_real_port),
        cmocka_unit_test(tcp_bytes_round_trip_both_ways),
        cmocka_unit_test(tcp_accepted_and_connected_sockets_are_nonblocking_with_nodelay),
        cmocka_unit_test(tcp_accept_with_nobody_waiting_would_block),
        cmocka_unit_test(tcp_recv_with_nothing_waiting_would_block),
        cmocka_unit_test(tcp_recv_after_the_peer_closes_is_closed),
        cmocka_unit_test(tcp_send_to_a_closed_peer_is_closed_without_sigpipe),
        cmocka_unit_test(tcp_send_takes_what_fits_then_would_block),
        cmocka_unit_test(tcp_listen_on_an_address_in_use_is_a_state_error),
        cmocka_unit_test(tcp_connect_to_a_port_nobody_listens_on_is_an_io_error),
        cmocka_unit_test(tcp_calls_refuse_an_address_without_family),
        cmocka_unit_test(tcp_round_trips_on_ipv6_loopback),
        cmocka_unit_test(url_defaults_to_port_80_and_path_slash),
        cmocka_unit_test(url_numeric_hosts_carry_their_address),
        cmocka_unit_test(url_refuses_what_does_not_fit),
        cmocka_unit_test(client_open_leaves_frames_after_the_handshake_to_the_loop),
        cmocka_unit_test(client_open_reports_a_404_with_its_status),
        cmocka_unit_test(client_open_times_out_on_a_silent_server),
        cmocka_unit_test(client_open_reports_a_server_that_hangs_up),
        cmocka_unit_test(client_open_reports_a_refused_connection),
        cmocka_unit_test(client_open_resolves_a_host_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

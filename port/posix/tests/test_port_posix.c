/* The POSIX port: clock, random source, UDP on loopback, host addresses, and the poll() loop
 * driving small test drivers over real sockets and the real clock. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "port/posix/loop.h"
#include "port/bsd/bsd_socket.h"
#include "port/zq_port.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static zq_addr_t loopback4(void)
{
    return zq_addr_v4(127, 0, 0, 1, 0);
}

static zq_addr_t loopback6(void)
{
    zq_addr_t a = {.family = ZQ_AF_INET6};
    a.ip[15] = 1;
    return a;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static bool wait_readable(zq_socket_t sock, int ms)
{
    struct pollfd p = {.fd = sock, .events = POLLIN};
    return poll(&p, 1, ms) == 1;
}

static zq_socket_t open_on(const zq_addr_t *addr, zq_addr_t *bound)
{
    zq_socket_t s;
    assert_int_equal(zq_port_udp_open(&s, addr, bound), ZQ_OK);
    return s;
}

/* Receives one datagram, waiting up to a second for it. */
static size_t recv_one(zq_socket_t s, zq_addr_t *from, uint8_t *buf, size_t cap)
{
    size_t len = 0;
    assert_true(wait_readable(s, 1000));
    assert_int_equal(zq_port_udp_recv(s, from, buf, cap, &len), ZQ_OK);
    return len;
}

/* ---- clock and random source -------------------------------------------------------------- */

static void clock_is_monotonic_in_milliseconds(void **state)
{
    (void)state;
    uint64_t a = zq_port_now_ms();
    sleep_ms(25);
    uint64_t b = zq_port_now_ms();
    assert_true(b >= a + 25);
    assert_true(b < a + 5000); /* milliseconds, not microseconds */
    for (int i = 0; i < 1000; i++) {
        uint64_t c = zq_port_now_ms();
        assert_true(c >= b);
        b = c;
    }
}

static void random_source_gives_different_bytes_each_time(void **state)
{
    (void)state;
    zq_rand_t r = zq_port_rand();
    uint8_t a[32] = {0};
    uint8_t b[32] = {0};
    static const uint8_t zero[32];
    assert_int_equal(zq_rand_bytes(&r, a, sizeof a), ZQ_OK);
    assert_int_equal(zq_rand_bytes(&r, b, sizeof b), ZQ_OK);
    assert_memory_not_equal(a, b, sizeof a);
    assert_memory_not_equal(a, zero, sizeof a);
    static uint8_t big[1 << 20]; /* several getrandom() calls' worth is still one request */
    assert_int_equal(zq_rand_bytes(&r, big, sizeof big), ZQ_OK);
    assert_memory_not_equal(big + sizeof big - 32, zero, 32);
}

/* ---- addresses ---------------------------------------------------------------------------- */

static void sockaddr_conversion_keeps_port_in_network_order(void **state)
{
    (void)state;
    zq_addr_t v4 = zq_addr_v4(192, 0, 2, 1, 3478);
    struct sockaddr_storage ss;
    assert_int_equal(zq_bsd_sockaddr_from_addr(&v4, &ss), sizeof(struct sockaddr_in));
    const struct sockaddr_in *sin = (const struct sockaddr_in *)&ss;
    assert_int_equal(sin->sin_family, AF_INET);
    assert_int_equal(sin->sin_port, htons(3478));
    assert_int_equal(sin->sin_addr.s_addr, htonl(0xC0000201u));
    zq_addr_t back;
    assert_int_equal(zq_bsd_addr_from_sockaddr((const struct sockaddr *)&ss, &back), ZQ_OK);
    assert_true(zq_addr_equal(&back, &v4));

    zq_addr_t v6;
    assert_int_equal(zq_addr_parse("[2001:db8::7]:65535", 19, &v6), ZQ_OK);
    assert_int_equal(zq_bsd_sockaddr_from_addr(&v6, &ss), sizeof(struct sockaddr_in6));
    assert_int_equal(((const struct sockaddr_in6 *)&ss)->sin6_port, htons(65535));
    assert_int_equal(zq_bsd_addr_from_sockaddr((const struct sockaddr *)&ss, &back), ZQ_OK);
    assert_true(zq_addr_equal(&back, &v6));

    zq_addr_t none = {0};
    assert_int_equal(zq_bsd_sockaddr_from_addr(&none, &ss), 0);
}

static void host_addresses_leave_out_loopback_unless_asked(void **state)
{
    (void)state;
    zq_addr_t addrs[16];
    size_t n = zq_port_host_addresses(addrs, 16, true);
    bool has_127 = false;
    for (size_t i = 0; i < n; i++) {
        zq_addr_t lo = loopback4();
        has_127 |= zq_addr_same_ip(&addrs[i], &lo);
        assert_int_equal(addrs[i].port, 0);
    }
    assert_true(has_127);

    n = zq_port_host_addresses(addrs, 16, false);
    for (size_t i = 0; i < n; i++) {
        assert_false(zq_addr_is_loopback(&addrs[i]));
        bool link_local = addrs[i].family == ZQ_AF_INET6 && addrs[i].ip[0] == 0xfe &&
                          (addrs[i].ip[1] & 0xc0) == 0x80;
        assert_false(link_local);
    }
    assert_int_equal(zq_port_host_addresses(addrs, 0, true), 0);
}

/* ---- UDP ---------------------------------------------------------------------------------- */

static void udp_open_on_port_zero_binds_a_real_port(void **state)
{
    (void)state;
    zq_addr_t want = loopback4();
    zq_addr_t bound;
    zq_socket_t s = open_on(&want, &bound);
    assert_int_equal(bound.family, ZQ_AF_INET4);
    assert_true(zq_addr_same_ip(&bound, &want));
    assert_int_not_equal(bound.port, 0);
    zq_port_udp_close(s);
}

static void udp_open_rejects_an_address_without_family(void **state)
{
    (void)state;
    zq_addr_t none = {0};
    zq_socket_t s;
    assert_int_equal(zq_port_udp_open(&s, &none, NULL), ZQ_ERR_INVALID_ARG);
    assert_int_equal(s, ZQ_SOCKET_INVALID);
}

static void round_trip(const zq_addr_t *ip)
{
    zq_addr_t a_addr;
    zq_addr_t b_addr;
    zq_socket_t a = open_on(ip, &a_addr);
    zq_socket_t b = open_on(ip, &b_addr);
    static const uint8_t msg[] = "hello over loopback";
    assert_int_equal(zq_port_udp_send(a, &b_addr, msg, sizeof msg), ZQ_OK);
    uint8_t buf[64];
    zq_addr_t from;
    assert_int_equal(recv_one(b, &from, buf, sizeof buf), sizeof msg);
    assert_memory_equal(buf, msg, sizeof msg);
    assert_true(zq_addr_equal(&from, &a_addr));
    zq_port_udp_close(a);
    zq_port_udp_close(b);
}

static void udp_datagram_round_trips_on_ipv4(void **state)
{
    (void)state;
    zq_addr_t ip = loopback4();
    round_trip(&ip);
}

static void udp_datagram_round_trips_on_ipv6(void **state)
{
    (void)state;
    zq_addr_t ip = loopback6();
    zq_socket_t probe;
    if (zq_port_udp_open(&probe, &ip, NULL) != ZQ_OK) {
        print_message("::1 is not available here: IPv6 round trip skipped\n");
        skip();
    }
    zq_port_udp_close(probe);
    round_trip(&ip);
}

static void udp_recv_on_an_empty_socket_would_block(void **state)
{
    (void)state;
    zq_addr_t ip = loopback4();
    zq_socket_t s = open_on(&ip, NULL);
    uint8_t buf[16];
    zq_addr_t from;
    size_t len = 99;
    assert_int_equal(zq_port_udp_recv(s, &from, buf, sizeof buf, &len), ZQ_ERR_WOULD_BLOCK);
    assert_int_equal(len, 99);
    zq_port_udp_close(s);
}

static void udp_datagram_longer_than_the_buffer_is_dropped(void **state)
{
    (void)state;
    zq_addr_t ip = loopback4();
    zq_addr_t b_addr;
    zq_socket_t a = open_on(&ip, NULL);
    zq_socket_t b = open_on(&ip, &b_addr);
    uint8_t big[100];
    memset(big, 0xA5, sizeof big);
    assert_int_equal(zq_port_udp_send(a, &b_addr, big, sizeof big), ZQ_OK);
    assert_int_equal(zq_port_udp_send(a, &b_addr, big, 50), ZQ_OK);
    uint8_t buf[50];
    zq_addr_t from;
    size_t len = 0;
    assert_true(wait_readable(b, 1000));
    assert_int_equal(zq_port_udp_recv(b, &from, buf, sizeof buf, &len), ZQ_ERR_NO_SPACE);
    /* It was consumed: the next one, which fits exactly, comes out whole. */
    assert_int_equal(recv_one(b, &from, buf, sizeof buf), 50);
    assert_int_equal(zq_port_udp_recv(b, &from, buf, sizeof buf, &len), ZQ_ERR_WOULD_BLOCK);
    zq_port_udp_close(a);
    zq_port_udp_close(b);
}

static void udp_send_to_another_family_is_an_io_error(void **state)
{
    (void)state;
    zq_addr_t ip = loopback4();
    zq_socket_t s = open_on(&ip, NULL);
    zq_addr_t v6 = loopback6();
    v6.port = 9;
    static const uint8_t one = 1;
    assert_int_equal(zq_port_udp_send(s, &v6, &one, 1), ZQ_ERR_IO);
    zq_addr_t none = {0};
    assert_int_equal(zq_port_udp_send(s, &none, &one, 1), ZQ_ERR_INVALID_ARG);
    zq_port_udp_close(s);
}

/* ---- loop: test drivers ------------------------------------------------------------------- */

/* Fires every `interval` ms from `deadline`, `limit` times, then stops the loop. */
typedef struct {
    zq_loop_t *loop;
    uint64_t deadline;
    uint64_t interval;
    unsigned limit;
    unsigned fired;
    uint64_t fired_at[8];
    uint64_t deadline_at[8];
    uint64_t last_now;
    bool now_went_back;
} timer_driver_t;

static void timer_timeout(void *obj, uint64_t now)
{
    timer_driver_t *t = obj;
    t->now_went_back |= now < t->last_now;
    t->last_now = now;
    if (t->fired < 8) {
        t->fired_at[t->fired] = now;
        t->deadline_at[t->fired] = t->deadline;
    }
    t->fired++;
    if (t->fired < t->limit) {
        t->deadline = now + t->interval;
    } else {
        t->deadline = ZQ_TIME_NEVER;
        zq_loop_stop(t->loop);
    }
}

static uint64_t timer_next(void *obj)
{
    return ((timer_driver_t *)obj)->deadline;
}

static const zq_driver_t timer_ops = {.handle_timeout = timer_timeout, .next_timeout = timer_next};

/* Answers each datagram with `copies` copies, from `reply_from` when set; stops the loop after
 * `stop_after` datagrams. */
typedef struct {
    zq_loop_t *loop;
    unsigned copies;
    unsigned stop_after;
    bool override_from;
    zq_addr_t reply_from;
    unsigned received;
    unsigned pending;
    unsigned pending_seen_by_after_io;
    zq_addr_t local;
    zq_addr_t remote;
    uint8_t data[64];
    size_t len;
    uint64_t last_now;
    bool now_went_back;
} echo_driver_t;

static void echo_datagram(void *obj, uint64_t now, const zq_addr_t *local,
                          const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    echo_driver_t *e = obj;
    e->now_went_back |= now < e->last_now;
    e->last_now = now;
    e->received++;
    e->local = *local;
    e->remote = *remote;
    e->len = len < sizeof e->data ? len : sizeof e->data;
    memcpy(e->data, data, e->len);
    e->pending = e->copies;
}

static bool echo_transmit(void *obj, zq_addr_t *local, zq_addr_t *remote, const uint8_t **data,
                          size_t *len)
{
    echo_driver_t *e = obj;
    if (e->pending == 0) {
        return false;
    }
    e->pending--;
    *local = e->override_from ? e->reply_from : e->local;
    *remote = e->remote;
    *data = e->data;
    *len = e->len;
    return true;
}

static void echo_after_io(void *obj, uint64_t now)
{
    echo_driver_t *e = obj;
    (void)now;
    e->pending_seen_by_after_io += e->pending;
    if (e->stop_after != 0 && e->received >= e->stop_after) {
        zq_loop_stop(e->loop);
    }
}

static const zq_driver_t echo_ops = {
    .handle_datagram = echo_datagram,
    .poll_transmit = echo_transmit,
    .after_io = echo_after_io,
};

static zq_loop_t loop; /* holds a datagram buffer: static, like a program's */

/* The echo driver on socket `a` inside the loop; `b` is its peer, outside the loop. */
typedef struct {
    echo_driver_t echo;
    zq_socket_t a;
    zq_socket_t b;
    zq_addr_t a_addr;
    zq_addr_t b_addr;
} echo_rig_t;

static void rig_up(echo_rig_t *r)
{
    zq_loop_init(&loop);
    zq_addr_t ip = loopback4();
    r->a = open_on(&ip, &r->a_addr);
    r->b = open_on(&ip, &r->b_addr);
    r->echo = (echo_driver_t){.loop = &loop, .local = r->a_addr, .remote = r->b_addr};
    size_t id;
    assert_int_equal(zq_loop_add_driver(&loop, &echo_ops, &r->echo, &id), ZQ_OK);
    assert_int_equal(zq_loop_add_socket(&loop, id, r->a, &r->a_addr), ZQ_OK);
}

static void rig_down(echo_rig_t *r)
{
    zq_port_udp_close(r->a);
    zq_port_udp_close(r->b);
}

/* ---- loop: tests -------------------------------------------------------------------------- */

static void loop_fires_a_timer_at_or_after_its_deadline(void **state)
{
    (void)state;
    zq_loop_init(&loop);
    /* One reading of the clock for both: a second one may already be a millisecond later. */
    uint64_t start = zq_loop_now(&loop);
    timer_driver_t t = {.loop = &loop, .interval = 20, .limit = 3, .deadline = start + 30};
    size_t id;
    assert_int_equal(zq_loop_add_driver(&loop, &timer_ops, &t, &id), ZQ_OK);
    assert_int_equal(zq_loop_run(&loop, start + 5000), ZQ_OK);
    assert_int_equal(t.fired, 3);
    for (unsigned i = 0; i < 3; i++) {
        assert_true(t.fired_at[i] >= t.deadline_at[i]);
    }
    assert_true(t.fired_at[2] >= start + 30 + 20 + 20);
    assert_false(t.now_went_back);
}

static void loop_returns_when_stop_at_comes(void **state)
{
    (void)state;
    zq_loop_init(&loop);
    timer_driver_t idle = {.loop = &loop, .deadline = ZQ_TIME_NEVER};
    size_t id;
    assert_int_equal(zq_loop_add_driver(&loop, &timer_ops, &idle, &id), ZQ_OK);
    uint64_t start = zq_loop_now(&loop);
    assert_int_equal(zq_loop_run(&loop, start + 40), ZQ_ERR_TIMEOUT);
    assert_true(zq_loop_now(&loop) >= start + 40);
    assert_int_equal(idle.fired, 0);
}

static void loop_stop_before_run_is_consumed_by_that_run(void **state)
{
    (void)state;
    zq_loop_init(&loop);
    zq_loop_stop(&loop);
    assert_int_equal(zq_loop_run(&loop, ZQ_TIME_NEVER), ZQ_OK);
    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 10), ZQ_ERR_TIMEOUT);
}

static void on_alarm(int sig)
{
    (void)sig;
    zq_loop_stop(&loop);
}

static void loop_stop_from_a_signal_handler_interrupts_the_wait(void **state)
{
    (void)state;
    zq_loop_init(&loop);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
    struct itimerval in_50ms = {.it_value = {0, 50000}};
    assert_int_equal(setitimer(ITIMER_REAL, &in_50ms, NULL), 0);
    uint64_t start = zq_loop_now(&loop);
    assert_int_equal(zq_loop_run(&loop, start + 10000), ZQ_OK);
    /* Far sooner than ZQ_LOOP_MAX_WAIT_MS: poll() returned EINTR and the loop saw the flag. */
    assert_true(zq_loop_now(&loop) - start < ZQ_LOOP_MAX_WAIT_MS - 100);
    sa.sa_handler = SIG_DFL;
    (void)sigaction(SIGALRM, &sa, NULL);
}

static void loop_drains_every_transmit_before_after_io(void **state)
{
    (void)state;
    echo_rig_t r;
    rig_up(&r);
    r.echo.copies = 3;
    r.echo.stop_after = 1;
    static const uint8_t ping[] = "ping";
    assert_int_equal(zq_port_udp_send(r.b, &r.a_addr, ping, sizeof ping), ZQ_OK);

    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 2000), ZQ_OK);
    assert_int_equal(r.echo.received, 1);
    assert_true(zq_addr_equal(&r.echo.local, &r.a_addr));
    assert_true(zq_addr_equal(&r.echo.remote, &r.b_addr));
    assert_int_equal(r.echo.pending_seen_by_after_io, 0);
    for (int i = 0; i < 3; i++) {
        uint8_t buf[16];
        zq_addr_t from;
        assert_int_equal(recv_one(r.b, &from, buf, sizeof buf), sizeof ping);
        assert_true(zq_addr_equal(&from, &r.a_addr));
    }
    assert_int_equal(loop.stats.rx_datagrams, 1);
    assert_int_equal(loop.stats.tx_datagrams, 3);
    rig_down(&r);
}

/* Two sockets on one driver; the echo answers from `reply_from`, returns its source. */
static zq_addr_t echo_source_when_replying_from(const zq_addr_t *reply_from, zq_addr_t *second)
{
    zq_loop_init(&loop);
    echo_driver_t e = {.loop = &loop, .copies = 1, .stop_after = 1, .override_from = true};
    zq_addr_t ip = loopback4();
    zq_addr_t a1_addr;
    zq_addr_t b_addr;
    zq_socket_t a1 = open_on(&ip, &a1_addr);
    zq_socket_t a2 = open_on(&ip, second);
    zq_socket_t b = open_on(&ip, &b_addr);
    e.reply_from = reply_from != NULL ? *reply_from : *second;
    size_t id;
    assert_int_equal(zq_loop_add_driver(&loop, &echo_ops, &e, &id), ZQ_OK);
    assert_int_equal(zq_loop_add_socket(&loop, id, a1, &a1_addr), ZQ_OK);
    assert_int_equal(zq_loop_add_socket(&loop, id, a2, second), ZQ_OK);
    static const uint8_t ping[] = "ping";
    assert_int_equal(zq_port_udp_send(b, &a1_addr, ping, sizeof ping), ZQ_OK);
    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 2000), ZQ_OK);
    uint8_t buf[16];
    zq_addr_t from;
    assert_int_equal(recv_one(b, &from, buf, sizeof buf), sizeof ping);
    zq_port_udp_close(a1);
    zq_port_udp_close(a2);
    zq_port_udp_close(b);
    return from;
}

static void loop_sends_from_the_socket_whose_address_is_local(void **state)
{
    (void)state;
    zq_addr_t second;
    zq_addr_t from = echo_source_when_replying_from(NULL, &second);
    assert_true(zq_addr_equal(&from, &second));
}

static void loop_falls_back_to_the_first_socket_for_an_unknown_local(void **state)
{
    (void)state;
    zq_addr_t second;
    zq_addr_t unknown = zq_addr_v4(127, 0, 0, 1, 1);
    zq_addr_t from = echo_source_when_replying_from(&unknown, &second);
    assert_false(zq_addr_equal(&from, &second));
    assert_int_equal(from.family, ZQ_AF_INET4);
}

static void loop_drops_and_counts_datagrams_too_long_for_it(void **state)
{
    (void)state;
    echo_rig_t r;
    rig_up(&r);
    r.echo.stop_after = 1;
    static uint8_t huge[ZQ_UDP_MAX_DATAGRAM + 1];
    assert_int_equal(zq_port_udp_send(r.b, &r.a_addr, huge, sizeof huge), ZQ_OK);
    assert_int_equal(zq_port_udp_send(r.b, &r.a_addr, huge, ZQ_UDP_MAX_DATAGRAM), ZQ_OK);
    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 2000), ZQ_OK);
    assert_int_equal(r.echo.received, 1);
    assert_int_equal(r.echo.len, sizeof r.echo.data); /* the second, cut by the echo's copy */
    assert_int_equal(loop.stats.rx_oversize, 1);
    rig_down(&r);
}

/* An fd callback that, like a signaling message, makes the echo driver send. */
typedef struct {
    echo_driver_t *echo;
    int calls;
    uint64_t now;
} pipe_reader_t;

static void on_pipe(void *ctx, int fd, uint64_t now)
{
    pipe_reader_t *r = ctx;
    uint8_t byte;
    assert_int_equal(read(fd, &byte, 1), 1);
    r->calls++;
    r->now = now;
    r->echo->data[0] = byte;
    r->echo->len = 1;
    r->echo->pending = 1;
    zq_loop_remove_fd(&loop, fd);
    zq_loop_stop(&loop);
}

static void loop_calls_fd_callbacks_and_sends_what_they_cause(void **state)
{
    (void)state;
    echo_rig_t r;
    rig_up(&r);
    pipe_reader_t reader = {.echo = &r.echo};
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(zq_loop_add_fd(&loop, p[0], on_pipe, &reader), ZQ_OK);
    assert_int_equal(write(p[1], "z", 1), 1);
    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 2000), ZQ_OK);
    assert_int_equal(reader.calls, 1);
    uint8_t buf[4];
    zq_addr_t from;
    assert_int_equal(recv_one(r.b, &from, buf, sizeof buf), 1);
    assert_int_equal(buf[0], 'z');
    /* Removed: writing again wakes nothing, the run times out. */
    assert_int_equal(write(p[1], "y", 1), 1);
    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 30), ZQ_ERR_TIMEOUT);
    assert_int_equal(reader.calls, 1);
    close(p[0]);
    close(p[1]);
    rig_down(&r);
}

/* Counts writable callbacks on a pipe's write end, clears the interest, stops the loop. */
typedef struct {
    int calls;
} pipe_writer_t;

static void on_writable(void *ctx, int fd, uint64_t now)
{
    pipe_writer_t *w = ctx;
    (void)now;
    w->calls++;
    assert_int_equal(zq_loop_set_fd_writable_interest(&loop, fd, false), ZQ_OK);
    zq_loop_stop(&loop);
}

static void loop_calls_an_fd_back_when_writable_only_while_asked(void **state)
{
    (void)state;
    zq_loop_init(&loop);
    pipe_writer_t w = {0};
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(zq_loop_add_fd(&loop, p[1], on_writable, &w), ZQ_OK);
    /* An empty pipe is always writable, yet without the interest that is no event. */
    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 30), ZQ_ERR_TIMEOUT);
    assert_int_equal(w.calls, 0);
    assert_int_equal(zq_loop_set_fd_writable_interest(&loop, p[1], true), ZQ_OK);
    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 2000), ZQ_OK);
    assert_int_equal(w.calls, 1);
    /* Cleared by the callback: quiet again. */
    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 30), ZQ_ERR_TIMEOUT);
    assert_int_equal(w.calls, 1);
    assert_int_equal(zq_loop_set_fd_writable_interest(&loop, p[0], true), ZQ_ERR_NOT_FOUND);
    close(p[0]);
    close(p[1]);
}

static void loop_sends_what_was_queued_before_run(void **state)
{
    (void)state;
    echo_rig_t r;
    rig_up(&r);
    r.echo.pending = 1;
    r.echo.len = 2;
    assert_int_equal(zq_loop_run(&loop, zq_loop_now(&loop) + 20), ZQ_ERR_TIMEOUT);
    uint8_t buf[4];
    zq_addr_t from;
    assert_int_equal(recv_one(r.b, &from, buf, sizeof buf), 2);
    rig_down(&r);
}

static void loop_refuses_more_than_its_capacities_and_takes_back_what_is_removed(void **state)
{
    (void)state;
    zq_loop_init(&loop);
    timer_driver_t t = {.deadline = ZQ_TIME_NEVER};
    size_t id = 0;
    for (int i = 0; i < ZQ_LOOP_MAX_DRIVERS; i++) {
        assert_int_equal(zq_loop_add_driver(&loop, &timer_ops, &t, &id), ZQ_OK);
        assert_int_equal(id, i);
    }
    assert_int_equal(zq_loop_add_driver(&loop, &timer_ops, &t, &id), ZQ_ERR_CAPACITY);
    assert_int_equal(zq_loop_add_driver(&loop, NULL, &t, &id), ZQ_ERR_INVALID_ARG);
    zq_addr_t any = loopback4();
    for (int i = 0; i < ZQ_LOOP_MAX_SOCKETS; i++) {
        assert_int_equal(zq_loop_add_socket(&loop, 0, 100 + i, &any), ZQ_OK);
    }
    assert_int_equal(zq_loop_add_socket(&loop, 0, 99, &any), ZQ_ERR_CAPACITY);
    assert_int_equal(zq_loop_add_socket(&loop, ZQ_LOOP_MAX_DRIVERS, 99, &any),
                     ZQ_ERR_INVALID_ARG);
    zq_loop_remove_socket(&loop, 100); /* a socket given back makes room for another */
    assert_int_equal(loop.socket_count, ZQ_LOOP_MAX_SOCKETS - 1);
    assert_int_equal(loop.sockets[0].sock, 101);
    assert_int_equal(zq_loop_add_socket(&loop, 0, 99, &any), ZQ_OK);
    for (int i = 0; i < ZQ_LOOP_MAX_FDS; i++) {
        assert_int_equal(zq_loop_add_fd(&loop, 200 + i, on_pipe, NULL), ZQ_OK);
    }
    assert_int_equal(zq_loop_add_fd(&loop, 300, on_pipe, NULL), ZQ_ERR_CAPACITY);
    zq_loop_remove_fd(&loop, 200);
    assert_int_equal(zq_loop_add_fd(&loop, 300, on_pipe, NULL), ZQ_OK);
}

int main(void)
{
    (void)zq_port_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clock_is_monotonic_in_milliseconds),
        cmocka_unit_test(random_source_gives_different_bytes_each_time),
        cmocka_unit_test(sockaddr_conversion_keeps_port_in_network_order),
        cmocka_unit_test(host_addresses_leave_out_loopback_unless_asked),
        cmocka_unit_test(udp_open_on_port_zero_binds_a_real_port),
        cmocka_unit_test(udp_open_rejects_an_address_without_family),
        cmocka_unit_test(udp_datagram_round_trips_on_ipv4),
        cmocka_unit_test(udp_datagram_round_trips_on_ipv6),
        cmocka_unit_test(udp_recv_on_an_empty_socket_would_block),
        cmocka_unit_test(udp_datagram_longer_than_the_buffer_is_dropped),
        cmocka_unit_test(udp_send_to_another_family_is_an_io_error),
        cmocka_unit_test(loop_fires_a_timer_at_or_after_its_deadline),
        cmocka_unit_test(loop_returns_when_stop_at_comes),
        cmocka_unit_test(loop_stop_before_run_is_consumed_by_that_run),
        cmocka_unit_test(loop_stop_from_a_signal_handler_interrupts_the_wait),
        cmocka_unit_test(loop_drains_every_transmit_before_after_io),
        cmocka_unit_test(loop_sends_from_the_socket_whose_address_is_local),
        cmocka_unit_test(loop_falls_back_to_the_first_socket_for_an_unknown_local),
        cmocka_unit_test(loop_drops_and_counts_datagrams_too_long_for_it),
        cmocka_unit_test(loop_calls_fd_callbacks_and_sends_what_they_cause),
        cmocka_unit_test(loop_calls_an_fd_back_when_writable_only_while_asked),
        cmocka_unit_test(loop_sends_what_was_queued_before_run),
        cmocka_unit_test(loop_refuses_more_than_its_capacities_and_takes_back_what_is_removed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

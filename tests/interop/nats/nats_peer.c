/* zq's NATS client (stack/nats) against a real nats-server, over TCP on loopback. It starts
 * the server itself, on a free port, twice:
 *   open:  the client gets READY, subscribes, publishes to itself (echo) and sees the MSG,
 *          with and without a reply subject, sees a 16384-byte payload whole, and a PONG;
 *   auth:  with `authorization { user: a, password: b }`, a wrong password is refused with a
 *          fatal 'Authorization Violation' and the right one reaches READY;
 * and once as a cluster of two, where a second server joining reaches the client as a later
 * INFO whose connect_urls names it.
 * Usage: nats_peer /usr/sbin/nats-server. Exit 0 when every check held. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stack/nats/nats.h"

#define BIG ZQ_NATS_PAYLOAD_MAX /* 16384 at the defaults */

static const char *server_path;
static pid_t servers[2]; /* the running nats-servers, stopped at exit however we leave */

#define require(ok, what)                                                       \
    do {                                                                        \
        if (!(ok)) {                                                            \
            fprintf(stderr, "nats_peer: FAILED: %s (line %d)\n", what, __LINE__); \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

/* ---- What the client reported ------------------------------------------------------------- */

typedef struct {
    nats_client_t nc;
    int fd;
    bool ready, fatal;
    unsigned msgs, pongs, infos;
    char err[128];
    char subject[128], reply[128];
    uint32_t sid;
    size_t len;
    uint8_t payload[BIG];
} peer_t;

static peer_t peer; /* large: the client's buffers */

static void copy(char *dst, size_t cap, const char *src, size_t len)
{
    len = len < cap - 1 ? len : cap - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

static void on_event(void *ctx, const nats_event_t *ev)
{
    peer_t *p = ctx;
    switch (ev->type) {
    case NATS_EV_READY:
        p->ready = true;
        break;
    case NATS_EV_MSG:
        p->msgs++;
        copy(p->subject, sizeof p->subject, ev->subject, ev->subject_len);
        copy(p->reply, sizeof p->reply, ev->reply != NULL ? ev->reply : "", ev->reply_len);
        p->sid = ev->sid;
        p->len = ev->len;
        memcpy(p->payload, ev->payload, ev->len);
        break;
    case NATS_EV_PONG:
        p->pongs++;
        break;
    case NATS_EV_ERR:
        copy(p->err, sizeof p->err, ev->text, ev->text_len);
        p->fatal = ev->fatal;
        fprintf(stderr, "nats_peer: -ERR '%s'%s\n", p->err, ev->fatal ? " (fatal)" : "");
        break;
    case NATS_EV_INFO:
        p->infos++;
        break;
    }
}

/* ---- Sockets and the server --------------------------------------------------------------- */

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static struct sockaddr_in loopback(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/* A port nothing listens on now: bind to 0, read it back, let it go. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = loopback(0);
    socklen_t len = sizeof a;
    require(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0, "bind a free port");
    require(getsockname(fd, (struct sockaddr *)&a, &len) == 0, "getsockname");
    close(fd);
    return ntohs(a.sin_port);
}

static void stop_servers(void)
{
    for (size_t i = 0; i < 2; i++) {
        if (servers[i] > 0) {
            kill(servers[i], SIGTERM);
            waitpid(servers[i], NULL, 0);
            servers[i] = 0;
        }
    }
}

/* Starts nats-server as server @p slot on 127.0.0.1:@p port with @p extra arguments (up to 6,
 * NULL-terminated). */
static void start_server(size_t slot, int port, const char *const *extra)
{
    char port_s[16];
    snprintf(port_s, sizeof port_s, "%d", port);
    const char *argv[12] = {server_path, "-a", "127.0.0.1", "-p", port_s};
    for (size_t i = 0; extra[i] != NULL && i < 6; i++) {
        argv[5 + i] = extra[i];
    }
    pid_t pid = fork();
    require(pid >= 0, "fork");
    if (pid == 0) {
        execv(server_path, (char *const *)argv);
        _exit(127);
    }
    servers[slot] = pid;
}

/* Connects, retrying while the server starts (up to 5 s). */
static int dial(int port)
{
    long deadline = now_ms() + 5000;
    for (;;) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = loopback(port);
        require(fd >= 0, "socket");
        if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
            return fd;
        }
        close(fd);
        require(now_ms() < deadline, "nats-server did not start listening");
        usleep(50 * 1000);
    }
}

/* ---- Driving the client ------------------------------------------------------------------- */

static void write_pending(peer_t *p)
{
    const uint8_t *out;
    size_t n;
    while ((n = nats_client_pending(&p->nc, &out)) > 0) {
        ssize_t w = send(p->fd, out, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        require(w > 0, "send to nats-server");
        nats_client_sent(&p->nc, (size_t)w);
    }
}

/* Writes what is pending and reads until @p done holds, the server closes, or 5 s pass.
 * Returns false if the server closed first. */
static bool run_until(peer_t *p, bool (*done)(const peer_t *))
{
    long deadline = now_ms() + 5000;
    while (!done(p)) {
        write_pending(p);
        long left = deadline - now_ms();
        require(left > 0, "timed out waiting for nats-server");
        struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
        if (poll(&pfd, 1, (int)left) <= 0) {
            continue;
        }
        uint8_t buf[4096];
        ssize_t n = recv(p->fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return done(p);
        }
        if (nats_client_feed(&p->nc, buf, (size_t)n) != ZQ_OK) {
            return done(p);
        }
    }
    write_pending(p);
    return true;
}

static void open_client(peer_t *p, int port, const nats_options_t *opt)
{
    memset(p, 0, sizeof *p);
    nats_client_init(&p->nc, opt, on_event, p);
    p->fd = dial(port);
}

static bool is_ready(const peer_t *p)
{
    return p->ready || p->fatal;
}

static unsigned want_msgs, want_pongs;

static bool has_msgs(const peer_t *p)
{
    return p->msgs >= want_msgs || p->fatal;
}

static bool has_pongs(const peer_t *p)
{
    return p->pongs >= want_pongs || p->fatal;
}

/* ---- The two runs ------------------------------------------------------------------------- */

static void expect_msg(peer_t *p, const char *subject, const char *reply, const uint8_t *payload,
                       size_t len)
{
    want_msgs = p->msgs + 1;
    require(run_until(p, has_msgs) && !p->fatal, "a MSG for our own publish");
    require(strcmp(p->subject, subject) == 0 && p->sid == 1, "the MSG's subject and sid");
    require(strcmp(p->reply, reply) == 0, "the MSG's reply subject");
    require(p->len == len && memcmp(p->payload, payload, len) == 0, "the MSG's payload, whole");
}

static void open_server_run(void)
{
    int port = free_port();
    static const char *const none[] = {NULL};
    start_server(0, port, none);
    nats_options_t opt = {.name = "zq-nats-peer", .echo = true};
    peer_t *p = &peer;
    open_client(p, port, &opt);
    require(run_until(p, is_ready) && p->ready, "READY from nats-server");
    require(nats_client_info(&p->nc)->max_payload >= BIG, "INFO's max_payload");
    printf("nats_peer: READY from server %s\n", nats_client_info(&p->nc)->server_id);

    require(nats_client_sub(&p->nc, "zq.test.>", 1) == ZQ_OK, "SUB");
    require(nats_client_pub(&p->nc, "zq.test.a", NULL, (const uint8_t *)"hello", 5) == ZQ_OK,
            "PUB");
    expect_msg(p, "zq.test.a", "", (const uint8_t *)"hello", 5);
    require(nats_client_pub(&p->nc, "zq.test.r", "_INBOX.zq", (const uint8_t *)"q", 1) == ZQ_OK,
            "PUB with a reply");
    expect_msg(p, "zq.test.r", "_INBOX.zq", (const uint8_t *)"q", 1);
    printf("nats_peer: echo of our own publishes, with and without a reply\n");

    static uint8_t big[BIG];
    for (size_t i = 0; i < sizeof big; i++) {
        big[i] = (uint8_t)(i * 131 + (i >> 8));
    }
    require(nats_client_pub(&p->nc, "zq.test.big", NULL, big, sizeof big) == ZQ_OK, "PUB 16 KiB");
    expect_msg(p, "zq.test.big", "", big, sizeof big);
    require(p->nc.dropped_oversize == 0, "nothing dropped");
    printf("nats_peer: a %d-byte payload whole\n", BIG);

    want_pongs = 1;
    require(nats_client_ping(&p->nc) == ZQ_OK, "PING");
    require(run_until(p, has_pongs) && !p->fatal, "PONG");
    require(nats_client_unsub(&p->nc, 1) == ZQ_OK, "UNSUB");
    want_pongs = 2;
    require(nats_client_ping(&p->nc) == ZQ_OK && run_until(p, has_pongs), "PONG after UNSUB");
    require(p->nc.protocol_errors == 0 && p->nc.server_errors == 0, "no errors");
    close(p->fd);
    stop_servers();
}

static void auth_attempt(int port, const char *pass, bool accepted)
{
    nats_options_t opt = {.user = "a", .pass = pass};
    peer_t *p = &peer;
    open_client(p, port, &opt);
    run_until(p, is_ready);
    if (accepted) {
        require(p->ready && !p->fatal, "READY with the right password");
        require(nats_client_info(&p->nc)->auth_required, "INFO's auth_required");
    } else {
        require(!p->ready && p->fatal, "a fatal ERR for the wrong password");
        require(strcmp(p->err, "Authorization Violation") == 0, "'Authorization Violation'");
    }
    close(p->fd);
}

static void auth_server_run(void)
{
    char dir[] = "/tmp/zq-nats-XXXXXX", path[64];
    require(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/auth.conf", dir);
    FILE *f = fopen(path, "w");
    require(f != NULL, "write the config");
    fputs("authorization { user: a, password: b }\n", f);
    fclose(f);
    int port = free_port();
    const char *const config[] = {"-c", path, NULL};
    start_server(0, port, config);
    auth_attempt(port, "wrong", false);
    printf("nats_peer: a wrong password is refused: Authorization Violation\n");
    auth_attempt(port, "b", true);
    printf("nats_peer: the right password reaches READY\n");
    stop_servers();
    unlink(path);
    rmdir(dir);
}

static bool has_second_info(const peer_t *p)
{
    return p->infos >= 2 || p->fatal;
}

static void cluster_run(void)
{
    int port_a = free_port(), port_b = free_port(), route_a = free_port(), route_b = free_port();
    char listen_a[64], listen_b[64], routes[64], url_b[32];
    snprintf(listen_a, sizeof listen_a, "nats://127.0.0.1:%d", route_a);
    snprintf(listen_b, sizeof listen_b, "nats://127.0.0.1:%d", route_b);
    snprintf(routes, sizeof routes, "nats://127.0.0.1:%d", route_a);
    snprintf(url_b, sizeof url_b, "127.0.0.1:%d", port_b);
    const char *const a[] = {"--cluster_name", "zq", "--cluster", listen_a, NULL};
    const char *const b[] = {"--cluster_name", "zq", "--cluster", listen_b, "--routes", routes,
                             NULL};
    start_server(0, port_a, a);
    peer_t *p = &peer;
    open_client(p, port_a, &(nats_options_t){.name = "zq-nats-peer"});
    require(run_until(p, is_ready) && p->ready, "READY from the first server of the cluster");
    start_server(1, port_b, b);
    require(run_until(p, has_second_info) && !p->fatal, "a later INFO when the second joins");
    const nats_info_t *info = nats_client_info(&p->nc);
    bool named = false;
    for (size_t i = 0; i < info->url_count; i++) {
        named = named || strcmp(info->connect_urls[i], url_b) == 0;
    }
    require(named, "the later INFO's connect_urls name the second server");
    printf("nats_peer: a later INFO lists the second server (%s) in connect_urls\n", url_b);
    close(p->fd);
    stop_servers();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: nats_peer <nats-server>\n");
        return 2;
    }
    server_path = argv[1];
    signal(SIGPIPE, SIG_IGN);
    atexit(stop_servers);
    open_server_run();
    auth_server_run();
    cluster_run();
    printf("nats_peer: all checks passed\n");
    return 0;
}

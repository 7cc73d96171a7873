/* `zq signal` from the outside: spawned servers on 127.0.0.1 (ports the kernel picks), talked
 * to with zq_ws_client on a zq_loop_t and with raw sockets that speak just enough HTTP and
 * RFC 6455 to misbehave on purpose. argv[1] is the zq binary. ZQ_TEST_WRAPPER, if set, is a
 * command line put in front of every spawned zq (e.g. "valgrind --error-exitcode=99 -q"). A
 * sanitizer's report on a spawned zq's stderr fails the test (CI's ASan+UBSan step runs it
 * on the sanitized zq). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/signal.h"
#include "port/posix/loop.h"
#include "port/posix/ws_client.h"
#include "port/zq_port.h"
#include "signal/http.h"
#include "zq/json.h"
#include "signal/router.h"

extern char **environ;

/* Generous: every wait also covers a server slowed down by valgrind. */
#define WAIT_MS 20000
#define MAX_ARGS 32

static const char *zq_path;
static char tmp[64];

/* ---- Processes ------------------------------------------------------------------------------- */

typedef struct {
    pid_t pid;
    uint16_t port;
    int out; /* read end of its stdout */
    char err_path[128];
} server_t;

static size_t wrapper_argv(char **argv)
{
    static char words[512];
    const char *w = getenv("ZQ_TEST_WRAPPER");
    size_t n = 0;
    if (w == NULL || *w == '\0') {
        return 0;
    }
    (void)snprintf(words, sizeof words, "%s", w);
    for (char *tok = strtok(words, " "); tok != NULL && n < MAX_ARGS / 2; tok = strtok(NULL, " ")) {
        argv[n++] = tok;
    }
    return n;
}

/* Starts `zq ARGS...` with stdout to @p out_fd and stderr to @p err_path. */
static pid_t spawn_zq(const char *const *args, int out_fd, const char *err_path)
{
    char *argv[MAX_ARGS + 1];
    size_t n = wrapper_argv(argv);
    argv[n++] = (char *)zq_path;
    for (size_t i = 0; args[i] != NULL && n < MAX_ARGS; i++) {
        argv[n++] = (char *)args[i];
    }
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
    assert_int_equal(posix_spawn_file_actions_adddup2(&fa, out_fd, 1), 0);
    assert_int_equal(
        posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644), 0);
    pid_t pid;
    /* spawnp: a wrapper such as valgrind is found on PATH. */
    assert_int_equal(posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

/* Waits for @p pid to end (killing it after WAIT_MS); its waitpid() status. */
static int wait_status(pid_t pid)
{
    int status = 0;
    for (int waited = 0; waitpid(pid, &status, WNOHANG) == 0; waited += 10) {
        if (waited > WAIT_MS) {
            (void)kill(pid, SIGKILL);
            (void)waitpid(pid, &status, 0);
            fail_msg("zq did not exit within %d ms", WAIT_MS);
        }
        struct timespec ts = {0, 10000000};
        (void)nanosleep(&ts, NULL);
    }
    return status;
}

static int exit_code(int status)
{
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* The first MiB of a file, NUL-terminated, until the next call. */
static const char *file_text(const char *path)
{
    static char buf[1 << 20];
    int f = open(path, O_RDONLY);
    ssize_t n = f >= 0 ? read(f, buf, sizeof buf - 1) : -1;
    (void)close(f);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static bool file_has(const char *path, const char *text)
{
    return strstr(file_text(path), text) != NULL;
}

/* A zq built with ZQ_SANITIZE (as CI's sanitizer step runs this test) stops at the first
 * error ASan, LeakSanitizer or UBSan finds, and says so on its stderr. Its exit code alone
 * could pass for one of zq's own (1): the report is what tells. */
static void assert_no_sanitizer_report(const char *err_path)
{
    const char *text = file_text(err_path);
    if (strstr(text, "Sanitizer") != NULL || strstr(text, "runtime error:") != NULL) {
        (void)fputs(text, stderr);
        fail_msg("a sanitizer reported an error in zq (its stderr above, %s)", err_path);
    }
}

/* Reads stdout up to the first newline. */
static void read_line(int fd, char *line, size_t cap)
{
    size_t len = 0;
    while (len + 1 < cap) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        assert_int_equal(poll(&p, 1, WAIT_MS), 1);
        ssize_t n = read(fd, line + len, 1);
        assert_int_equal(n, 1);
        if (line[len] == '\n') {
            break;
        }
        len++;
    }
    line[len] = '\0';
}

/* `zq signal --listen 127.0.0.1:0 EXTRA...`, and the port from its first line. */
static void start_server(server_t *s, const char *name, const char *const *extra)
{
    const char *args[MAX_ARGS];
    size_t n = 0;
    args[n++] = "signal";
    args[n++] = "--listen";
    args[n++] = "127.0.0.1:0";
    for (size_t i = 0; extra != NULL && extra[i] != NULL; i++) {
        args[n++] = extra[i];
    }
    args[n] = NULL;
    int p[2];
    assert_int_equal(pipe(p), 0);
    (void)snprintf(s->err_path, sizeof s->err_path, "%s/%s.err", tmp, name);
    s->pid = spawn_zq(args, p[1], s->err_path);
    (void)close(p[1]);
    s->out = p[0];
    char line[256];
    read_line(s->out, line, sizeof line);
    unsigned port = 0;
    assert_int_equal(sscanf(line, "zq signal: listening on http://127.0.0.1:%u (WebSocket at /ws)",
                            &port), 1);
    assert_true(port > 0 && port < 65536);
    s->port = (uint16_t)port;
}

/* Waits for a server told to stop; its exit status. */
static int reap_server(server_t *s)
{
    int status = wait_status(s->pid);
    s->pid = 0;
    (void)close(s->out);
    assert_no_sanitizer_report(s->err_path);
    return exit_code(status);
}

/* SIGTERM (once: a second one during the shutdown kills, as a second Ctrl-C should), and the
 * exit status (0 expected). */
static int stop_server(server_t *s)
{
    if (s->pid <= 0) {
        return 0;
    }
    (void)kill(s->pid, SIGTERM);
    return reap_server(s);
}

/* Runs `zq ARGS...` to its end: its stdout and stderr in @p out / @p err, its exit status. */
static int run_zq(const char *const *args, char *out, size_t out_cap, char *err, size_t err_cap)
{
    char out_path[128];
    char err_path[128];
    (void)snprintf(out_path, sizeof out_path, "%s/run.out", tmp);
    (void)snprintf(err_path, sizeof err_path, "%s/run.err", tmp);
    int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    pid_t pid = spawn_zq(args, fd, err_path);
    (void)close(fd);
    int status = wait_status(pid);
    assert_no_sanitizer_report(err_path);
    const char *paths[2] = {out_path, err_path};
    char *bufs[2] = {out, err};
    size_t caps[2] = {out_cap, err_cap};
    for (int i = 0; i < 2; i++) {
        int f = open(paths[i], O_RDONLY);
        ssize_t n = read(f, bufs[i], caps[i] - 1);
        bufs[i][n > 0 ? n : 0] = '\0';
        (void)close(f);
    }
    return exit_code(status);
}

static void write_file(const char *path, const void *data, size_t len)
{
    int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(f >= 0);
    assert_int_equal(write(f, data, len), (ssize_t)len);
    (void)close(f);
}

/* ---- zq_ws_client peers on one loop ---------------------------------------------------------- */

#define FRAMES 64

typedef struct {
    zq_ws_client_t ws;
    char frames[FRAMES][1024];
    unsigned head, count;
    bool closed;
    uint16_t close_code;
} peer_t;

static zq_loop_t loop;
static peer_t peers[3]; /* ZQ_LOOP_MAX_FDS: at most 4 on the loop at once */

static void peer_text(void *ctx, uint64_t now, const char *text, size_t len)
{
    (void)now;
    peer_t *p = ctx;
    assert_true(p->count < FRAMES);
    char *slot = p->frames[(p->head + p->count++) % FRAMES];
    size_t n = len < sizeof p->frames[0] - 1 ? len : sizeof p->frames[0] - 1;
    memcpy(slot, text, n);
    slot[n] = '\0';
    zq_loop_stop(&loop);
}

static void peer_closed(void *ctx, uint64_t now, uint16_t code, const char *reason)
{
    (void)now;
    (void)reason;
    peer_t *p = ctx;
    p->closed = true;
    p->close_code = code;
    zq_loop_stop(&loop);
}

static peer_t *peer_open(unsigned i, uint16_t port, const char *target)
{
    peer_t *p = &peers[i];
    memset(p->frames, 0, sizeof p->frames);
    p->head = p->count = 0;
    p->closed = false;
    char text[256];
    (void)snprintf(text, sizeof text, "ws://127.0.0.1:%u%s", (unsigned)port, target);
    zq_ws_url_t url;
    assert_int_equal(zq_ws_url_parse(text, &url, NULL), ZQ_OK);
    zq_ws_client_callbacks_t cb = {.on_text = peer_text, .on_closed = peer_closed};
    const char *why = "";
    zq_err_t err = zq_ws_client_open(&p->ws, &loop, &url, &cb, p, WAIT_MS, &why);
    if (err != ZQ_OK) {
        fail_msg("open %s: %s (%s)", text, zq_errname(err), why);
    }
    return p;
}

/* Runs the loop until @p p has a frame (or is closed), at most WAIT_MS. */
static void pump_until(peer_t *p, bool want_close)
{
    uint64_t deadline = zq_loop_now(&loop) + WAIT_MS;
    while (!p->closed && (want_close || p->count == 0) && zq_loop_now(&loop) < deadline) {
        (void)zq_loop_run(&loop, deadline);
    }
}

static const char *next_frame(peer_t *p)
{
    pump_until(p, false);
    if (p->count == 0) {
        fail_msg("no frame within %d ms (closed: %d)", WAIT_MS, p->closed);
    }
    const char *f = p->frames[p->head];
    p->head = (p->head + 1) % FRAMES;
    p->count--;
    return f;
}

static bool frame_field(const char *frame, const char *key, char *out, size_t cap)
{
    json_value_t doc;
    json_value_t v;
    return json_parse(frame, strlen(frame), &doc) == ZQ_OK &&
           json_object_get(doc, key, &v) == ZQ_OK && json_get_string(v, out, cap, NULL) == ZQ_OK;
}

/* The next frame must be of @p type; its peerId (if @p id) is copied out. */
static void expect_frame(peer_t *p, const char *type, char *id)
{
    const char *f = next_frame(p);
    char got[64];
    if (!frame_field(f, "type", got, sizeof got) || strcmp(got, type) != 0) {
        fail_msg("expected a %s frame, got %s", type, f);
    }
    if (id != NULL) {
        assert_true(frame_field(f, "peerId", id, SIG_ID_LEN + 1));
    }
}

static void say_text(peer_t *p, const char *text)
{
    assert_int_equal(zq_ws_client_send_text(&p->ws, text, strlen(text)), ZQ_OK);
}

static void join(peer_t *p, const char *room)
{
    char frame[128];
    (void)snprintf(frame, sizeof frame, "{\"type\":\"join\",\"topicId\":\"%s\"}", room);
    say_text(p, frame);
}

static void send_offer(peer_t *from, const char *to, const char *sdp)
{
    char frame[512];
    (void)snprintf(frame, sizeof frame,
                   "{\"type\":\"offer\",\"peerId\":\"%s\",\"sdp\":{\"type\":\"offer\","
                   "\"sdp\":\"%s\"}}",
                   to, sdp);
    say_text(from, frame);
}

static void close_peers(void)
{
    for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++) {
        zq_ws_client_close(&peers[i].ws);
    }
}

/* Two welcomed clients in @p room, A first: A hears peer_joined(B). */
static void pair_up(uint16_t port, const char *room, char *a_id, char *b_id)
{
    peer_t *a = peer_open(0, port, "/ws");
    expect_frame(a, "welcome", a_id);
    join(a, room);
    peer_t *b = peer_open(1, port, "/ws");
    expect_frame(b, "welcome", b_id);
    join(b, room);
    char joined[SIG_ID_LEN + 1];
    expect_frame(a, "peer_joined", joined);
    assert_string_equal(joined, b_id);
}

/* ---- Raw sockets: HTTP and hand-made WebSocket frames ---------------------------------------- */

static int raw_connect(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct timeval tv = {WAIT_MS / 1000, 0};
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof sin), 0);
    return fd;
}

static void raw_send(int fd, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        assert_true(n > 0);
        p += n;
        len -= (size_t)n;
    }
}

/* Reads until the server closes; returns the length (the answer is NUL-terminated). */
static size_t read_to_end(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    ssize_t n;
    while (len + 1 < cap && (n = recv(fd, buf + len, cap - 1 - len, 0)) > 0) {
        len += (size_t)n;
    }
    buf[len] = '\0';
    return len;
}

/* One HTTP request with @p extra header lines (may be NULL); the whole answer in @p buf; its
 * status. */
static int http_request(uint16_t port, const char *method, const char *target, const char *extra,
                        char *buf, size_t cap, size_t *len)
{
    int fd = raw_connect(port);
    char req[1024];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n", method,
                     target, extra != NULL ? extra : "");
    raw_send(fd, req, (size_t)n);
    size_t got = read_to_end(fd, buf, cap);
    (void)close(fd);
    if (len != NULL) {
        *len = got;
    }
    int status = 0;
    return sscanf(buf, "HTTP/1.1 %d", &status) == 1 ? status : -1;
}

static int http_get(uint16_t port, const char *method, const char *target, char *buf, size_t cap,
                    size_t *len)
{
    return http_request(port, method, target, NULL, buf, cap, len);
}

static const char *http_body(const char *answer)
{
    const char *b = strstr(answer, "\r\n\r\n");
    assert_non_null(b);
    return b + 4;
}

/* Sends an upgrade request and reads the answer head byte by byte (nothing past it). Returns
 * the status; the socket is left open in *fd. */
static int raw_upgrade(uint16_t port, const char *target, const char *extra, int *fd)
{
    *fd = raw_connect(port);
    char req[1024];
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n%s\r\n",
                     target, extra != NULL ? extra : "");
    raw_send(*fd, req, (size_t)n);
    char head[2048];
    size_t len = 0;
    while (len + 1 < sizeof head && (len < 4 || memcmp(head + len - 4, "\r\n\r\n", 4) != 0)) {
        if (recv(*fd, head + len, 1, 0) != 1) {
            break;
        }
        len++;
    }
    head[len] = '\0';
    int status = 0;
    return sscanf(head, "HTTP/1.1 %d", &status) == 1 ? status : -1;
}

static bool read_exact(int fd, uint8_t *buf, size_t n)
{
    while (n > 0) {
        ssize_t got = recv(fd, buf, n, 0);
        if (got <= 0) {
            return false;
        }
        buf += got;
        n -= (size_t)got;
    }
    return true;
}

/* One unmasked server frame (§5.2); false at the end of the stream. */
static bool raw_frame(int fd, uint8_t *opcode, uint8_t *payload, size_t cap, size_t *len)
{
    uint8_t h[2];
    if (!read_exact(fd, h, 2)) {
        return false;
    }
    *opcode = h[0] & 0x0f;
    size_t n = h[1] & 0x7f;
    assert_true((h[1] & 0x80) == 0); /* §5.1: a server never masks */
    if (n == 126) {
        uint8_t ext[2];
        assert_true(read_exact(fd, ext, 2));
        n = (size_t)ext[0] << 8 | ext[1];
    }
    assert_true(n <= cap);
    assert_true(read_exact(fd, payload, n));
    *len = n;
    return true;
}

/* Skips pings until a frame of @p want (or the end: then false). */
static bool raw_expect(int fd, uint8_t want, uint8_t *payload, size_t cap, size_t *len)
{
    uint8_t op;
    while (raw_frame(fd, &op, payload, cap, len)) {
        if (op == want) {
            return true;
        }
        assert_int_equal(op, 0x9); /* only pings may come in between */
    }
    return false;
}

/* A masked text frame (§5.3: every client frame is masked). */
static void raw_send_text(int fd, const char *text)
{
    size_t n = strlen(text);
    assert_true(n < 126);
    uint8_t frame[140] = {0x81, (uint8_t)(0x80 | n), 0x37, 0xfa, 0x21, 0x3d};
    for (size_t i = 0; i < n; i++) {
        frame[6 + i] = (uint8_t)text[i] ^ frame[2 + i % 4];
    }
    raw_send(fd, frame, 6 + n);
}

/* A raw client that completed the upgrade and read its welcome. */
static int raw_client(uint16_t port, char *id)
{
    int fd;
    assert_int_equal(raw_upgrade(port, "/ws", NULL, &fd), 101);
    uint8_t buf[256];
    size_t len;
    assert_true(raw_expect(fd, 0x1, buf, sizeof buf - 1, &len));
    buf[len] = '\0';
    char type[16];
    assert_true(frame_field((const char *)buf, "type", type, sizeof type));
    assert_string_equal(type, "welcome");
    if (id != NULL) {
        assert_true(frame_field((const char *)buf, "peerId", id, SIG_ID_LEN + 1));
    }
    return fd;
}

/* The close frame's code, after any pings; then the server's FIN must follow. */
static uint16_t raw_close_code(int fd)
{
    uint8_t buf[128];
    size_t len;
    assert_true(raw_expect(fd, 0x8, buf, sizeof buf, &len));
    assert_true(len >= 2);
    uint8_t more;
    assert_int_equal(recv(fd, &more, 1, 0), 0);
    return (uint16_t)(buf[0] << 8 | buf[1]);
}

/* ---- The main server: --web DIR -------------------------------------------------------------- */

static server_t main_srv;
static uint8_t app_js[20000]; /* more than one 8 KiB buffer of the server's */

static int main_setup(void **state)
{
    (void)state;
    char path[128];
    (void)snprintf(path, sizeof path, "%s/web", tmp);
    assert_int_equal(mkdir(path, 0755), 0);
    for (size_t i = 0; i < sizeof app_js; i++) {
        app_js[i] = (uint8_t)("console.log(1);\n"[i % 16]);
    }
    (void)snprintf(path, sizeof path, "%s/web/app.js", tmp);
    write_file(path, app_js, sizeof app_js);
    (void)snprintf(path, sizeof path, "%s/web/index.html", tmp);
    write_file(path, "<!doctype html><title>zq</title>\n", 33);
    (void)snprintf(path, sizeof path, "%s/web/.secret", tmp);
    write_file(path, "hidden\n", 7);
    (void)snprintf(path, sizeof path, "%s/web/dash", tmp);
    assert_int_equal(mkdir(path, 0755), 0);
    (void)snprintf(path, sizeof path, "%s/web/dash/index.html", tmp);
    write_file(path, "<!doctype html><title>dash</title>\n", 35);
    (void)snprintf(path, sizeof path, "%s/web", tmp);
    const char *const extra[] = {"--web", path, NULL};
    start_server(&main_srv, "main", extra);
    return 0;
}

static int main_teardown(void **state)
{
    (void)state;
    close_peers();
    (void)stop_server(&main_srv);
    return 0;
}

/* After each test of the group: its server still runs and has reported nothing. A server a
 * sanitizer stopped would otherwise show only as a later test's timeout, or not at all. */
static int main_server_still_runs(void **state)
{
    (void)state;
    int status = 0;
    if (main_srv.pid > 0 && waitpid(main_srv.pid, &status, WNOHANG) == main_srv.pid) {
        main_srv.pid = 0;
        assert_no_sanitizer_report(main_srv.err_path);
        fail_msg("the --web server ended during the test (wait status %d)", status);
    }
    assert_no_sanitizer_report(main_srv.err_path);
    return 0;
}

#define MAIN_TEST(f) cmocka_unit_test_teardown(f, main_server_still_runs)

static void welcome_frames_give_each_client_a_distinct_id(void **state)
{
    (void)state;
    char a[SIG_ID_LEN + 1];
    char b[SIG_ID_LEN + 1];
    char c[SIG_ID_LEN + 1];
    expect_frame(peer_open(0, main_srv.port, "/ws"), "welcome", a);
    expect_frame(peer_open(1, main_srv.port, "/ws"), "welcome", b);
    expect_frame(peer_open(2, main_srv.port, "/"), "welcome", c); /* ZeroQ's default URL */
    assert_int_equal(strlen(a), SIG_ID_LEN);
    assert_string_not_equal(a, b);
    assert_string_not_equal(b, c);
    assert_string_not_equal(a, c);
    close_peers();
}

static void join_tells_only_the_earlier_member_so_one_side_dials(void **state)
{
    (void)state;
    char a[SIG_ID_LEN + 1];
    char b[SIG_ID_LEN + 1];
    pair_up(main_srv.port, "room-join", a, b);
    /* Whatever reaches B was sent after its join; if the server had told B peer_joined(A), it
     * would come before A's offer on B's one ordered stream. */
    send_offer(&peers[0], b, "v=0");
    expect_frame(&peers[1], "offer", NULL);
    close_peers();
}

static void an_offer_reaches_the_addressed_peer_with_peer_id_rewritten_to_the_sender(void **state)
{
    (void)state;
    char a[SIG_ID_LEN + 1];
    char b[SIG_ID_LEN + 1];
    pair_up(main_srv.port, "room-offer", a, b);
    send_offer(&peers[0], b, "v=0\\r\\no=- 1 1 IN IP4 0.0.0.0\\r\\n");
    const char *f = next_frame(&peers[1]);
    char from[SIG_ID_LEN + 1];
    assert_true(frame_field(f, "peerId", from, sizeof from));
    assert_string_equal(from, a);
    assert_non_null(strstr(f, "\"sdp\":{\"type\":\"offer\",\"sdp\":\"v=0\\r\\no=- 1 1 IN IP4"));
    close_peers();
}

/* C joins A and B's room, then breaks the protocol: only C goes, the room hears peer_left(C),
 * and A and B still relay. */
static void misbehaving_client_is_closed_alone(const uint8_t *bad, size_t bad_len,
                                               uint16_t want_code)
{
    char a[SIG_ID_LEN + 1];
    char b[SIG_ID_LEN + 1];
    char c[SIG_ID_LEN + 1];
    char got[SIG_ID_LEN + 1];
    pair_up(main_srv.port, "room-bad", a, b);
    int fd = raw_client(main_srv.port, c);
    raw_send_text(fd, "{\"type\":\"join\",\"topicId\":\"room-bad\"}");
    expect_frame(&peers[0], "peer_joined", got);
    assert_string_equal(got, c);
    expect_frame(&peers[1], "peer_joined", got);
    (void)send(fd, bad, bad_len, MSG_NOSIGNAL); /* the server may stop reading at any point */
    assert_int_equal(raw_close_code(fd), want_code);
    (void)close(fd);
    expect_frame(&peers[0], "peer_left", got);
    assert_string_equal(got, c);
    expect_frame(&peers[1], "peer_left", got);
    send_offer(&peers[0], b, "v=0");
    expect_frame(&peers[1], "offer", got);
    assert_string_equal(got, a);
    close_peers();
}

static void a_websocket_protocol_error_closes_only_that_client_with_1002(void **state)
{
    (void)state;
    /* RSV bits set, opcode 0xF, masked, empty: three reasons to fail it (§5.2, §7.4.1). */
    static const uint8_t garbage[] = {0xff, 0x80, 1, 2, 3, 4, 'j', 'u', 'n', 'k'};
    misbehaving_client_is_closed_alone(garbage, sizeof garbage, 1002);
}

static void a_70_kb_message_closes_only_that_client_with_1009(void **state)
{
    (void)state;
    static uint8_t big[14 + 70 * 1024];
    uint64_t n = 70 * 1024;
    big[0] = 0x81;
    big[1] = 0x80 | 127;
    for (int i = 0; i < 8; i++) {
        big[2 + i] = (uint8_t)(n >> (56 - 8 * i));
    }
    memset(big + 14, 'a', (size_t)n); /* masking key 0 (bytes 10-13): the payload as is */
    misbehaving_client_is_closed_alone(big, sizeof big, 1009);
}

static void a_text_frame_that_is_not_json_is_dropped_and_its_sender_stays(void **state)
{
    (void)state;
    char a[SIG_ID_LEN + 1];
    char c[SIG_ID_LEN + 1];
    char got[SIG_ID_LEN + 1];
    peer_t *pa = peer_open(0, main_srv.port, "/ws");
    expect_frame(pa, "welcome", a);
    join(pa, "room-text");
    int fd = raw_client(main_srv.port, c);
    raw_send_text(fd, "this is not JSON");
    raw_send_text(fd, "{\"type\":\"join\",\"topicId\":\"room-text\"}");
    expect_frame(pa, "peer_joined", got);
    assert_string_equal(got, c);
    (void)close(fd);
    expect_frame(pa, "peer_left", got);
    close_peers();
}

/* GETs @p target from @p port until its body is @p want (the WebSocket frame that makes it so
 * travels on another connection, so the first answer may come before the server read it). */
static void expect_api_body_at(uint16_t port, const char *target, const char *want)
{
    static char answer[4096];
    for (int i = 0; i < WAIT_MS / 20; i++) {
        assert_int_equal(http_get(port, "GET", target, answer, sizeof answer, NULL), 200);
        if (strcmp(http_body(answer), want) == 0) {
            assert_non_null(strstr(answer, "\r\nContent-Type: application/json\r\n"));
            return;
        }
        struct timespec ts = {0, 20000000};
        (void)nanosleep(&ts, NULL);
    }
    fail_msg("%s never answered %s; last: %s", target, want, answer);
}

static void expect_api_body(const char *target, const char *want)
{
    expect_api_body_at(main_srv.port, target, want);
}

static void api_lists_hold_what_joined_members_announced_per_room_until_they_leave(void **state)
{
    (void)state;
    static char answer[1024];
    assert_int_equal(http_get(main_srv.port, "GET", "/api/topics", answer, sizeof answer, NULL),
                     200);
    assert_string_equal(http_body(answer), "[]");
    /* An open server (no --allow-origin): any page may read its lists. */
    assert_non_null(strstr(answer, "\r\nAccess-Control-Allow-Origin: *\r\n"));
    peer_t *stranger = peer_open(0, main_srv.port, "/ws");
    expect_frame(stranger, "welcome", NULL);
    say_text(stranger, "{\"type\":\"create_topic\",\"topic\":\"spam\"}");
    peer_t *a = peer_open(1, main_srv.port, "/ws");
    expect_frame(a, "welcome", NULL);
    join(a, "lab");
    say_text(a, "{\"type\":\"create_topic\",\"topic\":\"news\"}");
    say_text(a, "{\"type\":\"create_queue\",\"queue\":\"jobs\"}");
    expect_api_body("/api/topics", "[\"news\"]"); /* not spam: its sender never joined */
    peer_t *b = peer_open(2, main_srv.port, "/ws");
    expect_frame(b, "welcome", NULL);
    join(b, "home");
    say_text(b, "{\"type\":\"subscribe\",\"topic\":\"door\"}");
    expect_api_body("/api/topics?room=home", "[\"door\"]");
    expect_api_body("/api/topics?room=lab", "[\"news\"]");
    expect_api_body("/api/queues?room=lab", "[\"jobs\"]");
    expect_api_body("/api/queues?room=home", "[]");
    /* Any method, as ZeroQ's Go server; HEAD gets the head alone. */
    assert_int_equal(http_get(main_srv.port, "POST", "/api/topics?room=lab", answer,
                              sizeof answer, NULL),
                     200);
    assert_string_equal(http_body(answer), "[\"news\"]");
    assert_int_equal(http_get(main_srv.port, "HEAD", "/api/topics?room=lab", answer,
                              sizeof answer, NULL),
                     200);
    assert_string_equal(http_body(answer), "");
    assert_non_null(strstr(answer, "\r\nContent-Length: 8\r\n"));
    assert_int_equal(http_get(main_srv.port, "GET", "/api/topics?room=%zz", answer,
                              sizeof answer, NULL),
                     400);
    zq_ws_client_close(&a->ws);
    expect_api_body("/api/topics?room=lab", "[]"); /* gone with its member */
    expect_api_body("/api/queues", "[]");
    close_peers();
}

static void a_static_file_is_served_byte_exact_with_its_content_type(void **state)
{
    (void)state;
    static char answer[32768];
    size_t len = 0;
    assert_int_equal(http_get(main_srv.port, "GET", "/app.js", answer, sizeof answer, &len), 200);
    const char *body = http_body(answer);
    assert_int_equal(len - (size_t)(body - answer), sizeof app_js);
    assert_memory_equal(body, app_js, sizeof app_js);
    char field[128];
    (void)snprintf(field, sizeof field, "\r\nContent-Type: %s\r\n", http_content_type("app.js"));
    assert_non_null(strstr(answer, field));
    assert_int_equal(http_get(main_srv.port, "GET", "/", answer, sizeof answer, NULL), 200);
    assert_string_equal(http_body(answer), "<!doctype html><title>zq</title>\n");
    assert_non_null(strstr(answer, "\r\nContent-Type: text/html"));
}

/* RFC 9110 §15.4.2: /dash, a directory, moves to /dash/ (so the page's relative links resolve
 * inside it), where its index.html is served. */
static void a_directory_without_its_slash_is_redirected_to_it(void **state)
{
    (void)state;
    static char answer[4096];
    assert_int_equal(http_get(main_srv.port, "GET", "/dash", answer, sizeof answer, NULL), 301);
    assert_non_null(strstr(answer, "\r\nLocation: /dash/\r\n"));
    assert_int_equal(http_get(main_srv.port, "GET", "/dash/", answer, sizeof answer, NULL), 200);
    assert_string_equal(http_body(answer), "<!doctype html><title>dash</title>\n");
}

static void paths_out_of_the_web_root_or_hidden_are_not_served(void **state)
{
    (void)state;
    static char answer[8192];
    static const char *const bad[] = {"/../etc/passwd", "/%2e%2e/etc/passwd", "/%2e%2e/",
                                      "/.secret", "/%2Esecret", "/web/../../etc/passwd"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int status = http_get(main_srv.port, "GET", bad[i], answer, sizeof answer, NULL);
        assert_true(status == 404 || status == 400);
        assert_null(strstr(answer, "root:"));
        assert_null(strstr(answer, "hidden"));
    }
}

static void unknown_paths_get_404(void **state)
{
    (void)state;
    static char answer[4096];
    assert_int_equal(http_get(main_srv.port, "GET", "/nope", answer, sizeof answer, NULL), 404);
    int fd;
    assert_int_equal(raw_upgrade(main_srv.port, "/chat", NULL, &fd), 404); /* not /ws nor / */
    (void)close(fd);
}

static void http_connections_beyond_the_bound_get_503(void **state)
{
    (void)state;
    /* Silent connections hold HTTP slots (until their 10 s head timeout); the one after the
     * bound is answered 503 at once. Earlier tests' connections may still hold a slot or two:
     * then a silent one got the 503, and the last one gets it all the same. */
    int silent[ZQ_SIGNAL_MAX_HTTP];
    for (int i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        silent[i] = raw_connect(main_srv.port);
    }
    static char answer[4096];
    assert_int_equal(http_get(main_srv.port, "GET", "/", answer, sizeof answer, NULL), 503);
    for (int i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        (void)close(silent[i]);
    }
    /* Their slots come back once the server reads their FINs. */
    for (int i = 0; i < WAIT_MS / 20; i++) {
        if (http_get(main_srv.port, "GET", "/", answer, sizeof answer, NULL) == 200) {
            return;
        }
        struct timespec ts = {0, 20000000};
        (void)nanosleep(&ts, NULL);
    }
    fail_msg("HTTP slots did not come back");
}

static void sigterm_closes_clients_with_1001_and_exits_0(void **state)
{
    (void)state;
    peer_t *a = peer_open(0, main_srv.port, "/ws");
    expect_frame(a, "welcome", NULL);
    (void)kill(main_srv.pid, SIGTERM);
    pump_until(a, true);
    assert_true(a->closed);
    assert_int_equal(a->close_code, 1001);
    assert_int_equal(reap_server(&main_srv), 0);
    assert_true(file_has(main_srv.err_path, "zq signal: stopped"));
    assert_false(file_has(main_srv.err_path, "zq[error]"));
}

/* ---- --allow-origin -------------------------------------------------------------------------- */

static void an_upgrade_from_an_origin_not_allowed_gets_403(void **state)
{
    (void)state;
    server_t s;
    const char *const extra[] = {"--allow-origin", "http://good.example", "--allow-origin",
                                 "http://localhost:5173", NULL};
    start_server(&s, "origin", extra);
    int fd;
    assert_int_equal(raw_upgrade(s.port, "/ws", "Origin: http://evil.example\r\n", &fd), 403);
    (void)close(fd);
    assert_int_equal(raw_upgrade(s.port, "/ws", "Origin: http://localhost:5173\r\n", &fd), 101);
    (void)close(fd);
    /* No Origin: a program, not a page (zq_ws_client sends none). */
    expect_frame(peer_open(0, s.port, "/ws"), "welcome", NULL);
    close_peers();
    assert_int_equal(stop_server(&s), 0);
}

static void api_obeys_the_origin_allow_list_and_names_the_origin_it_allows(void **state)
{
    (void)state;
    server_t s;
    const char *const extra[] = {"--allow-origin", "http://localhost:5173", NULL};
    start_server(&s, "api-origin", extra);
    static char answer[1024];
    assert_int_equal(http_request(s.port, "GET", "/api/topics", "Origin: http://evil.example\r\n",
                                  answer, sizeof answer, NULL),
                     403);
    assert_int_equal(http_request(s.port, "GET", "/api/topics",
                                  "Origin: http://localhost:5173\r\n", answer, sizeof answer,
                                  NULL),
                     200);
    assert_non_null(strstr(answer, "\r\nAccess-Control-Allow-Origin: http://localhost:5173\r\n"));
    assert_non_null(strstr(answer, "\r\nVary: Origin\r\n"));
    assert_int_equal(http_get(s.port, "GET", "/api/queues", answer, sizeof answer, NULL), 200);
    assert_null(strstr(answer, "Access-Control-Allow-Origin")); /* a program: no page to let */
    assert_int_equal(stop_server(&s), 0);
}

/* ---- Room tokens ----------------------------------------------------------------------------- */

/* `zq signal --print-token ROOM [--token-ttl S]`: EXPIRY.MAC, EXPIRY about now + S. */
static void print_token(const char *key_path, const char *room, const char *ttl, char *token,
                        size_t cap)
{
    static char out[256];
    static char err[1024];
    const char *const print[] = {"signal",   "--print-token",    room, "--token-key-file",
                                 key_path,   ttl != NULL ? "--token-ttl" : NULL, ttl, NULL};
    time_t before = time(NULL);
    assert_int_equal(run_zq(print, out, sizeof out, err, sizeof err), 0);
    time_t after = time(NULL);
    unsigned long long expiry = 0;
    int mac_at = 0;
    assert_int_equal(sscanf(out, "%llu.%n", &expiry, &mac_at), 1);
    long want = ttl != NULL ? atol(ttl) : 86400;
    assert_true(expiry >= (unsigned long long)(before + want) &&
                expiry <= (unsigned long long)(after + want));
    assert_int_equal(strspn(out + mac_at, "0123456789abcdef"), 64);
    assert_string_equal(out + mac_at + 64, "\n");
    out[mac_at + 64] = '\0';
    assert_true(strlen(out) < cap);
    memcpy(token, out, strlen(out) + 1);
}

static void a_join_without_a_valid_token_is_refused_and_a_printed_token_works(void **state)
{
    (void)state;
    char key_path[128];
    (void)snprintf(key_path, sizeof key_path, "%s/room.key", tmp);
    write_file(key_path, "correct horse battery staple\n", 29);
    char token[SIG_TOKEN_TEXT_MAX + 1];
    char other_room[SIG_TOKEN_TEXT_MAX + 1];
    print_token(key_path, "lab", NULL, token, sizeof token);
    print_token(key_path, "attic", "60", other_room, sizeof other_room);

    server_t s;
    const char *const extra[] = {"--token-key-file", key_path, NULL};
    start_server(&s, "token", extra);
    char target[300];
    (void)snprintf(target, sizeof target, "/ws?room=lab&token=%s", token);
    char wrong_target[300];
    (void)snprintf(wrong_target, sizeof wrong_target, "/ws?token=%s", other_room);
    char b_id[SIG_ID_LEN + 1];
    char c_id[SIG_ID_LEN + 1];
    char got[SIG_ID_LEN + 1];
    peer_t *b = peer_open(0, s.port, target);
    expect_frame(b, "welcome", b_id);
    join(b, "lab");
    peer_t *a = peer_open(1, s.port, "/ws");
    expect_frame(a, "welcome", NULL);
    join(a, "lab");
    expect_frame(a, "error", NULL);
    zq_ws_client_close(&a->ws);
    peer_t *w = peer_open(1, s.port, wrong_target); /* a token, but for another room */
    expect_frame(w, "welcome", NULL);
    join(w, "lab");
    expect_frame(w, "error", NULL);
    peer_t *c = peer_open(2, s.port, target);
    expect_frame(c, "welcome", c_id);
    join(c, "lab");
    expect_frame(b, "peer_joined", got); /* C's, not A's or W's: they never got in */
    assert_string_equal(got, c_id);
    close_peers();
    assert_int_equal(stop_server(&s), 0);
    assert_true(file_has(s.err_path, "join refused"));
}

static void api_lists_of_a_keyed_server_need_a_room_and_its_token(void **state)
{
    (void)state;
    char key_path[128];
    (void)snprintf(key_path, sizeof key_path, "%s/api.key", tmp);
    write_file(key_path, "api key\n", 8);
    char token[SIG_TOKEN_TEXT_MAX + 1];
    print_token(key_path, "lab", "600", token, sizeof token);
    server_t s;
    const char *const extra[] = {"--token-key-file", key_path, NULL};
    start_server(&s, "api-token", extra);
    static char answer[1024];
    char target[300];
    assert_int_equal(http_get(s.port, "GET", "/api/topics", answer, sizeof answer, NULL), 403);
    assert_int_equal(http_get(s.port, "GET", "/api/topics?room=lab", answer, sizeof answer, NULL),
                     403);
    (void)snprintf(target, sizeof target, "/api/topics?room=attic&token=%s", token);
    assert_int_equal(http_get(s.port, "GET", target, answer, sizeof answer, NULL), 403);
    (void)snprintf(target, sizeof target, "/ws?token=%s", token);
    peer_t *m = peer_open(0, s.port, target);
    expect_frame(m, "welcome", NULL);
    join(m, "lab");
    say_text(m, "{\"type\":\"consume\",\"queue\":\"jobs\"}");
    (void)snprintf(target, sizeof target, "/api/queues?token=%s&room=lab", token);
    expect_api_body_at(s.port, target, "[\"jobs\"]");
    close_peers();
    assert_int_equal(stop_server(&s), 0);
}

/* ---- --turn-secret ------------------------------------------------------------------------ */

static void a_member_gets_turn_credentials_for_the_urls_given_as_it_joins(void **state)
{
    (void)state;
    char secret_path[128];
    (void)snprintf(secret_path, sizeof secret_path, "%s/turn.secret", tmp);
    write_file(secret_path, "shared with coturn\n", 19);
    server_t s;
    const char *const extra[] = {"--turn-secret", secret_path, "--turn-url",
                                 "turn:192.0.2.1:3478", "--turn-url",
                                 "turns:192.0.2.1:443?transport=tcp", "--turn-ttl", "600", NULL};
    start_server(&s, "turn", extra);
    char id[SIG_ID_LEN + 1];
    peer_t *p = peer_open(0, s.port, "/ws");
    expect_frame(p, "welcome", id);
    time_t before = time(NULL);
    join(p, "lab");
    const char *f = next_frame(p);
    char type[32];
    assert_true(frame_field(f, "type", type, sizeof type));
    assert_string_equal(type, "ice_servers");
    assert_non_null(strstr(f, "\"urls\":[\"turn:192.0.2.1:3478\","
                              "\"turns:192.0.2.1:443?transport=tcp\"]"));
    unsigned long long expiry = 0;
    char user_id[SIG_ID_LEN + 1];
    const char *u = strstr(f, "\"username\":\"");
    assert_non_null(u);
    assert_int_equal(sscanf(u + 12, "%llu:%22[A-Za-z0-9_-]", &expiry, user_id), 2);
    assert_string_equal(user_id, id); /* in its own name */
    assert_true(expiry >= (unsigned long long)before + 600 &&
                expiry <= (unsigned long long)time(NULL) + 600);
    assert_non_null(strstr(f, "\"credential\":\"")); /* its value: tests/interop/turn */
    close_peers();
    assert_int_equal(stop_server(&s), 0);
}

static void turn_options_that_do_not_go_together_are_usage_errors(void **state)
{
    (void)state;
    static char out[1024];
    static char err[1024];
    const char *const no_url[] = {"signal", "--turn-secret", "/dev/null", NULL};
    assert_int_equal(run_zq(no_url, out, sizeof out, err, sizeof err), 2);
    const char *const no_secret[] = {"signal", "--turn-url", "turn:192.0.2.1", NULL};
    assert_int_equal(run_zq(no_secret, out, sizeof out, err, sizeof err), 2);
    char secret_path[128];
    (void)snprintf(secret_path, sizeof secret_path, "%s/turn2.secret", tmp);
    write_file(secret_path, "s\n", 2);
    const char *const bad_url[] = {"signal", "--turn-secret", secret_path, "--turn-url",
                                   "http://192.0.2.1", NULL};
    assert_int_equal(run_zq(bad_url, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "--turn-url wants turn:"));
    const char *const lone_ttl[] = {"signal", "--turn-ttl", "600", NULL};
    assert_int_equal(run_zq(lone_ttl, out, sizeof out, err, sizeof err), 2);
}

/* ---- --idle-timeout -------------------------------------------------------------------------- */

typedef struct {
    int fd;
    bool done;
    uint16_t code;
} silent_t;

/* The silent client's socket, read on the loop so the live client keeps answering pings. */
static void silent_readable(void *ctx, int fd, uint64_t now)
{
    (void)now;
    silent_t *s = ctx;
    uint8_t buf[128];
    uint8_t op = 0;
    size_t len = 0;
    if (!raw_frame(fd, &op, buf, sizeof buf, &len) || op == 0x8) {
        s->done = true;
        s->code = 0;
        if (op == 0x8 && len >= 2) {
            s->code = (uint16_t)(buf[0] << 8 | buf[1]);
        }
        zq_loop_remove_fd(&loop, fd);
        zq_loop_stop(&loop);
    }
}

static void a_client_that_never_answers_pings_is_dropped_and_a_live_one_stays(void **state)
{
    (void)state;
    server_t s;
    const char *const extra[] = {"--idle-timeout", "1", NULL};
    start_server(&s, "idle", extra);
    peer_t *live = peer_open(0, s.port, "/ws");
    expect_frame(live, "welcome", NULL);
    silent_t silent = {.fd = raw_client(s.port, NULL)};
    assert_int_equal(zq_loop_add_fd(&loop, silent.fd, silent_readable, &silent), ZQ_OK);
    uint64_t deadline = zq_loop_now(&loop) + WAIT_MS;
    while (!silent.done && zq_loop_now(&loop) < deadline) {
        (void)zq_loop_run(&loop, deadline);
    }
    assert_true(silent.done);
    assert_int_equal(silent.code, 1001);
    (void)close(silent.fd);
    /* The live client answered the same pings over the same second, and one more. */
    (void)zq_loop_run(&loop, zq_loop_now(&loop) + 1500);
    assert_false(live->closed);
    assert_true(zq_ws_client_is_open(&live->ws));
    close_peers();
    assert_int_equal(stop_server(&s), 0);
    assert_true(file_has(s.err_path, "idle"));
}

/* ---- Capacity -------------------------------------------------------------------------------- */

static void clients_beyond_the_bound_get_503_and_two_hundred_join_and_leave(void **state)
{
    (void)state;
    server_t s;
    start_server(&s, "capacity", NULL);
    static int fds[ZQ_SIG_MAX_CLIENTS];
    for (int i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        fds[i] = raw_client(s.port, NULL);
    }
    int over;
    assert_int_equal(raw_upgrade(s.port, "/ws", NULL, &over), 503);
    (void)close(over);
    for (int i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        (void)close(fds[i]);
    }
    /* 200 in one room: each join tells every earlier member, each leave every later one. */
    for (int i = 0; i < 200; i++) {
        for (int tries = 0; tries < WAIT_MS / 20; tries++) {
            int status = raw_upgrade(s.port, "/ws", NULL, &fds[i]);
            if (status == 101) {
                break;
            }
            assert_int_equal(status, 503); /* slots of the closed ones not reaped yet */
            (void)close(fds[i]);
            struct timespec ts = {0, 20000000};
            (void)nanosleep(&ts, NULL);
        }
        uint8_t buf[256];
        size_t len;
        assert_true(raw_expect(fds[i], 0x1, buf, sizeof buf, &len)); /* welcome */
        raw_send_text(fds[i], "{\"type\":\"join\",\"topicId\":\"crowd\"}");
    }
    for (int i = 0; i < 200; i++) {
        (void)close(fds[i]);
    }
    peer_t *late = peer_open(0, s.port, "/ws");
    expect_frame(late, "welcome", NULL);
    close_peers();
    assert_int_equal(stop_server(&s), 0);
    assert_false(file_has(s.err_path, "zq[error]"));
    assert_false(file_has(s.err_path, "zq[warn]"));
    assert_true(file_has(s.err_path, "joined room \"crowd\""));
}

/* ---- The command line ------------------------------------------------------------------------ */

static void a_busy_port_exits_1_saying_so(void **state)
{
    (void)state;
    server_t s;
    start_server(&s, "first", NULL);
    char listen[64];
    (void)snprintf(listen, sizeof listen, "127.0.0.1:%u", (unsigned)s.port);
    static char out[256];
    static char err[1024];
    const char *const args[] = {"signal", "--listen", listen, NULL};
    assert_int_equal(run_zq(args, out, sizeof out, err, sizeof err), 1);
    char want[160];
    (void)snprintf(want, sizeof want,
                   "zq signal: %s is already in use (is another zq signal running?)\n", listen);
    assert_non_null(strstr(err, want));
    assert_int_equal(stop_server(&s), 0);
}

static void help_exits_0_and_usage_errors_exit_2(void **state)
{
    (void)state;
    static char out[8192];
    static char err[1024];
    const char *const help[] = {"signal", "--help", NULL};
    assert_int_equal(run_zq(help, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "usage: zq signal"));
    const char *const bad_listen[] = {"signal", "--listen", "nonsense", NULL};
    assert_int_equal(run_zq(bad_listen, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "--listen"));
    const char *const no_dir[] = {"signal", "--listen", "127.0.0.1:0", "--web",
                                  "/nonexistent/zq-web", NULL};
    assert_int_equal(run_zq(no_dir, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "/nonexistent/zq-web"));
    const char *const bad_idle[] = {"signal", "--idle-timeout", "0", NULL};
    assert_int_equal(run_zq(bad_idle, out, sizeof out, err, sizeof err), 2);
    const char *const no_key[] = {"signal", "--print-token", "lab", NULL};
    assert_int_equal(run_zq(no_key, out, sizeof out, err, sizeof err), 2);
    const char *const lone_ttl[] = {"signal", "--token-ttl", "60", NULL};
    assert_int_equal(run_zq(lone_ttl, out, sizeof out, err, sizeof err), 2);
    const char *const both[] = {"signal", "--open", "--token-key-file", "/dev/null", NULL};
    assert_int_equal(run_zq(both, out, sizeof out, err, sizeof err), 2);
}

/* Beyond loopback, a server with no token key lets anyone join any room: refused unless the
 * operator says --open. (It stops before binding: nothing is sent anywhere.) */
static void listening_beyond_loopback_without_a_token_key_needs_open(void **state)
{
    (void)state;
    static char out[1024];
    static char err[1024];
    const char *const lan[] = {"signal", "--listen", "192.0.2.1:0", NULL};
    assert_int_equal(run_zq(lan, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "--token-key-file"));
    assert_non_null(strstr(err, "--open"));
    const char *const any[] = {"signal", "--listen", "0.0.0.0:0", NULL};
    assert_int_equal(run_zq(any, out, sizeof out, err, sizeof err), 2);
    const char *const v6[] = {"signal", "--listen", "[::]:0", NULL};
    assert_int_equal(run_zq(v6, out, sizeof out, err, sizeof err), 2);
}

/* A key is 1 to 1024 bytes and one optional newline; a longer file is refused whole, even when
 * a newline happens to fall right after its 1024th byte. */
static void a_key_file_longer_than_a_key_is_refused(void **state)
{
    (void)state;
    static char text[2000];
    memset(text, 'k', sizeof text);
    text[1024] = '\n';
    char key_path[128];
    (void)snprintf(key_path, sizeof key_path, "%s/long.key", tmp);
    static char out[256];
    static char err[1024];
    const char *const print[] = {"signal", "--print-token", "lab", "--token-key-file", key_path,
                                 NULL};
    write_file(key_path, text, sizeof text);
    assert_int_equal(run_zq(print, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "1 to 1024 bytes"));
    write_file(key_path, text, 1025); /* exactly a key and its newline */
    assert_int_equal(run_zq(print, out, sizeof out, err, sizeof err), 0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        (void)fprintf(stderr, "usage: %s path/to/zq\n", argv[0]);
        return 2;
    }
    zq_path = argv[1];
    (void)signal(SIGPIPE, SIG_IGN);
    (void)snprintf(tmp, sizeof tmp, "/tmp/zq-signal-test.XXXXXX");
    if (mkdtemp(tmp) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    zq_loop_init(&loop);
    const struct CMUnitTest main_tests[] = {
        MAIN_TEST(welcome_frames_give_each_client_a_distinct_id),
        MAIN_TEST(join_tells_only_the_earlier_member_so_one_side_dials),
        MAIN_TEST(an_offer_reaches_the_addressed_peer_with_peer_id_rewritten_to_the_sender),
        MAIN_TEST(a_websocket_protocol_error_closes_only_that_client_with_1002),
        MAIN_TEST(a_70_kb_message_closes_only_that_client_with_1009),
        MAIN_TEST(a_text_frame_that_is_not_json_is_dropped_and_its_sender_stays),
        MAIN_TEST(api_lists_hold_what_joined_members_announced_per_room_until_they_leave),
        MAIN_TEST(a_static_file_is_served_byte_exact_with_its_content_type),
        MAIN_TEST(paths_out_of_the_web_root_or_hidden_are_not_served),
        MAIN_TEST(a_directory_without_its_slash_is_redirected_to_it),
        MAIN_TEST(unknown_paths_get_404),
        MAIN_TEST(http_connections_beyond_the_bound_get_503),
        MAIN_TEST(sigterm_closes_clients_with_1001_and_exits_0),
    };
    const struct CMUnitTest other_tests[] = {
        cmocka_unit_test(an_upgrade_from_an_origin_not_allowed_gets_403),
        cmocka_unit_test(api_obeys_the_origin_allow_list_and_names_the_origin_it_allows),
        cmocka_unit_test(a_join_without_a_valid_token_is_refused_and_a_printed_token_works),
        cmocka_unit_test(api_lists_of_a_keyed_server_need_a_room_and_its_token),
        cmocka_unit_test(listening_beyond_loopback_without_a_token_key_needs_open),
        cmocka_unit_test(a_member_gets_turn_credentials_for_the_urls_given_as_it_joins),
        cmocka_unit_test(turn_options_that_do_not_go_together_are_usage_errors),
        cmocka_unit_test(a_key_file_longer_than_a_key_is_refused),
        cmocka_unit_test(a_client_that_never_answers_pings_is_dropped_and_a_live_one_stays),
        cmocka_unit_test(clients_beyond_the_bound_get_503_and_two_hundred_join_and_leave),
        cmocka_unit_test(a_busy_port_exits_1_saying_so),
        cmocka_unit_test(help_exits_0_and_usage_errors_exit_2),
    };
    int failed = cmocka_run_group_tests_name("zq signal --web", main_tests, main_setup,
                                             main_teardown);
    failed += cmocka_run_group_tests_name("zq signal, other instances", other_tests, NULL, NULL);
    char cmd[128];
    (void)snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (failed == 0 && system(cmd) != 0) {
        (void)fprintf(stderr, "could not remove %s\n", tmp);
    }
    return failed;
}

/* `zq demo`: a supervisor of three children of this same program (zq signal, two zq device),
 * so each runs exactly as it would alone and a crash of one is seen, not hidden. */
#include "cli/cmd_demo.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

#define DEMO_CMD "demo"
#define DEMO_CHILDREN 3
#define STOP_GRACE_MS 3000

#ifndef ZQ_WEB_DIR
#define ZQ_WEB_DIR "web"
#endif

typedef struct {
    const char *listen;
    const char *web;     /* NULL: no dashboard */
    bool web_given;
    const char *room;
    uint32_t duration_s; /* 0: until a signal */
    bool verbose;        /* the devices say who they meet */
    bool open;           /* zq signal --open: listen beyond loopback with rooms open to all */
} demo_options_t;

typedef struct {
    const char *what;
    pid_t pid;
    bool exited;
    int status;
} demo_child_t;

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

void zq_cmd_demo_help(FILE *out)
{
    (void)fputs(
        "usage: zq demo [--listen ADDR [--open]] [--web DIR] [--room NAME] [--duration S]\n"
        "               [--verbose]\n"
        "\n"
        "Starts the signalling server with the dashboard (zq signal) and two simulated devices\n"
        "running the device code (zq device): sensor-1 publishing temperature, humidity and\n"
        "uptime every second, and actuator-1 obeying cmd.led, working the `jobs` queue and\n"
        "answering `status`. Open the printed URL: the dashboard joins the room as a peer.\n"
        "\n"
        "options:\n"
        "  --listen ADDR   where zq signal listens (default 127.0.0.1:8080)\n"
        "  --open          needed with an ADDR beyond loopback (0.0.0.0:8080, for a board on\n"
        "                  the LAN): every room is then open to anyone who reaches the port\n"
        "  --web DIR       the dashboard's files (default: the web/ folder of this source tree)\n"
        "  --room NAME     the room (default default-topic, ZeroQ's default)\n"
        "  --duration S    stop after S seconds (default: at Ctrl-C or SIGTERM)\n"
        "  --verbose       the devices say on stderr who they meet: each peer, when it is ready\n"
        "                  (zq, or ZeroQ when it said no hello) and when it is gone\n"
        "  --help          show this help\n"
        "\n"
        "exit status: 0 stopped as asked (every child ended); 1 a child failed or could not\n"
        "start (its own message says why); 2 usage error.\n",
        out);
}

static int parse_options(int argc, char **argv, demo_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->listen = "127.0.0.1:8080";
    o->web = ZQ_WEB_DIR;
    o->room = "default-topic";
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            zq_cmd_demo_help(stdout);
            return ZQ_CLI_EXIT_OK;
        }
        if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0) {
            o->verbose = true;
            continue;
        }
        if (strcmp(argv[i], "--open") == 0) {
            o->open = true;
            continue;
        }
        if (zq_cli_take_value(argc, argv, &i, "--listen", &v)) {
            o->listen = v;
        } else if (zq_cli_take_value(argc, argv, &i, "--web", &v)) {
            o->web = v;
            o->web_given = true;
        } else if (zq_cli_take_value(argc, argv, &i, "--room", &v)) {
            o->room = v;
        } else if (zq_cli_take_value(argc, argv, &i, "--duration", &v)) {
            if (v == NULL || zq_cli_parse_u32(v, 1, 86400 * 365, &o->duration_s) != ZQ_OK) {
                return zq_cli_usage_error(DEMO_CMD, "--duration wants seconds");
            }
            continue;
        } else {
            return zq_cli_usage_error(DEMO_CMD, "unknown option '%s'", argv[i]);
        }
        if (v == NULL) {
            return zq_cli_usage_error(DEMO_CMD, "%s needs a value", argv[i]);
        }
    }
    zq_addr_t where;
    if (!o->open && zq_cli_parse_addr(o->listen, 8080, &where) == ZQ_OK &&
        !zq_addr_is_loopback(&where)) {
        return zq_cli_usage_error(DEMO_CMD,
                                  "--listen %s reaches beyond this host and the demo's rooms "
                                  "have no tokens: say --open to let anyone who reaches it in",
                                  o->listen);
    }
    struct stat st;
    if (stat(o->web, &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (!o->web_given) { /* a build moved away from its sources: rooms, no dashboard */
            (void)fprintf(stderr, "zq demo: no dashboard at %s (use --web DIR)\n", o->web);
            o->web = NULL;
            return -1;
        }
        return zq_cli_usage_error(DEMO_CMD, "--web '%s' is not a directory", o->web);
    }
    return -1;
}

/* ---- Children ----------------------------------------------------------------------------- */

/* Forks and runs this program with @p argv; the child's stdout goes to @p out_fd if >= 0. */
static pid_t spawn(char *const argv[], int out_fd)
{
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_IGN); /* Ctrl-C is the demo's: it stops us in order */
        if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0) {
            _exit(127);
        }
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    return pid;
}

/* Starts zq signal and returns once it listens (its first stdout line), or -1. */
static pid_t start_signal(const demo_options_t *o)
{
    int fds[2];
    if (pipe(fds) != 0) {
        return -1;
    }
    char *argv[8] = {"zq", "signal", "--listen", (char *)o->listen};
    size_t argc = 4;
    if (o->open) {
        argv[argc++] = "--open";
    }
    if (o->web != NULL) {
        argv[argc++] = "--web";
        argv[argc++] = (char *)o->web;
    }
    argv[argc] = NULL;
    pid_t pid = spawn(argv, fds[1]);
    close(fds[1]);
    char line[256];
    size_t n = 0;
    struct pollfd p = {fds[0], POLLIN, 0};
    while (pid > 0 && n < sizeof line - 1 && memchr(line, '\n', n) == NULL &&
           poll(&p, 1, 5000) > 0) {
        ssize_t got = read(fds[0], line + n, sizeof line - 1 - n);
        if (got <= 0) {
            break;
        }
        n += (size_t)got;
    }
    close(fds[0]);
    line[n] = '\0';
    return pid > 0 && strstr(line, "listening on") != NULL ? pid : -1;
}

static pid_t start_device(const demo_options_t *o, const char *kind, const char *name,
                          const char *url)
{
    char *argv[] = {"zq", "device", (char *)kind, "--name", (char *)name, "--signal", (char *)url,
                    "--room", (char *)o->room, o->verbose ? "--verbose" : NULL, NULL};
    return spawn(argv, -1);
}

static void reap(demo_child_t *c, size_t n)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (c[i].pid == pid) {
                c[i].exited = true;
                c[i].status = status;
            }
        }
    }
}

static bool any_exited(const demo_child_t *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (c[i].pid > 0 && c[i].exited) {
            return true;
        }
    }
    return false;
}

/* SIGTERM to every child, SIGKILL to those still there after the grace period. */
static void stop_all(demo_child_t *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (c[i].pid > 0 && !c[i].exited) {
            kill(c[i].pid, SIGTERM);
        }
    }
    for (int waited = 0; waited < STOP_GRACE_MS; waited += 50) {
        reap(c, n);
        bool all = true;
        for (size_t i = 0; i < n; i++) {
            all = all && (c[i].pid <= 0 || c[i].exited);
        }
        if (all) {
            return;
        }
        (void)poll(NULL, 0, 50);
    }
    for (size_t i = 0; i < n; i++) {
        if (c[i].pid > 0 && !c[i].exited) {
            kill(c[i].pid, SIGKILL);
            (void)waitpid(c[i].pid, &c[i].status, 0);
            c[i].exited = true;
        }
    }
}

static int exit_code_of(const demo_child_t *c, size_t n, bool asked)
{
    for (size_t i = 0; i < n; i++) {
        bool clean = WIFEXITED(c[i].status) && WEXITSTATUS(c[i].status) == 0;
        if (c[i].pid <= 0 || (!clean && !asked)) {
            (void)fprintf(stderr, "zq demo: %s %s\n", c[i].what,
                          c[i].pid <= 0 ? "could not start" : "ended on its own");
            return ZQ_CLI_EXIT_FAIL;
        }
    }
    return ZQ_CLI_EXIT_OK;
}

/* ---- The run ------------------------------------------------------------------------------- */

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void wait_for_end(demo_child_t *c, size_t n, uint32_t duration_s)
{
    uint64_t end = duration_s > 0 ? now_ms() + (uint64_t)duration_s * 1000u : UINT64_MAX;
    while (!stop_requested && now_ms() < end) {
        reap(c, n);
        if (any_exited(c, n)) {
            return;
        }
        (void)poll(NULL, 0, 100);
    }
}

int zq_cmd_demo(int argc, char **argv)
{
    demo_options_t o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) {
        return rc;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    demo_child_t c[DEMO_CHILDREN] = {{"zq signal", -1, false, 0},
                                     {"zq device sensor", -1, false, 0},
                                     {"zq device actuator", -1, false, 0}};
    char url[128];
    (void)snprintf(url, sizeof url, "ws://%s/ws", o.listen);
    c[0].pid = start_signal(&o);
    if (c[0].pid > 0) {
        c[1].pid = start_device(&o, "sensor", "sensor-1", url);
        c[2].pid = start_device(&o, "actuator", "actuator-1", url);
        (void)printf("zq demo: dashboard at http://%s/ (room %s); Ctrl-C stops it\n", o.listen,
                     o.room);
        (void)fflush(stdout);
        wait_for_end(c, DEMO_CHILDREN, o.duration_s);
    }
    bool asked = stop_requested || !any_exited(c, DEMO_CHILDREN);
    stop_all(c, DEMO_CHILDREN);
    rc = exit_code_of(c, DEMO_CHILDREN, asked);
    (void)printf("zq demo: stopped\n");
    return rc;
}

/* Child processes for the broker commands (see brk_exec.h): memfd in, pipes out, pidfd for the
 * exit, all on the poll loop. */
#define _GNU_SOURCE /* memfd_create(); pidfd_open goes through syscall() */
#include "cli/brk_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STOP_WAIT_MS 1000

void zq_exec_init(zq_exec_t *e)
{
    memset(e, 0, sizeof *e);
    e->pidfd = -1;
    e->out.fd = -1;
    e->err.fd = -1;
}

bool zq_exec_running(const zq_exec_t *e)
{
    return e->pid > 0;
}

/* ---- Output -------------------------------------------------------------------------------- */

static void close_stream(zq_exec_t *e, zq_exec_stream_t *s)
{
    if (s->fd >= 0) {
        zq_loop_remove_fd(e->loop, s->fd);
        (void)close(s->fd);
        s->fd = -1;
    }
}

/* Reads what the pipe has now; past the buffer, reads into a scratch and drops it. */
static void read_stream(zq_exec_t *e, zq_exec_stream_t *s)
{
    char scratch[1024];
    while (s->fd >= 0) {
        bool full = s->len == sizeof s->text;
        ssize_t n = full ? read(s->fd, scratch, sizeof scratch)
                         : read(s->fd, s->text + s->len, sizeof s->text - s->len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && errno == EAGAIN) {
            return;
        }
        if (n <= 0) {
            close_stream(e, s); /* its end, or an error that ends it the same */
            return;
        }
        s->too_long = s->too_long || full;
        s->len += full ? 0 : (size_t)n;
    }
}

static void on_out(void *ctx, int fd, uint64_t now)
{
    (void)fd;
    (void)now;
    zq_exec_t *e = ctx;
    read_stream(e, &e->out);
}

static void on_err(void *ctx, int fd, uint64_t now)
{
    (void)fd;
    (void)now;
    zq_exec_t *e = ctx;
    read_stream(e, &e->err);
}

/* ---- Exit ---------------------------------------------------------------------------------- */

static int exit_status(int wstatus)
{
    if (WIFEXITED(wstatus)) {
        return WEXITSTATUS(wstatus);
    }
    return WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : 1;
}

static void forget_child(zq_exec_t *e)
{
    if (e->pidfd >= 0) {
        zq_loop_remove_fd(e->loop, e->pidfd);
        (void)close(e->pidfd);
        e->pidfd = -1;
    }
    close_stream(e, &e->out);
    close_stream(e, &e->err);
    e->pid = 0;
}

/* The child exited: what it wrote is all in the pipes already (a grandchild that still holds
 * them is not waited for). */
static void on_exit_fd(void *ctx, int fd, uint64_t now)
{
    (void)fd;
    zq_exec_t *e = ctx;
    int wstatus = 0;
    pid_t got = waitpid(e->pid, &wstatus, WNOHANG);
    if (got == 0 || (got < 0 && errno == EINTR)) {
        return; /* not yet */
    }
    read_stream(e, &e->out);
    read_stream(e, &e->err);
    zq_exec_result_t res = {
        .status = got < 0 ? 127 : exit_status(wstatus),
        .out = e->out.text,
        .out_len = e->out.len,
        .out_too_long = e->out.too_long,
        .err = e->err.text,
        .err_len = e->err.len,
    };
    forget_child(e);
    e->done(e->ctx, now, &res);
}

/* ---- Starting ------------------------------------------------------------------------------ */

/* The input as a file the child reads from its start: writing never waits for the child. */
static int input_file(const char *input, size_t len)
{
    int fd = memfd_create("zq-input", MFD_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    bool ok = write(fd, input, len) == (ssize_t)len && write(fd, "\n", 1) == 1 &&
              lseek(fd, 0, SEEK_SET) == 0;
    if (!ok) {
        (void)close(fd);
        return -1;
    }
    return fd;
}

/* @p from as @p to across exec (dup2 of an fd onto itself would keep its O_CLOEXEC). */
static bool move_fd(int from, int to)
{
    return from == to ? fcntl(to, F_SETFD, 0) == 0 : dup2(from, to) >= 0;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void exec_child(const char *cmd, int in, const int out[2], const int err[2], long max_fd)
{
    bool ok = move_fd(in, STDIN_FILENO);
    if (out[1] >= 0) {
        ok = ok && move_fd(out[1], STDOUT_FILENO) && move_fd(err[1], STDERR_FILENO);
    }
    for (long fd = STDERR_FILENO + 1; fd < max_fd; fd++) {
        (void)close((int)fd); /* our sockets are not the command's */
    }
    if (ok) {
        (void)execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    }
    _exit(127);
}

static void close_pair(int p[2])
{
    for (int i = 0; i < 2; i++) {
        if (p[i] >= 0) {
            (void)close(p[i]);
            p[i] = -1;
        }
    }
}

static bool open_pipes(int out[2], int err[2])
{
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        return false;
    }
    return fcntl(out[0], F_SETFL, O_NONBLOCK) == 0 && fcntl(err[0], F_SETFL, O_NONBLOCK) == 0;
}

/* Hands the parent's ends to the loop. */
static zq_err_t watch_child(zq_exec_t *e, int out[2], int err[2])
{
    e->out = (zq_exec_stream_t){.fd = -1};
    e->err = (zq_exec_stream_t){.fd = -1};
    if (zq_loop_add_fd(e->loop, e->pidfd, on_exit_fd, e) != ZQ_OK) {
        return ZQ_ERR_CAPACITY;
    }
    if (out[0] < 0) {
        return ZQ_OK;
    }
    if (zq_loop_add_fd(e->loop, out[0], on_out, e) != ZQ_OK) {
        return ZQ_ERR_CAPACITY;
    }
    e->out.fd = out[0]; /* ours now: forget_child() closes it */
    out[0] = -1;
    if (zq_loop_add_fd(e->loop, err[0], on_err, e) != ZQ_OK) {
        return ZQ_ERR_CAPACITY;
    }
    e->err.fd = err[0];
    err[0] = -1;
    return ZQ_OK;
}

static zq_err_t spawn(zq_exec_t *e, const char *cmd, int in, int out[2], int err[2],
                      const char **why)
{
    long max_fd = sysconf(_SC_OPEN_MAX);
    max_fd = max_fd < 0 || max_fd > 4096 ? 4096 : max_fd;
    (void)fflush(stdout); /* what we printed comes before what the child prints */
    pid_t pid = fork();
    if (pid < 0) {
        *why = "fork failed";
        return ZQ_ERR_IO;
    }
    if (pid == 0) {
        exec_child(cmd, in, out, err, max_fd);
    }
    e->pid = pid;
    if (out[1] >= 0) { /* the child's ends: its exit then ends the pipes */
        (void)close(out[1]);
        (void)close(err[1]);
        out[1] = err[1] = -1;
    }
    e->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    zq_err_t rc = e->pidfd >= 0 ? watch_child(e, out, err) : ZQ_ERR_IO;
    if (rc != ZQ_OK) {
        *why = e->pidfd < 0 ? "cannot watch the child (pidfd_open needs Linux 5.3)"
                            : "too many open descriptors in the loop";
        zq_exec_stop(e);
    }
    return rc;
}

zq_err_t zq_exec_start(zq_exec_t *e, zq_loop_t *loop, const char *cmd, const char *input,
                       size_t len, bool capture, zq_exec_done_fn done, void *ctx,
                       const char **why)
{
    if (zq_exec_running(e)) {
        *why = "a child is running";
        return ZQ_ERR_STATE;
    }
    e->loop = loop;
    e->done = done;
    e->ctx = ctx;
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    int in = input_file(input, len);
    zq_err_t rc = ZQ_ERR_IO;
    *why = "cannot make the child's input or output";
    if (in >= 0 && (!capture || open_pipes(out, err))) {
        rc = spawn(e, cmd, in, out, err, why);
    }
    if (in >= 0) {
        (void)close(in);
    }
    close_pair(out);
    close_pair(err);
    return rc;
}

void zq_exec_stop(zq_exec_t *e)
{
    if (!zq_exec_running(e)) {
        return;
    }
    (void)kill(e->pid, SIGTERM);
    int wstatus;
    for (int waited = 0; waitpid(e->pid, &wstatus, WNOHANG) == 0; waited += 10) {
        if (waited >= STOP_WAIT_MS) {
            (void)kill(e->pid, SIGKILL);
            (void)waitpid(e->pid, &wstatus, 0);
            break;
        }
        (void)nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    forget_child(e);
}

/* ---- Queue --------------------------------------------------------------------------------- */

bool zq_exec_queue_push(zq_exec_queue_t *q, const brk_event_t *ev)
{
    if (q->count == ZQ_EXEC_QUEUE || ev->payload.len > sizeof q->tasks[0].payload ||
        ev->id.len >= sizeof q->tasks[0].id) {
        return false;
    }
    zq_exec_task_t *t = &q->tasks[(q->head + q->count) % ZQ_EXEC_QUEUE];
    t->handle = ev->handle;
    t->attempt = ev->attempt;
    memcpy(t->id, ev->id.p, ev->id.len);
    t->id[ev->id.len] = '\0';
    memcpy(t->payload, ev->payload.p, ev->payload.len);
    t->len = ev->payload.len;
    q->count++;
    return true;
}

zq_exec_task_t *zq_exec_queue_head(zq_exec_queue_t *q)
{
    return q->count > 0 ? &q->tasks[q->head] : NULL;
}

void zq_exec_queue_pop(zq_exec_queue_t *q)
{
    if (q->count > 0) {
        q->head = (uint8_t)((q->head + 1) % ZQ_EXEC_QUEUE);
        q->count--;
    }
}

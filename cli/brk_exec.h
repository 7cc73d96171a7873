/**
 * @file brk_exec.h
 * @brief One child process at a time for `zq work --exec` and `zq rep --exec`: `/bin/sh -c CMD`
 *        with a payload on its stdin, watched by the poll loop so the broker keeps running
 *        while it works.
 *
 * The commands hand it the payload as text, or as its JSON text with --json
 * (zq_brk_payload_text()). It goes in through a memory file (memfd), so giving it never
 * blocks and a child that does not read its input cannot hurt us; the child's exit is a
 * readable pidfd (Linux 5.3+) among the loop's fds, so nothing polls and no signal handler is
 * involved. With @c capture, its stdout and stderr come back through pipes (at most
 * ZQ_EXEC_OUTPUT_MAX bytes each; more is read and dropped, so the child never blocks on a full
 * pipe); without, it shares ours. The child gets none of our sockets.
 *
 * @code
 * static zq_exec_t ex;
 * zq_exec_init(&ex);
 * setenv("ZQ_JOB_ID", id, 1);              // the child inherits our environment
 * if (zq_exec_start(&ex, &loop, "wc -c", "text", 4, true, finished, ctx, &why) != ZQ_OK)
 *     complain(why);
 * // later, from the loop: finished(ctx, now, &result) with its exit status and output
 * @endcode
 */
#ifndef ZQ_PORT_POSIX_BRK_EXEC_H
#define ZQ_PORT_POSIX_BRK_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "broker/brk.h"
#include "port/posix/loop.h"
#include "zq/config.h"
#include "zq/err.h"

typedef struct {
    int status;          /**< exit status; 128 + N when signal N ended it (as a shell says) */
    const char *out;     /**< stdout (capture only) */
    size_t out_len;
    bool out_too_long;   /**< it wrote more than ZQ_EXEC_OUTPUT_MAX: the rest was dropped */
    const char *err;     /**< stderr (capture only) */
    size_t err_len;
} zq_exec_result_t;

/** The child ended. @p res lives during the call; a new child may be started from here. */
typedef void (*zq_exec_done_fn)(void *ctx, uint64_t now, const zq_exec_result_t *res);

typedef struct {
    char text[ZQ_EXEC_OUTPUT_MAX];
    size_t len;
    bool too_long;
    int fd;              /* our end of its pipe; -1 when not captured or at its end */
} zq_exec_stream_t;

/** One child at a time; caller-allocated, zeroed or zq_exec_init()ed. */
typedef struct {
    zq_loop_t *loop;
    pid_t pid;           /* 0: no child */
    int pidfd;
    zq_exec_stream_t out;
    zq_exec_stream_t err;
    zq_exec_done_fn done;
    void *ctx;
} zq_exec_t;

void zq_exec_init(zq_exec_t *e);

/**
 * Runs `/bin/sh -c @p cmd` with @p input (and a newline after it) as its stdin.
 * @param why set on failure to what failed (static English).
 * @return ZQ_OK; ZQ_ERR_STATE (a child is running); ZQ_ERR_IO (no memfd, pipe, fork or pidfd);
 *         ZQ_ERR_CAPACITY (the loop watches too many fds already).
 */
zq_err_t zq_exec_start(zq_exec_t *e, zq_loop_t *loop, const char *cmd, const char *input,
                       size_t len, bool capture, zq_exec_done_fn done, void *ctx,
                       const char **why);

bool zq_exec_running(const zq_exec_t *e);

/** Ends a running child (SIGTERM, then SIGKILL after a second) without calling done. */
void zq_exec_stop(zq_exec_t *e);

/* ---- Jobs and requests waiting for their turn ------------------------------------------------ */

/** Held at once: a consumer's credit and a responder's requests in flight are at most this. */
#define ZQ_EXEC_QUEUE \
    (ZQ_BRK_MAX_HELD > ZQ_BRK_MAX_REQUESTS ? ZQ_BRK_MAX_HELD : ZQ_BRK_MAX_REQUESTS)

/** A job or request, copied out of its event (whose strings are only borrowed). */
typedef struct {
    uint32_t handle;     /**< for brk_job_done() or brk_reply() */
    uint32_t attempt;    /**< jobs: earlier attempts */
    char id[BRK_ID_MAX];
    char payload[ZQ_BRK_FRAME_MAX];
    size_t len;
} zq_exec_task_t;

/** First in, first out. */
typedef struct {
    zq_exec_task_t tasks[ZQ_EXEC_QUEUE];
    uint8_t head;
    uint8_t count;
} zq_exec_queue_t;

/** Copies @p ev's handle, attempt, id and payload in; false when the queue is full. */
bool zq_exec_queue_push(zq_exec_queue_t *q, const brk_event_t *ev);
/** The oldest task, or NULL. */
zq_exec_task_t *zq_exec_queue_head(zq_exec_queue_t *q);
void zq_exec_queue_pop(zq_exec_queue_t *q);

#endif /* ZQ_PORT_POSIX_BRK_EXEC_H */

/* `zq put`, `zq work` and `zq dlq`: work queues (PROTOCOL.md §6) from the command line. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/brk_exec.h"
#include "cli/cli.h"
#include "cli/cmd_brk.h"

/* How long `zq dlq` waits for a zq peer to ask, and then for the answers. */
#define DLQ_PEER_WAIT_MS 10000
#define DLQ_ANSWER_WAIT_MS 2000

/* ---- zq put -------------------------------------------------------------------------------- */

typedef struct {
    const zq_brk_options_t *o;
    zq_brk_runner_t *r;
    bool input_done;     /* every message was enqueued */
    bool pending;        /* the current message waits for room in the job store */
    uint32_t enqueued;
    char value[ZQ_BRK_FRAME_MAX];
    size_t len;
} put_t;

static zq_err_t enqueue_current(put_t *p, uint64_t now)
{
    char id[BRK_ID_MAX];
    zq_err_t err = brk_enqueue(&p->r->brk, now, p->o->name, p->value, p->len, id);
    if (err == ZQ_OK) {
        p->pending = false;
        p->enqueued++;
        if (p->r->opt.verbose) {
            (void)fprintf(stderr, "zq put: job %s enqueued on '%s'\n", id, p->o->name);
        }
    } else if (err != ZQ_ERR_WOULD_BLOCK) { /* WOULD_BLOCK: BRK_EVENT_WRITABLE follows */
        zq_brk_runner_fail(p->r, "cannot enqueue on '%s': %s", p->o->name, zq_strerror(err));
    }
    return err;
}

/* A message: MSG, or a line of stdin (offered again after a WOULD_BLOCK). */
static zq_err_t put_message(void *ctx, uint64_t now, const char *text, size_t len)
{
    put_t *p = ctx;
    if (!p->pending) {
        p->len = zq_brk_json_value(text, len, p->value, sizeof p->value);
        if (p->len == 0) {
            zq_brk_runner_fail(p->r, "a message of %zu bytes is too long", len);
            return ZQ_ERR_TOO_LONG;
        }
        p->pending = true;
    }
    return enqueue_current(p, now);
}

static void put_input_end(void *ctx, uint64_t now)
{
    (void)now;
    put_t *p = ctx;
    p->input_done = true;
}

/* Our jobs still somewhere in the mesh (waiting or leased), and those dead-lettered. */
static void count_jobs(const brk_t *b, unsigned *live, unsigned *dead)
{
    *live = *dead = 0;
#if ZQ_BRK_WORK_QUEUES /* else no job was ever taken (brk_enqueue() refuses) */
    for (int i = 0; i < ZQ_BRK_MAX_JOBS; i++) {
        uint8_t s = b->jobs.jobs[i].state;
        *live += s == BRK_JOB_WAITING || s == BRK_JOB_LEASED;
        *dead += s == BRK_JOB_DEAD;
    }
#else
    (void)b;
#endif
}

/* Done when no job of ours is left to finish: each done (0), dead-lettered (1), or with
 * --keep-dead, once the dead ones were requeued and done (0) or purged (1). */
static void put_idle(void *ctx, zq_brk_runner_t *r, uint64_t now)
{
    (void)now;
    put_t *p = ctx;
    unsigned live;
    unsigned dead;
    count_jobs(&r->brk, &live, &dead);
    if (!p->input_done || live > 0 || (dead > 0 && p->o->keep_dead)) {
        return;
    }
    uint32_t done = brk_stats(&r->brk)->jobs_done;
    if (dead > 0) {
        zq_brk_runner_fail(r, "%u of %" PRIu32 " jobs dead-lettered", dead, p->enqueued);
    } else if (done < p->enqueued) {
        zq_brk_runner_fail(r, "%" PRIu32 " of %" PRIu32 " jobs purged from the dead-letter queue",
                           p->enqueued - done, p->enqueued);
    } else {
        if (r->opt.verbose) {
            (void)fprintf(stderr, "zq put: %" PRIu32 " job%s done\n", done, done == 1 ? "" : "s");
        }
        zq_brk_runner_finish(r, ZQ_CLI_EXIT_OK);
    }
}

static void put_event(void *ctx, zq_brk_runner_t *r, uint64_t now, const brk_event_t *ev)
{
    put_t *p = ctx;
    if (ev->type == BRK_EVENT_DEAD_LETTER) {
        (void)fprintf(stderr, "zq put: job %.*s of '%.*s' dead-lettered after %" PRIu32
                              " attempts%s\n",
                      (int)ev->id.len, ev->id.p, (int)ev->topic.len, ev->topic.p, ev->attempt,
                      p->o->keep_dead ? "; kept for 'zq dlq'" : "");
    } else if (ev->type == BRK_EVENT_WRITABLE && p->pending) {
        if (zq_brk_from_stdin(p->o)) {
            zq_brk_stdin_resume(r, now);
        } else if (enqueue_current(p, now) == ZQ_OK) {
            p->input_done = true;
        }
    }
}

int zq_brk_put(const zq_brk_options_t *o, zq_brk_runner_t *r)
{
    static put_t p;
    static const zq_brk_runner_callbacks_t cb = {
        .on_event = put_event, .on_idle = put_idle, .one_shot = true};
    memset(&p, 0, sizeof p);
    p.o = o;
    p.r = r;
    int rc = zq_brk_runner_start(r, o->cmd, &o->net, &cb, &p);
    if (rc >= 0) {
        return rc;
    }
    /* The job store holds jobs until a consumer comes: no need to wait for one. */
    if (zq_brk_from_stdin(o)) {
        if (zq_brk_stdin_start(r, put_message, put_input_end, &p) != ZQ_OK) {
            zq_brk_runner_fail(r, "cannot read stdin");
        }
    } else if (put_message(&p, zq_brk_runner_now(r), o->msg, strlen(o->msg)) == ZQ_OK) {
        p.input_done = true;
    }
    return zq_brk_runner_run(r);
}

/* ---- zq work ------------------------------------------------------------------------------- */

typedef struct {
    const zq_brk_options_t *o;
    zq_brk_runner_t *r;
    zq_exec_queue_t queue;   /* jobs held, oldest first */
    zq_exec_t exec;
    bool finished;           /* the oldest job is over; its ack or nack waits for room */
    bool ok;
    uint64_t processed;
} work_t;

static void work_pump(work_t *w, uint64_t now);

static void job_exited(void *ctx, uint64_t now, const zq_exec_result_t *res)
{
    work_t *w = ctx;
    const zq_exec_task_t *t = zq_exec_queue_head(&w->queue);
    w->finished = true;
    w->ok = res->status == 0;
    if (!w->ok || w->r->opt.verbose) {
        (void)fprintf(stderr, "zq work: job %s exited %d: %s\n", t->id, res->status,
                      w->ok ? "acked" : "nacked");
    }
    work_pump(w, now);
}

/* Runs CMD for @p t; false if it could not start (the job is then nacked). */
static bool run_job(work_t *w, const zq_exec_task_t *t)
{
    char attempt[16];
    (void)snprintf(attempt, sizeof attempt, "%" PRIu32, t->attempt);
    const char *why = NULL;
    brk_str_t input; /* the payload as text, or --json's JSON text */
    zq_err_t err = zq_brk_payload_text((brk_str_t){t->payload, t->len}, w->o->form, &input);
    if (err != ZQ_OK) {
        why = zq_strerror(err);
    } else if (setenv("ZQ_JOB_ID", t->id, 1) != 0 ||
               setenv("ZQ_JOB_ATTEMPT", attempt, 1) != 0) {
        why = "no room for its environment";
    } else if (zq_exec_start(&w->exec, &w->r->loop, w->o->exec, input.p, input.len, false,
                             job_exited, w, &why) == ZQ_OK) {
        return true;
    }
    (void)fprintf(stderr, "zq work: cannot run '%s' for job %s: %s\n", w->o->exec, t->id, why);
    return false;
}

/* Without --exec: the job's id and payload on stdout; false (nacked) if they could not be. */
static bool print_job(work_t *w, const zq_exec_task_t *t)
{
    brk_str_t id = {t->id, strlen(t->id)};
    zq_err_t err = zq_brk_print_payload(stdout, id, (brk_str_t){t->payload, t->len}, w->o->form);
    if (err != ZQ_OK) {
        (void)fprintf(stderr, "zq work: cannot print job %s to stdout: %s\n", t->id,
                      zq_strerror(err));
    }
    return err == ZQ_OK;
}

/* Acks or nacks the oldest job; false while its producer's channel has no room. */
static bool report(work_t *w, uint64_t now)
{
    const zq_exec_task_t *t = zq_exec_queue_head(&w->queue);
    zq_err_t err = brk_job_done(&w->r->brk, now, t->handle, w->ok);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        return false; /* on_idle tries again after the next input */
    }
    if (err == ZQ_ERR_NOT_FOUND) {
        (void)fprintf(stderr, "zq work: job %s was taken back (its producer left)\n", t->id);
    }
    zq_exec_queue_pop(&w->queue);
    w->finished = false;
    if (++w->processed == w->o->count) {
        (void)brk_consume(&w->r->brk, now, w->o->name, 0); /* no more jobs for us */
        zq_brk_runner_finish(w->r, ZQ_CLI_EXIT_OK);
    }
    return true;
}

/* Jobs one at a time: the oldest runs (or is printed), is reported, then the next. */
static void work_pump(work_t *w, uint64_t now)
{
    while (!w->r->finishing && !zq_exec_running(&w->exec)) {
        const zq_exec_task_t *t = zq_exec_queue_head(&w->queue);
        if (t == NULL) {
            return;
        }
        if (w->finished) {
            if (!report(w, now)) {
                return;
            }
        } else if (w->o->exec == NULL) {
            w->finished = true;
            w->ok = print_job(w, t);
        } else if (!run_job(w, t)) {
            w->finished = true;
            w->ok = false;
        }
    }
}

static void work_event(void *ctx, zq_brk_runner_t *r, uint64_t now, const brk_event_t *ev)
{
    work_t *w = ctx;
    if (ev->type != BRK_EVENT_JOB) {
        return;
    }
    /* A payload longer than a task holds, or a job beyond the places the broker holds for us
     * (only a ZeroQ job: broadcast without credit, handle 0; its nack is counted there). */
    if (!zq_exec_queue_push(&w->queue, ev)) {
        (void)brk_job_done(&r->brk, now, ev->handle, false);
        return;
    }
    work_pump(w, now);
}

static void work_idle(void *ctx, zq_brk_runner_t *r, uint64_t now)
{
    (void)r;
    work_pump(ctx, now);
}

int zq_brk_work(const zq_brk_options_t *o, zq_brk_runner_t *r)
{
    static work_t w;
    static const zq_brk_runner_callbacks_t cb = {.on_event = work_event, .on_idle = work_idle};
    memset(&w, 0, sizeof w);
    w.o = o;
    w.r = r;
    zq_exec_init(&w.exec);
    int rc = zq_brk_runner_start(r, o->cmd, &o->net, &cb, &w);
    if (rc >= 0) {
        return rc;
    }
    zq_err_t err = brk_consume(&r->brk, zq_brk_runner_now(r), o->name, o->credit);
    if (err != ZQ_OK) {
        zq_brk_runner_fail(r, "cannot consume '%s': %s", o->name, zq_strerror(err));
    }
    rc = zq_brk_runner_run(r);
    zq_exec_stop(&w.exec); /* interrupted mid-job: the producer hands it to another */
    return rc;
}

/* ---- zq dlq -------------------------------------------------------------------------------- */

typedef struct {
    const zq_brk_options_t *o;
    uint64_t peers_by;   /* no zq peer by then: nobody to ask */
    uint64_t answers_by; /* 0 until asked */
    uint32_t asked;      /* peer slots (bits) asked, and those that answered */
    uint32_t answered;
} dlq_t;

static void ask(dlq_t *d, zq_brk_runner_t *r, uint64_t now)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        d->asked |= zq_brk_runner_peer_ready(r, i) && r->brk.peers[i].zq ? 1u << i : 0u;
    }
    d->answers_by = now + DLQ_ANSWER_WAIT_MS;
    /* The list goes first on each channel, so it shows what the requeue or purge acts on. */
    zq_err_t err = brk_dlq_remote(&r->brk, now, d->o->name, BRK_DLQ_LIST);
    if (err == ZQ_OK && d->o->dlq_op != BRK_DLQ_LIST) {
        err = brk_dlq_remote(&r->brk, now, d->o->name, d->o->dlq_op);
    }
    if (err != ZQ_OK) {
        zq_brk_runner_fail(r, "cannot ask the peers: %s", zq_strerror(err));
    }
}

static void dlq_idle(void *ctx, zq_brk_runner_t *r, uint64_t now)
{
    dlq_t *d = ctx;
    if (d->answers_by == 0) {
        if (zq_brk_runner_room_settled(r) && zq_brk_runner_ready_peers(r, true) > 0) {
            ask(d, r, now);
        } else if (now >= d->peers_by) {
            zq_brk_runner_fail(r, "no zq peer in room '%s' to ask", r->opt.room);
        }
    } else if (now >= d->answers_by) {
        unsigned silent = 0;
        for (uint32_t bits = d->asked & ~d->answered; bits != 0; bits &= bits - 1) {
            silent++;
        }
        if (silent > 0) {
            (void)fprintf(stderr, "zq dlq: %u peer%s did not answer in %d ms\n", silent,
                          silent == 1 ? "" : "s", DLQ_ANSWER_WAIT_MS);
        }
        zq_brk_runner_finish(r, ZQ_CLI_EXIT_OK);
    }
}

static uint64_t dlq_next_timeout(void *ctx)
{
    const dlq_t *d = ctx;
    return d->answers_by != 0 ? d->answers_by : d->peers_by;
}

/* One peer's answer: its dead jobs as {"id","payload","retryCount"} items, each printed as
 * "id attempts payload". */
static void print_dead_jobs(const dlq_t *d, zq_brk_runner_t *r, brk_str_t jobs)
{
    json_iter_t it;
    json_value_t item;
    json_iter_init(&it, (json_value_t){jobs.p, jobs.len});
    while (json_iter_next(&it, NULL, &item)) {
        brk_dlq_job_t j;
        char id[BRK_ID_MAX];
        char head[BRK_ID_MAX + 16];
        if (brk_dlq_job_read(item, &j) != ZQ_OK ||
            json_get_string(j.id, id, sizeof id, NULL) != ZQ_OK) {
            continue;
        }
        json_value_t payload = j.payload.len > 0 ? j.payload : (json_value_t){"null", 4};
        int n = snprintf(head, sizeof head, "%s %" PRIu32, id, j.retry_count);
        zq_err_t err = zq_brk_print_payload(stdout, (brk_str_t){head, (size_t)n},
                                            (brk_str_t){payload.p, payload.len}, d->o->form);
        if (err != ZQ_OK) {
            zq_brk_runner_fail(r, "cannot print job %s to stdout: %s", id, zq_strerror(err));
            return;
        }
    }
}

static void dlq_event(void *ctx, zq_brk_runner_t *r, uint64_t now, const brk_event_t *ev)
{
    (void)now;
    dlq_t *d = ctx;
    uint32_t bit = 1u << ev->peer;
    bool answer = ev->type == BRK_EVENT_MESSAGE && ev->id.len == 4 &&
                  memcmp(ev->id.p, "$dlq", 4) == 0 && ev->topic.len == strlen(d->o->name) &&
                  memcmp(ev->topic.p, d->o->name, ev->topic.len) == 0;
    if (!answer || !(d->asked & bit) || (d->answered & bit)) {
        return;
    }
    d->answered |= bit;
    print_dead_jobs(d, r, ev->payload);
    if (d->answered == d->asked) {
        zq_brk_runner_finish(r, ZQ_CLI_EXIT_OK); /* once the requeue or purge went out */
    }
}

int zq_brk_dlq(const zq_brk_options_t *o, zq_brk_runner_t *r)
{
    static dlq_t d;
    static const zq_brk_runner_callbacks_t cb = {.on_event = dlq_event,
                                                 .on_idle = dlq_idle,
                                                 .next_timeout = dlq_next_timeout,
                                                 .one_shot = true};
    memset(&d, 0, sizeof d);
    d.o = o;
    int rc = zq_brk_runner_start(r, o->cmd, &o->net, &cb, &d);
    if (rc >= 0) {
        return rc;
    }
    d.peers_by = zq_brk_runner_now(r) + DLQ_PEER_WAIT_MS;
    return zq_brk_runner_run(r);
}

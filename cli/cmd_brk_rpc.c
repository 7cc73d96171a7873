/* `zq req` and `zq rep`: services (PROTOCOL.md §6, §9) from the command line. */
#include <inttypes.h>
#include <string.h>

#include "cli/brk_exec.h"
#include "cli/cli.h"
#include "cli/cmd_brk.h"

/* ---- zq req -------------------------------------------------------------------------------- */

typedef struct {
    const zq_brk_options_t *o;
    zq_brk_runner_t *r;
    uint64_t wait_ms;    /* for the room to settle: what the request itself may take */
    uint64_t peers_by;
    bool started;
    bool in_flight;      /* a request waits for its reply */
    bool input_done;
    char value[ZQ_BRK_FRAME_MAX];
} req_t;

/* A request: MSG, or a line of stdin, each once the one before was answered. */
static zq_err_t req_message(void *ctx, uint64_t now, const char *text, size_t len)
{
    req_t *q = ctx;
    if (q->in_flight) {
        return ZQ_ERR_WOULD_BLOCK; /* kept, offered again after the reply */
    }
    size_t n = zq_brk_json_value(text, len, q->value, sizeof q->value);
    uint32_t handle;
    zq_err_t err = n == 0 ? ZQ_ERR_TOO_LONG
                          : brk_request(&q->r->brk, now, q->o->name, q->value, n,
                                        q->o->timeout_ms, q->o->retries, &handle);
    if (err != ZQ_OK) {
        zq_brk_runner_fail(q->r, "cannot send the request: %s", zq_strerror(err));
        return err;
    }
    q->in_flight = true;
    return ZQ_OK;
}

static void req_input_end(void *ctx, uint64_t now)
{
    (void)now;
    req_t *q = ctx;
    q->input_done = true;
}

static void req_start(req_t *q, uint64_t now)
{
    q->started = true;
    if (zq_brk_from_stdin(q->o)) {
        if (zq_brk_stdin_start(q->r, req_message, req_input_end, q) != ZQ_OK) {
            zq_brk_runner_fail(q->r, "cannot read stdin");
        }
    } else if (req_message(q, now, q->o->msg, strlen(q->o->msg)) == ZQ_OK) {
        q->input_done = true;
    }
}

/* Asks once the peers in the room are ready (a responder's sub names its services), so the
 * request goes to one that serves it rather than waiting out a timeout for its sub. */
static void req_idle(void *ctx, zq_brk_runner_t *r, uint64_t now)
{
    req_t *q = ctx;
    if (!q->started && zq_brk_runner_room_settled(r)) {
        req_start(q, now);
    } else if (!q->started && now >= q->peers_by) {
        zq_brk_runner_fail(r, "no peer in room '%s' within %" PRIu64 " ms", r->opt.room,
                           q->wait_ms);
    }
    if (q->input_done && !q->in_flight) {
        zq_brk_runner_finish(r, ZQ_CLI_EXIT_OK);
    }
}

static uint64_t req_next_timeout(void *ctx)
{
    const req_t *q = ctx;
    return q->started ? ZQ_TIME_NEVER : q->peers_by;
}

static void req_event(void *ctx, zq_brk_runner_t *r, uint64_t now, const brk_event_t *ev)
{
    req_t *q = ctx;
    if (ev->type == BRK_EVENT_REPLY && ev->ok) {
        zq_err_t err = zq_brk_print_payload(stdout, (brk_str_t){NULL, 0}, ev->payload, q->o->form);
        if (err != ZQ_OK) {
            zq_brk_runner_fail(r, "cannot print the reply to stdout: %s", zq_strerror(err));
        }
        q->in_flight = false;
        zq_brk_stdin_resume(r, now); /* the next line, if they come from stdin */
    } else if (ev->type == BRK_EVENT_REPLY) {
        /* The reason is for the person reading stderr: text, with or without --json. */
        (void)fprintf(stderr, "zq req: %s refused: ", q->o->name);
        if (zq_brk_print_payload(stderr, (brk_str_t){NULL, 0}, ev->payload, ZQ_BRK_FORM_TEXT) !=
            ZQ_OK) {
            (void)fprintf(stderr, "%.*s\n", (int)ev->payload.len, ev->payload.p);
        }
        zq_brk_runner_finish(r, ZQ_CLI_EXIT_FAIL);
    } else if (ev->type == BRK_EVENT_REQUEST_FAILED) {
        uint32_t tries = q->o->retries + 1u;
        zq_brk_runner_fail(r, "no reply from %s in %" PRIu32 " ms after %" PRIu32 " tr%s",
                           q->o->name, q->o->timeout_ms, tries, tries == 1 ? "y" : "ies");
    }
}

int zq_brk_req(const zq_brk_options_t *o, zq_brk_runner_t *r)
{
    static req_t q;
    static const zq_brk_runner_callbacks_t cb = {.on_event = req_event,
                                                 .on_idle = req_idle,
                                                 .next_timeout = req_next_timeout,
                                                 .one_shot = true};
    memset(&q, 0, sizeof q);
    q.o = o;
    q.r = r;
    int rc = zq_brk_runner_start(r, o->cmd, &o->net, &cb, &q);
    if (rc >= 0) {
        return rc;
    }
    q.wait_ms = (uint64_t)o->timeout_ms * (o->retries + 1u);
    q.peers_by = zq_brk_runner_now(r) + q.wait_ms;
    return zq_brk_runner_run(r);
}

/* ---- zq rep -------------------------------------------------------------------------------- */

#define EMPTY_REPLY "null"

typedef struct {
    const zq_brk_options_t *o;
    zq_brk_runner_t *r;
    zq_exec_queue_t queue;   /* requests held, oldest first */
    zq_exec_t exec;
    bool finished;           /* the oldest request's reply is ready, waiting for room */
    bool ok;
    char reply[ZQ_BRK_FRAME_MAX];
    size_t len;
} rep_t;

static void rep_pump(rep_t *s, uint64_t now);

static bool blank(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n') {
            return false;
        }
    }
    return true;
}

/* CMD's output as the reply: its stdout as a JSON value (none: null), or its stderr (or exit
 * status) as a refusal's reason. */
static void make_reply(rep_t *s, const zq_exec_result_t *res)
{
    char why[64];
    const char *text = res->err;
    size_t len = res->err_len;
    s->ok = res->status == 0 && !res->out_too_long;
    if (s->ok) {
        bool none = blank(res->out, res->out_len);
        s->len = none ? zq_brk_json_value(EMPTY_REPLY, strlen(EMPTY_REPLY), s->reply,
                                          sizeof s->reply)
                      : zq_brk_json_value(res->out, res->out_len, s->reply, sizeof s->reply);
        return;
    }
    if (res->status == 0) {
        len = (size_t)snprintf(why, sizeof why, "output longer than %d bytes", ZQ_EXEC_OUTPUT_MAX);
        text = why;
    } else if (len == 0) {
        len = (size_t)snprintf(why, sizeof why, "exit status %d", res->status);
        text = why;
    }
    s->len = zq_brk_json_string(text, len, s->reply, sizeof s->reply);
}

static void request_done(void *ctx, uint64_t now, const zq_exec_result_t *res)
{
    rep_t *s = ctx;
    make_reply(s, res);
    s->finished = true;
    if (!s->ok || s->r->opt.verbose) {
        (void)fprintf(stderr, "zq rep: request %s: exit %d%s\n",
                      zq_exec_queue_head(&s->queue)->id, res->status, s->ok ? "" : ": refused");
    }
    rep_pump(s, now);
}

/* Sends the oldest request's reply; false while its channel has no room. */
static bool send_reply(rep_t *s, uint64_t now)
{
    const zq_exec_task_t *t = zq_exec_queue_head(&s->queue);
    zq_err_t err = s->len == 0 ? ZQ_ERR_TOO_LONG
                               : brk_reply(&s->r->brk, now, t->handle, s->ok, s->reply, s->len);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        return false; /* on_idle tries again after the next input */
    }
    if (err == ZQ_ERR_TOO_LONG && s->ok) { /* the requester hears why rather than waiting */
        static const char why[] = "the reply does not fit one frame";
        s->ok = false;
        s->len = zq_brk_json_string(why, sizeof why - 1, s->reply, sizeof s->reply);
        return send_reply(s, now);
    }
    if (err != ZQ_OK) {
        (void)fprintf(stderr, "zq rep: cannot answer request %s: %s\n", t->id,
                      zq_strerror(err));
    }
    zq_exec_queue_pop(&s->queue);
    s->finished = false;
    return true;
}

/* CMD for @p t, with the request's payload as text (or --json's JSON text) on its stdin. */
static zq_err_t start_request(rep_t *s, const zq_exec_task_t *t, const char **why)
{
    brk_str_t input;
    zq_err_t err = zq_brk_payload_text((brk_str_t){t->payload, t->len}, s->o->form, &input);
    if (err != ZQ_OK) {
        *why = zq_strerror(err);
        return err;
    }
    return zq_exec_start(&s->exec, &s->r->loop, s->o->exec, input.p, input.len, true,
                         request_done, s, why);
}

static void rep_pump(rep_t *s, uint64_t now)
{
    while (!zq_exec_running(&s->exec)) {
        if (s->finished) {
            if (!send_reply(s, now)) {
                return;
            }
            continue;
        }
        const zq_exec_task_t *t = zq_exec_queue_head(&s->queue);
        const char *why = NULL;
        if (t == NULL || start_request(s, t, &why) == ZQ_OK) {
            return; /* nothing to do, or wait for the child */
        }
        (void)fprintf(stderr, "zq rep: cannot run '%s': %s\n", s->o->exec, why);
        zq_exec_result_t failed = {.status = 127, .err = why, .err_len = strlen(why)};
        make_reply(s, &failed);
        s->finished = true;
    }
}

static void rep_event(void *ctx, zq_brk_runner_t *r, uint64_t now, const brk_event_t *ev)
{
    rep_t *s = ctx;
    if (ev->type != BRK_EVENT_REQUEST) {
        return;
    }
    if (!zq_exec_queue_push(&s->queue, ev)) { /* more than the broker holds: cannot happen */
        (void)brk_reply(&r->brk, now, ev->handle, false, "\"busy\"", 6);
        return;
    }
    rep_pump(s, now);
}

static void rep_idle(void *ctx, zq_brk_runner_t *r, uint64_t now)
{
    (void)r;
    rep_pump(ctx, now);
}

int zq_brk_rep(const zq_brk_options_t *o, zq_brk_runner_t *r)
{
    static rep_t s;
    static const zq_brk_runner_callbacks_t cb = {.on_event = rep_event, .on_idle = rep_idle};
    memset(&s, 0, sizeof s);
    s.o = o;
    s.r = r;
    zq_exec_init(&s.exec);
    int rc = zq_brk_runner_start(r, o->cmd, &o->net, &cb, &s);
    if (rc >= 0) {
        return rc;
    }
    zq_err_t err = brk_serve(&r->brk, zq_brk_runner_now(r), o->name);
    if (err != ZQ_OK) {
        zq_brk_runner_fail(r, "cannot serve '%s': %s", o->name, zq_strerror(err));
    }
    rc = zq_brk_runner_run(r);
    zq_exec_stop(&s.exec);
    return rc;
}

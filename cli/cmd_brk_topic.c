/* `zq pub` and `zq sub`: topics (PROTOCOL.md §3-5) from the command line. */
#include <inttypes.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_brk.h"

/* ---- zq pub -------------------------------------------------------------------------------- */

typedef struct {
    const zq_brk_options_t *o;
    zq_brk_runner_t *r;
    bool started;        /* enough peers were ready: publishing began */
    bool input_done;     /* every message went to the broker */
    bool blocked;        /* a publish said WOULD_BLOCK: BRK_EVENT_WRITABLE follows */
    uint32_t left;       /* times the current message is still to be published */
    uint64_t published;
    char value[ZQ_BRK_FRAME_MAX]; /* the current message, as a JSON value */
    size_t len;
} pub_t;

/* Publishes the current message its remaining times; WOULD_BLOCK keeps the rest for later. */
static zq_err_t publish_current(pub_t *p, uint64_t now)
{
    brk_qos_t qos = p->o->qos == 1 ? BRK_QOS_1 : BRK_QOS_0;
    while (p->left > 0) {
        zq_err_t err = brk_publish(&p->r->brk, now, p->o->name, p->value, p->len, qos);
        p->blocked = err == ZQ_ERR_WOULD_BLOCK;
        if (err != ZQ_OK) {
            if (!p->blocked) {
                zq_brk_runner_fail(p->r, "cannot publish on '%s': %s", p->o->name,
                                   zq_strerror(err));
            }
            return err;
        }
        p->left--;
        p->published++;
    }
    return ZQ_OK;
}

/* A message: MSG, or a line of stdin (offered again after a WOULD_BLOCK, half published). */
static zq_err_t pub_message(void *ctx, uint64_t now, const char *text, size_t len)
{
    pub_t *p = ctx;
    if (p->left == 0) {
        p->len = zq_brk_json_value(text, len, p->value, sizeof p->value);
        if (p->len == 0) {
            zq_brk_runner_fail(p->r, "a message of %zu bytes is too long", len);
            return ZQ_ERR_TOO_LONG;
        }
        p->left = p->o->count;
    }
    return publish_current(p, now);
}

static void pub_input_end(void *ctx, uint64_t now)
{
    (void)now;
    pub_t *p = ctx;
    p->input_done = true;
}

static void pub_start(pub_t *p, uint64_t now)
{
    p->started = true;
    if (zq_brk_from_stdin(p->o)) {
        if (zq_brk_stdin_start(p->r, pub_message, pub_input_end, p) != ZQ_OK) {
            zq_brk_runner_fail(p->r, "cannot read stdin");
        }
    } else if (pub_message(p, now, p->o->msg, strlen(p->o->msg)) == ZQ_OK) {
        p->input_done = true;
    }
}

/* QoS 1 messages some receiver has not acknowledged yet (PROTOCOL.md §5). */
static bool acks_owed(const brk_t *b)
{
    uint32_t cursor = 0;
    brk_ring_entry_t e;
    while (brk_ring_next(&b->pub.ring, &cursor, &e)) {
        if (e.pending != 0) {
            return true;
        }
    }
    return false;
}

static void pub_idle(void *ctx, zq_brk_runner_t *r, uint64_t now)
{
    pub_t *p = ctx;
    if (!p->started && zq_brk_runner_ready_peers(r, false) >= p->o->wait_peers) {
        pub_start(p, now);
    }
    if (p->input_done && !acks_owed(&r->brk)) {
        if (r->opt.verbose) {
            (void)fprintf(stderr, "zq pub: published %" PRIu64 " message%s on '%s'\n",
                          p->published, p->published == 1 ? "" : "s", p->o->name);
        }
        zq_brk_runner_finish(r, ZQ_CLI_EXIT_OK); /* after the peers' SCTP acked them */
    }
}

static void pub_event(void *ctx, zq_brk_runner_t *r, uint64_t now, const brk_event_t *ev)
{
    pub_t *p = ctx;
    if (ev->type == BRK_EVENT_WRITABLE && p->blocked) {
        if (zq_brk_from_stdin(p->o)) {
            zq_brk_stdin_resume(r, now);
        } else if (publish_current(p, now) == ZQ_OK) {
            p->input_done = true;
        }
    } else if (ev->type == BRK_EVENT_UNDELIVERED) {
        zq_brk_runner_fail(r, "%" PRIu32 " message%s never acknowledged: the subscriber left "
                              "and did not come back",
                           ev->count, ev->count == 1 ? " was" : "s were");
    }
}

int zq_brk_pub(const zq_brk_options_t *o, zq_brk_runner_t *r)
{
    static pub_t p;
    static const zq_brk_runner_callbacks_t cb = {
        .on_event = pub_event, .on_idle = pub_idle, .one_shot = true};
    memset(&p, 0, sizeof p);
    p.o = o;
    p.r = r;
    int rc = zq_brk_runner_start(r, o->cmd, &o->net, &cb, &p);
    return rc >= 0 ? rc : zq_brk_runner_run(r);
}

/* ---- zq sub -------------------------------------------------------------------------------- */

typedef struct {
    const zq_brk_options_t *o;
    uint64_t received;
} sub_t;

static void sub_event(void *ctx, zq_brk_runner_t *r, uint64_t now, const brk_event_t *ev)
{
    (void)now;
    sub_t *s = ctx;
    if (ev->type == BRK_EVENT_LOST) {
        (void)fprintf(stderr, "zq sub: messages %" PRIu64 "..%" PRIu64 " of a publisher are "
                              "lost (its replay ring no longer held them)\n",
                      ev->lost_from, ev->lost_to);
    }
    if (ev->type != BRK_EVENT_MESSAGE) {
        return;
    }
    zq_err_t err = zq_brk_print_payload(stdout, ev->topic, ev->payload, s->o->form);
    if (err != ZQ_OK) {
        zq_brk_runner_fail(r, "cannot print a message on '%.*s' to stdout: %s",
                           (int)ev->topic.len, ev->topic.p, zq_strerror(err));
        return;
    }
    if (++s->received == s->o->count) {
        zq_brk_runner_finish(r, ZQ_CLI_EXIT_OK); /* after its acks went out */
    }
}

int zq_brk_sub(const zq_brk_options_t *o, zq_brk_runner_t *r)
{
    static sub_t s;
    static const zq_brk_runner_callbacks_t cb = {.on_event = sub_event};
    memset(&s, 0, sizeof s);
    s.o = o;
    int rc = zq_brk_runner_start(r, o->cmd, &o->net, &cb, &s);
    if (rc >= 0) {
        return rc;
    }
    zq_err_t err = brk_subscribe(&r->brk, zq_brk_runner_now(r), o->name);
    if (err != ZQ_OK) {
        zq_brk_runner_fail(r, "cannot subscribe to '%s': %s", o->name, zq_strerror(err));
    }
    return zq_brk_runner_run(r);
}

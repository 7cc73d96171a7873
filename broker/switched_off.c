/* What the broker answers for a feature its switches (zq/config.h, "Features") left out of the
 * build: the feature's API returns ZQ_ERR_SWITCHED_OFF, a frame a peer sends for it is dropped
 * and counted (brk_stats_t.rx_switched_off), and the hooks the other modules call do nothing.
 * Our hello offers only what this build has (peer.c), so a zq peer has no reason to send such
 * a frame; one that does is refused, never half served. */
#include "broker/brk_internal.h"

#if !ZQ_BRK_WORK_QUEUES || !ZQ_BRK_REQUEST_SERVER || !ZQ_BRK_REQUEST_CLIENT
/* A peer's frame for a feature left out: dropped, counted. */
static bool refuse_frame(brk_t *b)
{
    b->stats.rx_switched_off++;
    return false;
}
#endif

/* ---- Work queues (ZQ_BRK_WORK_QUEUES) ---------------------------------------------------- */
#if !ZQ_BRK_WORK_QUEUES

zq_err_t brk_enqueue(brk_t *b, uint64_t now, const char *queue, const char *payload, size_t len,
                     char *id)
{
    (void)b, (void)now, (void)queue, (void)payload, (void)len, (void)id;
    return ZQ_ERR_SWITCHED_OFF;
}

zq_err_t brk_consume(brk_t *b, uint64_t now, const char *queue, uint32_t credit)
{
    (void)b, (void)now, (void)queue, (void)credit;
    return ZQ_ERR_SWITCHED_OFF;
}

zq_err_t brk_job_done(brk_t *b, uint64_t now, uint32_t handle, bool ok)
{
    (void)b, (void)now, (void)handle, (void)ok;
    return ZQ_ERR_SWITCHED_OFF;
}

size_t brk_dlq_list(const brk_t *b, const char *queue,
                    void (*fn)(void *ctx, brk_str_t id, brk_str_t payload, uint32_t attempts),
                    void *ctx)
{
    (void)b, (void)queue, (void)fn, (void)ctx;
    return 0;
}

size_t brk_dlq_requeue(brk_t *b, uint64_t now, const char *queue)
{
    (void)b, (void)now, (void)queue;
    return 0;
}

size_t brk_dlq_purge(brk_t *b, const char *queue)
{
    (void)b, (void)queue;
    return 0;
}

zq_err_t brk_dlq_remote(brk_t *b, uint64_t now, const char *queue, brk_dlq_op_t op)
{
    (void)b, (void)now, (void)queue, (void)op;
    return ZQ_ERR_SWITCHED_OFF;
}

void brk_on_ready(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj)
{
    (void)now, (void)slot, (void)obj;
    (void)refuse_frame(b);
}

void brk_on_done(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj)
{
    (void)now, (void)slot, (void)obj;
    (void)refuse_frame(b);
}

void brk_on_dlq(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj)
{
    (void)now, (void)slot, (void)obj;
    (void)refuse_frame(b);
}

bool brk_on_dlq_jobs(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj, brk_event_t *ev)
{
    (void)now, (void)slot, (void)obj, (void)ev;
    return refuse_frame(b);
}

bool brk_on_job(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e, brk_event_t *ev)
{
    (void)now, (void)slot, (void)e, (void)ev;
    return refuse_frame(b);
}

bool brk_consumer_has(const brk_t *b, const char *queue, size_t len)
{
    (void)b, (void)queue, (void)len;
    return false;
}

bool brk_consumer_send_ready(brk_t *b, uint64_t now, uint8_t slot)
{
    (void)b, (void)now, (void)slot;
    return true;
}

int brk_jobs_queue_index(const brk_t *b, const char *queue, size_t len)
{
    (void)b, (void)queue, (void)len;
    return -1;
}

void brk_jobs_pump(brk_t *b, uint64_t now)
{
    (void)b, (void)now;
}

void brk_jobs_peer_down(brk_t *b, uint64_t now, uint8_t slot)
{
    (void)b, (void)now, (void)slot;
}

void brk_consumer_peer_down(brk_t *b, uint64_t now, uint8_t slot)
{
    (void)b, (void)now, (void)slot;
}

uint64_t brk_jobs_next_timeout(const brk_t *b)
{
    (void)b;
    return ZQ_TIME_NEVER;
}

void brk_jobs_timeout(brk_t *b, uint64_t now)
{
    (void)b, (void)now;
}

#endif /* !ZQ_BRK_WORK_QUEUES */

/* ---- Serving requests (ZQ_BRK_REQUEST_SERVER) -------------------------------------------- */
#if !ZQ_BRK_REQUEST_SERVER

zq_err_t brk_serve(brk_t *b, uint64_t now, const char *service)
{
    (void)b, (void)now, (void)service;
    return ZQ_ERR_SWITCHED_OFF;
}

zq_err_t brk_reply(brk_t *b, uint64_t now, uint32_t handle, bool ok, const char *payload,
                   size_t len)
{
    (void)b, (void)now, (void)handle, (void)ok, (void)payload, (void)len;
    return ZQ_ERR_SWITCHED_OFF;
}

/* We announce no service, so a zq peer sends us no request; a ZeroQ one (payload.replyTo) is
 * an ordinary message then, as when we serve nothing of that name. */
bool brk_on_request(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e,
                    brk_event_t *ev)
{
    (void)now, (void)slot, (void)ev;
    return e->kind == BRK_KIND_REQUEST && refuse_frame(b);
}

size_t brk_rpc_services(const brk_t *b, const char **out, size_t cap)
{
    (void)b, (void)out, (void)cap;
    return 0;
}

void brk_serve_peer_down(brk_t *b, uint8_t slot)
{
    (void)b, (void)slot;
}

#endif /* !ZQ_BRK_REQUEST_SERVER */

/* ---- Requesting (ZQ_BRK_REQUEST_CLIENT) -------------------------------------------------- */
#if !ZQ_BRK_REQUEST_CLIENT

zq_err_t brk_request(brk_t *b, uint64_t now, const char *service, const char *payload,
                     size_t len, uint32_t timeout_ms, uint32_t retries, uint32_t *handle)
{
    (void)b, (void)now, (void)service, (void)payload, (void)len, (void)timeout_ms;
    (void)retries, (void)handle;
    return ZQ_ERR_SWITCHED_OFF;
}

bool brk_on_rep(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj, brk_event_t *ev)
{
    (void)now, (void)slot, (void)obj, (void)ev;
    return refuse_frame(b);
}

bool brk_rpc_zeroq_reply(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e,
                         brk_event_t *ev)
{
    (void)b, (void)now, (void)slot, (void)e, (void)ev;
    return false; /* we asked nothing: an ordinary message */
}

void brk_rpc_pump(brk_t *b, uint64_t now)
{
    (void)b, (void)now;
}

void brk_rpc_peer_down(brk_t *b, uint64_t now, uint8_t slot)
{
    (void)b, (void)now, (void)slot;
}

uint64_t brk_rpc_next_timeout(const brk_t *b)
{
    (void)b;
    return ZQ_TIME_NEVER;
}

void brk_rpc_timeout(brk_t *b, uint64_t now)
{
    (void)b, (void)now;
}

#endif /* !ZQ_BRK_REQUEST_CLIENT */

/* ---- ZeroQ's peers (ZQ_BRK_ZEROQ_COMPAT) ------------------------------------------------- */
#if !ZQ_BRK_ZEROQ_COMPAT

zq_err_t brk_send_zeroq_envelope(brk_t *b, uint64_t now, uint8_t slot, const char *topic,
                                 size_t topic_len, json_value_t payload)
{
    (void)b, (void)now, (void)slot, (void)topic, (void)topic_len, (void)payload;
    return ZQ_ERR_SWITCHED_OFF;
}

#if ZQ_BRK_REQUEST_CLIENT
bool brk_rpc_zeroq_reply(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e,
                         brk_event_t *ev)
{
    (void)b, (void)now, (void)slot, (void)e, (void)ev;
    return false; /* no ZeroQ-form request of ours is in flight */
}
#endif

#endif /* !ZQ_BRK_ZEROQ_COMPAT */

/* The client's state: waiting for INFO, CONNECT queued, ready, or failed for good; and how
 * events reach the caller. */
#include <string.h>

#include "stack/nats/nats.h"
#include "stack/nats/nats_internal.h"

void nats_client_init(nats_client_t *c, const nats_options_t *opt, nats_event_fn fn, void *ctx)
{
    memset(c, 0, sizeof *c);
    if (opt != NULL) {
        c->opt = *opt;
    }
    c->fn = fn;
    c->ctx = ctx;
    c->state = NATS_STATE_WAIT_INFO;
    c->rx = NATS_RX_LINE;
}

void nats_emit(nats_client_t *c, const nats_event_t *ev)
{
    if (c->fn != NULL) {
        c->fn(c->ctx, ev);
    }
}

void nats_raise_err(nats_client_t *c, const char *text, size_t len, bool fatal)
{
    if (fatal) {
        c->state = NATS_STATE_FAILED;
    }
    nats_event_t ev = {.type = NATS_EV_ERR, .text = text, .text_len = len, .fatal = fatal};
    nats_emit(c, &ev);
}

void nats_fail(nats_client_t *c, const char *why)
{
    nats_raise_err(c, why, strlen(why), true);
}

void nats_protocol_error(nats_client_t *c, const char *why)
{
    c->protocol_errors++;
    nats_fail(c, why);
}

zq_err_t nats_may_send(const nats_client_t *c)
{
    switch (c->state) {
    case NATS_STATE_WAIT_INFO:
        return ZQ_ERR_STATE;
    case NATS_STATE_FAILED:
        return ZQ_ERR_CLOSED;
    default:
        return ZQ_OK;
    }
}

const nats_info_t *nats_client_info(const nats_client_t *c)
{
    return &c->info;
}

bool nats_client_ready(const nats_client_t *c)
{
    return c->state == NATS_STATE_READY;
}

nats_state_t nats_client_state(const nats_client_t *c)
{
    return c->state;
}

zq_err_t nats_client_tls_up(nats_client_t *c)
{
    if (c->state != NATS_STATE_TLS) {
        return ZQ_ERR_STATE;
    }
    c->state = NATS_STATE_CONNECTING;
    return ZQ_OK;
}

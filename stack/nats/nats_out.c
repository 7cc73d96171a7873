/* The output queue: whole commands appended to one buffer of ZQ_NATS_OUT_MAX bytes, which the
 * caller drains to TCP. A command is written into the free space and only then counted as
 * queued, so one that does not fit leaves the queue as it was. */
#include <string.h>

#include "stack/nats/nats.h"
#include "stack/nats/nats_internal.h"
#include "zq/text.h"

zq_writer_t nats_out_begin(nats_client_t *c)
{
    /* Only after a partial write is anything pending left behind the front. */
    if (c->out_head > 0) {
        memmove(c->out, c->out + c->out_head, c->out_tail - c->out_head);
        c->out_tail -= c->out_head;
        c->out_head = 0;
    }
    return zq_writer(c->out + c->out_tail, sizeof c->out - c->out_tail);
}

zq_err_t nats_out_commit(nats_client_t *c, const zq_writer_t *w)
{
    if (!w->failed) {
        c->out_tail += w->len;
        return ZQ_OK;
    }
    return c->out_tail == 0 ? ZQ_ERR_TOO_LONG : ZQ_ERR_WOULD_BLOCK;
}

void nats_out_pong(nats_client_t *c)
{
    zq_writer_t w = nats_out_begin(c);
    zq_write_str(&w, "PONG\r\n");
    /* One PONG answers however many PINGs waited: the server counts them from its last PONG. */
    c->pong_owed = nats_out_commit(c, &w) != ZQ_OK;
}

void nats_out_flush_owed(nats_client_t *c)
{
    if (c->pong_owed) {
        nats_out_pong(c);
    }
}

size_t nats_client_pending(const nats_client_t *c, const uint8_t **data)
{
    *data = c->out + c->out_head;
    if (c->state == NATS_STATE_TLS) {
        return 0; /* nothing in the clear after INFO: the caller's TLS is not up yet */
    }
    return c->out_tail - c->out_head;
}

void nats_client_sent(nats_client_t *c, size_t n)
{
    size_t pending = c->out_tail - c->out_head;
    c->out_head += n < pending ? n : pending;
    if (c->out_head == c->out_tail) {
        c->out_head = c->out_tail = 0;
    }
    nats_out_flush_owed(c);
}

/* PING and PONG, both ways (protocol doc, "PING/PONG"): the server PINGs to see that the
 * client is alive and closes it after a few unanswered ones, so each is answered at once; the
 * client's first PING follows CONNECT, and because the server handles a connection's commands
 * in order its PONG says that CONNECT was accepted. */
#include "stack/nats/nats.h"
#include "stack/nats/nats_internal.h"
#include "zq/text.h"

void nats_on_ping(nats_client_t *c, const char *args, size_t len)
{
    (void)args;
    if (len > 0) {
        nats_protocol_error(c, "PING with arguments");
        return;
    }
    nats_out_pong(c);
}

void nats_on_pong(nats_client_t *c, const char *args, size_t len)
{
    (void)args;
    if (len > 0) {
        nats_protocol_error(c, "PONG with arguments");
        return;
    }
    nats_event_t ev = {.type = NATS_EV_PONG};
    if (c->state == NATS_STATE_CONNECTING) {
        c->state = NATS_STATE_READY; /* the first PONG answers the PING after CONNECT */
        ev.type = NATS_EV_READY;
    }
    nats_emit(c, &ev);
}

zq_err_t nats_client_ping(nats_client_t *c)
{
    zq_err_t err = nats_may_send(c);
    if (err != ZQ_OK) {
        return err;
    }
    nats_out_flush_owed(c);
    zq_writer_t w = nats_out_begin(c);
    zq_write_str(&w, "PING\r\n");
    return nats_out_commit(c, &w);
}

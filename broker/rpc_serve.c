/* Serving (PROTOCOL.md §6, §9): the services this node answers, the requests it holds until
 * the application replies, and the reply, in the form the request came in (zq's rep frame, or
 * ZeroQ's envelope on the requester's replyTo topic). */
#include <string.h>

#include "broker/brk_internal.h"

#if ZQ_BRK_REQUEST_SERVER /* else left out: broker/switched_off.c */

#define NO_SUCH_SERVICE "\"no such service here\""
#define BUSY "\"busy\""
#define NONE ((json_value_t){NULL, 0})
#define LITERAL(s) ((json_value_t){s, sizeof s - 1})

static int served_index(const brk_t *b, const char *service, size_t len)
{
    for (int i = 0; i < b->rpc.n_services; i++) {
        if (brk_name_equals(&b->rpc.services[i], service, len)) {
            return i;
        }
    }
    return -1;
}

zq_err_t brk_serve(brk_t *b, uint64_t now, const char *service)
{
    (void)now;
    size_t len = strlen(service);
    if (served_index(b, service, len) >= 0) {
        return ZQ_OK;
    }
    if (b->rpc.n_services == ZQ_BRK_MAX_SERVICES) {
        return ZQ_ERR_CAPACITY;
    }
    zq_err_t err = brk_name_set(&b->rpc.services[b->rpc.n_services], service, len);
    if (err != ZQ_OK || len == 0) {
        return err != ZQ_OK ? err : ZQ_ERR_MALFORMED;
    }
    b->rpc.n_services++;
    brk_peers_sub_changed(b);
    return ZQ_OK;
}

size_t brk_rpc_services(const brk_t *b, const char **out, size_t cap)
{
    size_t n = 0;
    for (; n < b->rpc.n_services && n < cap; n++) {
        out[n] = b->rpc.services[n].text;
    }
    return n;
}

/* @p error is a JSON string value (with its quotes), or an empty span. */
static zq_err_t send_rep(brk_t *b, uint64_t now, uint8_t slot, const char *corr, bool ok,
                         json_value_t payload, json_value_t error)
{
    char qcorr[BRK_ID_MAX + 2];
    brk_rep_t r;
    memset(&r, 0, sizeof r);
    r.corr = brk_json_string(corr, strlen(corr), qcorr, sizeof qcorr);
    r.ok = ok;
    r.payload = payload;
    r.error = error;
    json_writer_t w;
    brk_frame_begin(b, &w);
    brk_rep_write(&w, &r);
    return brk_send_frame(b, now, slot, &w);
}

bool brk_on_request(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e,
                    brk_event_t *ev)
{
    brk_name_t service;
    char corr[BRK_ID_MAX];
    bool zeroq = e->kind != BRK_KIND_REQUEST; /* ZeroQ's form: payload.replyTo */
    json_value_t c = zeroq ? e->reply_to : e->corr;
    size_t clen = 0;
    if (brk_name_from_json(&service, e->topic) != ZQ_OK ||
        json_get_string(c, corr, sizeof corr, &clen) != ZQ_OK || clen == 0) {
        b->stats.rx_malformed++;
        return false;
    }
    if (served_index(b, service.text, service.len) < 0) {
        if (!zeroq) { /* a zq requester hears at once, and tries the next responder */
            (void)send_rep(b, now, slot, corr, false, NONE, LITERAL(NO_SUCH_SERVICE));
        }
        return false; /* a ZeroQ one is an ordinary message then */
    }
    brk_incoming_t *in = NULL;
    for (int i = 0; i < ZQ_BRK_MAX_REQUESTS && in == NULL; i++) {
        in = b->rpc.incoming[i].used ? NULL : &b->rpc.incoming[i];
    }
    if (in == NULL) {
        if (!zeroq) {
            (void)send_rep(b, now, slot, corr, false, NONE, LITERAL(BUSY));
        }
        return false;
    }
    *in = (brk_incoming_t){true, (int8_t)slot, zeroq, b->rpc.next_handle++, {0}};
    memcpy(in->corr, corr, clen + 1);
    ev->type = BRK_EVENT_REQUEST;
    ev->topic = (brk_str_t){e->topic.p + 1, e->topic.len - 2};
    ev->payload = e->has_payload ? (brk_str_t){e->payload.p, e->payload.len}
                                 : (brk_str_t){"null", 4};
    ev->id = (brk_str_t){e->id.p + 1, e->id.len - 2};
    ev->handle = in->handle;
    return true;
}

/* ZeroQ's reply: an envelope on the requester's replyTo topic. */
static zq_err_t send_zeroq_reply(brk_t *b, uint64_t now, const brk_incoming_t *in,
                                 json_value_t payload)
{
    return brk_send_zeroq_envelope(b, now, (uint8_t)in->peer, in->corr, strlen(in->corr), payload);
}

zq_err_t brk_reply(brk_t *b, uint64_t now, uint32_t handle, bool ok, const char *payload,
                   size_t len)
{
    brk_incoming_t *in = NULL;
    for (int i = 0; i < ZQ_BRK_MAX_REQUESTS && in == NULL; i++) {
        brk_incoming_t *c = &b->rpc.incoming[i];
        in = c->used && c->handle == handle ? c : NULL;
    }
    json_value_t value;
    if (in == NULL) {
        return ZQ_ERR_NOT_FOUND;
    }
    if (json_parse(payload, len, &value) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    zq_err_t err = ZQ_OK;
    if (b->peers[in->peer].open) { /* a refusal's reason (a JSON string) is the error */
        err = in->zeroq ? send_zeroq_reply(b, now, in, value)
                        : send_rep(b, now, (uint8_t)in->peer, in->corr, ok, ok ? value : NONE,
                                   ok ? NONE : value);
    }
    if (err == ZQ_ERR_WOULD_BLOCK) {
        brk_note_blocked(b);
        return err;
    }
    in->used = false;
    return err == ZQ_ERR_NOT_FOUND ? ZQ_OK : err;
}

/* Requests from a peer that went away: a reply to them has nobody to go to. */
void brk_serve_peer_down(brk_t *b, uint8_t slot)
{
    for (int i = 0; i < ZQ_BRK_MAX_REQUESTS; i++) {
        b->rpc.incoming[i].used = b->rpc.incoming[i].used && b->rpc.incoming[i].peer != slot;
    }
}

#endif /* ZQ_BRK_REQUEST_SERVER */

/* Requesting (PROTOCOL.md §6, §9): a request goes to one responder of its service at a time;
 * without a reply in time (or if that responder goes away) it goes to the next, up to its
 * retries. With no zq responder it is sent as ZeroQ sends one (payload.replyTo) to the ZeroQ
 * peers, and the first envelope on that topic answers it. Each request's frame is kept in a
 * fixed slot of req_buf for the retries. */
#include <string.h>

#include "broker/brk_internal.h"

#if ZQ_BRK_REQUEST_CLIENT /* else left out: broker/switched_off.c */

#define REQ_SLOT (ZQ_BRK_REQUEST_BYTES / ZQ_BRK_MAX_REQUESTS) /* at least 256: zq/config.h */

/* ZeroQ's form of a request (ZQ_BRK_ZEROQ_COMPAT), at the end. */
static size_t with_reply_to(const char *corr, json_value_t payload, char *out, size_t cap);
static bool send_zeroq_request(brk_t *b, uint64_t now, brk_request_t *r);

/* ---- Requests -------------------------------------------------------------------------------- */

static char *req_text(brk_t *b, const brk_request_t *r)
{
    return (char *)b->rpc.req_buf + r->offset;
}

/* The request's frame, zq's form or ZeroQ's (payload.replyTo added to an object payload). */
static size_t write_request(brk_t *b, uint64_t now, brk_request_t *r, const brk_name_t *service,
                            json_value_t payload, bool zeroq)
{
    char id[BRK_ID_MAX];
    char qid[BRK_ID_MAX + 2];
    char qservice[BRK_QUOTED_MAX];
    char qcorr[BRK_ID_MAX + 2];
    brk_new_id(b, NULL, id);
    brk_envelope_t e;
    memset(&e, 0, sizeof e);
    e.id = brk_json_string(id, strlen(id), qid, sizeof qid);
    e.topic = brk_json_string(service->text, service->len, qservice, sizeof qservice);
    e.payload = payload;
    e.has_payload = true;
    e.timestamp = (int64_t)now + b->cfg.wall_offset_ms;
    if (!zeroq) {
        e.kind = BRK_KIND_REQUEST;
        e.corr = brk_json_string(r->corr, strlen(r->corr), qcorr, sizeof qcorr);
        e.timeout_ms = r->timeout_ms;
    }
    json_writer_t w;
    json_writer_init(&w, req_text(b, r), REQ_SLOT);
    brk_envelope_write(&w, &e);
    return json_finish(&w);
}

zq_err_t brk_request(brk_t *b, uint64_t now, const char *service, const char *payload,
                     size_t len, uint32_t timeout_ms, uint32_t retries, uint32_t *handle)
{
    brk_name_t name;
    json_value_t value;
    zq_err_t err = brk_name_set(&name, service, strlen(service));
    if (err != ZQ_OK || json_parse(payload, len, &value) != ZQ_OK || name.len == 0) {
        return err != ZQ_OK ? err : ZQ_ERR_MALFORMED;
    }
    brk_request_t *r = NULL;
    int idx = -1;
    for (int i = 0; i < ZQ_BRK_MAX_REQUESTS && r == NULL; i++) {
        r = b->rpc.requests[i].used ? NULL : &b->rpc.requests[i];
        idx = i;
    }
    if (r == NULL) {
        brk_note_blocked(b);
        return ZQ_ERR_WOULD_BLOCK;
    }
    memset(r, 0, sizeof *r);
    r->used = true;
    r->handle = b->rpc.next_handle++;
    r->offset = (uint32_t)idx * REQ_SLOT;
    r->timeout_ms = timeout_ms != 0 ? timeout_ms : b->cfg.request_timeout_ms;
    r->retries_left = retries;
    r->deadline = now + r->timeout_ms;
    r->peer = -1;
    brk_new_id(b, "c-", r->corr);
    memcpy(r->service, name.text, name.len + 1u);
    r->len = (uint32_t)write_request(b, now, r, &name, value, false);
    char *zeroq = req_text(b, r) + r->len;
    size_t room = REQ_SLOT - r->len;
    size_t plen = r->len > 0 ? with_reply_to(r->corr, value, zeroq, room) : 0;
    r->zeroq_payload_len = (uint32_t)plen;
    if (r->len == 0) {
        r->used = false;
        return ZQ_ERR_TOO_LONG;
    }
    *handle = r->handle;
    brk_rpc_pump(b, now);
    return ZQ_OK;
}

static bool tried(const brk_request_t *r, uint8_t slot)
{
    return (r->tried[slot / 8] >> (slot % 8)) & 1u;
}

static int next_responder(const brk_t *b, const brk_request_t *r)
{
    for (uint8_t slot = 0; slot < ZQ_NODE_MAX_PEERS; slot++) {
        if (!tried(r, slot) && brk_peer_serves(b, slot, r->service, strlen(r->service))) {
            return slot;
        }
    }
    return -1;
}

void brk_rpc_pump(brk_t *b, uint64_t now)
{
    for (int i = 0; i < ZQ_BRK_MAX_REQUESTS; i++) {
        brk_request_t *r = &b->rpc.requests[i];
        if (!r->used || r->peer >= 0 || r->zeroq) {
            continue; /* idle, or waiting for its reply */
        }
        int slot = next_responder(b, r);
        if (slot >= 0) {
            if (brk_send_text(b, now, (uint8_t)slot, req_text(b, r), r->len) == ZQ_OK) {
                r->peer = (int8_t)slot;
                r->tried[slot / 8] |= (uint8_t)(1u << (slot % 8));
            }
        } else if (send_zeroq_request(b, now, r)) {
            r->zeroq = true; /* any ZeroQ responder's reply will do */
        }
    }
}

/* ---- Replies --------------------------------------------------------------------------------- */

static brk_request_t *find_request(brk_t *b, const char *corr, size_t len)
{
    for (int i = 0; i < ZQ_BRK_MAX_REQUESTS; i++) {
        brk_request_t *r = &b->rpc.requests[i];
        if (r->used && strlen(r->corr) == len && memcmp(r->corr, corr, len) == 0) {
            return r;
        }
    }
    return NULL;
}

static void finish(brk_t *b, brk_request_t *r, brk_event_t *ev, bool ok, json_value_t payload)
{
    ev->type = BRK_EVENT_REPLY;
    ev->ok = ok;
    ev->payload = payload.len > 0 ? (brk_str_t){payload.p, payload.len} : (brk_str_t){"null", 4};
    ev->handle = r->handle;
    r->used = false;
    brk_note_room(b);
}

/* Moves the request on to the next responder, or gives up. */
static void try_next(brk_t *b, uint64_t now, brk_request_t *r)
{
    if (r->retries_left == 0) {
        brk_event_t *ev = brk_push_event(b, BRK_EVENT_REQUEST_FAILED);
        if (ev != NULL) {
            ev->handle = r->handle;
        }
        b->stats.requests_failed++;
        r->used = false;
        brk_note_room(b);
        return;
    }
    r->retries_left--;
    r->peer = -1;
    r->zeroq = false;
    r->deadline = now + r->timeout_ms;
    b->stats.requests_retried++;
    brk_rpc_pump(b, now);
}

bool brk_on_rep(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj, brk_event_t *ev)
{
    brk_rep_t rep;
    if (brk_rep_read(obj, &rep) != ZQ_OK) {
        b->stats.rx_malformed++;
        return false;
    }
    brk_request_t *r = find_request(b, rep.corr.p + 1, rep.corr.len - 2);
    if (r == NULL || r->peer != (int8_t)slot) {
        return false; /* late: it timed out, or went to another responder */
    }
    if (!rep.ok && json_string_equals(rep.error, "no such service here")) {
        try_next(b, now, r); /* not a refusal: the responder is gone or misannounced */
        return false;
    }
    finish(b, r, ev, rep.ok, rep.ok ? rep.payload : rep.error);
    return true;
}

void brk_rpc_peer_down(brk_t *b, uint64_t now, uint8_t slot)
{
    for (int i = 0; i < ZQ_BRK_MAX_REQUESTS; i++) {
        brk_request_t *r = &b->rpc.requests[i];
        if (r->used && r->peer == (int8_t)slot) {
            try_next(b, now, r); /* as OMQ::QoS: re-sent to the next responder at once */
        }
    }
}

uint64_t brk_rpc_next_timeout(const brk_t *b)
{
    uint64_t t = ZQ_TIME_NEVER;
    for (int i = 0; i < ZQ_BRK_MAX_REQUESTS; i++) {
        if (b->rpc.requests[i].used) {
            t = zq_time_min(t, b->rpc.requests[i].deadline);
        }
    }
    return t;
}

void brk_rpc_timeout(brk_t *b, uint64_t now)
{
    for (int i = 0; i < ZQ_BRK_MAX_REQUESTS; i++) {
        brk_request_t *r = &b->rpc.requests[i];
        if (r->used && now >= r->deadline) {
            try_next(b, now, r);
        }
    }
}

/* ---- ZeroQ's form (ZQ_BRK_ZEROQ_COMPAT) ------------------------------------------------------ */

#if ZQ_BRK_ZEROQ_COMPAT
/* ZeroQ's request (zeroq-wire.md §3): {...payload, replyTo} as the payload. Only an object
 * payload can carry it; ZeroQ itself mangles others. */
static size_t with_reply_to(const char *corr, json_value_t payload, char *out, size_t cap)
{
    if (json_type(payload) != JSON_OBJECT) {
        return 0;
    }
    json_writer_t w;
    json_writer_init(&w, out, cap);
    json_object_begin(&w);
    json_iter_t it;
    json_value_t key;
    json_value_t value;
    json_iter_init(&it, payload);
    while (json_iter_next(&it, &key, &value)) {
        if (!json_string_equals(key, "replyTo")) {
            char name[ZQ_BRK_NAME_MAX + 1];
            size_t n = 0;
            if (json_get_string(key, name, sizeof name, &n) == ZQ_OK) {
                json_key_n(&w, name, n);
                json_raw(&w, value);
            }
        }
    }
    json_key(&w, "replyTo");
    json_string(&w, corr, strlen(corr));
    json_object_end(&w);
    return json_finish(&w);
}

/* ZeroQ's form to every ZeroQ peer (it broadcasts requests); true if one took it. */
static bool send_zeroq_request(brk_t *b, uint64_t now, brk_request_t *r)
{
    if (r->zeroq_payload_len == 0) {
        return false;
    }
    brk_name_t service;
    (void)brk_name_set(&service, r->service, strlen(r->service));
    json_value_t payload = {req_text(b, r) + r->len, r->zeroq_payload_len};
    bool sent = false;
    for (uint8_t slot = 0; slot < ZQ_NODE_MAX_PEERS; slot++) {
        const brk_peer_t *p = &b->peers[slot];
        if (!p->open || !p->classified || p->zq || tried(r, slot)) {
            continue; /* (an unclassified peer may yet say hello: then it is zq's form) */
        }
        if (brk_send_zeroq_envelope(b, now, slot, service.text, service.len, payload) == ZQ_OK) {
            r->tried[slot / 8] |= (uint8_t)(1u << (slot % 8));
            sent = true;
        }
    }
    return sent;
}

bool brk_rpc_zeroq_reply(brk_t *b, uint64_t now, uint8_t slot, const brk_envelope_t *e,
                         brk_event_t *ev)
{
    (void)now;
    brk_request_t *r = find_request(b, e->topic.p + 1, e->topic.len - 2);
    if (r == NULL || !r->zeroq || !tried(r, slot)) {
        return false;
    }
    finish(b, r, ev, true, e->payload);
    return true;
}
#else
/* Without ZeroQ compatibility a request goes to zq responders only. */
static size_t with_reply_to(const char *corr, json_value_t payload, char *out, size_t cap)
{
    (void)corr, (void)payload, (void)out, (void)cap;
    return 0;
}

static bool send_zeroq_request(brk_t *b, uint64_t now, brk_request_t *r)
{
    (void)b, (void)now, (void)r;
    return false;
}
#endif /* ZQ_BRK_ZEROQ_COMPAT */

#endif /* ZQ_BRK_REQUEST_CLIENT */

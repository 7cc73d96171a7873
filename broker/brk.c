/* The broker's entry points: init, node events, the event pump (send what is due, read a
 * frame, hand it to its module), timers, and the small helpers every module shares. */
#include <string.h>

#include "broker/brk_internal.h"
#include "zq/utf8.h"
#include "zq/hex.h"

void brk_config_default(brk_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->ping_ms = 10000;    /* ZeroQ's heartbeat (zeroq-wire.md §4) */
    cfg->silence_ms = 30000; /* ZeroQ drops a peer silent this long */
    cfg->ack_delay_ms = 20;
    cfg->linger_ms = 60000;
    cfg->lease_ms = 30000;
    cfg->max_attempts = 3; /* ZeroQ's MAX_RETRIES */
    cfg->request_timeout_ms = 5000;
    cfg->request_retries = 2;
}

zq_err_t brk_init(brk_t *b, node_t *node, const brk_config_t *cfg)
{
    if (node == NULL || cfg->rand.fill == NULL || cfg->ping_ms == 0 || cfg->max_attempts == 0 ||
        node->cfg.dtls == NULL || node->cfg.dtls->identity == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(b, 0, sizeof *b);
    b->node = node;
    b->cfg = *cfg;
    memcpy(b->own_fp, node->cfg.dtls->identity->fingerprint.bytes, sizeof b->own_fp);
    brk_pub_init(b);
    brk_subs_init(b);
#if ZQ_BRK_WORK_QUEUES
    b->consumer.next_handle = 1;
#endif
    b->rpc.next_handle = 1;
    return ZQ_OK;
}

const brk_stats_t *brk_stats(const brk_t *b)
{
    return &b->stats;
}

uint32_t brk_events_refused(const brk_t *b)
{
    return zq_queue_refused(&b->evq);
}

/* ---- Shared helpers ------------------------------------------------------------------------ */

brk_event_t *brk_push_event(brk_t *b, brk_event_type_t type)
{
    brk_event_t *ev = ZQ_QUEUE_PUSH(&b->evq, b->events);
    if (ev != NULL) {
        ev->type = type;
    }
    return ev;
}

void brk_note_blocked(brk_t *b)
{
    b->writable_due = true;
}

void brk_note_room(brk_t *b)
{
    b->room_changed = true;
}

void brk_new_id(brk_t *b, const char *prefix, char out[BRK_ID_MAX])
{
    uint8_t r[16];
    (void)zq_rand_bytes(&b->cfg.rand, r, sizeof r);
    size_t n = 0;
    if (prefix != NULL) {
        n = strlen(prefix);
        memcpy(out, prefix, n);
        n += zq_hex_encode(out + n, r, 12);
        out[n] = '\0';
        return;
    }
    r[6] = (uint8_t)((r[6] & 0x0fu) | 0x40u); /* RFC 9562 §5.4: version 4 */
    r[8] = (uint8_t)((r[8] & 0x3fu) | 0x80u); /* variant 10 */
    for (size_t i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            out[n++] = '-';
        }
        n += zq_hex_encode(out + n, &r[i], 1);
    }
    out[n] = '\0';
}

zq_err_t brk_name_set(brk_name_t *n, const char *text, size_t len)
{
    if (len > ZQ_BRK_NAME_MAX) {
        return ZQ_ERR_TOO_LONG;
    }
    if (!zq_utf8_valid((const uint8_t *)text, len) || memchr(text, '\0', len) != NULL) {
        return ZQ_ERR_MALFORMED;
    }
    memcpy(n->text, text, len);
    n->text[len] = '\0';
    n->len = (uint8_t)len;
    return ZQ_OK;
}

bool brk_name_equals(const brk_name_t *n, const char *text, size_t len)
{
    return n->len == len && memcmp(n->text, text, len) == 0;
}

json_value_t brk_json_string(const char *text, size_t len, char *out, size_t cap)
{
    json_writer_t w;
    json_writer_init(&w, out, cap);
    json_string(&w, text, len);
    size_t n = json_finish(&w);
    return (json_value_t){n > 0 ? out : "", n};
}

zq_err_t brk_name_from_json(brk_name_t *n, json_value_t v)
{
    size_t len = 0;
    if (json_type(v) != JSON_STRING) {
        return ZQ_ERR_MALFORMED;
    }
    zq_err_t err = json_get_string(v, n->text, sizeof n->text, &len);
    if (err != ZQ_OK) {
        return err == ZQ_ERR_NO_SPACE ? ZQ_ERR_TOO_LONG : err;
    }
    if (memchr(n->text, '\0', len) != NULL) {
        return ZQ_ERR_MALFORMED;
    }
    n->len = (uint8_t)len;
    return ZQ_OK;
}

/* ---- Node events --------------------------------------------------------------------------- */

static void push_peer_event(brk_t *b, brk_event_type_t type, uint8_t slot)
{
    brk_event_t *ev = brk_push_event(b, type);
    if (ev != NULL) {
        ev->peer = slot;
    }
}

/* A channel the node opened: the broker takes it up once, whether it hears of it from the
 * node's event or first finds it while reading (its hello may come in the same packet). */
void brk_ensure_peer_up(brk_t *b, uint64_t now, uint8_t slot)
{
    if (!b->peers[slot].open && b->node->peers[slot].used && b->node->peers[slot].open) {
        brk_peer_up(b, now, slot);
        push_peer_event(b, BRK_EVENT_PEER_UP, slot);
    }
}

void brk_handle_node_event(brk_t *b, uint64_t now, const node_event_t *ev)
{
    if (ev->peer >= ZQ_NODE_MAX_PEERS) {
        return;
    }
    switch (ev->type) {
    case NODE_EVENT_PEER_CONNECTED:
        brk_ensure_peer_up(b, now, ev->peer);
        break;
    case NODE_EVENT_PEER_GONE:
        if (b->peers[ev->peer].open) {
            brk_peer_down(b, now, ev->peer);
            push_peer_event(b, BRK_EVENT_PEER_DOWN, ev->peer);
        }
        break;
    case NODE_EVENT_WRITABLE:
        brk_note_room(b);
        break;
    default:
        break;
    }
}

/* ---- Dispatch ------------------------------------------------------------------------------ */

/* An envelope: a request to a service we serve, a job for a queue we consume (zq's "k", or a
 * ZeroQ broadcast on a queue name: ZeroQ shares one namespace), the reply to a ZeroQ-form
 * request of ours, or else a message for the subscriptions. */
static bool on_envelope(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj, brk_event_t *ev)
{
    brk_envelope_t e;
    brk_name_t topic;
    if (brk_envelope_read(obj, &e) != ZQ_OK || brk_name_from_json(&topic, e.topic) != ZQ_OK) {
        b->stats.rx_malformed++;
        return false;
    }
    bool zeroq = !b->peers[slot].zq;
    if (zeroq && !ZQ_BRK_ZEROQ_COMPAT) {
        b->stats.rx_switched_off++; /* a peer without zq's hello: ZeroQ's, left out */
        return false;
    }
    if ((e.kind == BRK_KIND_REQUEST || e.reply_to.len > 0) &&
        brk_on_request(b, now, slot, &e, ev)) {
        return true;
    }
    if (e.kind == BRK_KIND_JOB || (zeroq && brk_consumer_has(b, topic.text, topic.len))) {
        return brk_on_job(b, now, slot, &e, ev);
    }
    if (zeroq && brk_rpc_zeroq_reply(b, now, slot, &e, ev)) {
        return true;
    }
    return e.kind == BRK_KIND_MESSAGE && brk_on_message(b, now, slot, &e, ev);
}

/* Frames only a zq peer sends, and only after its hello. */
static bool zq_only(brk_frame_type_t type)
{
    return type != BRK_FRAME_ENVELOPE && type != BRK_FRAME_PING && type != BRK_FRAME_PONG &&
           type != BRK_FRAME_GOSSIP && type != BRK_FRAME_HELLO && type != BRK_FRAME_UNKNOWN;
}

static bool dispatch(brk_t *b, uint64_t now, uint8_t slot, json_value_t obj,
                     brk_frame_type_t type, brk_event_t *ev)
{
    switch (type) {
    case BRK_FRAME_ENVELOPE:
        return on_envelope(b, now, slot, obj, ev);
    case BRK_FRAME_PING:
        b->peers[slot].pong_due = true;
        return false;
    case BRK_FRAME_PONG:
    case BRK_FRAME_GOSSIP: /* read, not acted on (PROTOCOL.md §1) */
        return false;
    case BRK_FRAME_HELLO:
        brk_on_hello(b, now, slot, obj);
        return false;
    case BRK_FRAME_SUB:
        brk_on_sub(b, now, slot, obj);
        return false;
    case BRK_FRAME_ACK:
        brk_on_ack(b, now, slot, obj);
        return false;
    case BRK_FRAME_READY:
        brk_on_ready(b, now, slot, obj);
        return false;
    case BRK_FRAME_DONE:
        brk_on_done(b, now, slot, obj);
        return false;
    case BRK_FRAME_DLQ:
        brk_on_dlq(b, now, slot, obj);
        return false;
    case BRK_FRAME_DLQ_JOBS:
        return brk_on_dlq_jobs(b, now, slot, obj, ev);
    case BRK_FRAME_REP:
        return brk_on_rep(b, now, slot, obj, ev);
    case BRK_FRAME_LOST:
        return brk_on_lost(b, now, slot, obj, ev);
    default:
        b->stats.rx_unknown++;
        return false;
    }
}

bool brk_handle_frame(brk_t *b, uint64_t now, uint8_t slot, const char *text, size_t len,
                      brk_event_t *ev)
{
    json_value_t obj;
    if (json_parse(text, len, &obj) != ZQ_OK || json_type(obj) != JSON_OBJECT) {
        b->stats.rx_malformed++;
        return false;
    }
    memset(ev, 0, sizeof *ev);
    ev->peer = slot;
    brk_frame_type_t type = brk_frame_type(obj);
    brk_peer_t *p = &b->peers[slot];
    if (!p->classified && zq_only(type)) {
        /* A zq peer's frame before its hello: the hello was lost on the way (a browser dropped
         * it, PROTOCOL.md §2) and comes again. Taken for ZeroQ now, the peer would be sent
         * ZeroQ's form until then, and its hello's resume point would replay that. */
        p->hello_lost = true;
    } else if (!p->classified) {
        p->classified = true; /* a hello, or a ZeroQ peer's gossip: publishing starts */
        if (type != BRK_FRAME_HELLO) {
            brk_pub_taken_for_zeroq(b, slot);
        }
    }
    return dispatch(b, now, slot, obj, type, ev);
}

/* Reads frames of one peer until one makes an application event. */
void brk_hold_input(brk_t *b, bool hold)
{
    b->input_held = hold;
}

/* The application's word (brk_hold_input), or every held place taken (hold_qos1): frames wait
 * in the channels until then. */
static bool input_stopped(const brk_t *b)
{
    return b->input_held || brk_subs_input_full(b);
}

static bool read_peer(brk_t *b, uint64_t now, uint8_t slot, brk_event_t *ev)
{
    brk_peer_t *p = &b->peers[slot];
    while (!input_stopped(b) && brk_peer_read_frame(b, now, slot)) {
        if (brk_handle_frame(b, now, slot, p->frame, p->frame_len, ev)) {
            return true;
        }
    }
    return false;
}

/* Everything the broker owes the peers, while they have room. */
static void send_due(brk_t *b, uint64_t now)
{
    brk_peers_send_due(b, now);
    brk_pub_pump(b, now);
    brk_jobs_pump(b, now);
    brk_rpc_pump(b, now);
}

static bool pop_pending(brk_t *b, brk_event_t *ev)
{
    const brk_event_t *oldest = ZQ_QUEUE_POP(&b->evq, b->events);
    if (oldest == NULL) {
        return false;
    }
    *ev = *oldest;
    return true;
}

bool brk_poll_event(brk_t *b, uint64_t now, brk_event_t *ev)
{
    send_due(b, now);
    if (pop_pending(b, ev)) {
        return true;
    }
    for (uint8_t k = 0; k < ZQ_NODE_MAX_PEERS; k++) {
        uint8_t slot = (uint8_t)((b->next_peer + k) % ZQ_NODE_MAX_PEERS);
        if (b->node->peers[slot].used && read_peer(b, now, slot, ev)) {
            b->next_peer = (uint8_t)((slot + 1) % ZQ_NODE_MAX_PEERS); /* fair between peers */
            return true;
        }
    }
    send_due(b, now); /* what reading made due (acks, pongs, credits) */
    if (pop_pending(b, ev)) {
        return true;
    }
    if (b->writable_due && b->room_changed) {
        b->writable_due = b->room_changed = false;
        memset(ev, 0, sizeof *ev);
        ev->type = BRK_EVENT_WRITABLE;
        return true;
    }
    return false;
}

/* ---- Timers -------------------------------------------------------------------------------- */

uint64_t brk_next_timeout(const brk_t *b)
{
    uint64_t t = brk_peers_next_timeout(b);
    t = zq_time_min(t, brk_pub_next_timeout(b));
    t = zq_time_min(t, brk_jobs_next_timeout(b));
    return zq_time_min(t, brk_rpc_next_timeout(b));
}

void brk_handle_timeout(brk_t *b, uint64_t now)
{
    brk_peers_timeout(b, now);
    brk_pub_timeout(b, now);
    brk_jobs_timeout(b, now);
    brk_rpc_timeout(b, now);
}

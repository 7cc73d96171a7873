/* The echo service (see echo.h). */
#include <string.h>

#include "node/echo.h"
#include "zq/text.h"

void echo_init(echo_t *e, node_t *node, uint32_t probes)
{
    memset(e, 0, sizeof *e);
    e->node = node;
    e->probes = probes;
}

/* ---- Probes ------------------------------------------------------------------------------ */

static size_t probe_text(const echo_t *e, uint32_t n, char *out, size_t cap)
{
    zq_writer_t w = zq_text_writer(out, cap);
    zq_write_str(&w, ECHO_PROBE_PREFIX);
    zq_write_str(&w, e->node->my_id);
    zq_write_char(&w, ' ');
    zq_write_udec(&w, n);
    return zq_text_end(&w);
}

static void send_probe(echo_t *e, uint64_t now, uint8_t peer)
{
    echo_probe_t *p = &e->probe[peer];
    char text[ECHO_PROBE_MAX];
    size_t len = probe_text(e, p->sent, text, sizeof text);
    if (len > 0 && node_send(e->node, now, peer, (const uint8_t *)text, len, false) == ZQ_OK) {
        p->sent++;
        p->sent_at = now;
    }
}

static void report(echo_t *e, uint8_t peer)
{
    echo_probe_t *p = &e->probe[peer];
    if (!p->active || e->n_reports == ZQ_NODE_MAX_PEERS) {
        return;
    }
    echo_report_t *r = &e->reports[e->n_reports++];
    r->peer = peer;
    r->sent = p->sent;
    r->back = p->back;
    r->rtt_min = p->back > 0 ? p->rtt_min : 0;
    r->rtt_max = p->rtt_max;
    r->rtt_avg = p->back > 0 ? p->rtt_sum / p->back : 0;
    p->active = false;
}

/* Whether @p msg is one of our own probes coming back (then it is counted, not echoed). */
static bool own_probe(echo_t *e, uint64_t now, uint8_t peer, const dc_message_t *msg)
{
    echo_probe_t *p = &e->probe[peer];
    char want[ECHO_PROBE_MAX];
    size_t len = p->active && p->sent > p->back ? probe_text(e, p->back, want, sizeof want) : 0;
    if (len == 0 || msg->binary || !msg->first || !msg->last || msg->len != len ||
        memcmp(msg->data, want, len) != 0) {
        return false;
    }
    uint64_t rtt = now - p->sent_at;
    p->rtt_min = p->back == 0 || rtt < p->rtt_min ? rtt : p->rtt_min;
    p->rtt_max = rtt > p->rtt_max ? rtt : p->rtt_max;
    p->rtt_sum += rtt;
    p->back++;
    if (p->back == e->probes) {
        report(e, peer);
    }
    return true;
}

bool echo_poll_report(echo_t *e, echo_report_t *r)
{
    if (e->n_reports == 0) {
        return false;
    }
    *r = e->reports[0];
    memmove(&e->reports[0], &e->reports[1], --e->n_reports * sizeof e->reports[0]);
    return true;
}

void echo_handle_event(echo_t *e, uint64_t now, const node_event_t *ev)
{
    (void)now;
    if (ev->peer >= ZQ_NODE_MAX_PEERS) {
        return;
    }
    if (ev->type == NODE_EVENT_PEER_CONNECTED) {
        memset(&e->relay[ev->peer], 0, offsetof(echo_relay_t, data));
        memset(&e->probe[ev->peer], 0, sizeof e->probe[ev->peer]);
        e->probe[ev->peer].active = e->probes > 0;
    } else if (ev->type == NODE_EVENT_PEER_GONE) {
        report(e, ev->peer);
        e->relay[ev->peer].held = false;
    }
}

/* ---- Relay ------------------------------------------------------------------------------- */

static void hold(echo_relay_t *r, const dc_message_t *m)
{
    r->held = true;
    r->first = m->first;
    r->last = m->last;
    r->binary = m->first ? m->binary : r->binary;
    r->len = m->len;
    r->done = 0;
    memcpy(r->data, m->data, m->len);
}

/* Sends what the held piece has left; true when it is all gone (or dropped). */
static bool forward_parts(echo_t *e, uint64_t now, uint8_t peer, echo_relay_t *r)
{
    if (r->done < r->len) {
        size_t took = 0;
        zq_err_t err = node_send_part(e->node, now, peer, r->data + r->done, r->len - r->done,
                                      r->binary, !r->in_message, false, &took);
        r->done += took;
        r->in_message = r->in_message || took > 0;
        if (err == ZQ_ERR_WOULD_BLOCK || (err == ZQ_OK && r->done < r->len)) {
            return false;
        }
        if (err != ZQ_OK) {
            e->stats.dropped++; /* over the peer's max-message-size: withdrawn (RFC 3758) */
            r->in_message = false;
            r->discarding = !r->last;
            return true;
        }
    }
    if (r->last && r->in_message) {
        size_t took = 0;
        if (node_send_part(e->node, now, peer, NULL, 0, r->binary, false, true, &took) ==
            ZQ_ERR_WOULD_BLOCK) {
            return false;
        }
        r->in_message = false;
        e->stats.messages++;
    }
    e->stats.bytes += r->len;
    return true;
}

/* Whole small messages (and empty ones, which cannot go in parts) in one send. */
static bool forward(echo_t *e, uint64_t now, uint8_t peer, echo_relay_t *r)
{
    if (r->first && r->last && r->len <= ZQ_ECHO_WHOLE_MAX) {
        zq_err_t err = node_send(e->node, now, peer, r->data, r->len, r->binary);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return false;
        }
        e->stats.messages += err == ZQ_OK;
        e->stats.bytes += err == ZQ_OK ? r->len : 0;
        e->stats.dropped += err != ZQ_OK;
        return true;
    }
    return forward_parts(e, now, peer, r);
}

static bool is_close_command(const dc_message_t *m)
{
    return !m->binary && m->first && m->last && m->len == sizeof ECHO_CLOSE_COMMAND - 1 &&
           memcmp(m->data, ECHO_CLOSE_COMMAND, m->len) == 0;
}

/* Takes one piece from @p peer into its relay unless it is a probe of ours, a command, or
 * dropped. */
static bool take_piece(echo_t *e, uint64_t now, uint8_t peer, echo_relay_t *r)
{
    node_message_t m;
    if (!node_read_peer(e->node, now, peer, &m)) {
        return false;
    }
    if (own_probe(e, now, peer, &m.msg)) {
        echo_probe_t *p = &e->probe[peer];
        if (p->active && p->sent < e->probes) {
            send_probe(e, now, peer);
        }
        return true;
    }
    if (is_close_command(&m.msg)) {
        e->stats.closes += node_close_channel(e->node, now, peer) == ZQ_OK;
        return false; /* nothing more to read from a closing channel */
    }
    if (m.msg.first) {
        r->discarding = false;
    }
    if (r->discarding || m.msg.aborted || m.msg.len > sizeof r->data) {
        e->stats.oversize += m.msg.len > sizeof r->data;
        r->discarding = !m.msg.last;
        if (r->in_message) { /* what went out of it cannot end well: withdraw it */
            r->in_message = false;
            (void)node_send_part_abandon(e->node, now, peer);
        }
        return true;
    }
    hold(r, &m.msg);
    return true;
}

static void pump_peer(echo_t *e, uint64_t now, uint8_t peer)
{
    echo_relay_t *r = &e->relay[peer];
    for (;;) {
        if (r->held) {
            if (!forward(e, now, peer, r)) {
                return; /* no room: this peer is not read until there is */
            }
            r->held = false;
        }
        if (!take_piece(e, now, peer, r)) {
            return;
        }
    }
}

void echo_pump(echo_t *e, uint64_t now)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        echo_probe_t *p = &e->probe[i];
        if (p->active && p->sent == 0) {
            send_probe(e, now, i);
        }
        pump_peer(e, now, i);
    }
}

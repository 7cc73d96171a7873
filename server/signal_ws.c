/* `zq signal`'s WebSocket clients (after the upgrade, see signal_upgrade.c): reading their bytes
 * into the codec of signal/ws.h, writing its output as the socket takes it, and closing them
 * in order (close frame, our FIN, the peer's FIN). What a message means is the router's
 * business (signal_bridge.c); a close decided inside a router call waits for it to return
 * (wsc_doom, wsc_reap). */
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "server/signal_server.h"

#define READS_PER_WAKE 4

/* ---- WebSocket clients: output --------------------------------------------------------------- */

void wsc_watch(signal_server_t *srv, wsc_t *s, uint32_t events)
{
    size_t index = (size_t)(s - srv->ws);
    signal_ep_set(srv, EPOLL_CTL_MOD, s->fd, signal_ep_tag(TAG_WS, index), events);
}

static void wsc_want_out(signal_server_t *srv, wsc_t *s, bool on)
{
    if (s->want_out != on) {
        s->want_out = on;
        /* Input stays watched: a close or a pong may come while our output waits. */
        wsc_watch(srv, s, on ? EPOLLIN | EPOLLOUT : EPOLLIN);
    }
}

void wsc_doom(signal_server_t *srv, wsc_t *s, uint16_t code, const char *why)
{
    if (s->state == WSC_OPEN && !s->doomed) {
        s->doomed = true;
        s->doom_code = code;
        s->doom_why = why;
        srv->doomed++;
    }
}

/* Writes what the socket takes. Once a closing client's output is out, our FIN follows. */
void wsc_flush(signal_server_t *srv, wsc_t *s)
{
    const uint8_t *out;
    size_t n;
    while (ws_pending_output(&s->ws, &out, &n)) {
        size_t sent = 0;
        zq_err_t err = zq_port_tcp_send(s->fd, out, n, &sent);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            wsc_want_out(srv, s, true);
            return;
        }
        if (err != ZQ_OK) {
            wsc_doom(srv, s, 0, "connection lost");
            s->shut = true; /* nothing more can be written */
            return;
        }
        ws_output_consumed(&s->ws, sent);
    }
    wsc_want_out(srv, s, false);
    if (s->state == WSC_CLOSING && !s->shut) {
        (void)shutdown(s->fd, SHUT_WR);
        s->shut = true;
    }
}

/* ---- WebSocket clients: closing -------------------------------------------------------------- */

static void wsc_undoom(signal_server_t *srv, wsc_t *s)
{
    if (s->doomed) {
        s->doomed = false;
        srv->doomed--;
    }
}

void wsc_free(signal_server_t *srv, wsc_t *s, const char *why)
{
    wsc_undoom(srv, s);
    s->state = WSC_FREE; /* first: the router's peer_left must not be sent to it */
    wsc_leave(srv, s, why);
    zq_port_tcp_close(s->fd);
    s->fd = -1;
}

/* The WebSocket is closed or closing (our close frame queued, or the answer to the peer's):
 * write it out, then FIN, then wait for the peer's FIN. */
static void wsc_enter_closing(signal_server_t *srv, wsc_t *s, uint64_t now, const char *why)
{
    wsc_undoom(srv, s);
    s->state = WSC_CLOSING;
    s->deadline = now + LINGER_MS;
    wsc_leave(srv, s, why);
    wsc_flush(srv, s); /* a failure now ends the linger early: the socket reports the error */
}

void wsc_close(signal_server_t *srv, wsc_t *s, uint64_t now, uint16_t code, const char *why)
{
    (void)ws_close(&s->ws, code, why); /* §7.1.2; ZQ_ERR_STATE if one is already queued */
    wsc_enter_closing(srv, s, now, why);
}

/* Closes every client marked by wsc_doom(); each close may mark others (their peer_left did not
 * fit), so this runs until none is left. */
void wsc_reap(signal_server_t *srv, uint64_t now)
{
    while (srv->doomed > 0) {
        for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
            wsc_t *s = &srv->ws[i];
            if (!s->doomed) {
                continue;
            }
            wsc_undoom(srv, s);
            if (s->doom_code == 0) {
                wsc_free(srv, s, s->doom_why);
            } else {
                wsc_close(srv, s, now, s->doom_code, s->doom_why);
            }
        }
    }
}

/* ---- WebSocket clients: input ---------------------------------------------------------------- */

/* Why a WebSocket closed, for the leave line: the peer's code, or the rule it broke. */
static const char *close_why(const ws_event_t *ev, char *buf, size_t cap)
{
    if (ev->remote) {
        (void)snprintf(buf, cap, "closed by the client (%u)", (unsigned)ev->code);
        return buf;
    }
    switch (ev->code) {
    case WS_CLOSE_TOO_BIG:
        return "message too big (1009)";
    case WS_CLOSE_INVALID_DATA:
        return "text that is not UTF-8 (1007)";
    default:
        return "WebSocket protocol error (1002)";
    }
}

static void on_closed_event(signal_server_t *srv, wsc_t *s, uint64_t now, const ws_event_t *ev)
{
    char buf[48];
    if (ev->code == WS_CLOSE_ABNORMAL && !ev->remote) {
        wsc_free(srv, s, "connection lost"); /* TCP ended without a close frame (§7.1.5) */
    } else {
        wsc_enter_closing(srv, s, now, close_why(ev, buf, sizeof buf));
    }
}

static void wsc_events(signal_server_t *srv, wsc_t *s, uint64_t now)
{
    ws_event_t ev;
    while (s->state == WSC_OPEN && !s->doomed && ws_poll_event(&s->ws, &ev)) {
        if (ev.type == WS_EVENT_MESSAGE) {
            wsc_on_message(srv, s, now, &ev);
        } else if (ev.type == WS_EVENT_PONG) {
            sig_router_touch(&srv->router, now, (unsigned)s->client);
        } else {
            on_closed_event(srv, s, now, &ev);
        }
    }
}

void wsc_feed(signal_server_t *srv, wsc_t *s, uint64_t now, const uint8_t *data, size_t len)
{
    while (len > 0 && s->state == WSC_OPEN && !s->doomed) {
        size_t used = 0;
        if (ws_feed(&s->ws, data, len, &used) != ZQ_OK) {
            return;
        }
        data += used;
        len -= used;
        wsc_events(srv, s, now);
    }
}

static void wsc_readable(signal_server_t *srv, wsc_t *s, uint64_t now)
{
    uint8_t buf[4096];
    for (int i = 0; i < READS_PER_WAKE && s->state != WSC_FREE && !s->doomed; i++) {
        size_t len = 0;
        zq_err_t err = zq_port_tcp_recv(s->fd, buf, sizeof buf, &len);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return;
        }
        if (err != ZQ_OK && s->state == WSC_OPEN) {
            ws_transport_closed(&s->ws);
            wsc_events(srv, s, now);
            if (s->state == WSC_OPEN && !s->doomed) {
                wsc_free(srv, s, "connection lost"); /* no event came: gone all the same */
            }
        } else if (err != ZQ_OK) {
            wsc_free(srv, s, "closed"); /* the peer's FIN after ours: done */
        } else if (s->state == WSC_OPEN) {
            wsc_feed(srv, s, now, buf, len);
        } /* CLOSING: whatever the peer still sends is read and dropped */
    }
}

void wsc_ready(signal_server_t *srv, size_t index, uint32_t events, uint64_t now)
{
    wsc_t *s = &srv->ws[index];
    if (s->state == WSC_FREE) {
        return; /* closed earlier in this batch */
    }
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        wsc_readable(srv, s, now);
    }
    if (s->state != WSC_FREE && !s->doomed) {
        wsc_flush(srv, s); /* the socket may have room now; a pong or frames may be waiting */
    }
}

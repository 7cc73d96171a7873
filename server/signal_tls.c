/* `zq signal --tls-cert`: TLS in front of the server (https:// and wss://). Each TLS
 * connection the listener gives is a front: its TLS session (stack/tls, sans-IO) between the
 * client's socket and one end of a socket pair, whose other end goes to the HTTP code as if it
 * were a plain connection once the handshake is done. So HTTP, the upgrade and the WebSocket
 * clients stay as they are, and only this file knows TLS.
 *
 * A front pumps both ways as far as each side takes: ciphertext in, plaintext to the server
 * (held in `up` while the pair is full); plaintext from the server, one record at a time
 * while the TLS output has room, ciphertext out. Ends travel too: the client's FIN or
 * close_notify becomes our FIN on the pair, and the server's end of the pair becomes a
 * close_notify (RFC 5246 §7.2.1) and our FIN to the client. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/signal_server.h"

#define TLS_HANDSHAKE_MS 10000u /* a client that has not finished its handshake by then goes */

/* ---- Slots and epoll ------------------------------------------------------------------------ */

static size_t front_index(const signal_server_t *srv, const tls_front_t *f)
{
    return (size_t)(f - srv->tls_front);
}

static tls_front_t *free_front(signal_server_t *srv)
{
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_TLS; i++) {
        if (srv->tls_front[i].state == TLSF_FREE) {
            return &srv->tls_front[i];
        }
    }
    return NULL;
}

/* Level-triggered, as the rest of the server: and since epoll reports a hang-up whatever is
 * asked, a side with nothing to wait for leaves the set until it has. */
static void watch(signal_server_t *srv, tls_front_t *f, bool net, uint32_t events)
{
    uint32_t *watched = net ? &f->net_events : &f->plain_events;
    if (*watched == events) {
        return;
    }
    int op = *watched == 0 ? EPOLL_CTL_ADD : events == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
    *watched = events;
    signal_ep_set(srv, op, net ? f->net : f->plain,
                  signal_ep_tag(net ? TAG_TLS_NET : TAG_TLS_PLAIN, front_index(srv, f)), events);
}

static void front_free(tls_front_t *f)
{
    if (f->net >= 0) {
        zq_port_tcp_close(f->net); /* closing takes it out of the epoll set */
    }
    if (f->plain >= 0) {
        (void)close(f->plain);
    }
    tls_session_free(&f->tls);
    memset(f, 0, sizeof *f);
    f->state = TLSF_FREE;
    f->net = -1;
    f->plain = -1;
}

static void front_fail(tls_front_t *f, const char *what, const char *why)
{
    char peer[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(&f->peer, peer, sizeof peer);
    signal_say("%s: %s: %s", peer, what, why);
    front_free(f);
}

/* ---- Bytes ---------------------------------------------------------------------------------- */

/* Ciphertext from the client, as much as the session has room for. */
static void net_in(tls_front_t *f)
{
    uint8_t buf[TLS_IO_BUF];
    size_t room;
    while (!f->net_eof && (room = tls_session_input_room(&f->tls)) > 0) {
        size_t got = 0;
        zq_err_t err = zq_port_tcp_recv(f->net, buf, room < sizeof buf ? room : sizeof buf, &got);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return;
        }
        if (err != ZQ_OK) {
            f->net_eof = true; /* the client's FIN, or a reset */
            return;
        }
        (void)tls_session_feed(&f->tls, buf, got); /* all of it: got <= room */
    }
}

/* Ciphertext to the client, as much as its socket takes. */
static void net_out(tls_front_t *f)
{
    const uint8_t *out;
    size_t len;
    while (!f->net_dead && tls_session_output(&f->tls, &out, &len)) {
        size_t sent = 0;
        zq_err_t err = zq_port_tcp_send(f->net, out, len, &sent);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return;
        }
        if (err != ZQ_OK) {
            f->net_dead = true; /* nothing more reaches the client */
            return;
        }
        tls_session_output_consumed(&f->tls, sent);
    }
}

/* The client's plaintext to the server's end of the pair. @return false if the session
 * failed (the front is freed). */
static bool to_plain(tls_front_t *f)
{
    for (;;) {
        if (f->up_len == 0 && !f->client_done) {
            size_t got = 0;
            zq_err_t err = tls_session_read(&f->tls, f->up, sizeof f->up, &got);
            if (err == ZQ_ERR_CLOSED) {
                f->client_done = true; /* its close_notify */
            } else if (err == ZQ_ERR_CRYPTO) {
                front_fail(f, "TLS record refused", f->tls.why);
                return false;
            } else if (err == ZQ_OK) {
                f->up_len = got;
                f->up_off = 0;
            }
        }
        if (f->up_len == 0 || f->plain_eof) {
            f->up_len = 0; /* the server has gone: what the client still sends is dropped */
            return true;
        }
        size_t sent = 0;
        zq_err_t err = zq_port_tcp_send(f->plain, f->up + f->up_off, f->up_len, &sent);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return true;
        }
        if (err != ZQ_OK) {
            f->plain_eof = true;
            continue;
        }
        f->up_off += sent;
        f->up_len -= sent;
    }
}

/* The server's plaintext from the pair into records, one whole record at a time. */
static bool from_plain(tls_front_t *f)
{
    uint8_t buf[TLS_IO_BUF];
    size_t room;
    while (!f->plain_eof && (room = tls_session_write_room(&f->tls)) > 0) {
        size_t got = 0;
        zq_err_t err = zq_port_tcp_recv(f->plain, buf, room < sizeof buf ? room : sizeof buf,
                                        &got);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return true;
        }
        if (err != ZQ_OK) {
            f->plain_eof = true; /* the server closed or shut down its end */
            return true;
        }
        size_t taken = 0;
        if (tls_session_write(&f->tls, buf, got, &taken) != ZQ_OK || taken != got) {
            front_fail(f, "TLS write failed", f->tls.why);
            return false;
        }
        net_out(f);
    }
    return true;
}

/* ---- The handshake, and the hand-over ------------------------------------------------------- */

/* The session is up: a socket pair, one end the server's as a fresh HTTP connection. */
static bool open_plain(signal_server_t *srv, tls_front_t *f, uint64_t now)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0) {
        front_fail(f, "no socket pair", strerror(errno));
        return false;
    }
    f->state = TLSF_OPEN;
    f->plain = pair[0];
    watch(srv, f, false, EPOLLIN);
    signal_http_accept(srv, pair[1], &f->peer, now);
    return true;
}

static bool handshake_step(signal_server_t *srv, tls_front_t *f, uint64_t now)
{
    const char *why = NULL;
    zq_err_t err = tls_session_handshake(&f->tls, &why);
    if (err == ZQ_OK) {
        return open_plain(srv, f, now);
    }
    if (err != ZQ_ERR_WOULD_BLOCK) {
        net_out(f); /* the alert mbedTLS queued says why to the client too */
        front_fail(f, "TLS handshake failed", why);
        return false;
    }
    if (f->net_eof) {
        front_fail(f, "TLS handshake not finished", "the client closed the connection");
        return false;
    }
    return true;
}

/* A server flight larger than the output (a 4 KiB chain and a ServerKeyExchange) comes out in
 * parts: once the socket took one, mbedTLS writes the next, with nothing from the client to
 * wake us. @return false if the front was freed. */
static bool handshake_pump(signal_server_t *srv, tls_front_t *f, uint64_t now)
{
    const uint8_t *out;
    size_t len;
    for (;;) {
        if (!handshake_step(srv, f, now)) {
            return false;
        }
        bool wrote = tls_session_output(&f->tls, &out, &len);
        net_out(f);
        if (f->state != TLSF_HANDSHAKE || !wrote || f->net_dead ||
            tls_session_output(&f->tls, &out, &len)) {
            return true; /* done, or nothing new, or the socket is full: EPOLLOUT comes back */
        }
    }
}

/* ---- Ends and interest ---------------------------------------------------------------------- */

/* Passes each side's end to the other, frees the front once both are over, and watches what
 * can move next. */
static void settle(signal_server_t *srv, tls_front_t *f, uint64_t now)
{
    if (f->net_eof) {
        f->client_done = true;
    }
    if (f->client_done && f->up_len == 0 && !f->plain_shut && f->plain >= 0) {
        (void)shutdown(f->plain, SHUT_WR); /* the server reads the client's end */
        f->plain_shut = true;
    }
    if (f->plain_eof && !f->notified) {
        tls_session_close_notify(&f->tls);
        f->notified = true;
        net_out(f);
    }
    const uint8_t *out;
    size_t out_len;
    bool out_pending = !f->net_dead && tls_session_output(&f->tls, &out, &out_len);
    if (f->notified && !out_pending && !f->net_shut) {
        (void)shutdown(f->net, SHUT_WR);
        f->net_shut = true;
        f->state = TLSF_CLOSING;
        f->deadline = now + LINGER_MS; /* then the client's FIN, or we close anyway */
    }
    if ((f->net_shut || f->net_dead) && (f->net_eof || f->net_dead) && f->plain_shut) {
        front_free(f);
        return;
    }
    bool reading = !f->net_eof && tls_session_input_room(&f->tls) > 0;
    watch(srv, f, true, (reading ? EPOLLIN : 0) | (out_pending ? EPOLLOUT : 0));
    if (f->plain >= 0) {
        bool server_talks = !f->plain_eof && tls_session_write_room(&f->tls) > 0;
        watch(srv, f, false, (server_talks ? EPOLLIN : 0) | (f->up_len > 0 ? EPOLLOUT : 0));
    }
}

static void pump(signal_server_t *srv, tls_front_t *f, uint64_t now)
{
    net_in(f);
    if (f->state == TLSF_HANDSHAKE && !handshake_pump(srv, f, now)) {
        return;
    }
    if (f->state != TLSF_HANDSHAKE && (!to_plain(f) || !from_plain(f))) {
        return;
    }
    net_out(f);
    settle(srv, f, now);
}

/* ---- What the server calls (signal_server.h) ------------------------------------------------ */

void signal_tls_accept(signal_server_t *srv, zq_socket_t fd, const zq_addr_t *peer,
                       uint64_t now)
{
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(peer, text, sizeof text);
    tls_front_t *f = free_front(srv);
    if (f == NULL) {
        signal_say("%s: refused: all %d TLS connections in use", text, ZQ_SIGNAL_MAX_TLS);
        zq_port_tcp_close(fd);
        return;
    }
    if (tls_server_start(&f->tls, srv->tls) != ZQ_OK) {
        signal_say("%s: refused: the TLS arena is full", text);
        zq_port_tcp_close(fd);
        return;
    }
    f->state = TLSF_HANDSHAKE;
    f->net = fd;
    f->plain = -1;
    f->peer = *peer;
    f->deadline = now + TLS_HANDSHAKE_MS;
    watch(srv, f, true, EPOLLIN);
    pump(srv, f, now); /* the ClientHello has usually come with the connection */
}

void signal_tls_ready(signal_server_t *srv, size_t index, uint64_t now)
{
    tls_front_t *f = &srv->tls_front[index];
    if (f->state != TLSF_FREE) {
        pump(srv, f, now);
    }
}

uint64_t signal_tls_next_deadline(const signal_server_t *srv, uint64_t t)
{
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_TLS; i++) {
        const tls_front_t *f = &srv->tls_front[i];
        if (f->state == TLSF_HANDSHAKE || f->state == TLSF_CLOSING) {
            t = f->deadline < t ? f->deadline : t;
        }
    }
    return t;
}

void signal_tls_expire(signal_server_t *srv, uint64_t now)
{
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_TLS; i++) {
        tls_front_t *f = &srv->tls_front[i];
        if (f->state == TLSF_HANDSHAKE && f->deadline <= now) {
            char why[48];
            (void)snprintf(why, sizeof why, "no handshake within %u s", TLS_HANDSHAKE_MS / 1000u);
            front_fail(f, "TLS handshake not finished", why);
        } else if (f->state == TLSF_CLOSING && f->deadline <= now) {
            front_free(f); /* our close_notify and FIN went; its FIN did not come */
        }
    }
}

void signal_tls_shutdown_all(signal_server_t *srv, uint64_t now)
{
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_TLS; i++) {
        tls_front_t *f = &srv->tls_front[i];
        if (f->state == TLSF_OPEN || f->state == TLSF_CLOSING) {
            pump(srv, f, now); /* the 1001 close frames, then close_notify, as the socket takes */
        }
        if (f->state != TLSF_FREE) {
            front_free(f);
        }
    }
}

/* `zq signal`'s HTTP answers going out: a head in the connection's buffer, then the body a
 * bufferful at a time (a static file, or an /api list), as fast as the socket takes it; then
 * our FIN and a linger for the peer's. Static buffers only: nothing holds a whole answer. */
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/signal_server.h"

#define SEND_STALL_MS 30000u /* an HTTP client that stops reading for 30 s is dropped */

void http_conn_close(http_conn_t *h)
{
    if (h->file >= 0) {
        (void)close(h->file);
        h->file = -1;
    }
    zq_port_tcp_close(h->fd); /* also leaves the epoll set */
    h->fd = -1;
    h->listing = false;
    h->state = HTTP_FREE;
}

void http_conn_watch(signal_server_t *srv, http_conn_t *h, int op, uint32_t events)
{
    size_t index = (size_t)(h - srv->http);
    signal_ep_set(srv, op, h->fd, signal_ep_tag(TAG_HTTP, index), events);
}

/* Our answer is out: FIN, then read and drop until the peer's FIN, so the kernel does not
 * answer unread request bytes with a reset that could destroy the answer in flight. */
static void http_linger(signal_server_t *srv, http_conn_t *h, uint64_t now)
{
    (void)shutdown(h->fd, SHUT_WR);
    h->state = HTTP_LINGER;
    h->deadline = now + LINGER_MS;
    http_conn_watch(srv, h, EPOLL_CTL_MOD, EPOLLIN);
}

static zq_err_t refill_file(http_conn_t *h)
{
    size_t want = sizeof h->buf - h->len;
    if (want > h->file_left) {
        want = (size_t)h->file_left;
    }
    ssize_t n = read(h->file, h->buf + h->len, want);
    if (n <= 0) {
        return ZQ_ERR_IO; /* shorter than its Content-Length said: the answer cannot finish */
    }
    h->len += (size_t)n;
    h->file_left -= (uint64_t)n;
    if (h->file_left == 0) {
        (void)close(h->file);
        h->file = -1;
    }
    return ZQ_OK;
}

static zq_err_t refill(const signal_server_t *srv, http_conn_t *h)
{
    h->len = 0;
    h->sent = 0;
    if (h->file >= 0) {
        return refill_file(h);
    }
    return h->listing ? api_list_refill(srv, h) : ZQ_OK;
}

void http_conn_pump(signal_server_t *srv, http_conn_t *h, uint64_t now)
{
    for (;;) {
        if (h->sent == h->len && refill(srv, h) != ZQ_OK) {
            http_conn_close(h);
            return;
        }
        if (h->len == 0) {
            http_linger(srv, h, now);
            return;
        }
        size_t sent = 0;
        zq_err_t err = zq_port_tcp_send(h->fd, (const uint8_t *)h->buf + h->sent,
                                        h->len - h->sent, &sent);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            /* Output only: more request bytes wait until the answer is out. */
            http_conn_watch(srv, h, EPOLL_CTL_MOD, EPOLLOUT);
            return;
        }
        if (err != ZQ_OK) {
            http_conn_close(h);
            return;
        }
        h->sent += sent;
        h->deadline = now + SEND_STALL_MS;
    }
}

void http_conn_send(signal_server_t *srv, http_conn_t *h, size_t len, uint64_t now)
{
    h->state = HTTP_SEND;
    h->len = len;
    h->sent = 0;
    h->deadline = now + SEND_STALL_MS;
    http_conn_pump(srv, h, now);
}

void http_conn_reply(signal_server_t *srv, http_conn_t *h, uint64_t now, int status,
                     const char *extra_headers)
{
    char body[64];
    int n = snprintf(body, sizeof body, "%d %s\n", status, http_reason(status));
    zq_writer_t w = zq_writer((uint8_t *)h->buf, sizeof h->buf);
    (void)http_response(&w, status, "text/plain; charset=utf-8", body, (size_t)n,
                        extra_headers);
    http_conn_send(srv, h, w.len, now);
}

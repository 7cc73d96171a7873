/* `zq signal`'s HTTP connections coming in: accepting them into a slot (or a 503 when every
 * slot is taken), reading a request head into the slot's buffer, and routing the parsed
 * request to what answers it. Every connection starts here, WebSocket clients included. */
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "server/signal_server.h"

#define HEAD_TIMEOUT_MS 10000u /* a whole request head within 10 s of connecting */
#define ACCEPTS_PER_WAKE 64

bool http_request_method_is(const http_request_t *req, const char *m)
{
    return req->method_len == strlen(m) && memcmp(req->method, m, req->method_len) == 0;
}

/* What each request gets: the WebSocket, an /api list, or a file. */
static void route(signal_server_t *srv, http_conn_t *h, const http_request_t *req, uint64_t now)
{
    bool wants_ws = http_headers_have_token(req->headers, req->n_headers, "Upgrade", "websocket");
    /* "/" too: ZeroQ's default URL is ws://localhost:8080, path "/" (docs/zeroq-wire.md §1). */
    if (wants_ws && (http_path_is(req, "/ws") || http_path_is(req, "/"))) {
        signal_try_upgrade(srv, h, req, now);
    } else if (http_path_is(req, "/api/topics")) {
        signal_serve_api(srv, h, req, SIG_NAME_TOPIC, now);
    } else if (http_path_is(req, "/api/queues")) {
        signal_serve_api(srv, h, req, SIG_NAME_QUEUE, now);
    } else {
        signal_serve_file(srv, h, req, now);
    }
}

/* ---- Reading a request ----------------------------------------------------------------------- */

static void http_parse(signal_server_t *srv, http_conn_t *h, uint64_t now)
{
    http_request_t req;
    zq_err_t err = http_parse_request(h->buf, h->len, &req);
    if (err == ZQ_ERR_NEED_MORE && h->len == sizeof h->buf) {
        err = ZQ_ERR_TOO_LONG;
    }
    switch (err) {
    case ZQ_ERR_NEED_MORE:
        return;
    case ZQ_OK:
        route(srv, h, &req, now);
        return;
    case ZQ_ERR_TOO_LONG:
        http_conn_reply(srv, h, now, 431, NULL);
        return;
    case ZQ_ERR_UNSUPPORTED:
        http_conn_reply(srv, h, now, 505, NULL);
        return;
    default:
        http_conn_reply(srv, h, now, 400, NULL);
        return;
    }
}

static void http_readable(signal_server_t *srv, http_conn_t *h, uint64_t now)
{
    uint8_t scratch[1024];
    bool reading_head = h->state == HTTP_HEAD;
    uint8_t *into = reading_head ? (uint8_t *)h->buf + h->len : scratch;
    size_t cap = reading_head ? sizeof h->buf - h->len : sizeof scratch;
    size_t len = 0;
    zq_err_t err = zq_port_tcp_recv(h->fd, into, cap, &len);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        return;
    }
    if (err != ZQ_OK) {
        http_conn_close(h); /* the peer went, or its FIN came after our answer */
        return;
    }
    if (reading_head) {
        h->len += len;
        http_parse(srv, h, now);
    }
}

void http_conn_ready(signal_server_t *srv, size_t index, uint32_t events, uint64_t now)
{
    http_conn_t *h = &srv->http[index];
    if (h->state == HTTP_SEND) {
        http_conn_pump(srv, h, now); /* EPOLLOUT, or an error the next send reports */
    } else if (h->state != HTTP_FREE && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
        http_readable(srv, h, now);
    }
}

/* ---- Accepting ------------------------------------------------------------------------------- */

static http_conn_t *free_http(signal_server_t *srv)
{
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        if (srv->http[i].state == HTTP_FREE) {
            return &srv->http[i];
        }
    }
    return NULL;
}

/* Every HTTP slot is taken: a 503 written at once (a fresh socket takes it) and closed, so the
 * client hears why rather than hanging in the kernel's backlog. */
static void refuse_busy(zq_socket_t fd)
{
    uint8_t buf[256];
    zq_writer_t w = zq_writer(buf, sizeof buf);
    static const char body[] = "503 Service Unavailable\n";
    (void)http_response(&w, 503, "text/plain; charset=utf-8", body, sizeof body - 1,
                        "Retry-After: 5\r\n");
    size_t sent;
    (void)zq_port_tcp_send(fd, buf, w.len, &sent);
    (void)shutdown(fd, SHUT_WR);
    /* Closing with unread request bytes would send a reset that can destroy the 503 on its
     * way: read what has already come (a few reads at most, never waiting). */
    for (int i = 0; i < 4 && zq_port_tcp_recv(fd, buf, sizeof buf, &sent) == ZQ_OK; i++) {
    }
    zq_port_tcp_close(fd);
}

void signal_http_accept(signal_server_t *srv, zq_socket_t fd, const zq_addr_t *peer,
                        uint64_t now)
{
    http_conn_t *h = free_http(srv);
    if (h == NULL) {
        refuse_busy(fd);
        return;
    }
    h->state = HTTP_HEAD;
    h->fd = fd;
    h->peer = *peer;
    h->deadline = now + HEAD_TIMEOUT_MS;
    h->len = 0;
    h->sent = 0;
    h->file = -1;
    h->listing = false;
    http_conn_watch(srv, h, EPOLL_CTL_ADD, EPOLLIN);
    /* The request has usually arrived with the connection: answered now, the slot is free
     * again before the next accept, and a burst of clients does not run into the 503. */
    http_readable(srv, h, now);
}

void signal_accept_all(signal_server_t *srv, uint64_t now)
{
    for (int i = 0; i < ACCEPTS_PER_WAKE; i++) {
        zq_socket_t fd;
        zq_addr_t peer;
        if (zq_port_tcp_accept(srv->listener, &fd, &peer) != ZQ_OK) {
            return;
        }
        if (srv->tls != NULL) {
            signal_tls_accept(srv, fd, &peer, now);
        } else {
            signal_http_accept(srv, fd, &peer, now);
        }
    }
}

/* `zq signal` (see cmd_signal.h): the server's connections, HTTP answers, WebSocket glue to the
 * room router, timers, and the command line. */
#include "port/posix/cmd_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "port/posix/cli.h"
#include "port/posix/loop.h"
#include "port/zq_port.h"
#include "signal/http.h"
#include "signal/json.h"
#include "signal/router.h"
#include "signal/ws.h"
#include "zq/log.h"
#include "zq/time.h"

#define SIGNAL_DEFAULT_PORT 8080
#define DEFAULT_IDLE_S 45
#define HEAD_TIMEOUT_MS 10000u  /* a whole request head within 10 s of connecting */
#define SEND_STALL_MS 30000u    /* an HTTP client that stops reading for 30 s is dropped */
#define LINGER_MS 2000u         /* after our last byte, wait this long for the peer's FIN */
#define MAX_ORIGINS 16
#define KEY_MAX 1024
#define EVENTS_PER_WAKE 64
#define ACCEPTS_PER_WAKE 64
#define READS_PER_WAKE 4
#define NAME_JSON_MAX (ZQ_SIG_NAME_MAX * 6 + 8) /* every byte as \u00XX, quotes, brackets */

/* ---- State ----------------------------------------------------------------------------------- */

typedef enum { HTTP_FREE, HTTP_HEAD, HTTP_SEND, HTTP_LINGER } http_state_t;

/* A connection still speaking HTTP: reading its request head, sending the answer, or waiting
 * for the peer's FIN after it (so a close does not reset what is still in flight). */
typedef struct {
    http_state_t state;
    int fd;
    uint64_t deadline;
    zq_addr_t peer;
    size_t len;  /* HEAD: request bytes in buf; SEND: answer bytes in buf */
    size_t sent; /* SEND: of those, written */
    int file;    /* static file whose bytes follow, or -1 */
    uint64_t file_left;
    const sig_name_set_t *names; /* /api list whose elements follow, or NULL */
    uint16_t name_next, name_count;
    bool list_begun, list_done;
    char buf[ZQ_HTTP_MAX_REQUEST];
} http_conn_t;

typedef enum { WSC_FREE, WSC_OPEN, WSC_CLOSING } wsc_state_t;

/* A WebSocket client. CLOSING: the router has forgotten it; our close frame drains, then our
 * FIN, then we wait (LINGER_MS at most) for the peer's. */
typedef struct {
    wsc_state_t state;
    int fd;
    bool want_out; /* EPOLLOUT registered */
    bool shut;     /* our FIN is out */
    bool doomed;   /* to be closed once the router call in progress returns */
    uint16_t doom_code;
    const char *doom_why;
    int client; /* the router's index, -1 once it forgot the client */
    uint64_t deadline;
    zq_addr_t peer;
    char id[SIG_ID_LEN + 1];
    char room[ZQ_SIG_ROOM_MAX + 1]; /* the room last logged */
    ws_conn_t ws;
} wsc_t;

typedef struct {
    zq_loop_t *loop;
    int epfd;
    zq_socket_t listener;
    int web_dir; /* -1: no static files */
    const char *const *origins;
    size_t origin_count;
    uint64_t idle_ms;
    uint64_t next_ping;
    wsc_t *attaching; /* the client sig_router_connect() is welcoming */
    unsigned doomed;
    wsc_t *by_client[ZQ_SIG_MAX_CLIENTS];
    sig_router_t router;
    http_conn_t http[ZQ_SIGNAL_MAX_HTTP];
    wsc_t ws[ZQ_SIG_MAX_CLIENTS];
} signal_server_t;

/* epoll tags: what a ready fd is, and its index. */
enum { TAG_LISTENER = 1, TAG_HTTP = 2, TAG_WS = 3 };

static uint64_t tag(uint32_t kind, size_t index)
{
    return (uint64_t)kind << 32 | (uint32_t)index;
}

/* ---- Log lines ------------------------------------------------------------------------------- */

ZQ_CLI_PRINTF(1, 2) static void say(const char *fmt, ...)
{
    /* One fputs per line: stderr is unbuffered, and lines from several writers must not mix. */
    char line[512];
    int n = snprintf(line, sizeof line, "zq signal: ");
    va_list args;
    va_start(args, fmt);
    (void)vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, args);
    va_end(args);
    size_t len = strlen(line);
    line[len] = '\n';
    line[len + 1] = '\0';
    (void)fputs(line, stderr);
}

/* A client's room, safe on one log line (control characters become '?'). */
static const char *printable(const char *text, char *out, size_t cap)
{
    size_t i = 0;
    for (; text[i] != '\0' && i + 1 < cap; i++) {
        bool control = (uint8_t)text[i] < 0x20 || text[i] == 0x7f;
        out[i] = control ? '?' : text[i];
    }
    out[i] = '\0';
    return out;
}

/* ---- epoll ----------------------------------------------------------------------------------- */

/* Level-triggered: a ready fd that is not fully served this turn is reported again. */
static void ep_set(signal_server_t *srv, int op, int fd, uint64_t data, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.u64 = data};
    if (epoll_ctl(srv->epfd, op, fd, &ev) != 0) {
        ZQ_LOGW("signal", "epoll_ctl on fd %d: %s", fd, strerror(errno));
    }
}

/* ---- WebSocket clients: output --------------------------------------------------------------- */

static size_t wsc_index(const signal_server_t *srv, const wsc_t *s)
{
    return (size_t)(s - srv->ws);
}

static void wsc_want_out(signal_server_t *srv, wsc_t *s, bool on)
{
    if (s->want_out != on) {
        s->want_out = on;
        /* Input stays watched: a close or a pong may come while our output waits. */
        uint32_t events = on ? EPOLLIN | EPOLLOUT : EPOLLIN;
        ep_set(srv, EPOLL_CTL_MOD, s->fd, tag(TAG_WS, wsc_index(srv, s)), events);
    }
}

/* Marks @p s to be closed after the router call in progress: closing now would re-enter the
 * router (peer_left) from inside its own send callback. @p code 0: drop TCP without a close
 * frame (the peer is gone or reads nothing). */
static void doom(signal_server_t *srv, wsc_t *s, uint16_t code, const char *why)
{
    if (s->state == WSC_OPEN && !s->doomed) {
        s->doomed = true;
        s->doom_code = code;
        s->doom_why = why;
        srv->doomed++;
    }
}

/* Writes what the socket takes. Once a closing client's output is out, our FIN follows. */
static void wsc_flush(signal_server_t *srv, wsc_t *s)
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
            doom(srv, s, 0, "connection lost");
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

/* The router's output: one text frame for @p client. */
static void router_send(void *ctx, unsigned client, const char *frame, size_t len)
{
    signal_server_t *srv = ctx;
    wsc_t *s = client < ZQ_SIG_MAX_CLIENTS ? srv->by_client[client] : NULL;
    if (s == NULL) {
        s = srv->attaching; /* the welcome, sent before connect() returns the index */
    }
    if (s == NULL || s->state != WSC_OPEN || s->doomed) {
        return;
    }
    zq_err_t err = ws_send_text(&s->ws, frame, len);
    if (err == ZQ_ERR_WOULD_BLOCK) {
        wsc_flush(srv, s);
        err = s->doomed ? ZQ_ERR_CLOSED : ws_send_text(&s->ws, frame, len);
    }
    if (err != ZQ_OK) {
        /* 64 KiB of frames unread: the client stopped reading. Holding more for it is what
         * static buffers cannot do, and dropping frames silently would break its session. */
        doom(srv, s, 0, "too slow: its output buffer is full");
        return;
    }
    wsc_flush(srv, s);
}

/* ---- WebSocket clients: closing -------------------------------------------------------------- */

static void wsc_undoom(signal_server_t *srv, wsc_t *s)
{
    if (s->doomed) {
        s->doomed = false;
        srv->doomed--;
    }
}

/* The router forgets @p s: its room hears peer_left. */
static void wsc_leave(signal_server_t *srv, wsc_t *s, const char *why)
{
    if (s->client < 0) {
        return;
    }
    unsigned client = (unsigned)s->client;
    s->client = -1;
    srv->by_client[client] = NULL;
    say("%s left: %s", s->id, why);
    sig_router_disconnect(&srv->router, client);
}

static void wsc_free(signal_server_t *srv, wsc_t *s, const char *why)
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

static void wsc_close(signal_server_t *srv, wsc_t *s, uint64_t now, uint16_t code,
                      const char *why)
{
    (void)ws_close(&s->ws, code, why); /* §7.1.2; ZQ_ERR_STATE if one is already queued */
    wsc_enter_closing(srv, s, now, why);
}

/* Closes every client marked by doom(); each close may mark others (their peer_left did not
 * fit), so this runs until none is left. */
static void reap(signal_server_t *srv, uint64_t now)
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

static void log_join(signal_server_t *srv, wsc_t *s, uint32_t refused_before)
{
    const sig_client_slot_t *c = &srv->router.clients[s->client];
    char room[ZQ_SIG_ROOM_MAX + 1];
    if (srv->router.refused_joins != refused_before) {
        say("%s: join refused (no valid room token)", s->id);
    } else if (c->joined && strcmp(c->room, s->room) != 0) {
        memcpy(s->room, c->room, sizeof s->room);
        say("%s joined room \"%s\"", s->id, printable(c->room, room, sizeof room));
    }
}

static void on_message(signal_server_t *srv, wsc_t *s, uint64_t now, const ws_event_t *ev)
{
    if (!ev->text) {
        doom(srv, s, WS_CLOSE_UNSUPPORTED_DATA, "binary message: signalling is JSON text");
        return;
    }
    uint32_t refused = srv->router.refused_joins;
    sig_router_frame(&srv->router, now, (unsigned)s->client, (const char *)ev->data, ev->len);
    if (s->client >= 0) {
        log_join(srv, s, refused);
    }
}

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
            on_message(srv, s, now, &ev);
        } else if (ev.type == WS_EVENT_PONG) {
            sig_router_touch(&srv->router, now, (unsigned)s->client);
        } else {
            on_closed_event(srv, s, now, &ev);
        }
    }
}

static void wsc_feed(signal_server_t *srv, wsc_t *s, uint64_t now, const uint8_t *data,
                     size_t len)
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

static void wsc_ready(signal_server_t *srv, size_t index, uint32_t events, uint64_t now)
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

/* ---- HTTP: sending an answer ----------------------------------------------------------------- */

static void http_close(http_conn_t *h)
{
    if (h->file >= 0) {
        (void)close(h->file);
        h->file = -1;
    }
    zq_port_tcp_close(h->fd); /* also leaves the epoll set */
    h->fd = -1;
    h->state = HTTP_FREE;
}

static size_t http_index(const signal_server_t *srv, const http_conn_t *h)
{
    return (size_t)(h - srv->http);
}

/* Our answer is out: FIN, then read and drop until the peer's FIN, so the kernel does not
 * answer unread request bytes with a reset that could destroy the answer in flight. */
static void http_linger(signal_server_t *srv, http_conn_t *h, uint64_t now)
{
    (void)shutdown(h->fd, SHUT_WR);
    h->state = HTTP_LINGER;
    h->deadline = now + LINGER_MS;
    ep_set(srv, EPOLL_CTL_MOD, h->fd, tag(TAG_HTTP, http_index(srv, h)), EPOLLIN);
}

/* One /api list element as JSON: the one JSON writer escapes it, inside a one-element array
 * whose brackets are then dropped. */
static size_t name_json(const char *name, char *out, size_t cap)
{
    json_writer_t w;
    json_writer_init(&w, out, cap);
    json_array_begin(&w);
    json_string(&w, name, strlen(name));
    json_array_end(&w);
    size_t n = json_finish(&w);
    if (n < 2) {
        return 0;
    }
    memmove(out, out + 1, n - 2);
    return n - 2;
}

/* The names go out a bufferful at a time. The router only ever appends names and never
 * changes one, so the first name_count of them are the same bytes the length was made of. */
static void refill_names(http_conn_t *h)
{
    char el[NAME_JSON_MAX];
    if (!h->list_begun) {
        h->buf[h->len++] = '[';
        h->list_begun = true;
    }
    while (h->name_next < h->name_count) {
        size_t n = name_json(h->names->names[h->name_next], el, sizeof el);
        size_t comma = h->name_next > 0;
        if (n + comma > sizeof h->buf - h->len) {
            return; /* the next refill goes on from this name */
        }
        memcpy(h->buf + h->len, ",", comma);
        memcpy(h->buf + h->len + comma, el, n);
        h->len += n + comma;
        h->name_next++;
    }
    if (h->len < sizeof h->buf) {
        h->buf[h->len++] = ']';
        h->list_done = true;
    }
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

static zq_err_t refill(http_conn_t *h)
{
    h->len = 0;
    h->sent = 0;
    if (h->file >= 0) {
        return refill_file(h);
    }
    if (h->names != NULL) {
        refill_names(h);
        if (h->list_done) {
            h->names = NULL;
        }
    }
    return ZQ_OK;
}

static void http_pump(signal_server_t *srv, http_conn_t *h, uint64_t now)
{
    for (;;) {
        if (h->sent == h->len && refill(h) != ZQ_OK) {
            http_close(h);
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
            ep_set(srv, EPOLL_CTL_MOD, h->fd, tag(TAG_HTTP, http_index(srv, h)), EPOLLOUT);
            return;
        }
        if (err != ZQ_OK) {
            http_close(h);
            return;
        }
        h->sent += sent;
        h->deadline = now + SEND_STALL_MS;
    }
}

/* Sends the @p len bytes of head already in h->buf, then the file or list set up, if any. */
static void http_send(signal_server_t *srv, http_conn_t *h, size_t len, uint64_t now)
{
    h->state = HTTP_SEND;
    h->len = len;
    h->sent = 0;
    h->deadline = now + SEND_STALL_MS;
    http_pump(srv, h, now);
}

static void http_reply(signal_server_t *srv, http_conn_t *h, uint64_t now, int status,
                       const char *extra_headers)
{
    char body[64];
    int n = snprintf(body, sizeof body, "%d %s\n", status, http_reason(status));
    zq_writer_t w = zq_writer((uint8_t *)h->buf, sizeof h->buf);
    (void)http_response(&w, status, "text/plain; charset=utf-8", body, (size_t)n,
                        extra_headers);
    http_send(srv, h, w.len, now);
}

/* ---- HTTP: what each request gets ------------------------------------------------------------ */

static bool is_method(const http_request_t *req, const char *m)
{
    return req->method_len == strlen(m) && memcmp(req->method, m, req->method_len) == 0;
}

/* /api/topics and /api/queues: any method, as ZeroQ's Go server (docs/zeroq-wire.md §5). */
static void send_names(signal_server_t *srv, http_conn_t *h, const sig_name_set_t *set,
                       bool head_only, uint64_t now)
{
    char el[NAME_JSON_MAX];
    uint16_t count = set->count;
    size_t length = 2 + (count > 0 ? count - 1u : 0u);
    for (uint16_t i = 0; i < count; i++) {
        length += name_json(set->names[i], el, sizeof el);
    }
    zq_writer_t w = zq_writer((uint8_t *)h->buf, sizeof h->buf);
    (void)http_response_head(&w, 200, "application/json", length,
                             "Access-Control-Allow-Origin: *\r\n");
    if (!head_only) {
        h->names = set;
        h->name_count = count;
        h->name_next = 0;
        h->list_begun = false;
        h->list_done = false;
    }
    http_send(srv, h, w.len, now);
}

static int open_static(const signal_server_t *srv, const http_request_t *req, char *rel,
                       size_t cap, struct stat *st)
{
    if (http_safe_path(req->path, req->path_len, rel, cap) != ZQ_OK) {
        return -1; /* "..", hidden files, bad escapes: as if absent */
    }
    /* Relative to the directory opened at start, so the root is fixed whatever the cwd. */
    int fd = openat(srv->web_dir, rel, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))) {
        (void)close(fd);
        fd = -1;
    }
    return fd;
}

static void serve_file(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                       uint64_t now)
{
    if (srv->web_dir < 0) {
        http_reply(srv, h, now, 404, NULL);
        return;
    }
    bool head_only = is_method(req, "HEAD");
    if (!head_only && !is_method(req, "GET")) {
        http_reply(srv, h, now, 405, "Allow: GET, HEAD\r\n");
        return;
    }
    char rel[512];
    struct stat st;
    int fd = open_static(srv, req, rel, sizeof rel, &st);
    if (fd < 0) {
        http_reply(srv, h, now, 404, NULL);
        return;
    }
    zq_writer_t w = zq_writer((uint8_t *)h->buf, sizeof h->buf);
    (void)http_response_head(&w, 200, http_content_type(rel), (size_t)st.st_size, NULL);
    if (head_only || st.st_size == 0) {
        (void)close(fd);
    } else {
        h->file = fd;
        h->file_left = (uint64_t)st.st_size;
    }
    http_send(srv, h, w.len, now);
}

/* ---- HTTP: the WebSocket upgrade ------------------------------------------------------------- */

/* RFC 6455 §10.2: the Origin check keeps other web pages' scripts from using the server
 * through a visitor's browser. Browsers always send Origin on an upgrade; a request without
 * one comes from a program (a device, zq), which could send any Origin it liked, so checking
 * it would stop nobody: it is allowed. */
static bool origin_allowed(const signal_server_t *srv, const http_request_t *req)
{
    const char *v;
    size_t n;
    if (srv->origin_count == 0 || !http_header(req, "Origin", &v, &n)) {
        return true;
    }
    for (size_t i = 0; i < srv->origin_count; i++) {
        if (strlen(srv->origins[i]) == n && strncasecmp(srv->origins[i], v, n) == 0) {
            return true;
        }
    }
    return false;
}

/* The value of ?token= (NUL-terminated in @p out), or NULL when there is none that fits. */
static const char *query_token(const http_request_t *req, char out[65])
{
    const char *p = req->query;
    const char *end = p != NULL ? p + req->query_len : NULL;
    while (p != NULL && p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp != NULL ? amp : end;
        size_t n = (size_t)(stop - p);
        if (n > 6 && n - 6 <= 64 && memcmp(p, "token=", 6) == 0) {
            memcpy(out, p + 6, n - 6);
            out[n - 6] = '\0';
            return out;
        }
        p = amp != NULL ? amp + 1 : NULL;
    }
    return NULL;
}

static wsc_t *free_wsc(signal_server_t *srv)
{
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (srv->ws[i].state == WSC_FREE) {
            return &srv->ws[i];
        }
    }
    return NULL;
}

static void wsc_start(signal_server_t *srv, wsc_t *s, const http_conn_t *h)
{
    memset(s, 0, offsetof(wsc_t, ws)); /* ws_conn_init() clears the big rest */
    ws_conn_init(&s->ws, WS_ROLE_SERVER, NULL);
    s->state = WSC_OPEN;
    s->fd = h->fd;
    s->peer = h->peer;
    s->client = -1;
    ep_set(srv, EPOLL_CTL_MOD, s->fd, tag(TAG_WS, wsc_index(srv, s)), EPOLLIN);
}

/* Hands @p s to the router, which welcomes it with its id (through router_send). */
static void wsc_attach(signal_server_t *srv, wsc_t *s, const char *token, uint64_t now)
{
    unsigned client;
    srv->attaching = s;
    zq_err_t err = sig_router_connect(&srv->router, now, token, &client);
    srv->attaching = NULL;
    if (err != ZQ_OK) {
        wsc_close(srv, s, now, 1013, "server full, try again later"); /* IANA: Try Again Later */
        return;
    }
    s->client = (int)client;
    srv->by_client[client] = s;
    memcpy(s->id, srv->router.clients[client].id, sizeof s->id);
    char addr[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(&s->peer, addr, sizeof addr);
    say("%s connected from %s", s->id, addr);
}

static void upgrade(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                    uint64_t now)
{
    wsc_t *s = free_wsc(srv);
    uint8_t head[512];
    zq_writer_t w = zq_writer(head, sizeof head);
    if (s == NULL) {
        http_reply(srv, h, now, 503, "Retry-After: 5\r\n");
        return;
    }
    if (ws_server_response(&w, req, NULL) != ZQ_OK) {
        http_reply(srv, h, now, 400, NULL);
        return;
    }
    /* A fresh connection's send buffer always takes a 200-byte head; if it does not, the
     * client is gone or broken. */
    size_t sent = 0;
    if (zq_port_tcp_send(h->fd, head, w.len, &sent) != ZQ_OK || sent != w.len) {
        http_close(h);
        return;
    }
    char token_buf[65];
    const char *token = query_token(req, token_buf);
    wsc_start(srv, s, h);
    wsc_attach(srv, s, token, now);
    /* Frames the client sent right behind its request (§4.1 lets it) are WebSocket input. */
    wsc_feed(srv, s, now, (const uint8_t *)h->buf + req->head_len, h->len - req->head_len);
    h->state = HTTP_FREE; /* the fd now belongs to the WebSocket */
    h->fd = -1;
    if (s->state != WSC_FREE && !s->doomed) {
        wsc_flush(srv, s);
    }
}

static void try_upgrade(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                        uint64_t now)
{
    const char *v;
    size_t n;
    if (http_is_websocket_upgrade(req)) {
        if (origin_allowed(srv, req)) {
            upgrade(srv, h, req, now);
        } else {
            http_reply(srv, h, now, 403, NULL);
        }
    } else if (http_header(req, "Sec-WebSocket-Version", &v, &n) &&
               !(n == 2 && memcmp(v, "13", 2) == 0)) {
        http_reply(srv, h, now, 426, "Sec-WebSocket-Version: 13\r\n"); /* §4.2.2, §4.4 */
    } else {
        http_reply(srv, h, now, 400, NULL);
    }
}

static void route(signal_server_t *srv, http_conn_t *h, const http_request_t *req, uint64_t now)
{
    bool wants_ws = http_headers_have_token(req->headers, req->n_headers, "Upgrade", "websocket");
    /* "/" too: ZeroQ's default URL is ws://localhost:8080, path "/" (docs/zeroq-wire.md §1). */
    if (wants_ws && (http_path_is(req, "/ws") || http_path_is(req, "/"))) {
        try_upgrade(srv, h, req, now);
    } else if (http_path_is(req, "/api/topics")) {
        send_names(srv, h, &srv->router.topics, is_method(req, "HEAD"), now);
    } else if (http_path_is(req, "/api/queues")) {
        send_names(srv, h, &srv->router.queues, is_method(req, "HEAD"), now);
    } else {
        serve_file(srv, h, req, now);
    }
}

/* ---- HTTP: reading a request ----------------------------------------------------------------- */

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
        http_reply(srv, h, now, 431, NULL);
        return;
    case ZQ_ERR_UNSUPPORTED:
        http_reply(srv, h, now, 505, NULL);
        return;
    default:
        http_reply(srv, h, now, 400, NULL);
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
        http_close(h); /* the peer went, or its FIN came after our answer */
        return;
    }
    if (reading_head) {
        h->len += len;
        http_parse(srv, h, now);
    }
}

static void http_ready(signal_server_t *srv, size_t index, uint32_t events, uint64_t now)
{
    http_conn_t *h = &srv->http[index];
    if (h->state == HTTP_SEND) {
        http_pump(srv, h, now); /* EPOLLOUT, or an error the next send reports */
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

static void accept_one(signal_server_t *srv, zq_socket_t fd, const zq_addr_t *peer,
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
    h->names = NULL;
    ep_set(srv, EPOLL_CTL_ADD, fd, tag(TAG_HTTP, http_index(srv, h)), EPOLLIN);
    /* The request has usually arrived with the connection: answered now, the slot is free
     * again before the next accept, and a burst of clients does not run into the 503. */
    http_readable(srv, h, now);
}

static void accept_all(signal_server_t *srv, uint64_t now)
{
    for (int i = 0; i < ACCEPTS_PER_WAKE; i++) {
        zq_socket_t fd;
        zq_addr_t peer;
        if (zq_port_tcp_accept(srv->listener, &fd, &peer) != ZQ_OK) {
            return;
        }
        accept_one(srv, fd, &peer, now);
    }
}

/* ---- The loop: one epoll fd, and a timer driver ---------------------------------------------- */

static void on_epoll(void *ctx, int fd, uint64_t now)
{
    signal_server_t *srv = ctx;
    struct epoll_event ev[EVENTS_PER_WAKE];
    int n = epoll_wait(fd, ev, EVENTS_PER_WAKE, 0);
    for (int i = 0; i < n; i++) {
        uint32_t kind = (uint32_t)(ev[i].data.u64 >> 32);
        size_t index = (uint32_t)ev[i].data.u64;
        if (kind == TAG_LISTENER) {
            accept_all(srv, now);
        } else if (kind == TAG_HTTP) {
            http_ready(srv, index, ev[i].events, now);
        } else {
            wsc_ready(srv, index, ev[i].events, now);
        }
        reap(srv, now);
    }
}

static uint64_t server_next_timeout(void *obj)
{
    const signal_server_t *srv = obj;
    uint64_t t = srv->next_ping;
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        if (srv->http[i].state != HTTP_FREE) {
            t = zq_time_min(t, srv->http[i].deadline);
        }
    }
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        const sig_client_slot_t *c = &srv->router.clients[i];
        if (srv->ws[i].state == WSC_CLOSING) {
            t = zq_time_min(t, srv->ws[i].deadline);
        }
        if (c->used) {
            t = zq_time_min(t, c->last_seen + srv->idle_ms);
        }
    }
    return t;
}

/* RFC 6455 §5.5.2: a ping every idle/3, so a live client (browsers answer by themselves)
 * shows life twice or more before the idle limit. */
static void ping_all(signal_server_t *srv, uint64_t now)
{
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        wsc_t *s = &srv->ws[i];
        if (s->state == WSC_OPEN && !s->doomed && ws_send_ping(&s->ws, NULL, 0) == ZQ_OK) {
            wsc_flush(srv, s);
        }
    }
    uint64_t every = srv->idle_ms / 3 > 0 ? srv->idle_ms / 3 : 1;
    srv->next_ping = now + every;
}

static void expire(signal_server_t *srv, uint64_t now)
{
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        if (srv->http[i].state != HTTP_FREE && srv->http[i].deadline <= now) {
            http_close(&srv->http[i]);
        }
    }
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (srv->ws[i].state == WSC_CLOSING && srv->ws[i].deadline <= now) {
            wsc_free(srv, &srv->ws[i], "closed");
        }
    }
}

static void server_timeout(void *obj, uint64_t now)
{
    signal_server_t *srv = obj;
    expire(srv, now);
    if (now >= srv->next_ping) {
        ping_all(srv, now);
    }
    int idle;
    while ((idle = sig_router_find_idle(&srv->router, now, srv->idle_ms)) >= 0) {
        wsc_t *s = srv->by_client[idle];
        if (s != NULL) {
            wsc_close(srv, s, now, WS_CLOSE_GOING_AWAY, "idle: no pong in time");
        } else {
            sig_router_disconnect(&srv->router, (unsigned)idle);
        }
    }
    reap(srv, now);
}

static const zq_driver_t server_driver = {
    .handle_timeout = server_timeout,
    .next_timeout = server_next_timeout,
};

/* SIGINT/SIGTERM: every client hears 1001 (§7.4.1, going away), as far as its socket takes it
 * at once; nothing waits. */
static void shutdown_all(signal_server_t *srv)
{
    /* Everyone is closing before anyone leaves the router: no peer_left goes to a client that
     * is about to hear 1001 anyway. */
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        wsc_t *s = &srv->ws[i];
        if (s->state == WSC_OPEN) {
            (void)ws_close(&s->ws, WS_CLOSE_GOING_AWAY, "server shutting down");
            s->state = WSC_CLOSING;
            wsc_flush(srv, s);
        }
    }
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        if (srv->ws[i].state != WSC_FREE) {
            wsc_free(srv, &srv->ws[i], "server shutting down");
        }
    }
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        if (srv->http[i].state != HTTP_FREE) {
            http_close(&srv->http[i]);
        }
    }
}

/* ---- Command line ---------------------------------------------------------------------------- */

typedef struct {
    const char *listen;
    const char *web;
    const char *origins[MAX_ORIGINS];
    size_t origin_count;
    const char *key_file;
    const char *idle;
    const char *print_token;
} signal_options_t;

void zq_cmd_signal_help(FILE *out)
{
    (void)fputs(
        "usage: zq signal [--listen ADDR] [--web DIR] [--allow-origin ORIGIN]...\n"
        "                 [--token-key-file FILE] [--idle-timeout SECONDS]\n"
        "       zq signal --print-token ROOM --token-key-file FILE\n"
        "\n"
        "Runs the signalling server where ZeroQ pages and zq devices find each other. On one\n"
        "port it serves:\n"
        "\n"
        "  /ws, and /     the WebSocket (RFC 6455): each client gets an id in a welcome frame;\n"
        "                 a join tells the room's earlier members peer_joined, so one side of\n"
        "                 each pair dials; offers, answers and candidates go to the addressed\n"
        "                 member with peerId rewritten to the sender; leaving says peer_left\n"
        "  /api/topics    JSON lists of the topic and queue names ZeroQ clients announced\n"
        "  /api/queues\n"
        "  anything else  a file under --web DIR (index.html for a directory), or 404\n"
        "\n"
        "It prints 'zq signal: listening on http://ADDR (WebSocket at /ws)' once it listens,\n"
        "logs each client's connect, join and leave to stderr, pings clients every third of\n"
        "the idle timeout, and runs until SIGINT or SIGTERM, when clients hear close 1001.\n"
        "Plain ws:// and http:// only: put a TLS reverse proxy in front for wss://.\n"
        "\n"
        "options:\n"
        "  --listen ADDR          IP:PORT to listen on (default 127.0.0.1:8080, ZeroQ's\n"
        "                         ws://localhost:8080); port 0 picks a free one\n"
        "  --web DIR              serve static files from DIR (default: none)\n"
        "  --allow-origin ORIGIN  accept WebSocket upgrades only from pages of ORIGIN, e.g.\n"
        "                         http://localhost:5173 (repeatable; others get 403). Requests\n"
        "                         without an Origin come from programs, not pages: allowed\n"
        "  --token-key-file FILE  require a room token on joins: ws://HOST/ws?token=HEX, where\n"
        "                         HEX is HMAC-SHA256(key, room) and the key is FILE's bytes\n"
        "                         (less one trailing newline)\n"
        "  --print-token ROOM     print ROOM's token under --token-key-file's key, and exit\n"
        "  --idle-timeout SECONDS close clients silent this long, pongs included (default 45)\n"
        "  --help                 show this help\n"
        "\n"
        "exit status: 0 stopped by a signal (or token printed), 1 the address is in use or\n"
        "another I/O error, 2 usage error.\n",
        out);
}

static int store_value(signal_options_t *o, const char *name, const char *value)
{
    if (value == NULL) {
        return zq_cli_usage_error("signal", "%s needs a value", name);
    }
    if (strcmp(name, "--allow-origin") == 0) {
        if (o->origin_count == MAX_ORIGINS) {
            return zq_cli_usage_error("signal", "at most %d --allow-origin", MAX_ORIGINS);
        }
        o->origins[o->origin_count++] = value;
    } else if (strcmp(name, "--listen") == 0) {
        o->listen = value;
    } else if (strcmp(name, "--web") == 0) {
        o->web = value;
    } else if (strcmp(name, "--token-key-file") == 0) {
        o->key_file = value;
    } else if (strcmp(name, "--idle-timeout") == 0) {
        o->idle = value;
    } else {
        o->print_token = value;
    }
    return -1;
}

static int parse_option(int argc, char **argv, int *i, signal_options_t *o)
{
    static const char *const with_value[] = {"--listen", "--web", "--allow-origin",
                                             "--token-key-file", "--idle-timeout",
                                             "--print-token"};
    const char *arg = argv[*i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        zq_cmd_signal_help(stdout);
        return ZQ_CLI_EXIT_OK;
    }
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++) {
        const char *value;
        if (zq_cli_take_value(argc, argv, i, with_value[k], &value)) {
            return store_value(o, with_value[k], value);
        }
    }
    if (arg[0] == '-') {
        return zq_cli_usage_error("signal", "unknown option '%s'", arg);
    }
    return zq_cli_usage_error("signal", "unexpected argument '%s'", arg);
}

static int parse_options(int argc, char **argv, signal_options_t *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        int rc = parse_option(argc, argv, &i, o);
        if (rc >= 0) {
            return rc;
        }
    }
    if (o->print_token != NULL && o->key_file == NULL) {
        return zq_cli_usage_error("signal", "--print-token needs --token-key-file");
    }
    return -1;
}

/* The HMAC key: the file's bytes, less one trailing newline (as `echo secret > FILE` adds). */
static int read_key(const char *path, uint8_t *key, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return zq_cli_usage_error("signal", "cannot read --token-key-file '%s': %s", path,
                                  strerror(errno));
    }
    ssize_t n = read(fd, key, KEY_MAX + 1);
    (void)close(fd);
    if (n > 0 && key[n - 1] == '\n') {
        n--;
    }
    if (n <= 0 || n > KEY_MAX) {
        return zq_cli_usage_error("signal", "--token-key-file '%s' must hold 1 to %d bytes",
                                  path, KEY_MAX);
    }
    *len = (size_t)n;
    return -1;
}

static int print_token(const signal_options_t *o)
{
    static uint8_t key[KEY_MAX + 1];
    size_t key_len;
    int rc = read_key(o->key_file, key, &key_len);
    if (rc >= 0) {
        return rc;
    }
    size_t room_len = strlen(o->print_token);
    if (room_len == 0 || room_len > ZQ_SIG_ROOM_MAX) {
        return zq_cli_usage_error("signal", "a room name has 1 to %d bytes", ZQ_SIG_ROOM_MAX);
    }
    char hex[65];
    sig_room_token(key, key_len, o->print_token, hex);
    (void)printf("%s\n", hex);
    return ZQ_CLI_EXIT_OK;
}

/* The server's settings from the options; returns -1 or an exit code. */
static int configure(const signal_options_t *o, signal_server_t *srv, zq_addr_t *listen_addr)
{
    static uint8_t key[KEY_MAX + 1];
    const char *text = o->listen != NULL ? o->listen : "127.0.0.1:8080";
    if (zq_cli_parse_addr(text, SIGNAL_DEFAULT_PORT, listen_addr) != ZQ_OK) {
        return zq_cli_usage_error("signal", "--listen wants IP[:PORT], not '%s'", text);
    }
    uint32_t idle_s = DEFAULT_IDLE_S;
    if (o->idle != NULL && zq_cli_parse_u32(o->idle, 1, 86400, &idle_s) != ZQ_OK) {
        return zq_cli_usage_error("signal", "--idle-timeout wants 1 to 86400 seconds, not '%s'",
                                  o->idle);
    }
    srv->idle_ms = (uint64_t)idle_s * 1000u;
    srv->origins = o->origins;
    srv->origin_count = o->origin_count;
    size_t key_len;
    int rc = o->key_file != NULL ? read_key(o->key_file, key, &key_len) : -1;
    if (rc >= 0) {
        return rc;
    }
    if (o->key_file != NULL) {
        sig_router_require_tokens(&srv->router, key, key_len);
    }
    if (o->web != NULL && (srv->web_dir = open(o->web, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        return zq_cli_usage_error("signal", "--web '%s' is not a directory zq can read: %s",
                                  o->web, strerror(errno));
    }
    return -1;
}

/* Every client and HTTP connection, a static file each, the listener, epoll and stdio must fit
 * the descriptor limit; raise the soft limit towards the hard one if they do not. */
static void ensure_fd_limit(void)
{
    rlim_t need = ZQ_SIG_MAX_CLIENTS + 2 * ZQ_SIGNAL_MAX_HTTP + 16;
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < need) {
        lim.rlim_cur = lim.rlim_max < need ? lim.rlim_max : need;
        (void)setrlimit(RLIMIT_NOFILE, &lim);
    }
}

static int open_listener(signal_server_t *srv, const zq_addr_t *want, zq_addr_t *bound)
{
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(want, text, sizeof text);
    zq_err_t err = zq_port_tcp_listen(&srv->listener, want, bound);
    if (err == ZQ_ERR_STATE) {
        return zq_cli_fail("signal", "%s is already in use (is another zq signal running?)",
                           text);
    }
    if (err != ZQ_OK) {
        return zq_cli_fail("signal", "cannot listen on %s", text);
    }
    srv->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (srv->epfd < 0) {
        zq_port_tcp_close(srv->listener);
        return zq_cli_fail("signal", "epoll_create1: %s", strerror(errno));
    }
    ep_set(srv, EPOLL_CTL_ADD, srv->listener, tag(TAG_LISTENER, 0), EPOLLIN);
    return -1;
}

static void server_init(signal_server_t *srv, zq_loop_t *loop, const zq_rand_t *rand)
{
    srv->loop = loop;
    srv->listener = ZQ_SOCKET_INVALID;
    srv->epfd = -1;
    srv->web_dir = -1;
    sig_router_init(&srv->router, rand, router_send, srv);
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        srv->http[i].fd = -1;
        srv->http[i].file = -1;
    }
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        srv->ws[i].fd = -1;
    }
}

static int serve(signal_server_t *srv, zq_loop_t *loop, const zq_addr_t *bound)
{
    size_t id;
    srv->next_ping = zq_loop_now(loop) + (srv->idle_ms / 3 > 0 ? srv->idle_ms / 3 : 1);
    if (zq_loop_add_driver(loop, &server_driver, srv, &id) != ZQ_OK ||
        zq_loop_add_fd(loop, srv->epfd, on_epoll, srv) != ZQ_OK) {
        return zq_cli_fail("signal", "cannot start the event loop");
    }
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(bound, text, sizeof text);
    (void)printf("zq signal: listening on http://%s (WebSocket at /ws)\n", text);
    (void)fflush(stdout); /* a script reads the port from this line before connecting */
    zq_cli_stop_loop_on_signals(loop);
    zq_err_t err = zq_loop_run(loop, ZQ_TIME_NEVER);
    zq_cli_stop_loop_on_signals(NULL);
    shutdown_all(srv);
    if (err != ZQ_OK) {
        return zq_cli_fail("signal", "event loop: %s", zq_strerror(err));
    }
    say("stopped");
    return ZQ_CLI_EXIT_OK;
}

static int run_server(const signal_options_t *o)
{
    /* Static, 32.5 MiB with the defaults (see cmd_signal.h); a slot's pages are touched only
     * once a client uses it. */
    static zq_loop_t loop;
    static signal_server_t srv;
    static zq_rand_t rand;
    rand = zq_port_rand();
    zq_addr_t want;
    zq_addr_t bound;
    zq_loop_init(&loop);
    server_init(&srv, &loop, &rand);
    int rc = configure(o, &srv, &want);
    if (rc < 0) {
        ensure_fd_limit();
        rc = open_listener(&srv, &want, &bound);
    }
    if (rc < 0) {
        rc = serve(&srv, &loop, &bound);
    }
    zq_port_tcp_close(srv.listener);
    if (srv.epfd >= 0) {
        (void)close(srv.epfd);
    }
    if (srv.web_dir >= 0) {
        (void)close(srv.web_dir);
    }
    return rc;
}

int zq_cmd_signal(int argc, char **argv)
{
    signal_options_t o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) {
        return rc;
    }
    return o.print_token != NULL ? print_token(&o) : run_server(&o);
}

/* libFuzzer target for `zq signal`'s server itself (server/signal_*.c), driven through the
 * calls the loop makes: signal_on_epoll() for the epoll fd (a Unix socket stands for the TCP
 * listener), signal_server_driver for the timers, and signal_shutdown_all() at the end; most
 * connections are one end of a socketpair, handed in by signal_http_accept() as the listener
 * does. The clock is the input's; a --web directory with a few files is made in /tmp at start.
 *
 * The first byte is the command line (--allow-origin, --token-key-file, --idle-timeout, --web
 * or not). Then each step is an op byte (its top bit: one epoll dispatch after the step) and
 * its arguments: a new connection (with bytes already sent), bytes on one, a canned upgrade
 * request, a masked client frame built from fuzzed header bits and payload, a dispatch, time
 * passing, and a client that stops reading, half-closes or goes away. In the bytes and the
 * payloads, 0x01 N stands for connection N's welcome id (so offers reach their peer), 0x02 M
 * for M x 64 bytes of 'a' (an SDP or a header line too big for a buffer) and 0x03 X for room
 * "lab"'s token (so /api?room=lab&token= can open).
 *
 * Checked: after every dispatch and timer run, the sockets and the router agree on who is
 * connected, no close is left pending, no descriptor is held twice or by a free slot, and the
 * timers have moved past `now` (the loop would spin otherwise). Everything the server writes
 * is HTTP/1.1; after a 101 comes a valid handshake, then frames a client reads without
 * failing the connection, whose messages are JSON text. With every client reading, the
 * server goes quiet (no fd stays ready forever); after the stop every slot is free, the
 * router empty and every descriptor closed. ZQ_FUZZ_SIGNAL_LOG=1 writes the server's log and
 * a line per run of what the router dropped and each client read.
 *
 * With TLS (the first byte's bit 4: --tls-cert, server/signal_tls.c in front of all of it),
 * each connection is a TLS front: a client is a TLS 1.2 client of stack/tls (trusting the
 * server's self-signed certificate) that finishes its handshake when it connects, then sends
 * and reads everything above through its session; a half-close sends its close_notify first.
 * A connection's bit 3 (and every one through the listener) makes a raw client instead, whose
 * bytes reach the front as they are. Checked besides: every record the server sends decrypts,
 * a handshake only fails when the server closed the connection, a front holds its descriptors
 * once, every front is free after the stop and the TLS arena back where it started. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server/signal_server.h"
#include "stack/tls/tls_client.h"
#include "stack/tls/tls_server.h"
#include "zq/json.h"
#include "signal/ws.h"
#include "fuzz_support.h"
#include "fuzz_trust.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CONNS 40       /* more than ZQ_SIGNAL_MAX_HTTP: the 33rd at once gets a 503 */
#define SETTLE_ROUNDS 256  /* dispatches the server gets to go quiet at the end */
#define START_MS 1000000u
#define FD_CAP 4096
#define HANDSHAKE_ROUNDS 64 /* client steps and dispatches a TLS handshake gets */

enum {
    OP_CONNECT,
    OP_WRITE,
    OP_UPGRADE,
    OP_FRAME,
    OP_DISPATCH,
    OP_TIME,
    OP_STALL,
    OP_SHUT,
    OP_CLOSE,
    OP_COUNT
};
#define OP_THEN_DISPATCH 0x80

/* ---- The input ------------------------------------------------------------------------------ */

typedef struct {
    const uint8_t *p;
    size_t left;
} input_t;

static uint8_t take(input_t *in)
{
    if (in->left == 0) {
        return 0;
    }
    in->left--;
    return *in->p++;
}

static size_t take_bytes(input_t *in, size_t n, const uint8_t **out)
{
    n = n < in->left ? n : in->left;
    *out = in->p;
    in->p += n;
    in->left -= n;
    return n;
}

/* ---- The world: a server, its clients, the clock -------------------------------------------- */

typedef enum { OUT_HEAD, OUT_BODY, OUT_WS } out_state_t;

/* A client: the other end of a socketpair, and what it has read of the server's answer. */
typedef struct {
    int fd; /* -1 once closed */
    bool stalled, eof;
    bool secure;     /* a TLS client: everything goes through tls */
    tls_session_t tls;
    out_state_t out;
    size_t head_len;
    char head[1024];
    uint64_t body_left; /* OUT_BODY: what the answer's Content-Length still allows */
    char id[SIG_ID_LEN + 1]; /* from its welcome */
    unsigned messages;       /* read from the server */
    ws_conn_t ws;            /* the server's frames, read as a client reads them */
} client_t;

static signal_server_t srv;
static zq_loop_t loop;
static client_t clients[MAX_CONNS];
static size_t client_count;
static uint64_t now;
static uint32_t rand_state;
static bool verbose; /* ZQ_FUZZ_SIGNAL_LOG */
static bool tls_mode; /* this run's server speaks TLS */
static tls_server_config_t tls_identity;
static tls_client_config_t tls_trust; /* the clients': the server's certificate */
static size_t tls_baseline;           /* the arena in use with both configurations */
static uint8_t tls_arena[8 * 1024 * 1024]; /* 40 clients' and fronts' sessions at once */

static int listener = -1; /* a Unix socket's, as the server's TCP one */
static struct sockaddr_un listen_addr;
static socklen_t listen_addr_len;
static char web_root[64];
static int web_dir = -1;
static const uint8_t token_key[] = "fuzz-key";
static char good_token[SIG_TOKEN_TEXT_MAX + 1];
static const char *const good_origin[] = {"http://good.example"};
static const char ws_key[] = "dGhlIHNhbXBsZSBub25jZQ=="; /* base64 of the nonce below */
static const char ws_nonce[] = "the sample nonce";

static const zq_rand_t rand_src = {.fill = fuzz_counter_rand, .ctx = &rand_state};

/* ---- Invariants ----------------------------------------------------------------------------- */

/* Each descriptor a slot holds, once: two slots closing one fd would close someone else's. */
static void mark_fd(int fd)
{
    static uint32_t seen[FD_CAP];
    static uint32_t generation;
    if (fd == -2) {
        generation++;
        return;
    }
    check(fd >= 0 && fd < FD_CAP && seen[fd] != generation);
    seen[fd] = generation;
}

static unsigned check_ws_slots(void)
{
    unsigned open = 0;
    for (size_t i = 0; i < ZQ_SIG_MAX_CLIENTS; i++) {
        const wsc_t *s = &srv.ws[i];
        check(!s->doomed);
        if (s->state == WSC_FREE) {
            check(s->fd == -1);
            continue;
        }
        mark_fd(s->fd);
        if (s->state == WSC_OPEN) {
            check(s->client >= 0 && s->client < ZQ_SIG_MAX_CLIENTS);
            check(srv.by_client[s->client] == s);
            open++;
        } else {
            check(s->client == -1);
        }
    }
    return open;
}

/* Between two inputs, as the loop sees the server. */
static void check_server(void)
{
    mark_fd(-2);
    check(srv.doomed == 0 && srv.attaching == NULL);
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        const http_conn_t *h = &srv.http[i];
        if (h->state == HTTP_FREE) {
            check(h->fd == -1 && h->file == -1);
            continue;
        }
        mark_fd(h->fd);
        if (h->file >= 0) {
            mark_fd(h->file);
        }
    }
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_TLS; i++) {
        const tls_front_t *f = &srv.tls_front[i];
        if (f->state != TLSF_FREE) { /* a free front's fds are never read: not checked */
            check(tls_mode);
            mark_fd(f->net);
            if (f->plain >= 0) {
                mark_fd(f->plain);
            }
        }
    }
    unsigned open = check_ws_slots();
    for (size_t c = 0; c < ZQ_SIG_MAX_CLIENTS; c++) {
        check(srv.router.clients[c].used == (srv.by_client[c] != NULL));
    }
    check(sig_router_client_count(&srv.router) == open);
}

static int lowest_free_fd(void)
{
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    check(fd >= 0);
    (void)close(fd);
    return fd;
}

/* ---- Clients reading what the server wrote -------------------------------------------------- */

static void client_message(client_t *c, const ws_event_t *ev)
{
    json_value_t doc;
    json_value_t v;
    check(ev->text); /* the router speaks JSON text only */
    check(json_parse((const char *)ev->data, ev->len, &doc) == ZQ_OK);
    c->messages++;
    if (c->id[0] == '\0' && json_object_get(doc, "type", &v) == ZQ_OK &&
        json_string_equals(v, "welcome")) {
        check(json_object_get(doc, "peerId", &v) == ZQ_OK);
        check(json_get_string(v, c->id, sizeof c->id, NULL) == ZQ_OK);
    }
}

static void client_events(client_t *c)
{
    ws_event_t ev;
    while (ws_poll_event(&c->ws, &ev)) {
        if (ev.type == WS_EVENT_MESSAGE) {
            client_message(c, &ev);
        } else if (ev.type == WS_EVENT_CLOSED) {
            /* The server's close, or TCP ending: never a rule the server broke. */
            check(ev.remote || ev.code == WS_CLOSE_ABNORMAL);
        }
    }
}

static void client_feed_ws(client_t *c, const uint8_t *data, size_t len)
{
    while (len > 0) {
        size_t used = 0;
        if (ws_feed(&c->ws, data, len, &used) != ZQ_OK) {
            return; /* closed: nothing after the close counts */
        }
        data += used;
        len -= used;
        client_events(c);
    }
}

static const char *find(const char *p, size_t len, const char *what)
{
    size_t n = strlen(what);
    for (size_t i = 0; i + n <= len; i++) {
        if (memcmp(p + i, what, n) == 0) {
            return p + i;
        }
    }
    return NULL;
}

/* A body may end early (the client stopped reading, or went), never run past its length. */
static void client_body(client_t *c, size_t len)
{
    check(len <= c->body_left);
    c->body_left -= len;
}

/* Every answer but the 101 says its length (RFC 9112 §6.3: nothing else would end it). */
static void client_answer(client_t *c, size_t head_len)
{
    const char *field = find(c->head, head_len, "\r\nContent-Length: ");
    check(field != NULL);
    c->body_left = 0;
    for (const char *d = field + 18; *d >= '0' && *d <= '9'; d++) {
        c->body_left = c->body_left * 10 + (uint64_t)(*d - '0');
    }
    c->out = OUT_BODY;
}

/* The answer's head; after a 101, the rest is WebSocket. */
static void client_head(client_t *c, const uint8_t *data, size_t len)
{
    size_t before = c->head_len;
    size_t room = sizeof c->head - before;
    size_t n = len < room ? len : room;
    memcpy(c->head + before, data, n);
    c->head_len += n;
    size_t cmp = c->head_len < 9 ? c->head_len : 9;
    check(memcmp(c->head, "HTTP/1.1 ", cmp) == 0);
    const char *blank = find(c->head, c->head_len, "\r\n\r\n");
    if (blank == NULL) {
        check(c->head_len < sizeof c->head); /* the server's heads are short */
        return;
    }
    size_t head_len = (size_t)(blank + 4 - c->head);
    size_t rest = head_len - before; /* where the body starts in data */
    if (head_len < 12 || memcmp(c->head, "HTTP/1.1 101", 12) != 0) {
        client_answer(c, head_len);
        client_body(c, len - rest);
        return;
    }
    size_t consumed = 0;
    check(ws_client_check_response(c->head, head_len, (const uint8_t *)ws_nonce, &consumed,
                                   NULL) == ZQ_OK);
    ws_conn_init(&c->ws, WS_ROLE_CLIENT, &rand_src);
    c->out = OUT_WS;
    client_feed_ws(c, data + rest, len - rest);
}

/* What the server said, in the clear (a TLS client's decrypted). */
static void client_plain(client_t *c, const uint8_t *buf, size_t n)
{
    if (c->out == OUT_HEAD) {
        client_head(c, buf, n);
    } else if (c->out == OUT_WS) {
        client_feed_ws(c, buf, n);
    } else {
        client_body(c, n);
    }
}

/* The server's FIN, or a reset (it closed with our bytes unread), or its close_notify. */
static void client_ended(client_t *c)
{
    c->eof = true;
    if (c->out == OUT_WS) {
        ws_transport_closed(&c->ws);
        client_events(c);
    }
}

/* A TLS client's ciphertext, as far as the socket takes it; the rest waits in its session. */
static void client_flush(client_t *c)
{
    const uint8_t *out;
    size_t n;
    while (c->fd >= 0 && tls_session_output(&c->tls, &out, &n)) {
        ssize_t k = send(c->fd, out, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k <= 0) {
            return;
        }
        tls_session_output_consumed(&c->tls, (size_t)k);
    }
}

/* Every record the server sends must decrypt; during the handshake the bytes only wait. */
static void client_decrypt(client_t *c)
{
    uint8_t plain[4096];
    size_t got = 0;
    zq_err_t err;
    while (c->tls.state == TLS_OPEN &&
           (err = tls_session_read(&c->tls, plain, sizeof plain, &got)) == ZQ_OK) {
        client_plain(c, plain, got);
    }
    if (c->tls.state == TLS_CLOSED) {
        client_ended(c);
    }
    check(c->tls.state != TLS_FAILED);
}

static void client_read(client_t *c)
{
    uint8_t buf[8192];
    if (c->secure) {
        client_flush(c);
    }
    for (int i = 0; i < 64 && c->fd >= 0 && !c->eof; i++) {
        size_t cap = sizeof buf;
        if (c->secure) {
            size_t room = tls_session_input_room(&c->tls);
            cap = room < cap ? room : cap;
            if (cap == 0) {
                return; /* its session holds a handshake's bytes still */
            }
        }
        ssize_t n = recv(c->fd, buf, cap, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        }
        if (n <= 0) {
            client_ended(c);
            return;
        }
        if (!c->secure) {
            client_plain(c, buf, (size_t)n);
            continue;
        }
        (void)tls_session_feed(&c->tls, buf, (size_t)n); /* all of it: n <= room */
        client_decrypt(c);
    }
}

static void drain_clients(void)
{
    for (size_t i = 0; i < client_count; i++) {
        if (!clients[i].stalled) {
            client_read(&clients[i]);
        }
    }
}

/* A TLS client's plaintext in records, as far as its session and socket take them; the rest
 * is lost, as if the client gave up. */
static void client_send_tls(client_t *c, const uint8_t *p, size_t len)
{
    while (c->fd >= 0 && c->tls.state == TLS_OPEN && len > 0) {
        size_t room = tls_session_write_room(&c->tls);
        if (room == 0) {
            client_flush(c);
            room = tls_session_write_room(&c->tls);
        }
        size_t taken = 0;
        if (room == 0 || tls_session_write(&c->tls, p, len < room ? len : room, &taken) != ZQ_OK) {
            return;
        }
        p += taken;
        len -= taken;
    }
    client_flush(c);
}

/* What fits the client's socket buffer; the rest is lost, as if the client gave up. */
static void client_send(client_t *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    if (c->secure) {
        client_send_tls(c, p, len);
        return;
    }
    while (c->fd >= 0 && len > 0) {
        ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n <= 0) {
            return;
        }
        p += n;
        len -= (size_t)n;
    }
}

/* ---- The loop's part ------------------------------------------------------------------------ */

static void dispatch(void)
{
    signal_on_epoll(&srv, srv.epfd, now);
    check_server();
    drain_clients();
}

/* As the loop does when the driver's deadline has come; it must then lie past `now`. */
static void run_timers(void)
{
    if (signal_server_driver.next_timeout(&srv) <= now) {
        signal_server_driver.handle_timeout(&srv, now);
        check(signal_server_driver.next_timeout(&srv) > now);
    }
    check_server();
    drain_clients();
}

static bool epoll_has_ready(void)
{
    struct epoll_event ev;
    return epoll_wait(srv.epfd, &ev, 1, 0) > 0; /* level-triggered: nothing is taken */
}

/* ---- The steps ------------------------------------------------------------------------------ */

static client_t *pick(input_t *in)
{
    uint8_t k = take(in);
    return client_count > 0 ? &clients[k % client_count] : NULL;
}

static void dispatch(void);

/* A TLS client's handshake, to its end: client steps and server dispatches in turn. It fails
 * only when the server closed the connection (its arena full, say). */
static void client_handshake(client_t *c)
{
    zq_err_t err = ZQ_ERR_WOULD_BLOCK;
    for (int round = 0; round < HANDSHAKE_ROUNDS && err == ZQ_ERR_WOULD_BLOCK && !c->eof;
         round++) {
        const char *why;
        err = tls_session_handshake(&c->tls, &why);
        client_flush(c);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            dispatch(); /* the server's turn; its answer is read into the session */
        }
    }
    check(err == ZQ_OK || c->eof);
    client_decrypt(c); /* what came with the last flight */
}

/* @p secure: a TLS client, when the arena lets it start one. */
static client_t *client_new(int fd, bool secure, const uint8_t *bytes, size_t n)
{
    client_t *c = &clients[client_count++];
    c->fd = fd;
    c->stalled = false;
    c->eof = false;
    c->out = OUT_HEAD;
    c->head_len = 0;
    c->id[0] = '\0';
    c->messages = 0;
    c->secure = secure && tls_client_start(&c->tls, &tls_trust, "localhost") == ZQ_OK;
    if (c->secure) {
        client_handshake(c);
    }
    client_send(c, bytes, n); /* what came with the connection */
    return c;
}

/* Arg bit 2: through the listener, which the server accepts from at its next dispatch. */
static void connect_to_listener(const uint8_t *bytes, size_t n)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    check(fd >= 0);
    if (connect(fd, (const struct sockaddr *)&listen_addr, listen_addr_len) != 0) {
        (void)close(fd); /* its backlog is full */
        return;
    }
    (void)client_new(fd, false, bytes, n); /* raw: the server accepts it at its next dispatch */
}

/* Else one end of a socketpair, handed to the server as the listener would. Arg bit 0: the
 * server's end keeps its default buffer (else a small one, so the server meets a full
 * socket). Arg bit 1: no peer address (as the listener gives for a Unix socket). */
static void op_connect(input_t *in)
{
    uint8_t arg = take(in);
    const uint8_t *bytes;
    size_t n = take_bytes(in, take(in), &bytes);
    if (client_count == MAX_CONNS) {
        return;
    }
    if (arg & 4) {
        connect_to_listener(bytes, n);
        return;
    }
    int sv[2];
    check(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0);
    if ((arg & 1) == 0) {
        int small = 4096;
        (void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    }
    zq_addr_t peer = {0};
    if ((arg & 2) == 0) {
        peer = zq_addr_v4(127, 0, 0, 1, (uint16_t)(40000u + client_count));
    }
    if (tls_mode) {
        signal_tls_accept(&srv, sv[0], &peer, now); /* as the listener hands it over */
    } else {
        signal_http_accept(&srv, sv[0], &peer, now);
    }
    check_server();
    (void)client_new(sv[1], tls_mode && (arg & 8) == 0, bytes, n);
}

/* The bytes with each 0x01 N replaced by client N's id (its welcome's peerId), each 0x02 M by
 * M x 64 bytes of 'a', each 0x03 X by room lab's token; as much as fits @p cap. */
static size_t expand(const uint8_t *p, size_t n, uint8_t *out, size_t cap)
{
    size_t len = 0;
    for (size_t i = 0; i < n && len < cap; i++) {
        if (p[i] < 0x01 || p[i] > 0x03 || i + 1 == n) {
            out[len++] = p[i];
            continue;
        }
        uint8_t kind = p[i];
        uint8_t arg = p[++i];
        const char *text = kind == 0x01 ? clients[arg % MAX_CONNS].id : good_token;
        size_t add = kind == 0x02 ? (size_t)arg * 64 : strlen(text);
        add = add < cap - len ? add : cap - len;
        if (kind == 0x02) {
            memset(out + len, 'a', add);
        } else {
            memcpy(out + len, text, add);
        }
        len += add;
    }
    return len;
}

/* What a step sends: bytes, or a frame (its payload WS_MAX_HEADER bytes in, the header just
 * before it). */
static uint8_t wire[WS_MAX_HEADER + 256 * 1024];

static void op_write(input_t *in)
{
    client_t *c = pick(in);
    const uint8_t *bytes;
    size_t n = take_bytes(in, take(in), &bytes);
    if (c != NULL) {
        client_send(c, wire, expand(bytes, n, wire, sizeof wire));
    }
}

/* The request's target for variant @p v: the paths the server routes, with and without room
 * tokens (good, wrong, too long, empty). */
static void upgrade_target(uint8_t v, char *out, size_t cap)
{
    enum { NONE, GOOD, WRONG, TWICE };
    static const struct {
        const char *path;
        int token;
    } targets[8] = {
        {"/ws", NONE},          {"/", NONE},           {"/ws?token=", GOOD},
        {"/ws?room=lab&token=", GOOD}, {"/ws?token=", WRONG}, {"/chat", NONE},
        {"/ws?token=", TWICE},  {"/?token=", NONE},
    };
    static const char zeros[] = /* well formed, never lab's */
        "4102444800.0000000000000000000000000000000000000000000000000000000000000000";
    int token = targets[v & 7].token;
    const char *first = token == WRONG ? zeros : token != NONE ? good_token : "";
    (void)snprintf(out, cap, "%s%s%s", targets[v & 7].path, first,
                   token == TWICE ? good_token : "");
}

/* Bits 0-2: the target; 3-4: no Origin, the allowed one, another, the allowed one in
 * capitals; 5: version 8 instead of 13; 6: no Sec-WebSocket-Key; 7: a Connection list. */
static void op_upgrade(input_t *in)
{
    static const char *const origins[] = {"", "Origin: http://good.example\r\n",
                                          "Origin: http://evil.example\r\n",
                                          "Origin: HTTP://GOOD.EXAMPLE\r\n"};
    client_t *c = pick(in);
    uint8_t v = take(in);
    char target[200];
    char key[64];
    char req[1024];
    upgrade_target(v, target, sizeof target);
    (void)snprintf(key, sizeof key, "Sec-WebSocket-Key: %s\r\n", ws_key);
    int n = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sUpgrade: websocket\r\n"
                     "Connection: %s\r\n%sSec-WebSocket-Version: %s\r\n\r\n",
                     target, origins[(v >> 3) & 3], (v & 0x80) ? "keep-alive, Upgrade" : "Upgrade",
                     (v & 0x40) ? "" : key, (v & 0x20) ? "8" : "13");
    if (c != NULL && n > 0 && (size_t)n < sizeof req) {
        client_send(c, req, (size_t)n);
    }
}

/* A client frame: byte 0 as given (FIN, RSV, opcode); flags 0x80 unmasked, 0x40 a 16-bit
 * length, 0x20 a 64-bit one (the shortest form otherwise), 0x08 a zero key; then len and
 * the payload. */
static void op_frame(input_t *in)
{
    client_t *c = pick(in);
    uint8_t b0 = take(in);
    uint8_t flags = take(in);
    const uint8_t *bytes;
    size_t raw_len = take_bytes(in, take(in), &bytes);
    uint8_t *payload = wire + WS_MAX_HEADER;
    size_t len = expand(bytes, raw_len, payload, sizeof wire - WS_MAX_HEADER);
    uint8_t head[WS_MAX_HEADER];
    size_t h = 0;
    bool masked = (flags & 0x80) == 0;
    head[h++] = b0;
    uint8_t mask_bit = masked ? 0x80 : 0;
    if ((flags & 0x20) || len > 0xffff) {
        head[h++] = mask_bit | 127;
        for (int i = 7; i >= 0; i--) {
            head[h++] = (uint8_t)((uint64_t)len >> (8 * i));
        }
    } else if ((flags & 0x40) || len > 125) {
        head[h++] = mask_bit | 126;
        head[h++] = (uint8_t)(len >> 8);
        head[h++] = (uint8_t)len;
    } else {
        head[h++] = mask_bit | (uint8_t)len;
    }
    if (masked) {
        static const uint8_t key[4] = {0x37, 0xfa, 0x21, 0x3d};
        for (size_t i = 0; i < 4; i++) {
            head[h++] = (flags & 0x08) ? 0 : key[i];
        }
        for (size_t i = 0; i < len && (flags & 0x08) == 0; i++) {
            payload[i] ^= key[i % 4];
        }
    }
    memcpy(payload - h, head, h);
    if (c != NULL) {
        client_send(c, payload - h, h + len);
    }
}

static void op_time(input_t *in)
{
    static const uint32_t steps_ms[] = {1,    10,   100,   500,   1000,  2000,
                                        5000, 9999, 10000, 15000, 30000, 60000};
    now += steps_ms[take(in) % (sizeof steps_ms / sizeof steps_ms[0])];
    run_timers();
}

static void op_client(input_t *in, uint8_t op)
{
    client_t *c = pick(in);
    if (c == NULL || c->fd < 0) {
        return;
    }
    if (op == OP_STALL) {
        c->stalled = !c->stalled;
    } else if (op == OP_SHUT) {
        if (c->secure) {
            tls_session_close_notify(&c->tls); /* RFC 5246 §7.2.1, then the FIN */
            client_flush(c);
        }
        (void)shutdown(c->fd, SHUT_WR);
    } else {
        (void)close(c->fd);
        c->fd = -1;
    }
}

static void step(input_t *in)
{
    uint8_t b = take(in);
    uint8_t op = (uint8_t)((b & ~OP_THEN_DISPATCH) % OP_COUNT);
    if (op == OP_CONNECT) {
        op_connect(in);
    } else if (op == OP_WRITE) {
        op_write(in);
    } else if (op == OP_UPGRADE) {
        op_upgrade(in);
    } else if (op == OP_FRAME) {
        op_frame(in);
    } else if (op == OP_DISPATCH) {
        dispatch();
    } else if (op == OP_TIME) {
        op_time(in);
    } else {
        op_client(in, op);
    }
    if (b & OP_THEN_DISPATCH) {
        dispatch();
    }
}

/* ---- A run ---------------------------------------------------------------------------------- */

/* Byte 0: bit 0 --allow-origin http://good.example; bit 1 --token-key-file; bit 2
 * --idle-timeout 3 (else 45); bit 3 no --web; bit 4 --tls-cert. What cmd_signal.c's
 * configure() sets. */
static void start(uint8_t setup)
{
    /* The slots are free (the last run ended with every one free); the rest starts over. */
    memset(&srv, 0, offsetof(signal_server_t, ws));
    rand_state = 1;
    signal_server_init(&srv, &loop, &rand_src);
    tls_mode = (setup & 16) != 0;
    srv.tls = tls_mode ? &tls_identity : NULL;
    srv.idle_ms = (setup & 4) ? 3000 : 45000;
    srv.origins = good_origin;
    srv.origin_count = (setup & 1) ? 1 : 0;
    if (setup & 2) {
        sig_router_require_tokens(&srv.router, token_key, sizeof token_key - 1);
    }
    srv.web_dir = (setup & 8) ? -1 : web_dir;
    srv.epfd = epoll_create1(EPOLL_CLOEXEC);
    check(srv.epfd >= 0);
    srv.listener = listener; /* as signal_open_listener() adds it */
    signal_ep_set(&srv, EPOLL_CTL_ADD, listener, signal_ep_tag(TAG_LISTENER, 0), EPOLLIN);
    now = START_MS;
    client_count = 0;
    for (size_t i = 0; i < MAX_CONNS; i++) {
        clients[i].id[0] = '\0'; /* 0x01 N for a client not made yet: no id, as in every run */
    }
    run_timers(); /* next_ping 0: the first ping deadline is set, as signal_serve() does */
}

/* With ZQ_FUZZ_SIGNAL_LOG: what the run came to, after the server's own lines. */
static void report(void)
{
    (void)fprintf(stderr, "fuzz: router dropped %u frames, refused %u joins; messages read:",
                  (unsigned)srv.router.dropped_frames, (unsigned)srv.router.refused_joins);
    for (size_t i = 0; i < client_count; i++) {
        (void)fprintf(stderr, " %u", clients[i].messages);
    }
    (void)fprintf(stderr, "\n");
}

static void finish(void)
{
    for (size_t i = 0; i < client_count; i++) {
        clients[i].stalled = false;
    }
    drain_clients();
    for (int round = 0; epoll_has_ready(); round++) {
        check(round < SETTLE_ROUNDS); /* else an fd is ready and never served */
        dispatch();
    }
    signal_shutdown_all(&srv);
    signal_tls_shutdown_all(&srv, now); /* as signal_serve() stops */
    drain_clients();
    if (verbose) {
        report();
    }
    mark_fd(-2);
    check(check_ws_slots() == 0);
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_HTTP; i++) {
        check(srv.http[i].state == HTTP_FREE && srv.http[i].fd == -1);
    }
    check(sig_router_client_count(&srv.router) == 0);
    for (size_t i = 0; i < ZQ_SIGNAL_MAX_TLS; i++) {
        check(srv.tls_front[i].state == TLSF_FREE);
    }
    for (size_t i = 0; i < client_count; i++) {
        if (clients[i].fd >= 0) {
            (void)close(clients[i].fd);
            clients[i].fd = -1;
        }
        if (clients[i].secure) {
            tls_session_free(&clients[i].tls);
            clients[i].secure = false;
        }
    }
    check(fuzz_arena_in_use() == tls_baseline); /* every session of the run gave it back */
    (void)close(srv.epfd);
    srv.epfd = -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input_t in = {data, size};
    int free_fd = lowest_free_fd();
    start(take(&in));
    while (in.left > 0) {
        step(&in);
    }
    finish();
    check(lowest_free_fd() == free_fd); /* the server closed every fd it was handed */
    return 0;
}

/* ---- Once: the --web directory, the listener, the room token -------------------------------- */

static void put_file(const char *rel, const char *text, size_t len)
{
    char path[160];
    (void)snprintf(path, sizeof path, "%s/%s", web_root, rel);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    check(fd >= 0 && write(fd, text, len) == (ssize_t)len);
    (void)close(fd);
}

static void remove_web_root(void)
{
    static const char *const files[] = {"index.html", "app.js", "empty.txt", ".secret",
                                        "dash/index.html"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        (void)unlinkat(web_dir, files[i], 0);
    }
    (void)unlinkat(web_dir, "dash", AT_REMOVEDIR);
    (void)close(web_dir);
    (void)rmdir(web_root);
}

/* In the abstract namespace (nothing on disk), one name per process (-jobs runs several). */
static void open_listener(void)
{
    listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    check(listener >= 0);
    listen_addr.sun_family = AF_UNIX;
    int n = snprintf(listen_addr.sun_path + 1, sizeof listen_addr.sun_path - 1,
                     "zq-fuzz-signal.%ld", (long)getpid());
    listen_addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    check(bind(listener, (const struct sockaddr *)&listen_addr, listen_addr_len) == 0);
    check(listen(listener, 8) == 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    (void)signal(SIGPIPE, SIG_IGN); /* a client gone while the server writes: EPIPE only */
    verbose = getenv("ZQ_FUZZ_SIGNAL_LOG") != NULL;
    signal_log_quiet(!verbose);
    zq_loop_init(&loop);
    (void)snprintf(web_root, sizeof web_root, "/tmp/zq-fuzz-signal.XXXXXX");
    check(mkdtemp(web_root) != NULL);
    static char app_js[20000]; /* more than one buffer of the server's */
    for (size_t i = 0; i < sizeof app_js; i++) {
        app_js[i] = "console.log(1);\n"[i % 16];
    }
    put_file("index.html", "<!doctype html><title>zq</title>\n", 33);
    put_file("app.js", app_js, sizeof app_js);
    put_file("empty.txt", "", 0);
    put_file(".secret", "hidden\n", 7);
    char dash[96];
    (void)snprintf(dash, sizeof dash, "%s/dash", web_root);
    check(mkdir(dash, 0755) == 0);
    put_file("dash/index.html", "<!doctype html><title>dash</title>\n", 35);
    web_dir = open(web_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    check(web_dir >= 0);
    (void)atexit(remove_web_root);
    open_listener();
    sig_room_token(token_key, sizeof token_key - 1, "lab", 4102444800u /* 2100-01-01 */,
                   good_token);
    for (size_t i = 0; i < MAX_CONNS; i++) {
        clients[i].fd = -1;
    }
    /* --tls-cert's identity, and the clients' trust in it (the certificate is its own CA). */
    dtls_arena_init(tls_arena, sizeof tls_arena);
    check(tls_server_config_init(&tls_identity, &rand_src, fuzz_server_cert,
                                 sizeof fuzz_server_cert - 1, fuzz_server_key,
                                 sizeof fuzz_server_key - 1) == ZQ_OK);
    check(tls_client_config_init(&tls_trust, &rand_src, fuzz_server_cert,
                                 sizeof fuzz_server_cert - 1, NULL) == ZQ_OK);
    tls_baseline = fuzz_arena_in_use();
    return 0;
}

/* zq's DTLS on a real UDP socket, driven by a test script over its arguments and stdout, so
 * that DTLS implementations nobody here wrote (OpenSSL's s_server / s_client) can be tested
 * against it.
 *
 *   dtls_peer --role client --connect IP:PORT | --role server --listen IP:PORT
 *             --remote-fingerprint "sha-256 AB:..." [--send TEXT] [--expect TEXT]
 *             [--keylog FILE] [--timeout MS]
 *
 * It prints, one per line:
 *     fingerprint sha-256 AB:...     always first: its own certificate's, made fresh per run
 *     listening IP:PORT              server: the socket is bound, a client may start
 *     connected <cipher suite>       handshake done and the peer's fingerprint checked
 *     recv <text>                    each application record (trailing newline stripped)
 *     closed                         the peer sent close_notify
 *     failed <why>                   then exits 1
 *     stats ...                      last
 * Once connected it sends TEXT plus a newline (OpenSSL's tools are line-oriented). It exits 0
 * after a record containing the --expect text (or at once without --expect), having sent
 * close_notify. A server takes the first address that sends to it as its peer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port/posix/loop.h"
#include "port/zq_port.h"
#include "stack/dtls/dtls.h"

typedef struct {
    dtls_t conn;
    dtls_context_t *ctx;
    zq_loop_t *loop;
    dtls_role_t role;
    dtls_fingerprint_t remote_fp;
    zq_addr_t remote;
    bool started;
    const char *send;   /* NULL: send nothing */
    const char *expect; /* NULL: done once connected */
    bool done;          /* success: --expect seen (or connected, without --expect) */
    bool failed;
} peer_t;

/* The HelloVerifyRequest cookie binds to the client's transport address (RFC 6347 §4.2.1). */
static size_t address_id(const zq_addr_t *a, uint8_t out[18])
{
    size_t ip_len = a->family == ZQ_AF_INET6 ? 16 : 4;
    memcpy(out, a->ip, ip_len);
    out[ip_len] = (uint8_t)(a->port >> 8);
    out[ip_len + 1] = (uint8_t)a->port;
    return ip_len + 2;
}

static void finish(peer_t *p, uint64_t now)
{
    p->done = true;
    dtls_close(&p->conn, now); /* the loop sends close_notify before run() returns */
    zq_loop_stop(p->loop);
}

static void fail(peer_t *p, const char *why)
{
    printf("failed %s\n", why);
    p->failed = true;
    zq_loop_stop(p->loop);
}

/* Prints one record; OpenSSL sends what was typed, newline included. */
static void print_record(peer_t *p, uint64_t now, const uint8_t *data, int len)
{
    char text[2048];
    size_t n = (size_t)len < sizeof text ? (size_t)len : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    text[strcspn(text, "\r\n")] = '\0';
    printf("recv %s\n", text);
    if (p->expect != NULL && !p->done && strstr(text, p->expect) != NULL) {
        finish(p, now);
    }
}

static void on_datagram(void *obj, uint64_t now, const zq_addr_t *local, const zq_addr_t *remote,
                        const uint8_t *data, size_t len)
{
    peer_t *p = obj;
    (void)local;
    if (!p->started) { /* server: the first sender is the peer */
        uint8_t id[18];
        p->remote = *remote;
        if (dtls_start(&p->conn, p->ctx, DTLS_ROLE_SERVER, &p->remote_fp, id,
                       address_id(remote, id), now) != ZQ_OK) {
            fail(p, "dtls_start");
            return;
        }
        p->started = true;
    }
    if (!zq_addr_equal(remote, &p->remote) || p->done || p->failed) {
        return;
    }
    (void)dtls_handle_datagram(&p->conn, now, data, len);
    static uint8_t buf[4096]; /* dtls_read wants room for the largest record */
    int n;
    while (!p->done && (n = dtls_read(&p->conn, buf, sizeof buf)) > 0) {
        print_record(p, now, buf, n);
    }
}

static void on_timeout(void *obj, uint64_t now)
{
    peer_t *p = obj;
    dtls_handle_timeout(&p->conn, now);
}

static uint64_t next_timeout(void *obj)
{
    peer_t *p = obj;
    return p->started ? dtls_next_timeout(&p->conn) : ZQ_TIME_NEVER;
}

static bool poll_transmit(void *obj, zq_addr_t *local, zq_addr_t *remote, const uint8_t **data,
                          size_t *len)
{
    peer_t *p = obj;
    (void)local; /* one socket: the loop picks it */
    if (!p->started || !dtls_poll_transmit(&p->conn, data, len)) {
        return false;
    }
    *remote = p->remote;
    return true;
}

static void on_connected(peer_t *p, uint64_t now)
{
    printf("connected %s\n", dtls_cipher_suite(&p->conn));
    if (p->send != NULL) {
        char line[1024];
        int n = snprintf(line, sizeof line, "%s\n", p->send);
        if (n < 0 || (size_t)n >= sizeof line ||
            dtls_write(&p->conn, now, (const uint8_t *)line, (size_t)n) != ZQ_OK) {
            fail(p, "dtls_write");
            return;
        }
    }
    if (p->expect == NULL) {
        finish(p, now);
    }
}

static void after_io(void *obj, uint64_t now)
{
    peer_t *p = obj;
    dtls_event_t ev;
    while (p->started && dtls_poll_event(&p->conn, &ev)) {
        if (ev.type == DTLS_EVENT_CONNECTED) {
            on_connected(p, now);
        } else if (ev.type == DTLS_EVENT_CLOSED) {
            printf("closed\n");
            zq_loop_stop(p->loop);
        } else {
            fail(p, dtls_failure_text(ev.failure));
        }
    }
    fflush(stdout);
}

static const zq_driver_t peer_driver = {on_datagram, on_timeout, next_timeout, poll_transmit,
                                        after_io};

static void write_keylog(void *ctx, const char *line)
{
    FILE *f = ctx;
    fprintf(f, "%s\n", line);
    fflush(f);
}

static const char *arg_value(int argc, char **argv, const char *name, const char *fallback)
{
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return argv[i + 1];
        }
    }
    return fallback;
}

/* Identity, context and socket; prints the fingerprint and, for a server, "listening". */
static int setup(peer_t *p, int argc, char **argv, zq_socket_t *sock, zq_addr_t *bound)
{
    static uint8_t arena[256 * 1024];
    static dtls_identity_t identity;
    static dtls_context_t ctx;
    static zq_rand_t rng; /* borrowed by the context: must outlive it */
    const char *fp_text = arg_value(argc, argv, "--remote-fingerprint", "");
    const char *keylog = arg_value(argc, argv, "--keylog", NULL);
    bool server = p->role == DTLS_ROLE_SERVER;
    const char *where = arg_value(argc, argv, server ? "--listen" : "--connect", "");
    zq_addr_t want = zq_addr_v4(127, 0, 0, 1, 0);
    char text[DTLS_FINGERPRINT_TEXT_MAX];

    rng = zq_port_rand();
    dtls_arena_init(arena, sizeof arena);
    if (dtls_fingerprint_parse(fp_text, strlen(fp_text), &p->remote_fp) != ZQ_OK ||
        zq_addr_parse(where, strlen(where), server ? &want : &p->remote) != ZQ_OK) {
        fprintf(stderr, "dtls_peer: bad --remote-fingerprint, --listen or --connect\n");
        return -1;
    }
    if (dtls_identity_generate(&identity, &rng) != ZQ_OK ||
        dtls_fingerprint_format(&identity.fingerprint, text, sizeof text) == 0) {
        return -1;
    }
    printf("fingerprint %s\n", text);
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    cfg.rand = rng;
    if (keylog != NULL) {
        cfg.keylog = write_keylog;
        cfg.keylog_ctx = fopen(keylog, "w");
        if (cfg.keylog_ctx == NULL) {
            perror(keylog);
            return -1;
        }
    }
    if (dtls_context_init(&ctx, &cfg, &identity) != ZQ_OK ||
        zq_port_udp_open(sock, &want, bound) != ZQ_OK) {
        return -1;
    }
    p->ctx = &ctx;
    if (server) {
        zq_addr_format(bound, text, sizeof text);
        printf("listening %s\n", text);
    }
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    static zq_loop_t loop;
    static peer_t peer;
    bool server = strcmp(arg_value(argc, argv, "--role", "client"), "server") == 0;
    unsigned timeout_ms = (unsigned)atoi(arg_value(argc, argv, "--timeout", "10000"));
    zq_socket_t sock;
    zq_addr_t bound;

    zq_port_init();
    peer.loop = &loop;
    peer.role = server ? DTLS_ROLE_SERVER : DTLS_ROLE_CLIENT;
    peer.send = arg_value(argc, argv, "--send", NULL);
    peer.expect = arg_value(argc, argv, "--expect", NULL);
    if (setup(&peer, argc, argv, &sock, &bound) != 0) {
        printf("failed setup\n");
        return 1;
    }
    size_t id;
    zq_loop_init(&loop);
    zq_loop_add_driver(&loop, &peer_driver, &peer, &id);
    zq_loop_add_socket(&loop, id, sock, &bound);
    uint64_t now = zq_port_now_ms();
    if (!server) {
        if (dtls_start(&peer.conn, peer.ctx, DTLS_ROLE_CLIENT, &peer.remote_fp, NULL, 0, now) !=
            ZQ_OK) {
            printf("failed dtls_start\n");
            return 1;
        }
        peer.started = true; /* run() sends the ClientHello first */
    }
    if (zq_loop_run(&loop, now + timeout_ms) == ZQ_ERR_TIMEOUT) {
        printf("failed timeout after %u ms (%s)\n", timeout_ms,
               peer.started && dtls_state(&peer.conn) == DTLS_STATE_CONNECTED
                   ? "connected, expected text not received"
                   : "handshake not done");
    }
    const dtls_stats_t *st = dtls_stats(&peer.conn);
    printf("stats rx=%u tx=%u dropped=%u discarded=%u hello_verify=%u\n", st->rx_datagrams,
           st->tx_datagrams, st->rx_dropped, st->rx_discarded, st->hello_verify_sent);
    dtls_free(&peer.conn);
    zq_port_udp_close(sock);
    return peer.done ? 0 : 1;
}

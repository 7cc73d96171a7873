#include "cli/cmd_stun.h"

#include <inttypes.h>
#include <string.h>

#include "cli/cli.h"
#include "port/posix/loop.h"
#include "port/zq_port.h"
#include "zq/time.h"

#ifndef ZQ_VERSION
#define ZQ_VERSION "unknown"
#endif

/* RFC 8489 §14.14: SOFTWARE names the agent, for the other side's logs. */
static const char software[] = "zq " ZQ_VERSION;

/* ---- Client ------------------------------------------------------------------------------ */

void zq_stun_client_config_default(zq_stun_client_config_t *cfg)
{
    cfg->rto_ms = 500;
    cfg->max_sends = 7;
    cfg->final_wait_factor = 16;
    cfg->timeout_ms = 0;
}

/* RFC 8489 §6.2.1, on the ICE agent's schedule (stun_next_retransmit()): with the defaults
 * requests at 0, 500, 1500, 3500, 7500, 15500, 31500, failed at 39500. */
static void send_request(zq_stun_client_t *c, uint64_t now)
{
    c->sends++;
    c->tx_pending = true;
    c->last_sent_at = now;
    c->next_at = stun_next_retransmit(now, c->sends, c->cfg.max_sends, c->cfg.rto_ms,
                                      c->cfg.final_wait_factor, &c->rto);
}

zq_err_t zq_stun_client_start(zq_stun_client_t *c, const zq_stun_client_config_t *cfg,
                              const zq_rand_t *rand, uint64_t now, const zq_addr_t *local,
                              const zq_addr_t *server)
{
    if (cfg->max_sends == 0 || cfg->rto_ms == 0 || server->family == ZQ_AF_NONE) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(c, 0, sizeof *c);
    c->cfg = *cfg;
    c->local = *local;
    c->server = *server;
    c->state = ZQ_STUN_CLIENT_WAITING;
    if (zq_rand_bytes(rand, c->tid, sizeof c->tid) != ZQ_OK) {
        return ZQ_ERR_CRYPTO;
    }
    stun_builder_t b;
    stun_build_start(&b, c->request, sizeof c->request, STUN_BINDING_REQUEST, c->tid);
    stun_put_attr(&b, STUN_ATTR_SOFTWARE, software, sizeof software - 1);
    stun_put_fingerprint(&b);
    c->request_len = stun_build_finish(&b);
    if (c->request_len == 0) {
        return ZQ_ERR_NO_SPACE;
    }
    c->rto = cfg->rto_ms;
    c->started_at = now;
    c->give_up_at = cfg->timeout_ms != 0 ? now + cfg->timeout_ms : ZQ_TIME_NEVER;
    send_request(c, now);
    return ZQ_OK;
}

static void finish(zq_stun_client_t *c, zq_stun_client_state_t state)
{
    c->state = state;
    c->tx_pending = false;
}

/* RFC 8489 §6.3.4: a success response with an unknown comprehension-required attribute, or
 * without the address it exists to carry, ends the transaction as failed. */
static void on_success(zq_stun_client_t *c, const stun_msg_t *msg, uint64_t now)
{
    if (msg->unknown_required_count > 0 || msg->unknown_required_overflow) {
        c->problem = "a comprehension-required attribute zq does not know";
        finish(c, ZQ_STUN_CLIENT_BAD_RESPONSE);
        return;
    }
    if (msg->present & STUN_HAS_XOR_MAPPED_ADDRESS) {
        c->mapped = msg->xor_mapped;
        c->mapped_is_xor = true;
    } else if (msg->present & STUN_HAS_MAPPED_ADDRESS) {
        c->mapped = msg->mapped; /* RFC 8489 §14.1: servers of RFC 3489's time */
    } else {
        c->problem = "no XOR-MAPPED-ADDRESS";
        finish(c, ZQ_STUN_CLIENT_BAD_RESPONSE);
        return;
    }
    c->rtt_ms = now - c->last_sent_at;
    finish(c, ZQ_STUN_CLIENT_MAPPED);
}

static void on_error(zq_stun_client_t *c, const stun_msg_t *msg)
{
    c->error_code = msg->error_code;
    size_t n = msg->error_reason.len;
    if (n >= sizeof c->error_reason) {
        n = sizeof c->error_reason - 1;
    }
    if (n > 0) {
        memcpy(c->error_reason, msg->error_reason.data, n);
    }
    c->error_reason[n] = '\0';
    finish(c, ZQ_STUN_CLIENT_ERROR_RESPONSE);
}

void zq_stun_client_handle_datagram(zq_stun_client_t *c, uint64_t now, const zq_addr_t *local,
                                    const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    (void)local;
    stun_msg_t msg;
    if (c->state != ZQ_STUN_CLIENT_WAITING || !zq_addr_equal(remote, &c->server) ||
        stun_parse(&msg, data, len) != ZQ_OK || memcmp(msg.tid, c->tid, STUN_TID_LEN) != 0) {
        c->rx_ignored++;
        return;
    }
    if (msg.type == STUN_BINDING_SUCCESS) {
        on_success(c, &msg, now);
    } else if (msg.type == STUN_BINDING_ERROR && (msg.present & STUN_HAS_ERROR_CODE)) {
        on_error(c, &msg);
    } else {
        c->rx_ignored++;
    }
}

void zq_stun_client_handle_timeout(zq_stun_client_t *c, uint64_t now)
{
    if (c->state != ZQ_STUN_CLIENT_WAITING) {
        return;
    }
    if (now >= c->give_up_at) {
        finish(c, ZQ_STUN_CLIENT_TIMED_OUT);
    } else if (now >= c->next_at) {
        if (c->sends == c->cfg.max_sends) {
            finish(c, ZQ_STUN_CLIENT_TIMED_OUT);
        } else {
            send_request(c, now);
        }
    }
}

uint64_t zq_stun_client_next_timeout(const zq_stun_client_t *c)
{
    return c->state == ZQ_STUN_CLIENT_WAITING ? zq_time_min(c->next_at, c->give_up_at)
                                               : ZQ_TIME_NEVER;
}

bool zq_stun_client_poll_transmit(zq_stun_client_t *c, zq_addr_t *local, zq_addr_t *remote,
                                  const uint8_t **data, size_t *len)
{
    if (!c->tx_pending) {
        return false;
    }
    c->tx_pending = false;
    *local = c->local;
    *remote = c->server;
    *data = c->request;
    *len = c->request_len;
    return true;
}

/* ---- Server ------------------------------------------------------------------------------ */

void zq_stun_server_init(zq_stun_server_t *s)
{
    memset(s, 0, sizeof *s);
}

static void build_success(stun_builder_t *b, const zq_addr_t *remote)
{
    stun_put_xor_address(b, STUN_ATTR_XOR_MAPPED_ADDRESS, remote);
    stun_put_attr(b, STUN_ATTR_SOFTWARE, software, sizeof software - 1);
}

static void build_unknown_attr(stun_builder_t *b, const stun_msg_t *req)
{
    stun_put_error_code(b, STUN_ERROR_UNKNOWN_ATTRIBUTE, "Unknown Attribute");
    stun_put_unknown_attributes(b, req->unknown_required, req->unknown_required_count);
}

/* RFC 8489 §6.3.1: a request with comprehension-required attributes the server does not know
 * gets a 420 naming them; any other Binding request a success response. */
static void queue_response(zq_stun_server_t *s, const stun_msg_t *req, const zq_addr_t *local,
                           const zq_addr_t *remote)
{
    if (s->count == ZQ_STUN_SERVER_QUEUE) {
        s->stats.unsent++;
        return;
    }
    zq_stun_reply_t *r = &s->queue[(s->head + s->count) % ZQ_STUN_SERVER_QUEUE];
    bool unknown = req->unknown_required_count > 0;
    stun_builder_t b;
    stun_build_start(&b, r->data, sizeof r->data,
                     unknown ? STUN_BINDING_ERROR : STUN_BINDING_SUCCESS, req->tid);
    if (unknown) {
        build_unknown_attr(&b, req);
    } else {
        build_success(&b, remote);
    }
    stun_put_fingerprint(&b);
    r->len = stun_build_finish(&b);
    if (r->len == 0) {
        s->stats.unsent++; /* cannot happen: both answers fit ZQ_STUN_MAX_MESSAGE */
        return;
    }
    r->local = *local;
    r->remote = *remote;
    s->count++;
    if (unknown) {
        s->stats.unknown_attr++;
    } else {
        s->stats.answered++;
    }
}

void zq_stun_server_handle_datagram(zq_stun_server_t *s, const zq_addr_t *local,
                                    const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    if (!stun_looks_like(data, len)) {
        s->stats.not_stun++;
        return;
    }
    stun_msg_t msg;
    if (stun_parse(&msg, data, len) != ZQ_OK) {
        s->stats.malformed++;
        return;
    }
    if (msg.type != STUN_BINDING_REQUEST) {
        s->stats.ignored++;
        return;
    }
    queue_response(s, &msg, local, remote);
}

bool zq_stun_server_poll_transmit(zq_stun_server_t *s, zq_addr_t *local, zq_addr_t *remote,
                                  const uint8_t **data, size_t *len)
{
    if (s->count == 0) {
        return false;
    }
    const zq_stun_reply_t *r = &s->queue[s->head];
    s->head = (uint8_t)((s->head + 1) % ZQ_STUN_SERVER_QUEUE);
    s->count--;
    *local = r->local;
    *remote = r->remote;
    *data = r->data;
    *len = r->len;
    return true;
}

/* ---- Loop glue --------------------------------------------------------------------------- */

static zq_stun_client_t *client_of(void *obj)
{
    return &((zq_stun_client_run_t *)obj)->client;
}

static void client_datagram(void *obj, uint64_t now, const zq_addr_t *local,
                            const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    zq_stun_client_handle_datagram(client_of(obj), now, local, remote, data, len);
}

static void client_timeout(void *obj, uint64_t now)
{
    zq_stun_client_handle_timeout(client_of(obj), now);
}

static uint64_t client_next_timeout(void *obj)
{
    return zq_stun_client_next_timeout(client_of(obj));
}

static bool client_transmit(void *obj, zq_addr_t *local, zq_addr_t *remote, const uint8_t **data,
                            size_t *len)
{
    return zq_stun_client_poll_transmit(client_of(obj), local, remote, data, len);
}

static void client_after_io(void *obj, uint64_t now)
{
    (void)now;
    zq_stun_client_run_t *run = obj;
    if (run->client.state != ZQ_STUN_CLIENT_WAITING) {
        zq_loop_stop(run->loop);
    }
}

const zq_driver_t zq_stun_client_driver = {
    .handle_datagram = client_datagram,
    .handle_timeout = client_timeout,
    .next_timeout = client_next_timeout,
    .poll_transmit = client_transmit,
    .after_io = client_after_io,
};

static void server_datagram(void *obj, uint64_t now, const zq_addr_t *local,
                            const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    (void)now;
    zq_stun_server_handle_datagram(obj, local, remote, data, len);
}

static bool server_transmit(void *obj, zq_addr_t *local, zq_addr_t *remote, const uint8_t **data,
                            size_t *len)
{
    return zq_stun_server_poll_transmit(obj, local, remote, data, len);
}

const zq_driver_t zq_stun_server_driver = {
    .handle_datagram = server_datagram,
    .poll_transmit = server_transmit,
};

/* ---- Command line ------------------------------------------------------------------------ */

#define STUN_DEFAULT_PORT 3478

typedef struct {
    bool serve;
    const char *server;
    const char *bind;
    const char *timeout;
    const char *listen[ZQ_LOOP_MAX_SOCKETS];
    size_t listen_count;
} stun_options_t;

void zq_cmd_stun_help(FILE *out)
{
    (void)fputs(
        "usage: zq stun [--server HOST[:PORT]] [--bind ADDR] [--timeout MS]\n"
        "       zq stun --serve [--listen ADDR]...\n"
        "\n"
        "Asks a STUN server (RFC 8489) for this host's mapped address, the address the server\n"
        "saw the request come from (behind a NAT: the public one, ICE's server-reflexive\n"
        "candidate). Sends a Binding request, retransmits it after 500 ms, 1 s, 2 s... (7\n"
        "requests at most, RFC 8489 §6.2.1), and prints the XOR-MAPPED-ADDRESS of the answer:\n"
        "\n"
        "    xor-mapped-address 203.0.113.7:40212 rtt 23 ms requests 1\n"
        "\n"
        "rtt counts from the last request sent. An answer from an RFC 3489 server prints\n"
        "mapped-address instead.\n"
        "\n"
        "With --serve, answers Binding requests instead, each with a success response carrying\n"
        "the address the request came from (no credentials), until SIGINT or SIGTERM; then\n"
        "prints what it answered and dropped. A local server for ICE tests, or a real one.\n"
        "\n"
        "options:\n"
        "  --server HOST[:PORT]  the server to ask (default 127.0.0.1:3478); HOST is an IP,\n"
        "                        [IPv6] or a name; PORT defaults to 3478\n"
        "  --bind ADDR           send from this IP or IP:PORT (default: any address of the\n"
        "                        server's family, any port)\n"
        "  --timeout MS          give up after MS milliseconds (default: the RFC's 39500)\n"
        "  --serve               be the server\n"
        "  --listen ADDR         with --serve: IP:PORT to serve on (default 0.0.0.0:3478);\n"
        "                        repeat it to serve several, e.g. IPv4 and IPv6\n"
        "  --help                show this help\n"
        "\n"
        "exit status: 0 mapped address printed (or server stopped by a signal), 1 no answer,\n"
        "an error answer or an I/O error, 2 usage error.\n",
        out);
}

/* Stores the value of the option @p name; returns -1 to go on, or an exit code. */
static int store_value(stun_options_t *o, const char *name, const char *value)
{
    if (value == NULL) {
        return zq_cli_usage_error("stun", "%s needs a value", name);
    }
    if (strcmp(name, "--server") == 0) {
        o->server = value;
    } else if (strcmp(name, "--bind") == 0) {
        o->bind = value;
    } else if (strcmp(name, "--timeout") == 0) {
        o->timeout = value;
    } else if (o->listen_count < ZQ_LOOP_MAX_SOCKETS) {
        o->listen[o->listen_count++] = value;
    } else {
        return zq_cli_usage_error("stun", "at most %d --listen", ZQ_LOOP_MAX_SOCKETS);
    }
    return -1;
}

/* One option word; returns -1 to go on, or an exit code. */
static int parse_option(int argc, char **argv, int *i, stun_options_t *o)
{
    static const char *const with_value[] = {"--server", "--bind", "--timeout", "--listen"};
    const char *arg = argv[*i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        zq_cmd_stun_help(stdout);
        return ZQ_CLI_EXIT_OK;
    }
    if (strcmp(arg, "--serve") == 0) {
        o->serve = true;
        return -1;
    }
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++) {
        const char *value;
        if (zq_cli_take_value(argc, argv, i, with_value[k], &value)) {
            return store_value(o, with_value[k], value);
        }
    }
    if (arg[0] == '-') {
        return zq_cli_usage_error("stun", "unknown option '%s'", arg);
    }
    return zq_cli_usage_error("stun", "unexpected argument '%s'", arg);
}

static int check_mode(const stun_options_t *o)
{
    if (o->serve && (o->server || o->bind || o->timeout)) {
        return zq_cli_usage_error("stun", "--serve takes --listen, not %s",
                                  o->server ? "--server" : o->bind ? "--bind" : "--timeout");
    }
    if (!o->serve && o->listen_count > 0) {
        return zq_cli_usage_error("stun", "--listen is for --serve; a client takes --bind");
    }
    return -1;
}

static int parse_options(int argc, char **argv, stun_options_t *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        int rc = parse_option(argc, argv, &i, o);
        if (rc >= 0) {
            return rc;
        }
    }
    return check_mode(o);
}

/* The client's addresses and limits from its options; returns -1 or an exit code. */
static int client_setup(const stun_options_t *o, zq_addr_t *server, zq_addr_t *bind,
                        zq_stun_client_config_t *cfg)
{
    zq_stun_client_config_default(cfg);
    if (o->timeout && zq_cli_parse_u32(o->timeout, 1, UINT32_MAX, &cfg->timeout_ms) != ZQ_OK) {
        return zq_cli_usage_error("stun", "--timeout wants milliseconds, not '%s'", o->timeout);
    }
    uint8_t family = ZQ_AF_NONE;
    if (o->bind) {
        if (zq_cli_parse_addr(o->bind, 0, bind) != ZQ_OK) {
            return zq_cli_usage_error("stun", "--bind wants IP or IP:PORT, not '%s'", o->bind);
        }
        family = bind->family;
    }
    const char *text = o->server ? o->server : "127.0.0.1";
    if (o->bind && zq_cli_parse_addr(text, STUN_DEFAULT_PORT, server) == ZQ_OK &&
        server->family != family) {
        return zq_cli_usage_error("stun", "--server %s and --bind %s are not of one family",
                                  text, o->bind);
    }
    zq_err_t err = zq_cli_resolve(text, STUN_DEFAULT_PORT, family, server);
    if (err == ZQ_ERR_MALFORMED) {
        return zq_cli_usage_error("stun", "--server wants HOST[:PORT], not '%s'", text);
    }
    if (err != ZQ_OK) {
        return zq_cli_fail("stun", "cannot resolve '%s'%s", text,
                           family == ZQ_AF_NONE ? "" : " to the family of --bind");
    }
    if (!o->bind) {
        *bind = zq_cli_any_addr(server->family, 0);
    }
    return -1;
}

static int report_client(const zq_stun_client_t *c)
{
    char server[ZQ_ADDR_TEXT_MAX];
    char mapped[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(&c->server, server, sizeof server);
    (void)zq_addr_format(&c->mapped, mapped, sizeof mapped);
    switch (c->state) {
    case ZQ_STUN_CLIENT_MAPPED:
        (void)printf("%s %s rtt %" PRIu64 " ms requests %u\n",
                     c->mapped_is_xor ? "xor-mapped-address" : "mapped-address", mapped,
                     c->rtt_ms, (unsigned)c->sends);
        return ZQ_CLI_EXIT_OK;
    case ZQ_STUN_CLIENT_ERROR_RESPONSE:
        return zq_cli_fail("stun", "%s answered with error %u %s", server,
                           (unsigned)c->error_code, c->error_reason);
    case ZQ_STUN_CLIENT_BAD_RESPONSE:
        return zq_cli_fail("stun", "%s answered with %s", server, c->problem);
    case ZQ_STUN_CLIENT_TIMED_OUT:
        return zq_cli_fail("stun", "no answer from %s to %u requests", server,
                           (unsigned)c->sends);
    default:
        return zq_cli_fail("stun", "interrupted before %s answered", server);
    }
}

static int run_client(const stun_options_t *o)
{
    static zq_loop_t loop;
    static zq_stun_client_run_t run;
    zq_stun_client_config_t cfg;
    zq_addr_t server;
    zq_addr_t bind;
    int rc = client_setup(o, &server, &bind, &cfg);
    if (rc >= 0) {
        return rc;
    }
    zq_socket_t sock;
    zq_addr_t bound;
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(&bind, text, sizeof text);
    if (zq_port_udp_open(&sock, &bind, &bound) != ZQ_OK) {
        return zq_cli_fail("stun", "cannot open a UDP socket on %s", text);
    }
    zq_loop_init(&loop);
    run.loop = &loop;
    size_t id;
    zq_rand_t rand = zq_port_rand();
    if (zq_stun_client_start(&run.client, &cfg, &rand, zq_loop_now(&loop), &bound, &server) !=
            ZQ_OK ||
        zq_loop_add_driver(&loop, &zq_stun_client_driver, &run, &id) != ZQ_OK ||
        zq_loop_add_socket(&loop, id, sock, &bound) != ZQ_OK) {
        zq_port_udp_close(sock);
        return zq_cli_fail("stun", "cannot start the request");
    }
    zq_loop_stop_on_signals(&loop);
    zq_err_t err = zq_loop_run(&loop, ZQ_TIME_NEVER);
    zq_loop_stop_on_signals(NULL);
    zq_port_udp_close(sock);
    if (err != ZQ_OK) {
        return zq_cli_fail("stun", "event loop: %s", zq_strerror(err));
    }
    return report_client(&run.client);
}

static void report_server(const zq_stun_server_t *s)
{
    const zq_stun_server_stats_t *st = &s->stats;
    (void)printf("answered %" PRIu32 " requests (%" PRIu32 " with 420); dropped %" PRIu32
                 " not STUN, %" PRIu32 " malformed, %" PRIu32 " not Binding requests, %" PRIu32
                 " unsent\n",
                 st->answered + st->unknown_attr, st->unknown_attr, st->not_stun, st->malformed,
                 st->ignored, st->unsent);
}

/* Opens every --listen address; returns -1 or an exit code (the caller closes what opened). */
static int open_listeners(const stun_options_t *o, zq_loop_t *loop, size_t id,
                          zq_socket_t *socks, size_t *count)
{
    static const char *const fallback[] = {"0.0.0.0:3478"};
    const char *const *list = o->listen_count > 0 ? o->listen : fallback;
    size_t n = o->listen_count > 0 ? o->listen_count : 1;
    for (*count = 0; *count < n; (*count)++) {
        zq_addr_t want;
        zq_addr_t bound;
        if (zq_cli_parse_addr(list[*count], STUN_DEFAULT_PORT, &want) != ZQ_OK) {
            return zq_cli_usage_error("stun", "--listen wants IP[:PORT], not '%s'", list[*count]);
        }
        if (zq_port_udp_open(&socks[*count], &want, &bound) != ZQ_OK) {
            return zq_cli_fail("stun", "cannot listen on %s", list[*count]);
        }
        (void)zq_loop_add_socket(loop, id, socks[*count], &bound);
    }
    return -1;
}

static void print_listeners(const zq_loop_t *loop)
{
    for (size_t i = 0; i < loop->socket_count; i++) {
        char text[ZQ_ADDR_TEXT_MAX];
        (void)zq_addr_format(&loop->sockets[i].local, text, sizeof text);
        (void)printf("serving STUN on %s\n", text);
    }
    /* A script waiting for these lines must see them before it sends anything. */
    (void)fflush(stdout);
}

static int run_server(const stun_options_t *o)
{
    static zq_loop_t loop;
    static zq_stun_server_t server;
    zq_loop_init(&loop);
    zq_stun_server_init(&server);
    size_t id;
    (void)zq_loop_add_driver(&loop, &zq_stun_server_driver, &server, &id);
    zq_socket_t socks[ZQ_LOOP_MAX_SOCKETS];
    size_t count = 0;
    int rc = open_listeners(o, &loop, id, socks, &count);
    if (rc < 0) {
        print_listeners(&loop);
        zq_loop_stop_on_signals(&loop);
        zq_err_t err = zq_loop_run(&loop, ZQ_TIME_NEVER);
        zq_loop_stop_on_signals(NULL);
        report_server(&server);
        rc = err == ZQ_OK ? ZQ_CLI_EXIT_OK
                          : zq_cli_fail("stun", "event loop: %s", zq_strerror(err));
    }
    for (size_t i = 0; i < count; i++) {
        zq_port_udp_close(socks[i]);
    }
    return rc;
}

int zq_cmd_stun(int argc, char **argv)
{
    stun_options_t o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) {
        return rc;
    }
    return o.serve ? run_server(&o) : run_client(&o);
}

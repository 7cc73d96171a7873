/* `zq echo`: node/echo.h over a UDP socket, a WebSocket to the signalling server, and the
 * poll loop. The program only moves bytes and prints what happened; the node decides. */
#include "cli/cmd_echo.h"

#include <inttypes.h>
#include <string.h>

#include "node/echo.h"
#include "node/node.h"
#include "cli/cli.h"
#include "port/posix/loop.h"
#include "cli/node_host.h"
#include "cli/sig_link.h"
#include "port/zq_port.h"
#include "stack/dtls/dtls.h"

#define ECHO_CMD "echo"
#define DEFAULT_SIGNAL "ws://127.0.0.1:8080/ws"
#define DEFAULT_ROOM "default-topic"

typedef struct {
    const char *signal;
    const char *room;
    const char *bind;
    uint32_t probes;
    bool once;
    bool ice_lite; /* --ice lite */
} echo_options_t;

typedef struct {
    echo_options_t opt;
    zq_loop_t loop;
    zq_rand_t rand;
    dtls_identity_t identity;
    dtls_context_t dtls;
    node_t node;
    echo_t echo;
    zq_node_host_t nh;
    uint32_t refused_seen[ZQ_NODE_MAX_PEERS]; /* each slot's refused channel opens, reported */
    unsigned probe_rounds;  /* peers whose probes finished */
    bool probe_failed;
    int exit_code;
} echo_app_t;

static echo_app_t app; /* large (node, WebSocket buffers): static */

/* ---- Events -------------------------------------------------------------------------------- */

static void print_event(echo_app_t *a, const node_event_t *ev)
{
    char line[NODE_DESCRIBE_MAX];
    switch (ev->type) {
    case NODE_EVENT_WELCOME:
        (void)fprintf(stderr, "zq echo: in room '%s' as %s\n", a->opt.room, a->node.my_id);
        break;
    case NODE_EVENT_PEER_CONNECTED:
    case NODE_EVENT_PEER_GONE:
        (void)node_describe_event(ev, line, sizeof line);
        (void)fprintf(stderr, "zq echo: peer %s %s\n", node_peer_id(&a->node, ev->peer), line);
        break;
    case NODE_EVENT_PEER_REFUSED:
    case NODE_EVENT_WAITING:
        (void)zq_sig_link_note_slots(&a->nh.sig, ev);
        break;
    case NODE_EVENT_RELAY:
        (void)node_describe_relay(&a->node, ev, line, sizeof line);
        (void)fprintf(stderr, "zq echo: %s\n", line);
        break;
    default:
        break;
    }
}

static void print_report(echo_app_t *a, const echo_report_t *r)
{
    (void)printf("probe %s: %" PRIu32 " of %" PRIu32 " back, rtt min/avg/max %" PRIu64
                 "/%" PRIu64 "/%" PRIu64 " ms\n",
                 node_peer_id(&a->node, r->peer), r->back, r->sent, r->rtt_min, r->rtt_avg,
                 r->rtt_max);
    (void)fflush(stdout);
    a->probe_rounds++;
    a->probe_failed = a->probe_failed || r->back < a->opt.probes;
    if (a->opt.once) {
        a->exit_code = a->probe_failed ? ZQ_CLI_EXIT_FAIL : ZQ_CLI_EXIT_OK;
        zq_loop_stop(&a->loop);
    }
}

/* ---- The host's callbacks ---------------------------------------------------------------- */

/* A channel the peer opened and the stack refused (RFC 8832 §6: a stream id of the opener's
 * wrong parity, one in use, no free channel, or a label too long) is closed there at once;
 * this says so, as nothing else would. */
static void report_refused_channels(echo_app_t *a)
{
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        const node_peer_t *np = &a->node.peers[i];
        uint32_t refused = np->used ? np->peer.dc.stats.refused_opens : 0;
        if (refused > a->refused_seen[i]) {
            (void)fprintf(stderr,
                          "zq echo: peer %s: refused %" PRIu32 " data channel open(s) (wrong "
                          "stream-id parity, id in use, no free channel, or label too long)\n",
                          np->id, refused - a->refused_seen[i]);
        }
        a->refused_seen[i] = refused;
    }
}

static void on_node_event(void *ctx, uint64_t now, const node_event_t *ev)
{
    echo_app_t *a = ctx;
    print_event(a, ev);
    echo_handle_event(&a->echo, now, ev);
}

/* Echoing reads messages: the host rounds again if that opened a channel. */
static void on_read(void *ctx, uint64_t now)
{
    echo_app_t *a = ctx;
    echo_pump(&a->echo, now);
}

static void on_idle(void *ctx, uint64_t now)
{
    echo_app_t *a = ctx;
    (void)now;
    echo_report_t r;
    while (echo_poll_report(&a->echo, &r)) {
        print_report(a, &r);
    }
    report_refused_channels(a);
}

static const zq_host_callbacks_t echo_callbacks = {
    .on_node_event = on_node_event,
    .on_read = on_read,
    .on_idle = on_idle,
};

/* ---- Command line -------------------------------------------------------------------------- */

void zq_cmd_echo_help(FILE *out)
{
    (void)fputs(
        "usage: zq echo [--signal URL] [--room NAME] [--bind IP] [--ice full|lite]\n"
        "               [--probe N [--once]]\n"
        "\n"
        "Joins a room of a ZeroQ signalling server (zq signal) and connects to every peer in\n"
        "it: browsers with ZeroQ or zq.js, aiortc, other zq nodes. Each peer gets one data\n"
        "channel labelled with the room name. Every message a peer sends comes back to it on\n"
        "that channel, text as text and binary as binary, any size up to the peer's\n"
        "max-message-size (zq advertises 262144), piece by piece through 16 KiB buffers.\n"
        "\n"
        "It runs as a device does: a full ICE agent when it dials (when it hears\n"
        "peer_joined) and when it answers, the DTLS client when it answers. If the\n"
        "signalling server goes away, connected peers keep talking and it reconnects (1 s\n"
        "doubling to 30 s).\n"
        "\n"
        "options:\n"
        "  --signal URL   the server's WebSocket (default " DEFAULT_SIGNAL ")\n"
        ZQ_CLI_WSS_HELP("                 ")
        "  --room NAME    the room, also the channel label (default " DEFAULT_ROOM ")\n"
        "  --bind IP      the UDP address for WebRTC (default 0.0.0.0: every interface,\n"
        "                 loopback included); IPv6 with an IPv6 address\n"
        "  --ice MODE     full (default) or lite (RFC 8445 §2.5: answers checks, never\n"
        "                 sends one; meets only full agents, never another lite zq)\n"
        "  --probe N      send each peer N numbered probes, one at a time, and print their\n"
        "                 round trip when all came back\n"
        "  --once         with --probe: exit after the first peer's probes (0 if all came\n"
        "                 back)\n"
        "  --help         show this help\n"
        "\n"
        "exit status: 0 stopped by SIGINT or SIGTERM (or --once with every probe back),\n"
        "1 the server cannot be reached or a probe was lost, 2 usage error.\n",
        out);
}

static int store_value(echo_options_t *o, const char *name, const char *value)
{
    if (value == NULL) {
        return zq_cli_usage_error(ECHO_CMD, "%s needs a value", name);
    }
    if (strcmp(name, "--signal") == 0) {
        o->signal = value;
    } else if (strcmp(name, "--room") == 0) {
        o->room = value;
    } else if (strcmp(name, "--bind") == 0) {
        o->bind = value;
    } else if (strcmp(name, "--ice") == 0) {
        if (strcmp(value, "lite") != 0 && strcmp(value, "full") != 0) {
            return zq_cli_usage_error(ECHO_CMD, "--ice wants full or lite, not '%s'", value);
        }
        o->ice_lite = strcmp(value, "lite") == 0;
    } else if (zq_cli_parse_u32(value, 1, 1000000, &o->probes) != ZQ_OK) {
        return zq_cli_usage_error(ECHO_CMD, "--probe wants a count 1..1000000, not '%s'", value);
    }
    return -1;
}

static int parse_option(int argc, char **argv, int *i, echo_options_t *o)
{
    static const char *const with_value[] = {"--signal", "--room", "--bind", "--ice", "--probe"};
    const char *arg = argv[*i];
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        zq_cmd_echo_help(stdout);
        return ZQ_CLI_EXIT_OK;
    }
    if (strcmp(arg, "--once") == 0) {
        o->once = true;
        return -1;
    }
    for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++) {
        const char *value;
        if (zq_cli_take_value(argc, argv, i, with_value[k], &value)) {
            return store_value(o, with_value[k], value);
        }
    }
    return zq_cli_usage_error(ECHO_CMD, "%s '%s'",
                              arg[0] == '-' ? "unknown option" : "unexpected argument", arg);
}

static int parse_options(int argc, char **argv, echo_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->signal = DEFAULT_SIGNAL;
    o->room = DEFAULT_ROOM;
    o->bind = "0.0.0.0";
    for (int i = 1; i < argc; i++) {
        int rc = parse_option(argc, argv, &i, o);
        if (rc >= 0) {
            return rc;
        }
    }
    if (o->once && o->probes == 0) {
        return zq_cli_usage_error(ECHO_CMD, "--once goes with --probe N");
    }
    if (o->room[0] == '\0' || strlen(o->room) > ZQ_SIG_ROOM_MAX) {
        return zq_cli_usage_error(ECHO_CMD, "--room wants 1 to %d characters",
                                  ZQ_SIG_ROOM_MAX);
    }
    return -1;
}

/* ---- Setup --------------------------------------------------------------------------------- */

static int open_udp(echo_app_t *a, node_config_t *cfg)
{
    zq_addr_t want;
    if (zq_cli_parse_addr(a->opt.bind, 0, &want) != ZQ_OK) {
        return zq_cli_usage_error(ECHO_CMD, "--bind wants an IP address, not '%s'", a->opt.bind);
    }
    if (zq_node_host_open_udp(&a->nh, &want, cfg) == 0) {
        return zq_cli_fail(ECHO_CMD, "cannot open a UDP socket on %s", a->opt.bind);
    }
    return -1;
}

static int make_identity(echo_app_t *a)
{
    if (!zq_node_host_identity(&a->rand, &a->identity, &a->dtls)) {
        return zq_cli_fail(ECHO_CMD, "cannot make a DTLS certificate");
    }
    return -1;
}

static int start_node(echo_app_t *a)
{
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, a->opt.room, strlen(a->opt.room) + 1);
    cfg.rand = a->rand;
    cfg.dtls = &a->dtls;
    cfg.ice_lite = a->opt.ice_lite;
    int rc = open_udp(a, &cfg);
    if (rc >= 0) {
        return rc;
    }
    if (node_init(&a->node, &cfg) != ZQ_OK ||
        zq_node_host_drive(&a->nh, &a->loop, &cfg, NULL, a) != ZQ_OK) {
        return zq_cli_fail(ECHO_CMD, "cannot start the node");
    }
    zq_host_config_t hcfg;
    zq_host_config_default(&hcfg);
    hcfg.rand = a->rand;
    zq_host_init(&a->nh.host, &a->node, NULL, &hcfg, &echo_callbacks, a);
    echo_init(&a->echo, &a->node, a->opt.probes);
    return -1;
}

static int connect_signal(echo_app_t *a)
{
    const char *why = NULL;
    if (zq_sig_link_init(&a->nh.sig, ECHO_CMD, &a->loop, &a->nh.host, a->opt.signal,
                         &why) != ZQ_OK) {
        return zq_cli_usage_error(ECHO_CMD, "--signal '%s': %s", a->opt.signal, why);
    }
    if (zq_sig_link_open(&a->nh.sig, &why) != ZQ_OK) {
        return zq_cli_fail(ECHO_CMD, "cannot reach %s: %s", a->opt.signal, why);
    }
    (void)fprintf(stderr, "zq echo: connected to %s, joining '%s'\n", a->opt.signal, a->opt.room);
    return -1;
}

/* Closes every peer and gives the ABORTs a moment to leave before the socket closes. */
static void shut_down(echo_app_t *a)
{
    node_close(&a->node, zq_loop_now(&a->loop));
    (void)zq_loop_run(&a->loop, zq_loop_now(&a->loop) + 100);
    zq_sig_link_close(&a->nh.sig);
    const echo_stats_t *st = &a->echo.stats;
    (void)fprintf(stderr,
                  "zq echo: echoed %" PRIu64 " messages (%" PRIu64 " bytes); %" PRIu64
                  " refused by their peer\n",
                  st->messages, st->bytes, st->dropped);
}

int zq_cmd_echo(int argc, char **argv)
{
    echo_app_t *a = &app;
    memset(a, 0, sizeof *a);
    int rc = parse_options(argc, argv, &a->opt);
    if (rc >= 0) {
        return rc;
    }
    zq_loop_init(&a->loop);
    a->rand = zq_port_rand();
    if ((rc = make_identity(a)) < 0 && (rc = start_node(a)) < 0 && (rc = connect_signal(a)) < 0) {
        zq_loop_stop_on_signals(&a->loop);
        zq_err_t err = zq_loop_run(&a->loop, ZQ_TIME_NEVER);
        zq_loop_stop_on_signals(NULL);
        shut_down(a);
        rc = err != ZQ_OK ? zq_cli_fail(ECHO_CMD, "event loop: %s", zq_strerror(err))
                          : a->exit_code;
    }
    zq_node_host_close_udp(&a->nh);
    return rc;
}

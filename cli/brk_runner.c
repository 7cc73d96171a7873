/* The plumbing of the broker commands (see brk_runner.h): identity, UDP sockets, node and
 * broker on the host (node_host.h), what the command sees of it, and finishing. */
#include "cli/brk_runner.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"

/* After the last input the ABORTs of a close get this long to leave before the sockets
 * close. */
#define CLOSE_GRACE_MS 100


/* ---- Peers --------------------------------------------------------------------------------- */

bool zq_brk_runner_peer_ready(const zq_brk_runner_t *r, uint8_t slot)
{
    const brk_peer_t *p = &r->brk.peers[slot];
    return p->open && p->classified && (!p->zq || p->sub_received);
}

unsigned zq_brk_runner_ready_peers(const zq_brk_runner_t *r, bool zq_only)
{
    unsigned n = 0;
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        n += zq_brk_runner_peer_ready(r, i) && (!zq_only || r->brk.peers[i].zq);
    }
    return n;
}

bool zq_brk_runner_room_settled(const zq_brk_runner_t *r)
{
    unsigned used = 0;
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        const node_peer_t *p = &r->node.peers[i];
        if (p->used && !p->draining) {
            used++;
            if (!zq_brk_runner_peer_ready(r, i)) {
                return false; /* still connecting, or its hello or sub is on its way */
            }
        }
    }
    return used > 0;
}

/* Who the --verbose lines name: several devices may share a terminal or a log. */
static const char *label(const zq_brk_runner_t *r)
{
    return r->opt.label != NULL ? r->opt.label : r->cmd;
}

/* A member left out for want of a slot (or we by one) and a TURN allocation that failed,
 * always; with --verbose: who is in the room, when each peer can be sent to, the relay up. */
static void note_node_event(zq_brk_runner_t *r, const node_event_t *ev)
{
    if (zq_sig_link_note_slots(&r->nh.sig, ev)) { /* said even without --verbose: it is why */
        return;
    }
    if (ev->type == NODE_EVENT_RELAY && (r->opt.verbose || !ev->relay_up)) {
        char line[NODE_DESCRIBE_MAX];
        (void)node_describe_relay(&r->node, ev, line, sizeof line);
        (void)fprintf(stderr, "zq %s: %s\n", label(r), line);
        return;
    }
    if (!r->opt.verbose) {
        return;
    }
    if (ev->type == NODE_EVENT_WELCOME) {
        (void)fprintf(stderr, "zq %s: in room '%s' as %s\n", label(r), r->opt.room,
                      r->node.my_id);
    } else if (ev->type == NODE_EVENT_PEER_CONNECTED || ev->type == NODE_EVENT_PEER_GONE) {
        char line[NODE_DESCRIBE_MAX];
        (void)node_describe_event(ev, line, sizeof line);
        (void)fprintf(stderr, "zq %s: peer %s %s\n", label(r), node_peer_id(&r->node, ev->peer),
                      line);
    }
}

/* Said again when a peer taken for ZeroQ says hello after all (its first hello was lost, and
 * it sent it again: broker/PROTOCOL.md §2). */
_Static_assert(ZQ_NODE_MAX_PEERS <= 64, "ready_seen has a bit per peer slot");

static void note_ready_peers(zq_brk_runner_t *r)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        uint64_t bit = (uint64_t)1 << i;
        bool ready = zq_brk_runner_peer_ready(r, i);
        bool zq = ready && r->brk.peers[i].zq;
        bool news = ready && (!(r->ready_seen & bit) || (zq && !(r->ready_zq & bit)));
        if (news && r->opt.verbose) {
            (void)fprintf(stderr, "zq %s: peer %s ready (%s)\n", label(r),
                          node_peer_id(&r->node, i), zq ? "zq" : "ZeroQ");
        }
        r->ready_seen = ready ? r->ready_seen | bit : r->ready_seen & ~bit;
        r->ready_zq = zq ? r->ready_zq | bit : r->ready_zq & ~bit;
    }
}

/* ---- Finishing ----------------------------------------------------------------------------- */

void zq_brk_runner_finish(zq_brk_runner_t *r, int code)
{
    if (!r->finishing) {
        r->finishing = true;
        r->exit_code = code;
        r->finish_by = zq_loop_now(&r->loop) + ZQ_BRK_FLUSH_MAX_MS;
    }
}

void zq_brk_runner_fail(zq_brk_runner_t *r, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    (void)fprintf(stderr, "zq %s: ", r->cmd);
    (void)vfprintf(stderr, fmt, args);
    (void)fputc('\n', stderr);
    va_end(args);
    zq_brk_runner_finish(r, ZQ_CLI_EXIT_FAIL);
}

/* Whether every open peer has what we owe it: batched acks sent, published messages handed
 * over, and all of it acknowledged by its SCTP. Closing sooner would ABORT it away. */
static bool flushed(const zq_brk_runner_t *r)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        const node_peer_t *np = &r->node.peers[i];
        const brk_peer_t *bp = &r->brk.peers[i];
        if (!np->used || !np->open || !bp->open) {
            continue;
        }
        bool unsent = zq_brk_runner_peer_ready(r, i) && bp->sent_seq + 1 < r->brk.pub.next_seq;
        if (bp->ack_due || unsent || !sctp_all_acked(&np->peer.sctp)) {
            return false;
        }
    }
    return true;
}

uint64_t zq_brk_runner_now(zq_brk_runner_t *r)
{
    return zq_loop_now(&r->loop);
}

/* ---- The host's callbacks: what the command sees, and --verbose ------------------------- */

static void on_node_event(void *ctx, uint64_t now, const node_event_t *ev)
{
    (void)now;
    note_node_event(ctx, ev);
}

/* None once the command finished: what comes then is drained, so acks and pongs still go. */
static void on_event(void *ctx, uint64_t now, const brk_event_t *ev)
{
    zq_brk_runner_t *r = ctx;
    if (!r->finishing && r->cb.on_event != NULL) {
        r->cb.on_event(r->ctx, r, now, ev);
    }
}

static void on_idle(void *ctx, uint64_t now)
{
    zq_brk_runner_t *r = ctx;
    note_ready_peers(r);
    if (!r->finishing && r->cb.on_idle != NULL) {
        r->cb.on_idle(r->ctx, r, now);
    }
}

static uint64_t next_timeout(void *ctx)
{
    zq_brk_runner_t *r = ctx;
    if (r->finishing) {
        return r->finish_by;
    }
    return r->cb.next_timeout != NULL ? r->cb.next_timeout(r->ctx) : ZQ_TIME_NEVER;
}

static const zq_host_callbacks_t host_callbacks = {
    .on_node_event = on_node_event,
    .on_event = on_event,
    .on_idle = on_idle,
    .next_timeout = next_timeout,
};

/* After every turn: stdin's lines and child processes (extra fds, no host input) call the
 * broker too, so settle; then stop once finished and flushed. */
static void after_io(void *ctx, uint64_t now)
{
    zq_brk_runner_t *r = ctx;
    zq_host_settle(&r->nh.host, now);
    if (r->finishing && (now >= r->finish_by || flushed(r))) {
        zq_loop_stop(&r->loop);
    }
}

/* ---- Setup --------------------------------------------------------------------------------- */

/* Every IPv4 address of the host, loopback included (a browser on this host reaches us
 * there): one host candidate each. */
static int open_udp(zq_brk_runner_t *r, node_config_t *cfg)
{
    zq_addr_t any = zq_cli_any_addr(ZQ_AF_INET4, 0);
    if (zq_node_host_open_udp(&r->nh, &any, cfg) == 0) {
        return zq_cli_fail(r->cmd, "cannot open a UDP socket on any IPv4 address");
    }
    return -1;
}

static int make_identity(zq_brk_runner_t *r)
{
    const char *why = NULL;
    if (!zq_node_host_identity_file(&r->rand, r->opt.identity_file, &r->identity, &r->dtls,
                                    &why)) {
        return zq_cli_fail(r->cmd, "%s", why);
    }
    return -1;
}

/* ZeroQ puts Date.now() in an envelope's timestamp: the wall clock, in ms. */
_Static_assert(sizeof(time_t) == 8, "a 32-bit time_t wraps in 2038: build with _TIME_BITS=64");
static int64_t wall_offset_ms(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_REALTIME, &ts);
    int64_t wall = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    return wall - (int64_t)zq_port_now_ms();
}

static int start_broker(zq_brk_runner_t *r)
{
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, r->opt.room, strlen(r->opt.room) + 1);
    cfg.rand = r->rand;
    cfg.dtls = &r->dtls;
    int rc = open_udp(r, &cfg);
    if (rc >= 0) {
        return rc;
    }
    brk_config_t bcfg;
    brk_config_default(&bcfg);
    bcfg.rand = r->rand;
    bcfg.wall_offset_ms = wall_offset_ms();
    bcfg.hold_qos1 = r->opt.hold_qos1;
    if (node_init(&r->node, &cfg) != ZQ_OK || brk_init(&r->brk, &r->node, &bcfg) != ZQ_OK ||
        zq_node_host_drive(&r->nh, &r->loop, &cfg, after_io, r) != ZQ_OK) {
        return zq_cli_fail(r->cmd, "cannot start the node");
    }
    zq_host_config_t hcfg;
    zq_host_config_default(&hcfg);
    hcfg.rand = r->rand;
    zq_host_init(&r->nh.host, &r->node, &r->brk, &hcfg, &host_callbacks, r);
    return -1;
}

static int connect_signal(zq_brk_runner_t *r)
{
    const char *why = NULL;
    if (zq_sig_link_open(&r->nh.sig, &why) != ZQ_OK) {
        return zq_cli_fail(r->cmd, "cannot reach %s: %s", r->opt.signal, why);
    }
    if (r->opt.verbose) {
        (void)fprintf(stderr, "zq %s: connected to %s, joining '%s'\n", label(r), r->opt.signal,
                      r->opt.room);
    }
    return -1;
}

/* The command line's part, checked before anything is opened: a usage error is 2. */
static int check_options(zq_brk_runner_t *r)
{
    const char *why = NULL;
    /* The label, not the command: `zq demo` runs two devices in one terminal, and the link's
     * lines (a member waits for a slot, signalling closed) must say which one. */
    if (zq_sig_link_init(&r->nh.sig, label(r), &r->loop, &r->nh.host, r->opt.signal,
                         &why) != ZQ_OK) {
        return zq_cli_usage_error(r->cmd, "--signal '%s': %s", r->opt.signal, why);
    }
    size_t room = strlen(r->opt.room);
    if (room == 0 || room > ZQ_SIG_ROOM_MAX) {
        return zq_cli_usage_error(r->cmd, "--room wants 1 to %d characters", ZQ_SIG_ROOM_MAX);
    }
    return -1;
}

int zq_brk_runner_start(zq_brk_runner_t *r, const char *cmd, const zq_brk_net_options_t *opt,
                        const zq_brk_runner_callbacks_t *cb, void *ctx)
{
    memset(r, 0, sizeof *r);
    r->cmd = cmd;
    r->opt = *opt;
    r->cb = *cb;
    r->ctx = ctx;
    int rc = check_options(r);
    if (rc >= 0) {
        return rc;
    }
    zq_loop_init(&r->loop);
    r->rand = zq_port_rand();
    if ((rc = make_identity(r)) < 0 && (rc = start_broker(r)) < 0) {
        rc = connect_signal(r);
    }
    if (rc >= 0) {
        zq_node_host_close_udp(&r->nh);
    }
    return rc;
}

/* ---- Running ------------------------------------------------------------------------------- */

/* Closes every peer and gives the ABORTs a moment to leave before the sockets close. */
static void shut_down(zq_brk_runner_t *r)
{
    r->finishing = true; /* no more callbacks into the command */
    node_close(&r->node, zq_loop_now(&r->loop));
    (void)zq_loop_run(&r->loop, zq_loop_now(&r->loop) + CLOSE_GRACE_MS);
    zq_sig_link_close(&r->nh.sig);
    zq_node_host_close_udp(&r->nh);
}

int zq_brk_runner_run(zq_brk_runner_t *r)
{
    zq_loop_stop_on_signals(&r->loop);
    zq_err_t err = zq_loop_run(&r->loop, ZQ_TIME_NEVER);
    zq_loop_stop_on_signals(NULL);
    bool interrupted = !r->finishing;
    if (err != ZQ_OK) {
        r->exit_code = zq_cli_fail(r->cmd, "event loop: %s", zq_strerror(err));
    } else if (interrupted && r->cb.one_shot) {
        r->exit_code = zq_cli_fail(r->cmd, "interrupted before it was done");
    }
    shut_down(r);
    (void)fflush(stdout);
    return r->exit_code;
}

/* The plumbing of the broker commands (see brk_runner.h): identity, UDP sockets, node and
 * broker, the WebSocket to the signalling server, and the loop driver between them. */
#include "cli/brk_runner.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/node_host.h"

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

/* A member left out for want of a slot (or we by one), always; with --verbose: who is in the
 * room, and when each peer can be sent to. */
static void note_node_event(zq_brk_runner_t *r, const node_event_t *ev)
{
    if (zq_sig_link_note_slots(&r->sig, ev)) { /* said even without --verbose: it is why */
        return;
    }
    if (!r->opt.verbose) {
        return;
    }
    if (ev->type == NODE_EVENT_WELCOME) {
        (void)fprintf(stderr, "zq %s: in room '%s' as %s\n", label(r), r->opt.room,
                      r->node.my_id);
    } else if (ev->type == NODE_EVENT_PEER_GONE) {
        (void)fprintf(stderr, "zq %s: peer %s gone%s%s\n", label(r),
                      node_peer_id(&r->node, ev->peer), ev->failure == PEER_FAIL_NONE ? "" : ": ",
                      ev->failure == PEER_FAIL_NONE ? "" : peer_failure_name(ev->failure));
    }
}

/* Said again when a peer taken for ZeroQ says hello after all (its first hello was lost, and
 * it sent it again: broker/PROTOCOL.md §2). */
static void note_ready_peers(zq_brk_runner_t *r)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        uint32_t bit = 1u << i;
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

/* ---- Loop driver --------------------------------------------------------------------------- */

static void drv_datagram(void *obj, uint64_t now, const zq_addr_t *local,
                         const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    zq_brk_runner_t *r = obj;
    (void)node_handle_datagram(&r->node, now, local, remote, data, len);
}

static void drv_timeout(void *obj, uint64_t now)
{
    zq_brk_runner_t *r = obj;
    zq_sig_link_timeout(&r->sig, now);
    node_handle_timeout(&r->node, now);
    if (brk_next_timeout(&r->brk) <= now) {
        brk_handle_timeout(&r->brk, now);
    }
    /* The command's own deadline: after_io (on_idle) follows every timeout. */
}

static uint64_t drv_next_timeout(void *obj)
{
    zq_brk_runner_t *r = obj;
    uint64_t t = zq_time_min(zq_sig_link_next_timeout(&r->sig), node_next_timeout(&r->node));
    t = zq_time_min(t, brk_next_timeout(&r->brk));
    if (r->finishing) {
        return zq_time_min(t, r->finish_by);
    }
    return r->cb.next_timeout != NULL ? zq_time_min(t, r->cb.next_timeout(r->ctx)) : t;
}

static bool drv_transmit(void *obj, zq_addr_t *local, zq_addr_t *remote, const uint8_t **data,
                         size_t *len)
{
    zq_brk_runner_t *r = obj;
    return zq_node_host_transmit(&r->node, zq_loop_now(&r->loop), local, remote, data, len);
}

/* Node events into the broker, broker events to the command (none once it finished: what
 * comes then is drained, so acks and pongs still go). Reading can open a channel and so make
 * new node events: round until neither has anything left. */
static void drain_events(zq_brk_runner_t *r, uint64_t now)
{
    do {
        node_event_t ev;
        while (node_poll_event(&r->node, &ev)) {
            note_node_event(r, &ev);
            brk_handle_node_event(&r->brk, now, &ev);
        }
        brk_event_t bev;
        while (brk_poll_event(&r->brk, now, &bev)) {
            if (!r->finishing && r->cb.on_event != NULL) {
                r->cb.on_event(r->ctx, r, now, &bev);
            }
        }
    } while (node_events_pending(&r->node) > 0);
}

static void drv_after_io(void *obj, uint64_t now)
{
    zq_brk_runner_t *r = obj;
    drain_events(r, now);
    note_ready_peers(r);
    if (!r->finishing && r->cb.on_idle != NULL) {
        r->cb.on_idle(r->ctx, r, now);
        drain_events(r, now); /* what the command's calls made due */
    }
    zq_sig_link_flush(&r->sig, now);
    if (r->finishing && (now >= r->finish_by || flushed(r))) {
        zq_loop_stop(&r->loop);
    }
}

static const zq_driver_t runner_driver = {
    .handle_datagram = drv_datagram,
    .handle_timeout = drv_timeout,
    .next_timeout = drv_next_timeout,
    .poll_transmit = drv_transmit,
    .after_io = drv_after_io,
};

/* ---- Setup --------------------------------------------------------------------------------- */

/* Every IPv4 address of the host, loopback included (a browser on this host reaches us
 * there): one host candidate each. */
static int open_udp(zq_brk_runner_t *r, node_config_t *cfg)
{
    zq_addr_t any = zq_cli_any_addr(ZQ_AF_INET4, 0);
    r->n_socks = zq_node_host_open_udp(&any, r->socks, cfg);
    if (r->n_socks == 0) {
        return zq_cli_fail(r->cmd, "cannot open a UDP socket on any IPv4 address");
    }
    return -1;
}

static int make_identity(zq_brk_runner_t *r)
{
    if (!zq_node_host_identity(&r->rand, &r->identity, &r->dtls)) {
        return zq_cli_fail(r->cmd, "cannot make a DTLS certificate");
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
    size_t id;
    if (node_init(&r->node, &cfg) != ZQ_OK || brk_init(&r->brk, &r->node, &bcfg) != ZQ_OK ||
        zq_loop_add_driver(&r->loop, &runner_driver, r, &id) != ZQ_OK) {
        return zq_cli_fail(r->cmd, "cannot start the node");
    }
    for (uint8_t i = 0; i < r->n_socks; i++) {
        (void)zq_loop_add_socket(&r->loop, id, r->socks[i], &cfg.hosts[i]);
    }
    return -1;
}

static int connect_signal(zq_brk_runner_t *r)
{
    const char *why = NULL;
    if (zq_sig_link_open(&r->sig, &why) != ZQ_OK) {
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
    if (zq_sig_link_init(&r->sig, label(r), &r->loop, &r->node, r->opt.signal, &why) != ZQ_OK) {
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
        for (uint8_t i = 0; i < r->n_socks; i++) {
            zq_port_udp_close(r->socks[i]);
        }
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
    zq_sig_link_close(&r->sig);
    for (uint8_t i = 0; i < r->n_socks; i++) {
        zq_port_udp_close(r->socks[i]);
    }
}

int zq_brk_runner_run(zq_brk_runner_t *r)
{
    zq_cli_stop_loop_on_signals(&r->loop);
    zq_err_t err = zq_loop_run(&r->loop, ZQ_TIME_NEVER);
    zq_cli_stop_loop_on_signals(NULL);
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

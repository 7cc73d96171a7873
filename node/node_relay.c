/* A node's TURN allocation (RFC 8656), one for all its peers: a device behind a symmetric NAT
 * has no address a peer can reach (a new mapping for every destination), so it borrows one on
 * the room's TURN server. The server's URL and a time-limited credential come with the join
 * (zq signal --turn-secret: the ice_servers frame); nothing is configured per device.
 *
 * One allocation, not one per peer as browsers hold: it is one 5-tuple from the node's one
 * socket (two allocations from it would be 437 Allocation Mismatch, §7.2), and a device's
 * RAM pays for it once. Every peer's ICE agent gets the same relayed candidate; what the
 * server relays is demultiplexed by the node as any datagram is (STUN username, then the
 * address ICE validated). */
#include <stdio.h>
#include <string.h>

#include "node/node_relay.h"
#include "zq/log.h"

#if ZQ_NODE_TURN

/* Whether an unanswered Allocate over UDP is to give way to the room's next server. */
static bool udp_giving_way(const node_t *n)
{
    return n->relay.transport == NODE_RELAY_UDP && n->relay.offered != 0 &&
           n->relay.turn.state == TURN_ALLOCATING;
}

void node_relay_sync_deadline(node_t *n, uint64_t now)
{
    n->relay.deadline = n->relay.turn.state == TURN_IDLE ? ZQ_TIME_NEVER
                                                          : turn_client_timeout(&n->relay.turn, now);
    if (udp_giving_way(n)) {
        n->relay.deadline = zq_time_min(n->relay.deadline, n->relay.udp_given_up_at);
    }
    if (n->relay.turn.state == TURN_FAILED) {
        n->relay.deadline = n->relay.retry_at;
    }
}

bool node_relay_usable(const node_t *n)
{
    return n->relay.turn.state == TURN_ALLOCATED;
}

/* The host that talks to the server: the first that can reach it. */
static const zq_addr_t *host_for(const node_t *n, const zq_addr_t *server)
{
    for (uint8_t h = 0; h < n->cfg.n_hosts; h++) {
        if (zq_addr_can_reach(&n->cfg.hosts[h], server)) {
            return &n->cfg.hosts[h];
        }
    }
    return NULL;
}

/* The next of the frame's URLs (one per line, sig_client.h), parsed; @p cursor moves past
 * it. @return false at the end. */
static bool next_url(const char **cursor, turn_url_t *u, zq_err_t *err)
{
    const char *line = *cursor;
    if (*line == '\0') {
        return false;
    }
    const char *end = strchr(line, '\n');
    size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
    *err = turn_url_parse(line, len, u);
    *cursor = line + len + (end != NULL ? 1 : 0);
    return true;
}

/* Which of the node's ways to a TURN server a URL is, if the node can use it: an IP literal
 * of one of our families (names are the port's to resolve, and it resolves none yet). */
static bool transport_of(const node_t *n, const turn_url_t *u, node_relay_transport_t *t)
{
    if (u->scheme == TURN_URL_STUN || host_for(n, &u->server) == NULL) {
        return false;
    }
    *t = u->scheme == TURN_URL_TURNS ? NODE_RELAY_TLS
         : u->transport == TURN_PROTOCOL_TCP ? NODE_RELAY_TCP : NODE_RELAY_UDP;
    return *t == NODE_RELAY_UDP || node_relay_stream_can(n, *t);
}

/* The room's first server of each transport; the rest are counted as skipped. */
static void pick_servers(node_t *n, const char *urls)
{
    turn_url_t u;
    zq_err_t err;
    n->relay.offered = 0;
    n->relay.named = 0;
    for (const char *cursor = urls; next_url(&cursor, &u, &err);) {
        node_relay_transport_t t;
        if (err == ZQ_OK && transport_of(n, &u, &t) && !(n->relay.offered & (1u << t))) {
            n->relay.servers[t] = u.server;
            n->relay.offered |= (uint8_t)(1u << t);
            n->relay.named |= (uint8_t)(1u << t);
        } else if (err != ZQ_OK || u.scheme != TURN_URL_STUN) {
            n->stats.relay_urls_skipped++;
        }
    }
}

/* The first stun: URL with an IP literal of one of our families (RFC 7064). */
static void take_stun_server(node_t *n, const char *urls)
{
    turn_url_t u;
    zq_err_t err;
    for (const char *cursor = urls; next_url(&cursor, &u, &err);) {
        if (err == ZQ_OK && u.scheme == TURN_URL_STUN && host_for(n, &u.server) != NULL) {
            n->relay.stun = u.server;
            return;
        }
    }
}

zq_addr_t node_relay_stun_server(const node_t *n)
{
    return n->cfg.stun_server.family != ZQ_AF_NONE ? n->cfg.stun_server : n->relay.stun;
}

bool node_relay_start_next(node_t *n, uint64_t now)
{
    for (uint8_t t = 0; t < NODE_RELAY_TRANSPORTS; t++) {
        if (!(n->relay.offered & (1u << t))) {
            continue;
        }
        n->relay.offered &= (uint8_t)~(1u << t);
        /* The room's latest credential: a member that stayed joined got fresh ones. */
        turn_config_t cfg = n->relay.turn.cfg;
        memcpy(cfg.username, n->relay.username, sizeof cfg.username);
        memcpy(cfg.password, n->relay.password, sizeof cfg.password);
        cfg.server = n->relay.servers[t];
        cfg.rand = n->cfg.rand;
        cfg.reliable = t != NODE_RELAY_UDP; /* RFC 8489 §6.2.2 */
        n->relay.transport = t;
        n->relay.host = *host_for(n, &cfg.server);
        n->relay.udp_given_up_at = now + ZQ_NODE_TURN_TCP_AFTER_MS;
        node_relay_stream_reset(n);
        if (turn_client_start(&n->relay.turn, &cfg, now) == ZQ_OK) {
            return true;
        }
    }
    n->relay.turn.state = TURN_IDLE;
    return false;
}

/* A first allocation, or one tried again: the room's servers in order, and every peer waits
 * for the relayed candidate meanwhile. */
static void start_all(node_t *n, uint64_t now)
{
    n->relay.started_at = now;
    n->relay.retry_at = ZQ_TIME_NEVER;
    if (!node_relay_start_next(n, now)) {
        return;
    }
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used) {
            peer_expect_relay(&n->peers[i].peer, now, true);
        }
    }
    node_relay_sync_deadline(n, now);
}

void node_relay_configure(node_t *n, uint64_t now, const sig_event_t *sig)
{
    turn_state_t st = n->relay.turn.state;
    if (n->cfg.ice_lite) {
        return; /* lite: host candidates only (RFC 8445 §2.5) */
    }
    take_stun_server(n, sig->text);
    _Static_assert(SIG_CREDENTIAL_MAX <= TURN_CREDENTIAL_MAX, "a credential must fit TURN's");
    memcpy(n->relay.username, sig->username, sizeof sig->username);
    memcpy(n->relay.password, sig->credential, sizeof sig->credential);
    if (st == TURN_ALLOCATING || st == TURN_ALLOCATED) {
        return; /* held, with its own credential: a rejoin or a fresh credential keeps it */
    }
    pick_servers(n, sig->text);
    start_all(n, now); /* a failed one too: what the server refused may work now */
}

void node_relay_prepare_peer(node_t *n, uint64_t now, peer_t *p)
{
    if (node_relay_usable(n)) {
        ice_relay_t relay = {.relayed = n->relay.turn.relayed, .mapped = n->relay.turn.mapped,
                             .mapped_is_udp = n->relay.transport == NODE_RELAY_UDP};
        (void)peer_add_relay_candidate(p, now, &relay, &n->relay.host);
    } else if (n->relay.turn.state == TURN_ALLOCATING) {
        peer_expect_relay(p, now, true);
    }
}

static void relay_event(node_t *n, uint64_t now, bool up)
{
    node_event_t *e = node_push_event(n, NODE_EVENT_RELAY, NODE_NO_PEER, PEER_FAIL_NONE);
    if (e != NULL) {
        e->relay_up = up;
        e->relay_transport = n->relay.transport;
        e->elapsed_ms = (uint32_t)(now - n->relay.started_at);
    }
}

static void allocated(node_t *n, uint64_t now)
{
    relay_event(n, now, true);
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used) {
            node_relay_prepare_peer(n, now, &n->peers[i].peer);
        }
    }
}

void node_relay_failed(node_t *n, uint64_t now, const char *why, bool retry)
{
    n->stats.relay_failed++;
    n->relay.turn.state = TURN_FAILED;
    n->relay.retry_at = retry ? now + ZQ_NODE_TURN_RETRY_MS : ZQ_TIME_NEVER;
    (void)snprintf(n->relay.why, sizeof n->relay.why, "%s", why);
    ZQ_LOGW("node", "TURN allocation failed: %s", why);
    relay_event(n, now, false);
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used) {
            peer_expect_relay(&n->peers[i].peer, now, false);
        }
    }
    node_relay_sync_deadline(n, now);
}

/* The allocation's own failure: the server's error (RFC 8656 §19), or no answer. */
static void failed_with(node_t *n, uint64_t now, uint16_t code)
{
    char why[NODE_RELAY_WHY_MAX];
    bool refused = code == TURN_ERROR_UNAUTHORIZED || code == TURN_ERROR_FORBIDDEN ||
                   code == TURN_ERROR_WRONG_CREDENTIALS;
    if (code == 0) {
        (void)snprintf(why, sizeof why, "no answer from the server");
    } else {
        (void)snprintf(why, sizeof why, "the server answered %u%s", (unsigned)code,
                       refused ? " (the credential: expired, or --turn-secret not coturn's "
                                 "static-auth-secret?)"
                               : "");
    }
    node_relay_failed(n, now, why, !refused);
}

void node_relay_pump(node_t *n, uint64_t now)
{
    turn_event_t ev;
    while (turn_client_poll_event(&n->relay.turn, &ev)) {
        switch (ev.type) {
        case TURN_EVENT_ALLOCATED:
            allocated(n, now);
            break;
        case TURN_EVENT_FAILED:
            failed_with(n, now, ev.code);
            break;
        case TURN_EVENT_DATA:
            /* Borrows the datagram being handled: handed on before the next one. */
            (void)node_handle_datagram(n, now, &n->relay.turn.relayed, &ev.peer, ev.data,
                                       ev.data_len);
            break;
        case TURN_EVENT_REFUSED:
            n->stats.relay_refused++;
            break;
        default:
            break;
        }
    }
    node_relay_sync_deadline(n, now);
}

bool node_relay_handle(node_t *n, uint64_t now, const zq_addr_t *local, const zq_addr_t *remote,
                       const uint8_t *data, size_t len)
{
    if (n->relay.turn.state == TURN_IDLE || n->relay.transport != NODE_RELAY_UDP ||
        !zq_addr_equal(remote, &n->relay.turn.cfg.server) ||
        !zq_addr_equal(local, &n->relay.host)) {
        return false;
    }
    turn_client_handle(&n->relay.turn, now, data, len);
    node_relay_pump(n, now);
    return true;
}

bool node_relay_poll(node_t *n, uint64_t now, peer_transmit_t *tx)
{
    const uint8_t *data;
    size_t len;
    if (n->relay.turn.state == TURN_IDLE) {
        return false;
    }
    if (n->relay.transport != NODE_RELAY_UDP) {
        node_relay_stream_fill(n, now);
        return false;
    }
    if (!turn_client_poll_output(&n->relay.turn, now, &data, &len)) {
        return false;
    }
    node_relay_sync_deadline(n, now);
    *tx = (peer_transmit_t){.local = n->relay.host, .remote = n->relay.turn.cfg.server,
                            .data = data, .len = len};
    return true;
}

/* Whether @p a is one of the node's sockets (else it is a relayed address, maybe an old one). */
static bool is_host(const node_t *n, const zq_addr_t *a)
{
    for (uint8_t h = 0; h < n->cfg.n_hosts; h++) {
        if (zq_addr_equal(&n->cfg.hosts[h], a)) {
            return true;
        }
    }
    return false;
}

bool node_relay_wrap(node_t *n, uint64_t now, peer_transmit_t *tx)
{
    if (is_host(n, &tx->local)) {
        return true; /* not for the relay */
    }
    if (!zq_addr_equal(&tx->local, &n->relay.turn.relayed) || !node_relay_usable(n)) {
        n->stats.relay_dropped++; /* from an allocation that is gone, or not yet back */
        return false;
    }
    /* Over UDP one datagram for the server; over a stream the frame joins its output. */
    bool stream = n->relay.transport != NODE_RELAY_UDP;
    size_t cap = sizeof n->relay.out;
    uint8_t *out = stream ? node_relay_stream_space(n, &cap) : n->relay.out;
    /* RFC 8656 §9: the server relays only to IPs with a permission; ICE retransmits the
     * first check, which goes before the permission is installed. */
    size_t len = 0;
    if (cap > 0 && turn_client_permit(&n->relay.turn, now, &tx->remote) == ZQ_OK) {
        len = turn_client_wrap(&n->relay.turn, &tx->remote, tx->data, tx->len, out, cap);
    }
    node_relay_sync_deadline(n, now);
    if (len == 0) {
        n->stats.relay_dropped++; /* as a full socket buffer drops: DTLS and SCTP resend */
        return false;
    }
    if (stream) {
        node_relay_stream_wrote(n, now, len);
        return false; /* on the stream, not a datagram */
    }
    *tx = (peer_transmit_t){.local = n->relay.host, .remote = n->relay.turn.cfg.server,
                            .data = n->relay.out, .len = len};
    return true;
}

void node_relay_peer_connected(node_t *n, uint64_t now, const peer_t *p)
{
    if (node_relay_usable(n) && p->have_path &&
        zq_addr_equal(&p->path_local, &n->relay.turn.relayed)) {
        (void)turn_client_bind(&n->relay.turn, now, &p->path_remote);
        node_relay_sync_deadline(n, now);
    }
}

void node_relay_timeout(node_t *n, uint64_t now)
{
    if (n->relay.deadline > now) {
        return;
    }
    if (n->relay.turn.state == TURN_FAILED && n->relay.retry_at <= now) {
        n->stats.relay_retries++;
        n->relay.offered = n->relay.named;
        start_all(n, now);
        return;
    }
    if (udp_giving_way(n) && now >= n->relay.udp_given_up_at) {
        ZQ_LOGI("node", "TURN over UDP unanswered after %u ms: trying the next server",
                (unsigned)ZQ_NODE_TURN_TCP_AFTER_MS);
        n->stats.relay_fallbacks++;
        if (!node_relay_start_next(n, now)) {
            node_relay_failed(n, now, "no answer over UDP", true);
        }
    }
    node_relay_sync_deadline(n, now);
    node_relay_pump(n, now);
}

uint64_t node_relay_next_timeout(const node_t *n)
{
    return n->relay.deadline;
}

void node_relay_close(node_t *n, uint64_t now)
{
    if (node_relay_usable(n)) {
        turn_client_release(&n->relay.turn, now);
        node_relay_sync_deadline(n, now);
    }
}

void node_relay_forget(node_t *n, uint64_t now)
{
    (void)now;
    n->relay.turn.state = TURN_IDLE; /* the port closes its stream, if any */
    n->relay.deadline = ZQ_TIME_NEVER;
    n->relay.offered = 0;
    n->relay.named = 0;
    n->relay.retry_at = ZQ_TIME_NEVER;
    node_relay_stream_reset(n);
}

#else /* !ZQ_NODE_TURN */

void node_relay_configure(node_t *n, uint64_t now, const sig_event_t *sig)
{
    (void)n, (void)now, (void)sig;
}

zq_addr_t node_relay_stun_server(const node_t *n)
{
    return n->cfg.stun_server;
}

void node_relay_prepare_peer(node_t *n, uint64_t now, peer_t *p)
{
    (void)n, (void)now, (void)p;
}

bool node_relay_handle(node_t *n, uint64_t now, const zq_addr_t *local, const zq_addr_t *remote,
                       const uint8_t *data, size_t len)
{
    (void)n, (void)now, (void)local, (void)remote, (void)data, (void)len;
    return false;
}

bool node_relay_poll(node_t *n, uint64_t now, peer_transmit_t *tx)
{
    (void)n, (void)now, (void)tx;
    return false;
}

bool node_relay_wrap(node_t *n, uint64_t now, peer_transmit_t *tx)
{
    (void)n, (void)now, (void)tx;
    return true;
}

void node_relay_peer_connected(node_t *n, uint64_t now, const peer_t *p)
{
    (void)n, (void)now, (void)p;
}

void node_relay_timeout(node_t *n, uint64_t now)
{
    (void)n, (void)now;
}

uint64_t node_relay_next_timeout(const node_t *n)
{
    (void)n;
    return ZQ_TIME_NEVER;
}

void node_relay_close(node_t *n, uint64_t now)
{
    (void)n, (void)now;
}

void node_relay_forget(node_t *n, uint64_t now)
{
    (void)n, (void)now;
}

#endif /* ZQ_NODE_TURN */

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

/* Whether an unanswered Allocate over UDP is to give way to the room's TCP server. */
static bool tcp_pending(const node_t *n)
{
    return n->relay.has_tcp && !n->relay.stream && n->relay.turn.state == TURN_ALLOCATING;
}

static void sync_deadline(node_t *n, uint64_t now)
{
    n->relay.deadline = n->relay.turn.state == TURN_IDLE ? ZQ_TIME_NEVER
                                                          : turn_client_timeout(&n->relay.turn, now);
    if (tcp_pending(n)) {
        n->relay.deadline = zq_time_min(n->relay.deadline, n->relay.tcp_at);
    }
}

static bool usable(const node_t *n)
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

/* The first turn: URL over UDP with an IP literal of one of our families, else the first over
 * TCP; a TCP one after a UDP one is kept for when UDP goes unanswered. turns: (TLS) is not
 * yet done, names are the port's to resolve. */
static bool pick_server(node_t *n, const char *urls, turn_url_t *out)
{
    turn_url_t u;
    zq_err_t err;
    bool have_udp = false, have_tcp = false;
    n->relay.has_tcp = false;
    for (const char *cursor = urls; next_url(&cursor, &u, &err);) {
        bool usable_url = err == ZQ_OK && u.scheme == TURN_URL_TURN &&
                          host_for(n, &u.server) != NULL;
        if (usable_url && u.transport == TURN_PROTOCOL_UDP && !have_udp) {
            *out = u;
            have_udp = true;
        } else if (usable_url && u.transport == TURN_PROTOCOL_TCP && !have_tcp) {
            n->relay.tcp_server = u.server;
            have_tcp = true;
        } else if (!usable_url && (err != ZQ_OK || u.scheme != TURN_URL_STUN)) {
            n->stats.relay_urls_skipped++;
        }
    }
    if (!have_udp && have_tcp) {
        *out = (turn_url_t){.scheme = TURN_URL_TURN, .server = n->relay.tcp_server,
                            .transport = TURN_PROTOCOL_TCP};
        return true;
    }
    n->relay.has_tcp = have_udp && have_tcp;
    return have_udp;
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

/* Starts the allocation on @p server, over TCP when @p tcp (the port then opens the stream);
 * the credential is the join's, or the one a UDP try was started with. */
static bool start(node_t *n, uint64_t now, const zq_addr_t *server, bool tcp,
                  const char *username, const char *password)
{
    turn_config_t cfg = {.server = *server, .rand = n->cfg.rand, .reliable = tcp};
    (void)snprintf(cfg.username, sizeof cfg.username, "%s", username);
    (void)snprintf(cfg.password, sizeof cfg.password, "%s", password);
    n->relay.host = *host_for(n, server);
    n->relay.stream = tcp;
    n->relay.stream_open = false;
    n->relay.stream_out_len = 0;
    turn_stream_reset(&n->relay.stream_in);
    if (turn_client_start(&n->relay.turn, &cfg, now) != ZQ_OK) {
        n->relay.turn.state = TURN_IDLE;
        return false;
    }
    return true;
}

void node_relay_configure(node_t *n, uint64_t now, const sig_event_t *sig)
{
    turn_state_t st = n->relay.turn.state;
    if (n->cfg.ice_lite) {
        return; /* lite: host candidates only (RFC 8445 §2.5) */
    }
    take_stun_server(n, sig->text);
    if (st == TURN_ALLOCATING || st == TURN_ALLOCATED) {
        return; /* held: a rejoin keeps it */
    }
    turn_url_t u;
    if (!pick_server(n, sig->text, &u)) {
        return;
    }
    _Static_assert(SIG_CREDENTIAL_MAX <= TURN_CREDENTIAL_MAX, "a credential must fit TURN's");
    if (!start(n, now, &u.server, u.transport == TURN_PROTOCOL_TCP, sig->username,
               sig->credential)) {
        return;
    }
    n->relay.tcp_at = now + ZQ_NODE_TURN_TCP_AFTER_MS;
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used) {
            peer_expect_relay(&n->peers[i].peer, now, true);
        }
    }
    sync_deadline(n, now);
}

void node_relay_prepare_peer(node_t *n, uint64_t now, peer_t *p)
{
    if (usable(n)) {
        (void)peer_add_relay_candidate(p, now, &n->relay.turn.relayed, &n->relay.turn.mapped,
                                       &n->relay.host);
    } else if (n->relay.turn.state == TURN_ALLOCATING) {
        peer_expect_relay(p, now, true);
    }
}

static void allocated(node_t *n, uint64_t now)
{
    char relayed[ZQ_ADDR_TEXT_MAX];
    zq_addr_format(&n->relay.turn.relayed, relayed, sizeof relayed);
    ZQ_LOGI("node", "TURN allocation: relayed address %s", relayed);
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used) {
            node_relay_prepare_peer(n, now, &n->peers[i].peer);
        }
    }
}

static void failed(node_t *n, uint64_t now, uint16_t code)
{
    n->stats.relay_failed++;
    ZQ_LOGW("node", "TURN allocation failed (%s %u): no relayed candidate",
            code == 0 ? "no answer" : "error", (unsigned)code);
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used) {
            peer_expect_relay(&n->peers[i].peer, now, false);
        }
    }
}

static void pump(node_t *n, uint64_t now)
{
    turn_event_t ev;
    while (turn_client_poll_event(&n->relay.turn, &ev)) {
        switch (ev.type) {
        case TURN_EVENT_ALLOCATED:
            allocated(n, now);
            break;
        case TURN_EVENT_FAILED:
            failed(n, now, ev.code);
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
    sync_deadline(n, now);
}

bool node_relay_handle(node_t *n, uint64_t now, const zq_addr_t *local, const zq_addr_t *remote,
                       const uint8_t *data, size_t len)
{
    if (n->relay.turn.state == TURN_IDLE || n->relay.stream ||
        !zq_addr_equal(remote, &n->relay.turn.cfg.server) ||
        !zq_addr_equal(local, &n->relay.host)) {
        return false;
    }
    turn_client_handle(&n->relay.turn, now, data, len);
    pump(n, now);
    return true;
}

static size_t stream_room(const node_t *n)
{
    return sizeof n->relay.stream_out - n->relay.stream_out_len;
}

/* Over TCP the allocation's requests join the stream's output (once it is open). */
static void fill_stream(node_t *n, uint64_t now)
{
    const uint8_t *data;
    size_t len;
    while (n->relay.stream_open && stream_room(n) >= ZQ_TURN_DATAGRAM_MAX &&
           turn_client_poll_output(&n->relay.turn, now, &data, &len)) {
        memcpy(n->relay.stream_out + n->relay.stream_out_len, data, len);
        n->relay.stream_out_len += len;
    }
    sync_deadline(n, now);
}

bool node_relay_poll(node_t *n, uint64_t now, peer_transmit_t *tx)
{
    const uint8_t *data;
    size_t len;
    if (n->relay.turn.state == TURN_IDLE) {
        return false;
    }
    if (n->relay.stream) {
        fill_stream(n, now);
        return false;
    }
    if (!turn_client_poll_output(&n->relay.turn, now, &data, &len)) {
        return false;
    }
    sync_deadline(n, now);
    *tx = (peer_transmit_t){.local = n->relay.host, .remote = n->relay.turn.cfg.server,
                            .data = data, .len = len};
    return true;
}

bool node_relay_wrap(node_t *n, uint64_t now, peer_transmit_t *tx)
{
    if (n->relay.turn.state == TURN_IDLE || !zq_addr_equal(&tx->local, &n->relay.turn.relayed)) {
        return true; /* not for the relay */
    }
    /* RFC 8656 §9: the server relays only to IPs with a permission; ICE retransmits the
     * first check, which goes before the permission is installed. */
    bool stream = n->relay.stream;
    uint8_t *out = stream ? n->relay.stream_out + n->relay.stream_out_len : n->relay.out;
    size_t cap = stream ? (n->relay.stream_open ? stream_room(n) : 0) : sizeof n->relay.out;
    size_t len = 0;
    if (usable(n) && turn_client_permit(&n->relay.turn, now, &tx->remote) == ZQ_OK) {
        len = turn_client_wrap(&n->relay.turn, &tx->remote, tx->data, tx->len, out, cap);
    }
    sync_deadline(n, now);
    if (len == 0) {
        n->stats.relay_dropped++;
        return false;
    }
    if (stream) {
        n->relay.stream_out_len += len; /* on the stream, not a datagram */
        return false;
    }
    *tx = (peer_transmit_t){.local = n->relay.host, .remote = n->relay.turn.cfg.server,
                            .data = n->relay.out, .len = len};
    return true;
}

/* ---- The stream to the server, over TCP ---------------------------------------------------- */

/* UDP went unanswered for ZQ_NODE_TURN_TCP_AFTER_MS: the same credential on the TCP server. */
static void try_tcp(node_t *n, uint64_t now)
{
    char username[TURN_CREDENTIAL_MAX + 1], password[TURN_CREDENTIAL_MAX + 1];
    memcpy(username, n->relay.turn.cfg.username, sizeof username);
    memcpy(password, n->relay.turn.cfg.password, sizeof password);
    ZQ_LOGI("node", "TURN over UDP unanswered after %u ms: trying TCP",
            (unsigned)ZQ_NODE_TURN_TCP_AFTER_MS);
    n->stats.relay_over_tcp++;
    n->relay.has_tcp = false;
    if (!start(n, now, &n->relay.tcp_server, true, username, password)) {
        failed(n, now, 0);
    }
}

bool node_relay_stream_target(const node_t *n, zq_addr_t *server)
{
    turn_state_t st = n->relay.turn.state;
    if (!n->relay.stream || st == TURN_IDLE || st == TURN_FAILED) {
        return false;
    }
    *server = n->relay.turn.cfg.server;
    return true;
}

void node_relay_stream_opened(node_t *n, uint64_t now)
{
    zq_addr_t server;
    if (node_relay_stream_target(n, &server)) {
        n->relay.stream_open = true;
        fill_stream(n, now);
    }
}

/* RFC 8656 §3.1: over TCP the allocation lives as long as its connection. */
static void stream_lost(node_t *n, uint64_t now, const char *why)
{
    n->stats.relay_stream_lost++;
    ZQ_LOGW("node", "TURN over TCP: %s", why);
    n->relay.stream_open = false;
    n->relay.turn.state = TURN_FAILED;
    n->relay.deadline = ZQ_TIME_NEVER;
    failed(n, now, 0);
}

void node_relay_stream_closed(node_t *n, uint64_t now)
{
    zq_addr_t server;
    if (node_relay_stream_target(n, &server)) {
        stream_lost(n, now, n->relay.stream_open ? "the server closed the stream"
                                                 : "no connection to the server");
    }
}

void node_relay_stream_input(node_t *n, uint64_t now, const uint8_t *data, size_t len)
{
    zq_addr_t server;
    while (len > 0 && node_relay_stream_target(n, &server)) {
        size_t took = turn_stream_feed(&n->relay.stream_in, data, len);
        data += took;
        len -= took;
        const uint8_t *frame;
        size_t frame_len;
        zq_err_t err;
        while ((err = turn_stream_next(&n->relay.stream_in, &frame, &frame_len)) == ZQ_OK) {
            turn_client_handle(&n->relay.turn, now, frame, frame_len);
            pump(n, now); /* a Data event borrows the frame: handed on before the pop */
            turn_stream_pop(&n->relay.stream_in, frame_len);
        }
        if (err != ZQ_ERR_WOULD_BLOCK) {
            stream_lost(n, now, "a frame that cannot be followed; closing the stream");
            return;
        }
    }
}

bool node_relay_stream_output(const node_t *n, const uint8_t **data, size_t *len)
{
    if (n->relay.stream_out_len == 0) {
        return false;
    }
    *data = n->relay.stream_out;
    *len = n->relay.stream_out_len;
    return true;
}

void node_relay_stream_sent(node_t *n, size_t len)
{
    size_t sent = len < n->relay.stream_out_len ? len : n->relay.stream_out_len;
    memmove(n->relay.stream_out, n->relay.stream_out + sent, n->relay.stream_out_len - sent);
    n->relay.stream_out_len -= sent;
}

void node_relay_peer_connected(node_t *n, uint64_t now, const peer_t *p)
{
    if (usable(n) && p->have_path && zq_addr_equal(&p->path_local, &n->relay.turn.relayed)) {
        (void)turn_client_bind(&n->relay.turn, now, &p->path_remote);
        sync_deadline(n, now);
    }
}

void node_relay_timeout(node_t *n, uint64_t now)
{
    if (n->relay.deadline > now) {
        return;
    }
    if (tcp_pending(n) && now >= n->relay.tcp_at) {
        try_tcp(n, now);
    }
    sync_deadline(n, now);
    pump(n, now);
}

uint64_t node_relay_next_timeout(const node_t *n)
{
    return n->relay.deadline;
}

void node_relay_close(node_t *n, uint64_t now)
{
    if (usable(n)) {
        turn_client_release(&n->relay.turn, now);
        sync_deadline(n, now);
    }
}

void node_relay_forget(node_t *n, uint64_t now)
{
    (void)now;
    n->relay.turn.state = TURN_IDLE;
    n->relay.deadline = ZQ_TIME_NEVER;
    n->relay.stream = false; /* the port closes its connection */
    n->relay.stream_open = false;
    n->relay.has_tcp = false;
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

bool node_relay_stream_target(const node_t *n, zq_addr_t *server)
{
    (void)n, (void)server;
    return false;
}

void node_relay_stream_opened(node_t *n, uint64_t now)
{
    (void)n, (void)now;
}

void node_relay_stream_closed(node_t *n, uint64_t now)
{
    (void)n, (void)now;
}

void node_relay_stream_input(node_t *n, uint64_t now, const uint8_t *data, size_t len)
{
    (void)n, (void)now, (void)data, (void)len;
}

bool node_relay_stream_output(const node_t *n, const uint8_t **data, size_t *len)
{
    (void)n, (void)data, (void)len;
    return false;
}

void node_relay_stream_sent(node_t *n, size_t len)
{
    (void)n, (void)len;
}

#endif /* ZQ_NODE_TURN */

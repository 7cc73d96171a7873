/* A node: one peer connection per member of the signalling room (see node.h). */
#include <string.h>

#include "node/node.h"
#include "node/node_relay.h"

#include "zq/log.h"

/* Queues an event and returns it for extra fields; NULL when the queue is full (four per peer
 * between drains at most: a refusal means events were not drained, node_events_refused()). */
node_event_t *node_push_event(node_t *n, node_event_type_t type, uint8_t peer,
                              peer_failure_t why)
{
    node_event_t *e = ZQ_QUEUE_PUSH(&n->evq, n->events);
    if (e != NULL) {
        memset(e, 0, sizeof *e);
        e->type = type;
        e->peer = peer;
        e->failure = why;
    }
    return e;
}

bool node_poll_event(node_t *n, node_event_t *ev)
{
    const node_event_t *oldest = ZQ_QUEUE_POP(&n->evq, n->events);
    if (oldest == NULL) {
        return false;
    }
    *ev = *oldest;
    return true;
}

size_t node_events_pending(const node_t *n)
{
    return zq_queue_count(&n->evq);
}

uint32_t node_events_refused(const node_t *n)
{
    return zq_queue_refused(&n->evq);
}

zq_err_t node_init(node_t *n, const node_config_t *cfg)
{
    if (cfg->dtls == NULL || cfg->rand.fill == NULL || cfg->n_hosts == 0 ||
        cfg->n_hosts > ZQ_NODE_MAX_HOSTS) {
        return ZQ_ERR_INVALID_ARG;
    }
    memset(n, 0, sizeof *n);
    n->cfg = *cfg;
#if ZQ_NODE_TURN
    n->relay.deadline = ZQ_TIME_NEVER;
    n->relay.retry_at = ZQ_TIME_NEVER;
#endif
    return ZQ_OK;
}

void node_signal_connected(node_t *n)
{
    n->join_due = true; /* ZeroQ joins again after every reconnect */
    n->n_waiting = 0;   /* with a new id we are the newcomer: the others dial us */
}

const dtls_fingerprint_t *node_peer_fingerprint(const node_t *n, uint8_t peer)
{
    return peer < ZQ_NODE_MAX_PEERS && n->peers[peer].used ? &n->peers[peer].peer.remote_fingerprint
                                                           : NULL;
}

uint32_t node_peer_max_message(const node_t *n, uint8_t peer)
{
    return peer < ZQ_NODE_MAX_PEERS && n->peers[peer].used ? n->peers[peer].peer.remote_max_message
                                                           : 0;
}

size_t node_send_room(const node_t *n, uint8_t peer)
{
    return peer < ZQ_NODE_MAX_PEERS && n->peers[peer].used && n->peers[peer].open
               ? peer_send_room(&n->peers[peer].peer)
               : 0;
}

const char *node_peer_id(const node_t *n, uint8_t peer)
{
    /* Still readable after the peer is gone: its PEER_GONE event names it. */
    return peer < ZQ_NODE_MAX_PEERS ? n->peers[peer].id : "";
}

/* ---- Peers -------------------------------------------------------------------------------- */

static int find_peer(const node_t *n, const char *id)
{
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used && strcmp(n->peers[i].id, id) == 0) {
            return i;
        }
    }
    return -1;
}

/* The slot is free: what the peer held in the DTLS arena goes back (no leak per reconnect). */
static void release(node_t *n, int i)
{
    peer_free(&n->peers[i].peer);
    n->peers[i].draining = false;
}

static void forget(node_t *n, int i, peer_failure_t why)
{
    bool was_open = n->peers[i].open;
    n->peers[i].used = false;
    n->peers[i].draining = true; /* node_poll_transmit sends what is left, then releases it */
    if (was_open || why != PEER_FAIL_NONE) {
        node_event_t *e = node_push_event(n, NODE_EVENT_PEER_GONE, (uint8_t)i, why);
        const peer_t *p = &n->peers[i].peer;
        if (e != NULL && why != PEER_FAIL_NONE && !p->have_path) {
            ice_agent_tried(&p->ice, &e->tried); /* failed before ICE found a path: the tries */
        }
    }
}

/* A free slot, else one still draining (its last datagrams are dropped), else -1. */
static int free_slot(node_t *n)
{
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
            if (!n->peers[i].used && (pass == 1 || !n->peers[i].draining)) {
                if (n->peers[i].draining) {
                    release(n, i);
                }
                return i;
            }
        }
    }
    return -1;
}

/* ---- Members waiting for a slot ---------------------------------------------------------- */

static int wait_list_find(const node_t *n, const char *id)
{
    for (int k = 0; k < n->n_waiting; k++) {
        if (strcmp(n->waiting[k].id, id) == 0) {
            return k;
        }
    }
    return -1;
}

/* A member to dial once a slot is free and @p due has come. @return its entry, or NULL. */
static node_waiting_t *wait_list_put(node_t *n, const char *id, uint64_t due)
{
    int k = wait_list_find(n, id);
    if (k < 0 && n->n_waiting == ZQ_NODE_WAITLIST) {
        n->stats.waitlist_full++;
        return NULL;
    }
    if (k < 0) {
        k = n->n_waiting++;
        memcpy(n->waiting[k].id, id, strlen(id) + 1);
    }
    n->waiting[k].due = due;
    return &n->waiting[k];
}

/* A member refused again (it offered again) keeps its place and is told again. */
static void wait_list_add(node_t *n, const char *id)
{
    node_waiting_t *w = wait_list_put(n, id, 0);
    if (w != NULL) {
        w->told = false;
    }
}

/* Failures the network explains, which a later try may not meet (config.h, ZQ_NODE_REDIAL_MS). */
static bool worth_redialing(peer_failure_t why)
{
    return why == PEER_FAIL_ICE || why == PEER_FAIL_CONSENT || why == PEER_FAIL_SCTP ||
           why == PEER_FAIL_TIMEOUT;
}

/* The connection we dialed failed: dial the member again in a while, if it stays. */
static void schedule_redial(node_t *n, uint64_t now, const node_peer_t *np, peer_failure_t why)
{
    if (np->dialing && worth_redialing(why)) {
        node_waiting_t *w = wait_list_put(n, np->id, now + ZQ_NODE_REDIAL_MS);
        if (w != NULL) {
            w->told = true; /* it was not refused: nothing to tell it */
            n->stats.redials++;
        }
    }
}

static void wait_list_remove(node_t *n, const char *id)
{
    int k = wait_list_find(n, id);
    if (k >= 0) {
        memmove(&n->waiting[k], &n->waiting[k + 1],
                (size_t)(n->n_waiting - k - 1) * sizeof n->waiting[0]);
        n->n_waiting--;
    }
}

void node_set_hosts(node_t *n, uint64_t now, const zq_addr_t *hosts, uint8_t n_hosts)
{
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used) {
            forget(n, i, PEER_FAIL_NONE);
        }
    }
    n->n_waiting = 0;
    node_relay_forget(n, now);
    n->cfg.n_hosts = n_hosts < ZQ_NODE_MAX_HOSTS ? n_hosts : ZQ_NODE_MAX_HOSTS;
    memcpy(n->cfg.hosts, hosts, n->cfg.n_hosts * sizeof hosts[0]);
}

/* A slot nobody holds, not even a peer still draining its last datagrams. */
static bool has_idle_slot(const node_t *n)
{
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (!n->peers[i].used && !n->peers[i].draining) {
            return true;
        }
    }
    return false;
}

static int new_peer(node_t *n, uint64_t now, const char *id, bool dialing)
{
    int old = find_peer(n, id);
    if (old >= 0) {
        forget(n, old, PEER_FAIL_NONE); /* the member came back: start afresh */
    }
    if (strlen(id) > ZQ_SIG_ID_MAX) {
        return -1;
    }
    int i = free_slot(n);
    if (i < 0) {
        /* The member is told (`refused`, which ZeroQ's pages ignore) and waits for our dial
         * when a slot frees; the application is told too, so a device can say why. */
        n->stats.peers_refused++;
        wait_list_add(n, id);
        (void)node_push_event(n, NODE_EVENT_PEER_REFUSED, NODE_NO_PEER, PEER_FAIL_NONE);
        return -1;
    }
    node_peer_t *np = &n->peers[i];
    peer_config_t cfg;
    peer_config_default(&cfg, &n->cfg.rand, n->cfg.dtls);
    /* A lite-only build (ZQ_ICE_FULL 0) has no full agent to offer. */
    bool lite = n->cfg.ice_lite || !ZQ_ICE_FULL;
    ice_config_default(&cfg.ice, lite ? ICE_MODE_LITE : ICE_MODE_FULL);
    cfg.ice.rand = n->cfg.rand;
    cfg.ice.stun_server = node_relay_stun_server(n);
    /* RFC 8445 §14.2: all of an implementation's agents together send a check at most every
     * 5 ms; with every peer checking at once that allows Ta = 5 ms x peers (20 ms by default,
     * instead of 50: the nominating check comes one Ta after the first, so this is most of
     * the time from offer to open channel on a LAN). */
    cfg.ice.ta_ms = 5u * ZQ_NODE_MAX_PEERS;
    memset(np, 0, offsetof(node_peer_t, peer));
    zq_err_t err = peer_init(&np->peer, &cfg);
    if (err != ZQ_OK) {
        n->stats.peer_init_failed++;
        ZQ_LOGW("node", "no connection to %s: %s", id, zq_strerror(err));
        return -1;
    }
    for (uint8_t h = 0; h < n->cfg.n_hosts; h++) {
        (void)peer_add_host_candidate(&np->peer, now, &n->cfg.hosts[h]);
    }
    node_relay_prepare_peer(n, now, &np->peer);
    memcpy(np->id, id, strlen(id) + 1);
    wait_list_remove(n, id); /* it has a slot now: a later dial would replace this connection */
    np->used = true;
    np->dialing = dialing;
    np->offer_due = dialing;
    return i;
}

/* What the peer connection says after any input. */
static void pump_peer(node_t *n, int i, uint64_t now)
{
    node_peer_t *np = &n->peers[i];
    peer_event_t ev;
    while (np->used && peer_poll_event(&np->peer, &ev)) {
        switch (ev.type) {
        case PEER_EVENT_CONNECTED:
            node_relay_peer_connected(n, now, &np->peer);
            if (np->dialing) { /* the dialer opens the room's channel (zeroq-wire.md §2) */
                (void)peer_open_channel(&np->peer, now, n->cfg.room, "", DC_RELIABLE, 0,
                                        &np->channel);
            }
            break;
        case PEER_EVENT_CHANNEL_OPEN:
            np->channel = ev.channel; /* as ZeroQ: a later channel replaces the first */
            if (!np->open) {
                np->open = true;
                node_event_t *e =
                    node_push_event(n, NODE_EVENT_PEER_CONNECTED, (uint8_t)i, PEER_FAIL_NONE);
                uint64_t took = now - np->started_at;
                ice_cand_type_t local, remote;
                if (e != NULL) {
                    e->elapsed_ms = took > UINT32_MAX ? UINT32_MAX : (uint32_t)took;
                }
                if (e != NULL && np->peer.have_path &&
                    ice_agent_path_types(&np->peer.ice, &np->peer.path_local,
                                         &np->peer.path_remote, &local, &remote)) {
                    e->path_known = true;
                    e->path_local = (uint8_t)local;
                    e->path_remote = (uint8_t)remote;
                }
            }
            break;
        case PEER_EVENT_CHANNEL_CLOSED:
            if (np->open && ev.channel == np->channel) {
                peer_close(&np->peer, now);
                forget(n, i, PEER_FAIL_NONE);
            }
            break;
        case PEER_EVENT_WRITABLE:
        case PEER_EVENT_BUFFERED_LOW:
            node_push_event(n, NODE_EVENT_WRITABLE, (uint8_t)i, PEER_FAIL_NONE);
            break;
        case PEER_EVENT_FAILED:
        case PEER_EVENT_CLOSED:
            forget(n, i, ev.type == PEER_EVENT_FAILED ? ev.failure : PEER_FAIL_NONE);
            if (ev.type == PEER_EVENT_FAILED) {
                schedule_redial(n, now, np, ev.failure);
            }
            break;
        default:
            break; /* candidates are trickled from the agent's list (node_poll_signal) */
        }
    }
}

/* ---- Signalling -------------------------------------------------------------------------- */

static void take_description(node_t *n, uint64_t now, bool offer)
{
    int i = offer ? new_peer(n, now, n->sig.peer, false) : find_peer(n, n->sig.peer);
    if (i < 0 || (!offer && !n->peers[i].dialing)) {
        return;
    }
    if (!offer && n->peers[i].peer.have_remote) {
        /* An answer to an earlier offer of ours, which the server relayed late (both went
         * while the link was down): the dial under way keeps the one it took. */
        n->stats.answers_ignored++;
        return;
    }
    const char *reason = NULL;
    node_peer_t *np = &n->peers[i];
    if (peer_set_remote_description(&np->peer, now, n->sig.text, n->sig.text_len, &reason) !=
        ZQ_OK) {
        forget(n, i, PEER_FAIL_DESCRIPTION);
        return;
    }
    np->answer_due = offer;
    np->started_at = offer ? now : np->started_at;
    pump_peer(n, i, now);
}

/* A member full for now dials us when it has a slot: a dial of ours to it stops here, before
 * its timeout, and holds no slot meanwhile. */
static void take_refusal(node_t *n)
{
    int i = find_peer(n, n->sig.peer);
    if (i >= 0 && n->peers[i].open) {
        return; /* stale: it has dialed us since */
    }
    n->stats.refused_by_members++;
    if (i >= 0) {
        forget(n, i, PEER_FAIL_NONE);
    }
    (void)node_push_event(n, NODE_EVENT_WAITING, NODE_NO_PEER, PEER_FAIL_NONE);
}

void node_handle_signal(node_t *n, uint64_t now, const char *frame, size_t len)
{
    if (sig_parse_frame(frame, len, &n->sig) != ZQ_OK) {
        n->stats.signal_malformed++;
        return;
    }
    int i;
    switch (n->sig.type) {
    case SIG_EVENT_WELCOME:
        memcpy(n->my_id, n->sig.peer, sizeof n->my_id);
        node_push_event(n, NODE_EVENT_WELCOME, 0, PEER_FAIL_NONE);
        break;
    case SIG_EVENT_PEER_JOINED:
        (void)new_peer(n, now, n->sig.peer, true);
        break;
    case SIG_EVENT_PEER_LEFT:
        wait_list_remove(n, n->sig.peer);
        if ((i = find_peer(n, n->sig.peer)) >= 0) {
            forget(n, i, PEER_FAIL_NONE);
        }
        break;
    case SIG_EVENT_REFUSED:
        take_refusal(n);
        break;
    case SIG_EVENT_ICE_SERVERS:
        node_relay_configure(n, now, &n->sig);
        break;
    case SIG_EVENT_OFFER:
    case SIG_EVENT_ANSWER:
        take_description(n, now, n->sig.type == SIG_EVENT_OFFER);
        break;
    case SIG_EVENT_CANDIDATE:
        if ((i = find_peer(n, n->sig.peer)) >= 0 && n->sig.text_len > 0) {
            (void)peer_add_remote_candidate(&n->peers[i].peer, now, n->sig.text,
                                            n->sig.text_len);
            pump_peer(n, i, now);
        }
        break;
    default:
        break;
    }
}

static size_t describe(node_t *n, uint64_t now, node_peer_t *np, bool offer, char *buf,
                       size_t cap)
{
    size_t sdp_len = 0;
    zq_err_t err = offer ? peer_create_offer(&np->peer, now, n->sig.text, sizeof n->sig.text,
                                             &sdp_len)
                         : peer_create_answer(&np->peer, now, n->sig.text, sizeof n->sig.text,
                                              &sdp_len);
    /* Every candidate known so far is in the description: trickle only later ones. */
    np->trickled = (uint8_t)ice_agent_local_candidate_count(&np->peer.ice);
    return err == ZQ_OK ? sig_write_description(offer, np->id, n->sig.text, sdp_len, buf, cap)
                        : 0;
}

static size_t trickle(node_peer_t *np, char *buf, size_t cap)
{
    char line[ICE_CANDIDATE_TEXT_MAX];
    const ice_candidate_t *c = ice_agent_local_candidate(&np->peer.ice, np->trickled++);
    if (c == NULL || ice_candidate_format(c, line, sizeof line) == 0) {
        return 0;
    }
    return sig_write_candidate(np->id, line, peer_local_ufrag(&np->peer), buf, cap);
}

/* Tells each member left out that it was, then dials the longest waiting one that is due, if
 * a slot allows. */
static size_t poll_waiting(node_t *n, uint64_t now, char *buf, size_t cap)
{
    for (int k = 0; k < n->n_waiting; k++) {
        if (!n->waiting[k].told) {
            n->waiting[k].told = true;
            return sig_write_refused(n->waiting[k].id, "full", buf, cap);
        }
    }
    for (int k = 0; k < n->n_waiting && has_idle_slot(n); k++) {
        if (n->waiting[k].due == 0) {
            char id[ZQ_SIG_ID_MAX + 1];
            memcpy(id, n->waiting[k].id, sizeof id);
            wait_list_remove(n, id);
            (void)new_peer(n, now, id, true); /* its offer goes out below */
            break;
        }
    }
    return 0;
}

size_t node_poll_signal(node_t *n, uint64_t now, char *buf, size_t cap)
{
    if (n->join_due) {
        n->join_due = false;
        return sig_write_join(n->cfg.room, buf, cap);
    }
    size_t len = poll_waiting(n, now, buf, cap);
    if (len > 0) {
        return len;
    }
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        node_peer_t *np = &n->peers[i];
        len = 0;
        if (!np->used) {
            continue;
        }
        if (np->offer_due || np->answer_due) {
            np->started_at = np->offer_due ? now : np->started_at;
            len = describe(n, now, np, np->offer_due, buf, cap);
            np->offer_due = np->answer_due = false;
            pump_peer(n, i, now);
        } else if (np->peer.have_local &&
                   np->trickled < ice_agent_local_candidate_count(&np->peer.ice)) {
            len = trickle(np, buf, cap);
        }
        if (len > 0) {
            return len;
        }
    }
    return 0;
}

/* ---- Datagrams --------------------------------------------------------------------------- */

/* STUN requests name our ufrag in USERNAME ("ours:theirs"); everything else comes from an
 * address a peer's ICE knows. The datagram was demultiplexed and parsed once, before this. */
static int peer_for_datagram(const node_t *n, const zq_addr_t *remote, const peer_datagram_t *d)
{
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used && peer_is_addressed(&n->peers[i].peer, d)) {
            return i;
        }
    }
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used && peer_owns_address(&n->peers[i].peer, remote)) {
            return i;
        }
    }
    return -1;
}

zq_err_t node_handle_datagram(node_t *n, uint64_t now, const zq_addr_t *local,
                              const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    if (node_relay_handle(n, now, local, remote, data, len)) {
        return ZQ_OK;
    }
    peer_datagram_t d;
    peer_demux(&d, data, len);
    int i = peer_for_datagram(n, remote, &d);
    if (i < 0) {
        n->stats.rx_unmatched++;
        return ZQ_ERR_NOT_FOUND;
    }
    zq_err_t err = peer_handle_demuxed(&n->peers[i].peer, now, local, remote, &d);
    pump_peer(n, i, now);
    return err;
}

void node_handle_timeout(node_t *n, uint64_t now)
{
    node_relay_timeout(n, now);
    for (int k = 0; k < n->n_waiting; k++) {
        if (n->waiting[k].due > 0 && n->waiting[k].due <= now) {
            n->waiting[k].due = 0; /* due: dialed as a slot and the signalling link allow */
        }
    }
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used && peer_next_timeout(&n->peers[i].peer) <= now) {
            peer_handle_timeout(&n->peers[i].peer, now);
            pump_peer(n, i, now);
        }
    }
}

uint64_t node_next_timeout(const node_t *n)
{
    uint64_t t = node_relay_next_timeout(n);
    for (int k = 0; k < n->n_waiting; k++) {
        if (n->waiting[k].due > 0) { /* a redial not yet due */
            t = zq_time_min(t, n->waiting[k].due);
        }
    }
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used) {
            t = zq_time_min(t, peer_next_timeout(&n->peers[i].peer));
        }
    }
    return t;
}

bool node_poll_transmit(node_t *n, uint64_t now, peer_transmit_t *tx)
{
    if (node_relay_poll(n, now, tx)) {
        return true;
    }
    for (int k = 0; k < ZQ_NODE_MAX_PEERS; k++) {
        int i = (n->next_tx + k) % ZQ_NODE_MAX_PEERS;
        if (!n->peers[i].used && !n->peers[i].draining) {
            continue;
        }
        while (peer_poll_transmit(&n->peers[i].peer, now, tx)) {
            if (node_relay_wrap(n, now, tx)) { /* "from" the relayed address: to the server */
                n->next_tx = (uint8_t)i;
                return true;
            }
        }
        if (n->peers[i].draining) {
            release(n, i);
        } else {
            pump_peer(n, i, now); /* sending can free room: WRITABLE */
        }
    }
    return false;
}

bool node_read_peer(node_t *n, uint64_t now, uint8_t peer, node_message_t *m)
{
    if (peer >= ZQ_NODE_MAX_PEERS) {
        return false;
    }
    node_peer_t *np = &n->peers[peer];
    while (np->used && peer_read(&np->peer, now, &m->msg)) {
        /* Reading handled the DCEP messages before this one: a peer may send data right after
         * its DATA_CHANNEL_OPEN (RFC 8832 §6), so the channel's open event comes first. */
        pump_peer(n, (int)peer, now);
        if (np->used && np->open && m->msg.id == np->channel) {
            m->peer = peer;
            return true;
        }
        n->stats.rx_off_channel++; /* a second channel's, or one read before its open event */
    }
    if (np->used) {
        pump_peer(n, peer, now);
    }
    return false;
}

bool node_read(node_t *n, uint64_t now, node_message_t *m)
{
    for (uint8_t i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (node_read_peer(n, now, i, m)) {
            return true;
        }
    }
    return false;
}

zq_err_t node_send(node_t *n, uint64_t now, uint8_t peer, const uint8_t *data, size_t len,
                   bool binary)
{
    if (peer >= ZQ_NODE_MAX_PEERS || !n->peers[peer].used || !n->peers[peer].open) {
        return ZQ_ERR_NOT_FOUND;
    }
    return peer_send(&n->peers[peer].peer, now, n->peers[peer].channel, data, len, binary);
}

zq_err_t node_send_part(node_t *n, uint64_t now, uint8_t peer, const uint8_t *data, size_t len,
                        bool binary, bool first, bool last, size_t *accepted)
{
    *accepted = 0;
    if (peer >= ZQ_NODE_MAX_PEERS || !n->peers[peer].used || !n->peers[peer].open) {
        return ZQ_ERR_NOT_FOUND;
    }
    return peer_send_part(&n->peers[peer].peer, now, n->peers[peer].channel, data, len, binary,
                          first, last, accepted);
}

zq_err_t node_send_part_abandon(node_t *n, uint64_t now, uint8_t peer)
{
    if (peer >= ZQ_NODE_MAX_PEERS || !n->peers[peer].used) {
        return ZQ_ERR_NOT_FOUND;
    }
    return peer_send_part_abandon(&n->peers[peer].peer, now);
}

zq_err_t node_close_channel(node_t *n, uint64_t now, uint8_t peer)
{
    if (peer >= ZQ_NODE_MAX_PEERS || !n->peers[peer].used || !n->peers[peer].open) {
        return ZQ_ERR_NOT_FOUND;
    }
    return peer_close_channel(&n->peers[peer].peer, now, n->peers[peer].channel);
}

void node_close(node_t *n, uint64_t now)
{
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        if (n->peers[i].used) {
            peer_close(&n->peers[i].peer, now);
            forget(n, i, PEER_FAIL_NONE);
        }
    }
    node_relay_close(n, now);
}

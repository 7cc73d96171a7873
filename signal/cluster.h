/**
 * @file cluster.h
 * @brief Rooms shared by several signalling servers over a publish/subscribe bus (NATS in
 *        `zq signal --cluster`). Sans-IO: messages in, messages out through a callback.
 *
 * Every server keeps its own members (router.h) and, beside them, the members other servers
 * hold in the rooms where it has members of its own: their ids, rooms and servers. With that,
 * a room split over servers behaves as on one server: each pair a newcomer makes is told with
 * `peer_joined`, wherever its members are (who dials: below), offers, answers, candidates and
 * refusals reach a member on another server with `peerId` rewritten to the sender (by the
 * sender's server, where the sender is known), and `peer_left` follows a member that leaves or
 * a server that dies.
 *
 * What is trusted: the servers of one cluster (the bus's own credentials keep others out).
 * Room tokens are checked by the server a member connects to, which alone knows the URL; the
 * others take its word. A frame still goes only to a member that joined the room it names.
 *
 * The bus carries at most once (NATS core drops what a dead link held), so nothing depends on
 * one message arriving: each server repeats, every SIG_CLUSTER_ROSTER_MS, who its members are
 * (`roster`), a member nobody confirmed for three rounds is taken as gone, and a server heard
 * from by no message for SIG_CLUSTER_DEAD_MS is dead, its members gone with it.
 *
 * Subjects, under a prefix (default "zq.signal"):
 *   PREFIX.presence       every server's: alive, joined, left, roster, sync
 *   PREFIX.to.SERVER      one server's: here, roster (answering a sync), relay, dial
 * Messages are JSON objects, each with "type" and the sender's "server" id:
 *   {"type":"alive"}                                  at every beat (SIG_CLUSTER_BEAT_MS)
 *   {"type":"joined","room":R,"peerId":X}             X joined R here: each pair it makes
 *                                                     elsewhere is told (smaller id dials)
 *   {"type":"left","room":R,"peerId":X}               X left R (or its server)
 *   {"type":"here","room":R,"members":[...]}          the answer to `joined`: R's members
 *                                                     here, learnt by X's server silently
 *                                                     (the answering server paired them)
 *   {"type":"roster","room":R,"members":[...]}        R's members here, repeated
 *   {"type":"sync"}                                   a server (re)connected: answer with
 *                                                     your rosters
 *   {"type":"relay","room":R,"to":Y,"frame":{...}}    a frame for member Y, peerId rewritten
 *   {"type":"dial","room":R,"to":Y,"peerId":X}        tell your Y peer_joined X
 *
 * Who dials, across servers: the member with the smaller id. One server's members keep the
 * one-server rule (those already there dial the newcomer), but two servers cannot agree on who
 * came first: two members that join at once on two servers are each the other's newcomer,
 * and both would dial (glare, and zq.js pages that both take the other's offer never connect).
 * The server that learns a member of another (its `joined`, or a roster after a lost message
 * or an outage) pairs it with each of its own: it tells its member if its member's id is the
 * smaller, else asks the other's server (`dial`) to tell that one. Both servers may learn the
 * pair at once: a `dial` for a pair the asked server paired up itself, with its member there
 * then, is dropped, so each pair is told once.
 *
 * @code
 * static sig_router_t router;
 * static sig_cluster_t cluster;
 * sig_router_init(&router, &rand, send_to_client, srv);
 * sig_cluster_init(&cluster, &rand, "zq.signal", publish_on_nats, nats_link);
 * sig_router_attach_cluster(&router, &cluster);
 * // the bus is up and both subjects are subscribed (sig_cluster_subject()):
 * sig_cluster_link_up(&router, now);
 * // each message from the bus:
 * sig_cluster_message(&router, now, payload, len);
 * // at sig_cluster_next_timeout(&cluster):
 * sig_cluster_timeout(&router, now);
 * @endcode
 */
#ifndef ZQ_SIG_CLUSTER_H
#define ZQ_SIG_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "signal/router.h"
#include "zq/config.h"
#include "zq/rand.h"

#define SIG_CLUSTER_PREFIX_MAX 48
/* The longest subject: PREFIX ".to." SERVER. */
#define SIG_CLUSTER_SUBJECT_MAX (SIG_CLUSTER_PREFIX_MAX + 4 + SIG_ID_LEN + 1)

/** What a server says it is alive by, how long its silence may last before its members are
 *  gone, and how often it repeats its rosters (ms). */
#define SIG_CLUSTER_BEAT_MS 1000u
#define SIG_CLUSTER_DEAD_MS 3000u
#define SIG_CLUSTER_ROSTER_MS 5000u
/* Ids per roster message: 128 x 25 bytes keeps one well under NATS's 1 MB default and zq's
 * own payload bound. */
#define SIG_CLUSTER_ROSTER_CHUNK 128u

/** Publishes @p len bytes of @p payload on @p subject; the bus may lose it. */
typedef void (*sig_cluster_publish_fn)(void *ctx, const char *subject, const char *payload,
                                       size_t len);

typedef enum { SIG_SUBJECT_PRESENCE, SIG_SUBJECT_MINE } sig_subject_t;

/* A member another server holds, in a room this one has members in. */
typedef struct {
    bool used;
    uint8_t server;        /* its index in sig_cluster_t.servers */
    char id[SIG_ID_LEN + 1];
    char room[ZQ_SIG_ROOM_MAX + 1];
    uint64_t confirmed_at; /* its last joined, here or roster */
    uint64_t paired_at;    /* when this server applied the dial rule to it (its joined, or the
                              roster that taught it), or 0: learnt silently (here, relay) */
} sig_remote_t;

typedef struct {
    bool used;
    char id[SIG_ID_LEN + 1];
    uint64_t heard_at;
} sig_peer_server_t;

typedef struct sig_cluster {
    char self[SIG_ID_LEN + 1];
    char prefix[SIG_CLUSTER_PREFIX_MAX + 1];
    sig_cluster_publish_fn publish;
    void *publish_ctx;
    bool linked;
    uint64_t next_beat;
    uint64_t next_roster;
    sig_peer_server_t servers[ZQ_SIG_CLUSTER_SERVERS_MAX];
    sig_remote_t remote[ZQ_SIG_REMOTE_MAX];
    char subject[SIG_CLUSTER_SUBJECT_MAX + 1];
    char msg[ZQ_SIG_FRAME_MAX + 512]; /* the message being written */
    char text[ZQ_SIG_ROOM_MAX + 1];   /* a string read from a message */
    /* Counted, not silent: */
    uint32_t malformed;      /* a message that is not one of the above */
    uint32_t remote_full;    /* a member no slot was left for (ZQ_SIG_REMOTE_MAX) */
    uint32_t servers_full;   /* a server no slot was left for (ZQ_SIG_CLUSTER_SERVERS_MAX) */
    uint32_t relay_dropped;  /* a relayed frame for no member of its room here */
    uint32_t relayed_out, relayed_in;
    uint32_t paired;         /* pairs of a local and a remote member told who dials */
    uint32_t servers_lost;   /* servers taken as dead */
} sig_cluster_t;

/** @p prefix (at most SIG_CLUSTER_PREFIX_MAX characters, NATS subject tokens) is copied; this
 *  server's id is drawn from @p rand. @return ZQ_ERR_INVALID_ARG for a prefix too long or
 *  empty. */
zq_err_t sig_cluster_init(sig_cluster_t *cl, const zq_rand_t *rand, const char *prefix,
                          sig_cluster_publish_fn publish, void *ctx);

/** The subject to subscribe to for @p which (NUL-terminated, in @p cl until the next call). */
const char *sig_cluster_subject(sig_cluster_t *cl, sig_subject_t which);

/** The bus is up and both subjects subscribed: says so (sync) and sends the rosters. */
void sig_cluster_link_up(sig_router_t *r, uint64_t now);
/** The bus is down: nothing is published until link_up. Remote members stay until their
 *  servers' silence has lasted SIG_CLUSTER_DEAD_MS (a short outage changes nothing). */
void sig_cluster_link_down(sig_router_t *r);

/** One message from either subject. Malformed ones are counted and dropped. */
void sig_cluster_message(sig_router_t *r, uint64_t now, const char *payload, size_t len);

void sig_cluster_timeout(sig_router_t *r, uint64_t now);
uint64_t sig_cluster_next_timeout(const sig_cluster_t *cl);

/** Remote members held now (for the tests' "tables return to empty"). */
unsigned sig_cluster_remote_count(const sig_cluster_t *cl);

/* ---- What the router calls (router.c) -------------------------------------------------- */

/** Local member @p c joined its room (after its own room heard peer_joined). */
void sig_cluster_member_joined(sig_router_t *r, uint64_t now, unsigned c);
/** Local member @p c is leaving its room (still in its slot). */
void sig_cluster_member_leaving(sig_router_t *r, unsigned c);
/** A frame of local member @p c for @p to, who is no local member: relayed if @p to is a
 *  member of @p c's room on another server. @p frame[0..len) has peerId rewritten already.
 *  @return false if @p to is nobody known in that room. */
bool sig_cluster_relay(sig_router_t *r, unsigned c, const char *to, const char *frame,
                       size_t len);

#endif /* ZQ_SIG_CLUSTER_H */

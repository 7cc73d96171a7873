/**
 * @file router.h
 * @brief The signalling server's logic: rooms, ids, forwarding. Sans-IO.
 *
 * What ZeroQ's own server never did (docs/zeroq-wire.md §5, §7): it gives each client an
 * unguessable id and tells it (`{"type":"welcome","peerId":...}`); on `join` it tells the
 * room's *existing* members `peer_joined` about the newcomer, so exactly one side of every
 * pair dials and there is no glare; it forwards `offer`/`answer`/`ice_candidate` (and zq's
 * `refused`: a member full for now tells the one it left out) to the
 * addressed member of the same room with `peerId` rewritten to the sender, and drops frames
 * addressed to the sender itself (ZeroQ pages gossip their own id and dial themselves) or to
 * anyone outside its room; it says `peer_left` when a member goes. ZeroQ's bookkeeping frames
 * (`create_topic`, `subscribe`, `create_queue`, `consume`) from a member that has joined feed
 * its room's /api/topics and /api/queues lists, and leave them with the member; a client that
 * has not joined changes nothing. Every table is bounded; a full one refuses, it never grows.
 *
 * Room tokens (sig_router_require_tokens): "EXPIRY.MAC", EXPIRY the Unix second after which
 * the token opens nothing, MAC = hex HMAC-SHA256(key, "zq-room-token-v1\n" ROOM "\n" EXPIRY),
 * so a leaked URL stops working at its expiry and names one room only.
 *
 * ICE servers (sig_router_offer_ice_servers): a member that joins gets
 * `{"type":"ice_servers","iceServers":[{"urls":[...],"username":U,"credential":C}]}` for its
 * RTCPeerConnection (username and credential only when there is a TURN secret), U = "EXPIRY:ID" (its own id, good until EXPIRY, Unix seconds) and C the
 * base64 of HMAC-SHA1(secret, U): the TURN REST API convention coturn's use-auth-secret checks
 * (draft-uberti-behave-turn-rest-00 §2.2). Only members get them: a socket that has not joined,
 * or was refused, cannot use the relay. A member that stays joined gets a fresh frame each time
 * half of its credential's life has gone (sig_router_refresh_ice_servers), so what it allocates
 * later, after an outage, is allocated with a credential that still works.
 *
 * Output goes through the `send` callback, which the server implements by framing the text
 * on that client's WebSocket: the router itself does no I/O.
 */
#ifndef ZQ_SIG_ROUTER_H
#define ZQ_SIG_ROUTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "signal/sig_client.h"
#include "zq/config.h"
#include "zq/err.h"
#include "zq/rand.h"

#define SIG_ID_LEN 22 /* 128 random bits, base64url */

/* The longest room token: a 20-digit expiry, '.', 64 hex digits. */
#define SIG_TOKEN_TEXT_MAX 85

/* TURN servers handed to members (sig_router_offer_turn). */
#define SIG_ICE_URLS_MAX 4
#define SIG_ICE_URL_MAX 160

typedef enum { SIG_NAME_TOPIC = 1, SIG_NAME_QUEUE = 2 } sig_name_kind_t;

typedef struct {
    uint8_t kind; /* sig_name_kind_t */
    char text[ZQ_SIG_NAME_MAX + 1];
} sig_name_t;

/* Where a walk over a room's names (sig_router_next_name) stands. */
typedef struct {
    unsigned client;
    unsigned name;
} sig_name_cursor_t;

typedef void (*sig_send_fn)(void *ctx, unsigned client, const char *frame, size_t len);

typedef struct {
    bool used;
    bool joined;
    char id[SIG_ID_LEN + 1];
    char room[ZQ_SIG_ROOM_MAX + 1];
    uint8_t token[32];      /* the room token the client presented (URL ?token=): its MAC */
    bool has_token;
    uint64_t token_expiry;  /* its EXPIRY, Unix seconds */
    uint64_t connected_unix; /* the wall clock when it connected, Unix seconds */
    uint64_t connected_at;   /* the router's clock then, ms: with connected_unix, the wall
                                clock of any later `now` */
    uint64_t last_seen;
    uint64_t joined_at;      /* when it joined its room, ms (the cluster's dial rule) */
    uint64_t ice_sent_at;    /* when its last ice_servers frame went, ms */
    uint8_t name_count;
    sig_name_t names[ZQ_SIG_NAMES_PER_MEMBER]; /* what it announced in its room */
} sig_client_slot_t;

struct sig_cluster; /* signal/cluster.h */

typedef struct {
    zq_rand_t rand;
    struct sig_cluster *cluster; /**< NULL: this server is alone */
    sig_send_fn send;
    void *send_ctx;
    const uint8_t *token_key; /**< NULL: rooms need no token */
    size_t token_key_len;
    const uint8_t *turn_secret; /**< NULL: no TURN credentials handed out */
    size_t turn_secret_len;
    const char *const *ice_urls; /**< borrowed, ice_url_count of them */
    size_t ice_url_count;
    uint32_t turn_ttl_s;
    sig_client_slot_t clients[ZQ_SIG_MAX_CLIENTS];
    char frame[ZQ_SIG_FRAME_MAX]; /* the frame being written */
    char scratch[ZQ_SIG_SDP_MAX + 1];
    uint32_t dropped_frames;      /* malformed, self-addressed, other room, unknown target */
    uint32_t refused_joins;       /* wrong, expired or missing room token */
    uint32_t dropped_names;       /* announced by a member that already holds
                                     ZQ_SIG_NAMES_PER_MEMBER, or before it joined */
    uint32_t names_epoch;         /* changes whenever any room's lists do */
} sig_router_t;

/** @p send is called for every frame to a client, during the router's calls only. */
void sig_router_init(sig_router_t *r, const zq_rand_t *rand, sig_send_fn send, void *send_ctx);

/** Shares this router's rooms with other servers through @p cluster (signal/cluster.h);
 *  NULL: alone again. */
void sig_router_attach_cluster(sig_router_t *r, struct sig_cluster *cluster);

/** Requires a room token (the URL's ?token=, see above) for every join, so a holder of the key
 *  hands out per-room tokens that expire. @p key is borrowed. */
void sig_router_require_tokens(sig_router_t *r, const uint8_t *key, size_t key_len);

/** Hands every member, as it joins, the ICE servers @p urls ("stun:host:3478",
 *  "turn:host:3478", "turns:host:443?transport=tcp"; at most SIG_ICE_URLS_MAX, each under
 *  SIG_ICE_URL_MAX characters) and, with a TURN @p secret (else NULL), credentials for them
 *  that work for @p ttl_s seconds. @p secret and @p urls are borrowed. */
void sig_router_offer_ice_servers(sig_router_t *r, const char *const *urls, size_t url_count,
                                  const uint8_t *secret, size_t secret_len, uint32_t ttl_s);

/** Sends a fresh ice_servers frame to every member whose credential is half way to its
 *  expiry (TURN credentials only: without a secret nothing expires). Call it now and then;
 *  how often bounds how late it comes (the server: at each ping round). */
void sig_router_refresh_ice_servers(sig_router_t *r, uint64_t now);

/** A WebSocket client connected at wall-clock second @p unix_s (its token's expiry is checked
 *  against it); @p token (may be NULL) came with its URL. Sends it its welcome.
 *  @return ZQ_OK with @p client set, or ZQ_ERR_CAPACITY. */
zq_err_t sig_router_connect(sig_router_t *r, uint64_t now, uint64_t unix_s, const char *token,
                            unsigned *client);

/** One text frame from @p client. Malformed frames are counted and dropped. */
void sig_router_frame(sig_router_t *r, uint64_t now, unsigned client, const char *frame,
                      size_t len);

/** @p client is gone: the room hears `peer_left`, and the slot is free. */
void sig_router_disconnect(sig_router_t *r, unsigned client);

/** Any sign of life from @p client that is not a frame (a WebSocket pong, say). */
void sig_router_touch(sig_router_t *r, uint64_t now, unsigned client);

/** The first client silent for @p idle_ms (the server closes it), or -1. */
int sig_router_find_idle(const sig_router_t *r, uint64_t now, uint64_t idle_ms);

/** Clients connected now (for the tests' "tables return to empty"). */
unsigned sig_router_client_count(const sig_router_t *r);

/** The next name of @p kind that members of @p room (NULL: of every room) announced, each name
 *  once; NULL after the last. Start with @p cursor zeroed. The walk reads the live tables: a
 *  caller that spreads one over several calls checks names_epoch is unchanged in between. */
const char *sig_router_next_name(const sig_router_t *r, const char *room, sig_name_kind_t kind,
                                 sig_name_cursor_t *cursor);

/** True if @p token (may be NULL) opens @p room at Unix second @p unix_s, or no token is
 *  needed: the check a join makes, for the server's other doors (/api). */
bool sig_router_token_opens(const sig_router_t *r, const char *token, const char *room,
                            uint64_t unix_s);

/** The token for @p room under @p key that opens it until Unix second @p expiry, as text
 *  (SIG_TOKEN_TEXT_MAX + 1 bytes with NUL), for handing out. */
void sig_room_token(const uint8_t *key, size_t key_len, const char *room, uint64_t expiry,
                    char out[SIG_TOKEN_TEXT_MAX + 1]);

/* ---- For cluster.c ------------------------------------------------------------------ */

/** {"type":@p type,"peerId":@p id} to client @p to. */
void sig_router_send_about(sig_router_t *r, unsigned to, const char *type, const char *id);

/** A new id: 128 random bits from @p rand as SIG_ID_LEN base64url characters. */
void sig_new_id(const zq_rand_t *rand, char out[SIG_ID_LEN + 1]);

#endif /* ZQ_SIG_ROUTER_H */

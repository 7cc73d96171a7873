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
 * (`create_topic`, `subscribe`, `create_queue`, `consume`) feed the /api/topics and /api/queues
 * lists. Every table is bounded; a full one refuses, it never grows.
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

typedef void (*sig_send_fn)(void *ctx, unsigned client, const char *frame, size_t len);

typedef struct {
    bool used;
    bool joined;
    char id[SIG_ID_LEN + 1];
    char room[ZQ_SIG_ROOM_MAX + 1];
    uint8_t token[32];      /* the room token the client presented (URL ?token=) */
    bool has_token;
    uint64_t last_seen;
} sig_client_slot_t;

typedef struct {
    char names[ZQ_SIG_MAX_NAMES][ZQ_SIG_NAME_MAX + 1];
    uint16_t count;
} sig_name_set_t;

typedef struct {
    zq_rand_t rand;
    sig_send_fn send;
    void *send_ctx;
    const uint8_t *token_key; /**< NULL: rooms need no token */
    size_t token_key_len;
    sig_client_slot_t clients[ZQ_SIG_MAX_CLIENTS];
    sig_name_set_t topics;
    sig_name_set_t queues;
    char frame[ZQ_SIG_FRAME_MAX]; /* the frame being written */
    char scratch[ZQ_SIG_SDP_MAX + 1];
    uint32_t dropped_frames;      /* malformed, self-addressed, other room, unknown target */
    uint32_t refused_joins;       /* wrong or missing room token */
} sig_router_t;

/** @p send is called for every frame to a client, during the router's calls only. */
void sig_router_init(sig_router_t *r, const zq_rand_t *rand, sig_send_fn send, void *send_ctx);

/** Requires an HMAC-SHA256 room token (hex in the URL's ?token=) for every join: the token is
 *  HMAC(key, room), so a holder of the key hands out per-room tokens. @p key is borrowed. */
void sig_router_require_tokens(sig_router_t *r, const uint8_t *key, size_t key_len);

/** A WebSocket client connected; @p token (hex, may be NULL) came with its URL. Sends it its
 *  welcome. @return ZQ_OK with @p client set, or ZQ_ERR_CAPACITY. */
zq_err_t sig_router_connect(sig_router_t *r, uint64_t now, const char *token, unsigned *client);

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

/** JSON arrays of the topic and queue names ZeroQ clients announced. @return length or 0. */
size_t sig_router_topics_json(const sig_router_t *r, char *out, size_t cap);
size_t sig_router_queues_json(const sig_router_t *r, char *out, size_t cap);

/** The token for @p room under @p key, as hex (65 bytes with NUL), for handing out. */
void sig_room_token(const uint8_t *key, size_t key_len, const char *room, char out[65]);

#endif /* ZQ_SIG_ROUTER_H */

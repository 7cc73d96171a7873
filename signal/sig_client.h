/**
 * @file sig_client.h
 * @brief The ZeroQ signalling protocol, client side, as frames in and frames out.
 *
 * The messages of docs/zeroq-wire.md §1: `join`, `offer`/`answer` with an `{type, sdp}`
 * object, `ice_candidate` with an RTCIceCandidate-shaped object; from the server `peer_joined`
 * (dial that peer), `offer`/`answer`/`ice_candidate` with `peerId` rewritten to the sender,
 * and zq's additions `welcome` (our own id), `peer_left` and `refused` (a member with no room
 * for us yet, relayed like an offer; ZeroQ's clients ignore it). The WebSocket under it belongs to
 * the caller: this module only turns JSON text into events and requests into JSON text.
 */
#ifndef ZQ_SIG_CLIENT_H
#define ZQ_SIG_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/config.h"
#include "zq/err.h"

typedef enum {
    SIG_EVENT_NONE,        /**< a frame of no interest (ignored, as ZeroQ does) */
    SIG_EVENT_WELCOME,     /**< our own id: @c peer */
    SIG_EVENT_PEER_JOINED, /**< @c peer joined the room after us: dial it */
    SIG_EVENT_PEER_LEFT,   /**< @c peer left */
    SIG_EVENT_OFFER,       /**< from @c peer: @c text is the SDP */
    SIG_EVENT_ANSWER,      /**< from @c peer: @c text is the SDP */
    SIG_EVENT_CANDIDATE,   /**< from @c peer: @c text is the candidate line */
    SIG_EVENT_REFUSED,     /**< @c peer has no room for us yet: @c text is its reason */
    SIG_EVENT_ICE_SERVERS, /**< the room's STUN/TURN servers (zq signal --turn-secret): @c text
                                holds the first entry's URLs, one per line; @c username and
                                @c credential its time-limited TURN credential */
} sig_event_type_t;

/** Longest TURN username or credential a frame may carry (RFC 8489 §14.3: < 513 bytes; the
 *  TURN REST convention's are under 100). */
#define SIG_CREDENTIAL_MAX 128

typedef struct {
    sig_event_type_t type;
    char peer[ZQ_SIG_ID_MAX + 1];
    char text[ZQ_SIG_SDP_MAX + 1]; /**< unescaped, NUL-terminated */
    size_t text_len;
    char username[SIG_CREDENTIAL_MAX + 1];   /**< SIG_EVENT_ICE_SERVERS */
    char credential[SIG_CREDENTIAL_MAX + 1]; /**< SIG_EVENT_ICE_SERVERS */
} sig_event_t;

/**
 * Reads one frame from the server into @p ev.
 * @return ZQ_OK (ev->type may be SIG_EVENT_NONE for frames to ignore); ZQ_ERR_MALFORMED for
 *         frames that are not JSON objects or lack what their type needs; ZQ_ERR_TOO_LONG.
 */
zq_err_t sig_parse_frame(const char *frame, size_t len, sig_event_t *ev);

/** `{"type":"join","topicId":room}`. Each writer returns the frame's length, 0 if @p cap is
 *  too small. */
size_t sig_write_join(const char *room, char *out, size_t cap);
/** `{"type":"offer"|"answer","peerId":to,"sdp":{"type":...,"sdp":sdp}}` */
size_t sig_write_description(bool offer, const char *to, const char *sdp, size_t sdp_len,
                             char *out, size_t cap);
/** `{"type":"ice_candidate","peerId":to,"candidate":{"candidate":line,"sdpMid":"0",
 *  "sdpMLineIndex":0,"usernameFragment":ufrag}}` */
size_t sig_write_candidate(const char *to, const char *line, const char *ufrag, char *out,
                           size_t cap);
/** `{"type":"refused","peerId":to,"reason":reason}`: we have no room for @p to yet. */
size_t sig_write_refused(const char *to, const char *reason, char *out, size_t cap);

#endif /* ZQ_SIG_CLIENT_H */

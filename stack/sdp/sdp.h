/**
 * @file sdp.h
 * @brief The one `m=application` section a WebRTC data channel needs, read from and written to
 *        SDP text (RFC 8866), with its ICE (RFC 8839), DTLS (RFC 8122, RFC 5763), SCTP
 *        (RFC 8841) and BUNDLE (RFC 8843) attributes.
 *
 * zq never holds a whole session description: it needs one data section, its transport
 * attributes and its candidates, and that is what sdp_t holds (888 bytes with the default
 * capacities, on 64-bit hosts and Cortex-M4 alike; no pointers, so memcpy copies it).
 * Everything else a browser writes (audio and video sections, a=extmap-allow-mixed,
 * a=msid-semantic, unknown attributes) is read past and dropped.
 *
 * Reading a browser's offer, then answering it:
 *
 * @code
 * sdp_t remote;
 * const char *why;
 * if (sdp_parse(offer_text, offer_len, &remote, &why) != ZQ_OK) {
 *     log("bad offer: %s", why);              // a static string, e.g. "missing a=ice-pwd"
 *     return;
 * }
 * ice_agent_set_remote_credentials(&ice, remote.ice_ufrag, strlen(remote.ice_ufrag),
 *                                  remote.ice_pwd, strlen(remote.ice_pwd));
 * for (uint8_t i = 0; i < remote.n_candidates; i++)
 *     ice_agent_add_remote_candidate(&ice, now, &remote.candidates[i]);
 *
 * sdp_t local;
 * sdp_init(&local);                                      // sctp-port 5000, max-message-size 65536
 * strcpy(local.ice_ufrag, cred->ufrag);  strcpy(local.ice_pwd, cred->pwd);
 * local.ice_lite = true;
 * local.has_fingerprint = true;  local.fingerprint = identity.fingerprint;
 * local.setup = SDP_SETUP_PASSIVE;                       // lite: let the browser be DTLS client
 * memcpy(local.mid, remote.mid, sizeof local.mid);       // RFC 8843: answer with the offer's mid
 * local.bundle = remote.bundle;
 * local.legacy_sctpmap = remote.legacy_sctpmap;          // answer aiortc's legacy form in kind
 * local.max_message_size = 262144;
 * sdp_add_candidate(&local, ice_agent_local_candidate(&ice, 0));
 * local.end_of_candidates = true;
 * char text[SDP_TEXT_MAX];
 * size_t n = sdp_write(&local, SDP_ANSWER, text, sizeof text);   // 0: invalid description
 * @endcode
 *
 * Conventions: no allocation; every pointer argument is borrowed for the duration of the call
 * only, and nothing in sdp_t points into the parsed text. Capacities are compile-time (below);
 * a candidate beyond ZQ_SDP_MAX_CANDIDATES is counted, never an error.
 */
#ifndef ZQ_SDP_H
#define ZQ_SDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/dtls/dtls.h"
#include "stack/ice/ice.h"
#include "zq/addr.h"
#include "zq/config.h"
#include "zq/err.h"

/* zq must read back every line it writes: a candidate with "a=" (the credentials and the mid:
 * zq/config.h, with the capacities). */
_Static_assert(ZQ_SDP_LINE_MAX >= ICE_CANDIDATE_TEXT_MAX + 2,
               "ZQ_SDP_LINE_MAX cannot hold the longest a=candidate line zq writes");

/** RFC 8839 §5.4: a ufrag has 4 to 256 ice-chars, a password 22 to 256. */
#define SDP_ICE_UFRAG_MIN 4
#define SDP_ICE_PWD_MIN 22

/** RFC 8841 §5.2: the SCTP port when a=sctp-port is absent. */
#define SDP_DEFAULT_SCTP_PORT 5000
/** RFC 8841 §6.1: the peer's message size limit when a=max-message-size is absent. */
#define SDP_DEFAULT_MAX_MESSAGE_SIZE 65536u

/** The longest text sdp_write() produces, plus its NUL: size output buffers with this. */
#define SDP_TEXT_MAX                                                                             \
    (5 + 64 + 5 + 7                                /* v=, o= (two 20-digit ids), s=, t= */      \
     + 17 + ZQ_SDP_MID_MAX + 12                    /* a=group:BUNDLE, a=ice-lite */             \
     + 56 + 11 + ZQ_ADDR_TEXT_MAX                  /* m=, c=IN IP6 */                           \
     + 14 + ZQ_ICE_UFRAG_MAX + 12 + ZQ_ICE_PWD_MAX /* a=ice-ufrag, a=ice-pwd */                 \
     + 23 + 16 + DTLS_FINGERPRINT_TEXT_MAX + 19    /* a=ice-options, a=fingerprint, a=setup */  \
     + 8 + ZQ_SDP_MID_MAX + 44 + 31                /* a=mid, a=sctpmap or sctp-port, a=max.. */ \
     + ZQ_SDP_MAX_CANDIDATES * (ICE_CANDIDATE_TEXT_MAX + 4) + 21 /* candidates, end-of-.. */    \
     + 1)

/* ---- The description ----------------------------------------------------------------------- */

/** a=setup (RFC 4145 §4, RFC 5763 §5): who opens the DTLS connection. */
typedef enum {
    SDP_SETUP_NONE = 0, /**< absent: the caller applies its default (RFC 4145 §4) */
    SDP_SETUP_ACTPASS,  /**< offerer: either role, the answerer picks */
    SDP_SETUP_ACTIVE,   /**< DTLS client */
    SDP_SETUP_PASSIVE,  /**< DTLS server */
} sdp_setup_t;

/** Which side of RFC 3264's offer/answer a description is; the caller always knows. */
typedef enum { SDP_OFFER = 0, SDP_ANSWER = 1 } sdp_kind_t;

/**
 * One data-channel section and the session-level lines around it. Strings are NUL-terminated.
 * Transport attributes may sit at session or media level; sdp_parse() resolves them (media
 * level wins, RFC 8866 §5) so a reader never has to.
 */
typedef struct {
    char ice_ufrag[ZQ_ICE_UFRAG_MAX + 1]; /**< a=ice-ufrag, 4..ZQ_ICE_UFRAG_MAX ice-chars */
    char ice_pwd[ZQ_ICE_PWD_MAX + 1];     /**< a=ice-pwd, 22..ZQ_ICE_PWD_MAX ice-chars */
    bool ice_lite;                        /**< a=ice-lite (RFC 8839 §5.3) */
    bool ice_trickle;                     /**< a=ice-options lists "trickle" (RFC 8840) */
    bool has_fingerprint;                 /**< a=fingerprint:sha-256 was given */
    dtls_fingerprint_t fingerprint;       /**< the peer's certificate hash (RFC 8122 §5) */
    sdp_setup_t setup;                    /**< a=setup; SDP_SETUP_NONE when absent */
    char mid[ZQ_SDP_MID_MAX + 1];         /**< a=mid (RFC 5888 §4); "" when absent */
    bool bundle;                          /**< an a=group:BUNDLE line lists mid (RFC 8843) */
    uint16_t sctp_port;                   /**< a=sctp-port, or the legacy format number; 5000 */
    uint32_t max_message_size;            /**< a=max-message-size; 65536 when absent; 0 means
                                               "no limit" (RFC 8841 §6.1); larger than 2^32-1
                                               saturates */
    bool legacy_sctpmap;                  /**< m=application PORT DTLS/SCTP 5000 with
                                               a=sctpmap (draft-ietf-mmusic-sctp-sdp-05), as
                                               aiortc offers */
    ice_candidate_t candidates[ZQ_SDP_MAX_CANDIDATES]; /**< UDP candidates, in SDP order */
    uint8_t n_candidates;
    uint16_t candidates_skipped; /**< TCP, mDNS, other components, beyond capacity; saturates */
    bool end_of_candidates;      /**< a=end-of-candidates (RFC 8840) */
    uint64_t session_id;         /**< o= sess-id; 0 when o= is absent */
    uint64_t session_version;    /**< o= sess-version */
    zq_addr_t connection;        /**< the default destination: the c= address (media level
                                      wins) with the m= port. 0.0.0.0:9 when the peer had no
                                      candidate yet (RFC 8829 §5.2.1), and from Pion 3.1.56
                                      even after gathering: connect to the candidates, not to
                                      this; family ZQ_AF_NONE for no c= or a host name. Parsed
                                      only: sdp_write() derives it from candidates[0]. */
} sdp_t;

/** Clears @p sdp and sets the defaults a browser assumes when a line is absent: sctp_port 5000,
 *  max_message_size 65536, setup SDP_SETUP_NONE. */
void sdp_init(sdp_t *sdp);

/**
 * Reads the first usable data-channel section of @p text (@p len bytes, NUL not needed).
 *
 * Usable: `m=application <port> UDP/DTLS/SCTP webrtc-datachannel` (RFC 8841 §4), or the legacy
 * `m=application <port> DTLS/SCTP <sctp-port>` whose a=sctpmap, if present, names
 * webrtc-datachannel; port 0 (rejected media, RFC 3264 §6) is not usable. Other sections are
 * skipped unread. Lines end in CRLF or a bare LF (RFC 8866 §5). Candidates zq does not use
 * (ice_candidate_parse() says ZQ_ERR_UNSUPPORTED) and candidates beyond capacity are counted in
 * candidates_skipped.
 *
 * Rejected, with @p reason set to a static English string naming the line: no `v=0` first line,
 * a line over ZQ_SDP_LINE_MAX or holding a control byte (C0 or DEL), a line that is not
 * `<type>=<value>`, a bad o= or c= line, no usable section, missing or bad a=ice-ufrag /
 * a=ice-pwd, missing or malformed a=fingerprint, a fingerprint with no sha-256 among its hashes
 * ("fingerprint hash not supported"), a bad a=setup, a=sctp-port, a=max-message-size, a=sctpmap
 * or a=mid, a malformed a=candidate, and a repeated single-valued attribute at one level.
 * The parser does not judge a=setup against the offer/answer role: the caller knows its kind.
 *
 * @param reason may be NULL; else set on every return ("ok" on success), never NULL.
 * @return ZQ_OK; ZQ_ERR_MALFORMED (broken or incomplete); ZQ_ERR_TOO_LONG (a line, credential or
 *         mid longer than its maximum); ZQ_ERR_UNSUPPORTED (no usable section, no sha-256
 *         fingerprint); ZQ_ERR_INVALID_ARG (NULL @p text or @p out). On failure @p out holds
 *         sdp_init()'s values.
 */
zq_err_t sdp_parse(const char *text, size_t len, sdp_t *out, const char **reason);

/**
 * Writes the description zq sends, its lines in the order Chromium 156 writes them:
 *
 *     v=0 / o=- <session_id> <session_version> IN IP4 127.0.0.1 / s=- / t=0 0
 *     a=group:BUNDLE <mid>          (bundle and a mid)      a=ice-lite   (ice_lite)
 *     m=application <port> UDP/DTLS/SCTP webrtc-datachannel | DTLS/SCTP <sctp_port> (legacy)
 *     c=IN IP4|IP6 <address>
 *     a=candidate:... (each)        a=end-of-candidates     (end_of_candidates)
 *     a=ice-ufrag  a=ice-pwd  a=ice-options:trickle (ice_trickle)  a=fingerprint:sha-256 ...
 *     a=setup  a=mid  a=sctp-port | a=sctpmap:<sctp_port> webrtc-datachannel 65535 (legacy)
 *     a=max-message-size
 *
 * with CRLF after each line. <port> and <address> come from candidates[0] (its port, or 9 if
 * it has none or port 0), else 9 and 0.0.0.0 (RFC 8829 §5.2.1). @c connection is not read.
 * setup SDP_SETUP_NONE becomes actpass in an offer and active in an answer (RFC 5763 §5).
 *
 * @return the length written, without the NUL that follows it; 0 (and "" when @p cap > 0) if
 *         @p cap is too small (SDP_TEXT_MAX always suffices) or @p in cannot be written as a
 *         description a peer would accept: credentials outside RFC 8839 §5.4, no fingerprint,
 *         a mid that is no token, sctp_port 0, too many or unformattable candidates, actpass in
 *         an answer. Nothing is written at or past out[cap].
 */
size_t sdp_write(const sdp_t *in, sdp_kind_t kind, char *out, size_t cap);

/** Appends @p cand to @p sdp's candidates. @return ZQ_OK, ZQ_ERR_CAPACITY when full,
 *  ZQ_ERR_INVALID_ARG for NULL. */
zq_err_t sdp_add_candidate(sdp_t *sdp, const ice_candidate_t *cand);

/** The a=setup token: "actpass", "active", "passive"; "" for SDP_SETUP_NONE or other values. */
const char *sdp_setup_name(sdp_setup_t setup);

#endif /* ZQ_SDP_H */

/**
 * @file ice.h
 * @brief A sans-IO ICE agent (RFC 8445) with consent freshness (RFC 7675), lite or full.
 *
 * The agent never touches a socket or a clock. The caller feeds it what arrives and when:
 *
 * @code
 * ice_config_t cfg;
 * ice_config_default(&cfg, ICE_MODE_LITE);
 * cfg.rand = my_rand;                               // zq_rand_t over the OS RNG
 * ice_agent_t *agent = &my_static_agent;            // caller-owned, ~3 KiB
 * ice_agent_init(agent, &cfg);
 * ice_agent_add_host_candidate(agent, now, &bound_addr);
 * ice_agent_set_remote_credentials(agent, ufrag, ufrag_len, pwd, pwd_len);
 * ice_agent_start(agent, now);
 * for (;;) {
 *     // datagram arrived on `local` from `remote`:
 *     ice_agent_handle_datagram(agent, now, &local, &remote, buf, len);
 *     // or the deadline passed:
 *     ice_agent_handle_timeout(agent, now);
 *     ice_transmit_t tx;
 *     while (ice_agent_poll_transmit(agent, &tx)) send(tx.local, tx.remote, tx.data, tx.len);
 *     ice_event_t ev;
 *     while (ice_agent_poll_event(agent, &ev)) ...;
 *     sleep until ice_agent_next_timeout(agent);
 * }
 * @endcode
 *
 * Modes:
 * - ICE_MODE_LITE (RFC 8445 §2.5, the device default): has only host candidates, never sends a
 *   check, answers the peer's checks, learns peer-reflexive candidates from them, and uses the
 *   pair the (full, controlling) peer nominates. With no valid check for consent_timeout_ms it
 *   declares the peer gone.
 * - ICE_MODE_FULL: gathers a server-reflexive candidate from a STUN server, forms the check
 *   list, paces checks every ta_ms, retransmits them, resolves role conflicts (487), nominates
 *   (regular nomination) when controlling, and keeps consent alive on the selected pair.
 *
 * One data stream with one component (BUNDLE and rtcp-mux: a data channel needs no more).
 * Both peers being lite is not supported (RFC 8445 §6.1.1 makes it a special case no browser
 * uses).
 */
#ifndef ZQ_ICE_H
#define ZQ_ICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stack/ice/stun.h"
#include "zq/addr.h"
#include "zq/config.h"
#include "zq/err.h"
#include "zq/queue.h"
#include "zq/rand.h"
#include "zq/time.h"

/* ---- Candidates (RFC 8445 §5.1, RFC 8839 §5.1) -------------------------------------------- */

typedef enum {
    ICE_CAND_HOST = 0,
    ICE_CAND_SRFLX = 1,
    ICE_CAND_PRFLX = 2,
    ICE_CAND_RELAY = 3,
} ice_cand_type_t;

typedef struct {
    char foundation[ZQ_ICE_FOUNDATION_MAX + 1]; /**< NUL-terminated, 1..32 ice-chars */
    uint8_t component;                          /**< 1: zq has one component */
    uint32_t priority;                          /**< RFC 8445 §5.1.2 */
    ice_cand_type_t type;
    zq_addr_t addr;    /**< the transport address (UDP) */
    zq_addr_t related; /**< raddr/rport; family ZQ_AF_NONE when absent */
} ice_candidate_t;

/** Longest candidate line ice_candidate_format() writes, plus NUL. */
#define ICE_CANDIDATE_TEXT_MAX 200

/**
 * Parses one candidate attribute: "a=candidate:...", "candidate:..." or the bare value, with
 * or without a trailing CR/LF (RFC 8839 §5.1). Extensions after the mandatory fields
 * (generation, ufrag, network-id, network-cost, ...) are accepted and ignored.
 *
 * A malformed field anywhere makes the whole line malformed, even on a TCP candidate. A
 * hostname as the related address is dropped (related stays ZQ_AF_NONE): RFC 8839 §5.1 makes
 * it diagnostic only. @p out is written only on ZQ_OK.
 *
 * @return ZQ_OK; ZQ_ERR_UNSUPPORTED for a candidate zq does not use (TCP, an mDNS ".local"
 *         hostname or any other name instead of an IP, a component other than 1): the caller
 *         skips it, it is not an error of the offer; ZQ_ERR_MALFORMED otherwise;
 *         ZQ_ERR_INVALID_ARG for a NULL argument.
 */
zq_err_t ice_candidate_parse(const char *line, size_t len, ice_candidate_t *out);

/**
 * Writes "candidate:<foundation> <component> udp <priority> <ip> <port> typ <type>
 * [raddr <ip> rport <port>]" (no "a=", no CRLF), NUL-terminated.
 * @return the length written, or 0 (and "" when @p cap > 0) if @p cap is too small or the
 *         candidate could not be parsed back (empty or non-ice-char foundation, unknown type,
 *         component 0, no address family).
 */
size_t ice_candidate_format(const ice_candidate_t *cand, char *out, size_t cap);

/** RFC 8445 §5.1.2.1: (2^24)*type preference + (2^8)*local preference + (256 - component). */
uint32_t ice_candidate_priority(ice_cand_type_t type, uint16_t local_pref, uint8_t component);

/** The type's name in SDP: "host", "srflx", "prflx", "relay"; "unknown" for other values. */
const char *ice_cand_type_name(ice_cand_type_t type);

/* ---- Configuration ----------------------------------------------------------------------- */

typedef enum { ICE_MODE_LITE = 0, ICE_MODE_FULL = 1 } ice_mode_t;
typedef enum { ICE_ROLE_CONTROLLED = 0, ICE_ROLE_CONTROLLING = 1 } ice_role_t;

typedef struct {
    ice_mode_t mode;
    ice_role_t role;              /**< initial role; a lite agent is always controlled */
    zq_rand_t rand;               /**< credentials, tie-breaker, transaction ids, jitter */
    uint32_t ta_ms;               /**< pacing between new checks (RFC 8445 §14.2): 50 */
    uint32_t rto_ms;              /**< first retransmission timeout (RFC 8489 §6.2.1): 500 */
    uint8_t max_sends;            /**< Rc, transmissions per transaction: 7 */
    uint8_t final_wait_factor;    /**< Rm, last wait in units of rto_ms: 16 */
    uint32_t nomination_wait_ms;  /**< controlling: wait this long for a better pair: 200 */
    uint32_t connect_timeout_ms;  /**< no pair selected by then after start: failed. 30000 */
    uint32_t consent_interval_ms; /**< RFC 7675 §5.1: checks every 5 s, jittered ±20% */
    uint32_t consent_timeout_ms;  /**< RFC 7675 §5.1: consent lost after 30 s without proof */
    zq_addr_t stun_server;        /**< full mode: where to learn a srflx candidate; none = 0 */
} ice_config_t;

/** Fills @p cfg with the defaults above for @p mode (rand left empty: the caller sets it). */
void ice_config_default(ice_config_t *cfg, ice_mode_t mode);

typedef struct {
    char ufrag[ZQ_ICE_UFRAG_MAX + 1]; /**< NUL-terminated */
    char pwd[ZQ_ICE_PWD_MAX + 1];     /**< NUL-terminated */
} ice_credentials_t;

/* ---- Outputs ----------------------------------------------------------------------------- */

/** A datagram to send. @c data points into the agent and stays valid until its next call. */
typedef struct {
    zq_addr_t local;  /**< the host address (socket) to send from */
    zq_addr_t remote; /**< where to */
    const uint8_t *data;
    size_t len;
} ice_transmit_t;

typedef enum {
    ICE_EVENT_LOCAL_CANDIDATE, /**< a local candidate to signal (trickle): @c candidate */
    ICE_EVENT_GATHERING_DONE,  /**< every local candidate was announced (end-of-candidates) */
    ICE_EVENT_SELECTED_PAIR,   /**< a pair was selected, or the selection changed: @c local,
                                    @c remote. Data may flow on it from now on. */
    ICE_EVENT_ROLE_CHANGED,    /**< a role conflict was resolved (RFC 8445 §7.3.1.1): @c role */
    ICE_EVENT_DISCONNECTED,    /**< consent lost (RFC 7675): stop sending to the peer */
    ICE_EVENT_FAILED,          /**< no pair could be validated */
} ice_event_type_t;

typedef struct {
    ice_event_type_t type;
    ice_candidate_t candidate; /**< ICE_EVENT_LOCAL_CANDIDATE */
    uint8_t candidate_index;   /**< ICE_EVENT_LOCAL_CANDIDATE: ice_agent_local_candidate()'s */
    zq_addr_t local;           /**< ICE_EVENT_SELECTED_PAIR: our host address */
    zq_addr_t remote;          /**< ICE_EVENT_SELECTED_PAIR: the peer's address */
    ice_role_t role;           /**< ICE_EVENT_ROLE_CHANGED */
} ice_event_t;

typedef enum {
    ICE_STATE_NEW,          /**< initialised, not started */
    ICE_STATE_CHECKING,     /**< started, no pair selected yet */
    ICE_STATE_CONNECTED,    /**< a pair is selected */
    ICE_STATE_DISCONNECTED, /**< consent lost; terminal */
    ICE_STATE_FAILED,       /**< no pair; terminal */
} ice_state_t;

/** What the agent dropped or answered, and why: every bad input is counted here. */
typedef struct {
    uint32_t rx_datagrams;       /**< datagrams handed to the agent */
    uint32_t rx_malformed;       /**< not STUN, or broke RFC 8489's structure */
    uint32_t rx_bad_fingerprint; /**< FINGERPRINT mismatch */
    uint32_t rx_bad_integrity;   /**< MESSAGE-INTEGRITY mismatch on a response (dropped) */
    uint32_t rx_unknown_txn;     /**< response to no transaction of ours */
    uint32_t rx_unknown_local;   /**< arrived on an address that is not one of our hosts */
    uint32_t rx_indications;     /**< Binding indications (keepalives), ignored */
    uint32_t tx_bad_request;     /**< 400 answers: missing USERNAME/MI/PRIORITY/role */
    uint32_t tx_unauthorized;    /**< 401 answers: wrong ufrag or MESSAGE-INTEGRITY */
    uint32_t tx_unknown_attr;    /**< 420 answers */
    uint32_t tx_role_conflict;   /**< 487 answers */
    uint32_t checks_sent;        /**< first transmissions of connectivity checks */
    uint32_t retransmits;        /**< retransmissions of any request */
    uint32_t prflx_learned;      /**< remote peer-reflexive candidates learned */
    uint32_t candidates_skipped; /**< remote candidates zq does not use (TCP, mDNS) */
    uint32_t capacity_exhausted; /**< a table was full: candidate, pair or transaction lost */
    uint32_t queue_overflow;     /**< transmit queue full (outputs not drained); a full event
                                      queue counts in ice_agent_events_refused() */
} ice_stats_t;

/* ---- The agent (caller-allocated; fields are private) ------------------------------------ */

typedef struct {
    ice_candidate_t cand;
    zq_addr_t base; /* the host address this candidate's datagrams leave from */
} ice_local_t;

typedef struct {
    uint8_t local;  /* index of the host (base) candidate the checks leave from */
    uint8_t remote; /* index of the remote candidate */
    uint8_t state;  /* ice_pair_state_t (ice_internal.h) */
    uint8_t flags;  /* ICE_PAIR_* (ice_internal.h) */
    uint32_t triggered_order;
    uint64_t priority;
} ice_pair_t;

typedef struct {
    uint8_t kind;  /* ice_txn_kind_t (ice_internal.h); 0 = free */
    uint8_t index; /* pair (check, consent) or local candidate (gathering) */
    uint8_t sends; /* transmissions so far */
    bool nominating;
    bool cancelled; /* RFC 8445 §7.2.5.4: no more retransmissions, still awaits a reply */
    uint8_t role_sent; /* the role the request claimed */
    uint8_t tid[STUN_TID_LEN];
    uint32_t rto;      /* current retransmission interval */
    uint64_t next_at;  /* next retransmission, or the end of the transaction */
} ice_txn_t;

typedef struct {
    zq_addr_t local;
    zq_addr_t remote;
    uint16_t len;
    uint8_t data[ZQ_STUN_MAX_MESSAGE];
} ice_tx_slot_t;

typedef struct {
    uint8_t type;  /* ice_event_type_t */
    uint8_t index; /* local candidate index for ICE_EVENT_LOCAL_CANDIDATE */
} ice_event_slot_t;

typedef struct {
    ice_config_t cfg;
    ice_state_t state;
    ice_role_t role;
    uint64_t tie_breaker;
    ice_credentials_t local_cred;
    ice_credentials_t remote_cred;
    bool have_remote_cred;
    bool remote_gathering_done;
    bool started;
    bool gathering_done; /* GATHERING_DONE was emitted */
    bool relay_expected; /* a TURN allocation is under way: gathering waits for it */
    uint8_t n_local;
    uint8_t n_remote;
    uint8_t n_pairs;
    uint8_t selected;   /* pair index, or ICE_NONE */
    uint8_t nominating; /* pair index of a nomination in flight, or ICE_NONE */
    ice_local_t local[ZQ_ICE_MAX_LOCAL_CANDIDATES];
    ice_candidate_t remote[ZQ_ICE_MAX_REMOTE_CANDIDATES];
    ice_pair_t pairs[ZQ_ICE_MAX_PAIRS];
    ice_txn_t txns[ZQ_ICE_MAX_TRANSACTIONS];
    uint32_t triggered_counter;
    uint64_t started_at;
    uint64_t next_check_at;  /* pacing timer (full); ZQ_TIME_NEVER when idle */
    uint64_t first_valid_at; /* controlling: when the first pair became valid */
    uint64_t consent_at;     /* full: next consent check; lite: unused */
    uint64_t last_proof_at;  /* full: last consent response; lite: last valid check */
    ice_tx_slot_t tx[ZQ_ICE_TX_QUEUE];
    uint8_t tx_head;
    uint8_t tx_count;
    zq_queue_t evq;
    ice_event_slot_t events[ZQ_ICE_EVENT_QUEUE];
    ice_stats_t stats;
} ice_agent_t;

/* ---- The agent's API --------------------------------------------------------------------- */

/** Initialises @p agent: random local credentials and tie-breaker from @p cfg->rand. */
zq_err_t ice_agent_init(ice_agent_t *agent, const ice_config_t *cfg);

/** Our ufrag and password, for the SDP (a=ice-ufrag, a=ice-pwd). */
const ice_credentials_t *ice_agent_local_credentials(const ice_agent_t *agent);

/** Sets the role before start (e.g. controlling when the peer is lite, RFC 8445 §6.1.1). */
zq_err_t ice_agent_set_role(ice_agent_t *agent, ice_role_t role);

/** The peer's a=ice-ufrag and a=ice-pwd. A full agent sends no check before it has them. */
zq_err_t ice_agent_set_remote_credentials(ice_agent_t *agent, const char *ufrag,
                                          size_t ufrag_len, const char *pwd, size_t pwd_len);

/** Adds a host candidate: an address a socket of ours is bound to (not 0.0.0.0). */
zq_err_t ice_agent_add_host_candidate(ice_agent_t *agent, uint64_t now, const zq_addr_t *addr);

/** A TURN allocation as ICE sees it. */
typedef struct {
    zq_addr_t relayed;  /**< the server's relayed address */
    zq_addr_t mapped;   /**< where the server saw the allocation come from (XOR-MAPPED-ADDRESS) */
    /** Made over UDP: @c mapped is a server-reflexive candidate too. Over TCP or TLS it is a
     *  TCP address, which no UDP check reaches: only the relayed candidate's related one. */
    bool mapped_is_udp;
} ice_relay_t;

/**
 * Adds a relayed candidate (RFC 8445 §5.1.1.2) from a TURN allocation the caller holds: the
 * relayed address is its own base (checks and data "from" it go to the caller, who wraps them
 * for the server, stack/turn), the mapped address its related address (RFC 8839 §5.1), which
 * over UDP is also added as a server-reflexive candidate of @p host, the host candidate that
 * talks to the server. Its type preference is 0 (§5.1.2.2), so a direct pair that works wins.
 * Full agents only.
 * @return ZQ_OK; ZQ_ERR_STATE (a lite agent: RFC 8445 §2.5, host candidates only);
 *         ZQ_ERR_NOT_FOUND (@p host is none of ours); ZQ_ERR_CAPACITY.
 */
zq_err_t ice_agent_add_relay_candidate(ice_agent_t *agent, uint64_t now, const ice_relay_t *relay,
                                       const zq_addr_t *host);

/** A relayed candidate is (@p expected true) or is no longer (false) on its way: while one
 *  is, gathering is not done (no GATHERING_DONE, no end-of-candidates in the description). */
void ice_agent_expect_relay(ice_agent_t *agent, bool expected);

/** Adds a signalled remote candidate. Duplicates are ignored. */
zq_err_t ice_agent_add_remote_candidate(ice_agent_t *agent, uint64_t now,
                                        const ice_candidate_t *cand);

/** Parses and adds one remote a=candidate line; candidates zq does not use are skipped
 *  (counted in candidates_skipped) and return ZQ_OK. */
zq_err_t ice_agent_add_remote_candidate_line(ice_agent_t *agent, uint64_t now, const char *line,
                                             size_t len);

/** The peer signalled end-of-candidates (RFC 8838 §8.2): failure can be declared early. */
void ice_agent_remote_gathering_done(ice_agent_t *agent);

/** Starts gathering (full) and checks; answers to checks work from init. */
zq_err_t ice_agent_start(ice_agent_t *agent, uint64_t now);

/** Feeds one datagram received on @p local (one of our host addresses) from @p remote:
 *  stun_parse() (after stun_looks_like()), then ice_agent_handle_stun(). */
zq_err_t ice_agent_handle_datagram(ice_agent_t *agent, uint64_t now, const zq_addr_t *local,
                                   const zq_addr_t *remote, const uint8_t *data, size_t len);

/**
 * Feeds one datagram its caller has already parsed, so that a datagram read once to find its
 * agent (ice_agent_is_addressed()) is not parsed again. @p parsed is what stun_parse() said
 * (ZQ_ERR_MALFORMED where stun_looks_like() said no); @p msg is read only when it is ZQ_OK,
 * and borrows the datagram for this call. The parse checked the structure and FINGERPRINT
 * (RFC 8489 §7.3); the agent checks USERNAME and MESSAGE-INTEGRITY before the message
 * changes anything (RFC 8445 §7.3), and counts in its stats what the parse refused.
 * @return ZQ_OK, @p parsed when it is an error, ZQ_ERR_STATE in a terminal state,
 *         ZQ_ERR_NOT_FOUND when @p local is not one of our hosts.
 */
zq_err_t ice_agent_handle_stun(ice_agent_t *agent, uint64_t now, const zq_addr_t *local,
                               const zq_addr_t *remote, const stun_msg_t *msg, zq_err_t parsed);

/**
 * Whether @p msg names this agent: a request's USERNAME starts with our ufrag and a colon
 * (RFC 8445 §7.2.2: "<receiver's ufrag>:<sender's ufrag>"); a response answers one of our
 * transactions (RFC 8489 §6.3: matched by transaction ID), the way a STUN server's answer,
 * which names no ufrag and comes from no peer's address, finds its agent. Believes nothing:
 * it tells which agent a message is for, and that agent then authenticates it.
 */
bool ice_agent_is_addressed(const ice_agent_t *agent, const stun_msg_t *msg);

/** Runs whatever is due at @p now (retransmissions, pacing, consent, timeouts). */
void ice_agent_handle_timeout(ice_agent_t *agent, uint64_t now);

/** The earliest time handle_timeout has work, or ZQ_TIME_NEVER. */
uint64_t ice_agent_next_timeout(const ice_agent_t *agent);

/** Pops the next datagram to send; false when none. */
bool ice_agent_poll_transmit(ice_agent_t *agent, ice_transmit_t *tx);

/** Pops the next event; false when none. */
bool ice_agent_poll_event(ice_agent_t *agent, ice_event_t *ev);

/** The selected pair's addresses; false before one is selected. */
bool ice_agent_selected_pair(const ice_agent_t *agent, zq_addr_t *local, zq_addr_t *remote);

/**
 * A pair data may be sent on now: the selected pair once there is one; before that, for a
 * full agent, its highest-priority valid pair (RFC 8445 §12.1: "An ICE agent MAY send data on
 * any valid pair before selected pairs have been produced"), which its own check proved: the
 * peer answered there, signed with the password only signalling gave us. A lite agent has no
 * valid pair before it is nominated (§7.3.2, and §12.1.1: it "MUST NOT send data until it has
 * a valid list"), so it has nothing to offer until then. False in a terminal state.
 * The selected pair, when it comes, decides (ICE_EVENT_SELECTED_PAIR).
 */
bool ice_agent_usable_pair(const ice_agent_t *agent, zq_addr_t *local, zq_addr_t *remote);

/** Whether @p addr is one of the peer's candidates, signalled or learned from its checks
 *  (peer-reflexive, RFC 8445 §7.3.1.3): an address the peer's datagrams may come from. */
bool ice_agent_knows_remote(const ice_agent_t *agent, const zq_addr_t *addr);

/** Whether every local candidate was announced (ICE_EVENT_GATHERING_DONE was queued): an
 *  offer or answer written now can say a=end-of-candidates (RFC 8838 §8.2). */
bool ice_agent_gathering_done(const ice_agent_t *agent);

/** The candidate types of a path, as a log names it: @p local the type of our candidate whose
 *  base is @p local (host or relay: a server-reflexive candidate is paired by its base,
 *  RFC 8445 §6.1.2.4), @p remote the type of the peer's candidate at @p remote (host, srflx,
 *  prflx or relay). False if either is unknown. */
bool ice_agent_path_types(const ice_agent_t *agent, const zq_addr_t *local,
                          const zq_addr_t *remote, ice_cand_type_t *local_type,
                          ice_cand_type_t *remote_type);

/** What the checks covered, for saying why an agent failed: each mask holds bit
 *  (1u << ice_cand_type_t) for each type seen among the candidates on that side. */
typedef struct {
    uint8_t local_types;
    uint8_t remote_types;
    uint8_t pairs;        /**< candidate pairs formed */
    uint8_t pairs_valid;  /**< of them, those a check succeeded on (RFC 8445 §7.2.5.3.2) */
} ice_tried_t;

void ice_agent_tried(const ice_agent_t *agent, ice_tried_t *out);

ice_state_t ice_agent_state(const ice_agent_t *agent);
ice_role_t ice_agent_role(const ice_agent_t *agent);
const ice_stats_t *ice_agent_stats(const ice_agent_t *agent);
/** Events refused because the event queue was full (zq/queue.h): outputs not drained. */
uint32_t ice_agent_events_refused(const ice_agent_t *agent);
size_t ice_agent_local_candidate_count(const ice_agent_t *agent);
const ice_candidate_t *ice_agent_local_candidate(const ice_agent_t *agent, size_t index);

#endif /* ZQ_ICE_H */

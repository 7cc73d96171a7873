/**
 * @file cmd_stun.h
 * @brief `zq stun`: a STUN Binding client and a minimal STUN server (RFC 8489).
 *
 * The protocol halves are sans-IO objects like the rest of zq (handle_datagram, handle_timeout,
 * next_timeout, poll_transmit), so tests drive them with a manual clock; zq_cmd_stun() runs
 * them over sockets with the port's loop. Both speak plain STUN without credentials: the
 * client asks for its mapped address (server-reflexive, RFC 8445 §5.1.1.2), the server tells
 * each requester where its request came from.
 */
#ifndef ZQ_PORT_POSIX_CMD_STUN_H
#define ZQ_PORT_POSIX_CMD_STUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "port/posix/loop.h"
#include "stack/ice/stun.h"
#include "zq/addr.h"
#include "zq/config.h"
#include "zq/err.h"
#include "zq/rand.h"

/* ---- Client ------------------------------------------------------------------------------ */

/** Retransmission per RFC 8489 §6.2.1, plus an overall limit. */
typedef struct {
    uint32_t rto_ms;           /**< first retransmission timeout, doubled after each send: 500 */
    uint8_t max_sends;         /**< Rc, requests sent at most: 7 */
    uint8_t final_wait_factor; /**< Rm: after the last send, wait Rm * rto_ms: 16 */
    uint32_t timeout_ms;       /**< give up this long after the start whatever the schedule;
                                    0: the schedule alone decides (39.5 s with the defaults) */
} zq_stun_client_config_t;

void zq_stun_client_config_default(zq_stun_client_config_t *cfg);

typedef enum {
    ZQ_STUN_CLIENT_WAITING,        /**< request outstanding */
    ZQ_STUN_CLIENT_MAPPED,         /**< success: @c mapped is set */
    ZQ_STUN_CLIENT_TIMED_OUT,      /**< no response within the schedule or timeout_ms */
    ZQ_STUN_CLIENT_ERROR_RESPONSE, /**< the server answered with ERROR-CODE: @c error_code */
    ZQ_STUN_CLIENT_BAD_RESPONSE,   /**< a success response zq must not use: @c problem */
} zq_stun_client_state_t;

/** One Binding transaction. Caller-allocated; plain data (no pointers into itself). */
typedef struct {
    zq_stun_client_config_t cfg;
    zq_stun_client_state_t state;
    zq_addr_t local;              /**< where requests leave from */
    zq_addr_t server;             /**< where they go; responses from elsewhere are ignored */
    zq_addr_t mapped;             /**< MAPPED: XOR-MAPPED-ADDRESS (or MAPPED-ADDRESS) */
    bool mapped_is_xor;           /**< false if only an RFC 3489 MAPPED-ADDRESS came */
    uint64_t rtt_ms;              /**< MAPPED: from the last request sent to the response */
    uint16_t error_code;          /**< ERROR_RESPONSE: 300..699 */
    char error_reason[64];        /**< ERROR_RESPONSE: the reason phrase, cut to fit */
    const char *problem;          /**< BAD_RESPONSE: why, static text */
    uint8_t sends;                /**< requests sent so far */
    uint32_t rx_ignored;          /**< datagrams that were not our response */
    bool tx_pending;
    uint32_t rto;
    uint64_t started_at;
    uint64_t last_sent_at;
    uint64_t next_at;             /**< next retransmission, or the end of the last wait */
    uint64_t give_up_at;
    uint8_t tid[STUN_TID_LEN];
    uint8_t request[ZQ_STUN_MAX_MESSAGE];
    size_t request_len;
} zq_stun_client_t;

/**
 * Starts a transaction: builds a Binding request (random transaction id, SOFTWARE,
 * FINGERPRINT) and queues its first transmission. @p cfg and @p rand are used during the call
 * only. @return ZQ_OK, ZQ_ERR_CRYPTO (the random source failed), ZQ_ERR_INVALID_ARG.
 */
zq_err_t zq_stun_client_start(zq_stun_client_t *c, const zq_stun_client_config_t *cfg,
                              const zq_rand_t *rand, uint64_t now, const zq_addr_t *local,
                              const zq_addr_t *server);

/** Feeds a datagram received on @p local from @p remote; anything but our response is
 *  counted in rx_ignored. */
void zq_stun_client_handle_datagram(zq_stun_client_t *c, uint64_t now, const zq_addr_t *local,
                                    const zq_addr_t *remote, const uint8_t *data, size_t len);
void zq_stun_client_handle_timeout(zq_stun_client_t *c, uint64_t now);
/** ZQ_TIME_NEVER once the transaction is over. */
uint64_t zq_stun_client_next_timeout(const zq_stun_client_t *c);
/** Pops the request to (re)send; @p data points into @p c and stays valid until its next call. */
bool zq_stun_client_poll_transmit(zq_stun_client_t *c, zq_addr_t *local, zq_addr_t *remote,
                                  const uint8_t **data, size_t *len);

/* ---- Server ------------------------------------------------------------------------------ */

typedef struct {
    uint32_t answered;     /**< Binding success responses */
    uint32_t unknown_attr; /**< 420 answers (RFC 8489 §6.3.1.1) */
    uint32_t not_stun;     /**< dropped: not STUN at all (RFC 7983 first byte, cookie) */
    uint32_t malformed;    /**< dropped: broke RFC 8489's structure or its FINGERPRINT */
    uint32_t ignored;      /**< dropped: STUN, but not a Binding request */
    uint32_t unsent;       /**< answers dropped: queue full (not drained) or too big */
} zq_stun_server_stats_t;

typedef struct {
    zq_addr_t local;
    zq_addr_t remote;
    size_t len;
    uint8_t data[ZQ_STUN_MAX_MESSAGE];
} zq_stun_reply_t;

/** A stateless Binding server (no credentials, no timers). Caller-allocated; plain data. */
typedef struct {
    zq_stun_reply_t queue[ZQ_STUN_SERVER_QUEUE];
    uint8_t head;
    uint8_t count;
    zq_stun_server_stats_t stats;
} zq_stun_server_t;

void zq_stun_server_init(zq_stun_server_t *s);

/** Answers a valid Binding request that arrived on @p local from @p remote with a success
 *  response carrying XOR-MAPPED-ADDRESS = @p remote; counts and drops everything else. */
void zq_stun_server_handle_datagram(zq_stun_server_t *s, const zq_addr_t *local,
                                    const zq_addr_t *remote, const uint8_t *data, size_t len);

/** Pops one response; @p data points into @p s and stays valid until its next call. */
bool zq_stun_server_poll_transmit(zq_stun_server_t *s, zq_addr_t *local, zq_addr_t *remote,
                                  const uint8_t **data, size_t *len);

/* ---- Loop drivers ------------------------------------------------------------------------ */

/** A client driven by the loop: the driver stops @c loop once the transaction is over. */
typedef struct {
    zq_stun_client_t client; /**< started with zq_stun_client_start() before the loop runs */
    zq_loop_t *loop;         /**< borrowed */
} zq_stun_client_run_t;

/** Drives a zq_stun_client_run_t (the loop's obj). */
extern const zq_driver_t zq_stun_client_driver;

/** Drives a zq_stun_server_t (the loop's obj), e.g. a local STUN server inside an ICE test. */
extern const zq_driver_t zq_stun_server_driver;

/* ---- The subcommand ---------------------------------------------------------------------- */

/** `zq stun ...`: @p argv[0] is "stun". @return the process exit code (ZQ_CLI_EXIT_*). */
int zq_cmd_stun(int argc, char **argv);

/** Writes the subcommand's help text. */
void zq_cmd_stun_help(FILE *out);

#endif /* ZQ_PORT_POSIX_CMD_STUN_H */

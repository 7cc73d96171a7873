/**
 * @file brk_runner.h
 * @brief What every broker command of the zq program (pub, sub, put, work, req, rep, dlq)
 *        runs on: a node and its broker hosted on this machine (node_host.h over
 *        host/host.h: identity, UDP sockets, the signalling link that reconnects, the loop),
 *        the command's --verbose lines, and finishing once what was sent is acknowledged.
 *        A command only reacts to broker events.
 *
 * The runner owns the plumbing; the command gets each broker event (its strings borrowed
 * until the callback returns) and an idle call after every input, where it checks whatever it
 * waits for (peers ready, acks drained, a deadline) and calls the broker's API on r->brk.
 *
 * @code
 * static zq_brk_runner_t runner;              // large (node, broker, WebSocket): static
 * static const zq_brk_runner_callbacks_t cb = {.on_event = got, .on_idle = check};
 * int rc = zq_brk_runner_start(&runner, "sub", &net, &cb, &app);
 * if (rc >= 0) return rc;                    // usage error or unreachable server
 * brk_subscribe(&runner.brk, zq_brk_runner_now(&runner), "news.#");
 * return zq_brk_runner_run(&runner);         // until zq_brk_runner_finish() or Ctrl-C
 * @endcode
 */
#ifndef ZQ_PORT_POSIX_BRK_RUNNER_H
#define ZQ_PORT_POSIX_BRK_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "broker/brk.h"
#include "node/node.h"
#include "cli/cli.h"
#include "port/posix/loop.h"
#include "cli/node_host.h"
#include "port/zq_port.h"
#include "stack/dtls/dtls.h"

#define ZQ_BRK_DEFAULT_SIGNAL "ws://127.0.0.1:8080/ws"
#define ZQ_BRK_DEFAULT_ROOM "default-topic"

/** How long a finishing command waits for what it sent to be acknowledged (its last frames
 *  would die with the ABORT of a close) before it exits anyway. */
#define ZQ_BRK_FLUSH_MAX_MS 2000

typedef struct {
    const char *signal; /**< ws:// URL of `zq signal` */
    const char *room;   /**< the signalling room, also the data channels' label */
    bool verbose;       /**< progress on stderr (peers, reconnects) */
    const char *label;  /**< who those lines name ("device sensor-1"); NULL: the command */
    const char *identity_file; /**< the DTLS key and certificate (DER, key then certificate),
                                    made and written there if the file does not exist, so
                                    that a restart is the same peer to the others; NULL: a
                                    fresh identity each run */
    bool hold_qos1;     /**< the broker's hold_qos1 (broker/brk.h): `zq bridge` */
} zq_brk_net_options_t;

typedef struct zq_brk_runner zq_brk_runner_t;

typedef struct {
    /** Every broker event, in order. @p ev's strings live during the call. May be NULL. */
    void (*on_event)(void *ctx, zq_brk_runner_t *r, uint64_t now, const brk_event_t *ev);
    /** After every input, once its events were handled: check what the command waits for.
     *  May be NULL. */
    void (*on_idle)(void *ctx, zq_brk_runner_t *r, uint64_t now);
    /** The command's own next deadline (on_idle runs then), or ZQ_TIME_NEVER. May be NULL. */
    uint64_t (*next_timeout)(void *ctx);
    /** A command that ends by itself (pub, put, req, dlq): stopped by SIGINT/SIGTERM before
     *  zq_brk_runner_finish(), it exits 1. A server (sub, work, rep) exits 0 then. */
    bool one_shot;
} zq_brk_runner_callbacks_t;

/** Reads stdin line by line for a command whose MSG is "-". */
typedef struct {
    /** One line without its newline. ZQ_ERR_WOULD_BLOCK keeps it: it is offered again, and
     *  no more is read, after zq_brk_stdin_resume(). */
    zq_err_t (*on_line)(void *ctx, uint64_t now, const char *line, size_t len);
    void (*on_eof)(void *ctx, uint64_t now);
    char buf[ZQ_BRK_FRAME_MAX + 1];
    size_t len;         /* bytes in buf */
    bool watching;      /* stdin is one of the loop's fds */
    bool paused;        /* a line waits for room */
    bool skipping;      /* inside a line too long for buf: dropped to its end */
    bool eof;
    bool ended;         /* on_eof was called */
    uint32_t too_long;  /* lines dropped */
    void *ctx;
} zq_brk_stdin_t;

/** Caller-allocated (static: about 300 KiB with the defaults); one per process. */
struct zq_brk_runner {
    const char *cmd;                      /* "pub": for messages */
    zq_brk_net_options_t opt;
    zq_brk_runner_callbacks_t cb;
    void *ctx;
    zq_loop_t loop;
    zq_rand_t rand;
    dtls_identity_t identity;
    dtls_context_t dtls;
    node_t node;
    brk_t brk;
    zq_node_host_t nh;                    /* the host, its signalling link and UDP sockets */
    uint64_t ready_seen;                  /* bit per peer slot found ready (for --verbose) */
    uint64_t ready_zq;                    /* ... and found ready as a zq peer */
    bool finishing;                       /* zq_brk_runner_finish() was called */
    uint64_t finish_by;
    int exit_code;
    zq_brk_stdin_t in;
};

/**
 * Makes the identity, opens the UDP sockets, starts the node and broker and connects to
 * @p opt's signalling server. @p opt's strings and @p ctx are borrowed for the run.
 * @return -1 when running; else the exit status: 2 (bad URL or room), 1 (the server cannot be
 *         reached: "cannot reach URL: reason"; no UDP socket; no certificate).
 */
int zq_brk_runner_start(zq_brk_runner_t *r, const char *cmd, const zq_brk_net_options_t *opt,
                        const zq_brk_runner_callbacks_t *cb, void *ctx);

/** Runs until zq_brk_runner_finish() (and its flush) or SIGINT/SIGTERM; closes everything.
 *  @return the exit status. */
int zq_brk_runner_run(zq_brk_runner_t *r);

/** Ends the run with @p code once every peer acknowledged what was sent to it (acks due
 *  included), or after ZQ_BRK_FLUSH_MAX_MS. The first call decides the code. */
void zq_brk_runner_finish(zq_brk_runner_t *r, int code);

/** Prints "zq CMD: message" and finishes with 1. */
ZQ_CLI_PRINTF(2, 3) void zq_brk_runner_fail(zq_brk_runner_t *r, const char *fmt, ...);

uint64_t zq_brk_runner_now(zq_brk_runner_t *r);

/** Whether the peer in @p slot can be sent to now: its channel is open, it said hello (then
 *  its sub arrived too: it said what it wants) or is a plain ZeroQ peer. */
bool zq_brk_runner_peer_ready(const zq_brk_runner_t *r, uint8_t slot);
/** Ready peers; with @p zq_only, only those that said hello. */
unsigned zq_brk_runner_ready_peers(const zq_brk_runner_t *r, bool zq_only);
/** Whether every peer whose channel is open (at least one) is ready: the room has settled. */
bool zq_brk_runner_room_settled(const zq_brk_runner_t *r);

/**
 * @p text as one JSON value in @p out: itself if it is one (`{"a":1}`, `21.5`, `"x"`), else
 * as a JSON string; a trailing newline is dropped first.
 * @return its length; 0 if it does not fit @p cap.
 */
size_t zq_brk_json_value(const char *text, size_t len, char *out, size_t cap);

/** @p text (trailing newlines dropped) as a JSON string in @p out. @return its length; 0 if it
 *  does not fit @p cap. */
size_t zq_brk_json_string(const char *text, size_t len, char *out, size_t cap);

/** How a payload leaves a command: on stdout, or on an --exec command's stdin. The wire is
 *  JSON either way; this is only what a shell sees. */
typedef enum {
    ZQ_BRK_FORM_TEXT, /**< a JSON string as its text (escapes undone, UTF-8; a \\u0000 is a
                           NUL byte), any other value as its JSON text as received: the default,
                           so that `zq pub t hi` comes out as hi and `{"t":1}` as {"t":1} */
    ZQ_BRK_FORM_JSON, /**< every value as its JSON text as received (--json): the exact value,
                           "21.5" (a string) apart from 21.5 (a number) */
} zq_brk_form_t;

/**
 * @p v (one JSON value, as a broker event gives it) in @p form. @p out points into @p v, or
 * to a static buffer that the next call reuses.
 * @return ZQ_OK; ZQ_ERR_TOO_LONG (a string longer than any frame carries: never truncated);
 *         ZQ_ERR_MALFORMED (a string that is not valid JSON). On error @p out is empty.
 */
zq_err_t zq_brk_payload_text(brk_str_t v, zq_brk_form_t form, brk_str_t *out);

/**
 * Writes @p head (none if empty), a space, @p v in @p form and a newline to @p out, and
 * flushes it. Writes nothing when @p v cannot be given in @p form.
 * @return ZQ_OK, zq_brk_payload_text()'s error, or ZQ_ERR_IO (@p out failed).
 */
zq_err_t zq_brk_print_payload(FILE *out, brk_str_t head, brk_str_t v, zq_brk_form_t form);

/** Starts reading stdin into @p r->in's callbacks. @return ZQ_OK or the loop's error. */
zq_err_t zq_brk_stdin_start(zq_brk_runner_t *r,
                            zq_err_t (*on_line)(void *ctx, uint64_t now, const char *line,
                                                size_t len),
                            void (*on_eof)(void *ctx, uint64_t now), void *ctx);
/** Offers the kept line again and goes on reading (after BRK_EVENT_WRITABLE). */
void zq_brk_stdin_resume(zq_brk_runner_t *r, uint64_t now);

#endif /* ZQ_PORT_POSIX_BRK_RUNNER_H */

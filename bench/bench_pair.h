/* Two zq nodes in one process, as two devices would run them, for bench_broker and bench_open:
 * each has its own UDP socket on 127.0.0.1 (real sockets, real DTLS, SCTP and data channel,
 * the real clock), both driven by the POSIX port's poll() loop (port/posix/loop.h) as two
 * drivers. Signalling goes through an in-process sig_router_t (the logic of `zq signal`), each
 * frame handed over as text as a WebSocket would carry it; no TCP.
 *
 * Member 0 joins the room first, so it hears member 1's peer_joined and dials (offers, full
 * ICE); member 1 answers (full ICE, the DTLS client), as between two `zq` programs. Each member optionally has
 * a broker; the application of each member is a small table of callbacks (bench_app_t) the
 * driver calls after every input, as `zq echo` calls echo_pump(). */
#ifndef ZQ_BENCH_PAIR_H
#define ZQ_BENCH_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broker/brk.h"
#include "node/node.h"
#include "port/posix/loop.h"
#include "signal/router.h"
#include "stack/dtls/dtls.h"

#define BENCH_ROOM "bench"
#define BENCH_INBOX 16

typedef struct bench_member bench_member_t;

/* What a member's application does; every member may be NULL. Called from the member's
 * after_io (after every input of the loop), in this order. */
typedef struct {
    void (*on_node_event)(bench_member_t *m, uint64_t now, const node_event_t *ev);
    void (*on_brk_event)(bench_member_t *m, uint64_t now, const brk_event_t *ev);
    /* A data channel message (or piece) of a member without a broker. */
    void (*on_message)(bench_member_t *m, uint64_t now, const node_message_t *msg);
    /* Sends what the application has to send (publish, enqueue, request...). */
    void (*pump)(bench_member_t *m, uint64_t now);
} bench_app_t;

typedef struct {
    char text[ZQ_SIG_FRAME_MAX];
    size_t len;
} bench_frame_t;

struct bench_member {
    unsigned index;
    dtls_identity_t identity; /* made once per process: a device keeps its certificate */
    dtls_context_t dtls;
    zq_socket_t sock;
    zq_addr_t addr;
    node_t node;
    bool has_broker;
    brk_t broker;
    unsigned client;          /* its router slot */
    bench_frame_t inbox[BENCH_INBOX]; /* signalling frames the router sent it */
    size_t inbox_count;
    int slot;                 /* node peer slot of the other member, -1 before it connects */
    uint64_t offer_ns;        /* bench clock when its node wrote an offer (dialer) */
    uint64_t connected_ns;    /* ... when its node said PEER_CONNECTED */
    uint32_t elapsed_ms;      /* PEER_CONNECTED's own count (offer sent or received -> open) */
    unsigned long tx_datagrams; /* sent by its node since bench_pair_open() */
    unsigned long tx_bytes;
    const bench_app_t *app;
    void *ctx;                /* the application's */
};

typedef struct {
    bench_member_t m[2];
    sig_router_t router;
    zq_loop_t loop;
    zq_rand_t rand;
    bool (*done)(void); /* checked after every member's after_io; stops the loop */
    unsigned long inbox_overflow;
} bench_pair_t;

extern bench_pair_t bench_pair;

/* Monotonic time in ns (CLOCK_MONOTONIC): finer than the loop's ms. */
uint64_t bench_now_ns(void);

/* Once per process: the port, the DTLS arena, both members' identities. */
bool bench_pair_setup(void);

/* Fresh sockets, nodes (and brokers), router; both members join; returns once both data
 * channels are open (and, with brokers, both hellos arrived), false after @p cap_ms. */
bool bench_pair_open(bool brokers, uint64_t cap_ms);

/* Runs the loop until @p done() (may be NULL) holds or @p cap_ms pass; @return done's
 * verdict. */
bool bench_pair_run(bool (*done)(void), uint64_t cap_ms);

/* Closes both nodes and sockets; the DTLS sessions go back to the arena. */
void bench_pair_close(void);

/* The loop's clock (ms), for the broker and node calls an application makes. */
uint64_t bench_pair_now(void);

/* Bytes the DTLS arena holds (0 when mbedTLS keeps no statistics). */
size_t bench_arena_in_use(void);

#endif

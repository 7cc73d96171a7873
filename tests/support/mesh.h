/* A room of zq nodes in one process: signalling through a real sig_router_t (frames as the
 * WebSocket would carry them), datagrams through simnet (loss, delay, reordering), a manual
 * clock. Each member has its own certificate (its identity), and either a broker (every
 * broker event is logged, strings copied) or none: then the test speaks raw frames on its
 * channels, as a plain ZeroQ peer would. */
#ifndef ZQ_TEST_MESH_H
#define ZQ_TEST_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broker/brk.h"
#include "node/node.h"
#include "signal/router.h"
#include "simnet.h"

#define MESH_MAX_MEMBERS 6
#define MESH_INBOX 64
#define MESH_LOG 4096
#define MESH_TEXT 512

/* One broker event, with its strings copied (cut at MESH_TEXT bytes). */
typedef struct {
    brk_event_type_t type;
    uint8_t peer;
    char topic[MESH_TEXT];
    char payload[MESH_TEXT];
    char id[64];
    uint64_t seq;
    uint64_t lost_from, lost_to;
    uint32_t attempt, count, handle;
    bool ok, last_value, zq;
    uint64_t at;
} mesh_event_t;

/* A raw text frame a broker-less member received. */
typedef struct {
    uint8_t peer;
    char text[MESH_TEXT];
} mesh_raw_t;

typedef struct {
    char frame[ZQ_SIG_FRAME_MAX];
    size_t len;
} mesh_frame_t;

typedef struct {
    bool used;
    bool online;             /* connected to the signalling router */
    bool crashed;            /* gone without a word: nothing in or out */
    unsigned client;
    zq_addr_t addr;
    dtls_identity_t identity;
    dtls_context_t ctx;
    node_t node;
    bool has_broker;
    brk_t broker;
    mesh_frame_t inbox[MESH_INBOX];
    size_t inbox_count;
    mesh_event_t log[MESH_LOG];
    size_t n_log;
    mesh_raw_t raw[MESH_LOG];
    size_t n_raw;
    /* Optional: called for each broker event as it is logged (e.g. to ack a job at once). */
    void (*on_event)(unsigned member, const brk_event_t *ev);
} mesh_member_t;

typedef struct {
    mesh_member_t members[MESH_MAX_MEMBERS];
    unsigned n;
    sig_router_t router;
    simnet_t net;
    uint64_t now;
    zq_rand_t rand;
    unsigned long inbox_overflow;
} mesh_t;

extern mesh_t mesh;

/** Empties the mesh (and frees what the previous one held); @p impair for the datagrams. */
void mesh_reset(uint64_t seed, simnet_impairment_t impair);

/** A member joining @p room, with a broker (@p cfg may be NULL for the defaults) or without.
 *  @return its index. Its identity is new unless @p same_identity_as is a member index. */
unsigned mesh_add(const char *room, bool broker, const brk_config_t *cfg, int same_identity_as);

/** Signalling connection down (the room hears peer_left) / up again (a new id, a new join). */
void mesh_offline(unsigned i);
void mesh_online(unsigned i);
/** The member's node closes every peer connection (ABORTs go out), as a process exiting. */
void mesh_close_peers(unsigned i);
/** The member is gone at once: no ABORT, no more datagrams to or from it (a crash). */
void mesh_crash(unsigned i);

/** Runs until @p done (may be NULL) or the clock reaches @p until. @return done's verdict. */
bool mesh_run(uint64_t until, bool (*done)(void));
bool mesh_run_for(uint64_t ms);

/** The node peer slot of member @p i that talks to member @p j, or -1. */
int mesh_slot(unsigned i, unsigned j);
/** Whether members @p i and @p j have an open channel (and, with brokers, said hello). */
bool mesh_connected(unsigned i, unsigned j);
/** Whether every pair of members in @p count first members is connected. */
bool mesh_all_connected(unsigned count);

/** Sends raw text on member @p i's channel to member @p j (a ZeroQ peer's frame). */
void mesh_send_raw(unsigned i, unsigned j, const char *text);

/** Counts logged events of @p type at member @p i (topic NULL: any). */
size_t mesh_count(unsigned i, brk_event_type_t type, const char *topic);

#endif

/* Drives ICE agents over a simulated network with a manual clock, for in-process tests. */
#ifndef ZQ_ICE_HARNESS_H
#define ZQ_ICE_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "simnet.h"
#include "stack/ice/ice.h"
#include "test_rand.h"

#define HARNESS_MAX_ENDPOINTS 4

typedef struct {
    ice_agent_t agent;
    test_rand_t rand;
    zq_addr_t host;
    bool mute;                 /* drop everything this endpoint sends (a dead peer) */
    bool deaf;                 /* drop everything sent to it */
    bool is_stun_server;       /* answers Binding requests like a STUN server, no agent */
    zq_addr_t reflexive;       /* what the STUN server reports as the mapped address */
    /* what came out of the agent */
    ice_candidate_t local_cands[ZQ_ICE_MAX_LOCAL_CANDIDATES];
    int n_local_cands;
    bool gathering_done;
    int selected_events;
    zq_addr_t sel_local;
    zq_addr_t sel_remote;
    uint64_t selected_at;
    bool failed;
    bool disconnected;
    uint64_t ended_at;
    int role_changes;
} harness_endpoint_t;

typedef struct {
    simnet_t net;
    uint64_t now;
    harness_endpoint_t ep[HARNESS_MAX_ENDPOINTS];
    int n;
} harness_t;

void harness_init(harness_t *h, uint64_t seed, simnet_impairment_t impair);

/** Adds an ICE endpoint bound to @p host; returns its index. */
int harness_add_agent(harness_t *h, const ice_config_t *cfg, zq_addr_t host, uint64_t seed);

/** Adds a STUN server at @p addr that reports @p reflexive as every client's address. */
int harness_add_stun_server(harness_t *h, zq_addr_t addr, zq_addr_t reflexive);

/** Signalling: tells @p to the credentials and (if @p with_candidates) candidates of @p from. */
void harness_signal(harness_t *h, int from, int to, bool with_candidates);

/** Starts the agent of endpoint @p i. */
void harness_start(harness_t *h, int i);

/** Runs until @p done returns true or the clock passes @p until; returns done's last value. */
bool harness_run(harness_t *h, uint64_t until, bool (*done)(harness_t *h));

/** True when every agent endpoint has a selected pair. */
bool harness_all_selected(harness_t *h);

#endif

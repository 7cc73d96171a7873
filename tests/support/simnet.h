/* A simulated datagram network for in-process tests: loss, duplication, delay and reordering
 * (random extra delay), all drawn from a seeded generator so a failing run can be replayed. */
#ifndef ZQ_SIMNET_H
#define ZQ_SIMNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "test_rand.h"
#include "zq/addr.h"
#include "zq/config.h"

#define SIMNET_MAX_IN_FLIGHT 512

typedef struct {
    zq_addr_t from;
    zq_addr_t to;
    uint64_t deliver_at;
    uint64_t order; /* ties broken by send order */
    size_t len;
    uint8_t data[ZQ_UDP_MAX_DATAGRAM];
} simnet_packet_t;

typedef struct {
    unsigned loss_percent;      /* each datagram is lost with this probability */
    unsigned duplicate_percent; /* each surviving datagram is sent twice with this probability */
    unsigned delay_ms;          /* fixed one-way delay */
    unsigned jitter_ms;         /* extra delay drawn uniformly in [0, jitter]: reorders */
} simnet_impairment_t;

typedef struct {
    simnet_impairment_t impair;
    test_rand_t rand;
    simnet_packet_t packets[SIMNET_MAX_IN_FLIGHT];
    size_t count;
    uint64_t next_order;
    /* counters */
    unsigned long sent, lost, duplicated, delivered, overflowed;
} simnet_t;

void simnet_init(simnet_t *net, uint64_t seed, simnet_impairment_t impair);

/** Hands a datagram to the network at time @p now. */
void simnet_send(simnet_t *net, uint64_t now, const zq_addr_t *from, const zq_addr_t *to,
                 const uint8_t *data, size_t len);

/** Earliest delivery time of anything in flight, or UINT64_MAX. */
uint64_t simnet_next_delivery(const simnet_t *net);

/** Pops the earliest datagram due at or before @p now into @p out; false if none. */
bool simnet_receive(simnet_t *net, uint64_t now, simnet_packet_t *out);

#endif

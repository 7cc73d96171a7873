/* Capacities for the broker's mesh tests (tests/sim/test_brk_sim.c): rooms of up to six
 * nodes, so one producer reaches five consumers. The library's own defaults (4 peers a node,
 * the embedded budget) stay as they are for everything else. */
#ifndef ZQ_TEST_MESH_CONFIG_H
#define ZQ_TEST_MESH_CONFIG_H

#define ZQ_NODE_MAX_PEERS 6

#endif

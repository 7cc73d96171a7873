/**
 * @file zq_minimal_config.h
 * @brief The minimal profile: a broker with pub/sub and the app's "status" service, every
 *        other feature switch of include/zq/config.h off.
 *
 * `cmake -DZQ_PROFILE=minimal` builds the whole tree with it (each translation unit includes
 * it first, so it also applies to builds with a ZQ_CONFIG_FILE of their own, such as the
 * tests' mesh core and the footprint images); CI builds and tests that profile beside the
 * full one (.ci/run), and scripts/footprint prices it.
 *
 * Kept:  pub/sub (always built) and ZQ_BRK_REQUEST_SERVER, because app/ answers "status"
 *        through brk_serve(); a full ICE agent (ZQ_ICE_FULL), because a zq device's peers are
 *        other zq nodes as well as browsers, and two ICE-lite agents cannot connect
 *        (stack/ice/ice.h): a device that only ever meets browsers adds ZQ_ICE_FULL 0.
 */
#ifndef ZQ_MINIMAL_CONFIG_H
#define ZQ_MINIMAL_CONFIG_H

#define ZQ_BRK_WORK_QUEUES 0
#define ZQ_BRK_REQUEST_CLIENT 0
#define ZQ_BRK_REQUEST_SERVER 1
#define ZQ_BRK_ZEROQ_COMPAT 0
#define ZQ_BRK_CHUNKING 0
#define ZQ_ICE_FULL 1

#endif /* ZQ_MINIMAL_CONFIG_H */

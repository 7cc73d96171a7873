/**
 * @file zq_bridge_config.h
 * @brief The capacities `zq bridge` (the zq-bridge program, cli/CMakeLists.txt) is built with:
 *        one node that holds a whole room of devices and pages, and carries their topics to
 *        and from an MQTT broker. Every other program keeps include/zq/config.h's defaults
 *        (4 peers), which the tests count on.
 *
 * What it costs, static, on x86-64: 64 node_peer_t (45 KiB each: 2.9 MiB), 64 brk_peer_t
 * (10.5 KiB each: 672 KiB) and the DTLS arena (cli/node_host.h: 64 x 33.6 KiB, 2.1 MiB); a
 * peer's pages are touched only once it is used. Plain #defines where config.h has no
 * default of its own to agree with.
 */
#ifndef ZQ_BRIDGE_CONFIG_H
#define ZQ_BRIDGE_CONFIG_H

/* ---- Node: a room's devices and pages at once --------------------------------------------- */
#define ZQ_NODE_MAX_PEERS 64
#define ZQ_NODE_WAITLIST 16

/* ---- Broker ------------------------------------------------------------------------------- */
/* QoS 1 from MQTT to the room: every device that subscribed acks each message (the ring's
 * receiver mask is 32 bits). */
#define ZQ_BRK_MAX_RECEIVERS 32
/* Resume points, one per publisher: every device of the room, across a bridge restart. */
#define ZQ_BRK_MAX_PUBLISHERS 64
/* What MQTT has not acked yet is held (brk.h, hold_qos1): as many as MQTT keeps in flight. */
#define ZQ_BRK_HELD_MESSAGES 32
/* Retained messages from MQTT become the bridge's last values: room for a topic per device. */
#define ZQ_BRK_LVC_TOPICS 64
#define ZQ_BRK_LVC_BYTES (64 * 1024)
#define ZQ_BRK_RING_BYTES (128 * 1024)

/* ---- MQTT ----------------------------------------------------------------------------------- */
#define ZQ_MQTT_INFLIGHT_MAX 32
/* MQTT to the room: the bridge grants half of it (cli/cmd_bridge.c, lenient_receive_maximum). */
#define ZQ_MQTT_RX_INFLIGHT_MAX 32
#define ZQ_MQTT_INFLIGHT_BYTES (32 * 1024 + 2 * 16384)

/* ---- The POSIX loop: signalling, MQTT, TURN over TCP, stdin -------------------------------- */
#define ZQ_LOOP_MAX_FDS 8

#endif /* ZQ_BRIDGE_CONFIG_H */

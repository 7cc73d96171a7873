/**
 * @file device_config.h
 * @brief Embedded-sized capacities for a zq device (4 peers), the configuration the footprint
 *        images are built with (scripts/footprint) and a starting point for a real device:
 *        `-DZQ_CONFIG_FILE="path/to/device_config.h"` (include/zq/config.h).
 *
 * The goals it is sized for (docs/footprint.md): static RAM per peer connection, zq state and
 * SCTP windows, under 16 KiB; a 4-peer device under 160 KiB of RAM with mbedTLS's arena.
 * Every value is a plain #define (no #ifndef): a header that applied its own default first
 * then fails the build with "redefined" instead of silently disagreeing on a struct's size.
 * ZQ_NODE_MAX_PEERS can be set from the command line (the per-peer measurement does).
 */
#ifndef ZQ_DEVICE_CONFIG_H
#define ZQ_DEVICE_CONFIG_H

/* ---- Node: 4 peers on one interface (Wi-Fi station) --------------------------------------- */
#ifndef ZQ_NODE_MAX_PEERS
#define ZQ_NODE_MAX_PEERS 4
#endif
#define ZQ_NODE_MAX_HOSTS 1

/* ---- Peer connection: SCTP windows ------------------------------------------------------- */
/* 2 KiB each way, what the 16 KiB-per-peer goal leaves today (docs/footprint.md): a sensor's
 * frames are 100-300 bytes, and a 2 KiB receive window still carries ~2 KiB per round trip
 * (hundreds of KB/s on a LAN). Larger messages arrive in pieces (stack/sctp/sctp.h). */
#define ZQ_PEER_SEND_BUFFER 2048
#define ZQ_PEER_RECV_BUFFER 2048

/* ---- ICE: one host candidate, a few remote ones (a browser on the LAN offers 1-4) -------- */
#define ZQ_ICE_MAX_LOCAL_CANDIDATES 2
#define ZQ_ICE_MAX_REMOTE_CANDIDATES 4
#define ZQ_ICE_MAX_PAIRS 8
#define ZQ_ICE_MAX_TRANSACTIONS 4
#define ZQ_ICE_TX_QUEUE 2
#define ZQ_ICE_EVENT_QUEUE 4
#define ZQ_SDP_MAX_CANDIDATES 4

/* ---- SCTP and data channels: one channel per peer (the room's contract) ------------------ */
#define ZQ_SCTP_MAX_STREAMS 16          /* the minimum zq/config.h accepts */
#define ZQ_SCTP_TRACKER_TSNS 256        /* a 2 KiB window holds far fewer chunks than this */
#define ZQ_SCTP_READ_QUEUE 16
#define ZQ_SCTP_EVENT_QUEUE 20
#define ZQ_SCTP_MAX_UNRECOGNIZED 16
#define ZQ_SCTP_MAX_PENDING_RESETS 4
#define ZQ_DC_MAX_CHANNELS 2
/* Two events per channel between drains (datachannel.c) and 2 spare, not zq's 4; the peer's
 * queue (ZQ_PEER_EVENT_QUEUE, 6-byte slots) follows it. */
#define ZQ_DC_EVENT_QUEUE (2 * ZQ_DC_MAX_CHANNELS + 2)
#define ZQ_DC_LABEL_MAX 32
#define ZQ_DC_PROTOCOL_MAX 16

/* ---- Broker: small rings and stores ------------------------------------------------------ */
#define ZQ_BRK_FRAME_MAX 1024           /* <= ZQ_PEER_SEND_BUFFER / 2 (zq/config.h); the minimum */
#define ZQ_BRK_NAME_MAX 64
#define ZQ_BRK_MAX_SUBS 4
#define ZQ_BRK_PEER_SUBS 4
#define ZQ_BRK_RING_BYTES 2048         /* the minimum: QoS 1 replay of a few recent messages */
#define ZQ_BRK_MAX_RECEIVERS 4
#define ZQ_BRK_MAX_PUBLISHERS 4
#define ZQ_BRK_LVC_TOPICS 2
#define ZQ_BRK_LVC_BYTES 512
#define ZQ_BRK_MAX_QUEUES 2
#define ZQ_BRK_MAX_SERVICES 2
#define ZQ_BRK_MAX_JOBS 4
#define ZQ_BRK_JOB_BYTES 1024
#define ZQ_BRK_MAX_HELD 2
#define ZQ_BRK_ZEROQ_KEEP_BYTES 1024    /* 512 per held job, the defaults' share (8, 4 KiB) */
#define ZQ_BRK_MAX_REQUESTS 2
#define ZQ_BRK_REQUEST_BYTES 1024
#define ZQ_BRK_DEDUP_WINDOW 32

/* ---- Signalling: the WebSocket to the server ---------------------------------------------- */
#define ZQ_WS_MAX_MESSAGE 4096          /* a browser's offer or answer, JSON-escaped */
#define ZQ_SIG_SDP_MAX 4096             /* no longer SDP can arrive in a 4 KiB message */
#define ZQ_WS_TX_BUFFER (4096 + 14)     /* our offers (PEER_SDP_MAX 2048) as JSON */
#define ZQ_HTTP_MAX_REQUEST 1024        /* the server's 101 answer (on the stack at open) */

/* ---- Flash: smaller tables for slower checksums ----------------------------------------- */
#define ZQ_SCTP_CRC32C_SLICE8 0         /* SCTP's CRC32c a byte at a time: 1 KiB table, not 8 */
#define ZQ_CRC32_BYTE_TABLE 0           /* STUN's CRC-32 a nibble at a time: 64 bytes, not 1 KiB */

#define ZQ_LOG_LEVEL 0

/* ---- TURN over TCP and TLS: off, the device ports do not carry the stream yet ------------ */
/* #ifndef, so scripts/footprint can measure its price with it on (tools/footprint). */
#ifndef ZQ_NODE_TURN_STREAM
#define ZQ_NODE_TURN_STREAM 0
#endif

#endif /* ZQ_DEVICE_CONFIG_H */

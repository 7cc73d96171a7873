/**
 * @file echo.h
 * @brief The echo service over a node: every message a peer sends comes back to it on the same
 *        channel, text as text and binary as binary; optionally, numbered probes measure round
 *        trips. Sans-IO, no allocation: what `zq echo` runs, and a device can run as is.
 *
 * Messages of any size up to the peer's max-message-size are echoed piece by piece as they
 * arrive (node_send_part()), so a 256 KiB message passes through a 16 KiB send buffer. A peer
 * whose channel has no room yet is simply not read until it has: its window closes and it
 * slows down (SCTP flow control), nothing is dropped.
 *
 * The text message `zq-echo close` is not echoed: it makes the echo close that peer's channel
 * (a peer can watch a channel end from the device's side, e.g. RTCDataChannel.onclose).
 *
 * Probes: with @c probes > 0, each newly connected peer gets `zq-probe <our id> <n>` text
 * messages, one at a time, the next when the previous one comes back. Probes that come back
 * are counted, not echoed; someone else's probes are echoed like any message. So two echo
 * nodes can probe each other.
 *
 * @code
 * echo_init(&echo, &node, 100);
 * // after every input to the node:
 * while (node_poll_event(&node, &ev)) { log(ev); echo_handle_event(&echo, now, &ev); }
 * echo_pump(&echo, now);
 * while (echo_poll_report(&echo, &report)) print(report);
 * @endcode
 */
#ifndef ZQ_ECHO_H
#define ZQ_ECHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "node/node.h"
#include "zq/config.h"

#define ECHO_PROBE_PREFIX "zq-probe "
#define ECHO_CLOSE_COMMAND "zq-echo close"
/** Longest probe text: prefix, our id, a number, NUL. */
#define ECHO_PROBE_MAX (sizeof ECHO_PROBE_PREFIX + ZQ_SIG_ID_MAX + 12)

/** A message (or the rest of one) on its way back to its peer. */
typedef struct {
    bool held;        /* a piece waits for room */
    bool first;       /* it starts a message */
    bool last;        /* it ends it */
    bool binary;
    bool in_message;  /* parts of a message went out, its end has not */
    bool discarding;  /* the rest of this message is dropped (the peer refused it) */
    size_t len;
    size_t done;      /* bytes of it sent */
    uint8_t data[ZQ_ECHO_PIECE_MAX];
} echo_relay_t;

typedef struct {
    bool active;      /* probing this peer */
    uint32_t sent;    /* probes sent */
    uint32_t back;    /* probes that came back */
    uint64_t sent_at;
    uint64_t rtt_min, rtt_max, rtt_sum;
} echo_probe_t;

typedef struct {
    uint64_t messages;     /**< echoed whole */
    uint64_t bytes;        /**< echoed */
    uint64_t dropped;      /**< messages the peer refused (over its max-message-size) */
    uint64_t oversize;     /**< pieces larger than ZQ_ECHO_PIECE_MAX: dropped */
    uint64_t closes;       /**< channels closed on request */
} echo_stats_t;

/** Probes of one peer are done (or that peer is gone before they were). */
typedef struct {
    uint8_t peer;
    uint32_t sent, back;
    uint64_t rtt_min, rtt_avg, rtt_max; /**< ms */
} echo_report_t;

typedef struct {
    node_t *node;          /* borrowed */
    uint32_t probes;       /* per peer, 0: none */
    echo_relay_t relay[ZQ_NODE_MAX_PEERS];
    echo_probe_t probe[ZQ_NODE_MAX_PEERS];
    echo_report_t reports[ZQ_NODE_MAX_PEERS];
    uint8_t n_reports;
    echo_stats_t stats;
} echo_t;

void echo_init(echo_t *e, node_t *node, uint32_t probes);

/** A node event: a peer connected (probes start) or is gone (its relay and probes end). */
void echo_handle_event(echo_t *e, uint64_t now, const node_event_t *ev);

/** Reads and echoes what there is room for, and sends due probes. Call after every input to
 *  the node, after its events. */
void echo_pump(echo_t *e, uint64_t now);

/** A finished round of probes. */
bool echo_poll_report(echo_t *e, echo_report_t *r);

#endif /* ZQ_ECHO_H */

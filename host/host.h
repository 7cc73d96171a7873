/**
 * @file host.h
 * @brief What every device and program runs around a node, with no I/O: the node (and the
 *        broker on it, if any), the link to the signalling server with its reconnect backoff,
 *        and the rule of docs/design.md: after every input, drain every output before the
 *        next input. A port only adds a clock, a random source, sockets and a loop.
 *
 * The host takes `now`, datagrams and signalling frames, and gives datagrams, signalling
 * frames, events (through callbacks) and the next deadline. Each input settles before it
 * returns: node events go to the application and into the broker, broker events to the
 * application, the application's on_read and on_idle run, and round again until no new event
 * is left. What the settled state has to send is then polled by the port.
 *
 * The signalling connection is the port's (a WebSocket over TCP); the host says when a try is
 * due (zq_host_signal_due) and is told how it went (zq_host_signal_opened, _down).
 *
 * @code
 * static node_t node;                          // large: static
 * static brk_t brk;
 * static zq_host_t host;
 * node_init(&node, &ncfg); brk_init(&brk, &node, &bcfg);
 * zq_host_config_t hcfg;
 * zq_host_config_default(&hcfg);
 * hcfg.rand = rand;
 * zq_host_init(&host, &node, &brk, &hcfg, &callbacks, &app);
 * for (;;) {                                   // the port's loop
 *     wait for a socket or zq_host_next_timeout(&host);
 *     zq_host_handle_datagram(&host, now, &local, &remote, data, len);  // or _signal, _timeout
 *     if (zq_host_signal_due(&host, now)) connect, then _signal_opened or _signal_down;
 *     while (zq_host_poll_transmit(&host, now, &tx)) udp_send(tx);
 *     while (zq_host_poll_signal(&host, now, &frame, &len) && ws_send(frame, len) != BLOCKED)
 *         zq_host_signal_sent(&host);
 * }
 * @endcode
 */
#ifndef ZQ_HOST_HOST_H
#define ZQ_HOST_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broker/brk.h"
#include "host/backoff.h"
#include "node/node.h"
#include "zq/rand.h"

/** The application's side. Every member may be NULL; @p ctx is zq_host_init()'s. Events'
 *  strings are borrowed for the call. */
typedef struct {
    /** Every node event, in order, before the broker (if any) takes it. */
    void (*on_node_event)(void *ctx, uint64_t now, const node_event_t *ev);
    /** Every broker event, in order (a host with a broker). */
    void (*on_event)(void *ctx, uint64_t now, const brk_event_t *ev);
    /** In every round of the drain, after the events: read the node's messages (a host with no
     *  broker). Reading can open a channel and so make events: the host rounds again. */
    void (*on_read)(void *ctx, uint64_t now);
    /** Once per input, after its drain: check what the application waits for. What its calls
     *  make is drained too. */
    void (*on_idle)(void *ctx, uint64_t now);
    /** The application's own next deadline (an input then: on_idle runs), or ZQ_TIME_NEVER. */
    uint64_t (*next_timeout)(void *ctx);
} zq_host_callbacks_t;

typedef struct {
    zq_rand_t rand;              /**< the backoff's jitter; borrowed */
    uint32_t reconnect_first_ms; /**< the first wait's step: 1000 (ZeroQ's) */
    uint32_t reconnect_max_ms;   /**< no step longer: 30000 (ZeroQ's) */
} zq_host_config_t;

/** ZeroQ's schedule; @c rand is left for the caller to set. */
void zq_host_config_default(zq_host_config_t *cfg);

/** Caller-allocated (about 9 KiB: a signalling frame); the node and broker are the caller's. */
typedef struct {
    node_t *node;                 /* borrowed */
    brk_t *brk;                   /* borrowed; NULL: the application reads the node itself */
    zq_host_callbacks_t cb;
    void *ctx;
    zq_rand_t rand;
    zq_backoff_t backoff;
    bool signal_up;
    uint64_t reconnect_at;        /* while down: the next try, or ZQ_TIME_NEVER before any */
    char frame[ZQ_SIG_FRAME_MAX]; /* polled, not yet taken by the connection */
    size_t frame_len;
} zq_host_t;

/** Hosts @p node (initialised) and @p brk (initialised on @p node, or NULL). @p cb is
 *  copied; @p node, @p brk and @p ctx are borrowed. Signalling is down, no try due: the port
 *  makes the first one when it starts (a program may rather fail than wait). */
void zq_host_init(zq_host_t *h, node_t *node, brk_t *brk, const zq_host_config_t *cfg,
                  const zq_host_callbacks_t *cb, void *ctx);

/* ---- Inputs: each settles before it returns ---------------------------------------------- */

/** A datagram that arrived on the socket bound to @p local. */
void zq_host_handle_datagram(zq_host_t *h, uint64_t now, const zq_addr_t *local,
                             const zq_addr_t *remote, const uint8_t *data, size_t len);
/** zq_host_next_timeout() came: the node's, the broker's and the application's timers. */
void zq_host_handle_timeout(zq_host_t *h, uint64_t now);
/** A text frame from the signalling server. */
void zq_host_handle_signal(zq_host_t *h, uint64_t now, const char *text, size_t len);
/** The application called the node or broker outside a callback (a line on stdin): settle. */
void zq_host_settle(zq_host_t *h, uint64_t now);

/* ---- Outputs ------------------------------------------------------------------------------ */

/** The next datagram to send (peer_transmit_t: lives until the next call). */
bool zq_host_poll_transmit(zq_host_t *h, uint64_t now, peer_transmit_t *tx);
/** The next frame for the signalling server, while it is up: the same frame until
 *  zq_host_signal_sent() (a connection that cannot take it yet is offered it again). */
bool zq_host_poll_signal(zq_host_t *h, uint64_t now, const char **frame, size_t *len);
/** The polled frame was sent (or refused for good): the next poll gives the next one. */
void zq_host_signal_sent(zq_host_t *h);
/** The earliest deadline: the node's, the broker's, the application's, a reconnect's. */
uint64_t zq_host_next_timeout(const zq_host_t *h);

/* ---- The signalling connection ------------------------------------------------------------ */

/** Whether a try to connect is due: the port tries, then says how it went. */
bool zq_host_signal_due(const zq_host_t *h, uint64_t now);
/** The connection opened: the node joins its room, the backoff starts over. */
void zq_host_signal_opened(zq_host_t *h, uint64_t now);
/** The connection ended, or a try failed: the next try is due after the returned wait (ms).
 *  A frame polled and not sent is dropped: the node joins afresh on the next connection. */
uint32_t zq_host_signal_down(zq_host_t *h, uint64_t now);
/** The machine's addresses changed (a DHCP renewal, another network): the node drops what it
 *  made from the old ones (node_set_hosts) and a new signalling connection is due at once,
 *  so the room sees this node leave and come back with its new candidates. The port closes
 *  the old connection (its socket is bound to an address that is gone) and its UDP sockets,
 *  and opens the new ones. */
void zq_host_hosts_changed(zq_host_t *h, uint64_t now, const zq_addr_t *hosts, uint8_t n_hosts);

/* ---- TURN over TCP: the port's stream to the node's TURN server (node.h) ----------------
 * The port connects while a target is named, closes when none is, and moves bytes both ways:
 *     if (!open && zq_host_relay_stream_target(&host, &server)) connect, then _opened or _closed;
 *     if (open && !zq_host_relay_stream_target(&host, &server)) close;
 *     bytes read: zq_host_handle_relay_stream(); EOF or an error: _closed;
 *     while (zq_host_poll_relay_stream(&host, &data, &len))
 *         zq_host_relay_stream_sent(&host, now, tcp_send(data, len));
 */

bool zq_host_relay_stream_target(const zq_host_t *h, zq_addr_t *server);
void zq_host_relay_stream_opened(zq_host_t *h, uint64_t now);
void zq_host_relay_stream_closed(zq_host_t *h, uint64_t now);
void zq_host_handle_relay_stream(zq_host_t *h, uint64_t now, const uint8_t *data, size_t len);
bool zq_host_poll_relay_stream(zq_host_t *h, const uint8_t **data, size_t *len);
void zq_host_relay_stream_sent(zq_host_t *h, uint64_t now, size_t len);

#endif /* ZQ_HOST_HOST_H */

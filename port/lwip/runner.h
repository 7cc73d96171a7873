/**
 * @file runner.h
 * @brief The main loop of an lwIP board: one node (with a broker or without), its signalling
 *        WebSocket and its UDP socket, fed to host/host.h, which drains every output of an
 *        input (docs/design.md); this sends the datagrams and frames it then has.
 *
 * Every turn runs the board's network (zq_lwip_board_service()), looks at the board's address
 * now and then (a new one moves the UDP socket and rejoins the room), reads each waiting datagram
 * and signalling frame, runs the timers that are due, sends what the host has, and sleeps
 * until the next interrupt (zq_lwip_board_idle()) when nothing came. The console gets one line
 * per event a person running the board wants to see: joined, a peer connected (with its open
 * time) or gone, mbedTLS's arena after each, signalling up and down.
 *
 * @code
 * static zq_lwip_runner_t runner;        // large (node, WebSocket buffers): static
 * zq_lwip_options_t opt = {.signal_url = "ws://192.0.2.1:8080/ws", .room = "r1", .broker = true};
 * if (zq_lwip_runner_start(&runner, &opt, &callbacks, &app) == ZQ_OK) zq_lwip_runner_run(&runner);
 * @endcode
 */
#ifndef ZQ_PORT_LWIP_RUNNER_H
#define ZQ_PORT_LWIP_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "broker/brk.h"
#include "host/host.h"
#include "node/node.h"
#include "port/relay/relay_link.h"
#include "port/ws/ws_device.h"
#include "port/zq_port.h"
#include "stack/dtls/dtls.h"

typedef struct zq_lwip_runner zq_lwip_runner_t;

typedef struct {
    const char *signal_url;     /**< ws:// or wss://IPv4[:port]/path of `zq signal` (copied) */
    const char *room;           /**< the room (copied) */
    uint16_t udp_port;          /**< the node's UDP port; 0 picks one */
    bool broker;                /**< host a broker; false: the application reads the node */
    uint32_t signal_timeout_ms; /**< connect and upgrade, each; 0: 5000 */
    uint32_t reconnect_max_ms;  /**< the longest wait between tries; 0: host.h's 30000 */
    /** wss:// (an image with TLS): the CA certificates the server's chain must end at, PEM
     *  text (borrowed: it must outlive the runner). The wall clock must be set first
     *  (zq_lwip_wall_clock_set()): certificates' dates are checked. */
    const char *ca_pem;
    size_t ca_pem_len;
    /** wss://: the SHA-256 of the server's SubjectPublicKeyInfo (TLS_PIN_LEN bytes, copied),
     *  checked besides the chain; NULL: none. */
    const uint8_t *tls_pin;
} zq_lwip_options_t;

/** The application's side; every member may be NULL. @c host's callbacks get the
 *  application's @p ctx, as zq_host_init() would give them. */
typedef struct {
    /** The node (and broker) are up, before any peer: start the application. A failure stops
     *  the runner. */
    zq_err_t (*on_start)(void *ctx, zq_lwip_runner_t *r, uint64_t now);
    zq_host_callbacks_t host;
} zq_lwip_callbacks_t;

struct zq_lwip_runner {
    zq_lwip_callbacks_t cb;
    void *ctx;
    char room[ZQ_SIG_ROOM_MAX + 1];
    zq_device_url_t url;
    zq_addr_t server;        /* the URL's host and port */
    uint32_t signal_timeout_ms;
    zq_rand_t rand;
    dtls_identity_t identity;
    dtls_context_t dtls;
    node_t node;
    brk_t brk;               /* initialised with zq_lwip_options_t.broker only */
    bool with_broker;
    zq_host_t host;
    zq_device_ws_t ws;
#if defined(ZQ_MBEDTLS_TLS)
    tls_client_config_t trust; /* wss://: the CA certificates, the pin */
#endif
    zq_socket_t udp;
    zq_relay_link_t relay;   /* TURN over TCP (ZQ_NODE_TURN_STREAM): the node's server */
    zq_addr_t local;         /* the UDP socket's address: the host candidate */
    uint64_t started_ms;     /* zq_lwip_runner_start()'s clock */
    uint64_t next_address_check; /* when the interface's address is looked at again */
    bool arena_report_due;   /* a peer went: say the arena once its session is freed */
    uint8_t rx[ZQ_UDP_MAX_DATAGRAM];
};

/** Makes the identity, opens the UDP socket on the board's address, starts the node, the
 *  broker and the application, and makes the first try to reach the signalling server.
 *  @return ZQ_OK, or why it cannot run (said on the console). */
zq_err_t zq_lwip_runner_start(zq_lwip_runner_t *r, const zq_lwip_options_t *opt,
                              const zq_lwip_callbacks_t *cb, void *ctx);

/** One turn of the loop (see above). @return whether anything arrived (the caller may spin). */
bool zq_lwip_runner_turn(zq_lwip_runner_t *r);

/** Turns forever. */
void zq_lwip_runner_run(zq_lwip_runner_t *r);

#endif /* ZQ_PORT_LWIP_RUNNER_H */

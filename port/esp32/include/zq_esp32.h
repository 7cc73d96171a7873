/**
 * @file zq_esp32.h
 * @brief zq on ESP-IDF: one FreeRTOS task that runs host/host.h (a node in one signalling
 *        room, its broker, the signalling link) over lwIP sockets, the WebSocket to the
 *        signalling server, and the application's broker callbacks. The ESP-IDF counterpart
 *        of cli/brk_runner.h; what both run around the node is the host's.
 *
 * Everything zq does happens in that task: the callbacks run there, and the node, the broker
 * and the application's own state (e.g. app/sensor.c's sensor_t) are touched from nowhere
 * else. The task waits in select() on the UDP socket and the signalling socket until the next
 * deadline of the node, the broker or the application.
 *
 * @code
 * static zq_esp32_runner_t runner;           // large (node, broker, WebSocket): static
 * static const zq_esp32_callbacks_t cb = {.on_start = start, .on_event = got,
 *                                         .on_idle = tick, .next_timeout = due};
 * zq_esp32_options_t opt = {.signal_url = "ws://192.168.1.10:8080/ws", .room = "default-topic"};
 * ESP_ERROR_CHECK(zq_esp32_runner_start(&runner, &opt, &cb, &app));   // network up first
 * @endcode
 *
 * Capacities and timeouts come from menuconfig (this component's Kconfig, "zq"). mbedTLS is
 * ESP-IDF's own: with CONFIG_MBEDTLS_CUSTOM_MEM_ALLOC, what zq's task allocates through it comes
 * from a static arena of CONFIG_ZQ_ESP32_MBEDTLS_ARENA bytes, other tasks' from the heap
 * (zq_esp32_arena_stats); see port/esp32/README.md for the options zq needs.
 */
#ifndef ZQ_ESP32_H
#define ZQ_ESP32_H

#include <stdbool.h>
#include <stdint.h>

#include "port/relay/relay_link.h"
#include "port/ws/ws_device.h"
#include "esp_err.h"
#include "broker/brk.h"
#include "host/host.h"
#include "node/node.h"
#include "port/arena/arena.h"
#include "port/zq_port.h"
#include "stack/dtls/dtls.h"
#include "zq/rand.h"

typedef struct {
    /** ws:// or wss://host[:port]/path of `zq signal` (copied at start). wss:// needs
     *  CONFIG_ZQ_ESP32_WSS: the server's chain is checked against ESP-IDF's certificate
     *  bundle (esp_crt_bundle_attach), its name against the host, its dates against the
     *  clock (set it first: SNTP). */
    const char *signal_url;
    const char *room;       /**< the room, also the data channels' label (copied at start) */
    /** wss://: the SHA-256 of the server's SubjectPublicKeyInfo (32 bytes, copied), checked
     *  besides the chain; NULL: none. */
    const uint8_t *tls_pin;
} zq_esp32_options_t;

/** The application's side. Every member may be NULL; all run in the runner's task, and the
 *  strings of an event are borrowed for the call only. */
typedef struct {
    /** The broker is up, before any peer: subscribe, serve, init the app here. A failure
     *  stops the task. */
    zq_err_t (*on_start)(void *ctx, brk_t *brk, uint64_t now);
    /** Every broker event, in order. */
    void (*on_event)(void *ctx, brk_t *brk, uint64_t now, const brk_event_t *ev);
    /** After every input (datagram, signalling frame, timeout), once its events were handled:
     *  publish what is due here. */
    void (*on_idle)(void *ctx, brk_t *brk, uint64_t now);
    /** The application's own next deadline (on_idle runs then), or ZQ_TIME_NEVER. */
    uint64_t (*next_timeout)(void *ctx);
} zq_esp32_callbacks_t;

/** The runner's state: caller-allocated (static), one per firmware. Plain data; read it from
 *  the callbacks only (they run in its task). */
typedef struct {
    zq_esp32_callbacks_t cb;
    void *ctx;
    char room[ZQ_SIG_ROOM_MAX + 1];
    zq_device_url_t url;
    zq_rand_t rand;
    dtls_identity_t identity;
    dtls_context_t dtls;
    node_t node;
    brk_t brk;
    zq_host_t host;                   /* node + broker + signalling link: host/host.h */
    zq_device_ws_t ws;
#if defined(ZQ_MBEDTLS_TLS)
    tls_client_config_t trust;        /* wss://: ESP-IDF's certificate bundle, the pin */
    bool has_pin;
    uint8_t pin[TLS_PIN_LEN];
#endif
    zq_socket_t udp;
    zq_relay_link_t relay;            /* TURN over TCP (ZQ_NODE_TURN_STREAM): the node's server */
    zq_addr_t local;                  /* the UDP socket's address: the host candidate */
    uint64_t next_address_check;      /* when the interface's address is looked at again */
    uint8_t rx[ZQ_UDP_MAX_DATAGRAM];
} zq_esp32_runner_t;

/**
 * Checks the options and starts the task (CONFIG_ZQ_ESP32_TASK_STACK bytes of stack, priority
 * CONFIG_ZQ_ESP32_TASK_PRIORITY). The task makes or loads the node's identity (NVS: call
 * nvs_flash_init() first), waits for an IPv4 address, opens its UDP socket, starts the node
 * and broker, calls on_start, and connects to the server, again after each disconnection
 * (1 s doubling to CONFIG_ZQ_ESP32_RECONNECT_MAX_MS, as ZeroQ does; peers stay up meanwhile).
 * @p r, @p cb and @p ctx must outlive the task (it never ends unless on_start fails).
 * @return ESP_OK; ESP_ERR_INVALID_ARG (a bad URL or room, logged); ESP_ERR_NO_MEM (no task).
 */
esp_err_t zq_esp32_runner_start(zq_esp32_runner_t *r, const zq_esp32_options_t *opt,
                                const zq_esp32_callbacks_t *cb, void *ctx);

/**
 * The node's DTLS identity: the one kept in NVS namespace @p ns if there is one and it loads,
 * else a new one, stored there. A failure to store is logged, not returned: the node runs
 * with an identity that a reboot replaces (peers that pinned its fingerprint then refuse it).
 * @return ZQ_OK, or dtls_identity_generate()'s error.
 */
zq_err_t zq_esp32_identity_load(dtls_identity_t *id, const zq_rand_t *rand, const char *ns);

/**
 * What zq's mbedTLS arena holds now and at most since boot (bytes of blocks, headers
 * included), its capacity (CONFIG_ZQ_ESP32_MBEDTLS_ARENA, rounded to 8) and how many requests
 * it refused. The runner logs it as each peer connects and goes. Read it from zq's task (the
 * callbacks) for a consistent picture.
 * @return false, with @p out zeroed, when CONFIG_MBEDTLS_CUSTOM_MEM_ALLOC is off (mbedTLS then
 *         allocates from ESP-IDF's heap and zq has no figure for it).
 */
bool zq_esp32_arena_stats(zq_arena_stats_t *out);

#endif /* ZQ_ESP32_H */

/* The ESP32 runner (see zq_esp32.h): one FreeRTOS task, a select() loop over the UDP socket
 * and the signalling socket, feeding host/host.h, which drains every output of an input
 * (docs/design.md); this sends the datagrams and frames it then has. */
#include "zq_esp32.h"

#include <errno.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>

#include "esp_log.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"
#include "lwip/netdb.h"
#include "port/address/follow.h"
#include "port/bsd/bsd_socket.h"
#include "port/esp32/mbedtls_arena.h"
#include "sdkconfig.h"
#include "zq/time.h"

#if defined(ZQ_MBEDTLS_TLS)
#include "esp_crt_bundle.h"
#endif

static const char *TAG = "zq";

/* The longest single wait: a bound on how late a deadline computed before an API call made
 * from another context could be noticed (there are none today; cheap insurance). */
#define MAX_WAIT_MS 1000
/* Datagrams read per wake-up before the signalling socket and the timers get their turn. */
#define RX_BURST 16
/* The TCP connect to a TURN server, at most (a dropped SYN: the node tries its next server). */
#define RELAY_CONNECT_MS 3000u
/* How often the task looks for an IPv4 address before it has one. */
#define ADDRESS_POLL_MS 500

/* ---- The host's callbacks: the application's, with the runner's log lines ----------------- */

/* mbedTLS's arena after a peer came or went: what its sessions hold, against the cap. */
static void log_arena(void)
{
    zq_arena_stats_t st;
    if (zq_esp32_arena_stats(&st)) {
        ESP_LOGI(TAG, "mbedTLS arena: %u bytes in use, peak %u of %u, %u refused",
                 (unsigned)st.in_use, (unsigned)st.peak, (unsigned)st.capacity,
                 (unsigned)st.failures);
    }
}

static void log_node_event(void *ctx, uint64_t now, const node_event_t *ev)
{
    zq_esp32_runner_t *r = ctx;
    char line[NODE_DESCRIBE_MAX];
    (void)now;
    if (ev->type == NODE_EVENT_WELCOME) {
        ESP_LOGI(TAG, "in room '%s' as %s", r->room, r->node.my_id);
    } else if (ev->type == NODE_EVENT_PEER_CONNECTED) {
        (void)node_describe_event(ev, line, sizeof line);
        ESP_LOGI(TAG, "peer %s %s", node_peer_id(&r->node, ev->peer), line);
        log_arena();
    } else if (ev->type == NODE_EVENT_PEER_REFUSED) {
        ESP_LOGW(TAG, "a member waits: all %d peer slots are taken (ZQ_NODE_MAX_PEERS); "
                      "it is told, and dialed when one frees",
                 ZQ_NODE_MAX_PEERS);
    } else if (ev->type == NODE_EVENT_WAITING) {
        ESP_LOGW(TAG, "a member has no peer slot for us yet; it dials us when it has");
    } else if (ev->type == NODE_EVENT_PEER_GONE) {
        (void)node_describe_event(ev, line, sizeof line);
        ESP_LOGI(TAG, "peer %s %s", node_peer_id(&r->node, ev->peer), line);
        log_arena();
    }
}

static void app_event(void *ctx, uint64_t now, const brk_event_t *ev)
{
    zq_esp32_runner_t *r = ctx;
    if (r->cb.on_event != NULL) {
        r->cb.on_event(r->ctx, &r->brk, now, ev);
    }
}

static void app_idle(void *ctx, uint64_t now)
{
    zq_esp32_runner_t *r = ctx;
    if (r->cb.on_idle != NULL) {
        r->cb.on_idle(r->ctx, &r->brk, now);
    }
}

static uint64_t app_next_timeout(void *ctx)
{
    zq_esp32_runner_t *r = ctx;
    return r->cb.next_timeout != NULL ? r->cb.next_timeout(r->ctx) : ZQ_TIME_NEVER;
}

static const zq_host_callbacks_t host_callbacks = {
    .on_node_event = log_node_event,
    .on_event = app_event,
    .on_idle = app_idle,
    .next_timeout = app_next_timeout,
};

/* ---- Signalling: the WebSocket under the host's signalling side --------------------------- */

static void on_text(void *ctx, uint64_t now, const char *text, size_t len)
{
    zq_esp32_runner_t *r = ctx;
    zq_host_handle_signal(&r->host, now, text, len);
}

/* The URL's host as an IPv4 address: a literal as it is, a name through lwIP's resolver. */
static zq_err_t resolve(const zq_device_url_t *url, zq_addr_t *addr)
{
    if (zq_addr_parse_ip(url->host, strlen(url->host), addr) == ZQ_OK) {
        addr->port = url->port;
        return addr->family == ZQ_AF_INET4 ? ZQ_OK : ZQ_ERR_UNSUPPORTED;
    }
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    struct addrinfo *res = NULL;
    if (getaddrinfo(url->host, NULL, &hints, &res) != 0 || res == NULL) {
        return ZQ_ERR_NOT_FOUND;
    }
    zq_err_t err = zq_bsd_addr_from_sockaddr(res->ai_addr, addr);
    freeaddrinfo(res);
    addr->port = url->port;
    return err;
}

/* The trust store wss:// (and turns:) checks the server against; NULL for ws://. */
static tls_client_config_t *trust_of(zq_esp32_runner_t *r)
{
#if defined(ZQ_MBEDTLS_TLS)
    return r->url.secure ? &r->trust : NULL;
#else
    (void)r;
    return NULL; /* zq_device_url_parse() refused wss:// */
#endif
}

static zq_err_t open_signal(zq_esp32_runner_t *r, const char **why)
{
    zq_addr_t server;
    if (resolve(&r->url, &server) != ZQ_OK) {
        *why = "the host name does not resolve to an IPv4 address";
        return ZQ_ERR_NOT_FOUND;
    }
    return zq_device_ws_open(&r->ws, &r->url, &server, trust_of(r),
                             CONFIG_ZQ_ESP32_SIGNAL_TIMEOUT_MS, why);
}

static void connect_signal(zq_esp32_runner_t *r)
{
    const char *why = "";
    if (open_signal(r, &why) == ZQ_OK) {
        ESP_LOGI(TAG, "signalling connected to %s:%u, joining '%s'", r->url.host,
                 (unsigned)r->url.port, r->room);
        zq_host_signal_opened(&r->host, zq_port_now_ms());
        return;
    }
    uint32_t wait = zq_host_signal_down(&r->host, zq_port_now_ms()); /* opening waited */
    ESP_LOGW(TAG, "cannot reach %s:%u: %s; next try in %u ms", r->url.host, (unsigned)r->url.port,
             why, (unsigned)wait);
}

static void service_signal(zq_esp32_runner_t *r, uint64_t now, bool readable)
{
    uint16_t code = 0;
    if (r->ws.open &&
        zq_device_ws_service(&r->ws, now, readable, on_text, r, &code) == ZQ_ERR_CLOSED) {
        uint32_t wait = zq_host_signal_down(&r->host, now);
        ESP_LOGW(TAG, "signalling closed (%u); reconnecting in %u ms", (unsigned)code,
                 (unsigned)wait);
    }
}

/* ---- Outputs: after every input, what the host has to send -------------------------------- */

static void flush_signal(zq_esp32_runner_t *r, uint64_t now)
{
    const char *frame;
    size_t len;
    while (r->ws.open && zq_host_poll_signal(&r->host, now, &frame, &len)) {
        zq_err_t err = zq_device_ws_send_text(&r->ws, frame, len);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return;
        }
        if (err != ZQ_OK) {
            ESP_LOGW(TAG, "signalling frame of %u bytes not sent: %s", (unsigned)len,
                     zq_strerror(err));
        }
        zq_host_signal_sent(&r->host);
    }
}

static void transmit(zq_esp32_runner_t *r, uint64_t now)
{
    peer_transmit_t tx;
    while (zq_host_poll_transmit(&r->host, now, &tx)) {
        /* A full lwIP buffer drops the datagram: ICE, DTLS and SCTP retransmit. */
        (void)zq_port_udp_send(r->udp, &tx.remote, tx.data, tx.len);
    }
}

static void send_outputs(zq_esp32_runner_t *r, uint64_t now)
{
    transmit(r, now);
    flush_signal(r, now);
}

/* ---- Inputs -------------------------------------------------------------------------------- */

static void read_udp(zq_esp32_runner_t *r)
{
    for (int i = 0; i < RX_BURST; i++) {
        zq_addr_t from;
        size_t len = 0;
        zq_err_t err = zq_port_udp_recv(r->udp, &from, r->rx, sizeof r->rx, &len);
        if (err == ZQ_ERR_NO_SPACE) {
            continue; /* longer than any datagram zq accepts: dropped */
        }
        if (err != ZQ_OK) {
            return;
        }
        uint64_t now = zq_port_now_ms();
        zq_host_handle_datagram(&r->host, now, &r->local, &from, r->rx, len);
        send_outputs(r, now);
    }
}

static void handle_timeouts(zq_esp32_runner_t *r, uint64_t now)
{
    if (zq_host_signal_due(&r->host, now)) {
        connect_signal(r);
        now = zq_port_now_ms(); /* opening waited */
    }
    zq_host_handle_timeout(&r->host, now); /* on_idle runs here at the application's deadline */
    send_outputs(r, now);
}

/* ---- The device's address ------------------------------------------------------------------ */

/* A new address (a DHCP renewal, another access point): port/address/follow.h moves the UDP
 * socket and rejoins; this says so. */
static void watch_address(zq_esp32_runner_t *r, uint64_t now)
{
    if (now < r->next_address_check) {
        return;
    }
    r->next_address_check = now + ADDRESS_POLL_MS;
    zq_addr_t was;
    zq_address_follow_t moved =
        zq_address_follow(&r->udp, &r->local, &was, &r->ws, &r->host, now);
    if (moved == ZQ_ADDRESS_SAME) {
        return;
    }
    char from[ZQ_ADDR_TEXT_MAX];
    char to[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(&was, from, sizeof from);
    if (moved == ZQ_ADDRESS_NO_SOCKET) {
        ESP_LOGW(TAG, "address changed from %s, and no UDP socket on the new one yet", from);
        return;
    }
    (void)zq_addr_format(&r->local, to, sizeof to);
    ESP_LOGI(TAG, "address changed from %s to %s; rejoining", from, to);
}

/* One turn: wait for a socket or the next deadline, then handle what came. */
static void run_once(zq_esp32_runner_t *r)
{
    uint64_t now = zq_port_now_ms();
    uint64_t deadline = zq_host_next_timeout(&r->host);
    uint64_t wait = deadline <= now ? 0 : deadline - now;
    wait = wait > MAX_WAIT_MS ? MAX_WAIT_MS : wait;
    watch_address(r, now); /* MAX_WAIT_MS bounds how late a change is seen */
    /* Bytes TLS decrypted already leave the socket unreadable: no wait for them. */
    bool tls_input = zq_device_ws_has_input(&r->ws);
    wait = tls_input ? 0 : wait;
    int ws_fd = r->ws.link.sock;
    fd_set rd;
    fd_set wr;
    FD_ZERO(&rd);
    FD_ZERO(&wr);
    int max_fd = -1;
    if (r->udp != ZQ_SOCKET_INVALID) { /* none while a new address has no socket yet */
        FD_SET(r->udp, &rd);
        max_fd = r->udp;
    }
    if (r->ws.open) {
        FD_SET(ws_fd, &rd);
        if (zq_device_ws_wants_write(&r->ws)) {
            FD_SET(ws_fd, &wr);
        }
        max_fd = ws_fd > max_fd ? ws_fd : max_fd;
    }
    int relay_fd = r->relay.sock;
    if (relay_fd != ZQ_SOCKET_INVALID) {
        FD_SET(relay_fd, &rd);
        if (zq_relay_link_wants_write(&r->relay, &r->host)) {
            FD_SET(relay_fd, &wr);
        }
        max_fd = relay_fd > max_fd ? relay_fd : max_fd;
    }
    struct timeval tv = {.tv_sec = (time_t)(wait / 1000u),
                         .tv_usec = (suseconds_t)((wait % 1000u) * 1000u)};
    int n = select(max_fd + 1, &rd, &wr, NULL, &tv);
    if (n < 0 && errno != EINTR) {
        ESP_LOGW(TAG, "select: errno %d", errno);
        vTaskDelay(pdMS_TO_TICKS(10)); /* never spin on a persistent error */
        return;
    }
    if (n > 0 && r->udp != ZQ_SOCKET_INVALID && FD_ISSET(r->udp, &rd)) {
        read_udp(r);
    }
    bool ws_readable = n > 0 && r->ws.open && FD_ISSET(ws_fd, &rd);
    bool ws_writable = n > 0 && r->ws.open && FD_ISSET(ws_fd, &wr);
    if (ws_readable || ws_writable || tls_input) {
        now = zq_port_now_ms();
        service_signal(r, now, ws_readable);
        send_outputs(r, now);
    }
    /* Every turn: it connects when the node names a server, and reads only what came. */
    (void)zq_relay_link_service(&r->relay, &r->host, zq_port_now_ms(), RELAY_CONNECT_MS);
    now = zq_port_now_ms();
    if (zq_host_next_timeout(&r->host) <= now) {
        handle_timeouts(r, now);
    }
}

/* ---- Start-up ------------------------------------------------------------------------------- */

/* The first IPv4 address of the device, on any interface that is up (Wi-Fi station,
 * Ethernet, OpenCores Ethernet under QEMU: protocol_examples_common's), once it has one. */
static void wait_for_address(zq_esp32_runner_t *r)
{
    while (zq_port_host_addresses(&r->local, 1, false) == 0) {
        vTaskDelay(pdMS_TO_TICKS(ADDRESS_POLL_MS));
    }
    r->local.port = CONFIG_ZQ_ESP32_UDP_PORT;
}

static zq_err_t start_dtls(zq_esp32_runner_t *r)
{
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    cfg.rand = r->rand;
    cfg.handshake_timeout_max_ms = CONFIG_ZQ_ESP32_DTLS_HANDSHAKE_TIMEOUT_MS;
    zq_err_t err = zq_esp32_identity_load(&r->identity, &r->rand, CONFIG_ZQ_ESP32_NVS_NAMESPACE);
    return err == ZQ_OK ? dtls_context_init(&r->dtls, &cfg, &r->identity) : err;
}

static zq_err_t start_node(zq_esp32_runner_t *r)
{
    zq_addr_t bound;
    zq_err_t err = zq_port_udp_open(&r->udp, &r->local, &bound);
    if (err != ZQ_OK) {
        return err;
    }
    r->local = bound;
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, r->room, sizeof cfg.room);
    cfg.rand = r->rand;
    cfg.dtls = &r->dtls;
    cfg.hosts[0] = bound;
    cfg.n_hosts = 1;
#if ZQ_NODE_TURN && ZQ_NODE_TURN_STREAM
    cfg.turn_trust = trust_of(r); /* turns: is checked as wss:// is; without one, skipped */
#endif
    brk_config_t bcfg;
    brk_config_default(&bcfg);
    bcfg.rand = r->rand;
    bcfg.ping_ms = CONFIG_ZQ_ESP32_BRK_PING_MS;
    bcfg.silence_ms = CONFIG_ZQ_ESP32_BRK_SILENCE_MS;
    bcfg.lease_ms = CONFIG_ZQ_ESP32_BRK_LEASE_MS;
    bcfg.request_timeout_ms = CONFIG_ZQ_ESP32_BRK_REQUEST_TIMEOUT_MS;
    err = node_init(&r->node, &cfg);
    err = err == ZQ_OK ? brk_init(&r->brk, &r->node, &bcfg) : err;
    if (err == ZQ_OK) {
        zq_host_config_t hcfg;
        zq_host_config_default(&hcfg);
        hcfg.rand = r->rand;
        hcfg.reconnect_max_ms = CONFIG_ZQ_ESP32_RECONNECT_MAX_MS;
        zq_host_init(&r->host, &r->node, &r->brk, &hcfg, &host_callbacks, r);
    }
    return err;
}

/* 2026-01-01T00:00:00Z: a clock before it was never set (SNTP has not answered). */
#define CLOCK_SET_AFTER 1767225600

/* wss://: ESP-IDF's certificate bundle (CONFIG_MBEDTLS_CERTIFICATE_BUNDLE), the pin if any. */
static zq_err_t start_trust(zq_esp32_runner_t *r)
{
#if defined(ZQ_MBEDTLS_TLS)
    if (!r->url.secure) {
        return ZQ_OK;
    }
    zq_err_t err = tls_client_config_init_attached(&r->trust, &r->rand, esp_crt_bundle_attach,
                                                   r->has_pin ? r->pin : NULL);
    if (err != ZQ_OK) {
        ESP_LOGE(TAG, "wss://: ESP-IDF's certificate bundle did not attach: %s",
                 zq_strerror(err));
        return err;
    }
#if defined(MBEDTLS_HAVE_TIME_DATE)
    if (time(NULL) < CLOCK_SET_AFTER) {
        ESP_LOGW(TAG, "wss://: the clock is not set (SNTP): the server's certificate will look "
                      "not valid yet");
    }
#else
    ESP_LOGW(TAG, "wss://: certificates' dates are not checked (CONFIG_MBEDTLS_HAVE_TIME_DATE "
                  "is off)");
#endif
#else
    (void)r;
#endif
    return ZQ_OK;
}

static zq_err_t start(zq_esp32_runner_t *r)
{
    (void)zq_port_init();
    r->rand = zq_port_rand();
    r->udp = ZQ_SOCKET_INVALID;
    zq_relay_link_init(&r->relay);
    /* The RNG is a true one only once the radio runs: the key is made after an interface has
     * an address, so over Wi-Fi after the radio started (zq_port_rand(); over Ethernet alone
     * it is not, port/esp32/README.md). */
    wait_for_address(r);
    zq_err_t err = start_trust(r);
    if (err != ZQ_OK) {
        return err;
    }
    err = start_dtls(r);
    if (err != ZQ_OK) {
        ESP_LOGE(TAG, "no DTLS identity: %s", zq_strerror(err));
        return err;
    }
    err = start_node(r);
    if (err != ZQ_OK) {
        ESP_LOGE(TAG, "cannot start the node: %s", zq_strerror(err));
        return err;
    }
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(&r->local, text, sizeof text);
    ESP_LOGI(TAG, "node on %s", text);
    uint64_t now = zq_port_now_ms();
    if (r->cb.on_start != NULL && (err = r->cb.on_start(r->ctx, &r->brk, now)) != ZQ_OK) {
        ESP_LOGE(TAG, "the application did not start: %s", zq_strerror(err));
        return err;
    }
    connect_signal(r);
    send_outputs(r, zq_port_now_ms()); /* the join, and what on_start made */
    return ZQ_OK;
}

static void runner_task(void *arg)
{
    zq_esp32_runner_t *r = arg;
    zq_esp32_mbedtls_arena_claim(); /* before any mbedTLS call: the identity, DTLS */
    if (start(r) == ZQ_OK) {
        for (;;) {
            run_once(r);
        }
    }
    zq_port_udp_close(r->udp);
    vTaskDelete(NULL);
}

esp_err_t zq_esp32_runner_start(zq_esp32_runner_t *r, const zq_esp32_options_t *opt,
                                const zq_esp32_callbacks_t *cb, void *ctx)
{
    memset(r, 0, sizeof *r);
    const char *why = "";
    size_t room = opt->room != NULL ? strlen(opt->room) : 0;
    if (room == 0 || room > ZQ_SIG_ROOM_MAX) {
        ESP_LOGE(TAG, "the room wants 1 to %d characters", ZQ_SIG_ROOM_MAX);
        return ESP_ERR_INVALID_ARG;
    }
    if (opt->signal_url == NULL || zq_device_url_parse(opt->signal_url, &r->url, &why) != ZQ_OK) {
        ESP_LOGE(TAG, "signalling URL '%s': %s", opt->signal_url ? opt->signal_url : "", why);
        return ESP_ERR_INVALID_ARG;
    }
    memcpy(r->room, opt->room, room + 1);
#if defined(ZQ_MBEDTLS_TLS)
    if (opt->tls_pin != NULL) {
        r->has_pin = true;
        memcpy(r->pin, opt->tls_pin, sizeof r->pin);
    }
#endif
    if (cb != NULL) {
        r->cb = *cb;
    }
    r->ctx = ctx;
    zq_esp32_mbedtls_arena_install();
    if (xTaskCreate(runner_task, "zq", CONFIG_ZQ_ESP32_TASK_STACK, r,
                    CONFIG_ZQ_ESP32_TASK_PRIORITY, NULL) != pdPASS) {
        return ESP_ERR_NO_MEM;
    }
    return ESP_OK;
}

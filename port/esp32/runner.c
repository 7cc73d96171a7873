/* The ESP32 runner (see zq_esp32.h): one FreeRTOS task, a select() loop over the UDP socket
 * and the signalling socket, and the sans-IO rule of docs/design.md: after every input, drain
 * every output (events, datagrams, signalling frames) before waiting for the next one. */
#include "zq_esp32.h"

#include <errno.h>
#include <string.h>
#include <sys/select.h>

#include "esp_log.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"
#include "sdkconfig.h"
#include "zq/time.h"

static const char *TAG = "zq";

/* The longest single wait: a bound on how late a deadline computed before an API call made
 * from another context could be noticed (there are none today; cheap insurance). */
#define MAX_WAIT_MS 1000
/* Datagrams read per wake-up before the signalling socket and the timers get their turn. */
#define RX_BURST 16
/* How often the task looks for an IPv4 address before it has one. */
#define ADDRESS_POLL_MS 500

/* ---- Signalling ---------------------------------------------------------------------------- */

static void on_text(void *ctx, uint64_t now, const char *text, size_t len)
{
    zq_esp32_runner_t *r = ctx;
    node_handle_signal(&r->node, now, text, len);
}

static void connect_signal(zq_esp32_runner_t *r)
{
    const char *why = "";
    if (zq_esp32_ws_open(&r->ws, &r->url, CONFIG_ZQ_ESP32_SIGNAL_TIMEOUT_MS, &why) == ZQ_OK) {
        ESP_LOGI(TAG, "signalling connected to %s:%u, joining '%s'", r->url.host,
                 (unsigned)r->url.port, r->room);
        node_signal_connected(&r->node);
        r->reconnect_at = ZQ_TIME_NEVER;
        r->backoff_ms = 1000;
        r->frame_len = 0;
        return;
    }
    ESP_LOGW(TAG, "cannot reach %s:%u: %s; next try in %u ms", r->url.host, (unsigned)r->url.port,
             why, (unsigned)r->backoff_ms);
    r->reconnect_at = zq_port_now_ms() + r->backoff_ms;
    r->backoff_ms = r->backoff_ms * 2 > CONFIG_ZQ_ESP32_RECONNECT_MAX_MS
                        ? CONFIG_ZQ_ESP32_RECONNECT_MAX_MS
                        : r->backoff_ms * 2;
}

/* ZeroQ's backoff (docs/zeroq-wire.md §4): 1 s doubling; peers stay up meanwhile. */
static void signal_closed(zq_esp32_runner_t *r, uint64_t now, uint16_t code)
{
    ESP_LOGW(TAG, "signalling closed (%u); reconnecting in %u ms", (unsigned)code,
             (unsigned)r->backoff_ms);
    r->reconnect_at = now + r->backoff_ms;
    r->frame_len = 0;
}

static void service_signal(zq_esp32_runner_t *r, uint64_t now, bool readable)
{
    uint16_t code = 0;
    if (r->ws.open &&
        zq_esp32_ws_service(&r->ws, now, readable, on_text, r, &code) == ZQ_ERR_CLOSED) {
        signal_closed(r, now, code);
    }
}

/* Frames the node wants to send, in order; one that does not fit waits for the next turn. */
static void flush_signal(zq_esp32_runner_t *r, uint64_t now)
{
    while (r->ws.open) {
        if (r->frame_len == 0) {
            r->frame_len = node_poll_signal(&r->node, now, r->frame, sizeof r->frame);
        }
        if (r->frame_len == 0) {
            return;
        }
        zq_err_t err = zq_esp32_ws_send_text(&r->ws, r->frame, r->frame_len);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            return;
        }
        if (err != ZQ_OK) {
            ESP_LOGW(TAG, "signalling frame of %u bytes not sent: %s", (unsigned)r->frame_len,
                     zq_strerror(err));
        }
        r->frame_len = 0;
    }
}

/* ---- Settling: every output of an input, before the next input ---------------------------- */

/* Node events into the broker, broker events to the application. Reading (inside
 * brk_poll_event) can open a channel and so make node events: round until both are empty. */
static void drain_events(zq_esp32_runner_t *r, uint64_t now)
{
    do {
        node_event_t ev;
        while (node_poll_event(&r->node, &ev)) {
            if (ev.type == NODE_EVENT_WELCOME) {
                ESP_LOGI(TAG, "in room '%s' as %s", r->room, r->node.my_id);
            } else if (ev.type == NODE_EVENT_PEER_CONNECTED) {
                ESP_LOGI(TAG, "peer %s connected in %u ms", node_peer_id(&r->node, ev.peer),
                         (unsigned)ev.elapsed_ms);
            } else if (ev.type == NODE_EVENT_PEER_REFUSED) {
                ESP_LOGW(TAG, "a member waits: all %d peer slots are taken (ZQ_NODE_MAX_PEERS); "
                              "it is told, and dialed when one frees",
                         ZQ_NODE_MAX_PEERS);
            } else if (ev.type == NODE_EVENT_WAITING) {
                ESP_LOGW(TAG, "a member has no peer slot for us yet; it dials us when it has");
            } else if (ev.type == NODE_EVENT_PEER_GONE) {
                ESP_LOGI(TAG, "peer %s gone%s%s", node_peer_id(&r->node, ev.peer),
                         ev.failure == PEER_FAIL_NONE ? "" : ": ",
                         ev.failure == PEER_FAIL_NONE ? "" : peer_failure_name(ev.failure));
            }
            brk_handle_node_event(&r->brk, now, &ev);
        }
        brk_event_t bev;
        while (brk_poll_event(&r->brk, now, &bev)) {
            if (r->cb.on_event != NULL) {
                r->cb.on_event(r->ctx, &r->brk, now, &bev);
            }
        }
    } while (node_events_pending(&r->node) > 0);
}

static void transmit(zq_esp32_runner_t *r, uint64_t now)
{
    peer_transmit_t tx;
    while (node_poll_transmit(&r->node, now, &tx)) {
        /* A full lwIP buffer drops the datagram: ICE, DTLS and SCTP retransmit. */
        (void)zq_port_udp_send(r->udp, &tx.remote, tx.data, tx.len);
    }
}

static void settle(zq_esp32_runner_t *r, uint64_t now)
{
    drain_events(r, now);
    if (r->cb.on_idle != NULL) {
        r->cb.on_idle(r->ctx, &r->brk, now);
        drain_events(r, now); /* what the application's calls made due */
    }
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
        (void)node_handle_datagram(&r->node, now, &r->host, &from, r->rx, len);
        settle(r, now);
    }
}

static uint64_t next_deadline(const zq_esp32_runner_t *r)
{
    uint64_t t = zq_time_min(r->reconnect_at, node_next_timeout(&r->node));
    t = zq_time_min(t, brk_next_timeout(&r->brk));
    return r->cb.next_timeout != NULL ? zq_time_min(t, r->cb.next_timeout(r->ctx)) : t;
}

static void handle_timeouts(zq_esp32_runner_t *r, uint64_t now)
{
    if (r->reconnect_at <= now) {
        r->reconnect_at = ZQ_TIME_NEVER;
        connect_signal(r);
        now = zq_port_now_ms(); /* opening waited */
    }
    if (node_next_timeout(&r->node) <= now) {
        node_handle_timeout(&r->node, now);
    }
    if (brk_next_timeout(&r->brk) <= now) {
        brk_handle_timeout(&r->brk, now);
    }
    settle(r, now); /* on_idle runs here at the application's own deadline */
}

/* One turn: wait for a socket or the next deadline, then handle what came. */
static void run_once(zq_esp32_runner_t *r)
{
    uint64_t now = zq_port_now_ms();
    uint64_t deadline = next_deadline(r);
    uint64_t wait = deadline <= now ? 0 : deadline - now;
    wait = wait > MAX_WAIT_MS ? MAX_WAIT_MS : wait;
    fd_set rd;
    fd_set wr;
    FD_ZERO(&rd);
    FD_ZERO(&wr);
    FD_SET(r->udp, &rd);
    int max_fd = r->udp;
    if (r->ws.open) {
        FD_SET(r->ws.sock, &rd);
        if (zq_esp32_ws_wants_write(&r->ws)) {
            FD_SET(r->ws.sock, &wr);
        }
        max_fd = r->ws.sock > max_fd ? r->ws.sock : max_fd;
    }
    struct timeval tv = {.tv_sec = (time_t)(wait / 1000u),
                         .tv_usec = (suseconds_t)((wait % 1000u) * 1000u)};
    int n = select(max_fd + 1, &rd, &wr, NULL, &tv);
    if (n < 0 && errno != EINTR) {
        ESP_LOGW(TAG, "select: errno %d", errno);
        vTaskDelay(pdMS_TO_TICKS(10)); /* never spin on a persistent error */
        return;
    }
    if (n > 0 && FD_ISSET(r->udp, &rd)) {
        read_udp(r);
    }
    bool ws_ready = n > 0 && r->ws.open && (FD_ISSET(r->ws.sock, &rd) || FD_ISSET(r->ws.sock, &wr));
    if (ws_ready) {
        now = zq_port_now_ms();
        service_signal(r, now, ws_ready && FD_ISSET(r->ws.sock, &rd));
        settle(r, now);
    }
    now = zq_port_now_ms();
    if (next_deadline(r) <= now) {
        handle_timeouts(r, now);
    }
}

/* ---- Start-up ------------------------------------------------------------------------------- */

/* The first IPv4 address of the device, once DHCP gave it one. */
static void wait_for_address(zq_esp32_runner_t *r)
{
    while (zq_port_host_addresses(&r->host, 1, false) == 0) {
        vTaskDelay(pdMS_TO_TICKS(ADDRESS_POLL_MS));
    }
    r->host.port = CONFIG_ZQ_ESP32_UDP_PORT;
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
    zq_err_t err = zq_port_udp_open(&r->udp, &r->host, &bound);
    if (err != ZQ_OK) {
        return err;
    }
    r->host = bound;
    node_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    memcpy(cfg.room, r->room, sizeof cfg.room);
    cfg.rand = r->rand;
    cfg.dtls = &r->dtls;
    cfg.hosts[0] = bound;
    cfg.n_hosts = 1;
    brk_config_t bcfg;
    brk_config_default(&bcfg);
    bcfg.rand = r->rand;
    bcfg.ping_ms = CONFIG_ZQ_ESP32_BRK_PING_MS;
    bcfg.silence_ms = CONFIG_ZQ_ESP32_BRK_SILENCE_MS;
    bcfg.lease_ms = CONFIG_ZQ_ESP32_BRK_LEASE_MS;
    bcfg.request_timeout_ms = CONFIG_ZQ_ESP32_BRK_REQUEST_TIMEOUT_MS;
    err = node_init(&r->node, &cfg);
    return err == ZQ_OK ? brk_init(&r->brk, &r->node, &bcfg) : err;
}

static zq_err_t start(zq_esp32_runner_t *r)
{
    (void)zq_port_init();
    r->rand = zq_port_rand();
    r->udp = ZQ_SOCKET_INVALID;
    r->reconnect_at = ZQ_TIME_NEVER;
    r->backoff_ms = 1000;
    /* The RNG is a true one only once the radio runs: the key is made after the station has
     * an address (zq_port_rand()). */
    wait_for_address(r);
    zq_err_t err = start_dtls(r);
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
    (void)zq_addr_format(&r->host, text, sizeof text);
    ESP_LOGI(TAG, "node on %s", text);
    uint64_t now = zq_port_now_ms();
    if (r->cb.on_start != NULL && (err = r->cb.on_start(r->ctx, &r->brk, now)) != ZQ_OK) {
        ESP_LOGE(TAG, "the application did not start: %s", zq_strerror(err));
        return err;
    }
    connect_signal(r);
    return ZQ_OK;
}

static void runner_task(void *arg)
{
    zq_esp32_runner_t *r = arg;
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
    if (opt->signal_url == NULL || zq_esp32_url_parse(opt->signal_url, &r->url, &why) != ZQ_OK) {
        ESP_LOGE(TAG, "signalling URL '%s': %s", opt->signal_url ? opt->signal_url : "", why);
        return ESP_ERR_INVALID_ARG;
    }
    memcpy(r->room, opt->room, room + 1);
    if (cb != NULL) {
        r->cb = *cb;
    }
    r->ctx = ctx;
    if (xTaskCreate(runner_task, "zq", CONFIG_ZQ_ESP32_TASK_STACK, r,
                    CONFIG_ZQ_ESP32_TASK_PRIORITY, NULL) != pdPASS) {
        return ESP_ERR_NO_MEM;
    }
    return ESP_OK;
}

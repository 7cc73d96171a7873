/* The whole device of the footprint images (scripts/footprint): what an ESP32 running
 * app/sensor.c holds and calls, on the stub port (stub_port.c). Everything is static, as on a
 * device; the loop calls every entry point a real device's loop calls (port/esp32's runner),
 * so --gc-sections keeps exactly the code such a device links.
 *
 * Not meant to run: the stub port never delivers a datagram or a byte, and the loop spins. */
#include <string.h>

#include "app/sensor.h"
#include "broker/brk.h"
#include "node/node.h"
#include "port/zq_port.h"
#include "signal/ws.h"
#include "stack/dtls/dtls.h"
#include "zq/time.h"

/* mbedTLS's arena: the identity (~3 KiB) and, per peer, one handshake's peak (~12.8 KiB with
 * allocator headers, measured on x86-64: bench/README.md), the worst case where every peer
 * handshakes at once. scripts/footprint reports it on its own line, not as zq's RAM. */
#define FOOTPRINT_ARENA_BYTES (5 * 1024 + ZQ_NODE_MAX_PEERS * 13 * 1024)

static uint8_t footprint_arena[FOOTPRINT_ARENA_BYTES];

static zq_rand_t dev_rand_src;
static dtls_identity_t dev_identity;
static dtls_context_t dev_dtls;
static node_t dev_node;
static brk_t dev_brk;
static sensor_t dev_sensor;
static ws_conn_t dev_ws;
static zq_socket_t dev_udp = ZQ_SOCKET_INVALID;
static zq_socket_t dev_tcp = ZQ_SOCKET_INVALID;
static zq_addr_t dev_bound;
static uint8_t dev_rx[ZQ_UDP_MAX_DATAGRAM];
static char dev_frame[ZQ_SIG_FRAME_MAX];
static size_t dev_frame_len;

/* What a device keeps in flash (NVS on an ESP32): its key and certificate, DER. */
static uint8_t dev_stored_key[160];
static size_t dev_stored_key_len;
static uint8_t dev_stored_cert[600];
static size_t dev_stored_cert_len;

static zq_err_t load_identity(void)
{
    if (dev_stored_key_len > 0 &&
        dtls_identity_import(&dev_identity, dev_stored_key, dev_stored_key_len, dev_stored_cert,
                             dev_stored_cert_len, &dev_rand_src) == ZQ_OK) {
        return ZQ_OK;
    }
    zq_err_t err = dtls_identity_generate(&dev_identity, &dev_rand_src);
    if (err == ZQ_OK) {
        err = dtls_identity_export(&dev_identity, dev_stored_key, sizeof dev_stored_key,
                                   &dev_stored_key_len, dev_stored_cert, sizeof dev_stored_cert,
                                   &dev_stored_cert_len);
    }
    return err;
}

static zq_err_t start(uint64_t now)
{
    zq_err_t err = zq_port_init();
    dev_rand_src = zq_port_rand();
    dtls_arena_init(footprint_arena, sizeof footprint_arena);
    dtls_config_t dcfg;
    dtls_config_default(&dcfg);
    dcfg.rand = dev_rand_src;
    if (err == ZQ_OK) {
        err = load_identity();
    }
    if (err == ZQ_OK) {
        err = dtls_context_init(&dev_dtls, &dcfg, &dev_identity);
    }
    node_config_t ncfg;
    memset(&ncfg, 0, sizeof ncfg);
    memcpy(ncfg.room, "default-topic", sizeof "default-topic");
    ncfg.rand = dev_rand_src;
    ncfg.dtls = &dev_dtls;
    zq_addr_t host;
    if (err == ZQ_OK && zq_port_host_addresses(&host, 1, false) == 1) {
        err = zq_port_udp_open(&dev_udp, &host, &dev_bound);
        ncfg.hosts[ncfg.n_hosts++] = dev_bound;
    }
    brk_config_t bcfg;
    brk_config_default(&bcfg);
    bcfg.rand = dev_rand_src;
    if (err == ZQ_OK) {
        err = node_init(&dev_node, &ncfg);
    }
    if (err == ZQ_OK) {
        err = brk_init(&dev_brk, &dev_node, &bcfg);
    }
    if (err == ZQ_OK) {
        err = sensor_init(&dev_sensor, &dev_brk, now, "sensor-1", 1000, sensor_simulated_read,
                          NULL);
    }
    return err == ZQ_OK ? sensor_start(&dev_sensor, now) : err;
}

/* The opening handshake of the signalling WebSocket (RFC 6455 §4.1). */
static zq_err_t open_signal(void)
{
    zq_addr_t server = zq_addr_v4(192, 168, 1, 10, 8080);
    zq_err_t err = zq_port_tcp_connect(&dev_tcp, &server, 3000);
    ws_client_handshake_t hs = {.host = "192.168.1.10:8080", .path = "/ws"};
    (void)zq_rand_bytes(&dev_rand_src, hs.nonce, sizeof hs.nonce);
    uint8_t req[512];
    zq_writer_t w = zq_writer(req, sizeof req);
    if (err == ZQ_OK) {
        err = ws_client_request(&w, &hs);
    }
    size_t sent = 0;
    if (err == ZQ_OK) {
        err = zq_port_tcp_send(dev_tcp, req, w.len, &sent);
    }
    char head[512];
    size_t len = 0;
    size_t used = 0;
    if (err == ZQ_OK) {
        err = zq_port_tcp_recv(dev_tcp, (uint8_t *)head, sizeof head, &len);
    }
    if (err == ZQ_OK) {
        err = ws_client_check_response(head, len, hs.nonce, &used, NULL);
    }
    ws_conn_init(&dev_ws, WS_ROLE_CLIENT, &dev_rand_src);
    node_signal_connected(&dev_node);
    return err;
}

static void read_signal(uint64_t now)
{
    uint8_t buf[512];
    size_t len = 0;
    if (zq_port_tcp_recv(dev_tcp, buf, sizeof buf, &len) != ZQ_OK) {
        return;
    }
    const uint8_t *p = buf;
    while (len > 0) {
        size_t used = 0;
        if (ws_feed(&dev_ws, p, len, &used) != ZQ_OK) {
            return;
        }
        p += used;
        len -= used;
        ws_event_t ev;
        while (ws_poll_event(&dev_ws, &ev)) {
            if (ev.type == WS_EVENT_MESSAGE && ev.text) {
                node_handle_signal(&dev_node, now, (const char *)ev.data, ev.len);
            }
        }
    }
}

static void write_signal(uint64_t now)
{
    for (;;) {
        if (dev_frame_len == 0) {
            dev_frame_len = node_poll_signal(&dev_node, now, dev_frame, sizeof dev_frame);
        }
        if (dev_frame_len == 0 ||
            ws_send_text(&dev_ws, dev_frame, dev_frame_len) == ZQ_ERR_WOULD_BLOCK) {
            break;
        }
        dev_frame_len = 0;
    }
    const uint8_t *out;
    size_t n;
    while (ws_pending_output(&dev_ws, &out, &n)) {
        size_t sent = 0;
        if (zq_port_tcp_send(dev_tcp, out, n, &sent) != ZQ_OK || sent == 0) {
            break;
        }
        ws_output_consumed(&dev_ws, sent);
    }
}

static void drain(uint64_t now)
{
    do {
        node_event_t ev;
        while (node_poll_event(&dev_node, &ev)) {
            brk_handle_node_event(&dev_brk, now, &ev);
        }
        brk_event_t bev;
        while (brk_poll_event(&dev_brk, now, &bev)) {
            (void)sensor_handle_event(&dev_sensor, now, &bev);
        }
    } while (node_events_pending(&dev_node) > 0);
    sensor_tick(&dev_sensor, now);
    peer_transmit_t tx;
    while (node_poll_transmit(&dev_node, now, &tx)) {
        (void)zq_port_udp_send(dev_udp, &tx.remote, tx.data, tx.len);
    }
    write_signal(now);
}

int main(void)
{
    uint64_t now = zq_port_now_ms();
    if (start(now) != ZQ_OK || open_signal() != ZQ_OK) {
        return 1;
    }
    for (;;) {
        now = zq_port_now_ms();
        zq_addr_t from;
        size_t len = 0;
        if (zq_port_udp_recv(dev_udp, &from, dev_rx, sizeof dev_rx, &len) == ZQ_OK) {
            (void)node_handle_datagram(&dev_node, now, &dev_bound, &from, dev_rx, len);
        }
        read_signal(now);
        uint64_t due = zq_time_min(node_next_timeout(&dev_node), brk_next_timeout(&dev_brk));
        if (due <= now) {
            node_handle_timeout(&dev_node, now);
            brk_handle_timeout(&dev_brk, now);
        }
        drain(now);
        if (sensor_next_timeout(&dev_sensor) == 0) {
            node_close(&dev_node, now);
            zq_port_udp_close(dev_udp);
            zq_port_tcp_close(dev_tcp);
            return 0;
        }
    }
}

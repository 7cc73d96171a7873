/* A device's TCP connection to its TURN server (see relay_link.h). */
#include "port/relay/relay_link.h"

#include "zq/log.h"

/* Reads per turn before the loop's other sockets and timers get theirs. */
#define READS_PER_TURN 8

void zq_relay_link_init(zq_relay_link_t *l)
{
    l->sock = ZQ_SOCKET_INVALID;
    l->server.family = ZQ_AF_NONE;
}

void zq_relay_link_close(zq_relay_link_t *l)
{
    if (l->sock != ZQ_SOCKET_INVALID) {
        zq_port_tcp_close(l->sock);
        l->sock = ZQ_SOCKET_INVALID;
    }
}

/* The connection failed or ended: the host may name its next server. */
static void lost(zq_relay_link_t *l, zq_host_t *h, uint64_t now)
{
    zq_relay_link_close(l);
    zq_host_relay_stream_closed(h, now);
}

/* Whether the host still wants the connection that is open. */
static bool still_wanted(const zq_relay_link_t *l, const zq_host_t *h)
{
    zq_addr_t server;
    return zq_host_relay_stream_target(h, &server) && zq_addr_equal(&server, &l->server);
}

/* Connects to the server the host names, if it names one and none is open. */
static void connect_wanted(zq_relay_link_t *l, zq_host_t *h, uint64_t now, uint32_t timeout_ms)
{
    if (l->sock != ZQ_SOCKET_INVALID && !still_wanted(l, h)) {
        zq_relay_link_close(l); /* the node gave this one up */
    }
    zq_addr_t server;
    if (l->sock != ZQ_SOCKET_INVALID || !zq_host_relay_stream_target(h, &server)) {
        return;
    }
    char text[ZQ_ADDR_TEXT_MAX];
    (void)zq_addr_format(&server, text, sizeof text);
    l->server = server;
    if (zq_port_tcp_connect(&l->sock, &server, timeout_ms) != ZQ_OK) {
        ZQ_LOGW("relay", "TURN server %s over TCP: no connection", text);
        l->sock = ZQ_SOCKET_INVALID;
        zq_host_relay_stream_closed(h, now); /* its next server, at the next turn */
        return;
    }
    ZQ_LOGI("relay", "TURN server %s over TCP", text);
    zq_host_relay_stream_opened(h, now);
}

static bool read_stream(zq_relay_link_t *l, zq_host_t *h, uint64_t now)
{
    uint8_t buf[512];
    bool any = false;
    for (int i = 0; i < READS_PER_TURN && l->sock != ZQ_SOCKET_INVALID; i++) {
        size_t len = 0;
        zq_err_t err = zq_port_tcp_recv(l->sock, buf, sizeof buf, &len);
        if (err == ZQ_ERR_WOULD_BLOCK) {
            break;
        }
        any = true;
        if (err != ZQ_OK) {
            lost(l, h, now); /* the server's end, or a reset */
            break;
        }
        zq_host_handle_relay_stream(h, now, buf, len);
        if (!still_wanted(l, h)) {
            zq_relay_link_close(l); /* the node gave it up while handling it */
        }
    }
    return any;
}

static void write_stream(zq_relay_link_t *l, zq_host_t *h, uint64_t now)
{
    const uint8_t *data;
    size_t len;
    zq_err_t err = ZQ_OK;
    while (l->sock != ZQ_SOCKET_INVALID && zq_host_poll_relay_stream(h, &data, &len)) {
        size_t sent = 0;
        err = zq_port_tcp_send(l->sock, data, len, &sent);
        if (err != ZQ_OK) {
            break;
        }
        zq_host_relay_stream_sent(h, now, sent);
    }
    if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
        lost(l, h, now);
    }
}

bool zq_relay_link_service(zq_relay_link_t *l, zq_host_t *h, uint64_t now,
                           uint32_t connect_timeout_ms)
{
    connect_wanted(l, h, now, connect_timeout_ms);
    bool any = read_stream(l, h, now);
    write_stream(l, h, now);
    return any;
}

bool zq_relay_link_wants_write(const zq_relay_link_t *l, zq_host_t *h)
{
    const uint8_t *data;
    size_t len;
    return l->sock != ZQ_SOCKET_INVALID && zq_host_poll_relay_stream(h, &data, &len);
}

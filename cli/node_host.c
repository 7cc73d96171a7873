/* Hosting a node on this machine (see node_host.h). */
#include "cli/node_host.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "port/posix/read_file.h"
#include "port/posix/ws_tls.h"

static uint8_t arena[ZQ_NODE_HOST_ARENA];

bool zq_node_host_identity(zq_rand_t *rand, dtls_identity_t *identity, dtls_context_t *dtls)
{
    dtls_arena_init(arena, sizeof arena);
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    cfg.rand = *rand;
    return dtls_identity_generate(identity, rand) == ZQ_OK &&
           dtls_context_init(dtls, &cfg, identity) == ZQ_OK;
}

/* The identity file's form (node_host.h): the key's length, the key, the certificate. */
static bool load_identity(zq_rand_t *rand, const uint8_t *buf, size_t len,
                          dtls_identity_t *identity)
{
    size_t key_len = len >= 2 ? (size_t)buf[0] << 8 | buf[1] : 0;
    return key_len > 0 && 2 + key_len < len &&
           dtls_identity_import(identity, buf + 2, key_len, buf + 2 + key_len,
                                len - 2 - key_len, rand) == ZQ_OK;
}

static bool save_identity(const char *path, const dtls_identity_t *identity)
{
    static uint8_t buf[2 + 2 * 2048];
    size_t key_len;
    size_t cert_len;
    if (dtls_identity_export(identity, buf + 2, 2048, &key_len, buf + 2 + 2048, 2048,
                             &cert_len) != ZQ_OK) {
        return false;
    }
    buf[0] = (uint8_t)(key_len >> 8);
    buf[1] = (uint8_t)key_len;
    memmove(buf + 2 + key_len, buf + 2 + 2048, cert_len);
    return zq_posix_write_file(path, buf, 2 + key_len + cert_len, 0600) == ZQ_OK;
}

bool zq_node_host_identity_file(zq_rand_t *rand, const char *path, dtls_identity_t *identity,
                                dtls_context_t *dtls, const char **why)
{
    static uint8_t buf[2 + 2 * 2048];
    size_t len = 0;
    *why = "cannot make a DTLS certificate";
    if (path == NULL) {
        return zq_node_host_identity(rand, identity, dtls);
    }
    dtls_arena_init(arena, sizeof arena);
    zq_err_t err = zq_posix_read_file(path, buf, sizeof buf, &len);
    if (err == ZQ_OK && !load_identity(rand, buf, len, identity)) {
        *why = "the identity file holds no identity zq can use (remove it to make a new one)";
        return false;
    }
    if (err != ZQ_OK && (err != ZQ_ERR_IO || errno != ENOENT)) {
        *why = "cannot read the identity file";
        return false;
    }
    if (err != ZQ_OK) {
        if (dtls_identity_generate(identity, rand) != ZQ_OK) {
            return false;
        }
        if (!save_identity(path, identity)) {
            *why = "cannot write the identity file";
            return false;
        }
    }
    dtls_config_t cfg;
    dtls_config_default(&cfg);
    cfg.rand = *rand;
    return dtls_context_init(dtls, &cfg, identity) == ZQ_OK;
}

static size_t host_addresses(const zq_addr_t *want, zq_addr_t *out, size_t cap)
{
    zq_addr_t any = zq_cli_any_addr(want->family, 0);
    if (!zq_addr_equal(want, &any)) {
        out[0] = *want;
        return 1;
    }
    zq_addr_t found[16];
    size_t n = zq_port_host_addresses(found, 16, true);
    size_t kept = 0;
    for (size_t i = 0; i < n && kept < cap; i++) {
        if (found[i].family == want->family) {
            out[kept++] = found[i];
        }
    }
    return kept;
}

/* One socket per address of @p addrs that opens: nh's sockets and bound addresses. */
static void open_sockets(zq_node_host_t *nh, const zq_addr_t *addrs, size_t n)
{
    nh->n_socks = 0;
    for (size_t i = 0; i < n; i++) {
        if (zq_port_udp_open(&nh->socks[nh->n_socks], &addrs[i], &nh->bound[nh->n_socks]) ==
            ZQ_OK) {
            nh->n_socks++;
        }
    }
}

uint8_t zq_node_host_open_udp(zq_node_host_t *nh, const zq_addr_t *want, node_config_t *cfg)
{
    zq_addr_t addrs[ZQ_NODE_MAX_HOSTS];
    zq_addr_t any = zq_cli_any_addr(want->family, 0);
    nh->want = *want;
    nh->turn_sock = ZQ_SOCKET_INVALID;
    nh->turn_connecting = false;
    nh->watch = zq_addr_equal(want, &any);
    open_sockets(nh, addrs, host_addresses(want, addrs, ZQ_NODE_MAX_HOSTS));
    for (uint8_t i = 0; i < nh->n_socks; i++) {
        cfg->hosts[cfg->n_hosts++] = nh->bound[i];
    }
#if ZQ_NODE_TURN && ZQ_NODE_TURN_STREAM
    const char *why;
    if (zq_posix_tls_config(NULL, &cfg->turn_trust, &why) != ZQ_OK) {
        cfg->turn_trust = NULL; /* turns: URLs are skipped (counted) */
    }
#endif
    return nh->n_socks;
}

/* ---- Following the machine's addresses ---------------------------------------------------- */

static bool same_ips(const zq_node_host_t *nh, const zq_addr_t *addrs, size_t n)
{
    if (n != nh->n_socks) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!zq_addr_same_ip(&addrs[i], &nh->bound[i])) {
            return false;
        }
    }
    return true;
}

static void say_addresses(const zq_node_host_t *nh, const char *label)
{
    (void)fprintf(stderr, "%s", label);
    for (uint8_t i = 0; i < nh->n_socks; i++) {
        char text[ZQ_ADDR_TEXT_MAX];
        zq_addr_format(&nh->bound[i], text, sizeof text);
        (void)fprintf(stderr, " %s", text);
    }
}

/* A DHCP renewal or another network: the sockets bound to the old addresses reach nobody, so
 * new ones are opened, the node drops what it made from the old ones, and the signalling
 * connection (bound to an old address too) is replaced: the room sees us rejoin. */
static void watch_addresses(zq_node_host_t *nh, uint64_t now)
{
    if (!nh->watch || now < nh->next_check) {
        return;
    }
    nh->next_check = now + ZQ_NODE_HOST_ADDRESS_CHECK_MS;
    zq_addr_t addrs[ZQ_NODE_MAX_HOSTS];
    size_t n = host_addresses(&nh->want, addrs, ZQ_NODE_MAX_HOSTS);
    if (same_ips(nh, addrs, n)) {
        return;
    }
    (void)fprintf(stderr, "zq %s: the host's addresses changed:", nh->sig.cmd);
    say_addresses(nh, "");
    for (uint8_t i = 0; i < nh->n_socks; i++) {
        zq_loop_remove_socket(nh->loop, nh->socks[i]);
        zq_port_udp_close(nh->socks[i]);
    }
    open_sockets(nh, addrs, n);
    say_addresses(nh, " ->");
    (void)fprintf(stderr, "; rejoining\n");
    for (uint8_t i = 0; i < nh->n_socks; i++) {
        (void)zq_loop_add_socket(nh->loop, nh->driver, nh->socks[i], &nh->bound[i]);
    }
    zq_sig_link_close(&nh->sig);
    zq_host_hosts_changed(&nh->host, now, nh->bound, nh->n_socks);
}

/* ---- TURN over TCP: the node's stream to its TURN server ----------------------------------- */

static void turn_link_close(zq_node_host_t *nh)
{
    zq_loop_remove_fd(nh->loop, nh->turn_sock);
    zq_port_tcp_close(nh->turn_sock);
    nh->turn_sock = ZQ_SOCKET_INVALID;
    nh->turn_connecting = false;
}

/* The connection failed to open, or ended: the node may name its next server. */
static void turn_link_lost(zq_node_host_t *nh, uint64_t now)
{
    turn_link_close(nh);
    zq_host_relay_stream_closed(&nh->host, now);
}

/* What the node has for the stream, as far as the socket takes it; the rest waits for the
 * socket to be writable. */
static void turn_link_flush(zq_node_host_t *nh, uint64_t now)
{
    if (nh->turn_sock == ZQ_SOCKET_INVALID || nh->turn_connecting) {
        return;
    }
    const uint8_t *data;
    size_t len, sent = 0;
    zq_err_t err = ZQ_OK;
    while (zq_host_poll_relay_stream(&nh->host, &data, &len) &&
           (err = zq_port_tcp_send(nh->turn_sock, data, len, &sent)) == ZQ_OK) {
        zq_host_relay_stream_sent(&nh->host, now, sent);
    }
    if (err != ZQ_OK && err != ZQ_ERR_WOULD_BLOCK) {
        turn_link_lost(nh, now);
        return;
    }
    (void)zq_loop_set_fd_writable_interest(nh->loop, nh->turn_sock,
                                           zq_host_poll_relay_stream(&nh->host, &data, &len));
}

static void turn_link_sync(zq_node_host_t *nh, uint64_t now);

/* The connect came through (the socket is writable) or failed. */
static void turn_link_connected(zq_node_host_t *nh, uint64_t now)
{
    char text[ZQ_ADDR_TEXT_MAX];
    zq_addr_format(&nh->turn_server, text, sizeof text);
    nh->turn_connecting = false;
    if (zq_port_tcp_connect_finish(nh->turn_sock, &nh->turn_server) != ZQ_OK) {
        (void)fprintf(stderr, "zq %s: TURN server %s over TCP: no connection\n", nh->sig.cmd,
                      text);
        zq_loop_remove_fd(nh->loop, nh->turn_sock); /* _finish closed it */
        nh->turn_sock = ZQ_SOCKET_INVALID;
        zq_host_relay_stream_closed(&nh->host, now);
        turn_link_sync(nh, now);
        return;
    }
    (void)fprintf(stderr, "zq %s: TURN server %s over TCP\n", nh->sig.cmd, text);
    (void)zq_loop_set_fd_writable_interest(nh->loop, nh->turn_sock, false);
    zq_host_relay_stream_opened(&nh->host, now);
    turn_link_flush(nh, now);
}

static void turn_link_ready(void *ctx, int fd, uint64_t now)
{
    (void)fd;
    zq_node_host_t *nh = ctx;
    if (nh->turn_connecting) {
        turn_link_connected(nh, now);
        return;
    }
    static uint8_t buf[4096];
    size_t len;
    zq_err_t err;
    while ((err = zq_port_tcp_recv(nh->turn_sock, buf, sizeof buf, &len)) == ZQ_OK) {
        zq_host_handle_relay_stream(&nh->host, now, buf, len);
        if (nh->turn_sock == ZQ_SOCKET_INVALID) {
            return; /* the node gave the stream up while handling it */
        }
    }
    if (err != ZQ_ERR_WOULD_BLOCK) {
        turn_link_lost(nh, now);
        return;
    }
    turn_link_flush(nh, now);
}

/* Starts the connection the node asks for (the loop goes on meanwhile: the socket's
 * writability or ZQ_NODE_HOST_TURN_CONNECT_MS ends the wait), closes one it no longer wants.
 * @return true when a connect failed at once: the node may name its next server. */
static bool turn_link_step(zq_node_host_t *nh, uint64_t now)
{
    zq_addr_t server;
    bool wanted = zq_host_relay_stream_target(&nh->host, &server);
    if (nh->turn_sock != ZQ_SOCKET_INVALID &&
        (!wanted || !zq_addr_equal(&server, &nh->turn_server))) {
        turn_link_close(nh);
    }
    if (nh->turn_sock != ZQ_SOCKET_INVALID || !wanted) {
        return false;
    }
    nh->turn_server = server;
    if (zq_port_tcp_connect_start(&nh->turn_sock, &server) != ZQ_OK ||
        zq_loop_add_fd(nh->loop, nh->turn_sock, turn_link_ready, nh) != ZQ_OK) {
        zq_port_tcp_close(nh->turn_sock);
        nh->turn_sock = ZQ_SOCKET_INVALID;
        zq_host_relay_stream_closed(&nh->host, now);
        return true;
    }
    nh->turn_connecting = true;
    nh->turn_connect_deadline = now + ZQ_NODE_HOST_TURN_CONNECT_MS;
    (void)zq_loop_set_fd_writable_interest(nh->loop, nh->turn_sock, true);
    return false;
}

static void turn_link_sync(zq_node_host_t *nh, uint64_t now)
{
    for (int tries = 0; tries < NODE_RELAY_TRANSPORTS && turn_link_step(nh, now); tries++) {
    }
    turn_link_flush(nh, now);
}

/* A connect that took ZQ_NODE_HOST_TURN_CONNECT_MS (its SYNs dropped): given up. */
static void turn_link_timeout(zq_node_host_t *nh, uint64_t now)
{
    if (nh->turn_connecting && now >= nh->turn_connect_deadline) {
        char text[ZQ_ADDR_TEXT_MAX];
        zq_addr_format(&nh->turn_server, text, sizeof text);
        (void)fprintf(stderr, "zq %s: TURN server %s over TCP: no connection in %u ms\n",
                      nh->sig.cmd, text, (unsigned)ZQ_NODE_HOST_TURN_CONNECT_MS);
        turn_link_lost(nh, now);
        turn_link_sync(nh, now);
    }
}

void zq_node_host_close_udp(zq_node_host_t *nh)
{
    if (nh->turn_sock != ZQ_SOCKET_INVALID) {
        turn_link_flush(nh, zq_loop_now(nh->loop)); /* the deallocation, if it waits */
        turn_link_close(nh);
    }
    for (uint8_t i = 0; i < nh->n_socks; i++) {
        zq_port_udp_close(nh->socks[i]);
    }
    nh->n_socks = 0;
}

/* ---- Loop driver: the loop's inputs into the host, the host's outputs out ------------------ */

static void drv_datagram(void *obj, uint64_t now, const zq_addr_t *local,
                         const zq_addr_t *remote, const uint8_t *data, size_t len)
{
    zq_node_host_t *nh = obj;
    zq_host_handle_datagram(&nh->host, now, local, remote, data, len);
}

static void drv_timeout(void *obj, uint64_t now)
{
    zq_node_host_t *nh = obj;
    watch_addresses(nh, now);
    turn_link_timeout(nh, now);
    zq_sig_link_timeout(&nh->sig, now);
    zq_host_handle_timeout(&nh->host, now);
}

static uint64_t drv_next_timeout(void *obj)
{
    zq_node_host_t *nh = obj;
    uint64_t t = zq_host_next_timeout(&nh->host);
    if (nh->turn_connecting) {
        t = zq_time_min(t, nh->turn_connect_deadline);
    }
    return nh->watch ? zq_time_min(t, nh->next_check) : t;
}

static bool drv_transmit(void *obj, zq_addr_t *local, zq_addr_t *remote, const uint8_t **data,
                         size_t *len)
{
    zq_node_host_t *nh = obj;
    peer_transmit_t tx;
    if (!zq_host_poll_transmit(&nh->host, zq_loop_now(nh->loop), &tx)) {
        turn_link_flush(nh, zq_loop_now(nh->loop)); /* what went on the TCP stream instead */
        return false;
    }
    *local = tx.local;
    *remote = tx.remote;
    *data = tx.data;
    *len = tx.len;
    return true;
}

static void drv_after_io(void *obj, uint64_t now)
{
    zq_node_host_t *nh = obj;
    if (nh->after_io != NULL) {
        nh->after_io(nh->ctx, now); /* first: what it makes leaves with the rest */
    }
    turn_link_sync(nh, now);
    zq_sig_link_flush(&nh->sig, now);
}

static const zq_driver_t host_driver = {
    .handle_datagram = drv_datagram,
    .handle_timeout = drv_timeout,
    .next_timeout = drv_next_timeout,
    .poll_transmit = drv_transmit,
    .after_io = drv_after_io,
};

zq_err_t zq_node_host_drive(zq_node_host_t *nh, zq_loop_t *loop, const node_config_t *cfg,
                            void (*after_io)(void *ctx, uint64_t now), void *ctx)
{
    nh->loop = loop;
    nh->after_io = after_io;
    nh->ctx = ctx;
    nh->next_check = zq_loop_now(loop) + ZQ_NODE_HOST_ADDRESS_CHECK_MS;
    zq_err_t err = zq_loop_add_driver(loop, &host_driver, nh, &nh->driver);
    for (uint8_t i = 0; i < nh->n_socks && err == ZQ_OK; i++) {
        err = zq_loop_add_socket(loop, nh->driver, nh->socks[i], &cfg->hosts[i]);
    }
    return err;
}

/* TCP over lwIP's raw API (port/zq_port.h): the signalling WebSocket's connection. A socket is
 * a tcp_pcb and the chain of pbufs its receive callback was given; a read copies from the
 * chain and only then opens the window again (tcp_recved), so a server that sends faster than
 * the loop reads is held back by TCP itself, not by dropped data.
 *
 * A device connects and never listens: zq_port_tcp_listen() and _accept() say so. The two
 * waits of the contract (connect, and zq_port_tcp_wait() of the WebSocket's bounded opening)
 * run the board's network while they wait: lwIP's callbacks only run inside
 * zq_lwip_board_service(). */
#include <string.h>

#include "lwip/tcp.h"
#include "port/lwip/lwip_addr.h"
#include "port/lwip/zq_lwip.h"
#include "zq/log.h"

/* Handles: an offset plus the slot (port_udp.c uses another offset). */
#define TCP_HANDLE_BASE 0x200

typedef struct {
    bool used;
    struct tcp_pcb *pcb; /* NULL once lwIP freed it (a reset, an abort: on_error) */
    struct pbuf *rx;     /* received, not yet read */
    bool connected;
    bool ended;          /* the peer's FIN, a reset or an error: nothing more will come */
    err_t error;         /* on_error's reason, ERR_OK otherwise */
} tcp_socket_t;

static tcp_socket_t sockets[ZQ_LWIP_TCP_SOCKETS];

static tcp_socket_t *socket_of(zq_socket_t sock)
{
    int slot = sock - TCP_HANDLE_BASE;
    if (slot < 0 || slot >= ZQ_LWIP_TCP_SOCKETS || !sockets[slot].used) {
        return NULL;
    }
    return &sockets[slot];
}

/* ---- lwIP's callbacks -------------------------------------------------------------------- */

static err_t on_received(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    (void)pcb;
    tcp_socket_t *s = arg;
    if (p == NULL || err != ERR_OK) {
        s->ended = true; /* the peer's FIN (p NULL) */
        if (p != NULL) {
            pbuf_free(p);
        }
        return ERR_OK;
    }
    if (s->rx == NULL) {
        s->rx = p;
    } else {
        pbuf_cat(s->rx, p); /* ours now; the window opens as the loop reads */
    }
    return ERR_OK;
}

static err_t on_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
    (void)pcb;
    tcp_socket_t *s = arg;
    s->connected = err == ERR_OK;
    return ERR_OK;
}

/* lwIP already freed the PCB (a reset, a timeout): it must not be touched again. */
static void on_error(void *arg, err_t err)
{
    tcp_socket_t *s = arg;
    s->pcb = NULL;
    s->ended = true;
    s->error = err;
}

/* ---- The contract ------------------------------------------------------------------------ */

zq_err_t zq_port_tcp_listen(zq_socket_t *sock, const zq_addr_t *bind_addr, zq_addr_t *bound)
{
    (void)sock;
    (void)bind_addr;
    (void)bound;
    ZQ_LOGW("tcp", "a device does not listen (port/lwip connects only)");
    return ZQ_ERR_UNSUPPORTED;
}

zq_err_t zq_port_tcp_accept(zq_socket_t listener, zq_socket_t *conn, zq_addr_t *peer)
{
    (void)listener;
    (void)conn;
    (void)peer;
    return ZQ_ERR_UNSUPPORTED;
}

static int free_slot(void)
{
    for (int i = 0; i < ZQ_LWIP_TCP_SOCKETS; i++) {
        if (!sockets[i].used) {
            return i;
        }
    }
    return -1;
}

/* Runs the network until @p s connected, failed or @p deadline passed. */
static zq_err_t wait_connected(tcp_socket_t *s, uint64_t deadline)
{
    while (!s->connected && !s->ended) {
        if (zq_port_now_ms() >= deadline) {
            return ZQ_ERR_TIMEOUT;
        }
        (void)zq_lwip_board_service();
        if (!s->connected && !s->ended) {
            zq_lwip_board_idle();
        }
    }
    return s->connected ? ZQ_OK : ZQ_ERR_IO;
}

zq_err_t zq_port_tcp_connect(zq_socket_t *sock, const zq_addr_t *to, uint32_t timeout_ms)
{
    ip_addr_t ip;
    if (zq_lwip_ip_from_addr(to, &ip) != ZQ_OK) {
        return ZQ_ERR_INVALID_ARG;
    }
    int slot = free_slot();
    struct tcp_pcb *pcb = slot < 0 ? NULL : tcp_new();
    if (pcb == NULL) {
        ZQ_LOGW("tcp", "no TCP connection left (ZQ_LWIP_TCP_SOCKETS, MEMP_NUM_TCP_PCB)");
        return ZQ_ERR_IO;
    }
    tcp_socket_t *s = &sockets[slot];
    memset(s, 0, sizeof *s);
    s->used = true;
    s->pcb = pcb;
    tcp_arg(pcb, s);
    tcp_recv(pcb, on_received);
    tcp_err(pcb, on_error);
    tcp_nagle_disable(pcb); /* signalling frames are small; latency matters more */
    *sock = TCP_HANDLE_BASE + slot;
    err_t err = tcp_connect(pcb, &ip, to->port, on_connected);
    zq_err_t rc = err == ERR_OK ? wait_connected(s, zq_port_now_ms() + timeout_ms) : ZQ_ERR_IO;
    if (rc != ZQ_OK) {
        if (s->error != ERR_OK) {
            ZQ_LOGW("tcp", "connect: lwIP error %d (%s)", (int)s->error,
                    s->error == ERR_RST ? "refused" : "unreachable");
        }
        zq_port_tcp_close(*sock);
        *sock = ZQ_SOCKET_INVALID;
    }
    return rc;
}

zq_err_t zq_port_tcp_send(zq_socket_t sock, const uint8_t *data, size_t len, size_t *sent)
{
    tcp_socket_t *s = socket_of(sock);
    *sent = 0;
    if (s == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (s->pcb == NULL) {
        return ZQ_ERR_CLOSED;
    }
    if (len == 0) {
        return ZQ_OK;
    }
    size_t room = tcp_sndbuf(s->pcb);
    size_t n = len < room ? len : room;
    /* TCP_WRITE_FLAG_COPY: lwIP keeps its own copy until acknowledged; the caller's buffer is
     * free when this returns. */
    if (n == 0 || tcp_write(s->pcb, data, (u16_t)(n > 0xffffu ? 0xffffu : n),
                            TCP_WRITE_FLAG_COPY) != ERR_OK) {
        return ZQ_ERR_WOULD_BLOCK; /* the send buffer or its segment queue is full */
    }
    *sent = n > 0xffffu ? 0xffffu : n;
    (void)tcp_output(s->pcb);
    return ZQ_OK;
}

/* Copies up to @p cap bytes from the head of the received chain; consumes them if @p take. */
static size_t copy_out(tcp_socket_t *s, uint8_t *buf, size_t cap, bool take)
{
    u16_t n = pbuf_copy_partial(s->rx, buf, (u16_t)(cap < s->rx->tot_len ? cap : s->rx->tot_len),
                                0);
    if (take) {
        s->rx = pbuf_free_header(s->rx, n); /* NULL once all of it was read */
        if (s->pcb != NULL) {
            tcp_recved(s->pcb, n); /* the window opens by what was read */
        }
    }
    return n;
}

static zq_err_t receive(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len, bool take)
{
    tcp_socket_t *s = socket_of(sock);
    if (s == NULL || cap == 0) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (s->rx != NULL) {
        *len = copy_out(s, buf, cap, take);
        return ZQ_OK;
    }
    return s->ended ? ZQ_ERR_CLOSED : ZQ_ERR_WOULD_BLOCK;
}

zq_err_t zq_port_tcp_recv(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len)
{
    return receive(sock, buf, cap, len, true);
}

zq_err_t zq_port_tcp_peek(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len)
{
    return receive(sock, buf, cap, len, false);
}

static bool ready(const tcp_socket_t *s, bool write)
{
    if (s->ended) {
        return true; /* the read or write that follows says how it ended */
    }
    return write ? tcp_sndbuf(s->pcb) > 0 : s->rx != NULL;
}

zq_err_t zq_port_tcp_wait(zq_socket_t sock, bool write, uint64_t deadline)
{
    tcp_socket_t *s = socket_of(sock);
    if (s == NULL) {
        return ZQ_ERR_IO;
    }
    for (;;) {
        (void)zq_lwip_board_service();
        if (ready(s, write)) {
            return ZQ_OK;
        }
        if (zq_port_now_ms() >= deadline) {
            return ZQ_ERR_TIMEOUT;
        }
        zq_lwip_board_idle();
    }
}

void zq_port_tcp_close(zq_socket_t sock)
{
    tcp_socket_t *s = socket_of(sock);
    if (s == NULL) {
        return;
    }
    if (s->rx != NULL) {
        pbuf_free(s->rx);
    }
    if (s->pcb != NULL) {
        tcp_arg(s->pcb, NULL);
        tcp_recv(s->pcb, NULL);
        tcp_err(s->pcb, NULL);
        if (tcp_close(s->pcb) != ERR_OK) {
            tcp_abort(s->pcb); /* no memory for the FIN: a reset still ends it */
        }
    }
    memset(s, 0, sizeof *s);
}

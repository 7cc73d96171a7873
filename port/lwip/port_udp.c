/* UDP over lwIP's raw API (port/zq_port.h): a socket is a udp_pcb and a ring of the pbufs its
 * receive callback was given, which the loop reads one datagram per zq_port_udp_recv(). A
 * full ring drops the datagram and counts it: a bounded number of pool buffers waits per
 * socket, whatever a sender floods. */
#include <string.h>

#include "lwip/pbuf.h"
#include "lwip/udp.h"
#include "port/lwip/lwip_addr.h"
#include "port/lwip/zq_lwip.h"
#include "zq/log.h"

/* Handles are an offset plus the slot: a TCP handle used as a UDP one is refused, not
 * misread (port_tcp.c uses its own offset). */
#define UDP_HANDLE_BASE 0x100

typedef struct {
    struct pbuf *p;
    zq_addr_t from;
} udp_datagram_t;

typedef struct {
    struct udp_pcb *pcb;
    udp_datagram_t ring[ZQ_LWIP_UDP_QUEUE];
    uint8_t head;  /* the oldest datagram */
    uint8_t count; /* datagrams waiting */
} udp_socket_t;

static udp_socket_t sockets[ZQ_LWIP_UDP_SOCKETS];
static uint32_t dropped;

static udp_socket_t *socket_of(zq_socket_t sock)
{
    int slot = sock - UDP_HANDLE_BASE;
    if (slot < 0 || slot >= ZQ_LWIP_UDP_SOCKETS || sockets[slot].pcb == NULL) {
        return NULL;
    }
    return &sockets[slot];
}

static void on_datagram(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                        u16_t port)
{
    (void)pcb;
    udp_socket_t *s = arg;
    if (s->count == ZQ_LWIP_UDP_QUEUE) {
        dropped++;
        pbuf_free(p);
        return;
    }
    udp_datagram_t *d = &s->ring[(s->head + s->count) % ZQ_LWIP_UDP_QUEUE];
    d->p = p; /* ours now: freed when read */
    zq_lwip_addr_from_ip(addr, port, &d->from);
    s->count++;
}

zq_err_t zq_port_udp_open(zq_socket_t *sock, const zq_addr_t *bind_addr, zq_addr_t *bound)
{
    ip_addr_t ip;
    if (zq_lwip_ip_from_addr(bind_addr, &ip) != ZQ_OK) {
        return ZQ_ERR_INVALID_ARG;
    }
    int slot = 0;
    while (slot < ZQ_LWIP_UDP_SOCKETS && sockets[slot].pcb != NULL) {
        slot++;
    }
    if (slot == ZQ_LWIP_UDP_SOCKETS) {
        ZQ_LOGW("udp", "all %d sockets are open (ZQ_LWIP_UDP_SOCKETS)", ZQ_LWIP_UDP_SOCKETS);
        return ZQ_ERR_NO_SPACE;
    }
    struct udp_pcb *pcb = udp_new();
    if (pcb == NULL) {
        ZQ_LOGW("udp", "no UDP PCB left (MEMP_NUM_UDP_PCB)");
        return ZQ_ERR_IO;
    }
    err_t err = udp_bind(pcb, &ip, bind_addr->port);
    if (err != ERR_OK) {
        ZQ_LOGW("udp", "bind to port %u: lwIP error %d", (unsigned)bind_addr->port, (int)err);
        udp_remove(pcb);
        return ZQ_ERR_IO;
    }
    udp_socket_t *s = &sockets[slot];
    memset(s, 0, sizeof *s);
    s->pcb = pcb;
    udp_recv(pcb, on_datagram, s);
    zq_lwip_addr_from_ip(&pcb->local_ip, pcb->local_port, bound);
    *sock = UDP_HANDLE_BASE + slot;
    return ZQ_OK;
}

zq_err_t zq_port_udp_send(zq_socket_t sock, const zq_addr_t *to, const uint8_t *data, size_t len)
{
    udp_socket_t *s = socket_of(sock);
    ip_addr_t ip;
    if (s == NULL || zq_lwip_ip_from_addr(to, &ip) != ZQ_OK || len > 0xffffu) {
        return ZQ_ERR_INVALID_ARG;
    }
    /* PBUF_RAM: one buffer from lwIP's static heap, headers reserved in front. */
    struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_RAM);
    if (p == NULL) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    memcpy(p->payload, data, len);
    err_t err = udp_sendto(s->pcb, p, &ip, to->port);
    pbuf_free(p);
    if (err == ERR_MEM || err == ERR_BUF) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    return err == ERR_OK ? ZQ_OK : ZQ_ERR_IO; /* ERR_RTE: no route, said by the caller */
}

zq_err_t zq_port_udp_recv(zq_socket_t sock, zq_addr_t *from, uint8_t *buf, size_t cap,
                          size_t *len)
{
    udp_socket_t *s = socket_of(sock);
    if (s == NULL) {
        return ZQ_ERR_INVALID_ARG;
    }
    if (s->count == 0) {
        return ZQ_ERR_WOULD_BLOCK;
    }
    udp_datagram_t *d = &s->ring[s->head];
    s->head = (uint8_t)((s->head + 1u) % ZQ_LWIP_UDP_QUEUE);
    s->count--;
    size_t n = d->p->tot_len;
    zq_err_t err = ZQ_ERR_NO_SPACE; /* dropped, not truncated */
    if (n <= cap) {
        *len = pbuf_copy_partial(d->p, buf, (u16_t)n, 0);
        *from = d->from;
        err = ZQ_OK;
    }
    pbuf_free(d->p);
    d->p = NULL;
    return err;
}

void zq_port_udp_close(zq_socket_t sock)
{
    udp_socket_t *s = socket_of(sock);
    if (s == NULL) {
        return;
    }
    while (s->count > 0) {
        pbuf_free(s->ring[s->head].p);
        s->head = (uint8_t)((s->head + 1u) % ZQ_LWIP_UDP_QUEUE);
        s->count--;
    }
    udp_remove(s->pcb);
    s->pcb = NULL;
}

uint32_t zq_lwip_udp_dropped(void)
{
    return dropped;
}

/* lwIP 2.1 for the firmware on the MPS2-AN386 board: the raw API only, NO_SYS=1 (one main
 * loop, no RTOS, no locks: lwIP runs only inside board_net_poll() and sys_check_timeouts(),
 * both called from the loop), IPv4 with ARP, ICMP (ping), UDP for the node's datagrams, TCP
 * for the signalling WebSocket. Every buffer is one of lwIP's static pools or its static heap
 * (ram_heap, MEM_SIZE): no malloc (MEM_LIBC_MALLOC and MEMP_MEM_MALLOC are 0).
 *
 * Sized for zq's traffic: datagrams of at most 1,200 bytes (no IP fragments either way), one
 * TCP connection whose messages are at most 4 KiB (a browser's offer), a few peers. What each
 * pool weighs is printed by scripts/firmware report from the image's map. */
#ifndef ZQ_BOARD_LWIPOPTS_H
#define ZQ_BOARD_LWIPOPTS_H

#include <stdint.h>

#define NO_SYS 1
#define SYS_LIGHTWEIGHT_PROT 0 /* the SysTick interrupt never touches lwIP */
#define LWIP_SOCKET 0
#define LWIP_NETCONN 0
#define LWIP_NETIF_API 0

/* ---- Memory: static pools and heap ---------------------------------------------------- */
#define MEM_LIBC_MALLOC 0
#define MEMP_MEM_MALLOC 0
#define MEM_ALIGNMENT 4
/* The heap holds PBUF_RAM buffers: each UDP datagram while it is sent, TCP segments waiting
 * for their ACK (TCP_SND_BUF), ARP's queued packet. */
#define MEM_SIZE (10 * 1024)
/* Received frames: the driver takes one per frame, the port queues up to ZQ_LWIP_UDP_QUEUE of
 * them per UDP socket and a TCP window's worth until the loop reads them. */
#define PBUF_POOL_SIZE 10
#define PBUF_POOL_BUFSIZE 1536 /* a whole Ethernet frame in one pbuf */
#define MEMP_NUM_PBUF 4
#define MEMP_NUM_UDP_PCB 2     /* ZQ_LWIP_UDP_SOCKETS */
#define MEMP_NUM_TCP_PCB 2     /* ZQ_LWIP_TCP_SOCKETS */
#define MEMP_NUM_TCP_PCB_LISTEN 1
#define MEMP_NUM_TCP_SEG 12
#define MEMP_NUM_REASSDATA 0
#define MEMP_NUM_FRAG_PBUF 0
#define MEMP_NUM_ARP_QUEUE 2
#define ARP_TABLE_SIZE 6       /* the gateway, the server, a few browsers */
#define ARP_QUEUEING 1

/* ---- Protocols ----------------------------------------------------------------------------- */
#define LWIP_IPV4 1
#define LWIP_IPV6 0
#define LWIP_ARP 1
#define LWIP_ETHERNET 1
#define LWIP_ICMP 1
#define LWIP_RAW 0
#define LWIP_UDP 1
#define LWIP_TCP 1
#define LWIP_DHCP 0 /* the address comes from the configuration block */
#define LWIP_AUTOIP 0
#define LWIP_IGMP 0
#define LWIP_DNS 0  /* the signalling URL names the server by its address */
#define IP_REASSEMBLY 0 /* zq's datagrams fit a frame: a fragment is dropped */
#define IP_FRAG 0

/* ---- TCP: the signalling WebSocket -------------------------------------------------------- */
#define TCP_MSS 1460
#define TCP_WND (4 * TCP_MSS)
#define TCP_SND_BUF (4 * TCP_MSS)
#define TCP_SND_QUEUELEN (2 * TCP_SND_BUF / TCP_MSS)
#define TCP_QUEUE_OOSEQ 0 /* a LAN rarely reorders; the sender retransmits */
#define LWIP_TCP_KEEPALIVE 0

/* ---- Interface, checks, randomness -------------------------------------------------------- */
#define LWIP_NETIF_STATUS_CALLBACK 0
#define LWIP_NETIF_LINK_CALLBACK 0
#define LWIP_SINGLE_NETIF 1
#define LWIP_STATS 0
#define LWIP_CHKSUM_ALGORITHM 3
/* TCP's initial sequence numbers and local ports: from zq's generator (port/lwip). */
uint32_t zq_lwip_rand32(void);
#define LWIP_RAND() zq_lwip_rand32()

#endif /* ZQ_BOARD_LWIPOPTS_H */

/**
 * @file zq_lwip.h
 * @brief zq on any microcontroller that runs lwIP's raw API with NO_SYS=1 (no RTOS: callbacks
 *        and one main loop): port/zq_port.h over lwIP's udp_pcb and tcp_pcb, and a runner that
 *        feeds host/host.h, the same host every zq program and the ESP32 run.
 *
 * A board (board/<name>/) gives the port five functions, at link time, and nothing else:
 *
 * | function                    | what the board does                                          |
 * |-----------------------------|--------------------------------------------------------------|
 * | zq_lwip_board_now_ms()      | its millisecond clock (SysTick)                               |
 * | zq_lwip_board_service()     | received frames (a few) into lwIP (netif->input), its timers |
 * | zq_lwip_board_idle()        | sleeps until the next interrupt (WFI): the loop has no work  |
 * | zq_lwip_board_entropy()     | true random bytes: its TRNG (the one place a board plugs it) |
 * | zq_lwip_board_console()     | a line of text to its console (a UART)                       |
 *
 * Every lwIP callback runs inside zq_lwip_board_service(), called from the runner's loop (or
 * from a bounded wait of the port's TCP connect and the WebSocket's opening): one context, no
 * locks. The port's sockets are small static tables (ZQ_LWIP_UDP_SOCKETS, ZQ_LWIP_TCP_SOCKETS);
 * what arrives waits as lwIP's own pbufs, a bounded number per socket, until the loop reads it.
 */
#ifndef ZQ_PORT_LWIP_ZQ_LWIP_H
#define ZQ_PORT_LWIP_ZQ_LWIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "port/arena/arena.h"
#include "port/zq_port.h"

/* ---- Capacities (compile time, checked) ------------------------------------------------- */

/** UDP sockets: the node's one, and one spare (a STUN probe, a test). */
#ifndef ZQ_LWIP_UDP_SOCKETS
#define ZQ_LWIP_UDP_SOCKETS 2
#endif
/** Datagrams waiting per UDP socket; one more is dropped and counted (ICE, DTLS and SCTP
 *  retransmit). Each holds a pbuf of the board's pool until the loop reads it. */
#ifndef ZQ_LWIP_UDP_QUEUE
#define ZQ_LWIP_UDP_QUEUE 6
#endif
/** TCP connections: the signalling WebSocket, and one spare while a new one opens. */
#ifndef ZQ_LWIP_TCP_SOCKETS
#define ZQ_LWIP_TCP_SOCKETS 2
#endif
/** mbedTLS's arena (port/lwip/mbedtls_arena.c): the identity (~4 KiB), each established DTLS
 *  session (~5 KiB) and each handshake while it runs (~12 KiB more; docs/footprint.md). */
#ifndef ZQ_LWIP_MBEDTLS_ARENA
#define ZQ_LWIP_MBEDTLS_ARENA (40 * 1024)
#endif

#if ZQ_LWIP_UDP_SOCKETS < 1 || ZQ_LWIP_UDP_SOCKETS > 16
#error "ZQ_LWIP_UDP_SOCKETS must be 1..16"
#endif
#if ZQ_LWIP_UDP_QUEUE < 1 || ZQ_LWIP_UDP_QUEUE > 64
#error "ZQ_LWIP_UDP_QUEUE must be 1..64"
#endif
#if ZQ_LWIP_TCP_SOCKETS < 1 || ZQ_LWIP_TCP_SOCKETS > 16
#error "ZQ_LWIP_TCP_SOCKETS must be 1..16"
#endif
#if ZQ_LWIP_MBEDTLS_ARENA < 8192
#error "ZQ_LWIP_MBEDTLS_ARENA below 8 KiB cannot hold the identity and one handshake"
#endif

/* ---- What the board defines ------------------------------------------------------------- */

uint64_t zq_lwip_board_now_ms(void);
/** @return whether any frame came in (more may wait: the runner turns again at once). */
bool zq_lwip_board_service(void);
void zq_lwip_board_idle(void);
/** Fills @p out with @p len true random bytes. @return 0, or non-zero when the source has
 *  none (the DRBG then refuses to run: no key is ever made from a guess). */
int zq_lwip_board_entropy(uint8_t *out, size_t len);
void zq_lwip_board_console(const char *text, size_t len);

/* ---- What the port adds ------------------------------------------------------------------ */

/** 32 random bits for lwIP (its LWIP_RAND(): TCP sequence numbers, local ports). */
uint32_t zq_lwip_rand32(void);

/** Datagrams a full UDP queue dropped, since boot (all sockets). */
uint32_t zq_lwip_udp_dropped(void);

/** mbedTLS's arena: in use, peak and refusals (port/arena/arena.h). */
void zq_lwip_mbedtls_arena_stats(zq_arena_stats_t *stats);

/** Sets the wall clock (UTC seconds since 1970) to @p unix_s now: what a `wss://` client checks
 *  the server certificate's dates against (RFC 5280 §4.1.2.5). From the board's RTC or SNTP;
 *  the emulated board's configuration block carries it (`time=`, scripts/firmware). */
void zq_lwip_wall_clock_set(int64_t unix_s);
/** Whether the wall clock was set: without it no certificate's dates can be checked. */
bool zq_lwip_wall_clock_known(void);
/** The wall clock (mbedTLS's mbedtls_time() in an image with TLS); (time_t)-1 while unset. */
time_t zq_lwip_wall_time(time_t *out);

/** Writes a formatted line (a newline is added) to the board's console. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void zq_lwip_printf(const char *fmt, ...);

#endif /* ZQ_PORT_LWIP_ZQ_LWIP_H */

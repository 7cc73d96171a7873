/**
 * @file zq_port.h
 * @brief The port contract: the only place zq meets an operating system.
 *
 * The portable core (core/, stack/, broker/, signal/) never calls these; programs and the node
 * glue do, and hand the results to the sans-IO layers (`now`, random bytes, datagrams). Each
 * port (port/posix, port/esp32) implements every function here; one port is linked per binary.
 */
#ifndef ZQ_PORT_H
#define ZQ_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/addr.h"
#include "zq/err.h"
#include "zq/rand.h"

/** Installs the log sink and whatever the port needs once. Call first. */
zq_err_t zq_port_init(void);

/** Monotonic milliseconds since an arbitrary origin; never goes back. */
uint64_t zq_port_now_ms(void);

/** A zq_rand_t over the OS's cryptographic random source. */
zq_rand_t zq_port_rand(void);

/** A UDP socket handle (a file descriptor on POSIX and on lwIP). */
typedef int zq_socket_t;
#define ZQ_SOCKET_INVALID (-1)

/**
 * Opens a non-blocking UDP socket bound to @p bind_addr (port 0 picks one) and reports the
 * address actually bound in @p bound.
 * @return ZQ_OK, ZQ_ERR_IO (with the reason logged) or ZQ_ERR_INVALID_ARG.
 */
zq_err_t zq_port_udp_open(zq_socket_t *sock, const zq_addr_t *bind_addr, zq_addr_t *bound);

/** Sends one datagram. @return ZQ_OK, ZQ_ERR_WOULD_BLOCK, or ZQ_ERR_IO. */
zq_err_t zq_port_udp_send(zq_socket_t sock, const zq_addr_t *to, const uint8_t *data, size_t len);

/**
 * Receives one datagram if one is waiting.
 * @return ZQ_OK with @p len set, ZQ_ERR_WOULD_BLOCK if none, ZQ_ERR_NO_SPACE if it was longer
 *         than @p cap (it is dropped, not truncated), ZQ_ERR_IO otherwise.
 */
zq_err_t zq_port_udp_recv(zq_socket_t sock, zq_addr_t *from, uint8_t *buf, size_t cap,
                          size_t *len);

void zq_port_udp_close(zq_socket_t sock);

/**
 * The host's own unicast addresses usable as ICE host candidates (up, not link-local IPv6).
 * @return how many were written to @p out (at most @p cap).
 */
size_t zq_port_host_addresses(zq_addr_t *out, size_t cap, bool include_loopback);

#endif /* ZQ_PORT_H */

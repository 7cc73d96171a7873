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

/** A UDP or TCP socket handle (a file descriptor on POSIX and on lwIP). */
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

/* ---- TCP ------------------------------------------------------------------------------------
 * Byte streams for the signalling WebSocket (RFC 6455 runs over TCP). Every socket these
 * functions hand out is non-blocking: a program waits for readiness in its event loop, never in
 * a send or a receive. Sends never raise SIGPIPE; a peer that went away is ZQ_ERR_CLOSED.
 */

/**
 * Opens a non-blocking TCP listener on @p bind_addr (port 0 picks one), with SO_REUSEADDR so a
 * restarted server does not wait out TIME_WAIT, and reports the address bound in @p bound
 * (may be NULL). An IPv6 listener takes IPv6 only, like zq_port_udp_open().
 * @return ZQ_OK; ZQ_ERR_STATE when the address is in use (another listener holds it: a program
 *         says so in words of its own); ZQ_ERR_INVALID_ARG for an address without a family;
 *         ZQ_ERR_IO otherwise (with the reason logged).
 */
zq_err_t zq_port_tcp_listen(zq_socket_t *sock, const zq_addr_t *bind_addr, zq_addr_t *bound);

/**
 * Takes one waiting connection from @p listener. The new socket is non-blocking, with
 * TCP_NODELAY (signalling frames are small and latency matters more than packet count).
 * @param peer the remote address; may be NULL.
 * @return ZQ_OK; ZQ_ERR_WOULD_BLOCK if none is waiting (also when one was aborted by its peer
 *         while it waited); ZQ_ERR_IO otherwise (e.g. out of file descriptors; reason logged).
 */
zq_err_t zq_port_tcp_accept(zq_socket_t listener, zq_socket_t *conn, zq_addr_t *peer);

/**
 * Connects to @p to, waiting at most @p timeout_ms (the only call here that waits), then
 * leaves the socket non-blocking, with TCP_NODELAY.
 * @return ZQ_OK; ZQ_ERR_TIMEOUT; ZQ_ERR_IO when refused or unreachable (reason logged);
 *         ZQ_ERR_INVALID_ARG for an address without a family.
 */
zq_err_t zq_port_tcp_connect(zq_socket_t *sock, const zq_addr_t *to, uint32_t timeout_ms);

/**
 * The same without waiting, for a port with an event loop (port/bsd): _start() leaves @p sock
 * connecting; once it is writable (or the caller's own deadline passed: then it closes it),
 * _finish() says how it went and, on ZQ_ERR_IO, closes it.
 * @return ZQ_OK; ZQ_ERR_IO (refused, unreachable: reason logged); ZQ_ERR_INVALID_ARG.
 */
zq_err_t zq_port_tcp_connect_start(zq_socket_t *sock, const zq_addr_t *to);
zq_err_t zq_port_tcp_connect_finish(zq_socket_t sock, const zq_addr_t *to);

/**
 * Sends what fits of @p data now: a partial send is normal, @p sent says how much went.
 * @return ZQ_OK (@p sent > 0, or @p len was 0); ZQ_ERR_WOULD_BLOCK when nothing fit (@p sent
 *         is 0: wait for writability); ZQ_ERR_CLOSED when the peer is gone (EPIPE, reset);
 *         ZQ_ERR_IO otherwise (reason logged).
 */
zq_err_t zq_port_tcp_send(zq_socket_t sock, const uint8_t *data, size_t len, size_t *sent);

/**
 * Receives what is waiting, up to @p cap (> 0) bytes.
 * @return ZQ_OK with @p len > 0; ZQ_ERR_WOULD_BLOCK if nothing is waiting; ZQ_ERR_CLOSED on
 *         the peer's orderly shutdown (end of stream) or a reset; ZQ_ERR_INVALID_ARG for a
 *         zero @p cap; ZQ_ERR_IO otherwise (reason logged).
 */
zq_err_t zq_port_tcp_recv(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len);

/** What zq_port_tcp_recv() would return, leaving the bytes in the socket for the next read:
 *  the WebSocket client reads the server's upgrade answer and not one byte past it. */
zq_err_t zq_port_tcp_peek(zq_socket_t sock, uint8_t *buf, size_t cap, size_t *len);

/**
 * Waits until @p sock is readable (or writable, with @p write) or zq_port_now_ms() reaches
 * @p deadline. Only the bounded opening of a connection waits (the WebSocket handshake);
 * an event loop never does.
 * @return ZQ_OK when ready; ZQ_ERR_TIMEOUT; ZQ_ERR_IO otherwise (reason logged).
 */
zq_err_t zq_port_tcp_wait(zq_socket_t sock, bool write, uint64_t deadline);

/** Closes a listener or a connection; ZQ_SOCKET_INVALID is ignored. */
void zq_port_tcp_close(zq_socket_t sock);

/**
 * The host's own unicast addresses usable as ICE host candidates (up, not link-local IPv6).
 * @return how many were written to @p out (at most @p cap).
 */
size_t zq_port_host_addresses(zq_addr_t *out, size_t cap, bool include_loopback);

#endif /* ZQ_PORT_H */

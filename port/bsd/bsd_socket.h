/**
 * @file bsd_socket.h
 * @brief The BSD-socket code both ports share (port/bsd/): zq_addr_t <-> sockaddr, the UDP and
 *        TCP calls of port/zq_port.h, and a bounded wait on one socket (port/ws/ws_socket.h builds
 *        the WebSocket client's socket side on them).
 *
 * Linux and lwIP (ESP-IDF, which defines ESP_PLATFORM) both offer the BSD socket API, so one
 * implementation serves both. What differs is said once here (headers, flags, how errors are
 * logged) or is one of the few functions each port defines (port/posix/bsd_posix.c,
 * port/esp32/bsd_lwip.c).
 */
#ifndef ZQ_PORT_BSD_SOCKET_H
#define ZQ_PORT_BSD_SOCKET_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#if defined(ESP_PLATFORM)
#include "lwip/sockets.h"
#if !LWIP_IPV6 /* lwIP then has no sockaddr_in6, IPPROTO_IPV6 or IPV6_V6ONLY */
#error "zq's ESP32 port needs lwIP's IPv6: CONFIG_LWIP_IPV6=y (ESP-IDF's default)"
#endif
/* lwIP's structures carry a length byte (sin_len), which lwIP's own code fills in. */
#define ZQ_BSD_SIN_LEN 1
/* lwIP raises no SIGPIPE: a send to a closed peer is an error code without a flag. */
#define ZQ_BSD_SEND_FLAGS 0
/* lwIP's recvmsg() takes no MSG_TRUNC; it returns a datagram's full length and sets MSG_TRUNC
 * in msg_flags when it did not fit (esp-lwip src/api/sockets.c). */
#define ZQ_BSD_RECVMSG_FLAGS 0
/* Connections a listener holds before accept(): a device serves few (lwIP's own limit is
 * CONFIG_LWIP_MAX_ACTIVE_TCP). */
#define ZQ_BSD_TCP_BACKLOG 4
/* errno numbers, not strerror()'s texts: the table of texts costs flash, and the device's log
 * is read next to lwIP's errno.h. */
#define ZQ_BSD_ERR_FMT "errno %d"
#define ZQ_BSD_ERR_ARG(e) (e)
#else
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#define ZQ_BSD_SIN_LEN 0
/* MSG_NOSIGNAL: a closed peer is an error code, not a SIGPIPE that ends the program. */
#define ZQ_BSD_SEND_FLAGS MSG_NOSIGNAL
/* MSG_TRUNC makes Linux return a datagram's real length (and set MSG_TRUNC in msg_flags). */
#define ZQ_BSD_RECVMSG_FLAGS MSG_TRUNC
/* Connections a listener lets the kernel hold before accept(): a browser page opens two
 * WebSockets at once, and a test may open hundreds in a burst. */
#define ZQ_BSD_TCP_BACKLOG 512
#define ZQ_BSD_ERR_FMT "%s"
#define ZQ_BSD_ERR_ARG(e) strerror(e)
#endif

#include "port/zq_port.h"
#include "zq/addr.h"
#include "zq/err.h"

/* ---- Shared (port/bsd/sockaddr.c) ------------------------------------------------------------ */

/**
 * Fills @p ss from @p addr (IPv6 scope id 0: zq uses no link-local addresses).
 * @return the length to pass to bind()/sendto()/connect(), or 0 if @p addr has no usable family.
 */
socklen_t zq_bsd_sockaddr_from_addr(const zq_addr_t *addr, struct sockaddr_storage *ss);

/** Reads an AF_INET or AF_INET6 socket address. @return ZQ_OK or ZQ_ERR_UNSUPPORTED. */
zq_err_t zq_bsd_addr_from_sockaddr(const struct sockaddr *sa, zq_addr_t *out);

/**
 * Waits until @p fd is writable (@p write) or readable, or until @p deadline (zq_port_now_ms()).
 * @return ZQ_OK, also when the socket has an error (the next call on it says which);
 *         ZQ_ERR_TIMEOUT; ZQ_ERR_IO if waiting itself failed.
 */
zq_err_t zq_bsd_wait(int fd, bool write, uint64_t deadline);

/* ---- Each port's own ------------------------------------------------------------------------ */

/** A new non-blocking socket (AF_INET/AF_INET6, SOCK_DGRAM/SOCK_STREAM). @return the fd, or -1
 *  with errno set. */
int zq_bsd_socket(int family, int type);

/** accept() whose socket is non-blocking; EINTR is retried. @return the fd, or -1 with errno. */
int zq_bsd_accept(int listener, struct sockaddr *sa, socklen_t *len);

/** One wait of at most @p timeout_ms for @p fd. @return > 0 ready, 0 timed out, < 0 with errno
 *  set (EINTR included). */
int zq_bsd_poll(int fd, bool write, uint64_t timeout_ms);

/** Whether a send()/sendto() failure with errno @p e means "not now" rather than an error. */
bool zq_bsd_send_busy(int e);

#endif /* ZQ_PORT_BSD_SOCKET_H */

/**
 * @file esp32_sockaddr.h
 * @brief zq_addr_t and lwIP's socket addresses, the one place they meet (internal to
 *        port/esp32; the same job as port/posix/sockaddr.h, over lwIP's structures).
 *
 * zq_addr_t keeps the port in host order and the IP in network order; lwIP's sockaddr_in/in6
 * (BSD-style, with a length byte) keep both in network order.
 */
#ifndef ZQ_PORT_ESP32_SOCKADDR_H
#define ZQ_PORT_ESP32_SOCKADDR_H

#include "lwip/sockets.h"
#include "zq/addr.h"
#include "zq/err.h"

/** Fills @p ss from @p addr. @return the length for bind()/sendto()/connect(), or 0 if @p addr
 *  has no usable family. */
socklen_t zq_esp32_sockaddr_from_addr(const zq_addr_t *addr, struct sockaddr_storage *ss);

/** Reads an AF_INET or AF_INET6 address. @return ZQ_OK or ZQ_ERR_UNSUPPORTED. */
zq_err_t zq_esp32_addr_from_sockaddr(const struct sockaddr *sa, zq_addr_t *out);

/** Makes @p fd non-blocking (lwIP's socket() takes no SOCK_NONBLOCK flag: fcntl() does it,
 *  as the ESP-IDF lwIP guide says). @return 0, or -1 with errno set. */
int zq_esp32_set_nonblocking(int fd);

#endif /* ZQ_PORT_ESP32_SOCKADDR_H */

/**
 * @file sockaddr.h
 * @brief The one place where zq_addr_t meets struct sockaddr (internal to the POSIX port).
 *
 * zq_addr_t keeps the port in host order and the IP in network order; sockaddr_in/in6 keep both
 * in network order. Every conversion of the port goes through these two functions so the byte
 * order is decided once.
 */
#ifndef ZQ_PORT_POSIX_SOCKADDR_H
#define ZQ_PORT_POSIX_SOCKADDR_H

#include <sys/socket.h>

#include "zq/addr.h"
#include "zq/err.h"

/**
 * Fills @p ss from @p addr (IPv6 scope id 0: zq uses no link-local addresses).
 * @return the length to pass to bind()/sendto(), or 0 if @p addr has no usable family.
 */
socklen_t zq_posix_sockaddr_from_addr(const zq_addr_t *addr, struct sockaddr_storage *ss);

/** Reads an AF_INET or AF_INET6 socket address. @return ZQ_OK or ZQ_ERR_UNSUPPORTED. */
zq_err_t zq_posix_addr_from_sockaddr(const struct sockaddr *sa, zq_addr_t *out);

#endif /* ZQ_PORT_POSIX_SOCKADDR_H */

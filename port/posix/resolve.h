/**
 * @file resolve.h
 * @brief Host names to addresses on this machine: getaddrinfo(), which may query DNS (I/O,
 *        so the port's). Numeric text ("127.0.0.1", "::1") resolves to itself.
 */
#ifndef ZQ_PORT_POSIX_RESOLVE_H
#define ZQ_PORT_POSIX_RESOLVE_H

#include <stdint.h>

#include "zq/addr.h"
#include "zq/err.h"

/**
 * The first address of @p name (NUL-terminated) of @p family (ZQ_AF_INET4, ZQ_AF_INET6, or
 * ZQ_AF_NONE for either), port 0. Waits for the resolver.
 * @return ZQ_OK or ZQ_ERR_NOT_FOUND.
 */
zq_err_t zq_posix_resolve(const char *name, uint8_t family, zq_addr_t *out);

#endif /* ZQ_PORT_POSIX_RESOLVE_H */

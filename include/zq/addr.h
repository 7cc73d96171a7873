/**
 * @file addr.h
 * @brief Transport addresses (IPv4/IPv6 + UDP port) and their text forms, with no libc sockets.
 *
 * The portable core cannot rely on inet_pton/inet_ntop (not every embedded libc has them), so
 * zq parses and formats addresses itself. IPv6 text follows RFC 5952 (lower case, the longest
 * run of zero groups compressed) so what zq logs matches what Wireshark shows.
 */
#ifndef ZQ_ADDR_H
#define ZQ_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zq/bytes.h"
#include "zq/err.h"

enum { ZQ_AF_NONE = 0, ZQ_AF_INET4 = 4, ZQ_AF_INET6 = 6 };

/** Longest text form: "[ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255]:65535" plus NUL. */
#define ZQ_ADDR_TEXT_MAX 56

typedef struct {
    uint8_t family; /**< ZQ_AF_INET4, ZQ_AF_INET6 or ZQ_AF_NONE */
    uint16_t port;  /**< host byte order */
    uint8_t ip[16]; /**< network byte order; IPv4 uses the first 4 bytes, the rest stay 0 */
} zq_addr_t;

/** An IPv4 address from four octets and a port. */
zq_addr_t zq_addr_v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port);

/** Same family, IP and port. */
bool zq_addr_equal(const zq_addr_t *a, const zq_addr_t *b);

/** Same family and IP, whatever the port. */
bool zq_addr_same_ip(const zq_addr_t *a, const zq_addr_t *b);

/** 127.0.0.0/8 (RFC 1122 §3.2.1.3) or ::1 (RFC 4291 §2.5.3): traffic that never leaves the
 *  host. */
bool zq_addr_is_loopback(const zq_addr_t *a);

/** Whether a datagram from @p from can reach @p to: the same family, and both loopback or
 *  neither (a loopback address reaches only this host's loopback; the kernel refuses a
 *  datagram between the two). */
bool zq_addr_can_reach(const zq_addr_t *from, const zq_addr_t *to);

/** Parses a bare IPv4 or IPv6 address ("192.0.2.1", "2001:db8::1"); the port is set to 0. */
zq_err_t zq_addr_parse_ip(const char *text, size_t len, zq_addr_t *out);

/** Parses "ip:port" or "[ipv6]:port". */
zq_err_t zq_addr_parse(const char *text, size_t len, zq_addr_t *out);

/** Appends the IP alone to @p w (nothing for ZQ_AF_NONE), as zq_addr_format_ip() writes it. */
void zq_addr_write_ip(zq_writer_t *w, const zq_addr_t *addr);

/** Writes the IP alone, NUL-terminated; returns its length, or 0 if @p cap is too small. */
size_t zq_addr_format_ip(const zq_addr_t *addr, char *out, size_t cap);

/** Writes "ip:port" or "[ipv6]:port", NUL-terminated; returns its length, or 0 if too small. */
size_t zq_addr_format(const zq_addr_t *addr, char *out, size_t cap);

#endif /* ZQ_ADDR_H */

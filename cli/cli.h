/**
 * @file cli.h
 * @brief What the zq program's subcommands share: exit codes, error messages, option and
 *        address parsing. Program code: it prints to stdout/stderr.
 */
#ifndef ZQ_PORT_POSIX_CLI_H
#define ZQ_PORT_POSIX_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "port/posix/loop.h"
#include "zq/addr.h"
#include "zq/err.h"

enum {
    ZQ_CLI_EXIT_OK = 0,    /**< the command did what it was asked */
    ZQ_CLI_EXIT_FAIL = 1,  /**< it could not: timeout, refusal, I/O error */
    ZQ_CLI_EXIT_USAGE = 2, /**< the command line was wrong */
};

#if defined(__GNUC__)
#define ZQ_CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ZQ_CLI_PRINTF(f, a)
#endif

/** Prints "zq <cmd>: <message> (see 'zq <cmd> --help')" to stderr; returns ZQ_CLI_EXIT_USAGE. */
/** What every --signal option's help adds about wss:// (port/posix/ws_client.h), indented for a
 *  value column at @p pad spaces. */
#define ZQ_CLI_WSS_HELP(pad)                                                                   \
    pad "ws:// or wss://; over TLS the server's certificate must chain\n" pad                  \
        "to a CA in $SSL_CERT_FILE (default Debian's bundle,\n" pad                            \
        "/etc/ssl/certs/ca-certificates.crt) and name the host;\n" pad                         \
        "$ZQ_TLS_PIN=sha256/BASE64 pins its key as well\n"

ZQ_CLI_PRINTF(2, 3) int zq_cli_usage_error(const char *cmd, const char *fmt, ...);

/** Prints "zq <cmd>: <message>" to stderr; returns ZQ_CLI_EXIT_FAIL. */
ZQ_CLI_PRINTF(2, 3) int zq_cli_fail(const char *cmd, const char *fmt, ...);

/**
 * Matches an option that takes a value, given as "--name VALUE" or "--name=VALUE".
 * @param[in,out] i  index of the word in @p argv; moved past the value when it is separate
 * @param[out] value  the value (borrowed from @p argv), or NULL when it is missing
 * @return whether argv[*i] is the option @p name
 */
bool zq_cli_take_value(int argc, char **argv, int *i, const char *name, const char **value);

/** Parses a decimal integer within [min, max]. @return ZQ_OK or ZQ_ERR_MALFORMED. */
zq_err_t zq_cli_parse_u32(const char *text, uint32_t min, uint32_t max, uint32_t *out);

/**
 * Parses a numeric address: "IP", "[IPv6]", "IP:PORT" or "[IPv6]:PORT"; a missing port is
 * @p default_port. @return ZQ_OK or ZQ_ERR_MALFORMED.
 */
zq_err_t zq_cli_parse_addr(const char *text, uint16_t default_port, zq_addr_t *out);

/**
 * As zq_cli_parse_addr(), and also "NAME" or "NAME:PORT", resolved by the port
 * (zq_posix_resolve(): getaddrinfo(), which may query DNS). @p family (ZQ_AF_INET4, ZQ_AF_INET6 or ZQ_AF_NONE for any) restricts the
 * answer. @return ZQ_OK, ZQ_ERR_MALFORMED (bad port or text), ZQ_ERR_NOT_FOUND (no address of
 * that family).
 */
zq_err_t zq_cli_resolve(const char *text, uint16_t default_port, uint8_t family, zq_addr_t *out);

/** The unspecified address of @p family (0.0.0.0 or ::) with @p port. */
zq_addr_t zq_cli_any_addr(uint8_t family, uint16_t port);

#endif /* ZQ_PORT_POSIX_CLI_H */

#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port/posix/resolve.h"

ZQ_CLI_PRINTF(2, 0) static void vreport(const char *cmd, const char *fmt, va_list args)
{
    (void)fprintf(stderr, "zq %s: ", cmd);
    (void)vfprintf(stderr, fmt, args);
}

int zq_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vreport(cmd, fmt, args);
    va_end(args);
    (void)fprintf(stderr, " (see 'zq %s --help')\n", cmd);
    return ZQ_CLI_EXIT_USAGE;
}

int zq_cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vreport(cmd, fmt, args);
    va_end(args);
    (void)fputc('\n', stderr);
    return ZQ_CLI_EXIT_FAIL;
}

bool zq_cli_take_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) {
        return false;
    }
    if (arg[n] == '=') {
        *value = arg + n + 1;
        return true;
    }
    if (arg[n] != '\0') {
        return false; /* "--serverX" is another option */
    }
    *value = *i + 1 < argc ? argv[++*i] : NULL;
    return true;
}

zq_err_t zq_cli_parse_u32(const char *text, uint32_t min, uint32_t max, uint32_t *out)
{
    if (text[0] < '0' || text[0] > '9') {
        return ZQ_ERR_MALFORMED; /* strtoul would accept "-1", " 5" and "" */
    }
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max) {
        return ZQ_ERR_MALFORMED;
    }
    *out = (uint32_t)v;
    return ZQ_OK;
}

/* "[2001:db8::1]": brackets with no port. */
static zq_err_t parse_bracketed_ip(const char *text, size_t len, zq_addr_t *out)
{
    if (len < 2 || text[0] != '[' || text[len - 1] != ']') {
        return ZQ_ERR_MALFORMED;
    }
    zq_err_t err = zq_addr_parse_ip(text + 1, len - 2, out);
    return err == ZQ_OK && out->family == ZQ_AF_INET6 ? ZQ_OK : ZQ_ERR_MALFORMED;
}

zq_err_t zq_cli_parse_addr(const char *text, uint16_t default_port, zq_addr_t *out)
{
    size_t len = strlen(text);
    if (zq_addr_parse(text, len, out) == ZQ_OK) {
        return ZQ_OK;
    }
    if (zq_addr_parse_ip(text, len, out) == ZQ_OK ||
        parse_bracketed_ip(text, len, out) == ZQ_OK) {
        out->port = default_port;
        return ZQ_OK;
    }
    return ZQ_ERR_MALFORMED;
}

zq_err_t zq_cli_resolve(const char *text, uint16_t default_port, uint8_t family, zq_addr_t *out)
{
    if (zq_cli_parse_addr(text, default_port, out) == ZQ_OK) {
        return family == ZQ_AF_NONE || out->family == family ? ZQ_OK : ZQ_ERR_NOT_FOUND;
    }
    /* A name, with an optional ":PORT". A name has no ':' itself, so the first one splits. */
    char host[256];
    const char *colon = strchr(text, ':');
    size_t host_len = colon != NULL ? (size_t)(colon - text) : strlen(text);
    if (host_len == 0 || host_len >= sizeof host || (colon != NULL && strchr(colon + 1, ':'))) {
        return ZQ_ERR_MALFORMED;
    }
    uint32_t port = default_port;
    if (colon != NULL && zq_cli_parse_u32(colon + 1, 0, 65535, &port) != ZQ_OK) {
        return ZQ_ERR_MALFORMED;
    }
    memcpy(host, text, host_len);
    host[host_len] = '\0';
    zq_err_t err = zq_posix_resolve(host, family, out);
    out->port = (uint16_t)port;
    return err;
}

zq_addr_t zq_cli_any_addr(uint8_t family, uint16_t port)
{
    zq_addr_t a = {.family = family, .port = port};
    return a;
}

/* The firmware's configuration block (see config_block.h): a bounded line walker. */
#include "port/lwip/config_block.h"

#include <stdbool.h>
#include <string.h>

#include "zq/base64.h"
#include "zq/hex.h"
#include "zq/text.h"

#define DEFAULT_ROOM "default-topic" /* ZeroQ's (zeroq-wire.md), as `zq device`'s */
#define DEFAULT_PERIOD_MS 1000u
#define MAX_PERIOD_MS 3600000u
/* 2100-01-01T00:00:00Z: a later date is a typo, not a clock. */
#define MAX_TIME_S 4102444800u
#define PIN_PREFIX "sha256/"

typedef struct {
    const char *key;
    zq_err_t (*read)(zq_config_block_t *c, const char *v, size_t n, const char **why);
} key_reader_t;

static zq_err_t copy_text(char *dst, size_t cap, const char *v, size_t n, const char **why)
{
    if (n == 0) {
        *why = "the value is empty";
        return ZQ_ERR_MALFORMED;
    }
    if (n >= cap) {
        *why = "the value is too long";
        return ZQ_ERR_TOO_LONG;
    }
    memcpy(dst, v, n);
    dst[n] = '\0';
    return ZQ_OK;
}

static zq_err_t read_ipv4(zq_addr_t *a, const char *v, size_t n, const char **why)
{
    if (zq_addr_parse_ip(v, n, a) != ZQ_OK || a->family != ZQ_AF_INET4) {
        *why = "not a dotted IPv4 address";
        return ZQ_ERR_MALFORMED;
    }
    return ZQ_OK;
}

static zq_err_t read_ip(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    return read_ipv4(&c->ip, v, n, why);
}

static zq_err_t read_netmask(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    return read_ipv4(&c->netmask, v, n, why);
}

static zq_err_t read_gw(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    return read_ipv4(&c->gw, v, n, why);
}

/* Six hex pairs separated by colons: 17 characters exactly. */
static zq_err_t read_mac(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    *why = "not a MAC address (02:00:00:00:00:01)";
    if (n != 17) {
        return ZQ_ERR_MALFORMED;
    }
    for (size_t i = 0; i < 6; i++) {
        int hi = zq_hex_digit(v[3 * i]);
        int lo = zq_hex_digit(v[3 * i + 1]);
        if (hi < 0 || lo < 0 || (i < 5 && v[3 * i + 2] != ':')) {
            return ZQ_ERR_MALFORMED;
        }
        c->mac[i] = (uint8_t)(hi << 4 | lo);
    }
    return ZQ_OK;
}

static zq_err_t read_app(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    static const zq_fw_app_t apps[] = {ZQ_FW_APP_ECHO, ZQ_FW_APP_SENSOR, ZQ_FW_APP_ACTUATOR};
    for (size_t i = 0; i < sizeof apps / sizeof apps[0]; i++) {
        const char *name = zq_config_block_app_name(apps[i]);
        if (strlen(name) == n && memcmp(name, v, n) == 0) {
            c->app = apps[i];
            return ZQ_OK;
        }
    }
    *why = "the app is echo, sensor or actuator";
    return ZQ_ERR_MALFORMED;
}

static zq_err_t read_signal(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    return copy_text(c->signal, sizeof c->signal, v, n, why);
}

static zq_err_t read_room(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    return copy_text(c->room, sizeof c->room, v, n, why);
}

static zq_err_t read_name(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    return copy_text(c->name, sizeof c->name, v, n, why);
}

static zq_err_t read_period(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    uint64_t ms;
    if (zq_parse_udec(v, n, MAX_PERIOD_MS, &ms) != ZQ_OK || ms == 0) {
        *why = "the period is 1 to 3600000 ms";
        return ZQ_ERR_MALFORMED;
    }
    c->period_ms = (uint32_t)ms;
    return ZQ_OK;
}

static zq_err_t read_time(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    uint64_t s;
    if (zq_parse_udec(v, n, MAX_TIME_S, &s) != ZQ_OK) {
        *why = "the time is UTC seconds since 1970 (date +%s), before 2100";
        return ZQ_ERR_MALFORMED;
    }
    c->time_s = s;
    c->has_time = true;
    return ZQ_OK;
}

/* "sha256/" and the base64 of 32 bytes (curl's --pinnedpubkey form, as ZQ_TLS_PIN). */
static zq_err_t read_pin(zq_config_block_t *c, const char *v, size_t n, const char **why)
{
    size_t p = strlen(PIN_PREFIX);
    size_t len = 0;
    *why = "the pin is sha256/ and the base64 of a SHA-256 digest";
    if (n <= p || memcmp(v, PIN_PREFIX, p) != 0 ||
        zq_base64_decode(v + p, n - p, c->pin, sizeof c->pin, &len) != ZQ_OK ||
        len != sizeof c->pin) {
        return ZQ_ERR_MALFORMED;
    }
    c->has_pin = true;
    return ZQ_OK;
}

static const key_reader_t readers[] = {
    {"ip", read_ip},         {"netmask", read_netmask}, {"gw", read_gw},
    {"mac", read_mac},       {"app", read_app},         {"signal", read_signal},
    {"room", read_room},     {"name", read_name},       {"period", read_period},
    {"time", read_time},     {"pin", read_pin},
};
#define N_KEYS (sizeof readers / sizeof readers[0])

static void set_defaults(zq_config_block_t *c)
{
    static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01}; /* locally administered */
    memset(c, 0, sizeof *c);
    c->netmask = zq_addr_v4(255, 255, 255, 0, 0);
    memcpy(c->mac, mac, sizeof mac);
    c->app = ZQ_FW_APP_ECHO;
    memcpy(c->room, DEFAULT_ROOM, sizeof DEFAULT_ROOM);
    c->period_ms = DEFAULT_PERIOD_MS;
}

/* One `key=value` line (without its end). @p seen marks the keys already read. */
static zq_err_t read_line(zq_config_block_t *c, const char *s, size_t n, bool *seen,
                          const char **why)
{
    if (n > 0 && s[n - 1] == '\r') {
        n--;
    }
    if (n == 0 || s[0] == '#') {
        return ZQ_OK;
    }
    const char *eq = memchr(s, '=', n);
    if (eq == NULL) {
        *why = "a line is key=value";
        return ZQ_ERR_MALFORMED;
    }
    size_t klen = (size_t)(eq - s);
    for (size_t i = 0; i < N_KEYS; i++) {
        if (strlen(readers[i].key) == klen && memcmp(readers[i].key, s, klen) == 0) {
            if (seen[i]) {
                *why = "the key is given twice";
                return ZQ_ERR_MALFORMED;
            }
            seen[i] = true;
            return readers[i].read(c, eq + 1, n - klen - 1, why);
        }
    }
    *why = "unknown key";
    return ZQ_ERR_MALFORMED;
}

static zq_err_t check_required(const zq_config_block_t *c, const char **why)
{
    if (c->ip.family != ZQ_AF_INET4) {
        *why = "no ip= line";
        return ZQ_ERR_NOT_FOUND;
    }
    if (c->signal[0] == '\0') {
        *why = "no signal= line";
        return ZQ_ERR_NOT_FOUND;
    }
    return ZQ_OK;
}

zq_err_t zq_config_block_parse(const char *text, size_t len, zq_config_block_t *out,
                               const char **why, unsigned *line)
{
    set_defaults(out);
    *line = 0;
    const char *nul = memchr(text, '\0', len);
    len = nul != NULL ? (size_t)(nul - text) : len;
    if (len > ZQ_CONFIG_BLOCK_MAX) {
        *why = "the block is longer than ZQ_CONFIG_BLOCK_MAX";
        return ZQ_ERR_TOO_LONG;
    }
    bool seen[N_KEYS] = {false};
    size_t at = 0;
    while (at < len) {
        const char *end = memchr(text + at, '\n', len - at);
        size_t n = end != NULL ? (size_t)(end - (text + at)) : len - at;
        (*line)++;
        zq_err_t err = read_line(out, text + at, n, seen, why);
        if (err != ZQ_OK) {
            return err;
        }
        at += n + (end != NULL ? 1 : 0);
    }
    *line = 0;
    return check_required(out, why);
}

const char *zq_config_block_app_name(zq_fw_app_t app)
{
    return app == ZQ_FW_APP_SENSOR ? "sensor" : app == ZQ_FW_APP_ACTUATOR ? "actuator" : "echo";
}

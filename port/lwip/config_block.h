/**
 * @file config_block.h
 * @brief The firmware's settings, read at boot from a block of text the board holds (on the
 *        emulated MPS2 board, a file QEMU's loader places in RAM: scripts/firmware writes it),
 *        so one image serves every app, address, server and room.
 *
 * One `key=value` per line (LF or CRLF), in any order; blank lines and lines starting with
 * `#` are ignored. The block ends at its first NUL or at its length, whichever comes first.
 *
 * | key       | value                                    | default              |
 * |-----------|------------------------------------------|----------------------|
 * | `ip`      | the board's IPv4 address                 | required             |
 * | `netmask` | dotted IPv4 netmask                      | 255.255.255.0        |
 * | `gw`      | the default gateway                      | none                 |
 * | `mac`     | `02:00:00:00:00:01` form                 | 02:00:00:00:00:01    |
 * | `app`     | `echo`, `sensor` or `actuator`           | `echo`               |
 * | `signal`  | `ws://` or `wss://IPv4[:port]/path`      | required             |
 * | `room`    | the room                                 | `default-topic` (ZeroQ's) |
 * | `name`    | the device's name (sensor, actuator)     | `sensor-1` / `actuator-1` |
 * | `period`  | the sensor's reading period, ms          | 1000                 |
 * | `time`    | UTC seconds since 1970 at boot: the wall | none (wss:// then    |
 * |           | clock certificates' dates are checked by | refuses to start)    |
 * | `pin`     | `sha256/BASE64`: the wss:// server's key | none                 |
 *
 * The CA certificates a `wss://` server is checked against are not here (a few KiB of PEM):
 * the board holds them in a block of their own (board.h's trust store).
 *
 * A bounded walker: every value has a fixed buffer, an unknown key, a repeated key, a value
 * too long or malformed is an error that names its line; nothing is guessed.
 */
#ifndef ZQ_PORT_LWIP_CONFIG_BLOCK_H
#define ZQ_PORT_LWIP_CONFIG_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "zq/addr.h"
#include "zq/config.h"
#include "zq/err.h"

/** The longest block read (the board's region for it). */
#define ZQ_CONFIG_BLOCK_MAX 1024
#define ZQ_CONFIG_URL_MAX 192 /* a host name, a port, /ws and a room token (85 characters) */
#define ZQ_CONFIG_NAME_MAX 31

typedef enum { ZQ_FW_APP_ECHO, ZQ_FW_APP_SENSOR, ZQ_FW_APP_ACTUATOR } zq_fw_app_t;

typedef struct {
    zq_addr_t ip;
    zq_addr_t netmask;
    zq_addr_t gw;          /**< ZQ_AF_NONE: no gateway */
    uint8_t mac[6];
    zq_fw_app_t app;
    char signal[ZQ_CONFIG_URL_MAX + 1];
    char room[ZQ_SIG_ROOM_MAX + 1];
    char name[ZQ_CONFIG_NAME_MAX + 1];
    uint32_t period_ms;
    bool has_time;
    uint64_t time_s;       /**< `time`: the wall clock at boot, UTC seconds */
    bool has_pin;
    uint8_t pin[32];       /**< `pin`: SHA-256 of the server's SubjectPublicKeyInfo */
} zq_config_block_t;

/**
 * Reads @p text (at most @p len bytes, up to its first NUL) into @p out.
 * @param why set on failure to a static reason; @param line the failing line (1-based), 0 for
 *        a whole-block problem (a required key missing).
 * @return ZQ_OK; ZQ_ERR_MALFORMED; ZQ_ERR_TOO_LONG (a value, or the block); ZQ_ERR_NOT_FOUND
 *         (a required key missing).
 */
zq_err_t zq_config_block_parse(const char *text, size_t len, zq_config_block_t *out,
                               const char **why, unsigned *line);

/** "echo", "sensor" or "actuator". */
const char *zq_config_block_app_name(zq_fw_app_t app);

#endif /* ZQ_PORT_LWIP_CONFIG_BLOCK_H */

/* The zq firmware image (scripts/firmware): one image for every app, chosen at boot by the
 * configuration block the board holds (port/lwip/config_block.h), on the lwIP port
 * (port/lwip) and a board of board/ (today the MPS2-AN386 under QEMU). Built with TLS
 * (zq_firmware_wss), its signalling may be wss://, checked against the board's trust store.
 *
 * Boot: the board's clock, console and network; the block read; lwIP up with the block's
 * address; then port/lwip's runner with the app: `echo` (what `zq echo` does, node/echo.h),
 * `sensor` or `actuator` (the demo's devices, app/, what `zq device` runs). The console says
 * each step, how long boot took, and the loop's stack high-water mark now and then; a line
 * typed on it (`ip A.B.C.D`) changes the board's address, as a DHCP renewal would. */
#include <string.h>

#include "app/actuator.h"
#include "app/sensor.h"
#include "board.h"
#include "lwip/init.h"
#include "lwip/netif.h"
#include "lwip/timeouts.h"
#include "netif/ethernet.h"
#include "node/echo.h"
#include "port/lwip/config_block.h"
#include "port/lwip/runner.h"
#include "port/lwip/zq_lwip.h"
#include "zq/time.h"

/* How often the console reports the loop's stack high-water mark and the arena. */
#define REPORT_EVERY_MS 10000u

static struct netif netif;
static zq_config_block_t config;
static zq_lwip_runner_t runner; /* large (node, WebSocket buffers): static */
static echo_t echo;
static sensor_t sensor;
static actuator_t actuator;
static size_t seed_used;
static uint64_t next_report;

/* ---- What port/lwip asks of the board (zq_lwip.h) --------------------------------------- */

uint64_t zq_lwip_board_now_ms(void)
{
    return board_now_ms();
}

/* A few frames per turn: the runner reads their datagrams before the next ones come in, so
 * the port's UDP queue (ZQ_LWIP_UDP_QUEUE) never overflows while the controller's FIFO holds
 * the rest of a burst. */
#define FRAMES_PER_SERVICE 4

bool zq_lwip_board_service(void)
{
    size_t frames = board_net_poll(&netif, FRAMES_PER_SERVICE);
    sys_check_timeouts();
    return frames > 0;
}

void zq_lwip_board_idle(void)
{
    board_idle();
}

/* This board has no TRNG: the bytes QEMU's loader placed in RAM at boot stand in for one
 * (scripts/firmware draws them from the host's /dev/urandom). Each byte is used once; when
 * they run out the generator refuses to run rather than repeat them. A real board reads its
 * TRNG here. */
int zq_lwip_board_entropy(uint8_t *out, size_t len)
{
    const uint8_t *seed;
    size_t have = board_seed(&seed);
    if (have - seed_used < len || seed_used > have) {
        zq_lwip_printf("firmware: the entropy seed is used up (%u bytes)", (unsigned)have);
        return -1;
    }
    memcpy(out, seed + seed_used, len);
    seed_used += len;
    return 0;
}

void zq_lwip_board_console(const char *text, size_t len)
{
    board_console_write(text, len);
}

/* ---- The apps ------------------------------------------------------------------------------ */

static void echo_event(void *ctx, uint64_t now, const node_event_t *ev)
{
    (void)ctx;
    echo_handle_event(&echo, now, ev);
}

static void echo_read(void *ctx, uint64_t now)
{
    (void)ctx;
    echo_pump(&echo, now);
}

static zq_err_t echo_start(void *ctx, zq_lwip_runner_t *r, uint64_t now)
{
    (void)ctx;
    (void)now;
    echo_init(&echo, &r->node, 0);
    return ZQ_OK;
}

static void led(void *ctx, bool on)
{
    (void)ctx;
    board_led(on);
    zq_lwip_printf("firmware: LED %s", on ? "on" : "off");
}

static zq_err_t device_start(void *ctx, zq_lwip_runner_t *r, uint64_t now)
{
    (void)ctx;
    if (config.app == ZQ_FW_APP_ACTUATOR) {
        const char *name = config.name[0] != '\0' ? config.name : "actuator-1";
        zq_err_t err = actuator_init(&actuator, &r->brk, now, name, 500, led, NULL);
        return err == ZQ_OK ? actuator_start(&actuator, now) : err;
    }
    const char *name = config.name[0] != '\0' ? config.name : "sensor-1";
    zq_err_t err = sensor_init(&sensor, &r->brk, now, name, config.period_ms,
                               sensor_simulated_read, NULL);
    return err == ZQ_OK ? sensor_start(&sensor, now) : err;
}

static void device_event(void *ctx, uint64_t now, const brk_event_t *ev)
{
    (void)ctx;
    if (config.app == ZQ_FW_APP_ACTUATOR) {
        (void)actuator_handle_event(&actuator, now, ev);
    } else {
        (void)sensor_handle_event(&sensor, now, ev);
    }
}

static void device_idle(void *ctx, uint64_t now)
{
    (void)ctx;
    if (config.app == ZQ_FW_APP_ACTUATOR) {
        actuator_tick(&actuator, now);
    } else {
        sensor_tick(&sensor, now);
    }
}

static uint64_t device_next_timeout(void *ctx)
{
    (void)ctx;
    return config.app == ZQ_FW_APP_ACTUATOR ? actuator_next_timeout(&actuator)
                                            : sensor_next_timeout(&sensor);
}

static const zq_lwip_callbacks_t echo_callbacks = {
    .on_start = echo_start,
    .host = {.on_node_event = echo_event, .on_read = echo_read},
};

static const zq_lwip_callbacks_t device_callbacks = {
    .on_start = device_start,
    .host = {.on_event = device_event, .on_idle = device_idle,
             .next_timeout = device_next_timeout},
};

/* ---- Boot ---------------------------------------------------------------------------------- */

static bool read_config(void)
{
    const char *text = board_config_text();
    const char *why = "";
    unsigned line = 0;
    if (zq_config_block_parse(text, ZQ_CONFIG_BLOCK_MAX, &config, &why, &line) != ZQ_OK) {
        zq_lwip_printf("firmware: configuration block, line %u: %s", line, why);
        return false;
    }
    return true;
}

static void to_ip4(const zq_addr_t *a, ip4_addr_t *ip)
{
    IP4_ADDR(ip, a->ip[0], a->ip[1], a->ip[2], a->ip[3]);
}

static bool start_network(void)
{
    ip4_addr_t ip;
    ip4_addr_t mask;
    ip4_addr_t gw;
    to_ip4(&config.ip, &ip);
    to_ip4(&config.netmask, &mask);
    if (config.gw.family == ZQ_AF_INET4) {
        to_ip4(&config.gw, &gw);
    } else {
        ip4_addr_set_zero(&gw);
    }
    lwip_init();
    board_set_mac(config.mac);
    if (netif_add(&netif, &ip, &mask, &gw, NULL, board_netif_init, ethernet_input) == NULL) {
        zq_lwip_printf("firmware: the Ethernet controller did not start");
        return false;
    }
    netif_set_default(&netif);
    netif_set_up(&netif);
    netif_set_link_up(&netif);
    return true;
}

/* ---- The console: the emulated board's stand-in for a DHCP server ---------------------------- */

#define CONSOLE_LINE_MAX 64

static char console_line[CONSOLE_LINE_MAX];
static size_t console_len;
static bool console_overflow;

/* `ip A.B.C.D`: the board's address changes, as a DHCP renewal that hands out another would
 * change it (this board has no DHCP server to ask); the runner sees it, moves its socket and
 * rejoins with the new candidates (runner.h). */
static void console_command(const char *line, size_t len)
{
    zq_addr_t a;
    if (len > 3 && memcmp(line, "ip ", 3) == 0 &&
        zq_addr_parse_ip(line + 3, len - 3, &a) == ZQ_OK && a.family == ZQ_AF_INET4) {
        ip4_addr_t ip;
        to_ip4(&a, &ip);
        netif_set_ipaddr(&netif, &ip);
        zq_lwip_printf("firmware: console: address now %u.%u.%u.%u", a.ip[0], a.ip[1], a.ip[2],
                       a.ip[3]);
        return;
    }
    zq_lwip_printf("firmware: console: unknown command (ip A.B.C.D)");
}

/* Whole lines from the console, each a command; a line too long is refused whole. */
static void read_console(void)
{
    int ch;
    while ((ch = board_console_getc()) >= 0) {
        if (ch != '\r' && ch != '\n') {
            if (console_len < sizeof console_line) {
                console_line[console_len++] = (char)ch;
            } else {
                console_overflow = true;
            }
            continue;
        }
        if (console_overflow) {
            zq_lwip_printf("firmware: console: a line of more than %u characters, ignored",
                           (unsigned)sizeof console_line);
        } else if (console_len > 0) {
            console_command(console_line, console_len);
        }
        console_len = 0;
        console_overflow = false;
    }
}

/* Each open peer's SCTP state: what a stalled transfer shows first. */
static void report_peers(void)
{
    for (int i = 0; i < ZQ_NODE_MAX_PEERS; i++) {
        const node_peer_t *np = &runner.node.peers[i];
        if (!np->used) {
            continue;
        }
        const sctp_assoc_t *a = &np->peer.sctp;
        zq_lwip_printf("firmware: peer %s: sctp flight %u cwnd %u peer window %u, our ring %u "
                       "of %u used, %u waiting, %u to retransmit, blocked %d, rto %u",
                       np->id, (unsigned)a->flight, (unsigned)a->cwnd, (unsigned)a->peer_rwnd,
                       (unsigned)a->in.used, (unsigned)a->in.cap, (unsigned)a->n_waiting,
                       (unsigned)a->n_rtx, a->blocked ? 1 : 0, (unsigned)a->rto);
    }
}

static void report(uint64_t now)
{
    if (now < next_report) {
        return;
    }
    next_report = now + REPORT_EVERY_MS;
    zq_arena_stats_t st;
    zq_lwip_mbedtls_arena_stats(&st);
    zq_lwip_printf("firmware: stack high-water %u of %u bytes, arena %u in use, peak %u, "
                   "%u udp drops",
                   (unsigned)board_stack_high_water(), (unsigned)board_stack_size(),
                   (unsigned)st.in_use, (unsigned)st.peak, (unsigned)zq_lwip_udp_dropped());
    report_peers();
}

int main(void)
{
    board_init();
    zq_lwip_printf("firmware: zq on %s, booted in %lu ms", board_name(),
                   (unsigned long)board_now_ms());
    if (!read_config() || !start_network()) {
        return 1;
    }
    zq_lwip_printf("firmware: app %s, ip %u.%u.%u.%u, signalling %s, room '%s'",
                   zq_config_block_app_name(config.app), config.ip.ip[0], config.ip.ip[1],
                   config.ip.ip[2], config.ip.ip[3], config.signal, config.room);
    if (config.has_time) {
        zq_lwip_wall_clock_set((int64_t)config.time_s); /* this board's RTC: the block's time= */
    }
    zq_lwip_options_t opt = {
        .signal_url = config.signal,
        .room = config.room,
        .broker = config.app != ZQ_FW_APP_ECHO,
        .tls_pin = config.has_pin ? config.pin : NULL,
    };
    opt.ca_pem_len = board_trust(&opt.ca_pem);
    const zq_lwip_callbacks_t *cb =
        config.app == ZQ_FW_APP_ECHO ? &echo_callbacks : &device_callbacks;
    if (zq_lwip_runner_start(&runner, &opt, cb, NULL) != ZQ_OK) {
        return 1;
    }
    for (;;) {
        if (!zq_lwip_runner_turn(&runner)) {
            board_idle();
        }
        read_console();
        report(board_now_ms());
    }
}

/* `zq device`: app/sensor.c or app/actuator.c on a broker runner (cli/brk_runner.h). */
#include "cli/cmd_device.h"

#include <string.h>

#include "app/actuator.h"
#include "app/sensor.h"
#include "cli/brk_runner.h"
#include "cli/cli.h"

#define DEVICE_CMD "device"

typedef struct {
    bool actuator;
    const char *name;
    uint32_t period_ms;
    uint32_t job_ms;
    zq_brk_net_options_t net;
} device_options_t;

typedef struct {
    device_options_t opt;
    sensor_t sensor;
    actuator_t actuator;
    bool started;
} device_t;

static zq_brk_runner_t runner; /* large: static */
static device_t device;

void zq_cmd_device_help(FILE *out)
{
    (void)fputs(
        "usage: zq device sensor|actuator [--name NAME] [--period MS] [--job-ms MS]\n"
        "                 [--signal URL] [--room NAME] [--verbose]\n"
        "\n"
        "Runs one of the demo's devices, the code an ESP32 runs (app/), with simulated\n"
        "hardware, in a signalling room (zq signal):\n"
        "\n"
        "  sensor    publishes {\"temperature\",\"humidity\",\"uptime\"} on sensors.NAME every\n"
        "            period (default 1000 ms) and answers the `status` service\n"
        "  actuator  obeys cmd.led (\"on\", \"off\", \"toggle\" or {\"state\":...}), reports\n"
        "            actuators.NAME.led (QoS 1), works the `jobs` queue one job at a time\n"
        "            (each takes --job-ms, default 500; a payload {\"fail\":true} is nacked)\n"
        "            and answers `status`\n"
        "\n"
        "options:\n"
        "  --name NAME    1-31 of [A-Za-z0-9_-] (default sensor-1 / actuator-1)\n"
        "  --signal URL   the server's WebSocket (default " ZQ_BRK_DEFAULT_SIGNAL ")\n"
        ZQ_CLI_WSS_HELP("                 ")
        "  --room NAME    the room (default " ZQ_BRK_DEFAULT_ROOM ")\n"
        "  --verbose      peers and reconnects on stderr\n"
        "  --help         show this help\n"
        "\n"
        "Runs until SIGINT or SIGTERM (exit 0); 1 if the server cannot be reached, 2 for a\n"
        "usage error.\n",
        out);
}

static int take_number(const char *name, const char *value, uint32_t *out)
{
    if (value == NULL || zq_cli_parse_u32(value, 1, 3600000, out) != ZQ_OK) {
        return zq_cli_usage_error(DEVICE_CMD, "%s wants milliseconds 1..3600000", name);
    }
    return -1;
}

static int parse_option(int argc, char **argv, int *i, device_options_t *o)
{
    const char *v = NULL;
    if (strcmp(argv[*i], "--help") == 0 || strcmp(argv[*i], "-h") == 0) {
        zq_cmd_device_help(stdout);
        return ZQ_CLI_EXIT_OK;
    }
    if (strcmp(argv[*i], "--verbose") == 0) {
        o->net.verbose = true;
        return -1;
    }
    if (zq_cli_take_value(argc, argv, i, "--name", &v)) {
        o->name = v;
    } else if (zq_cli_take_value(argc, argv, i, "--signal", &v)) {
        o->net.signal = v;
    } else if (zq_cli_take_value(argc, argv, i, "--room", &v)) {
        o->net.room = v;
    } else if (zq_cli_take_value(argc, argv, i, "--period", &v)) {
        return take_number("--period", v, &o->period_ms);
    } else if (zq_cli_take_value(argc, argv, i, "--job-ms", &v)) {
        return take_number("--job-ms", v, &o->job_ms);
    } else {
        return zq_cli_usage_error(DEVICE_CMD, "unknown option '%s'", argv[*i]);
    }
    return v == NULL ? zq_cli_usage_error(DEVICE_CMD, "%s needs a value", argv[*i]) : -1;
}

static int parse_options(int argc, char **argv, device_options_t *o)
{
    memset(o, 0, sizeof *o);
    o->period_ms = 1000;
    o->job_ms = 500;
    o->net.signal = ZQ_BRK_DEFAULT_SIGNAL;
    o->net.room = ZQ_BRK_DEFAULT_ROOM;
    if (argc < 2 || (strcmp(argv[1], "sensor") != 0 && strcmp(argv[1], "actuator") != 0)) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            zq_cmd_device_help(stdout);
            return ZQ_CLI_EXIT_OK;
        }
        return zq_cli_usage_error(DEVICE_CMD, "which device: sensor or actuator");
    }
    o->actuator = strcmp(argv[1], "actuator") == 0;
    o->name = o->actuator ? "actuator-1" : "sensor-1";
    for (int i = 2; i < argc; i++) {
        int rc = parse_option(argc, argv, &i, o);
        if (rc >= 0) {
            return rc;
        }
    }
    return -1;
}

/* ---- The runner's callbacks ---------------------------------------------------------------- */

static void on_event(void *ctx, zq_brk_runner_t *r, uint64_t now, const brk_event_t *ev)
{
    (void)r;
    device_t *d = ctx;
    if (d->opt.actuator) {
        (void)actuator_handle_event(&d->actuator, now, ev);
    } else {
        (void)sensor_handle_event(&d->sensor, now, ev);
    }
}

static void on_idle(void *ctx, zq_brk_runner_t *r, uint64_t now)
{
    (void)r;
    device_t *d = ctx;
    if (d->opt.actuator) {
        actuator_tick(&d->actuator, now);
    } else {
        sensor_tick(&d->sensor, now);
    }
}

static uint64_t next_timeout(void *ctx)
{
    const device_t *d = ctx;
    return d->opt.actuator ? actuator_next_timeout(&d->actuator) : sensor_next_timeout(&d->sensor);
}

static zq_err_t start_app(device_t *d, brk_t *brk, uint64_t now)
{
    if (d->opt.actuator) {
        zq_err_t err = actuator_init(&d->actuator, brk, now, d->opt.name, d->opt.job_ms, NULL,
                                     NULL);
        return err == ZQ_OK ? actuator_start(&d->actuator, now) : err;
    }
    zq_err_t err = sensor_init(&d->sensor, brk, now, d->opt.name, d->opt.period_ms,
                               sensor_simulated_read, NULL);
    return err == ZQ_OK ? sensor_start(&d->sensor, now) : err;
}

int zq_cmd_device(int argc, char **argv)
{
    device_t *d = &device;
    int rc = parse_options(argc, argv, &d->opt);
    if (rc >= 0) {
        return rc;
    }
    static char label[48]; /* "device " and a name (1-31 characters, checked below) */
    (void)snprintf(label, sizeof label, "%s %s", DEVICE_CMD, d->opt.name);
    d->opt.net.label = label;
    static const zq_brk_runner_callbacks_t cb = {on_event, on_idle, next_timeout, false};
    rc = zq_brk_runner_start(&runner, DEVICE_CMD, &d->opt.net, &cb, d);
    if (rc >= 0) {
        return rc;
    }
    zq_err_t err = start_app(d, &runner.brk, zq_brk_runner_now(&runner));
    if (err != ZQ_OK) {
        return zq_cli_usage_error(DEVICE_CMD, "--name '%s': 1-31 of [A-Za-z0-9_-] (%s)",
                                  d->opt.name, zq_strerror(err));
    }
    (void)fprintf(stderr, "zq device: %s '%s' in room '%s'\n",
                  d->opt.actuator ? "actuator" : "sensor", d->opt.name, d->opt.net.room);
    return zq_brk_runner_run(&runner);
}

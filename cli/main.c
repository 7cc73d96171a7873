/* The zq program: a dispatcher over subcommands, each in its own cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_bridge_exec.h"
#include "cli/cmd_broker.h"
#include "cli/cmd_demo.h"
#include "cli/cmd_device.h"
#include "cli/cmd_echo.h"
#include "cli/cmd_signal.h"
#include "cli/cmd_stun.h"
#include "port/zq_port.h"

#ifndef ZQ_VERSION
#define ZQ_VERSION "unknown"
#endif

typedef struct {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command's name */
    void (*help)(FILE *out);
} command_t;

static const command_t commands[] = {
    {"stun", "ask a STUN server for this host's mapped address, or serve STUN (--serve)",
     zq_cmd_stun, zq_cmd_stun_help},
    {"signal", "run the signalling server: WebSocket rooms for ZeroQ and zq, /api, static files",
     zq_cmd_signal, zq_cmd_signal_help},
    {"echo", "join a signalling room and echo every data channel message back to its sender",
     zq_cmd_echo, zq_cmd_echo_help},
    {"pub", "publish a message on a topic to the room's subscribers", zq_cmd_pub,
     zq_cmd_pub_help},
    {"sub", "print the messages of the topics a pattern matches", zq_cmd_sub, zq_cmd_sub_help},
    {"put", "enqueue a job and wait until a consumer has done it", zq_cmd_put, zq_cmd_put_help},
    {"work", "consume a queue's jobs: print them, or run a command per job", zq_cmd_work,
     zq_cmd_work_help},
    {"req", "send a request to a service and print its reply", zq_cmd_req, zq_cmd_req_help},
    {"rep", "serve a service: run a command per request, reply with its output", zq_cmd_rep,
     zq_cmd_rep_help},
    {"dlq", "list, requeue or purge the room's dead-lettered jobs of a queue", zq_cmd_dlq,
     zq_cmd_dlq_help},
    {"device", "run a demo device (sensor or actuator): the code an ESP32 runs, simulated",
     zq_cmd_device, zq_cmd_device_help},
    {"bridge", "carry a room's topics to and from an MQTT broker (runs zq-bridge)",
     zq_cmd_bridge_exec, zq_cmd_bridge_exec_help},
    {"demo", "the signalling server with the dashboard and two simulated devices",
     zq_cmd_demo, zq_cmd_demo_help},
};

enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static void print_help(FILE *out)
{
    (void)fprintf(out,
                  "usage: zq <command> [options]\n"
                  "       zq help [<command>]\n"
                  "       zq --version\n"
                  "\n"
                  "zq %s: WebRTC data-channel messaging for microcontrollers and browsers.\n"
                  "\n"
                  "commands:\n",
                  ZQ_VERSION);
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        (void)fprintf(out, "  %-6s  %s\n", commands[i].name, commands[i].summary);
    }
    (void)fputs("  help    show this help, or a command's with 'zq help <command>'\n"
                "\n"
                "'zq <command> --help' shows a command's options. Exit status: 0 success,\n"
                "1 failure, 2 usage error.\n",
                out);
}

static const command_t *find_command(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; i++) {
        if (strcmp(commands[i].name, name) == 0) {
            return &commands[i];
        }
    }
    return NULL;
}

static int unknown_command(const char *name)
{
    (void)fprintf(stderr, "zq: unknown command '%s' (see 'zq --help')\n", name);
    return ZQ_CLI_EXIT_USAGE;
}

static int help_command(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stdout);
        return ZQ_CLI_EXIT_OK;
    }
    if (argc > 2) {
        (void)fprintf(stderr, "zq help: one command at a time (see 'zq --help')\n");
        return ZQ_CLI_EXIT_USAGE;
    }
    const command_t *cmd = find_command(argv[1]);
    if (cmd == NULL) {
        return unknown_command(argv[1]);
    }
    cmd->help(stdout);
    return ZQ_CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return ZQ_CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_help(stdout);
        return ZQ_CLI_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        (void)printf("zq %s\n", ZQ_VERSION);
        return ZQ_CLI_EXIT_OK;
    }
    if (strcmp(name, "help") == 0) {
        return help_command(argc - 1, argv + 1);
    }
    if (name[0] == '-') {
        (void)fprintf(stderr, "zq: unknown option '%s' (see 'zq --help')\n", name);
        return ZQ_CLI_EXIT_USAGE;
    }
    const command_t *cmd = find_command(name);
    if (cmd == NULL) {
        return unknown_command(name);
    }
    if (zq_port_init() != ZQ_OK) {
        (void)fprintf(stderr, "zq: the POSIX port failed to start\n");
        return ZQ_CLI_EXIT_FAIL;
    }
    return cmd->run(argc - 1, argv + 1);
}

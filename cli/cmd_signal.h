/**
 * @file cmd_signal.h
 * @brief `zq signal`: the signalling server where ZeroQ pages and zq devices meet.
 *
 * One TCP port serves three things, as ZeroQ's Go server did and more (docs/zeroq-wire.md §1,
 * §5, §7): the WebSocket at /ws (and at /, ZeroQ's default URL), where signal/router.h gives
 * each client an id, keeps rooms and relays offers, answers and candidates; the JSON lists
 * /api/topics and /api/queues; and, with --web, static files (the dashboard and the browser
 * client). The protocol logic is the sans-IO router and the HTTP and WebSocket codecs of
 * signal/; the server (server/signal.h) moves bytes between them and sockets, and this
 * command fills its settings from the command line.
 */
#ifndef ZQ_PORT_POSIX_CMD_SIGNAL_H
#define ZQ_PORT_POSIX_CMD_SIGNAL_H

#include <stdio.h>

#include "zq/config.h"

/** `zq signal ...`: @p argv[0] is "signal". @return the process exit code (ZQ_CLI_EXIT_*). */
int zq_cmd_signal(int argc, char **argv);

/** Writes the subcommand's help text. */
void zq_cmd_signal_help(FILE *out);

#endif /* ZQ_PORT_POSIX_CMD_SIGNAL_H */

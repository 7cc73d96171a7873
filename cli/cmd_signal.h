/**
 * @file cmd_signal.h
 * @brief `zq signal`: the signalling server where ZeroQ pages and zq devices meet.
 *
 * One TCP port serves three things, as ZeroQ's Go server did and more (docs/zeroq-wire.md §1,
 * §5, §7): the WebSocket at /ws (and at /, ZeroQ's default URL), where signal/router.h gives
 * each client an id, keeps rooms and relays offers, answers and candidates; the JSON lists
 * /api/topics and /api/queues; and, with --web, static files (the dashboard and the browser
 * client). The protocol logic is the sans-IO router and the HTTP and WebSocket codecs of
 * signal/; this command only moves bytes between them and sockets.
 *
 * Memory is static and bounded: ZQ_SIG_MAX_CLIENTS WebSocket connections (each with its
 * ws_conn_t, two ZQ_WS_MAX_MESSAGE buffers: 129 KiB) and ZQ_SIGNAL_MAX_HTTP connections still in
 * HTTP (each with a ZQ_HTTP_MAX_REQUEST buffer: 8 KiB), with the router's tables: 32.5 MiB of
 * .bss with the defaults (256 clients, 32 HTTP), of which a client slot's pages are touched
 * only once it is used (2.8 MiB resident idle, 34 MiB with 256 clients). Beyond either bound a
 * new connection is answered 503 and closed. The sockets are watched with one epoll set, itself one fd of the port's
 * poll() loop, whose timer drives pings, idle clients and HTTP deadlines.
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

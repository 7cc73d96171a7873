/**
 * @file cmd_demo.h
 * @brief `zq demo`: the signalling server with the dashboard, and two simulated devices (a
 *        sensor and an actuator, `zq device`), as child processes; until Ctrl-C or a duration.
 */
#ifndef ZQ_PORT_POSIX_CMD_DEMO_H
#define ZQ_PORT_POSIX_CMD_DEMO_H

#include <stdio.h>

int zq_cmd_demo(int argc, char **argv);
void zq_cmd_demo_help(FILE *out);

#endif /* ZQ_PORT_POSIX_CMD_DEMO_H */

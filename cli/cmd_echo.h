/**
 * @file cmd_echo.h
 * @brief `zq echo`: a device-profile node in a signalling room that echoes every data channel
 *        message back to its sender (node/echo.h over real sockets).
 */
#ifndef ZQ_PORT_POSIX_CMD_ECHO_H
#define ZQ_PORT_POSIX_CMD_ECHO_H

#include <stdio.h>

int zq_cmd_echo(int argc, char **argv);
void zq_cmd_echo_help(FILE *out);

#endif /* ZQ_PORT_POSIX_CMD_ECHO_H */

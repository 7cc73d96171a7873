/* `zq bridge`: runs the zq-bridge program beside zq (cmd_bridge_exec.c), which is built with a
 * room's capacities (config/zq_bridge_config.h); zq's own are a device's. */
#ifndef ZQ_CLI_CMD_BRIDGE_EXEC_H
#define ZQ_CLI_CMD_BRIDGE_EXEC_H

#include <stdio.h>

int zq_cmd_bridge_exec(int argc, char **argv);
void zq_cmd_bridge_exec_help(FILE *out);

#endif /* ZQ_CLI_CMD_BRIDGE_EXEC_H */

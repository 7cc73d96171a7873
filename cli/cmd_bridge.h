/* `zq bridge`: a room's topics on an MQTT broker (cmd_bridge.c; the zq-bridge program). */
#ifndef ZQ_CLI_CMD_BRIDGE_H
#define ZQ_CLI_CMD_BRIDGE_H

#include <stdio.h>

int zq_cmd_bridge(int argc, char **argv);
void zq_cmd_bridge_help(FILE *out);

#endif /* ZQ_CLI_CMD_BRIDGE_H */

/**
 * @file cmd_device.h
 * @brief `zq device sensor|actuator`: the demo's device apps (app/) on the POSIX port, the
 *        same code an ESP32 runs, with simulated hardware. `zq demo` starts two of them.
 */
#ifndef ZQ_PORT_POSIX_CMD_DEVICE_H
#define ZQ_PORT_POSIX_CMD_DEVICE_H

#include <stdio.h>

int zq_cmd_device(int argc, char **argv);
void zq_cmd_device_help(FILE *out);

#endif /* ZQ_PORT_POSIX_CMD_DEVICE_H */

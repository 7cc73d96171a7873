/* The zq-bridge program: `zq bridge`, built on a core with a room's capacities
 * (config/zq_bridge_config.h). `zq bridge ...` runs it; so may a service manager directly. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_bridge.h"
#include "port/zq_port.h"

int main(int argc, char **argv)
{
    /* `zq-bridge bridge ...` (how zq runs it) and `zq-bridge ...` are the same. */
    if (argc > 1 && strcmp(argv[1], "bridge") == 0) {
        argc--;
        argv++;
    }
    if (zq_port_init() != ZQ_OK) {
        (void)fprintf(stderr, "zq bridge: the POSIX port failed to start\n");
        return ZQ_CLI_EXIT_FAIL;
    }
    return zq_cmd_bridge(argc, argv);
}

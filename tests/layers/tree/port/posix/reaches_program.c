/* a port reaching into a program */
#include "port/zq_port.h"
#include "cli/cli.h"

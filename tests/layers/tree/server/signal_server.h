/* known exceptions (cmake/layers.cmake): not named */
#include "cli/cli.h"
#include "cli/cmd_signal.h"
#include "port/posix/loop.h"

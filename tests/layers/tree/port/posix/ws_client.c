/* a known exception (cmake/layers.cmake): not named */
#include "cli/cli.h"

/* tests include anything */
#include "cli/cli.h"

/* core below everything */
#  include "zq/bytes.h"
#include "node/node.h"

/* sctp reaching up to the broker */
#include "zq/err.h"
#include "stack/sctp/sctp.h"
#include "broker/brk.h"

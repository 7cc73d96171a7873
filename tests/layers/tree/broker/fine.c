/* all of these are below the broker */
#include "frame.h"
#include "node/node.h"
#include "zq/json.h"
#include "stack/sctp/sctp.h"
#include "mbedtls/ssl.h"

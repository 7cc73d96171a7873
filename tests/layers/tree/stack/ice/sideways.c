/* ICE knows no DTLS */
#include <string.h>
#include "stack/dtls/dtls.h"

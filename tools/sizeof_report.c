/* Not a program: each array below has the size of one of zq's caller-allocated contexts, so
 * `nm -S` on this object reports sizeof for whatever target compiled it (scripts/sizes reads
 * them for the host and the 32-bit embedded targets without running anything there). */
#include "stack/ice/ice.h"
#include "stack/ice/stun.h"

#define ZQ_SIZEOF(type) extern const char zq_sizeof_##type[sizeof(type)]; \
    const char zq_sizeof_##type[sizeof(type)] = {1}

ZQ_SIZEOF(ice_agent_t);
ZQ_SIZEOF(ice_candidate_t);
ZQ_SIZEOF(ice_pair_t);
ZQ_SIZEOF(ice_txn_t);
ZQ_SIZEOF(ice_tx_slot_t);
ZQ_SIZEOF(stun_msg_t);

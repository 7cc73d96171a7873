/* Not a program: each array below has the size of one of zq's caller-allocated contexts, so
 * `nm -S` on this object reports sizeof for whatever target compiled it (scripts/sizes reads
 * them for the host and the 32-bit embedded targets without running anything there). */
#include "broker/brk.h"
#include "node/echo.h"
#include "node/node.h"
#include "signal/router.h"
#include "signal/ws.h"
#include "stack/dtls/dtls.h"
#include "stack/ice/ice.h"
#include "stack/ice/stun.h"
#include "stack/peer/peer.h"
#include "stack/sctp/datachannel.h"
#include "stack/sctp/sctp.h"
#include "stack/sdp/sdp.h"

#define ZQ_SIZEOF(type) extern const char zq_sizeof_##type[sizeof(type)]; \
    const char zq_sizeof_##type[sizeof(type)] = {1}

ZQ_SIZEOF(ice_agent_t);
ZQ_SIZEOF(ice_candidate_t);
ZQ_SIZEOF(ice_pair_t);
ZQ_SIZEOF(ice_txn_t);
ZQ_SIZEOF(ice_tx_slot_t);
ZQ_SIZEOF(stun_msg_t);
ZQ_SIZEOF(dtls_t);
ZQ_SIZEOF(dtls_context_t);
ZQ_SIZEOF(dtls_identity_t);
ZQ_SIZEOF(sctp_assoc_t);
ZQ_SIZEOF(dc_t);
ZQ_SIZEOF(sdp_t);
ZQ_SIZEOF(peer_t);
ZQ_SIZEOF(node_t);
ZQ_SIZEOF(echo_t);
ZQ_SIZEOF(brk_t);
ZQ_SIZEOF(sig_router_t);
ZQ_SIZEOF(ws_conn_t);

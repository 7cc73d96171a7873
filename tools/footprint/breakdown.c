/* Not a program: each array below is as large as one structure (or member) of a device, so
 * `nm -S` on this object reports where a device's static RAM goes, for whatever target and
 * configuration compiled it (scripts/footprint reads them; nothing runs on the target).
 * Arrays are zero-initialised (in .bss): the object stays small however large they are. */
#include <stddef.h>

#include "app/sensor.h"
#include "broker/brk.h"
#include "node/node.h"
#include "signal/ws.h"
#include "stack/dtls/dtls.h"
#include "stack/peer/peer.h"

#define FP_SIZE(name, bytes) extern char zq_fp_##name[bytes]; char zq_fp_##name[bytes]
#define FP_MEMBER(type, member) sizeof(((type *)0)->member)

/* A device's top-level objects */
FP_SIZE(node_t, sizeof(node_t));
FP_SIZE(brk_t, sizeof(brk_t));
FP_SIZE(ws_conn_t, sizeof(ws_conn_t));
FP_SIZE(sensor_t, sizeof(sensor_t));
FP_SIZE(dtls_identity_t, sizeof(dtls_identity_t));
FP_SIZE(dtls_context_t, sizeof(dtls_context_t));

/* One peer slot of the node, and of the broker */
FP_SIZE(node_peer_t, sizeof(node_peer_t));
FP_SIZE(brk_peer_t, sizeof(brk_peer_t));
FP_SIZE(brk_peer_t__frame, FP_MEMBER(brk_peer_t, frame));

/* peer_t, member by member */
FP_SIZE(peer_t, sizeof(peer_t));
FP_SIZE(peer_t__ice, FP_MEMBER(peer_t, ice));
FP_SIZE(peer_t__dtls, FP_MEMBER(peer_t, dtls));
FP_SIZE(peer_t__sctp, FP_MEMBER(peer_t, sctp));
FP_SIZE(peer_t__dc, FP_MEMBER(peer_t, dc));
FP_SIZE(peer_t__events, FP_MEMBER(peer_t, events));
FP_SIZE(peer_t__out, FP_MEMBER(peer_t, out));
FP_SIZE(peer_t__sctp_send_buf, FP_MEMBER(peer_t, sctp_send_buf));
FP_SIZE(peer_t__sctp_recv_buf, FP_MEMBER(peer_t, sctp_recv_buf));
FP_SIZE(peer_event_slot_t, sizeof(peer_event_slot_t));
FP_SIZE(peer_event_queue, ZQ_PEER_EVENT_QUEUE);

/* Inside the layers */
FP_SIZE(mbedtls_ssl_context, sizeof(mbedtls_ssl_context));
FP_SIZE(dtls_t__tx, FP_MEMBER(dtls_t, tx));
FP_SIZE(sctp_assoc_t__cookie, FP_MEMBER(sctp_assoc_t, cookie));
FP_SIZE(sctp_assoc_t__init_ack, FP_MEMBER(sctp_assoc_t, init_ack));
FP_SIZE(sctp_assoc_t__tracker, FP_MEMBER(sctp_assoc_t, tracker));
FP_SIZE(sctp_assoc_t__read_queue, FP_MEMBER(sctp_assoc_t, read_queue));
FP_SIZE(sctp_assoc_t__streams, FP_MEMBER(sctp_assoc_t, streams));
FP_SIZE(sctp_assoc_t__events, FP_MEMBER(sctp_assoc_t, events));
FP_SIZE(dc_t__channels, FP_MEMBER(dc_t, channels));
FP_SIZE(dc_t__events, FP_MEMBER(dc_t, events));
FP_SIZE(ice_agent_t__local, FP_MEMBER(ice_agent_t, local));
FP_SIZE(ice_agent_t__remote, FP_MEMBER(ice_agent_t, remote));
FP_SIZE(ice_agent_t__pairs, FP_MEMBER(ice_agent_t, pairs));
FP_SIZE(ice_agent_t__txns, FP_MEMBER(ice_agent_t, txns));
FP_SIZE(ice_agent_t__tx, FP_MEMBER(ice_agent_t, tx));
FP_SIZE(ice_agent_t__events, FP_MEMBER(ice_agent_t, events));

/* The node's and the broker's shared parts */
FP_SIZE(node_t__sig, FP_MEMBER(node_t, sig));
FP_SIZE(node_t__events, FP_MEMBER(node_t, events));
FP_SIZE(brk_t__pub, FP_MEMBER(brk_t, pub));
FP_SIZE(brk_t__subs, FP_MEMBER(brk_t, subs));
FP_SIZE(brk_t__jobs, FP_MEMBER(brk_t, jobs));
FP_SIZE(brk_t__consumer, FP_MEMBER(brk_t, consumer));
FP_SIZE(brk_t__rpc, FP_MEMBER(brk_t, rpc));
FP_SIZE(brk_t__out, FP_MEMBER(brk_t, out));
FP_SIZE(brk_t__ring_text, FP_MEMBER(brk_t, ring_text));
FP_SIZE(brk_t__chunk, FP_MEMBER(brk_t, chunk));
FP_SIZE(brk_t__events, FP_MEMBER(brk_t, events));

/* Shared by the peer connection's files; not part of the public API.
 *
 *   peer.c       lifecycle, events, the data channel calls
 *   peer_sdp.c   offer, answer, remote description, roles
 *   peer_io.c    the RFC 7983 demultiplexer, timers, transmit, the layers' events
 */
#ifndef ZQ_PEER_INTERNAL_H
#define ZQ_PEER_INTERNAL_H

#include "stack/peer/peer.h"

/** Queues an event; returns its slot for fields beyond type and channel, NULL when the queue
 *  is full (counted). */
peer_event_slot_t *peer_push_event(peer_t *p, peer_event_type_t type, uint16_t channel);
void peer_fail(peer_t *p, peer_failure_t why);
/* Starts whatever the known descriptions and ICE allow: ICE, then DTLS, then SCTP. */
void peer_advance(peer_t *p, uint64_t now);
/* Drains ICE, DTLS, SCTP and channel events into the peer's own. */
void peer_pump(peer_t *p, uint64_t now);
/** Turns the data channel layer's events into peer events; touches nothing else (in
 *  particular not the association's read queue, whose last piece may be on loan). */
void peer_pump_channel_events(peer_t *p);

#endif

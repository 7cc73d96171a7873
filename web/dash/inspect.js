// What the dashboard reads from zq.js beyond its public API (web/zq.d.ts): connections still
// being set up, what each peer announced, a job's state, and the ping/pong frames it times.
// zq.js has no public call for these; every look at its internals is in this one file, so a
// change there is one place to follow. All of it is read-only except the two hooks of
// hookPongs(), which observe frames and pass them on unchanged.

import { writePing } from '../zq/wire.js';

/** Connections the mesh has: {id, state: 'connecting' | 'open', role: 'offerer' |
 *  'answerer'}. "open" means its data channel is open (the broker has the link). */
export function connections(zq) {
  if (!zq.mesh) return [];
  return [...zq.mesh.peers.values()].map((e) => ({
    id: e.id, state: e.handle ? 'open' : 'connecting', role: e.role,
  }));
}

/** What each open peer told us: its patterns, its services, its credit for our queues. */
export function announcements(zq) {
  const out = new Map();
  for (const p of zq.broker.openPeers()) {
    out.set(p.id, {
      /* null: it gets everything (a ZeroQ peer, or a sub too big to hold) */
      topics: !p.subReceived ? [] : p.wantsAll ? null : [...p.topics],
      services: [...p.services],
      credit: Object.fromEntries(p.credit),
    });
  }
  return out;
}

/** A job this node produces: {state: 'waiting' | 'leased' | 'dead', attempts, consumer (peer
 *  id or null)}, or null once it is no longer held (done, or purged). */
export function jobState(zq, id) {
  const j = zq.broker.producer.jobs.get(id);
  return j ? { state: j.state, attempts: j.attempts, consumer: j.peer ? j.peer.id : null } : null;
}

/** Sends ZeroQ's ping to the open peer @p id (every peer answers with a pong, PROTOCOL.md §1).
 *  @returns whether there was such a peer. */
export function sendPing(zq, id) {
  const p = zq.broker.openPeers().find((x) => x.id === id);
  if (!p) return false;
  zq.broker.sendUrgent(p, writePing()).catch(() => {});
  return true;
}

/**
 * Calls @p onPing(id, t) for every ping handed to a peer's channel (ours and the broker's own
 * heartbeat) and @p onPong(id, t) for every pong that comes back, t = performance.now().
 * Both hooks wrap methods of this one Broker instance and pass everything through.
 */
export function hookPongs(zq, onPing, onPong) {
  const b = zq.broker;
  const ping = writePing();
  const transmit = b.transmit.bind(b);
  b.transmit = (p, text) => {
    const err = transmit(p, text);
    if (!err && text === ping) onPing(p.id, performance.now());
    return err;
  };
  const dispatch = b.dispatch.bind(b);
  b.dispatch = (p, type, obj, inexact) => {
    if (type === 'pong') onPong(p.id, performance.now());
    return dispatch(p, type, obj, inexact);
  };
}

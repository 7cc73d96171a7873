// Round-trip time to each peer, over its data channel: ZeroQ's heartbeat frames
// (PROTOCOL.md §1). Every peer (a zq device, a zq.js page, a plain ZeroQ page) answers a
// __ping__ with a __pong__ at once, and the channel is ordered, so the n-th pong answers the
// n-th ping: the time between them is the round trip through ICE, DTLS, SCTP and the peer's
// own event loop. Pings the broker sends for its heartbeat (every 10 s) are timed too.
//
// One ping of ours at a time per peer, every INTERVAL_MS; the figure shown is the median of
// the last SAMPLES answers, so one late answer (a busy tab, a GC pause) does not swing it.

import { hookPongs, sendPing } from './inspect.js';

const INTERVAL_MS = 2000;
const SAMPLES = 5;
const GIVE_UP_MS = 10000; /* a ping unanswered this long was lost (the peer is going away) */

export class Rtt {
  constructor(zq) {
    this.zq = zq;
    this.inFlight = new Map(); /* peer id -> [send times], oldest first */
    this.samples = new Map();  /* peer id -> [ms], newest last */
    hookPongs(zq, (id, t) => this.sent(id, t), (id, t) => this.answered(id, t));
  }

  sent(id, t) {
    if (!this.inFlight.has(id)) this.inFlight.set(id, []);
    this.inFlight.get(id).push(t);
  }

  answered(id, t) {
    const q = this.inFlight.get(id);
    if (!q || q.length === 0) return; /* an unasked pong: nothing to time */
    const ms = t - q.shift();
    const s = this.samples.get(id) ?? [];
    s.push(ms);
    if (s.length > SAMPLES) s.shift();
    this.samples.set(id, s);
  }

  /** Pings every open peer that has no ping of ours waiting for its answer. */
  tick() {
    const now = performance.now();
    for (const p of this.zq.peers()) {
      const q = this.inFlight.get(p.id) ?? [];
      if (q.length > 0 && now - q[0] > GIVE_UP_MS) q.length = 0;
      if (q.length === 0) sendPing(this.zq, p.id);
    }
  }

  start() {
    this.timer = setInterval(() => this.tick(), INTERVAL_MS);
    this.tick();
  }

  /** The peer's round trip in ms (median of the last answers), or null before the first. */
  of(id) {
    const s = this.samples.get(id);
    if (!s || s.length === 0) return null;
    const sorted = [...s].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  }

  forget(id) {
    this.inFlight.delete(id);
    this.samples.delete(id);
  }
}

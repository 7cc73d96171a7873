// Test doubles for web/zq/broker.js: a manual clock, data channels in memory (ordered, with a
// bufferedAmount that can be held up), and a raw end that speaks whatever frames a test writes
// (a plain ZeroQ peer). Not a test file itself (node --test runs *.test.mjs).
import { Broker } from '../../../web/zq/broker.js';

/** Lets every pending promise and microtask run (a few macrotask turns). */
export async function flush(turns = 8) {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

export class Clock {
  constructor() {
    this.t = 0;
    this.timers = new Set();
  }

  now() {
    return this.t;
  }

  wall() {
    return 1754040000000 + this.t;
  }

  setTimeout(fn, ms) {
    const h = { at: this.t + Math.max(0, ms), fn };
    this.timers.add(h);
    return h;
  }

  clearTimeout(h) {
    this.timers.delete(h);
  }

  /** Moves time on by @p ms, firing due timers in order (and letting promises run). */
  async advance(ms) {
    const end = this.t + ms;
    for (;;) {
      await flush(2); /* what the last timer set off may set timers of its own */
      let next = null;
      for (const h of this.timers) if (h.at <= end && (!next || h.at < next.at)) next = h;
      if (!next) break;
      this.timers.delete(next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
    await flush();
  }
}

/** A deterministic random source. */
export function rng(seed) {
  let x = seed >>> 0 || 1;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      x ^= x << 13; x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5; x >>>= 0;
      out[i] = x & 0xff;
    }
    return out;
  };
}

let seeds = 1;

/** A broker with a name, an identity, a storage (kept across restarts), and its events. */
export function makeNode(name, clock, { config, storage, fp } = {}) {
  const events = [];
  const store = storage ?? new Map();
  const id = fp ?? Buffer.from(name.padEnd(8, '.')).toString('hex').slice(0, 16);
  const broker = new Broker({
    clock, random: rng(seeds++), fp: id,
    emit: (event, data) => events.push({ event, ...data }),
    storage: { get: (k) => store.get(k) ?? null, set: (k, v) => store.set(k, v) },
    config,
  });
  return { name, broker, events, store, fp: id, clock };
}

/** One direction of a data channel: what `from` sends arrives at `to`, in order. */
class FakeLink {
  constructor(pair, id, fp, mms) {
    this.pair = pair;
    this.id = id;
    this.fp = fp;
    this.maxMessageSize = mms;
    this.queue = [];
    this.buffered = 0;
    this.held = false;
    this.closed = false;
    this.sent = []; /* every message, for tests that look at the wire */
    this.deliver = null; /* set by the pair: the receiving end */
    this.onDrain = null;
  }

  get bufferedAmount() {
    return this.buffered;
  }

  send(data) {
    if (this.closed) throw new Error('InvalidStateError: not open');
    const copy = typeof data === 'string' ? data : Uint8Array.from(data);
    const size = typeof copy === 'string' ? Buffer.byteLength(copy) : copy.length;
    this.queue.push(copy);
    this.sent.push(copy);
    this.buffered += size;
    if (!this.held) queueMicrotask(() => this.pump());
  }

  hold() {
    this.held = true;
  }

  release() {
    this.held = false;
    this.pump();
  }

  pump() {
    const lowWater = 256 * 1024;
    while (!this.held && !this.closed && this.queue.length > 0) {
      const m = this.queue.shift();
      const was = this.buffered;
      this.buffered -= typeof m === 'string' ? Buffer.byteLength(m) : m.length;
      this.deliver(m);
      if (was >= lowWater && this.buffered < lowWater) this.onDrain?.();
    }
  }

  close() {
    this.pair.down();
  }
}

/**
 * Connects two nodes (or a node and a raw end, when @p b has no broker): each sees the other
 * by its name and identity. @returns {ab, ba, down()}: ab carries a -> b.
 */
export function connect(a, b, { mms = 262144 } = {}) {
  const pair = { up: true };
  const ab = new FakeLink(pair, b.name, b.fp, mms); /* a's link to b */
  const ba = new FakeLink(pair, a.name, a.fp, mms);
  let peerAtA = null;
  let peerAtB = null;
  pair.down = () => {
    if (!pair.up) return;
    pair.up = false;
    ab.closed = ba.closed = true;
    if (a.broker) a.broker.linkDown(peerAtA);
    if (b.broker) b.broker.linkDown(peerAtB);
    b.raw?.onClose?.();
  };
  ab.deliver = (m) => (b.broker ? b.broker.linkData(peerAtB, m) : b.raw.receive(m));
  ba.deliver = (m) => a.broker.linkData(peerAtA, m);
  ab.onDrain = () => a.broker.linkDrain(peerAtA);
  ba.onDrain = () => b.broker?.linkDrain(peerAtB);
  peerAtA = a.broker.linkUp(ab);
  if (b.broker) peerAtB = b.broker.linkUp(ba);
  else b.raw.attach(ba);
  return { ab, ba, down: () => pair.down(), pair };
}

/** A raw end (a plain ZeroQ peer, or anything a test writes by hand). */
export function rawEnd(name, fp) {
  const raw = {
    received: [],
    link: null,
    attach(link) {
      this.link = link;
    },
    receive(m) {
      this.received.push(m);
    },
    /** Sends a frame (an object or text) to the node. */
    send(frame) {
      this.link.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    },
    /** The frames received, parsed (binary chunks left out). */
    frames() {
      return this.received.filter((m) => typeof m === 'string').map((m) => JSON.parse(m));
    },
  };
  return { name, fp: fp ?? Buffer.from(name.padEnd(8, '.')).toString('hex').slice(0, 16), raw };
}

/** Frames a node sent on a link, parsed, of one type ('envelope' for messages). */
export function sentFrames(link, type) {
  return link.sent.filter((m) => typeof m === 'string').map((m) => JSON.parse(m))
    .filter((f) => (type === 'envelope' ? !('type' in f) : f.type === type));
}

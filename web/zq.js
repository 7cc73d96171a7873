// zq.js: a browser joins a zq mesh (ZeroQ-compatible) with ZeroQ's API names.
//
//   import { ZQ } from './zq.js';
//   const zq = new ZQ({ signal: 'ws://localhost:8080/ws', room: 'demo' });
//   await zq.connect();
//   zq.subscribe('sensors/#', (msg) => console.log(msg.topic, msg.payload));  // or 'sensors.#'
//   await zq.publish('sensors/kitchen/temp', 21.5, { qos: 1 });   // resolves once acked
//
// No build step, no dependencies: an ES module over the browser's own WebSocket and
// RTCPeerConnection. The protocol is broker/PROTOCOL.md (the C broker's); ZeroQ pages in the
// same room get plain ZeroQ frames. web/zq.d.ts documents every call; web/README.md the
// choices. The pure parts (web/zq/wire.js, match.js, chunk.js, dedup.js, ring.js and the
// broker modules) load in Node 18+ too.

import { Broker, DEFAULTS } from './zq/broker.js';
import { Mesh } from './zq/mesh.js';
import { ZQError } from './zq/errors.js';
import { checkPattern } from './zq/match.js';

export { ZQError, checkPattern, DEFAULTS };
export { matchPattern, patternProblem, topicProblem } from './zq/match.js';

const CERT_DB = 'zq';
const CERT_STORE = 'certificates';

/** The IndexedDB store of certificates (RTCCertificate is structured-cloneable). */
function certDb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(CERT_DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(CERT_STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function dbRequest(db, mode, fn) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(CERT_STORE, mode);
    const req = fn(tx.objectStore(CERT_STORE));
    tx.oncomplete = () => resolve(req.result);
    tx.onerror = () => reject(tx.error);
  });
}

/** One certificate for every connection: our identity (PROTOCOL.md "fp"). With `persist`, the
 *  same across page loads (kept in IndexedDB), so publishers know us when we come back. */
async function certificateFor(persist) {
  const make = () => globalThis.RTCPeerConnection.generateCertificate(
    { name: 'ECDSA', namedCurve: 'P-256' });
  if (!persist || typeof indexedDB === 'undefined') return make();
  try {
    const db = await certDb();
    let cert = await dbRequest(db, 'readonly', (s) => s.get(persist));
    if (!cert || cert.expires < Date.now() + 86400000) {
      cert = await make();
      await dbRequest(db, 'readwrite', (s) => s.put(cert, persist));
    }
    db.close();
    return cert;
  } catch {
    return make(); /* no IndexedDB (private mode): a new identity per load */
  }
}

function fingerprintOf(cert) {
  const fps = cert.getFingerprints ? cert.getFingerprints() : [];
  const f = fps.find((x) => x.algorithm === 'sha-256');
  return f ? f.value.replace(/:/g, '').toLowerCase().slice(0, 16) : null;
}

/** Resume points across page loads: localStorage under `zq:<persist>:`, else memory. */
function storageFor(persist) {
  const memory = new Map();
  const ls = persist && typeof localStorage !== 'undefined' ? localStorage : null;
  return {
    get: (k) => (ls ? ls.getItem(`zq:${persist}:${k}`) : memory.get(k) ?? null),
    set: (k, v) => (ls ? ls.setItem(`zq:${persist}:${k}`, v) : memory.set(k, v)),
  };
}

function defaultSignal() {
  const loc = globalThis.location;
  if (!loc || !loc.host) throw new ZQError('MALFORMED', 'new ZQ({signal}) needs a ws:// URL');
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws`;
}

export class ZQ {
  /**
   * @param {object} [o]
   * @param {string} [o.signal]  the signalling server's WebSocket (default: this page's /ws)
   * @param {string} [o.room]    the room (ZeroQ's topicId), also the channels' label
   * @param {RTCIceServer[]} [o.iceServers] STUN/TURN servers (default none)
   * @param {string} [o.persist] a name to keep this node's identity and resume points under
   *        across page loads (one live ZQ per name)
   * @param {object} [o.config]  broker settings (DEFAULTS in web/zq/broker.js)
   * @param {(line: string) => void} [o.log]
   */
  constructor(o = {}) {
    this.opts = { room: 'default-topic', iceServers: [], ...o };
    this.listeners = new Map();
    this.mesh = null;
    this.bookkeeping = new Map(); /* frames the server's lists hear of, again after a rejoin */
    this.early = [];              /* bookkeeping frames from before connect() */
    this.joins = 0;
    const random = (n) => globalThis.crypto.getRandomValues(new Uint8Array(n));
    this.broker = new Broker({
      clock: {
        now: () => performance.now(),
        wall: () => Date.now(),
        setTimeout: (fn, ms) => setTimeout(fn, ms),
        clearTimeout: (h) => clearTimeout(h),
      },
      random,
      fp: null, /* known once the certificate is (connect) */
      emit: (event, data) => this.emit(event, data),
      storage: storageFor(o.persist),
      config: o.config,
    });
  }

  /** Joins the room. @returns this, once the server gave us an id and we joined. */
  connect() {
    this.connecting ??= this.start();
    return this.connecting;
  }

  async start() {
    const certificate = await certificateFor(this.opts.persist);
    this.broker.fp = fingerprintOf(certificate);
    const b = this.broker;
    this.mesh = new Mesh({
      signal: this.opts.signal ?? defaultSignal(),
      room: this.opts.room,
      iceServers: this.opts.iceServers,
      certificate,
      lowWater: b.cfg.lowWater,
      maxReconnects: this.opts.maxReconnects,
      log: this.opts.log,
      handlers: {
        linkUp: (link) => b.linkUp(link),
        linkData: (p, data) => b.linkData(p, data),
        linkDrain: (p) => b.linkDrain(p),
        linkDown: (p) => b.linkDown(p),
        event: (name, data) => {
          if (name === 'connected' && this.joins++ > 0) this.rejoined();
          this.emit(name, data);
        },
      },
    });
    for (const f of this.early.splice(0)) this.mesh.send(f.frame).then(f.resolve, f.reject);
    await this.mesh.connect();
    return this;
  }

  /** Leaves the room; every promise still waiting rejects with CLOSED. */
  close() {
    this.mesh?.close();
    this.broker.close();
    const err = new ZQError('CLOSED', 'closed');
    for (const f of this.early.splice(0)) f.reject(err);
  }

  /** Our id in the room (the server's; new after each reconnect). */
  get id() {
    return this.mesh ? this.mesh.myId : null;
  }

  /** Our identity: the first 16 hex digits of our certificate's SHA-256 fingerprint. */
  get fingerprint() {
    return this.broker.fp;
  }

  /** The peers whose channel is open: {id, fp, zq (said hello), classified}. */
  peers() {
    return this.broker.openPeers().map((p) => ({ id: p.id, fp: p.fp, zq: p.zq,
      classified: p.classified }));
  }

  get stats() {
    return { ...this.broker.stats };
  }

  // ---- Events --------------------------------------------------------------------------------

  /** Listens to an event: peer, peer_left, peer_down, lost, undelivered, dead_letter,
   *  job_done, dlq, connected, disconnected, peer_failed, peer_unreachable, waiting, error.
   *  @returns a function that stops listening. */
  on(event, fn) {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event).add(fn);
    return () => this.off(event, fn);
  }

  off(event, fn) {
    this.listeners.get(event)?.delete(fn);
  }

  emit(event, data) {
    if (event === 'error' && !this.listeners.get('error')?.size) {
      (this.opts.log ?? globalThis.console.error)(`zq.js: ${data && data.stack ? data.stack : data}`);
      return; /* nobody listens: said, not swallowed */
    }
    for (const fn of this.listeners.get(event) ?? []) {
      try {
        fn(data);
      } catch (err) {
        if (event !== 'error') this.emit('error', err);
      }
    }
  }

  // ---- ZeroQ's bookkeeping frames ------------------------------------------------------------

  /* ZeroQ sends these on a second WebSocket that never joins; zq.js sends them on the
   * signalling socket after its join (Mesh sends the join first), as zq's router lists only
   * what joined members announce (signal/router.c): one socket, and they are not lost when
   * sent before it opens. They feed the room's /api/topics and /api/queues lists only. */
  note(frame) {
    this.bookkeeping.set(JSON.stringify(frame), frame);
    if (this.mesh) return this.mesh.send(frame);
    return new Promise((resolve, reject) => this.early.push({ frame, resolve, reject }));
  }

  rejoined() {
    for (const frame of this.bookkeeping.values()) this.mesh.send(frame).catch(() => {});
  }

  /** ZeroQ's createTopic: the server lists it. @returns a promise: handed to the socket. */
  createTopic(topic) {
    if (typeof topic !== 'string' || topic.length === 0) {
      return Promise.reject(new ZQError('MALFORMED', 'a topic is a non-empty string'));
    }
    return this.note({ type: 'create_topic', topic });
  }

  /** ZeroQ's createQueue: the server lists it. @returns a promise: handed to the socket. */
  createQueue(queue) {
    if (typeof queue !== 'string' || queue.length === 0) {
      return Promise.reject(new ZQError('MALFORMED', 'a queue name is a non-empty string'));
    }
    return this.note({ type: 'create_queue', queue });
  }

  // ---- Topics --------------------------------------------------------------------------------

  /** Subscribes @p handler(msg) to topics matching @p pattern (PROTOCOL.md §3). Throws
   *  MALFORMED for an unusable pattern, saying why (patternProblem). @returns a function that
   *  unsubscribes. */
  subscribe(pattern, handler) {
    const off = this.broker.subs.subscribe(pattern, handler);
    this.note({ type: 'subscribe', topic: pattern }).catch(() => {});
    return off;
  }

  /** Removes @p handler, or every handler, of @p pattern. @returns whether there was one. */
  unsubscribe(pattern, handler) {
    return this.broker.subs.unsubscribe(pattern, handler);
  }

  /** Publishes @p payload (any JSON value) on @p topic.
   *  @returns a promise: QoS 0 resolves once handed to every connected peer's channel; QoS 1
   *  once every receiver acked it (see web/zq.d.ts for every rejection). */
  publish(topic, payload, opts) {
    return this.broker.pub.publish(topic, payload, opts);
  }

  // ---- Work queues ---------------------------------------------------------------------------

  /** Hands a job to exactly one consumer in the mesh; this node keeps it until done. */
  enqueue(queue, payload, opts) {
    return this.broker.producer.enqueue(queue, payload, opts);
  }

  /** Consumes @p queue: @p handler(msg, ack, nack), at most `credit` jobs at once.
   *  @returns a function that stops consuming. */
  consume(queue, handler, opts) {
    const stop = this.broker.consumer.consume(queue, handler, opts);
    this.note({ type: 'consume', queue }).catch(() => {});
    return stop;
  }

  /** Dead letters of @p queue held here, and with {remote: true} those of every zq peer. */
  async deadLetters(queue, { remote = false, timeout = 1000 } = {}) {
    const local = this.broker.producer.listLocal(queue);
    if (!remote) return local;
    return [...local, ...await this.broker.producer.remote(queue, 'list', timeout)];
  }

  /** Puts the dead letters of @p queue back in the queue (attempts reset). @returns how many
   *  here; with {remote: true} every zq producer is asked to do the same. */
  async requeueDeadLetters(queue, { remote = false } = {}) {
    const n = this.broker.producer.requeue(queue);
    if (remote) await this.broker.producer.remote(queue, 'requeue');
    return n;
  }

  /** Deletes the dead letters of @p queue. @returns how many here (and asks peers with
   *  {remote: true}). */
  async purgeDeadLetters(queue, { remote = false } = {}) {
    const n = this.broker.producer.purge(queue);
    if (remote) await this.broker.producer.remote(queue, 'purge');
    return n;
  }

  // ---- Request and reply ---------------------------------------------------------------------

  /** Asks one responder of @p service. @returns a promise of its answer. */
  request(service, payload, opts) {
    return this.broker.rpc.request(service, payload, opts);
  }

  /** Answers requests to @p service with @p handler(payload, msg) (its value, or a promise of
   *  it; a throw refuses). @returns a function that stops answering. */
  reply(service, handler) {
    const stop = this.broker.rpc.reply(service, handler);
    this.note({ type: 'subscribe', topic: service }).catch(() => {});
    return stop;
  }
}

export default ZQ;

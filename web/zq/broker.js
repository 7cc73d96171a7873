// The broker (broker/PROTOCOL.md) over one node's data channels: zq's frames with zq peers,
// ZeroQ's with plain ZeroQ peers. Pure: it never touches a browser global. The mesh (mesh.js)
// hands it links; tests hand it fake ones.
//
//   broker.js   peers: hello, sub, heartbeat, reading (chunks), sending (backpressure, chunks),
//               dispatch of every frame to its module
//   publish.js  publishing: seq, replay ring, fan-out by interest, QoS 1 acks, resume, LVC
//   deliver.js  receiving messages: subscriptions, dedup, acks owed, resume points
//   queue.js    work queues: producer (jobs, credit, leases, dead letters) and consumer
//   rpc.js      services and requests, zq's form and ZeroQ's
//
// A link is what the mesh gives for one open data channel:
//   { id, fp, maxMessageSize, bufferedAmount (getter), send(string | Uint8Array), close(why) }
// and the mesh calls linkUp(link) when it opens, linkData(peer, data) per message, linkDrain
// (peer) when bufferedAmount fell below lowWater, linkDown(peer) when it closed.

import { ZQError } from './errors.js';
import { Reassembler, splitChunks, utf8Length, CHUNK_HEADER } from './chunk.js';
import * as wire from './wire.js';
import { Publisher } from './publish.js';
import { Subscriber } from './deliver.js';
import { Producer, Consumer } from './queue.js';
import { Rpc } from './rpc.js';

/** Frames only a zq peer sends, and only after its hello. */
const ZQ_ONLY = new Set(['sub', 'ack', 'lost', 'ready', 'done', 'dlq', 'dlqJobs', 'rep']);

export const DEFAULTS = {
  maxFrame: 4 * 1024 * 1024, // hello's "max": our reassembly limit, and the largest we send
  ringEntries: 4096,         // replay ring: messages...
  ringBytes: 32 * 1024 * 1024, // ...and bytes of frame text
  lingerMs: 60000,           // a QoS 1 receiver away this long is given up (§5)
  leaseMs: 30000,            // a job's visibility timeout (§6)
  maxAttempts: 3,            // a job's attempts before the dead-letter queue (ZeroQ's 3)
  maxJobs: 10000,            // jobs held by this producer
  ackDelayMs: 20,            // QoS 1 acks batched this long at most (§5)
  ackEvery: 32,              // ...or this many messages
  requestTimeoutMs: 5000,    // ZeroQ's default
  requestRetries: 2,
  pingMs: 10000,             // ZeroQ's heartbeat
  silenceMs: 30000,          // a peer silent this long is dropped
  helloWaitMs: 1000,         // a silent new peer is taken for a ZeroQ one after this
  helloRetryMs: 500,         // a zq peer whose sub has not come this long after its hello
  helloRetries: 3,           // is sent our hello again, this many times at most (§2)
  highWater: 1024 * 1024,    // stop handing frames to a channel above this bufferedAmount
  lowWater: 256 * 1024,      // and go on below this (the channel's bufferedAmountLowThreshold)
  maxPiece: 64 * 1024,       // largest chunk message (header included), within the channel's
  lvcTopics: 1024,           // last values kept (topics)
  dedupWindow: 10000,        // ZeroQ's SEEN_LIMIT
  maxReceivers: 256,         // QoS 1 receivers tracked by identity
  maxPublishers: 64,         // publishers whose resume points are kept
};

/** Everything one connected peer is to the broker. */
class Peer {
  constructor(link, now, maxFrame) {
    this.link = link;
    this.id = link.id;
    /* identity: its certificate's fingerprint (§0); without one, nothing to key it by */
    this.fp = link.fp || `?${link.id}`;
    this.open = true;
    this.openedAt = now;
    this.lastRx = now;
    this.classified = false; /* its first frame arrived, or helloWaitMs went by */
    this.helloLost = false;  /* its zq frames came before its hello: it waits for the hello */
    this.zq = false;         /* its hello arrived */
    this.features = new Set();
    this.maxFrame = Infinity;
    this.epoch = undefined;
    this.wantsAll = true;    /* a ZeroQ peer wants everything; a hello says otherwise */
    this.topics = [];
    this.services = [];
    this.subReceived = false;
    this.credit = new Map(); /* its credit for queues we produce */
    this.reasm = new Reassembler(maxFrame);
    this.urgent = [];        /* small control frames: sent past the high-water mark */
    this.queued = [];        /* other frames (jobs, replies, requests, last values) */
    this.timers = new Set();
    /* publishing to it (publish.js) */
    this.receiver = null;
    this.sentSeq = 0;
    this.resumed = false;
    /* taken for ZeroQ without a hello: our seqs from zeroqFrom on went in ZeroQ's form, up to
     * zeroqTo when a late hello came; its replay skips them (0, 0: none; §2) */
    this.zeroqFrom = 0;
    this.zeroqTo = 0;
    this.seenTopics = new Set();
    /* acks it is owed (deliver.js) */
    this.ack = { due: false, ep: undefined, upto: 0, owed: 0, timer: null };
  }
}

export class Broker {
  /**
   * @param {object} o
   * @param {{now(): number, wall(): number, setTimeout(fn, ms), clearTimeout(h)}} o.clock
   * @param {(n: number) => Uint8Array} o.random
   * @param {string} o.fp our identity: 16 hex digits of our certificate's SHA-256
   * @param {(event: string, data: object) => void} o.emit
   * @param {{get(key): string|null, set(key, value)}} [o.storage] resume points
   * @param {object} [o.config] DEFAULTS overrides
   */
  constructor(o) {
    this.clock = o.clock;
    this.random = o.random;
    this.fp = o.fp;
    this.emit = o.emit || (() => {});
    this.cfg = { ...DEFAULTS, ...(o.config || {}) };
    this.peers = new Set();
    this.chunkId = 0;
    this.closed = false;
    this.timers = new Set();
    this.subScheduled = false;
    this.stats = {
      rxFrames: 0, rxMalformed: 0, rxUnknown: 0, rxTooLong: 0, rxDuplicates: 0, rxUnwanted: 0,
      rxBadPatterns: 0, rxGossip: 0, txFrames: 0, txChunks: 0, lostAnnounced: 0, undelivered: 0,
      jobsDone: 0, jobsFailed: 0, jobsDead: 0, jobsRedelivered: 0, jobsBusy: 0, jobsRefused: 0,
      zeroqResent: 0, zeroqDead: 0, helloResent: 0,
      requestsRetried: 0, requestsFailed: 0, peersTimedOut: 0,
    };
    this.pub = new Publisher(this);
    this.subs = new Subscriber(this, o.storage);
    this.producer = new Producer(this);
    this.consumer = new Consumer(this);
    this.rpc = new Rpc(this);
  }

  now() {
    return this.clock.now();
  }

  /** A timer that close() clears; per peer when @p peer is given. */
  timer(ms, fn, peer) {
    const h = this.clock.setTimeout(() => {
      (peer ? peer.timers : this.timers).delete(h);
      if (!this.closed) fn();
    }, ms);
    (peer ? peer.timers : this.timers).add(h);
    return h;
  }

  cancel(h, peer) {
    if (h == null) return;
    this.clock.clearTimeout(h);
    (peer ? peer.timers : this.timers).delete(h);
  }

  /** Random lowercase hex of @p n bytes. */
  hex(n) {
    return [...this.random(n)].map((b) => b.toString(16).padStart(2, '0')).join('');
  }

  /** A UUID v4 (RFC 9562 §5.4), as ZeroQ's crypto.randomUUID() makes message ids. */
  uuid() {
    const r = this.random(16);
    r[6] = (r[6] & 0x0f) | 0x40;
    r[8] = (r[8] & 0x3f) | 0x80;
    const h = [...r].map((b) => b.toString(16).padStart(2, '0')).join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  openPeers() {
    return [...this.peers].filter((p) => p.open);
  }

  // ---- Links up and down ---------------------------------------------------------------------

  /** A data channel opened: hello goes first (§2). @returns the Peer to pass back. */
  linkUp(link) {
    const p = new Peer(link, this.now(), this.cfg.maxFrame);
    this.peers.add(p);
    this.pub.peerUp(p);
    this.sendHello(p);
    this.timer(this.cfg.helloWaitMs, () => this.silent(p), p);
    this.heartbeat(p);
    return p;
  }

  sendHello(p) {
    this.sendUrgent(p, wire.writeHello({
      v: wire.PROTOCOL_VERSION, epoch: this.pub.epoch, max: this.cfg.maxFrame,
      feat: wire.FEATURES, resume: this.subs.resumePoints(),
    })).catch(() => {});
  }

  /**
   * A zq peer answers our hello with its sub (§2, §3). When its sub has not come
   * helloRetryMs after its hello, our hello is taken for lost and sent again: Chromium 156
   * was seen to drop the first message sent on a channel it accepted, its send() returning
   * as if sent; the peer then took us for ZeroQ and never sent its sub.
   */
  awaitSub(p, retries) {
    this.timer(this.cfg.helloRetryMs, () => {
      if (!p.open || p.subReceived || retries === 0) return;
      this.stats.helloResent++;
      this.sendHello(p);
      this.awaitSub(p, retries - 1);
    }, p);
  }

  /** The channel closed (or failed): every module lets go of the peer. */
  linkDown(p) {
    if (!p.open) return;
    p.open = false;
    for (const h of p.timers) this.clock.clearTimeout(h);
    p.timers.clear();
    const gone = new ZQError('PEER_GONE', `peer ${p.id} went away`);
    for (const item of [...p.urgent, ...p.queued]) item.done?.(gone);
    p.urgent = [];
    p.queued = [];
    this.pub.peerDown(p);
    this.producer.peerDown(p);
    this.consumer.peerDown(p);
    this.rpc.peerDown(p);
    this.peers.delete(p);
    this.emit('peer_down', { id: p.id, fp: p.fp, zq: p.zq });
  }

  /** The channel's buffer drained below lowWater: go on sending. */
  linkDrain(p) {
    this.flush(p);
  }

  /** helloWaitMs went by with no hello: a peer that said nothing, or whose hello still has not
   *  come again after its zq frames (one more helloWaitMs), is taken for ZeroQ. */
  silent(p, more = 1) {
    if (p.helloLost && !p.classified && more > 0) {
      this.timer(this.cfg.helloWaitMs, () => this.silent(p, more - 1), p);
    } else {
      this.classify(p);
    }
  }

  /** Its first frame, or helloWaitMs of silence: from now on it is zq or ZeroQ. */
  classify(p) {
    if (p.classified || !p.open) return;
    p.classified = true;
    if (!p.zq) this.pub.takenForZeroq(p);
    this.emit('peer', { id: p.id, fp: p.fp, zq: p.zq });
    this.pumpAll();
    this.rpc.pump();
  }

  // ZeroQ's heartbeat: a ping every pingMs; a peer silent silenceMs is closed (detection in
  // silenceMs..silenceMs + pingMs, as ZeroQ's).
  heartbeat(p) {
    this.timer(this.cfg.pingMs, () => {
      if (!p.open) return;
      if (this.now() - p.lastRx >= this.cfg.silenceMs) {
        this.stats.peersTimedOut++;
        p.link.close('ping-timeout');
        return;
      }
      this.sendUrgent(p, wire.writePing());
      this.heartbeat(p);
    }, p);
  }

  // ---- Sending -------------------------------------------------------------------------------

  /**
   * Hands @p text to the peer's channel now: whole when it fits the channel's message size,
   * in chunks (§8) when it does not but the peer takes chunks. @returns null, or the ZQError
   * that kept it from being sent.
   */
  transmit(p, text) {
    const n = utf8Length(text);
    if (n > p.maxFrame || n > this.cfg.maxFrame) {
      return new ZQError('TOO_LONG', `frame of ${n} bytes exceeds peer ${p.id}'s limit ` +
        `(${Math.min(p.maxFrame, this.cfg.maxFrame)})`);
    }
    const mms = p.link.maxMessageSize > 0 ? p.link.maxMessageSize : Infinity;
    try {
      if (n <= mms) {
        p.link.send(text);
      } else if (p.zq && p.features.has('chunk')) {
        const piece = Math.min(mms, this.cfg.maxPiece) - CHUNK_HEADER;
        this.chunkId = (this.chunkId + 1) >>> 0;
        const pieces = splitChunks(new TextEncoder().encode(text), this.chunkId, piece);
        for (const m of pieces) p.link.send(m); /* all at once: nothing between them (§8) */
        this.stats.txChunks += pieces.length;
      } else {
        return new ZQError('TOO_LONG', `frame of ${n} bytes exceeds the channel's ` +
          `max-message-size ${mms} and peer ${p.id} takes no chunks`);
      }
    } catch (e) {
      return e instanceof ZQError ? e : new ZQError('PEER_GONE', `send to ${p.id}: ${e.message}`);
    }
    this.stats.txFrames++;
    return null;
  }

  room(p) {
    return p.open && p.link.bufferedAmount < this.cfg.highWater;
  }

  /** Small control frames (hello, sub, ping, pong, ack, ready, done, lost, dlq) go at once,
   *  past the high-water mark, in order (ZeroQ's control frames skip its check too). */
  sendUrgent(p, text) {
    return this.enqueueFrame(p, p.urgent, text);
  }

  /** Other frames wait for room. @returns a promise: resolves when handed to the channel. */
  sendFrame(p, text) {
    return this.enqueueFrame(p, p.queued, text);
  }

  enqueueFrame(p, queue, text) {
    if (!p.open) return Promise.reject(new ZQError('PEER_GONE', `peer ${p.id} is gone`));
    return new Promise((resolve, reject) => {
      queue.push({ text, done: (err) => (err ? reject(err) : resolve()) });
      this.flush(p);
    });
  }

  /** Sends what the peer is owed while its channel has room: urgent frames, queued frames,
   *  then the replay ring's messages (publish.js). */
  flush(p) {
    if (p.flushing) return; /* re-entered from a callback: the outer loop goes on */
    p.flushing = true;
    try {
      while (p.open && p.urgent.length > 0) {
        const item = p.urgent.shift();
        item.done(this.transmit(p, item.text));
      }
      while (this.room(p)) {
        if (p.queued.length > 0) {
          const item = p.queued.shift();
          item.done(this.transmit(p, item.text));
        } else if (!this.pub.pumpOne(p)) {
          break;
        }
      }
    } finally {
      p.flushing = false;
    }
  }

  /** sub carries patterns ("sub") and services ("rpc"). */
  takesSub(p) {
    return p.zq && (p.features.has('sub') || p.features.has('rpc'));
  }

  pumpAll() {
    for (const p of this.openPeers()) this.flush(p);
  }

  /** Our patterns or services changed: every zq peer hears the whole set (§3), once per turn. */
  subChanged() {
    if (this.subScheduled) return;
    this.subScheduled = true;
    queueMicrotask(() => {
      this.subScheduled = false;
      const text = wire.writeSub(this.subs.patterns(), this.rpc.serviceNames());
      for (const p of this.openPeers()) if (this.takesSub(p)) this.sendUrgent(p, text).catch(() => {});
    });
  }

  // ---- Receiving -----------------------------------------------------------------------------

  /** One data channel message: text, or binary (a chunk). */
  linkData(p, data) {
    if (!p.open) return;
    p.lastRx = this.now();
    let text;
    if (typeof data === 'string') {
      p.reasm.text();
      text = data;
      if (text.length > this.cfg.maxFrame || (text.length * 3 > this.cfg.maxFrame &&
          utf8Length(text) > this.cfg.maxFrame)) {
        this.stats.rxTooLong++;
        return;
      }
    } else {
      const before = p.reasm.dropped;
      text = p.reasm.push(data);
      this.stats.rxMalformed += p.reasm.dropped - before;
      if (text === null) return;
    }
    this.handleFrame(p, text);
    this.flush(p);
  }

  handleFrame(p, text) {
    this.stats.rxFrames++;
    const f = wire.parseFrame(text);
    if (!f) {
      this.stats.rxMalformed++;
      return;
    }
    const type = wire.frameType(f.obj);
    if (type === 'hello') this.onHello(p, f.obj, f.inexact);
    /* A zq frame before the hello: the hello was lost on the way (Chromium 156 drops a first
     * message now and then) and comes again. Taken for ZeroQ now, the peer would be sent
     * ZeroQ's form until then, and its hello's resume point would replay that (§2). */
    if (!p.classified && !p.zq && ZQ_ONLY.has(type)) p.helloLost = true;
    else if (!p.classified) this.classify(p); /* a hello, or a ZeroQ peer's first frame */
    this.dispatch(p, type, f.obj, f.inexact);
  }

  dispatch(p, type, obj, inexact) {
    switch (type) {
      case 'envelope': return this.onEnvelope(p, obj, inexact);
      case 'ping': return void this.sendUrgent(p, wire.writePong()).catch(() => {});
      case 'pong': return undefined;
      /* Gossip is read and counted, never dialed: the signalling server already tells every
       * member about every other, and dialing gossiped ids is how ZeroQ meshes end in glare
       * (PROTOCOL.md §1, zeroq-wire.md §2 hazard 3). */
      case 'gossip': this.stats.rxGossip++; this.lastGossip = wire.gossipCount(obj); return undefined;
      case 'hello': return undefined; /* handled before classification */
      case 'sub': return this.onSub(p, obj);
      case 'ack': return this.read(wire.readAck(obj, inexact), (a) => this.pub.onAck(p, a));
      case 'lost': return this.read(wire.readLost(obj, inexact), (l) => this.subs.onLost(p, l));
      case 'ready': return this.read(wire.readReady(obj), (r) => this.producer.onReady(p, r));
      case 'done': return this.read(wire.readDone(obj), (d) => this.producer.onDone(p, d));
      case 'dlq': return this.read(wire.readDlq(obj), (d) => this.producer.onDlq(p, d));
      case 'dlqJobs': return this.read(wire.readDlqJobs(obj), (d) => this.producer.onDlqJobs(p, d));
      case 'rep': return this.read(wire.readRep(obj), (r) => this.rpc.onRep(p, r));
      default: this.stats.rxUnknown++; return undefined;
    }
  }

  read(frame, fn) {
    if (frame === null) this.stats.rxMalformed++;
    else fn(frame);
  }

  onHello(p, obj, inexact) {
    const h = wire.readHello(obj, inexact);
    if (!h) {
      this.stats.rxMalformed++;
      return;
    }
    const again = p.zq; /* a hello again: its sender still waits for our sub (§2) */
    p.zq = true;
    p.features = new Set(h.feat);
    p.maxFrame = h.max;
    p.epoch = h.epoch;
    /* zq frames only go to peers whose hello listed their feature (§2). A peer without "sub"
     * never says what it wants: it gets everything, as a ZeroQ peer does. */
    const early = !again && p.subReceived; /* its sub came first: its hello was lost */
    if (!again && !early) {
      p.wantsAll = !p.features.has('sub'); /* else until its sub says what it wants */
      p.subReceived = !p.features.has('sub');
    }
    if (!again) this.awaitSub(p, this.cfg.helloRetries);
    if (this.takesSub(p)) {
      this.sendUrgent(p, wire.writeSub(this.subs.patterns(), this.rpc.serviceNames())).catch(() => {});
    }
    this.consumer.peerHello(p);
    if (again) return; /* its resume point was taken: taking it again would replay */
    for (const r of h.resume) {
      if (r.fp === this.fp && r.epoch === this.pub.epoch) this.pub.resume(p, r.seq);
    }
    if (early) this.pub.subChanged(p, null); /* last values, now that resume points are known */
  }

  onSub(p, obj) {
    const s = wire.readSub(obj);
    if (!s) {
      this.stats.rxMalformed++;
      return;
    }
    const before = p.subReceived ? p.topics : null;
    this.pub.storeInterest(p, s);
    p.services = s.services.filter((n) => n.length > 0);
    p.subReceived = true;
    this.pub.subChanged(p, before);
    this.rpc.pump();
  }

  // An envelope: a request to a service we serve, a job (zq's "k", or a ZeroQ broadcast on a
  // queue we consume: ZeroQ shares one namespace), the reply to a ZeroQ-form request of ours,
  // or else a message for the subscriptions (broker/brk.c on_envelope).
  onEnvelope(p, obj, inexact) {
    const e = wire.readEnvelope(obj, inexact);
    if (!e) {
      this.stats.rxMalformed++;
      return;
    }
    const zeroq = !p.zq;
    if ((e.kind === 'req' || e.replyTo !== undefined) && this.rpc.onRequest(p, e)) return;
    if (e.kind === 'job' || (zeroq && this.consumer.consumes(e.topic))) {
      this.consumer.onJob(p, e);
      return;
    }
    if (zeroq && this.rpc.onZeroqReply(p, e)) return;
    if (e.kind === 'message') this.subs.onMessage(p, e);
  }

  /** Stops everything: timers, and every promise still waiting rejects with CLOSED. */
  close() {
    if (this.closed) return;
    for (const p of [...this.peers]) this.linkDown(p);
    this.closed = true;
    for (const h of this.timers) this.clock.clearTimeout(h);
    this.timers.clear();
    const err = new ZQError('CLOSED', 'closed');
    this.pub.close(err);
    this.producer.close(err);
    this.rpc.close(err);
  }
}

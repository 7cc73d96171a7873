// Publishing (PROTOCOL.md §4, §5, §7; broker/publish.c). Every message gets the next seq of
// our epoch and goes into the replay ring; each peer is sent the ring's entries it wants, in
// seq order, from its own cursor, as its channel has room. So a slow peer is served at its
// pace, a returning one is replayed to, and QoS 1 is the ring refusing to forget what a
// receiver has not acked. Pure.
//
// What a publish promise means: it resolves once every peer connected when it was published
// has been handed the message (or passed over, not wanting it) and, for QoS 1, once every
// receiver owed it (connected or lingering) acked it. It rejects, listing each failure, when
// a peer could not take the frame (TOO_LONG), went away before it was handed over
// (PEER_GONE), or was a QoS 1 receiver given up after the linger time (UNDELIVERED).

import { ZQError } from './errors.js';
import { ReplayRing } from './ring.js';
import { matchesAny, matchPattern, checkPattern, topicProblem } from './match.js';
import { utf8Length } from './chunk.js';
import * as wire from './wire.js';

/** Seqs that went to @p p in ZeroQ's form before its late hello (§2). */
function sentInZeroqForm(p, seq) {
  return seq >= p.zeroqFrom && seq <= p.zeroqTo;
}

/** What a peer that delivered up to @p seq has: what went to it in ZeroQ's form is never acked
 *  on its own (ZeroQ has no acks), so an ack or resume point just before it covers it. */
function deliveredUpTo(p, seq) {
  return sentInZeroqForm(p, seq + 1) ? p.zeroqTo : seq;
}

export class Publisher {
  constructor(b) {
    this.b = b;
    do {
      this.epoch = b.hex(4);
    } while (this.epoch === '00000000');
    this.nextSeq = 1;
    this.ring = new ReplayRing({
      maxEntries: b.cfg.ringEntries, maxBytes: b.cfg.ringBytes,
      canEvict: (e) => this.handedToAll(e),
    });
    this.receivers = new Map(); /* identity -> QoS 1 receiver, connected or lingering */
    this.lvc = new Map();       /* topic -> {seq, text}: the last value of each topic */
    this.waiting = [];          /* publishes waiting for room in the ring (the HWM) */
    this.drainScheduled = false;
  }

  /** An entry may leave the ring once every connected peer's cursor is past it: a slow
   *  channel makes the publisher wait, it never loses a connected peer's messages. */
  handedToAll(e) {
    for (const p of this.b.peers) if (p.open && p.sentSeq < e.seq) return false;
    return true;
  }

  // ---- Publishing ----------------------------------------------------------------------------

  publish(topic, payload, { qos = 0, wait = true } = {}) {
    if (typeof topic !== 'string') {
      return Promise.reject(new ZQError('MALFORMED', 'a topic is a string'));
    }
    const why = topicProblem(topic); /* '+' and '#' are for patterns (MQTT 3.1.1 §4.7.1.1) */
    if (why !== null) {
      return Promise.reject(new ZQError('MALFORMED', `cannot publish on '${topic}': ${why}`));
    }
    if (qos !== 0 && qos !== 1) return Promise.reject(new ZQError('MALFORMED', 'qos is 0 or 1'));
    let payloadText;
    try {
      payloadText = wire.jsonText(payload);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise((resolve, reject) => {
      this.waiting.push({ topic, payloadText, qos, wait, resolve, reject });
      this.drain();
    });
  }

  scheduleDrain() {
    if (this.drainScheduled || this.waiting.length === 0) return;
    this.drainScheduled = true;
    queueMicrotask(() => {
      this.drainScheduled = false;
      if (!this.b.closed) this.drain();
    });
  }

  /** Appends waiting publishes to the ring, in call order, while it has room. */
  drain() {
    while (this.waiting.length > 0) {
      const w = this.waiting[0];
      const entry = this.entryFor(w);
      const r = entry.bytes > this.b.cfg.maxFrame ? 'too-long' : this.ring.append(entry);
      if (r === 'full' && w.wait) { /* an ack, a cursor or a departure makes room */
        this.refuseWaiting();
        return;
      }
      this.waiting.shift();
      if (r !== 'ok') {
        w.reject(r === 'full'
          ? new ZQError('WOULD_BLOCK', 'the replay ring is full of messages owed to peers')
          : new ZQError('TOO_LONG', `a frame of ${entry.bytes} bytes cannot be published`));
        continue;
      }
      this.nextSeq++;
      entry.tracker = this.track(entry, w);
      this.lvcStore(entry);
      this.b.pumpAll();
      this.settle(entry);
    }
  }

  /** Publishes that asked not to wait, queued behind one that waits: refused now. */
  refuseWaiting() {
    this.waiting = this.waiting.filter((w, i) => {
      if (i === 0 || w.wait) return true;
      w.reject(new ZQError('WOULD_BLOCK', 'the replay ring is full of messages owed to peers'));
      return false;
    });
  }

  entryFor(w) {
    const seq = this.nextSeq;
    const id = this.b.uuid();
    const timestamp = Math.trunc(this.b.clock.wall());
    const text = wire.writeEnvelope({
      id, topic: w.topic, payloadText: w.payloadText, timestamp, seq, ep: this.epoch, q: w.qos,
    });
    const pending = w.qos === 1 ? this.pendingFor(w.topic) : new Set();
    return {
      seq, id, topic: w.topic, text, plain: null, bytes: utf8Length(text), qos: w.qos, pending,
      payloadText: w.payloadText, timestamp, tracker: null,
    };
  }

  /** The obligations of one publish: peers to hand it to, receivers to ack it. */
  track(entry, w) {
    const t = {
      handed: new Set(), acks: new Set(entry.pending), failures: [], done: false,
      resolve: w.resolve, reject: w.reject,
    };
    for (const p of this.b.peers) {
      if (p.open && !(p.receiver && entry.pending.has(p.receiver))) t.handed.add(p);
    }
    return t;
  }

  settle(e) {
    const t = e.tracker;
    if (!t || t.done || t.handed.size > 0 || t.acks.size > 0) return;
    t.done = true;
    e.tracker = null;
    if (t.failures.length === 0) {
      t.resolve({ id: e.id, seq: e.seq, topic: e.topic });
      return;
    }
    const f = t.failures[0];
    t.reject(new ZQError(f.code, `message ${e.seq} on '${e.topic}': ` +
      t.failures.map((x) => `${x.peer ?? x.fp}: ${x.message}`).join('; '),
    { failures: t.failures, id: e.id, seq: e.seq }));
  }

  fail(e, who, err) {
    e.tracker.failures.push({ ...who, code: err.code, message: err.message });
  }

  // ---- Interest ------------------------------------------------------------------------------

  /** A peer's sub: its patterns; a pattern too many or unusable makes it want everything
   *  (more traffic, never a loss: §3). Unusable ones are counted (an older zq's literal
   *  "sensors#", or a broken peer's). */
  storeInterest(p, s) {
    p.topics = s.topics.filter(checkPattern);
    this.b.stats.rxBadPatterns += s.topics.length - p.topics.length;
    p.wantsAll = s.tooMany || p.topics.length < s.topics.length || !p.features.has('sub');
  }

  wants(p, topic) {
    if (p.zq && !p.subReceived) return false; /* not yet: its cursor waits for its sub */
    return p.wantsAll || matchesAny(p.topics, topic);
  }

  textFor(p, e) {
    if (p.zq) return e.text;
    /* A ZeroQ peer gets a plain envelope (§9): ZeroQ's six members, no ep, no q. */
    e.plain ??= wire.writeEnvelope({
      id: e.id, topic: e.topic, payloadText: e.payloadText, timestamp: e.timestamp,
    });
    return e.plain;
  }

  // ---- Fan-out -------------------------------------------------------------------------------

  /** Sends or passes over the next ring entry for @p p. @returns false when there is none. */
  pumpOne(p) {
    if (!p.classified || (p.zq && !p.subReceived)) return false;
    this.skipEvicted(p);
    const i = this.ring.indexAfter(p.sentSeq);
    if (i < 0) return false;
    const e = this.ring.at(i);
    let err = null;
    if (!sentInZeroqForm(p, e.seq) && this.wants(p, e.topic)) {
      err = this.b.transmit(p, this.textFor(p, e));
      this.seen(p, e.topic);
    }
    p.sentSeq = e.seq;
    this.passed(e, p, err);
    this.scheduleDrain(); /* a cursor moved: the oldest entry may go now */
    return true;
  }

  /** Topics a peer was sent, for the last-value cache; only cached topics matter, so the
   *  set is trimmed to those when it outgrows the cache. */
  seen(p, topic) {
    p.seenTopics.add(topic);
    if (p.seenTopics.size > 2 * this.b.cfg.lvcTopics) {
      for (const t of p.seenTopics) if (!this.lvc.has(t)) p.seenTopics.delete(t);
    }
  }

  passed(e, p, err) {
    const t = e.tracker;
    if (!t || !t.handed.delete(p)) return;
    if (err) this.fail(e, { peer: p.id }, err);
    this.settle(e);
  }

  /** Entries the ring dropped before this peer got them: a zq peer is told (§7), less an end
   *  in what it had in ZeroQ's form (a range around all of that says too much, never too
   *  little). */
  skipEvicted(p) {
    const first = this.ring.firstSeq;
    if (p.sentSeq + 1 >= first) return;
    const from = sentInZeroqForm(p, p.sentSeq + 1) ? p.zeroqTo + 1 : p.sentSeq + 1;
    const to = sentInZeroqForm(p, first - 1) ? p.zeroqFrom - 1 : first - 1;
    if (p.zq && p.features.has('replay') && from <= to) {
      this.b.stats.lostAnnounced++;
      this.b.sendUrgent(p, wire.writeLost({ ep: this.epoch, from, to })).catch(() => {});
    }
    p.sentSeq = first - 1;
  }

  // ---- QoS 1 receivers, by identity ----------------------------------------------------------

  receiverOf(p) {
    if (p.receiver || !p.features.has('qos1')) return p.receiver;
    let rc = this.receivers.get(p.fp);
    if (!rc) {
      if (this.receivers.size >= this.b.cfg.maxReceivers) return null; /* sent as QoS 0 */
      rc = { fp: p.fp, peer: null, acked: 0, topics: [], wantsAll: false, linger: null };
      this.receivers.set(p.fp, rc);
    }
    this.b.cancel(rc.linger);
    rc.linger = null;
    rc.peer = p;
    p.receiver = rc;
    return rc;
  }

  /** Receivers that must ack a QoS 1 message on @p topic: every QoS 1 peer that wants it
   *  now, and every one away (or back but not subscribed yet) that wanted it when it left. */
  pendingFor(topic) {
    const set = new Set();
    for (const p of this.b.peers) {
      if (p.open && p.zq && this.wants(p, topic)) {
        const rc = this.receiverOf(p);
        if (rc) set.add(rc);
      }
    }
    for (const rc of this.receivers.values()) {
      const away = !rc.peer || !rc.peer.subReceived;
      if (away && (rc.wantsAll || matchesAny(rc.topics, topic))) set.add(rc);
    }
    return set;
  }

  onAck(p, a) {
    const rc = p.receiver;
    if (a.ep !== this.epoch || !rc) return; /* an earlier run of ours, or no QoS 1 tracked */
    this.ackUpTo(rc, deliveredUpTo(p, a.upto));
  }

  ackUpTo(rc, upto) {
    rc.acked = Math.max(rc.acked, upto);
    for (const e of this.ring.ack(rc, upto)) {
      if (e.tracker?.acks.delete(rc)) this.settle(e);
    }
    this.scheduleDrain();
  }

  // ---- Peers coming and going ----------------------------------------------------------------

  peerUp(p) {
    p.sentSeq = this.nextSeq - 1; /* live from now on; a receiver or resume rewinds it */
    const rc = this.receivers.get(p.fp);
    if (rc) { /* a QoS 1 receiver back: everything it has not acked goes again */
      this.b.cancel(rc.linger);
      rc.linger = null;
      rc.peer = p;
      p.receiver = rc;
      p.sentSeq = Math.min(rc.acked, p.sentSeq);
    }
  }

  /** The peer is taken for ZeroQ with no hello of its own: what goes to it now is ZeroQ's form. */
  takenForZeroq(p) {
    p.zeroqFrom = p.sentSeq + 1;
  }

  /** A hello's resume point for us (same epoch): it delivered everything up to @p seq. A zq
   *  peer taken for ZeroQ (its hello was lost, §2) has had our messages since then in ZeroQ's
   *  form, and delivered them: the replay goes around them. */
  resume(p, seq) {
    p.zeroqTo = p.zeroqFrom > 0 ? p.sentSeq : 0;
    p.sentSeq = Math.min(seq, this.nextSeq - 1);
    p.resumed = true;
    if (p.receiver) this.ackUpTo(p.receiver, deliveredUpTo(p, seq));
  }

  peerDown(p) {
    const rc = p.receiver;
    if (rc && rc.peer === p) { /* (not back on another channel already) */
      rc.peer = null;
      rc.wantsAll = p.wantsAll;
      rc.topics = [...p.topics];
      rc.linger = this.b.timer(this.b.cfg.lingerMs, () => this.giveUp(rc));
    }
    p.receiver = null;
    const gone = new ZQError('PEER_GONE', 'its channel closed before the message was handed over');
    for (const e of this.ring.entries) {
      if (e.tracker?.handed.delete(p)) {
        this.fail(e, { peer: p.id }, gone);
        this.settle(e);
      }
    }
    this.scheduleDrain();
  }

  /** A receiver away longer than the linger time: what it still owed is given up, and the
   *  application hears how much (never silent). */
  giveUp(rc) {
    if (rc.peer) return;
    this.receivers.delete(rc.fp);
    const owed = this.ring.forget(rc);
    const err = new ZQError('UNDELIVERED', `receiver ${rc.fp} stayed away longer than ` +
      `${this.b.cfg.lingerMs} ms`);
    for (const e of owed) {
      if (e.tracker?.acks.delete(rc)) {
        this.fail(e, { fp: rc.fp }, err);
        this.settle(e);
      }
    }
    if (owed.length > 0) {
      this.b.stats.undelivered += owed.length;
      this.b.emit('undelivered', { fp: rc.fp, count: owed.length });
    }
    this.scheduleDrain();
  }

  // ---- Last-value cache (§7) -----------------------------------------------------------------

  lvcStore(e) {
    this.lvc.delete(e.topic);
    this.lvc.set(e.topic, { seq: e.seq, text: e.text });
    if (this.lvc.size > this.b.cfg.lvcTopics) this.lvc.delete(this.lvc.keys().next().value);
  }

  /**
   * A peer's sub arrived: when it gained a pattern, it gets the cached last value of every
   * matching topic it has not already seen (§7), marked lvc:1. A peer that resumed from us is
   * replayed to instead, for the patterns it came back with. Values the ring will still send
   * it live (seq above its cursor) are left to the ring.
   */
  subChanged(p, before) {
    let gained;
    if (before === null) gained = p.resumed ? [] : (p.wantsAll ? ['#'] : p.topics);
    else gained = p.wantsAll ? ['#'] : p.topics.filter((t) => !before.includes(t));
    if (gained.length > 0 && p.features.has('replay')) { /* last values are §7's, as replay */
      for (const [topic, v] of this.lvc) {
        if (v.seq > p.sentSeq || p.seenTopics.has(topic)) continue;
        if (!gained.some((g) => matchPattern(g, topic))) continue;
        this.seen(p, topic);
        this.b.sendFrame(p, wire.markLastValue(v.text)).catch(() => {});
      }
    }
    this.b.flush(p);
  }

  close(err) {
    for (const w of this.waiting.splice(0)) w.reject(err);
    for (const e of this.ring.entries) {
      if (e.tracker && !e.tracker.done) {
        e.tracker.done = true;
        e.tracker.reject(err);
      }
    }
  }
}

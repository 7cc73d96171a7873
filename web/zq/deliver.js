// Receiving messages (PROTOCOL.md §4, §5, §7, §9; broker/deliver.c): local subscriptions,
// delivering each message once (by publisher seq from zq peers, by a window of (identity, id,
// retryCount) from ZeroQ peers), the acks QoS 1 owes, and the resume points a hello carries.
// Pure: resume points go through the storage it is given.

import { ZQError } from './errors.js';
import { DedupWindow } from './dedup.js';
import { patternProblem, matchPattern } from './match.js';
import * as wire from './wire.js';

const STORAGE_KEY = 'resume';
const FP = /^[0-9a-f]{16}$/;

export class Subscriber {
  constructor(b, storage) {
    this.b = b;
    this.storage = storage || null;
    this.subs = new Map(); /* pattern -> Set of handlers */
    this.dedup = new DedupWindow(b.cfg.dedupWindow);
    this.publishers = new Map(); /* identity -> {epoch, lastSeq, usedAt} */
    this.load();
  }

  // ---- Subscriptions -------------------------------------------------------------------------

  patterns() {
    return [...this.subs.keys()];
  }

  subscribe(pattern, handler) {
    const why = patternProblem(pattern);
    if (why !== null) throw new ZQError('MALFORMED', `'${pattern}' is not a topic pattern: ${why}`);
    if (typeof handler !== 'function') throw new ZQError('MALFORMED', 'a handler is a function');
    let set = this.subs.get(pattern);
    if (!set) {
      set = new Set();
      this.subs.set(pattern, set);
      this.b.subChanged();
    }
    set.add(handler);
    return () => this.unsubscribe(pattern, handler);
  }

  /** Removes @p handler (or every handler) of @p pattern. @returns whether it had any. */
  unsubscribe(pattern, handler) {
    const set = this.subs.get(pattern);
    if (!set) return false;
    if (handler) set.delete(handler);
    if (!handler || set.size === 0) {
      this.subs.delete(pattern);
      this.b.subChanged();
    }
    return true;
  }

  handlersFor(topic) {
    const out = new Set();
    for (const [pattern, set] of this.subs) {
      if (matchPattern(pattern, topic)) for (const h of set) out.add(h);
    }
    return out;
  }

  // ---- Publishers we heard from (resume points) ----------------------------------------------

  load() {
    try {
      const saved = JSON.parse(this.storage?.get(STORAGE_KEY) ?? '[]');
      for (const s of saved) {
        if (FP.test(s.fp) && /^[0-9a-f]{8}$/.test(s.epoch) && Number.isSafeInteger(s.lastSeq)) {
          this.publishers.set(s.fp, { epoch: s.epoch, lastSeq: s.lastSeq, usedAt: s.usedAt || 0 });
        }
      }
    } catch {
      /* unreadable: start without resume points */
    }
  }

  save() {
    if (!this.storage) return;
    const list = [...this.publishers].filter(([fp]) => FP.test(fp))
      .map(([fp, p]) => ({ fp, epoch: p.epoch, lastSeq: p.lastSeq, usedAt: p.usedAt }));
    try {
      this.storage.set(STORAGE_KEY, JSON.stringify(list));
    } catch {
      /* storage full or gone: resume points are an optimisation of replay */
    }
  }

  publisher(fp) {
    let p = this.publishers.get(fp);
    if (!p) {
      if (this.publishers.size >= this.b.cfg.maxPublishers) { /* the least recently used goes */
        let oldest = null;
        for (const [k, v] of this.publishers) if (!oldest || v.usedAt < oldest[1].usedAt) oldest = [k, v];
        this.publishers.delete(oldest[0]);
      }
      p = { epoch: undefined, lastSeq: 0, usedAt: 0 };
      this.publishers.set(fp, p);
    }
    p.usedAt = this.b.clock.wall();
    return p;
  }

  /** For our hello: the last seq delivered from the publishers heard from most recently. */
  resumePoints() {
    return [...this.publishers]
      .filter(([fp, p]) => FP.test(fp) && p.lastSeq > 0 && p.epoch !== undefined)
      .sort((a, b) => b[1].usedAt - a[1].usedAt)
      .slice(0, wire.HELLO_MAX_RESUME)
      .map(([fp, p]) => ({ fp, epoch: p.epoch, seq: p.lastSeq }));
  }

  // ---- Delivering once -----------------------------------------------------------------------

  /* zq's rule: a publisher's messages come in seq order, so one not above the last delivered
   * is a replayed duplicate; a new epoch means the publisher started over. Last values come in
   * any order and are neither deduplicated nor moved past: they are older by design. */
  firstTimeZq(fp, e) {
    if (e.lvc) return true;
    const p = this.publisher(fp);
    if (p.epoch !== e.ep) {
      p.epoch = e.ep;
      p.lastSeq = 0;
    }
    if (e.seq <= p.lastSeq) return false;
    p.lastSeq = e.seq;
    return true;
  }

  onMessage(peer, e) {
    const zq = peer.zq && e.ep !== undefined;
    const fresh = zq ? this.firstTimeZq(peer.fp, e) : !this.dedup.seen(peer.fp, e.id, e.retryCount);
    if (zq && e.q === 1 && !e.lvc) this.oweAck(peer, e); /* duplicates too: an ack may be lost */
    if (!fresh) {
      this.b.stats.rxDuplicates++;
      return;
    }
    if (zq && !e.lvc) this.save();
    const handlers = this.handlersFor(e.topic);
    if (handlers.size === 0) {
      this.b.stats.rxUnwanted++; /* ZeroQ broadcasts everything, or our sub just changed */
      return;
    }
    const msg = {
      id: e.id, topic: e.topic, payload: e.hasPayload ? e.payload : null,
      timestamp: e.timestamp, seq: zq ? e.seq : 0, retryCount: e.retryCount,
      from: peer.id, fp: peer.fp, qos: e.q, lastValue: e.lvc,
    };
    if (e.priority !== undefined) msg.priority = e.priority;
    for (const h of handlers) this.call(h, msg);
  }

  call(h, ...args) {
    try {
      const r = h(...args);
      if (r && typeof r.catch === 'function') r.catch((err) => this.b.emit('error', err));
    } catch (err) {
      this.b.emit('error', err);
    }
  }

  /** QoS 1: the publisher hears of it in the next batched ack (§5): at most ackDelayMs later,
   *  at once after ackEvery messages. */
  oweAck(p, e) {
    const a = p.ack;
    if (!(a.due && a.ep === e.ep)) {
      this.b.cancel(a.timer, p);
      a.upto = 0;
      a.owed = 0;
      a.timer = this.b.timer(this.b.cfg.ackDelayMs, () => this.sendAck(p), p);
    }
    a.due = true;
    a.ep = e.ep;
    a.upto = Math.max(a.upto, e.seq);
    a.owed++;
    if (a.owed >= this.b.cfg.ackEvery) this.sendAck(p);
  }

  sendAck(p) {
    const a = p.ack;
    this.b.cancel(a.timer, p);
    a.timer = null;
    if (!a.due || !p.open) return;
    a.due = false;
    a.owed = 0;
    this.b.sendUrgent(p, wire.writeAck({ ep: a.ep, upto: a.upto })).catch(() => {});
  }

  onLost(peer, l) {
    const p = this.publisher(peer.fp);
    if (p.epoch === l.ep && l.to > p.lastSeq) {
      p.lastSeq = l.to; /* never announced again */
      this.save();
    }
    this.b.emit('lost', { from: peer.id, fp: peer.fp, epoch: l.ep, first: l.from, last: l.to });
  }
}

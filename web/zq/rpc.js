// Services and requests (PROTOCOL.md §6, §9; broker/rpc.c). Pure.
//
// A request goes to one zq responder of its service at a time (services are announced in
// sub); without a reply in time, on "no such service here", or when that responder goes away
// it goes to the next, up to its retries (with `peer`, only that peer is asked, again on each
// retry). With no zq responder it is sent as ZeroQ sends one
// (payload.replyTo = the correlation id; only an object payload can carry it) to the ZeroQ
// peers, and the first envelope on that topic from one of them answers it.
//
// Answering: a zq request ("k":"req") gets a __zq_rep__ on the channel it came on (ok:false
// with the handler's error when it throws); a ZeroQ request (payload.replyTo) gets an envelope
// on topic replyTo, as ZeroQ's reply() publishes it (ZeroQ has no error reply: a throwing
// handler sends nothing, and the ZeroQ requester times out).

import { ZQError } from './errors.js';
import * as wire from './wire.js';

const NO_SUCH_SERVICE = 'no such service here';

export class Rpc {
  constructor(b) {
    this.b = b;
    this.services = new Map(); /* service -> handler(payload, msg) */
    this.requests = new Map(); /* corr -> request in flight */
  }

  serviceNames() {
    return [...this.services.keys()];
  }

  reply(service, handler) {
    if (typeof service !== 'string' || service.length === 0) {
      throw new ZQError('MALFORMED', 'a service name is a non-empty string');
    }
    if (typeof handler !== 'function') throw new ZQError('MALFORMED', 'a handler is a function');
    const isNew = !this.services.has(service);
    this.services.set(service, handler);
    if (isNew) this.b.subChanged();
    return () => {
      if (this.services.get(service) === handler) {
        this.services.delete(service);
        this.b.subChanged();
      }
    };
  }

  // ---- Answering -----------------------------------------------------------------------------

  /** A request envelope: true when we serve its service (answered here); false otherwise (a
   *  ZeroQ one is then an ordinary message; a zq one is refused). */
  onRequest(p, e) {
    const zeroq = e.kind !== 'req';
    const handler = this.services.get(e.topic);
    if (!handler) {
      if (!zeroq) {
        this.b.sendFrame(p, wire.writeRep({ corr: e.corr, ok: false, error: NO_SUCH_SERVICE }))
          .catch(() => {});
      }
      return false;
    }
    const msg = {
      id: e.id, topic: e.topic, service: e.topic, payload: e.hasPayload ? e.payload : null,
      timestamp: e.timestamp, from: p.id, fp: p.fp, zeroq,
    };
    Promise.resolve().then(() => handler(msg.payload, msg)).then(
      (result) => this.answer(p, e, zeroq, true, result),
      (err) => this.answer(p, e, zeroq, false, err),
    );
    return true;
  }

  answer(p, e, zeroq, ok, value) {
    if (!p.open) return;
    let text;
    try {
      if (zeroq) {
        if (!ok) {
          this.b.emit('error', value);
          return;
        }
        text = wire.writeEnvelope({
          id: this.b.uuid(), topic: e.replyTo, payload: value,
          timestamp: Math.trunc(this.b.clock.wall()),
        });
      } else {
        text = ok ? wire.writeRep({ corr: e.corr, payload: value, ok: true })
          : wire.writeRep({ corr: e.corr, ok: false, error: String(value?.message ?? value) });
      }
    } catch (err) { /* the handler's result is not JSON: the requester hears why */
      this.b.emit('error', err);
      if (zeroq) return;
      text = wire.writeRep({ corr: e.corr, ok: false, error: `bad reply: ${err.message}` });
    }
    this.b.sendFrame(p, text).catch((err) => this.b.emit('error', err));
  }

  // ---- Requesting ----------------------------------------------------------------------------

  request(service, payload, { timeout, retries, peer } = {}) {
    if (typeof service !== 'string' || service.length === 0) {
      return Promise.reject(new ZQError('MALFORMED', 'a service name is a non-empty string'));
    }
    let payloadText;
    try {
      payloadText = wire.jsonText(payload);
    } catch (e) {
      return Promise.reject(e);
    }
    const timeoutMs = timeout ?? this.b.cfg.requestTimeoutMs;
    const retriesLeft = retries ?? this.b.cfg.requestRetries;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 4294967295 ||
        !Number.isInteger(retriesLeft) || retriesLeft < 0) {
      return Promise.reject(new ZQError('MALFORMED', 'timeout is a whole number of ms >= 1, ' +
        'retries a whole number >= 0'));
    }
    if (peer !== undefined && (typeof peer !== 'string' || peer.length === 0)) {
      return Promise.reject(new ZQError('MALFORMED', 'peer is a peer id or fingerprint'));
    }
    const r = {
      corr: `c-${this.b.hex(12)}`, service, payload, payloadText, timeoutMs,
      retriesLeft, tried: new Set(), peer: null, only: peer ?? null,
      zeroq: false, timer: null, resolve: null, reject: null,
    };
    return new Promise((resolve, reject) => {
      r.resolve = resolve;
      r.reject = reject;
      this.requests.set(r.corr, r);
      r.timer = this.b.timer(r.timeoutMs, () => this.tryNext(r, 'timeout'));
      this.pumpOne(r);
    });
  }

  pump() {
    for (const r of this.requests.values()) this.pumpOne(r);
  }

  /** Sends a request that is not waiting for a reply: to the next zq responder, else in
   *  ZeroQ's form to every ZeroQ peer not tried yet; else it waits for one to come. */
  pumpOne(r) {
    if (r.peer || r.zeroq) return;
    const open = this.b.openPeers().filter((x) => r.only === null || x.id === r.only ||
      x.fp === r.only);
    const p = open.find((x) => x.zq && x.subReceived && !r.tried.has(x) &&
      x.services.includes(r.service));
    if (p) {
      r.peer = p;
      r.tried.add(p);
      const text = wire.writeEnvelope({
        id: this.b.uuid(), topic: r.service, payloadText: r.payloadText,
        timestamp: Math.trunc(this.b.clock.wall()), kind: 'req', corr: r.corr,
        timeout: r.timeoutMs,
      });
      this.b.sendFrame(p, text).catch((err) => {
        if (r.peer === p && err.code === 'TOO_LONG') this.fail(r, err);
      });
      return;
    }
    if (typeof r.payload !== 'object' || r.payload === null || Array.isArray(r.payload)) return;
    const zeroqPeers = open.filter((x) => x.classified && !x.zq && !r.tried.has(x));
    if (zeroqPeers.length === 0) return;
    /* ZeroQ's request (zeroq-wire.md §3): {...payload, replyTo} as the payload. */
    const payloadText = wire.jsonText({ ...r.payload, replyTo: r.corr });
    for (const x of zeroqPeers) {
      r.tried.add(x);
      const text = wire.writeEnvelope({
        id: this.b.uuid(), topic: r.service, payloadText,
        timestamp: Math.trunc(this.b.clock.wall()),
      });
      this.b.sendFrame(x, text).catch(() => {});
    }
    r.zeroq = true; /* any ZeroQ responder's reply will do */
  }

  /** Moves the request on to the next responder, or gives up. */
  tryNext(r, why) {
    if (!this.requests.has(r.corr)) return;
    this.b.cancel(r.timer);
    if (r.retriesLeft === 0) {
      this.b.stats.requestsFailed++;
      this.fail(r, new ZQError('TIMEOUT', `request to '${r.service}': no reply ` +
        `(${why}) after ${r.tried.size} responder(s)`));
      return;
    }
    r.retriesLeft--;
    r.peer = null;
    r.zeroq = false;
    if (r.only !== null) r.tried.clear(); /* one peer asked for: a retry asks it again */
    this.b.stats.requestsRetried++;
    r.timer = this.b.timer(r.timeoutMs, () => this.tryNext(r, 'timeout'));
    this.pumpOne(r);
  }

  finish(r) {
    this.b.cancel(r.timer);
    this.requests.delete(r.corr);
  }

  fail(r, err) {
    this.finish(r);
    r.reject(err);
  }

  onRep(p, rep) {
    const r = this.requests.get(rep.corr);
    if (!r || r.peer !== p) return; /* late: it timed out, or went to another responder */
    if (!rep.ok && rep.error === NO_SUCH_SERVICE) {
      this.tryNext(r, NO_SUCH_SERVICE); /* not a refusal: the responder is gone or misannounced */
      return;
    }
    this.finish(r);
    if (rep.ok) r.resolve(rep.hasPayload ? rep.payload : null);
    else r.reject(new ZQError('REFUSED', rep.error ?? 'refused', { from: p.id }));
  }

  /** A ZeroQ envelope on the correlation id of one of our ZeroQ-form requests: its reply. */
  onZeroqReply(p, e) {
    const r = this.requests.get(e.topic);
    if (!r || !r.zeroq || !r.tried.has(p)) return false;
    this.finish(r);
    r.resolve(e.hasPayload ? e.payload : null);
    return true;
  }

  peerDown(p) {
    for (const r of [...this.requests.values()]) {
      if (r.peer === p) this.tryNext(r, 'responder gone'); /* at once, to the next */
    }
  }

  close(err) {
    for (const r of [...this.requests.values()]) this.fail(r, err);
  }
}

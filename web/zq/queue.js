// Work queues (PROTOCOL.md §6, §9; broker/queue.c and broker/consume.c). Pure.
//
// Producer: this node holds its jobs until a consumer finishes them. Each job goes to exactly
// one zq consumer that gave credit ("ready"), under a lease; a nack, the lease running out or
// the consumer's channel closing is an attempt, and the job goes to another consumer (not the
// one that failed it, when there is another), or after maxAttempts to the dead-letter queue,
// which the application (or a peer, with __zq_dlq__) lists, requeues and purges. ZeroQ peers
// never get our jobs: they give no credit and would each process a broadcast job.
//
// Consumer: tells every zq producer its credit (credit minus jobs held, absolute), and hands
// each job to the handler with ack and nack. Every producer hears the same credit, so two can
// overshoot it; a job beyond it is refused at once as busy, which the producer hands out again
// without counting an attempt (a job nobody ran must not end up dead). Jobs from ZeroQ peers
// (a broadcast envelope on a queue we consume) are taken once (deduplicated like ZeroQ's
// messages), whatever the credit (refusing one would lose it: ZeroQ never sends it again).
// Their ack tells nobody (ZeroQ has no ack frame); their nack sends them on as a ZeroQ
// consumer does: the same envelope, retryCount + 1, to every open ZeroQ peer while that count
// is under 3 (ZeroQ's MAX_RETRIES), else the job is dead here (zeroq-wire.md §4).

import { ZQError } from './errors.js';
import * as wire from './wire.js';

/** ZeroQ's MAX_RETRIES: a nacked ZeroQ job goes on while retryCount + 1 is under it. */
const ZEROQ_MAX_RETRIES = 3;

function checkQueue(queue) {
  if (typeof queue !== 'string' || queue.length === 0) {
    throw new ZQError('MALFORMED', 'a queue name is a non-empty string');
  }
}

export class Producer {
  constructor(b) {
    this.b = b;
    this.jobs = new Map(); /* id -> job, in enqueue (then requeue) order */
    this.order = 0;
    this.nextPeer = 0;
    this.waiting = [];     /* enqueues waiting for room in the store */
    this.lists = new Set(); /* remote dead-letter lists being gathered */
  }

  enqueue(queue, payload, { until = 'stored', wait = true, priority } = {}) {
    try {
      checkQueue(queue);
      const payloadText = wire.jsonText(payload);
      if (until !== 'stored' && until !== 'done') {
        throw new ZQError('MALFORMED', "until is 'stored' or 'done'");
      }
      if (priority !== undefined && !Number.isSafeInteger(priority)) {
        throw new ZQError('MALFORMED', 'priority is a whole number');
      }
      return new Promise((resolve, reject) => {
        this.waiting.push({ queue, payloadText, until, wait, priority, resolve, reject });
        this.admit();
      });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Stores waiting enqueues while the store has room. */
  admit() {
    while (this.waiting.length > 0) {
      if (this.jobs.size >= this.b.cfg.maxJobs) {
        if (this.waiting[0].wait) return;
        this.waiting.shift().reject(new ZQError('WOULD_BLOCK', 'the job store is full'));
        continue;
      }
      const w = this.waiting.shift();
      const job = {
        id: `j-${this.b.hex(12)}`, queue: w.queue, payloadText: w.payloadText,
        priority: w.priority, attempts: 0, state: 'waiting', peer: null, lease: null,
        order: this.order++, avoid: null, until: w.until, resolve: w.resolve, reject: w.reject,
      };
      this.jobs.set(job.id, job);
      if (w.until === 'stored') {
        job.resolve({ id: job.id });
        job.resolve = job.reject = null;
      }
    }
    this.pump();
  }

  remove(job) {
    this.jobs.delete(job.id);
    this.admit();
  }

  canTake(p, job, avoid) {
    return p.open && p.zq && p.features.has('queue') && (p.credit.get(job.queue) ?? 0) > 0 &&
      !(avoid && job.avoid === p.fp);
  }

  /** A consumer with credit, round robin; the one that failed the job last only if alone. */
  pickConsumer(job) {
    const peers = this.b.openPeers();
    for (const avoid of [true, false]) {
      for (let k = 0; k < peers.length; k++) {
        const i = (this.nextPeer + k) % peers.length;
        if (this.canTake(peers[i], job, avoid)) {
          this.nextPeer = i + 1;
          return peers[i];
        }
      }
    }
    return null;
  }

  /** Hands out waiting jobs, oldest first, while some consumer has credit. */
  pump() {
    const waiting = [...this.jobs.values()].filter((j) => j.state === 'waiting')
      .sort((a, b) => a.order - b.order);
    for (const job of waiting) {
      const p = this.pickConsumer(job);
      if (p) this.lease(job, p);
    }
  }

  lease(job, p) {
    p.credit.set(job.queue, p.credit.get(job.queue) - 1);
    job.state = 'leased';
    job.peer = p;
    job.lease = this.b.timer(this.b.cfg.leaseMs, () => this.attemptFailed(job, 'lease'));
    const text = wire.writeEnvelope({
      id: job.id, topic: job.queue, payloadText: job.payloadText,
      timestamp: Math.trunc(this.b.clock.wall()), retryCount: job.attempts,
      priority: job.priority, kind: 'job', lease: this.b.cfg.leaseMs,
    });
    this.b.sendFrame(p, text).catch((err) => {
      if (job.state === 'leased' && job.peer === p && err.code === 'TOO_LONG') {
        this.attemptFailed(job, 'too-long'); /* this consumer cannot take it: try another */
      }
    });
  }

  /** A nack, an expired lease or a lost consumer: another consumer gets it, preferably not
   *  the one that failed it, or it is dead after maxAttempts. */
  attemptFailed(job, why) {
    if (job.state !== 'leased') return;
    this.b.cancel(job.lease);
    job.avoid = job.peer ? job.peer.fp : null;
    job.peer = null;
    job.attempts++;
    if (job.attempts >= this.b.cfg.maxAttempts) {
      job.state = 'dead';
      this.b.stats.jobsDead++;
      this.b.emit('dead_letter', {
        queue: job.queue, id: job.id, attempts: job.attempts, reason: why,
        payload: JSON.parse(job.payloadText),
      });
      job.reject?.(new ZQError('DEAD_LETTER', `job ${job.id} failed ${job.attempts} times ` +
        `(last: ${why})`, { id: job.id }));
      job.resolve = job.reject = null;
    } else {
      job.state = 'waiting';
      this.b.stats.jobsRedelivered++;
    }
    this.pump();
  }

  onReady(p, r) {
    p.credit.set(r.queue, r.credit); /* absolute: the consumer's count is the truth */
    this.pump();
  }

  onDone(p, d) {
    const job = this.jobs.get(d.id);
    if (!job || job.state !== 'leased' || job.peer !== p) return; /* late: it went elsewhere */
    if (d.ok) {
      this.b.cancel(job.lease);
      this.b.stats.jobsDone++;
      job.resolve?.({ id: job.id, attempts: job.attempts + 1 });
      this.b.emit('job_done', { queue: job.queue, id: job.id, by: p.id });
      this.remove(job);
    } else if (d.busy) {
      this.notTaken(p, job);
    } else {
      this.b.stats.jobsFailed++;
      this.attemptFailed(job, 'nack');
    }
    this.pump();
  }

  /** The consumer had no room after all: the job waits again as it was, no attempt counted,
   *  and that consumer gets nothing more of this queue until its next ready. */
  notTaken(p, job) {
    this.b.cancel(job.lease);
    p.credit.set(job.queue, 0);
    job.peer = null;
    job.state = 'waiting';
    this.b.stats.jobsBusy++;
  }

  peerDown(p) {
    for (const job of this.jobs.values()) {
      if (job.state === 'leased' && job.peer === p) this.attemptFailed(job, 'consumer gone');
    }
    for (const l of this.lists) l.answered(p, []);
  }

  // ---- Dead letters --------------------------------------------------------------------------

  dead(queue) {
    return [...this.jobs.values()].filter((j) => j.state === 'dead' && j.queue === queue);
  }

  /** Dead letters of @p queue here: {id, payload, retryCount, producer: null}. */
  listLocal(queue) {
    return this.dead(queue).map((j) => ({
      id: j.id, payload: JSON.parse(j.payloadText), retryCount: j.attempts, producer: null,
    }));
  }

  requeue(queue) {
    const dead = this.dead(queue);
    for (const j of dead) {
      Object.assign(j, { state: 'waiting', attempts: 0, avoid: null, order: this.order++ });
    }
    this.pump();
    return dead.length;
  }

  purge(queue) {
    const dead = this.dead(queue);
    for (const j of dead) this.jobs.delete(j.id);
    this.admit();
    return dead.length;
  }

  /** Asks every zq producer peer to do @p op on its dead letters of @p queue; for 'list',
   *  resolves with their jobs (each with `producer`: the peer's id) once all answered or
   *  @p timeoutMs passed. */
  remote(queue, op, timeoutMs) {
    const peers = this.b.openPeers().filter((p) => p.zq && p.features.has('queue'));
    const text = wire.writeDlq(queue, op);
    const sent = peers.map((p) => this.b.sendUrgent(p, text).then(() => p, () => null));
    if (op !== 'list') return Promise.all(sent).then((ps) => ps.filter(Boolean).length);
    return new Promise((resolve) => {
      const left = new Set(peers);
      const jobs = [];
      const l = {
        queue,
        answered: (p, items) => {
          if (!left.delete(p)) return;
          jobs.push(...items);
          if (left.size === 0) finish();
        },
      };
      const timer = this.b.timer(timeoutMs, () => finish());
      const finish = () => {
        this.b.cancel(timer);
        this.lists.delete(l);
        resolve(jobs);
      };
      this.lists.add(l);
      if (left.size === 0) finish();
    });
  }

  /** A peer's __zq_dlq__: list answers with our dead letters of the queue (as many as fit
   *  its max frame; "more" says there are others), requeue and purge act on them. */
  onDlq(p, d) {
    if (d.op === 'requeue') {
      this.requeue(d.queue);
      return;
    }
    if (d.op === 'purge') {
      this.purge(d.queue);
      return;
    }
    const jobs = [];
    let more = false;
    let size = 64 + d.queue.length;
    for (const j of this.dead(d.queue)) {
      const n = j.id.length + j.payloadText.length + 48;
      if (size + n > Math.min(p.maxFrame, this.b.cfg.maxFrame)) {
        more = true;
        continue;
      }
      size += n;
      jobs.push({ id: j.id, payloadText: j.payloadText, retryCount: j.attempts });
    }
    this.b.sendFrame(p, wire.writeDlqJobs(d.queue, jobs, more)).catch(() => {});
  }

  onDlqJobs(p, d) {
    const items = [];
    for (const item of d.jobs) {
      const j = wire.readDlqJob(item);
      if (j) items.push({ id: j.id, payload: j.hasPayload ? j.payload : null,
        retryCount: j.retryCount, producer: p.id });
    }
    let taken = false;
    for (const l of this.lists) {
      if (l.queue === d.queue) {
        l.answered(p, items);
        taken = true;
      }
    }
    if (!taken) this.b.emit('dlq', { queue: d.queue, from: p.id, jobs: items, more: d.more });
  }

  close(err) {
    for (const w of this.waiting.splice(0)) w.reject(err);
    for (const j of this.jobs.values()) {
      this.b.cancel(j.lease);
      j.reject?.(err);
    }
  }
}

export class Consumer {
  constructor(b) {
    this.b = b;
    this.queues = new Map(); /* queue -> {handler, credit, held: Set of jobs} */
  }

  consumes(queue) {
    const c = this.queues.get(queue);
    return c !== undefined && c.credit > 0;
  }

  consume(queue, handler, { credit = 1 } = {}) {
    checkQueue(queue);
    if (typeof handler !== 'function') throw new ZQError('MALFORMED', 'a handler is a function');
    if (!Number.isInteger(credit) || credit < 1 || credit > 4294967295) {
      throw new ZQError('MALFORMED', 'credit is a whole number of at least 1');
    }
    const c = this.queues.get(queue) ?? { held: new Set() };
    Object.assign(c, { handler, credit });
    this.queues.set(queue, c);
    this.creditChanged(queue);
    return () => this.stop(queue, c);
  }

  /** Stops consuming (credit 0): jobs held stay ackable. */
  stop(queue, c) {
    if (this.queues.get(queue) !== c) return;
    c.credit = 0;
    this.creditChanged(queue);
    if (c.held.size === 0) this.queues.delete(queue);
  }

  creditNow(c) {
    return Math.max(0, c.credit - c.held.size);
  }

  creditChanged(queue) {
    for (const p of this.b.openPeers()) this.sendReady(p, queue);
  }

  sendReady(p, queue) {
    const c = this.queues.get(queue);
    if (!c || !p.zq || !p.features.has('queue')) return;
    this.b.sendUrgent(p, wire.writeReady(queue, this.creditNow(c))).catch(() => {});
  }

  /** A zq peer said hello: it hears our credit for every queue we consume. */
  peerHello(p) {
    for (const queue of this.queues.keys()) this.sendReady(p, queue);
  }

  onJob(p, e) {
    const zeroq = !p.zq;
    const c = this.queues.get(e.topic);
    if (!c || (!zeroq && this.creditNow(c) === 0)) {
      if (!zeroq) {
        this.b.stats.jobsRefused++;
        this.b.sendUrgent(p, wire.writeDone(e.id, false, true)).catch(() => {});
      }
      return;
    }
    if (zeroq && this.b.subs.dedup.seen(p.fp, e.id, e.retryCount)) {
      this.b.stats.rxDuplicates++; /* ZeroQ broadcasts the same job along every edge */
      return;
    }
    const job = { id: e.id, queue: e.topic, peer: p, zeroq, done: false, envelope: zeroq ? e : null };
    c.held.add(job);
    const msg = {
      id: e.id, queue: e.topic, topic: e.topic, payload: e.hasPayload ? e.payload : null,
      timestamp: e.timestamp, retryCount: e.retryCount, attempt: e.retryCount + 1,
      lease: e.lease, from: p.id, fp: p.fp,
    };
    if (e.priority !== undefined) msg.priority = e.priority;
    const ack = () => this.finish(c, job, true);
    const nack = () => this.finish(c, job, false);
    try {
      const r = c.handler(msg, ack, nack);
      if (r && typeof r.then === 'function') {
        r.then(undefined, (err) => {
          this.b.emit('error', err);
          if (!job.done) nack().catch(() => {});
        });
      }
    } catch (err) {
      this.b.emit('error', err);
      if (!job.done) nack().catch(() => {});
    }
  }

  /** A ZeroQ job nacked here goes on ZeroQ's way, or is dead at its third try. */
  zeroqNack(e) {
    if (e.retryCount + 1 >= ZEROQ_MAX_RETRIES) {
      this.b.stats.zeroqDead++;
      return Promise.resolve();
    }
    const text = wire.writeEnvelope({
      id: e.id, topic: e.topic, hasPayload: e.hasPayload, payload: e.payload,
      timestamp: e.timestamp, retryCount: e.retryCount + 1, priority: e.priority,
    });
    const peers = this.b.openPeers().filter((p) => !p.zq);
    this.b.stats.zeroqResent++;
    return Promise.all(peers.map((p) => this.b.sendFrame(p, text).catch(() => {}))).then(() => {});
  }

  /** Acks or nacks a held job. @returns a promise: resolves once the done frame is handed to
   *  the producer's channel (at once for a ZeroQ job, or when the producer is gone: its lease
   *  or its disconnect handling takes over). */
  finish(c, job, ok) {
    if (job.done) return Promise.reject(new ZQError('STATE', `job ${job.id} is already done`));
    job.done = true;
    c.held.delete(job);
    const sent = job.zeroq ? (ok ? Promise.resolve() : this.zeroqNack(job.envelope))
      : !job.peer.open ? Promise.resolve()
        : this.b.sendUrgent(job.peer, wire.writeDone(job.id, ok));
    if (c.credit === 0 && c.held.size === 0 && this.queues.get(job.queue) === c) {
      this.queues.delete(job.queue);
    } else {
      this.creditChanged(job.queue);
    }
    return sent;
  }

  peerDown(p) {
    /* Its jobs are the producer's to hand out again; acking them later sends nothing. */
    for (const c of this.queues.values()) {
      for (const job of c.held) if (job.peer === p) job.zeroq = true;
    }
  }
}

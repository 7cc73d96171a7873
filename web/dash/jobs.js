// Jobs this dashboard enqueued, and their state: waiting (held here, no consumer has credit),
// leased (a consumer has it), done (acked), dead (out of attempts: in the dead-letter queue),
// purged (a dead letter deleted); attempts: deliveries so far (the failed ones, and the one
// that was acked). zq.js resolves enqueue() once a job is stored and says when it is done or
// dead (job_done, dead_letter); waiting and leased are read from its producer.

import { jobState } from './inspect.js';

const KEEP = 40; /* jobs listed, newest first */

export class Jobs {
  constructor(zq) {
    this.zq = zq;
    this.list = [];          /* newest first */
    this.byId = new Map();
    this.early = new Map();  /* job_done / dead_letter that came before enqueue() resolved */
  }

  /** Enqueues @p payload on @p queue. @returns the job's entry. */
  async enqueue(queue, payload) {
    const { id } = await this.zq.enqueue(queue, payload);
    const j = { id, queue, payload, state: 'waiting', attempts: 0, by: null, at: Date.now(),
      doneAt: null };
    this.byId.set(id, j);
    this.list.unshift(j);
    for (const old of this.list.splice(KEEP)) this.byId.delete(old.id);
    const ev = this.early.get(id);
    if (ev) {
      this.early.delete(id);
      Object.assign(j, ev);
    }
    return j;
  }

  /** zq's job_done: a consumer acked it (its attempts: the failed ones, and this one). */
  done(d) {
    const j = this.byId.get(d.id);
    this.finish(d.id, { state: 'done', by: d.by, doneAt: Date.now(),
      attempts: (j ? j.attempts : 0) + 1 });
  }

  /** zq's dead_letter. */
  dead(d) {
    this.finish(d.id, { state: 'dead', attempts: d.attempts, doneAt: Date.now() });
  }

  finish(id, fields) {
    const j = this.byId.get(id);
    if (j) Object.assign(j, fields);
    else this.early.set(id, fields);
    if (this.early.size > 100) this.early.delete(this.early.keys().next().value);
  }

  /** Reads the producer's state of every job still held (a requeued dead letter waits
   *  again; a purged one is no longer held). */
  refresh() {
    for (const j of this.list) {
      const s = jobState(this.zq, j.id);
      if (s) {
        j.state = s.state;
        j.attempts = s.attempts;
        if (s.consumer) j.by = s.consumer;
      } else if (j.state === 'dead') {
        j.state = 'purged';
      }
    }
  }

  counts() {
    const c = { waiting: 0, leased: 0, done: 0, dead: 0 };
    for (const j of this.list) if (j.state in c) c[j.state]++;
    return c;
  }
}

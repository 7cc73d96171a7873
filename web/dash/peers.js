// The peers in the room, as the dashboard lists them: every connection the mesh has
// (connecting, open), and those that went away (gone, kept GONE_KEEP_MS). A peer's name comes
// from what it publishes (sensors.<name>, actuators.<name>.led), its kind from its first frame
// (a zq hello, or ZeroQ's silence), what it does from what it announced.

import { connections, announcements } from './inspect.js';

const GONE_KEEP_MS = 120000;

export class Peers {
  constructor(zq) {
    this.zq = zq;
    this.map = new Map();   /* id -> {id, fp, state, kind, name, role, since, why} */
    this.names = new Map(); /* id -> {name, kind} learned from topics */
  }

  entry(id) {
    let p = this.map.get(id);
    if (!p) {
      p = { id, fp: null, state: 'connecting', kind: null, name: null, role: null,
        since: Date.now(), why: null, does: [] };
      this.map.set(id, p);
    }
    return p;
  }

  /** A topic told us who @p id is. */
  learn(id, who) {
    if (id && who) this.names.set(id, who);
  }

  /** A peer left or its connection failed: gone (until the mesh dials it again). */
  gone(id, why) {
    const p = this.map.get(id);
    if (!p || p.state === 'gone') return;
    Object.assign(p, { state: 'gone', since: Date.now(), why });
  }

  /** Reconciles the list with zq.js now: connections, open peers, announcements. */
  refresh() {
    const now = Date.now();
    const conns = new Map(connections(this.zq).map((c) => [c.id, c]));
    const open = new Map(this.zq.peers().map((p) => [p.id, p]));
    const said = announcements(this.zq);
    for (const c of conns.values()) {
      const p = this.entry(c.id);
      const o = open.get(c.id);
      const state = o && o.classified ? 'open' : 'connecting';
      if (p.state !== state) Object.assign(p, { state, since: now, why: null });
      if (o) {
        p.fp = o.fp;
        if (o.classified) p.kind = o.zq ? 'zq' : 'ZeroQ';
      }
      p.does = describe(said.get(c.id));
    }
    for (const p of this.map.values()) {
      if (!conns.has(p.id) && p.state !== 'gone') this.gone(p.id, 'closed');
      const who = this.names.get(p.id);
      if (who) Object.assign(p, { name: who.name, role: who.kind });
    }
    this.prune(now);
  }

  /** Forgets gone peers after a while, and at once those whose identity is back (a peer that
   *  rejoined has a new id and the same certificate). */
  prune(now) {
    const live = new Set([...this.map.values()].filter((p) => p.state !== 'gone' && p.fp)
      .map((p) => p.fp));
    for (const [id, p] of this.map) {
      if (p.state === 'gone' && (now - p.since > GONE_KEEP_MS || (p.fp && live.has(p.fp)))) {
        this.map.delete(id);
      }
    }
  }

  /** Open first, then connecting, then gone; by name within each. */
  list() {
    const rank = { open: 0, connecting: 1, gone: 2 };
    return [...this.map.values()].sort((a, b) => rank[a.state] - rank[b.state] ||
      (a.name ?? `~${a.id}`).localeCompare(b.name ?? `~${b.id}`));
  }

  nameOf(id) {
    return this.names.get(id)?.name ?? (id ? id.slice(0, 8) : 'this dashboard');
  }
}

/** Tags for what a peer announced: services it serves, topics it wants, queues it takes. */
function describe(a) {
  if (!a) return [];
  const tags = [];
  for (const s of a.services) tags.push(`serves ${s}`);
  if (a.topics === null) tags.push('gets every topic');
  else for (const t of a.topics) tags.push(`sub ${t}`);
  for (const [q, credit] of Object.entries(a.credit)) tags.push(`works ${q} (${credit})`);
  return tags;
}

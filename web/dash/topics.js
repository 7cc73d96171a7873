// Topics seen (the dashboard subscribes to '#'): each topic's last value, who sent it, and a
// time series of every numeric field of its JSON payload over the last WINDOW_MS.

export const WINDOW_MS = 5 * 60 * 1000;
const MAX_POINTS = 1200;     /* per field: 4 per second over the window */
const MAX_FIELDS = 6;        /* per topic: more lanes would not be readable */

/** The numeric fields of a payload: a number is "value"; an object's numbers, one level of
 *  nesting written "a.b". Booleans and strings are not plotted. */
export function numericFields(payload) {
  const out = [];
  if (typeof payload === 'number' && Number.isFinite(payload)) return [['value', payload]];
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return out;
  for (const [k, v] of Object.entries(payload)) {
    if (typeof v === 'number' && Number.isFinite(v)) out.push([k, v]);
    else if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k2, v2] of Object.entries(v)) {
        if (typeof v2 === 'number' && Number.isFinite(v2)) out.push([`${k}.${k2}`, v2]);
      }
    }
  }
  return out.slice(0, MAX_FIELDS);
}

/** The device name a topic reveals: sensors.<name>, actuators.<name>.<what>. */
export function deviceName(topic) {
  const m = /^(?:sensors\.([^.]+)$|actuators\.([^.]+)\.)/.exec(topic);
  return m ? { name: m[1] ?? m[2], kind: m[1] ? 'sensor' : 'actuator' } : null;
}

export class Topics {
  constructor() {
    this.map = new Map(); /* topic -> entry */
    this.version = 0;     /* bumped on every message: the view redraws what changed */
  }

  /**
   * A message: @p at is when it arrived (Date.now()); @p from the sender's id, null for our
   * own; @p lastValue for a replayed last value (drawn, not counted as live traffic).
   */
  add(topic, payload, { at, from, lastValue = false, qos = 0 }) {
    let t = this.map.get(topic);
    if (!t) {
      t = { topic, count: 0, series: new Map(), first: at };
      this.map.set(topic, t);
    }
    Object.assign(t, { payload, at, from, lastValue, qos });
    if (!lastValue) t.count++;
    for (const [field, v] of numericFields(payload)) {
      let s = t.series.get(field);
      if (!s) {
        if (t.series.size >= MAX_FIELDS) continue;
        s = [];
        t.series.set(field, s);
      }
      s.push({ t: at, v });
      if (s.length > MAX_POINTS) s.splice(0, s.length - MAX_POINTS);
    }
    t.version = ++this.version;
  }

  /** Drops points older than the window. */
  trim(now) {
    for (const t of this.map.values()) {
      for (const s of t.series.values()) {
        let i = 0;
        while (i < s.length && s[i].t < now - WINDOW_MS) i++;
        if (i > 0) s.splice(0, i);
      }
    }
  }

  /** Topics sorted by name. */
  list() {
    return [...this.map.values()].sort((a, b) => a.topic.localeCompare(b.topic));
  }
}

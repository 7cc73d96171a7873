// The zq.js side of tests/dashboard/dashboard.mjs: one ZQ in the room of ?room=, beside the
// devices of `zq demo` (app/sensor.c, app/actuator.c). It records the devices' topics from
// the start (sensors.#, actuators.#: a device is named by its topic) and the jobs acked, and
// gives the driver helpers that wait for what it expects (window.t).
import { ZQ } from '../zq.js';

const params = new URLSearchParams(location.search);
const room = params.get('room') || 'default-topic';
const t0 = performance.now();

function log(line) {
  const text = `${(performance.now() - t0).toFixed(1).padStart(9)} ms  ${line}`;
  console.log(`[zq.js] ${text}`);
  document.getElementById('log').textContent += `${text}\n`;
}

const zq = new ZQ({ room, log, iceServers: [] });
window.zq = zq;
for (const ev of ['peer', 'peer_left', 'peer_down', 'lost', 'undelivered', 'dead_letter',
  'connected', 'disconnected', 'peer_failed', 'peer_unreachable', 'waiting', 'error']) {
  zq.on(ev, (d) => log(`event ${ev} ${d instanceof Error ? d.stack : JSON.stringify(d)}`));
}

const seen = [];           /* {topic, payload, from, lastValue, at} */
const devices = new Map(); /* device name -> peer id */
const jobsDone = [];       /* job_done events: {queue, id, by} */

function record(m) {
  seen.push({ topic: m.topic, payload: m.payload, from: m.from, lastValue: m.lastValue,
    at: performance.now() });
  const name = /^(?:sensors\.([^.]+)$|actuators\.([^.]+)\.)/.exec(m.topic);
  if (name) devices.set(name[1] ?? name[2], m.from);
}
zq.subscribe('sensors.#', record);
zq.subscribe('actuators.#', record);
zq.on('job_done', (d) => jobsDone.push(d));
const waiting = [];        /* members that had no peer slot for us (waiting events) */
zq.on('waiting', (d) => waiting.push(d.id));

/** Resolves with fn()'s first truthy value, polling; rejects after @p ms saying @p what. */
async function until(fn, ms, what) {
  const end = performance.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (performance.now() > end) throw new Error(`${what}: not after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

window.t = {
  ready: zq.connect().then(() => zq.id),
  seen,
  jobsDone,
  waiting,
  /** The peer id of device @p name, once it published (or we got its last value). */
  device: (name, ms = 15000) => until(() => devices.get(name), ms, `device ${name}`),
  /** Resolves once peer @p id's sub lists every pattern of @p topics, services @p services
   *  and, for each queue of @p queues, it gave credit at least once. */
  announced: (id, { topics = [], services = [] } = {}, ms = 10000) => until(() => {
    const p = zq.broker.openPeers().find((x) => x.id === id);
    return p && p.subReceived && topics.every((x) => p.topics.includes(x)) &&
      services.every((x) => p.services.includes(x));
  }, ms, `peer ${id} announcing ${topics} ${services}`),
  /** The first live message on @p topic that came after @p since (performance.now()) and,
   *  when @p equals is given, whose payload is that JSON text. */
  message: (topic, { since = 0, equals = null } = {}, ms = 10000) => until(
    () => seen.find((m) => m.topic === topic && !m.lastValue && m.at >= since &&
      (equals === null || JSON.stringify(m.payload) === equals)),
    ms, `a message on ${topic}${equals ? ` = ${equals}` : ''}`),
  now: () => performance.now(),
};
log(`page loaded: room '${room}'`);

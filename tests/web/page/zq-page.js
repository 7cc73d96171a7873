// The zq.js side of tests/web/browser.mjs: one ZQ in the room of ?room=, and what the test
// asks it through window.zq (the ZQ itself) and window.t (helpers).
import { ZQ } from '../web/zq.js';

const params = new URLSearchParams(location.search);
const room = params.get('room') || 'default-topic';
const persist = params.get('persist') || undefined;
/* ?signal=URL: another server's WebSocket (tests/cluster: through a load balancer) */
const signal = params.get('signal') || undefined;
const t0 = performance.now();

function log(line) {
  const text = `${(performance.now() - t0).toFixed(1).padStart(9)} ms  ${line}`;
  console.log(`[zq.js] ${text}`);
  const el = document.getElementById('log');
  if (el) el.textContent += `${text}\n`;
}

const zq = new ZQ({ room, persist, signal, log, iceServers: [] });
window.zq = zq;
for (const ev of ['peer', 'peer_left', 'peer_down', 'lost', 'undelivered', 'dead_letter',
  'connected', 'disconnected', 'peer_failed', 'peer_unreachable', 'error']) {
  zq.on(ev, (d) => log(`event ${ev} ${d instanceof Error ? d.stack : JSON.stringify(d)}`));
}

/* What handlers got, in localStorage so that it outlives a reload (written in the same task
 * as zq.js's resume point: a reload never falls between them). */
const recKey = (key) => `rec:${persist || room}:${key}`;
function record(key, item) {
  const list = JSON.parse(localStorage.getItem(recKey(key)) || '[]');
  list.push(item);
  localStorage.setItem(recKey(key), JSON.stringify(list));
}

if (params.get('qos')) zq.subscribe(params.get('qos'), (m) => record('qos', m.payload));

window.t = {
  log,
  record,
  recorded: (key) => JSON.parse(localStorage.getItem(recKey(key)) || '[]'),
  clear: (key) => localStorage.removeItem(recKey(key)),
  ready: zq.connect().then(() => zq.id),
  /** Resolves once @p n peers are classified (zq or ZeroQ known). */
  async peers(n, ms = 20000) {
    const end = performance.now() + ms;
    while (zq.peers().filter((p) => p.classified).length < n) {
      if (performance.now() > end) throw new Error(`peers: ${JSON.stringify(zq.peers())}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return zq.peers();
  },
  /** Resolves once the peer @p id announced a sub with every pattern of @p topics. */
  async announced(id, topics, services = [], ms = 10000) {
    const end = performance.now() + ms;
    for (;;) {
      const p = zq.broker.openPeers().find((x) => x.id === id);
      if (p && p.subReceived && topics.every((x) => p.topics.includes(x)) &&
          services.every((x) => p.services.includes(x))) return true;
      if (performance.now() > end) throw new Error(`peer ${id} never announced ${topics}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  },
  /** Resolves once @p n open peers gave credit for @p queue (their ready frames came). */
  async credited(queue, n, ms = 10000) {
    const end = performance.now() + ms;
    const count = () => zq.broker.openPeers().filter((p) => (p.credit.get(queue) ?? 0) > 0).length;
    while (count() < n) {
      if (performance.now() > end) throw new Error(`${count()} of ${n} consumers gave credit`);
      await new Promise((r) => setTimeout(r, 20));
    }
  },
  maxMessageSize: (id) => zq.broker.openPeers().find((x) => x.id === id)?.link.maxMessageSize,
  stats: () => zq.stats,
  /** The resume points our hello carries (what a reloaded page says it delivered). */
  resumeSent: () => zq.broker.subs.resumePoints(),
};
log(`page loaded: room '${room}'${persist ? `, persist '${persist}'` : ''}`);

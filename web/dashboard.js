// The zq dashboard (web/index.html): a zq.js peer in the room of ?room= (default
// 'default-topic') on the signalling server that served this page (ws://<host>/ws). It
// subscribes to every topic ('#'), lists the peers with their round-trip time, plots the
// numeric fields of each topic, publishes, enqueues and requests, follows the jobs it
// enqueued and the dead-letter queues, and logs what happens to the mesh.
//
// Models live in dash/ (peers.js, topics.js, jobs.js, rtt.js, events.js), their views in
// dash/views.js; what zq.js does not expose publicly is read in dash/inspect.js only.

import { ZQ } from './zq.js';
import { Topics, deviceName } from './dash/topics.js';
import { Peers } from './dash/peers.js';
import { Rtt } from './dash/rtt.js';
import { Jobs } from './dash/jobs.js';
import { EventLog, logEvents } from './dash/events.js';
import { theme } from './dash/plot.js';
import * as view from './dash/views.js';

const TICK_MS = 500;        /* tables */
const REDRAW_MS = 1000;     /* plots: their time axis moves */
const DLQ_MS = 3000;        /* dead-letter lists, asked of every zq producer */
const RATE_WINDOW_MS = 10000;

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const room = params.get('room') || 'default-topic';
const signal = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;

const zq = new ZQ({
  signal, room, iceServers: [], log: (line) => console.debug(`[zq.js] ${line}`),
});
const topics = new Topics();
const peers = new Peers(zq);
const rtt = new Rtt(zq);
const jobs = new Jobs(zq);
const log = new EventLog();
const arrivals = [];         /* when live messages came, for the rate */
let colors = theme(document.body);
let deadLetters = [];
let jobCount = 0;

window.dashboard = { zq, topics, peers, jobs, log, rtt }; /* for the console, and tests */

// ---- What comes in -------------------------------------------------------------------------

function onMessage(m) {
  const at = Date.now();
  topics.add(m.topic, m.payload, { at, from: m.from, lastValue: m.lastValue, qos: m.qos });
  peers.learn(m.from, deviceName(m.topic));
  if (!m.lastValue) arrivals.push(at);
  renderSoon();
}

let renderPending = false;
/** Renders at the next frame (once, however many messages came meanwhile). */
function renderSoon() {
  if (renderPending) return;
  renderPending = true;
  requestAnimationFrame(() => {
    renderPending = false;
    refreshAll();
  });
}

function setSignal(text, cls) {
  const b = $('signal');
  b.textContent = text;
  b.className = `badge ${cls}`;
}

function wire() {
  zq.subscribe('#', onMessage);
  logEvents(zq, log);
  zq.on('connected', (d) => {
    setSignal('connected', 'open');
    $('me').textContent = `${d.id.slice(0, 8)} · ${zq.fingerprint}`;
  });
  zq.on('disconnected', () => setSignal('reconnecting', 'connecting'));
  zq.on('connection_failed', () => setSignal('unreachable', 'dead'));
  zq.on('peer', () => rtt.tick()); /* a first round trip at once */
  zq.on('peer_left', (d) => peers.gone(d.id, 'left the room'));
  zq.on('peer_down', (d) => {
    peers.gone(d.id, 'channel closed');
    rtt.forget(d.id);
  });
  zq.on('peer_failed', (d) => peers.gone(d.id, d.reason));
  zq.on('job_done', (d) => {
    jobs.done(d);
    renderSoon();
  });
  zq.on('dead_letter', (d) => {
    jobs.dead(d);
    refreshDeadLetters();
  });
}

// ---- What goes out -------------------------------------------------------------------------

/** The payload field: JSON, or else the text as a JSON string. */
function payloadOf(text) {
  const t = text.trim();
  if (t === '') return null;
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
}

/** JSON on one line with room to breathe when it is short, indented when it is not. */
function readable(value) {
  const one = JSON.stringify(value, null, 1).replace(/\n\s*/g, ' '); /* strings hold no \n */
  return one.length <= 240 ? one : JSON.stringify(value, null, 2);
}

/** Runs @p fn and shows what it resolved with, or how it failed. */
async function act(what, fn) {
  const box = $('result');
  const t0 = performance.now();
  box.className = 'result busy';
  box.querySelector('.result-head').textContent = `${what} …`;
  box.querySelector('pre').textContent = '';
  try {
    const value = await fn();
    const ms = performance.now() - t0;
    box.className = 'result ok';
    box.querySelector('.result-head').textContent =
      `${what}: ok in ${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
    box.querySelector('pre').textContent = value === undefined ? '' : readable(value);
  } catch (e) {
    box.className = 'result bad';
    box.querySelector('.result-head').textContent = `${what}: ${e.code ?? 'error'}`;
    box.querySelector('pre').textContent = e.message;
    if (e.code) log.add('failed', `${what}: ${e.code} ${e.message}`, 'bad');
  }
}

function publish(topic, payload, qos) {
  return act(`publish ${topic}${qos ? ' (QoS 1)' : ''}`, async () => {
    const r = await zq.publish(topic, payload, { qos });
    topics.add(topic, payload, { at: Date.now(), from: null, qos });
    renderSoon();
    return { seq: r.seq, id: r.id, acked: qos === 1 ? 'by every receiver' : undefined };
  });
}

function enqueue(queue, payload) {
  return act(`enqueue on ${queue}`, async () => {
    const j = await jobs.enqueue(queue, payload);
    refreshAll();
    return { id: j.id, payload: j.payload };
  });
}

function request(service, payload, timeout, peer) {
  const to = peer ? ` of ${peers.nameOf(peer)}` : '';
  return act(`request ${service}${to}`,
    () => zq.request(service, payload, { timeout, retries: 1, peer: peer || undefined }));
}

const quick = {
  'led-on': () => publish('cmd.led', 'on', 1),
  'led-off': () => publish('cmd.led', 'off', 1),
  job: () => enqueue('jobs', { n: ++jobCount, from: 'dashboard' }),
  'fail-job': () => enqueue('jobs', { n: ++jobCount, fail: true }),
  status: () => request('status', {}, 2000),
};

function wireForms() {
  for (const b of document.querySelectorAll('[data-action]')) {
    b.addEventListener('click', () => quick[b.dataset.action]());
  }
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    tab.addEventListener('click', () => {
      for (const t of document.querySelectorAll('[role="tab"]')) {
        t.setAttribute('aria-selected', String(t === tab));
        $(t.getAttribute('aria-controls')).hidden = t !== tab;
      }
    });
  }
  const f = (id) => $(id).elements;
  $('form-publish').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const e = f('form-publish');
    publish(e.topic.value.trim(), payloadOf(e.payload.value), Number(e.qos.value));
  });
  $('form-enqueue').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const e = f('form-enqueue');
    enqueue(e.queue.value.trim(), payloadOf(e.payload.value));
  });
  $('form-request').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const e = f('form-request');
    request(e.service.value.trim(), payloadOf(e.payload.value), Number(e.timeout.value) || 2000,
      e.peer.value);
  });
  $('dlq-requeue').addEventListener('click', () => dlqOp('requeue',
    (q) => zq.requeueDeadLetters(q, { remote: true })));
  $('dlq-purge').addEventListener('click', () => dlqOp('purge',
    (q) => zq.purgeDeadLetters(q, { remote: true })));
  $('dlq-queue').addEventListener('change', refreshDeadLetters);
}

// ---- Dead letters --------------------------------------------------------------------------

function dlqQueue() {
  return $('dlq-queue').value.trim() || 'jobs';
}

/** Requeue or purge, here and at every zq producer; @returns how many were held here. */
async function dlqOp(op, fn) {
  const q = dlqQueue();
  await act(`${op} dead letters of ${q}`, async () => ({ here: await fn(q), peers: 'asked' }));
  refreshDeadLetters();
}

let dlqBusy = false;
let dlqAgain = false;
/** Lists the dead letters here and at every zq producer (one list at a time; asked again
 *  while one is being gathered, it runs once more after). */
async function refreshDeadLetters() {
  if (!zq.id) return;
  if (dlqBusy) {
    dlqAgain = true;
    return;
  }
  dlqBusy = true;
  try {
    deadLetters = await zq.deadLetters(dlqQueue(), { remote: true, timeout: 800 });
  } catch (e) {
    log.add('failed', `dead letters: ${e.message}`, 'bad');
  } finally {
    dlqBusy = false;
  }
  if (dlqAgain) {
    dlqAgain = false;
    refreshDeadLetters();
  }
  view.renderDeadLetters($('dlq'), deadLetters, (id) => peers.nameOf(id));
  $('dlq-count').textContent = String(deadLetters.length);
  $('dlq-empty').hidden = deadLetters.length > 0;
}

// ---- The views -----------------------------------------------------------------------------

let lastRedraw = 0;

function refreshAll() {
  const now = Date.now();
  peers.refresh();
  jobs.refresh();
  topics.trim(now);
  while (arrivals.length && arrivals[0] < now - RATE_WINDOW_MS) arrivals.shift();
  const name = (id) => peers.nameOf(id);
  const shown = view.renderPeers($('peers').tBodies[0], peers, rtt);
  view.renderPeerChoice($('form-request').elements.peer, peers);
  $('peers-empty').hidden = shown.length > 0;
  const redraw = now - lastRedraw >= REDRAW_MS;
  if (redraw) lastRedraw = now;
  const ts = view.renderTopics($('topics'), topics, name, colors, redraw);
  $('topics-empty').hidden = ts.length > 0;
  view.renderJobs($('jobs').tBodies[0], jobs, name);
  $('jobs-empty').hidden = jobs.list.length > 0;
  view.renderLog($('log'), log, name);
  const c = jobs.counts();
  const kpis = { peers: $('k-peers'), topics: $('k-topics'), rate: $('k-rate'), jobs: $('k-jobs') };
  view.renderFacts(kpis, {
    peers: shown.filter((p) => p.state === 'open').length,
    topics: ts.length,
    rate: arrivals.length / (RATE_WINDOW_MS / 1000),
    jobs: c,
  });
  $('job-counts').textContent = `${c.waiting} waiting · ${c.leased} leased · ${c.done} done · ` +
    `${c.dead} dead`;
}

function start() {
  $('room').textContent = room;
  document.title = `zq · ${room}`;
  wire();
  wireForms();
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    colors = theme(document.body);
    lastRedraw = 0;
  });
  setInterval(refreshAll, TICK_MS);
  setInterval(refreshDeadLetters, DLQ_MS);
  zq.connect().then(() => {
    rtt.start();
    refreshDeadLetters();
  }, (e) => {
    setSignal('unreachable', 'dead');
    log.add('signal', `${signal}: ${e.message}`, 'bad');
  });
  refreshAll();
}

start();

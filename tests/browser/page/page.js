// What the two hand-written pages share (echo.html, zeroq.html): parameters, the log, waiting
// on a change, and the transport of ZeroQ's signalling (zeroq-wire.md §1-2). A classic script
// loaded before the page's own, whose globals these are; the page's script defines
// handleSignal(m). <script src="page.js" data-log="TAG"> names the page's console lines.
'use strict';

const params = new URLSearchParams(location.search);
const room = params.get('room') || 'default-topic';
const signalUrl = params.get('signal') ||
  `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;

// ---- Log: to the console (the driver saves it) and onto the page ------------------------------

const logTag = document.currentScript.dataset.log;
const t0 = performance.now();
const lines = [];
function note(text) {
  const line = `${(performance.now() - t0).toFixed(1).padStart(9)} ms  ${text}`;
  lines.push(line);
  console.log(`[${logTag}] ${line}`);
  const el = document.getElementById('log');
  if (el) el.textContent += line + '\n';
}
function setState(s) {
  const el = document.getElementById('state');
  if (el) el.textContent = s;
}

// ---- Waiting ----------------------------------------------------------------------------------

let waiters = []; // resolvers waiting for a change: a signalling frame, a channel event, a message
function wake() {
  const w = waiters;
  waiters = [];
  for (const f of w) f();
}
function changed() {
  return new Promise((resolve) => waiters.push(resolve));
}

// Resolves with pred()'s first truthy value; throws what(), a description of the state, after ms.
async function until(pred, ms, what) {
  const deadline = performance.now() + ms;
  for (;;) {
    const v = pred();
    if (v) return v;
    const left = deadline - performance.now();
    if (left <= 0) throw new Error(`timed out after ${ms} ms: ${what()}`);
    await Promise.race([changed(), new Promise((r) => setTimeout(r, Math.min(left, 250)))]);
  }
}

// ---- Signalling frames -------------------------------------------------------------------------

let ws = null;
let chain = Promise.resolve(); // signalling frames are handled one at a time, in order

function sendSignal(frame) {
  if (frame.type !== 'ice_candidate') note(`signal -> ${frame.type} ${frame.peerId || ''}`);
  ws.send(JSON.stringify(frame));
}

// Opens the WebSocket to zq signal, its frames to onSignal; the page then sends join.
async function openSignalling() {
  ws = new WebSocket(signalUrl);
  ws.onmessage = onSignal;
  ws.onclose = (e) => { note(`signalling closed ${e.code}`); wake(); };
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`cannot open ${signalUrl}`));
  });
}

// ws.onmessage: each frame to the page's handleSignal(m), after the one before.
function onSignal(ev) {
  let m;
  try {
    m = JSON.parse(ev.data);
  } catch (e) {
    note(`signal: not JSON: ${String(ev.data).slice(0, 80)}`);
    return;
  }
  if (m.type !== 'ice_candidate') note(`signal <- ${m.type} ${m.peerId || ''}`);
  chain = chain.then(() => handleSignal(m))
    .catch((e) => note(`signal ${m.type}: ${e}`))
    .finally(wake);
}

// Candidates that came before the remote description, added now that it is set.
async function flushCandidates(p) {
  for (const c of p.pending.splice(0)) await p.pc.addIceCandidate(c);
}

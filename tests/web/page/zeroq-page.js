// A plain ZeroQ peer (zeroq-wire.md §1-4) in raw frames, for tests/web/browser.mjs: ZeroQ's
// signalling over the browser's own RTCPeerConnection (as tests/browser/page/echo.js), one
// channel labelled with the room, ZeroQ's control frames (gossip on open with the ids it knows,
// its own included; ping every 10 s; pong), and envelopes in and out as ZeroQ writes them.
'use strict';

const params = new URLSearchParams(location.search);
const room = params.get('room') || 'default-topic';
const signalUrl = `ws://${location.host}/ws`;
const t0 = performance.now();

function note(text) {
  const line = `${(performance.now() - t0).toFixed(1).padStart(9)} ms  ${text}`;
  console.log(`[zeroq] ${line}`);
  document.getElementById('log').textContent += `${line}\n`;
}

let ws = null;
let myId = null;
const known = new Set();     /* ZeroQ's knownPeers */
const peers = new Map();     /* peerId -> {pc, pending, dc} */
const inbox = [];            /* envelopes received: {from, frame} */
const control = [];          /* control frames received */
let chain = Promise.resolve();

function signal(frame) {
  ws.send(JSON.stringify(frame));
}

async function handle(m) {
  switch (m.type) {
    case 'welcome': myId = m.peerId; break;
    case 'peer_joined': known.add(m.peerId); await dial(m.peerId); break;
    case 'offer': known.add(m.peerId); await answer(m.peerId, m.sdp); break;
    case 'answer': {
      const p = peers.get(m.peerId);
      if (p) {
        await p.pc.setRemoteDescription(m.sdp);
        for (const c of p.pending.splice(0)) await p.pc.addIceCandidate(c);
      }
      break;
    }
    case 'ice_candidate': {
      const p = peers.get(m.peerId);
      if (!p) break;
      if (p.pc.remoteDescription) await p.pc.addIceCandidate(m.candidate);
      else p.pending.push(m.candidate);
      break;
    }
    default: break; /* ZeroQ ignores peer_left and everything else */
  }
}

function newPeer(id) {
  const pc = new RTCPeerConnection({ iceServers: [] });
  const p = { pc, pending: [], dc: null };
  peers.set(id, p);
  pc.onicecandidate = (e) => {
    if (e.candidate) signal({ type: 'ice_candidate', peerId: id, candidate: e.candidate.toJSON() });
  };
  pc.ondatachannel = (e) => adopt(id, e.channel);
  return p;
}

async function dial(id) {
  const p = newPeer(id);
  adopt(id, p.pc.createDataChannel(room));
  await p.pc.setLocalDescription(await p.pc.createOffer());
  signal({ type: 'offer', peerId: id, sdp: { type: 'offer', sdp: p.pc.localDescription.sdp } });
}

async function answer(id, sdp) {
  const p = newPeer(id);
  await p.pc.setRemoteDescription(sdp);
  for (const c of p.pending.splice(0)) await p.pc.addIceCandidate(c);
  await p.pc.setLocalDescription(await p.pc.createAnswer());
  signal({ type: 'answer', peerId: id, sdp: { type: 'answer', sdp: p.pc.localDescription.sdp } });
}

function adopt(id, dc) {
  const p = peers.get(id);
  p.dc = dc;
  dc.onopen = () => {
    note(`channel to ${id} open`);
    /* ZeroQ gossips once on open, usually including the receiver's own id (§3) */
    dc.send(JSON.stringify({ type: '__gossip__', peers: [...known, myId, 'made-up-id'] }));
    p.ping = setInterval(() => dc.readyState === 'open' && dc.send('{"type":"__ping__"}'), 10000);
  };
  dc.onclose = () => clearInterval(p.ping);
  dc.onmessage = (e) => {
    if (typeof e.data !== 'string') {
      note(`binary message from ${id}: ZeroQ drops it (JSON.parse fails)`);
      return;
    }
    let f;
    try {
      f = JSON.parse(e.data);
    } catch {
      return;
    }
    if (f && f.type === '__ping__') dc.send('{"type":"__pong__"}');
    if (f && typeof f.type === 'string') control.push({ from: id, frame: f });
    else inbox.push({ from: id, frame: f });
  };
}

function uuid() {
  return crypto.randomUUID();
}

window.zeroq = {
  get id() { return myId; },
  inbox,
  control,
  async join() {
    ws = new WebSocket(signalUrl);
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      chain = chain.then(() => handle(m)).catch((e) => note(`signal ${m.type}: ${e}`));
    };
    await new Promise((resolve) => { ws.onopen = resolve; });
    signal({ type: 'join', topicId: room });
    while (!myId) await new Promise((r) => setTimeout(r, 20));
    note(`joined '${room}' as ${myId}`);
    return myId;
  },
  async waitOpen(ms = 20000) {
    const end = performance.now() + ms;
    for (;;) {
      const open = [...peers.values()].find((p) => p.dc && p.dc.readyState === 'open');
      if (open) return true;
      if (performance.now() > end) throw new Error('no channel opened');
      await new Promise((r) => setTimeout(r, 50));
    }
  },
  /** ZeroQ's publish: an envelope to every open peer (seq 0, retryCount 0). */
  publish(topic, payload, id = uuid()) {
    const frame = { id, topic, payload, timestamp: Date.now(), seq: 0, retryCount: 0 };
    for (const p of peers.values()) if (p.dc && p.dc.readyState === 'open') p.dc.send(JSON.stringify(frame));
    return frame;
  },
  async waitFor(pred, ms = 10000) {
    const end = performance.now() + ms;
    for (;;) {
      const hit = inbox.find((m) => pred(m.frame));
      if (hit) return hit.frame;
      if (performance.now() > end) throw new Error(`no such envelope; inbox: ${JSON.stringify(inbox).slice(0, 400)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  },
  /** Sends ZeroQ's ping on every open channel; resolves true once a pong came back. */
  async ping(ms = 5000) {
    const before = control.filter((c) => c.frame.type === '__pong__').length;
    for (const p of peers.values()) if (p.dc && p.dc.readyState === 'open') p.dc.send('{"type":"__ping__"}');
    const end = performance.now() + ms;
    while (control.filter((c) => c.frame.type === '__pong__').length === before) {
      if (performance.now() > end) return false;
      await new Promise((r) => setTimeout(r, 20));
    }
    return true;
  },
};
note(`page loaded: room '${room}'`);

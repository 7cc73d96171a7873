// A ZeroQ peer written by hand (zeroq-wire.md): ZeroQ's signalling over the browser's own
// RTCPeerConnection and WebSocket, and ZeroQ's frames on each data channel, with a small
// async API on window.zqTest for zeroq_cli.mjs. No libraries, nothing zq-specific: what zq's
// broker commands do with this page is what they do with ZeroQ.
//
// As ZeroQ does: a member that hears peer_joined dials (offer + one channel labelled with the
// room); on open each side sends __gossip__ once; __ping__ every 10 s and __pong__ at once;
// envelopes {id, topic, payload, timestamp, seq, retryCount} broadcast to every open channel;
// anything else that is not a valid envelope (zq's __zq_hello__ among them) dropped; received
// envelopes deduplicated by `${id}:${retryCount}`. page.js, loaded before, holds the log, the
// waiting and the signalling transport.
'use strict';

const PING_MS = 10000; // ZeroQ's heartbeat

// ---- Signalling (zeroq-wire.md §1-2) ----------------------------------------------------------

let myId = null;
const peers = new Map(); // peerId -> {pc, role, pending: candidates before the remote SDP, dc}
const knownPeers = new Set();

async function handleSignal(m) {
  if (m.type === 'welcome') {
    myId = m.peerId;
  } else if (m.type === 'peer_joined') {
    knownPeers.add(m.peerId);
    await dial(m.peerId);
  } else if (m.type === 'offer') {
    knownPeers.add(m.peerId);
    await answer(m.peerId, m.sdp);
  } else if (m.type === 'answer') {
    const p = peers.get(m.peerId);
    if (!p) return note(`answer from unknown peer ${m.peerId}`);
    await p.pc.setRemoteDescription(m.sdp);
    await flushCandidates(p);
  } else if (m.type === 'ice_candidate') {
    const p = peers.get(m.peerId);
    if (!p) return note(`candidate from unknown peer ${m.peerId}`);
    if (p.pc.remoteDescription) await p.pc.addIceCandidate(m.candidate);
    else p.pending.push(m.candidate);
  } else if (m.type === 'peer_left') {
    const p = peers.get(m.peerId);
    if (p) p.pc.close();
    peers.delete(m.peerId);
    knownPeers.delete(m.peerId);
  }
  return undefined;
}

function newPeer(peerId, role) {
  const pc = new RTCPeerConnection({ iceServers: [] });
  const p = { pc, role, pending: [], dc: null, openedAt: null };
  peers.set(peerId, p);
  pc.onicecandidate = (e) => {
    if (e.candidate) sendSignal({ type: 'ice_candidate', peerId, candidate: e.candidate.toJSON() });
  };
  pc.onconnectionstatechange = () => note(`${peerId}: connection ${pc.connectionState}`);
  pc.ondatachannel = (e) => adoptChannel(e.channel, peerId);
  return p;
}

async function dial(peerId) {
  const p = newPeer(peerId, 'offerer');
  adoptChannel(p.pc.createDataChannel(room), peerId); // no options, as ZeroQ
  await p.pc.setLocalDescription(await p.pc.createOffer());
  sendSignal({ type: 'offer', peerId, sdp: p.pc.localDescription.toJSON() });
}

async function answer(peerId, offer) {
  const p = newPeer(peerId, 'answerer');
  await p.pc.setRemoteDescription(offer);
  await flushCandidates(p);
  await p.pc.setLocalDescription(await p.pc.createAnswer());
  sendSignal({ type: 'answer', peerId, sdp: p.pc.localDescription.toJSON() });
}

// ---- The data channel: ZeroQ's frames (zeroq-wire.md §3) --------------------------------------

const inbox = [];        // envelopes received and not yet taken: {from, env}
const seen = new Set();  // `${id}:${retryCount}` of every envelope received
const counts = { frames: 0, invalid: 0, hello: 0, pings: 0, pongs: 0, gossip: 0, duplicates: 0 };

function adoptChannel(dc, peerId) {
  const p = peers.get(peerId);
  p.dc = dc;
  dc.onopen = () => {
    p.openedAt = performance.now();
    note(`channel '${dc.label}' open with ${peerId} (${p.role})`);
    // ZeroQ gossips once on open: up to 10 known ids, the receiver's own usually among them.
    dc.send(JSON.stringify({ type: '__gossip__', peers: [...knownPeers].slice(0, 10) }));
    setState('open');
    wake();
  };
  dc.onclose = () => {
    note(`channel with ${peerId} closed`);
    wake();
  };
  dc.onmessage = (e) => onFrame(peerId, dc, e.data);
}

// ZeroQ's rule (src/types.ts): an envelope has a non-empty string id and a string topic.
function validEnvelope(m) {
  return m !== null && typeof m === 'object' && typeof m.id === 'string' && m.id.length > 0 &&
    typeof m.topic === 'string';
}

function retryCount(m) {
  return Number.isFinite(m.retryCount) && m.retryCount >= 0 ? m.retryCount : 0;
}

function onFrame(peerId, dc, data) {
  counts.frames++;
  let m = null;
  try {
    m = typeof data === 'string' ? JSON.parse(data) : null; // binary fails ZeroQ's JSON.parse
  } catch (e) {
    m = null;
  }
  const type = m && typeof m === 'object' ? m.type : undefined;
  if (type === '__ping__') {
    counts.pings++;
    dc.send(JSON.stringify({ type: '__pong__' }));
  } else if (type === '__pong__') {
    counts.pongs++;
  } else if (type === '__gossip__') {
    counts.gossip++;
  } else if (!validEnvelope(m)) {
    counts.invalid++;
    if (type === '__zq_hello__') counts.hello++;
  } else if (seen.has(`${m.id}:${retryCount(m)}`)) {
    counts.duplicates++;
  } else {
    seen.add(`${m.id}:${retryCount(m)}`);
    note(`envelope from ${peerId}: ${JSON.stringify(m).slice(0, 200)}`);
    inbox.push({ from: peerId, env: m });
  }
  wake();
}

function openChannels() {
  return [...peers.values()].filter((p) => p.dc && p.dc.readyState === 'open');
}

setInterval(() => {
  for (const p of openChannels()) p.dc.send(JSON.stringify({ type: '__ping__' }));
}, PING_MS);

function describe() {
  const ps = [...peers.entries()].map(([id, p]) =>
    `${id}: ${p.role}, ${p.pc.connectionState}, channel ${p.dc ? p.dc.readyState : 'none'}`);
  return `${ps.join('; ') || 'no peer'}; ${inbox.length} envelope(s) waiting; ` +
    `frames ${JSON.stringify(counts)}`;
}

// An envelope as ZeroQ's publish() makes it, sent to every open channel as ZeroQ broadcasts.
function broadcast(topic, payload, id) {
  const env = { id: id || crypto.randomUUID(), topic, payload, timestamp: Date.now(), seq: 0,
    retryCount: 0 };
  const text = JSON.stringify(env);
  const open = openChannels();
  if (open.length === 0) throw new Error(`no open channel: ${describe()}`);
  for (const p of open) p.dc.send(text);
  note(`sent to ${open.length} peer(s): ${text.slice(0, 200)}`);
  return env;
}

// ---- The API zeroq_cli.mjs calls ------------------------------------------------------------

window.zqTest = {
  room,
  lines,
  counts,
  describe,
  get id() { return myId; },

  // Opens the WebSocket, sends join, waits for the welcome id.
  async join(ms = 10000) {
    await openSignalling();
    sendSignal({ type: 'join', topicId: room });
    await until(() => myId, ms, () => 'no welcome');
    note(`joined '${room}' as ${myId}`);
    setState(`joined as ${myId}`);
    return myId;
  },

  // Waits until n channels are open; says who dialled.
  async waitOpen(n = 1, ms = 20000) {
    await until(() => openChannels().length >= n, ms, describe);
    return openChannels().map((p) => ({ role: p.role, label: p.dc.label }));
  },

  publish(topic, payload, id) { return broadcast(topic, payload, id); },

  // The first envelope received on topic (taken out of the inbox).
  async waitEnvelope(topic, ms = 20000) {
    const i = await until(() => {
      const k = inbox.findIndex((x) => x.env.topic === topic);
      return k >= 0 ? k + 1 : 0;
    }, ms, () => `no envelope on '${topic}': ${describe()}`);
    return inbox.splice(i - 1, 1)[0].env;
  },

  // ZeroQ's request(): payload {...message, replyTo}; the first envelope on replyTo answers.
  async request(service, message, ms = 20000) {
    const replyTo = crypto.randomUUID();
    broadcast(service, { ...message, replyTo });
    const env = await this.waitEnvelope(replyTo, ms);
    return { replyTo, env };
  },
};

note(`page loaded: room '${room}', signal ${signalUrl}`);
setState('ready');

// ZeroQ's signalling client (zeroq-wire.md §1-2) over the browser's own RTCPeerConnection, and
// a small async API on window.zqTest for run.mjs. No libraries: this page is what a browser
// does by itself, so whatever fails against zq here fails for every web app.
//
// Roles follow ZeroQ: a member that hears peer_joined dials the newcomer (offer + one
// data channel labelled with the room); the newcomer answers. Candidates trickle both ways.
// page.js, loaded before, holds the log, the waiting and the signalling transport.
'use strict';

const noCandidates = params.get('nocandidates') === '1';

const CLOSE_COMMAND = 'zq-echo close'; // node/echo.h: zq echo closes the channel, no echo

// ---- Signalling ------------------------------------------------------------------------------

let myId = null;
let joinedAt = null;         // performance.now() when our join went out
let peerJoinedAt = null;     // ... when we heard the peer we dial join
let candidatesSent = 0;      // ice_candidate frames sent
let candidatesReceived = 0;  // ... and received
const peers = new Map();     // peerId -> {pc, role, pending: [candidates before the remote SDP]}

async function handleSignal(m) {
  switch (m.type) {
    case 'welcome':
      myId = m.peerId;
      break;
    case 'peer_joined':
      peerJoinedAt = performance.now();
      await dial(m.peerId);
      break;
    case 'offer':
      await answer(m.peerId, m.sdp);
      break;
    case 'answer': {
      const p = peers.get(m.peerId);
      if (!p) return note(`answer from unknown peer ${m.peerId}`);
      note(`remote answer:\n${m.sdp.sdp}`);
      await p.pc.setRemoteDescription(m.sdp);
      await flushCandidates(p);
      break;
    }
    case 'ice_candidate': {
      const p = peers.get(m.peerId);
      if (!p) return note(`candidate from unknown peer ${m.peerId}`);
      candidatesReceived++;
      note(`remote candidate: ${m.candidate && m.candidate.candidate}`);
      if (p.pc.remoteDescription) await p.pc.addIceCandidate(m.candidate);
      else p.pending.push(m.candidate);
      break;
    }
    case 'peer_left': {
      const p = peers.get(m.peerId);
      if (p) p.pc.close();
      peers.delete(m.peerId);
      break;
    }
    default:
      break;
  }
}

// ---- Peer connections ------------------------------------------------------------------------

function newPeer(peerId, role) {
  const pc = new RTCPeerConnection({ iceServers: [] });
  const p = { pc, role, pending: [] };
  peers.set(peerId, p);
  pc.onicecandidate = (e) => {
    if (!e.candidate) return note('local ICE gathering complete');
    note(`local candidate${noCandidates ? ' (not sent)' : ''}: ${e.candidate.candidate}`);
    if (!noCandidates) {
      candidatesSent++;
      sendSignal({ type: 'ice_candidate', peerId, candidate: e.candidate.toJSON() });
    }
  };
  pc.oniceconnectionstatechange = () => note(`ice ${pc.iceConnectionState}`);
  pc.onconnectionstatechange = () => note(`connection ${pc.connectionState}`);
  pc.ondatachannel = (e) => adoptChannel(e.channel, peerId, role);
  return p;
}

// ?nocandidates=1: the offer keeps no candidate line (RFC 8839 §5.1 lets an offer have none).
function stripCandidates(sdp) {
  return sdp.split('\r\n')
    .filter((l) => !l.startsWith('a=candidate') && l !== 'a=end-of-candidates')
    .join('\r\n');
}

async function dial(peerId) {
  const p = newPeer(peerId, 'offerer');
  adoptChannel(p.pc.createDataChannel(room), peerId, 'offerer'); // ordered, reliable
  await p.pc.setLocalDescription(await p.pc.createOffer());
  let sdp = p.pc.localDescription.sdp;
  if (noCandidates) sdp = stripCandidates(sdp);
  note(`local offer:\n${sdp}`);
  sendSignal({ type: 'offer', peerId, sdp: { type: 'offer', sdp } });
}

async function answer(peerId, offer) {
  const p = newPeer(peerId, 'answerer');
  note(`remote offer:\n${offer.sdp}`);
  await p.pc.setRemoteDescription(offer);
  await flushCandidates(p);
  await p.pc.setLocalDescription(await p.pc.createAnswer());
  note(`local answer:\n${p.pc.localDescription.sdp}`);
  sendSignal({ type: 'answer', peerId, sdp: p.pc.localDescription.toJSON() });
}

// ---- The data channel and its inbox ----------------------------------------------------------

let channel = null;       // {dc, peerId, role, openedAt, closedAt}
const inbox = [];         // messages not yet taken

function adoptChannel(dc, peerId, role) {
  dc.binaryType = 'arraybuffer';
  const ch = { dc, peerId, role, openedAt: null, closedAt: null, error: null };
  channel = ch;
  dc.onopen = () => {
    ch.openedAt = performance.now();
    note(`channel '${dc.label}' open (id ${dc.id}, ${role})`);
    setState('open');
    wake();
  };
  dc.onclose = () => {
    ch.closedAt = performance.now();
    note(`channel '${dc.label}' closed`);
    setState('closed');
    wake();
  };
  dc.onerror = (e) => {
    ch.error = (e.error && e.error.message) || 'error';
    note(`channel error: ${ch.error}`);
    wake();
  };
  dc.onmessage = (e) => {
    if (ch === channel) inbox.push(e.data);
    wake();
  };
}

function describe() {
  const pcs = [...peers.entries()].map(([id, p]) =>
    `${id}: ${p.role}, ice ${p.pc.iceConnectionState}, connection ${p.pc.connectionState}`);
  const ch = channel ? `channel ${channel.dc.readyState}` : 'no channel';
  return `${ch}; ${pcs.join('; ') || 'no peer'}; ${inbox.length} message(s) waiting`;
}

// ---- Payloads: deterministic, so the echo is checked byte for byte ---------------------------

function pattern(size, seed) {
  const out = new Uint8Array(size);
  let x = (seed * 2654435761 + size) >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
function textPattern(size, seed) {
  // ASCII, so the string's UTF-8 length is the message size on the wire.
  const bytes = pattern(size, seed);
  let s = '';
  const chunk = 8192;
  for (let i = 0; i < size; i += chunk) {
    s += String.fromCharCode(...Array.from(bytes.subarray(i, i + chunk), (b) => ALPHABET.charCodeAt(b & 63)));
  }
  return s;
}

// Where two messages first differ, or -1. A binary message must come back binary, text text.
function firstDifference(sent, got) {
  if (typeof sent === 'string') {
    if (typeof got !== 'string') return `came back as ${got && got.constructor.name}, not text`;
    if (got === sent) return -1;
    const n = Math.min(sent.length, got.length);
    for (let i = 0; i < n; i++) if (sent.charCodeAt(i) !== got.charCodeAt(i)) return `differs at ${i}`;
    return `length ${got.length}, sent ${sent.length}`;
  }
  if (!(got instanceof ArrayBuffer)) return `came back as ${typeof got}, not binary`;
  const a = new Uint8Array(sent);
  const b = new Uint8Array(got);
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return `differs at byte ${i}`;
  return a.length === b.length ? -1 : `length ${b.length}, sent ${a.length}`;
}

// ---- The API run.mjs calls -------------------------------------------------------------------

function openChannel() {
  if (!channel || channel.dc.readyState !== 'open') throw new Error(`no open channel: ${describe()}`);
  return channel.dc;
}

window.zqTest = {
  room,
  noCandidates,
  lines,
  get id() { return myId; },

  // Opens the WebSocket, sends join, waits for the welcome id.
  async join(ms = 10000) {
    await openSignalling();
    joinedAt = performance.now();
    sendSignal({ type: 'join', topicId: room });
    await until(() => myId, ms, () => 'no welcome');
    note(`joined '${room}' as ${myId}`);
    setState(`joined as ${myId}`);
    return myId;
  },

  // Waits for the data channel to open. ms: from our join, or from hearing peer_joined when
  // we dial, to onopen.
  async waitOpen(ms = 20000) {
    await until(() => channel && channel.openedAt, ms, describe);
    const start = Math.max(joinedAt, peerJoinedAt || 0);
    const p = peers.get(channel.peerId);
    return {
      peerId: channel.peerId,
      role: channel.role,
      label: channel.dc.label,
      ordered: channel.dc.ordered,
      ms: Math.round(channel.openedAt - start),
      maxMessageSize: p.pc.sctp ? p.pc.sctp.maxMessageSize : null,
      pair: await selectedPair(p.pc),
      candidatesSent,
      candidatesReceived,
    };
  },

  get maxMessageSize() {
    const p = channel && peers.get(channel.peerId);
    return p && p.pc.sctp ? p.pc.sctp.maxMessageSize : null;
  },

  send(data) { openChannel().send(data); },

  async nextMessage(ms = 10000) {
    await until(() => inbox.length > 0, ms, describe);
    return inbox.shift();
  },

  // n numbered text messages sent back to back; every echo must come back, in order.
  async sequence(n, ms = 60000) {
    const dc = openChannel();
    inbox.length = 0;
    const start = performance.now();
    for (let i = 0; i < n; i++) dc.send(`seq ${i} ${room} ünïcødé ✓`);
    for (let i = 0; i < n; i++) {
      const got = await this.nextMessage(ms);
      const want = `seq ${i} ${room} ünïcødé ✓`;
      if (got !== want) {
        return { ok: false, detail: `message ${i}: got ${JSON.stringify(String(got).slice(0, 60))}` };
      }
    }
    return { ok: true, ms: Math.round(performance.now() - start) };
  },

  // One message of size bytes, text or binary, and its echo compared byte for byte.
  async roundTrip(size, kind, ms = 20000) {
    const dc = openChannel();
    inbox.length = 0;
    const sent = kind === 'text' ? textPattern(size, 7) : pattern(size, 11).buffer;
    const start = performance.now();
    try {
      dc.send(sent);
    } catch (e) {
      return { ok: false, detail: `send threw ${e.name}: ${e.message}` };
    }
    const got = await this.nextMessage(ms);
    const diff = firstDifference(sent, got);
    return diff === -1 ? { ok: true, ms: Math.round(performance.now() - start) }
                       : { ok: false, detail: diff };
  },

  // Sends the close command and waits for this side's onclose.
  async closeByCommand(ms = 10000) {
    const dc = openChannel();
    const ch = channel;
    const start = performance.now();
    dc.send(CLOSE_COMMAND);
    await until(() => ch.closedAt, ms, describe);
    return { ms: Math.round(ch.closedAt - start), echoed: inbox.includes(CLOSE_COMMAND) };
  },

  describe,
};

async function selectedPair(pc) {
  const stats = await pc.getStats();
  let pair = null;
  stats.forEach((s) => {
    if (s.type === 'transport' && s.selectedCandidatePairId) pair = stats.get(s.selectedCandidatePairId);
  });
  if (!pair) return null;
  const l = stats.get(pair.localCandidateId);
  const r = stats.get(pair.remoteCandidateId);
  const c = (x) => x && `${x.candidateType} ${x.address}:${x.port}`;
  return { local: c(l), remote: c(r) };
}

note(`page loaded: room '${room}', signal ${signalUrl}${noCandidates ? ', no candidates' : ''}`);
setState('ready');

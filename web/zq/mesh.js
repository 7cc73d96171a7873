// The mesh: ZeroQ's signalling over a WebSocket (zeroq-wire.md §1) and one RTCPeerConnection
// with one data channel per member of the room (§2). The only module that touches WebSocket
// and RTCPeerConnection (given in the options, so another runtime can supply its own).
//
// Who dials: only the member that hears peer_joined (the one already in the room), never from
// gossip, so two members never dial each other at once (no glare by construction, zeroq-wire
// §2 hazard 3). The dialer also redials a failed connection, with ZeroQ's backoff; the other
// side only waits for its offer. An offer from a member we already have a connection with
// replaces it (that member redialed). After our own WebSocket reconnects we are a newcomer
// with a new id: the others dial us, and we redial nobody.
//
// Trickle ICE both ways; remote candidates that come before the remote description are
// queued until it is set (zeroq-wire §2 hazard 1 is ZeroQ's; zq.js does not share it).

import { ZQError } from './errors.js';

/** ZeroQ's backoff: round(min(1000 * 2^n, 30000) * U[0.8, 1.2)) ms (zeroq-wire.md §4). */
export function backoff(n, random = Math.random) {
  return Math.round(Math.min(1000 * 2 ** n, 30000) * (0.8 + 0.4 * random()));
}

/** The identity a remote description proves: its SHA-256 certificate fingerprint's first
 *  16 hex digits (PROTOCOL.md: "fp"), lowercase; null when it has none. */
export function sdpIdentity(sdp) {
  const m = /^a=fingerprint:sha-256 ([0-9A-Fa-f:]+)\s*$/im.exec(sdp || '');
  return m ? m[1].replace(/:/g, '').toLowerCase().slice(0, 16) : null;
}

/** The remote's a=max-message-size (RFC 8841 §6): 0 means no limit; absent means 65536. */
export function sdpMaxMessageSize(sdp) {
  const m = /^a=max-message-size:(\d+)\s*$/im.exec(sdp || '');
  if (!m) return 65536;
  const n = Number(m[1]);
  return n === 0 ? Infinity : n;
}

const OPEN_TIMEOUT_MS = 20000; /* a dial that has not opened its channel by then failed */
const MAX_REDIALS = 10;        /* ZeroQ forgets a peer on its 11th failure */
const EARLY_MAX = 64;          /* messages kept for a link not up yet (a hello, a sub: a few) */

export class Mesh {
  /**
   * @param {object} o
   * @param {string} o.signal   ws:// URL of the signalling server (ZeroQ's path: /ws)
   * @param {string} o.room     the signalling room, and every data channel's label
   * @param {RTCIceServer[]} o.iceServers
   * @param {RTCCertificate} o.certificate  the one certificate every connection uses
   * @param {object} o.handlers {linkUp(link) -> handle, linkData(handle, data),
   *        linkDrain(handle), linkDown(handle), event(name, data)}
   * @param {number} o.lowWater the channels' bufferedAmountLowThreshold
   * @param {number} [o.maxReconnects] WebSocket reconnects before giving up (Infinity)
   */
  constructor(o) {
    this.url = o.signal;
    this.room = o.room;
    this.iceServers = o.iceServers;
    this.roomIceServers = []; /* what the server hands members as they join (ice_servers) */
    this.certificate = o.certificate;
    this.h = o.handlers;
    this.lowWater = o.lowWater;
    this.maxReconnects = o.maxReconnects ?? Infinity;
    this.WebSocket = o.WebSocket ?? globalThis.WebSocket;
    this.RTCPeerConnection = o.RTCPeerConnection ?? globalThis.RTCPeerConnection;
    this.log = o.log ?? (() => {});
    this.ws = null;
    this.myId = null;
    this.peers = new Map();    /* member id -> connection entry */
    this.redials = new Map();  /* member id -> {attempt, timer} (we dial it) */
    this.outbox = [];          /* frames for the server while the socket is down */
    this.attempt = 0;
    this.closed = false;
    this.chain = Promise.resolve(); /* server frames are handled one at a time, in order */
    this.joinWaiters = [];
  }

  // ---- The signalling socket ---------------------------------------------------------------

  /** Opens the socket; resolves once the server gave us an id and we joined the room. */
  connect() {
    return new Promise((resolve, reject) => {
      this.joinWaiters.push({ resolve, reject });
      if (!this.ws) this.open();
    });
  }

  open() {
    if (this.closed) return;
    const ws = new this.WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.rawSend({ type: 'join', topicId: this.room });
      for (const f of this.outbox.splice(0)) this.rawSend(f.frame, f);
    };
    ws.onmessage = (ev) => {
      let m;
      try {
        m = JSON.parse(ev.data);
      } catch {
        this.log(`signal: not JSON: ${String(ev.data).slice(0, 80)}`);
        return;
      }
      this.chain = this.chain.then(() => this.onSignal(m))
        .catch((e) => this.log(`signal ${m && m.type}: ${e && e.message}`));
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.h.event('disconnected', { code: ev.code });
      this.reconnect();
    };
    ws.onerror = () => {}; /* onclose follows */
  }

  reconnect() {
    if (this.closed) return;
    if (this.attempt >= this.maxReconnects) {
      const err = new ZQError('CLOSED', `signalling server ${this.url} unreachable`);
      for (const w of this.joinWaiters.splice(0)) w.reject(err);
      this.h.event('connection_failed', { url: this.url });
      return;
    }
    const ms = backoff(Math.min(this.attempt, 5));
    this.attempt++;
    this.reconnectTimer = setTimeout(() => this.open(), ms);
  }

  rawSend(frame, item) {
    try {
      this.ws.send(JSON.stringify(frame));
      item?.resolve?.();
    } catch (e) {
      item?.reject?.(e);
    }
  }

  /** Sends a frame to the server (queued while the socket is down). @returns a promise:
   *  resolves once handed to the socket. */
  send(frame) {
    return new Promise((resolve, reject) => {
      if (this.closed) reject(new ZQError('CLOSED', 'closed'));
      else if (this.ws && this.ws.readyState === 1) this.rawSend(frame, { resolve, reject });
      else this.outbox.push({ frame, resolve, reject });
    });
  }

  signalOpen() {
    return this.ws !== null && this.ws.readyState === 1;
  }

  async onSignal(m) {
    switch (m && m.type) {
      case 'welcome': return this.onWelcome(m.peerId);
      case 'peer_joined': return this.dial(m.peerId);
      case 'offer': return this.onOffer(m.peerId, m.sdp);
      case 'answer': return this.onAnswer(m.peerId, m.sdp);
      case 'ice_candidate': return this.onCandidate(m.peerId, m.candidate);
      case 'peer_left': return this.onPeerLeft(m.peerId);
      case 'refused': return this.onRefused(m.peerId, m.reason);
      case 'ice_servers': return this.onIceServers(m.iceServers);
      case 'error': return this.h.event('error', new ZQError('REFUSED', `signalling: ${m.reason}`));
      default: return undefined; /* what ZeroQ's clients do not know, they ignore */
    }
  }

  /** zq signal --turn-secret: the room's TURN servers with this member's credentials, for the
   *  connections made from now on, after the application's own. Malformed entries are left
   *  out, so RTCPeerConnection never throws on them. */
  onIceServers(list) {
    const ok = (s) => s && (typeof s.urls === 'string' ||
      (Array.isArray(s.urls) && s.urls.every((u) => typeof u === 'string'))) &&
      (s.username === undefined || typeof s.username === 'string') &&
      (s.credential === undefined || typeof s.credential === 'string');
    this.roomIceServers = Array.isArray(list) ? list.filter(ok).map((s) => ({
      urls: s.urls, username: s.username, credential: s.credential,
    })) : [];
  }

  onWelcome(id) {
    const again = this.myId !== null;
    this.myId = id;
    if (again) { /* a newcomer again, with a new id: the others dial us */
      for (const r of this.redials.values()) clearTimeout(r.timer);
      this.redials.clear();
      for (const e of this.peers.values()) e.redial = false;
    }
    for (const w of this.joinWaiters.splice(0)) w.resolve(id);
    this.h.event('connected', { id });
  }

  // ---- Connections ---------------------------------------------------------------------------

  newEntry(id, role) {
    this.closeEntry(this.peers.get(id), 'replaced');
    const pc = new this.RTCPeerConnection({
      iceServers: [...this.iceServers, ...this.roomIceServers], certificates: [this.certificate],
    });
    const e = { id, role, pc, pending: [], dc: null, handle: null, failed: false,
      redial: role === 'offerer', openTimer: null };
    this.peers.set(id, e);
    pc.onicecandidate = (ev) => {
      if (ev.candidate && this.peers.get(id) === e) { /* the null end of gathering: never sent */
        this.send({ type: 'ice_candidate', peerId: id, candidate: ev.candidate.toJSON() })
          .catch(() => {});
      }
    };
    pc.onconnectionstatechange = () => {
      if (pc.connectionState === 'failed') this.failed(e, 'ice-failed');
    };
    pc.ondatachannel = (ev) => this.adopt(e, ev.channel);
    e.openTimer = setTimeout(() => this.failed(e, 'open-timeout'), OPEN_TIMEOUT_MS);
    return e;
  }

  async dial(id) {
    if (this.closed || typeof id !== 'string' || id === this.myId) return;
    const e = this.newEntry(id, 'offerer');
    this.adopt(e, e.pc.createDataChannel(this.room)); /* ordered, reliable: ZeroQ's */
    await e.pc.setLocalDescription(await e.pc.createOffer());
    if (this.peers.get(id) !== e) return;
    await this.send({ type: 'offer', peerId: id, sdp: descriptionJSON(e.pc.localDescription) });
  }

  async onOffer(id, sdp) {
    if (this.closed || typeof id !== 'string' || !sdp) return;
    const old = this.peers.get(id);
    if (old && old.role === 'offerer' && !old.handle) {
      this.log(`offer from ${id} while dialing it: taking theirs`); /* a ZeroQ peer's glare */
    }
    this.cancelRedial(id); /* it dialed us: our redial would replace its connection */
    const e = this.newEntry(id, 'answerer');
    e.remoteSdp = sdp.sdp;
    await e.pc.setRemoteDescription(sdp);
    await this.flushCandidates(e);
    await e.pc.setLocalDescription(await e.pc.createAnswer());
    if (this.peers.get(id) !== e) return;
    await this.send({ type: 'answer', peerId: id, sdp: descriptionJSON(e.pc.localDescription) });
  }

  async onAnswer(id, sdp) {
    const e = this.peers.get(id);
    if (!e || e.role !== 'offerer' || e.pc.signalingState !== 'have-local-offer' || !sdp) return;
    e.remoteSdp = sdp.sdp;
    await e.pc.setRemoteDescription(sdp);
    await this.flushCandidates(e);
  }

  async onCandidate(id, candidate) {
    const e = this.peers.get(id);
    if (!e || !candidate) return;
    if (e.pc.remoteDescription) await this.addCandidate(e, candidate);
    else e.pending.push(candidate);
  }

  async flushCandidates(e) {
    for (const c of e.pending.splice(0)) await this.addCandidate(e, c);
  }

  async addCandidate(e, c) {
    try {
      await e.pc.addIceCandidate(c);
    } catch (err) { /* one of an earlier connection's (another ufrag): not ours */
      this.log(`candidate from ${e.id} refused: ${err.message}`);
    }
  }

  onPeerLeft(id) {
    this.dropMember(id, 'left');
    this.h.event('peer_left', { id });
  }

  /** A member with every peer slot taken (a zq device) says so, and dials us when one frees:
   *  a dial of ours to it ends now, before its open timeout, and is not redialed. */
  onRefused(id, reason) {
    if (typeof id !== 'string') return;
    const e = this.peers.get(id);
    if (e && e.handle) return; /* stale: it has dialed us since */
    this.dropMember(id, 'refused');
    this.h.event('waiting', { id, reason: typeof reason === 'string' ? reason : 'full' });
  }

  /** The channel: one per connection (a second one replaces the first, as in ZeroQ). Its
   *  messages are taken from the moment it is adopted: one that comes before the link is up
   *  (before our open handler ran) waits for it, in order, so none is dropped for want of a
   *  handler and our hello still goes first. */
  adopt(e, dc) {
    if (e.dc && e.dc !== dc) this.linkDown(e);
    e.dc = dc;
    e.early = [];
    dc.binaryType = 'arraybuffer';
    dc.bufferedAmountLowThreshold = this.lowWater;
    dc.onopen = () => this.opened(e, dc);
    dc.onclose = () => {
      if (e.dc === dc) this.failed(e, 'datachannel-closed');
    };
    dc.onmessage = (ev) => this.received(e, dc, ev.data);
    if (dc.label !== this.room) this.log(`channel from ${e.id} labelled '${dc.label}'`);
    if (dc.readyState === 'open') this.opened(e, dc);
  }

  opened(e, dc) {
    if (e.handle || e.failed || e.dc !== dc) return;
    clearTimeout(e.openTimer);
    this.cancelRedial(e.id);
    const pc = e.pc;
    /* The remote SDP as signalling brought it: the channel can open before the browser shows
     * it as pc.remoteDescription (DTLS checks the fingerprint as soon as setRemoteDescription
     * starts, and the SCTP association follows before that call's promise settles). */
    e.fp = sdpIdentity(e.remoteSdp);
    if (!e.fp) this.log(`no sha-256 a=fingerprint from ${e.id}: no identity to resume by`);
    /* One connection per identity: after the server restarted, members who kept their
     * channels also meet again under new ids; the newer connection replaces the older. */
    for (const o of [...this.peers.values()]) {
      if (o !== e && o.handle && e.fp && o.fp === e.fp) this.closeEntry(o, `${e.fp} is back as ${e.id}`);
    }
    const link = {
      id: e.id,
      fp: e.fp,
      /* RFC 8841 §6: what the remote takes; 65536 when it says nothing */
      get maxMessageSize() {
        return (pc.sctp && pc.sctp.maxMessageSize) || sdpMaxMessageSize(e.remoteSdp);
      },
      get bufferedAmount() {
        return dc.bufferedAmount;
      },
      send: (data) => dc.send(data),
      close: (why) => this.failed(e, why),
    };
    e.handle = this.h.linkUp(link);
    for (const data of e.early.splice(0)) {
      if (e.handle) this.h.linkData(e.handle, data);
    }
    dc.onbufferedamountlow = () => {
      if (e.handle) this.h.linkDrain(e.handle);
    };
  }

  /** A message on @p dc: to the link, or kept until it is up (a message shows the channel
   *  open, RFC 8832 §6, even if its open event is still to come). */
  received(e, dc, data) {
    if (e.dc !== dc || e.failed) return;
    if (!e.handle && dc.readyState === 'open') this.opened(e, dc);
    if (e.handle) {
      this.h.linkData(e.handle, data);
    } else if (e.early.length < EARLY_MAX) {
      e.early.push(data);
    } else {
      this.failed(e, 'flood-before-open');
    }
  }

  linkDown(e) {
    if (!e.handle) return;
    const h = e.handle;
    e.handle = null;
    this.h.linkDown(h);
  }

  closeEntry(e, why) {
    if (!e) return;
    e.failed = true;
    clearTimeout(e.openTimer);
    if (this.peers.get(e.id) === e) this.peers.delete(e.id);
    this.linkDown(e);
    try {
      e.pc.close();
    } catch {
      /* already closed */
    }
    this.log(`connection to ${e.id} closed (${why})`);
  }

  /** A connection failed (ICE, its channel, its heartbeat, or it never opened): the dialer
   *  redials with ZeroQ's backoff; the other side waits for that offer. */
  failed(e, why) {
    if (e.failed) return;
    this.closeEntry(e, why);
    this.h.event('peer_failed', { id: e.id, reason: why });
    if (e.redial && !this.closed) this.scheduleRedial(e.id);
  }

  /** Ends our connection to @p id, or our dial, if any, with no redial. */
  dropMember(id, why) {
    this.cancelRedial(id);
    const e = this.peers.get(id);
    if (e) e.redial = false;
    this.closeEntry(e, why);
  }

  cancelRedial(id) {
    const r = this.redials.get(id);
    if (r) clearTimeout(r.timer);
    this.redials.delete(id);
  }

  scheduleRedial(id) {
    const r = this.redials.get(id) ?? { attempt: 0, timer: null };
    if (r.attempt >= MAX_REDIALS) {
      this.redials.delete(id);
      this.h.event('peer_unreachable', { id });
      return;
    }
    r.timer = setTimeout(() => {
      if (this.closed || this.redials.get(id) !== r) return;
      if (!this.signalOpen()) { /* offers need the server: try again later */
        this.scheduleRedial(id);
        return;
      }
      this.dial(id).catch((err) => this.log(`redial ${id}: ${err.message}`));
    }, backoff(Math.min(r.attempt, 5)));
    r.attempt++;
    this.redials.set(id, r);
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    for (const r of this.redials.values()) clearTimeout(r.timer);
    this.redials.clear();
    for (const e of [...this.peers.values()]) this.closeEntry(e, 'closed');
    const err = new ZQError('CLOSED', 'closed');
    for (const f of this.outbox.splice(0)) f.reject(err);
    for (const w of this.joinWaiters.splice(0)) w.reject(err);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close(1000);
    }
  }
}

function descriptionJSON(d) {
  return { type: d.type, sdp: d.sdp }; /* ZeroQ's {type, sdp} (zeroq-wire.md §1) */
}

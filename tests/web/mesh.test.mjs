// web/zq/mesh.js: identity and max-message-size from an SDP, ZeroQ's backoff, and a connection's
// data channel as the Mesh takes it (fake channels whose events the test fires).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Mesh, sdpIdentity, sdpMaxMessageSize, backoff } from '../../web/zq/mesh.js';

const SDP = 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n' +
  'a=fingerprint:sha-256 9A:1F:03:C4:B2:E8:D7:A6:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:' +
  '01:02:03:04:05:06:07:08\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n' +
  'a=sctp-port:5000\r\na=max-message-size:262144\r\n';

test('the identity is the SHA-256 fingerprint\'s first 16 hex digits, lowercase (PROTOCOL.md "fp")', () => {
  assert.equal(sdpIdentity(SDP), '9a1f03c4b2e8d7a6');
  assert.equal(sdpIdentity(SDP.replace('sha-256', 'sha-1')), null, 'only SHA-256 proves an identity here');
  assert.equal(sdpIdentity(undefined), null);
});

test('max-message-size: the remote\'s, 65536 when absent, no limit when 0 (RFC 8841 §6)', () => {
  assert.equal(sdpMaxMessageSize(SDP), 262144);
  assert.equal(sdpMaxMessageSize(SDP.replace('a=max-message-size:262144\r\n', '')), 65536);
  assert.equal(sdpMaxMessageSize(SDP.replace('262144', '0')), Infinity);
});

test("ZeroQ's backoff: 1 s doubling to 30 s, within ±20 %", () => {
  const at = (n, r) => backoff(n, () => r);
  assert.deepEqual([0, 1, 2, 3, 4, 5, 9].map((n) => at(n, 0.5)), [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.equal(at(0, 0), 800);
  assert.ok(at(0, 0.999999) <= 1200);
  assert.equal(at(5, 0), 24000);
});

// A data channel as the Mesh sees one: it sets the handlers, the test fires them.
function fakeChannel(readyState) {
  return { label: 'room', readyState, binaryType: 'blob', bufferedAmount: 0, send() {} };
}

class FakePeerConnection {
  constructor(config) { this.config = config; }
  close() {}
}

/** A Mesh with one connection entry to member 'b' and what its handlers saw, in order. */
function meshWithEntry() {
  const seen = [];
  const mesh = new Mesh({
    signal: 'ws://127.0.0.1:1/ws', room: 'room', iceServers: [], certificate: null,
    lowWater: 0, RTCPeerConnection: FakePeerConnection,
    handlers: {
      linkUp: (link) => { seen.push(`up ${link.id}`); return link.id; },
      linkData: (h, data) => seen.push(`data ${h} ${data}`),
      linkDrain() {},
      linkDown: (h) => seen.push(`down ${h}`),
      event: (name, data) => seen.push(`${name} ${JSON.stringify(data)}`),
    },
  });
  const e = mesh.newEntry('b', 'offerer');
  e.remoteSdp = '';
  return { mesh, e, seen };
}

test('a message that comes before the open event waits for the link, then is delivered in order', () => {
  const { mesh, e, seen } = meshWithEntry();
  const dc = fakeChannel('connecting');
  mesh.adopt(e, dc);
  dc.onmessage({ data: 'hello' });
  dc.onmessage({ data: 'sub' });
  assert.deepEqual(seen, [], 'no link before the channel is open');
  dc.readyState = 'open';
  dc.onopen();
  dc.onmessage({ data: 'ping' });
  assert.deepEqual(seen, ['up b', 'data b hello', 'data b sub', 'data b ping']);
  mesh.close();
});

test('a message on an open channel whose open event is still to come brings the link up first', () => {
  const { mesh, e, seen } = meshWithEntry();
  const dc = fakeChannel('connecting');
  mesh.adopt(e, dc);
  dc.readyState = 'open';
  dc.onmessage({ data: 'hello' });
  dc.onopen(); /* late: the link is already up */
  assert.deepEqual(seen, ['up b', 'data b hello']);
  mesh.close();
});

test('messages on a channel a later one replaced are not delivered', () => {
  const { mesh, e, seen } = meshWithEntry();
  const first = fakeChannel('open');
  mesh.adopt(e, first);
  const second = fakeChannel('open');
  mesh.adopt(e, second);
  first.onmessage({ data: 'old' });
  second.onmessage({ data: 'new' });
  assert.deepEqual(seen, ['up b', 'down b', 'up b', 'data b new']);
  mesh.close();
});

test('a refusal ends our dial to that member at once, with no redial, and says we wait', async () => {
  const { mesh, e, seen } = meshWithEntry();
  let closed = false;
  e.pc.close = () => { closed = true; };
  await mesh.onSignal({ type: 'refused', peerId: 'b', reason: 'full' });
  assert.ok(closed, 'the dial is given up before its open timeout');
  assert.equal(mesh.peers.has('b'), false);
  assert.equal(mesh.redials.has('b'), false, 'no redial: the member dials us when it has a slot');
  assert.deepEqual(seen, ['waiting {"id":"b","reason":"full"}']);
  mesh.close();
});

test('a refusal from a member whose connection is up is stale: nothing changes', async () => {
  const { mesh, e, seen } = meshWithEntry();
  mesh.adopt(e, fakeChannel('open'));
  await mesh.onSignal({ type: 'refused', peerId: 'b' });
  assert.ok(mesh.peers.get('b') === e && e.handle);
  assert.deepEqual(seen, ['up b']);
  mesh.close();
});

test('a refusal with no reason says "full"', async () => {
  const { mesh, seen } = meshWithEntry();
  await mesh.onSignal({ type: 'refused', peerId: 'c' });
  assert.deepEqual(seen, ['waiting {"id":"c","reason":"full"}']);
  mesh.close();
});

test("the room's TURN servers from ice_servers come after the application's, malformed ones left out", async () => {
  const { mesh, e: first } = meshWithEntry();
  mesh.iceServers = [{ urls: 'stun:192.0.2.9' }];
  await mesh.onSignal({ type: 'ice_servers', iceServers: [
    { urls: ['turn:192.0.2.1:3478'], username: '1800000000:abc', credential: 'c2VjcmV0' },
    { urls: 42 },
    { urls: 'turn:192.0.2.2', username: 7 },
  ] });
  const e = mesh.newEntry('c', 'offerer');
  assert.deepEqual(e.pc.config.iceServers, [
    { urls: 'stun:192.0.2.9' },
    { urls: ['turn:192.0.2.1:3478'], username: '1800000000:abc', credential: 'c2VjcmV0' },
  ]);
  await mesh.onSignal({ type: 'ice_servers', iceServers: 'not a list' });
  const later = mesh.newEntry('d', 'offerer');
  assert.deepEqual(later.pc.config.iceServers, [{ urls: 'stun:192.0.2.9' }]);
  for (const entry of [first, e, later]) clearTimeout(entry.openTimer); /* no dial is made */
});

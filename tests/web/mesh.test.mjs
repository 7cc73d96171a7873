// The pure helpers of web/zq/mesh.js: identity and max-message-size from an SDP, ZeroQ's backoff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sdpIdentity, sdpMaxMessageSize, backoff } from '../../web/zq/mesh.js';

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

// web/zq/ring.js: the replay ring and QoS 1 pending store (PROTOCOL.md §5, §7).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplayRing } from '../../web/zq/ring.js';

const entry = (seq, pending = [], bytes = 10) => ({ seq, bytes, pending: new Set(pending) });

test('the oldest acknowledged entries make room', () => {
  const r = new ReplayRing({ maxEntries: 3, maxBytes: 1000 });
  for (let s = 1; s <= 5; s++) assert.equal(r.append(entry(s)), 'ok');
  assert.deepEqual(r.entries.map((e) => e.seq), [3, 4, 5]);
  assert.equal(r.firstSeq, 3);
});

test('an entry still owed an ack stops eviction: the ring is full (the high-water mark)', () => {
  const r = new ReplayRing({ maxEntries: 2, maxBytes: 1000 });
  r.append(entry(1, ['bob']));
  r.append(entry(2));
  assert.equal(r.append(entry(3)), 'full');
  assert.equal(r.hasRoom(10), false);
  assert.deepEqual(r.ack('bob', 1).map((e) => e.seq), [1]);
  assert.equal(r.hasRoom(10), true);
  assert.equal(r.append(entry(3)), 'ok');
});

test('bytes count as well as entries; an entry larger than the ring is too long', () => {
  const r = new ReplayRing({ maxEntries: 100, maxBytes: 25 });
  r.append(entry(1));
  r.append(entry(2));
  r.append(entry(3)); /* 30 bytes: 1 goes */
  assert.deepEqual(r.entries.map((e) => e.seq), [2, 3]);
  assert.equal(r.append(entry(4, [], 26)), 'too-long');
});

test('canEvict keeps what a connected peer has not been handed', () => {
  let handedUpTo = 0;
  const r = new ReplayRing({ maxEntries: 2, maxBytes: 1000, canEvict: (e) => e.seq <= handedUpTo });
  r.append(entry(1));
  r.append(entry(2));
  assert.equal(r.append(entry(3)), 'full');
  handedUpTo = 1;
  assert.equal(r.append(entry(3)), 'ok');
});

test('ack clears a receiver up to a seq; forget everywhere, saying what it still owed', () => {
  const r = new ReplayRing({ maxEntries: 10, maxBytes: 1000 });
  for (let s = 1; s <= 4; s++) r.append(entry(s, ['bob', 'carol']));
  assert.equal(r.ack('bob', 2).length, 2);
  assert.equal(r.ack('bob', 2).length, 0, 'twice is nothing');
  assert.deepEqual(r.forget('bob').map((e) => e.seq), [3, 4]);
  assert.deepEqual(r.entries.map((e) => [...e.pending]), [['carol'], ['carol'], ['carol'], ['carol']]);
});

test('indexAfter finds the first entry above a seq; an empty ring starts after its last seq', () => {
  const r = new ReplayRing({ maxEntries: 3, maxBytes: 1000 });
  assert.equal(r.firstSeq, 1);
  for (let s = 1; s <= 5; s++) r.append(entry(s));
  assert.equal(r.at(r.indexAfter(0)).seq, 3);
  assert.equal(r.at(r.indexAfter(3)).seq, 4);
  assert.equal(r.indexAfter(5), -1);
  assert.throws(() => r.append(entry(5)), /not above/);
});

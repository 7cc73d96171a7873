// web/zq/chunk.js: PROTOCOL.md §8's chunks, read and written as broker/frame_chunk.c does
// (the table tests/unit/test_brk_chunk.c reads too, fixtures/chunks.json: one test per rule),
// split and reassembled as broker/peer.c does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  splitChunks, Reassembler, utf8Length, readChunk, writeChunk, CHUNK_HEADER,
} from '../../web/zq/chunk.js';

const enc = (s) => new TextEncoder().encode(s);
const table = JSON.parse(readFileSync(new URL('fixtures/chunks.json', import.meta.url)));
const bytes = (hex) => Uint8Array.from(hex.match(/../g) ?? [], (h) => parseInt(h, 16));
const fieldsOf = (row) => ({
  id: row.id, index: row.index, count: row.count, piece: bytes(row.piece),
});

// ---- The table both codecs are tested with --------------------------------------------------

const rows = (list, rule) => table[list].filter((r) => r.rule === rule);
const rules = new Set(['roundTrips', 'refusals', 'writerRefusals']
  .flatMap((list) => table[list].map((r) => r.rule)));

for (const rule of rules) {
  test(`${rule} (chunks.json)`, () => {
    for (const row of rows('roundTrips', rule)) {
      const m = writeChunk(fieldsOf(row));
      assert.deepEqual([...m], [...bytes(row.hex)], 'written byte for byte');
      const c = readChunk(bytes(row.hex));
      assert.ok(c, 'read back');
      assert.deepEqual({ ...c, piece: [...c.piece] },
        { ...fieldsOf(row), piece: [...bytes(row.piece)] });
    }
    for (const row of rows('refusals', rule)) {
      assert.equal(readChunk(bytes(row.hex)), null, `${row.hex}: ${row.error}`);
    }
    for (const row of rows('writerRefusals', rule)) {
      assert.throws(() => writeChunk(fieldsOf(row)), { code: 'INVALID_ARG' });
    }
  });
}

test('every cut of a chunk is refused within its header, a shorter piece past it', () => {
  const m = bytes(table.roundTrips[0].hex);
  for (let n = 0; n <= m.length; n++) {
    const c = readChunk(m.subarray(0, n));
    if (n < CHUNK_HEADER) assert.equal(c, null, `cut at ${n}`);
    else assert.equal(c.piece.length, n - CHUNK_HEADER, `cut at ${n}`);
  }
});

test('the writer refuses numbers that do not fit their fields', () => {
  const piece = enc('a');
  for (const f of [{ id: -1, index: 0, count: 2 }, { id: 2 ** 32, index: 0, count: 2 },
    { id: 1.5, index: 0, count: 2 }, { id: 1, index: 0, count: 65536 }]) {
    assert.throws(() => writeChunk({ ...f, piece }), { code: 'INVALID_ARG' }, JSON.stringify(f));
  }
});

test('a chunk is "ZC", the frame id, its index and the count, big-endian, then its piece', () => {
  const pieces = splitChunks(enc('abcdefghij'), 0x01020304, 4);
  assert.equal(pieces.length, 3);
  assert.deepEqual([...pieces[0].subarray(0, CHUNK_HEADER)],
    [0x5a, 0x43, 1, 2, 3, 4, 0, 0, 0, 3]);
  assert.deepEqual([...pieces[2].subarray(0, CHUNK_HEADER)],
    [0x5a, 0x43, 1, 2, 3, 4, 0, 2, 0, 3]);
  assert.equal(new TextDecoder().decode(pieces[1].subarray(CHUNK_HEADER)), 'efgh');
  assert.equal(pieces[2].length, CHUNK_HEADER + 2);
});

test('one piece is not chunked, and more than 65535 pieces cannot be', () => {
  assert.throws(() => splitChunks(enc('abc'), 1, 3), { code: 'INVALID_ARG' });
  assert.throws(() => splitChunks(new Uint8Array(65536), 1, 1), { code: 'TOO_LONG' });
  assert.equal(splitChunks(new Uint8Array(65535), 1, 1).length, 65535);
});

test('split then reassembled gives the frame back, a multi-byte character cut across pieces', () => {
  const text = `{"payload":"${'ü✓🌡'.repeat(5000)}"}`;
  const r = new Reassembler(1 << 20);
  const pieces = splitChunks(enc(text), 7, 1000);
  const got = pieces.map((p) => r.push(p));
  assert.deepEqual(got.slice(0, -1), new Array(pieces.length - 1).fill(null));
  assert.equal(got[got.length - 1], text);
  assert.equal(r.dropped, 0);
});

test('pieces out of turn drop the sequence; a new sequence starts at index 0', () => {
  const r = new Reassembler(1 << 20);
  const a = splitChunks(enc('0123456789'), 1, 4);
  const b = splitChunks(enc('abcdefghij'), 2, 4);
  assert.equal(r.push(a[0]), null);
  assert.equal(r.push(a[2]), null, 'index 2 after 0: out of turn');
  assert.equal(r.dropped, 1);
  assert.equal(r.push(a[1]), null, 'not index 0: not a start either');
  assert.equal(r.dropped, 2);
  assert.equal(r.push(b[0]), null);
  assert.equal(r.push(a[1]), null, 'another frame id in the middle');
  assert.equal(r.dropped, 3);
  for (const p of b.slice(0, -1)) r.push(p);
  assert.equal(r.push(b[2]), 'abcdefghij');
});

test('a text frame in the middle of a sequence breaks it', () => {
  const r = new Reassembler(1 << 20);
  const a = splitChunks(enc('0123456789'), 1, 4);
  r.push(a[0]);
  r.text();
  assert.equal(r.dropped, 1);
  assert.equal(r.push(a[1]), null);
});

test('bad headers are dropped: short, wrong magic, count < 2, index >= count', () => {
  const r = new Reassembler(1 << 20);
  const good = splitChunks(enc('0123456789'), 1, 4)[0];
  const bad = [new Uint8Array(9), Uint8Array.from(good, (x, i) => (i === 0 ? 0x59 : x))];
  const one = good.slice();
  one[9] = 1;
  const over = good.slice();
  over[7] = 3;
  over[9] = 3;
  for (const m of [...bad, one, over]) assert.equal(r.push(m), null);
  assert.equal(r.dropped, 4);
});

test('a frame over the reassembly limit is skipped, counted, and the next one is fine', () => {
  const r = new Reassembler(8);
  for (const p of splitChunks(enc('0123456789'), 1, 4)) assert.equal(r.push(p), null);
  assert.equal(r.dropped, 1);
  const ok = splitChunks(enc('01234567'), 2, 4);
  assert.equal(r.push(ok[0]), null);
  assert.equal(r.push(ok[1]), '01234567');
});

test('pieces that are not UTF-8 together are not a frame', () => {
  const r = new Reassembler(100);
  const pieces = splitChunks(Uint8Array.from([0x7b, 0xc3, 0x28, 0x7d]), 1, 2);
  r.push(pieces[0]);
  assert.equal(r.push(pieces[1]), null);
});

test('utf8Length counts UTF-8 bytes without encoding', () => {
  for (const s of ['', 'a', 'ü', '✓', '🌡', 'a\uD800b', 'x'.repeat(1000) + '日本語']) {
    assert.equal(utf8Length(s), enc(s).length, JSON.stringify(s));
  }
});

// web/zq/dedup.js: PROTOCOL.md §9's window of (identity, id, retryCount).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DedupWindow } from '../../web/zq/dedup.js';

test('a key seen twice is a duplicate', () => {
  const d = new DedupWindow(16);
  assert.equal(d.seen('fpA', 'm1', 0), false);
  assert.equal(d.seen('fpA', 'm1', 0), true);
});

test('the sender is part of the key: one peer cannot suppress another by claiming its id', () => {
  const d = new DedupWindow(16);
  assert.equal(d.seen('fpA', 'm1', 0), false);
  assert.equal(d.seen('fpB', 'm1', 0), false);
});

test('a resend with retryCount + 1 is new (ZeroQ nack resend)', () => {
  const d = new DedupWindow(16);
  d.seen('fpA', 'm1', 0);
  assert.equal(d.seen('fpA', 'm1', 1), false);
  assert.equal(d.seen('fpA', 'm1', 1), true);
});

test('fields cannot run into each other', () => {
  const d = new DedupWindow(16);
  d.seen('ab', 'c', 0);
  assert.equal(d.seen('a', 'bc', 0), false);
  d.seen('x', 'y1', 2);
  assert.equal(d.seen('x', 'y', 12), false);
});

test('the window forgets its oldest key when full (first in, first out)', () => {
  const d = new DedupWindow(4);
  for (const id of ['a', 'b', 'c', 'd']) d.seen('p', id, 0);
  assert.equal(d.seen('p', 'e', 0), false); /* forgets a */
  assert.equal(d.size, 4);
  assert.equal(d.seen('p', 'b', 0), true);
  assert.equal(d.seen('p', 'a', 0), false, 'a was forgotten: delivered again');
});

test("ZeroQ's 10,000-key window by default", () => {
  const d = new DedupWindow();
  for (let i = 0; i < 10000; i++) d.seen('p', `m${i}`, 0);
  assert.equal(d.seen('p', 'm0', 0), true);
  d.seen('p', 'm10000', 0);
  assert.equal(d.size, 10000);
});

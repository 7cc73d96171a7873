// Chunks (PROTOCOL.md §8; broker/frame_chunk.c on the C side, tested with the same table,
// tests/web/fixtures/chunks.json): a frame longer than the channel's a=max-message-size goes
// as consecutive binary messages, each a piece of its UTF-8 text behind a 10-byte header:
//
//   offset 0   2 bytes  "ZC"
//   offset 2   4 bytes  frame id (big-endian), the same in every piece of one frame
//   offset 6   2 bytes  index of this piece, from 0
//   offset 8   2 bytes  number of pieces (>= 2)
//   offset 10  ...      the piece
//
// Pure: Uint8Array in, Uint8Array out; TextDecoder is in browsers and Node alike.

import { ZQError } from './errors.js';

export const CHUNK_HEADER = 10;
const MAX_PIECES = 0xffff;

/**
 * Reads one binary message as a chunk, as broker/frame_chunk.c brk_chunk_read(): the whole
 * header before any field, the magic, count >= 2 and index < count.
 * @returns {{id: number, index: number, count: number, piece: Uint8Array} | null} the piece a
 *   view into @p data; null for a message shorter than a header or with a bad field
 */
export function readChunk(data) {
  const m = data instanceof Uint8Array ? data : new Uint8Array(data);
  if (m.length < CHUNK_HEADER || m[0] !== 0x5a || m[1] !== 0x43) return null;
  const v = new DataView(m.buffer, m.byteOffset, m.byteLength);
  const c = { id: v.getUint32(2), index: v.getUint16(6), count: v.getUint16(8) };
  if (!numbersOk(c.index, c.count)) return null;
  c.piece = m.subarray(CHUNK_HEADER);
  return c;
}

/**
 * Writes one chunk, as broker/frame_chunk.c brk_chunk_write(): its header, then @p piece.
 * Numbers its reader would refuse (or that do not fit their fields) are INVALID_ARG.
 * @returns {Uint8Array}
 */
export function writeChunk({ id, index, count, piece }) {
  const fits = (x, max) => Number.isInteger(x) && x >= 0 && x <= max;
  if (!fits(id, 0xffffffff) || !fits(index, MAX_PIECES) || !fits(count, MAX_PIECES) ||
      !numbersOk(index, count)) {
    throw new ZQError('INVALID_ARG', `not a chunk: id ${id}, index ${index} of ${count}`);
  }
  const m = new Uint8Array(CHUNK_HEADER + piece.length);
  const v = new DataView(m.buffer);
  m[0] = 0x5a; /* 'Z' */
  m[1] = 0x43; /* 'C' */
  v.setUint32(2, id);
  v.setUint16(6, index);
  v.setUint16(8, count);
  m.set(piece, CHUNK_HEADER);
  return m;
}

function numbersOk(index, count) {
  return count >= 2 && index < count;
}

/**
 * Splits @p bytes (a frame's UTF-8 text) into pieces of at most @p pieceSize bytes of text,
 * each behind its header. A frame that fits one piece is not chunked (the caller sends it as
 * text); one that needs more than 65535 pieces cannot be.
 * @returns {Uint8Array[]}
 */
export function splitChunks(bytes, id, pieceSize) {
  if (!(pieceSize >= 1)) throw new ZQError('INVALID_ARG', 'piece size must be at least 1');
  const count = Math.ceil(bytes.length / pieceSize);
  if (count < 2) throw new ZQError('INVALID_ARG', 'a frame of one piece is sent as text');
  if (count > MAX_PIECES) throw new ZQError('TOO_LONG', `frame needs ${count} chunks`);
  const out = [];
  for (let i = 0; i < count; i++) {
    const piece = bytes.subarray(i * pieceSize, Math.min(bytes.length, (i + 1) * pieceSize));
    out.push(writeChunk({ id: id >>> 0, index: i, count, piece }));
  }
  return out;
}

/**
 * Reassembles one peer's chunk sequences, as broker/peer.c take_chunk(): pieces 0..n-1 of one
 * id, in order, with nothing between them. A piece out of turn, a text frame in the middle, a
 * bad header or a frame over @p maxBytes drops the sequence (counted in `dropped`); nothing is
 * believed half.
 */
export class Reassembler {
  constructor(maxBytes) {
    this.maxBytes = maxBytes;
    this.dropped = 0;
    this.reset();
  }

  reset() {
    this.parts = [];
    this.size = 0;
    this.id = 0;
    this.next = 0;
    this.count = 0;
    this.active = false;
    this.tooLong = false;
  }

  drop() {
    this.dropped++;
    this.reset();
  }

  /** A text frame arrived: a sequence in progress is broken. */
  text() {
    if (this.active) this.drop();
  }

  /**
   * One binary message. @returns the whole frame's text when this piece completed it, else
   * null.
   */
  push(data) {
    const c = readChunk(data);
    const inTurn = c && (this.active
      ? c.id === this.id && c.index === this.next && c.count === this.count
      : c.index === 0);
    if (!inTurn) {
      this.drop();
      return null;
    }
    this.active = true;
    this.id = c.id;
    this.count = c.count;
    this.next = c.index + 1;
    this.size += c.piece.length;
    if (this.size > this.maxBytes) this.tooLong = true;
    if (!this.tooLong) this.parts.push(c.piece);
    if (this.next < c.count) return null;
    const parts = this.parts;
    const size = this.size;
    const tooLong = this.tooLong;
    this.reset();
    if (tooLong) {
      this.dropped++;
      return null;
    }
    return joinText(parts, size);
  }
}

function joinText(parts, size) {
  const all = new Uint8Array(size);
  let off = 0;
  for (const p of parts) {
    all.set(p, off);
    off += p.length;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(all);
  } catch {
    return null; /* not UTF-8: not a frame */
  }
}

/** The UTF-8 length of a string, without encoding it. */
export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length &&
             (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

// A publisher's replay ring (PROTOCOL.md §5, §7; broker/replay_ring.c): its recent messages,
// oldest first, each with the QoS 1 receivers that still owe an ack. Pure.
//
// Appending makes room by evicting the oldest entries, but never one a receiver still owes an
// ack (QoS 1: that is the publisher's high-water mark) nor one the caller's `canEvict` says is
// still needed (zq.js: not yet handed to a connected peer, so a slow channel slows the
// publisher instead of losing its messages). When the oldest entry cannot go, the ring is
// full: append says so and nothing is dropped.

export class ReplayRing {
  /**
   * @param {{maxEntries: number, maxBytes: number, canEvict?: (entry) => boolean}} opts
   */
  constructor({ maxEntries, maxBytes, canEvict }) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.canEvict = canEvict || (() => true);
    this.entries = [];
    this.bytes = 0;
    this.lastSeq = 0;
  }

  get count() {
    return this.entries.length;
  }

  /** The oldest entry's seq, or lastSeq + 1 when the ring is empty (everything went). */
  get firstSeq() {
    return this.entries.length > 0 ? this.entries[0].seq : this.lastSeq + 1;
  }

  fits(entry) {
    return this.entries.length + 1 <= this.maxEntries && this.bytes + entry.bytes <= this.maxBytes;
  }

  /** Whether the oldest entry may be evicted now. */
  oldestEvictable() {
    const e = this.entries[0];
    return e !== undefined && e.pending.size === 0 && this.canEvict(e);
  }

  /**
   * Appends @p entry ({seq, bytes, pending: Set, ...}; seq above every earlier one).
   * @returns {'ok'|'full'|'too-long'}
   */
  append(entry) {
    if (entry.seq <= this.lastSeq) throw new Error(`seq ${entry.seq} not above ${this.lastSeq}`);
    if (entry.bytes > this.maxBytes || this.maxEntries < 1) return 'too-long';
    while (!this.fits(entry)) {
      if (!this.oldestEvictable()) return 'full';
      this.bytes -= this.entries.shift().bytes;
    }
    this.entries.push(entry);
    this.bytes += entry.bytes;
    this.lastSeq = entry.seq;
    return 'ok';
  }

  /** Whether an entry of @p bytes could be appended now. */
  hasRoom(bytes) {
    let n = this.entries.length;
    let b = this.bytes;
    for (const e of this.entries) {
      if (n + 1 <= this.maxEntries && b + bytes <= this.maxBytes) return true;
      if (e.pending.size > 0 || !this.canEvict(e)) return false;
      n--;
      b -= e.bytes;
    }
    return n + 1 <= this.maxEntries && b + bytes <= this.maxBytes;
  }

  /** Index of the first entry with seq > @p after, or -1. */
  indexAfter(after) {
    const first = this.firstSeq;
    if (this.entries.length === 0 || after >= this.lastSeq) return -1;
    /* seqs are increasing but may have gaps (none in zq.js): search */
    let lo = Math.max(0, Math.min(this.entries.length - 1, after + 1 - first));
    while (lo > 0 && this.entries[lo - 1].seq > after) lo--;
    while (lo < this.entries.length && this.entries[lo].seq <= after) lo++;
    return lo < this.entries.length ? lo : -1;
  }

  at(i) {
    return this.entries[i];
  }

  /** An ack: clears @p receiver from every entry with seq <= @p upto. @returns those entries. */
  ack(receiver, upto) {
    const cleared = [];
    for (const e of this.entries) {
      if (e.seq > upto) break;
      if (e.pending.delete(receiver)) cleared.push(e);
    }
    return cleared;
  }

  /** A receiver given up: clears it everywhere. @returns the entries it still owed. */
  forget(receiver) {
    return this.entries.filter((e) => e.pending.delete(receiver));
  }
}

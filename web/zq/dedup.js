// Delivering each ZeroQ message once (PROTOCOL.md §9): a bounded first-in-first-out window of
// (sender identity, id, retryCount) keys, as ZeroQ's 10,000-key `${id}:${retryCount}` window
// but with who sent it in the key, so one peer cannot suppress another's message by claiming
// its id. Pure.

export class DedupWindow {
  constructor(limit = 10000) {
    this.limit = limit;
    this.keys = new Set();
  }

  static key(identity, id, retryCount) {
    return `${identity}\u0000${id}\u0000${retryCount}`;
  }

  /** Records the key; true if it was already in the window (a duplicate: drop it). */
  seen(identity, id, retryCount) {
    const k = DedupWindow.key(identity, id, retryCount);
    if (this.keys.has(k)) return true;
    this.keys.add(k);
    if (this.keys.size > this.limit) {
      this.keys.delete(this.keys.values().next().value); /* Sets iterate in insertion order */
    }
    return false;
  }

  get size() {
    return this.keys.size;
  }
}

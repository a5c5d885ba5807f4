// The history that web/train.html replays: snapshots { step, probes } of the followed sentences, oldest first,
// and which one is shown: a held index, or the newest (following the training).
//
// At most `max` snapshots are kept (400 by default: a run of 250 epochs has thousands of steps and a snapshot
// every 20, each with up to 8 sentences' attention). When one more arrives, every other one goes and from then on
// only every other arrival is kept, so the kept ones stay evenly spaced over the whole run, more coarsely the
// longer it is, in bounded memory. The newest is always there (the replay's right end follows the training) until
// a newer one replaces it, and the held one stays while it is held.
export class SnapshotHistory {
  snapshots = [];
  #arrivals = [];  // each kept snapshot's arrival number (0 for the first added since clear())
  #count = 0;      // arrivals since clear()
  #stride = 1;     // an arrival is kept for good when its number is a multiple of this
  #held = null;    // the held snapshot, or null

  constructor(max = 400) {
    if (!(Number.isInteger(max) && max >= 3)) throw new RangeError(`max must be a whole number of at least 3, got ${max}`);
    this.max = max;
  }

  clear() {
    this.snapshots = [];
    this.#arrivals = [];
    this.#count = 0;
    this.#stride = 1;
    this.#held = null;
  }

  add(snapshot) {
    // The previous newest goes when it is off the stride (and not held): the newest replaces it.
    const last = this.snapshots.length - 1;
    if (last >= 0 && this.#arrivals[last] % this.#stride !== 0 && this.snapshots[last] !== this.#held) {
      this.snapshots.pop();
      this.#arrivals.pop();
    }
    this.snapshots.push(snapshot);
    this.#arrivals.push(this.#count++);
    if (this.snapshots.length <= this.max) return;
    this.#stride *= 2;
    const newest = this.snapshots.length - 1;
    const keep = this.snapshots.map((snap, i) => this.#arrivals[i] % this.#stride === 0 || i === newest || snap === this.#held);
    this.snapshots = this.snapshots.filter((_, i) => keep[i]);
    this.#arrivals = this.#arrivals.filter((_, i) => keep[i]);
  }

  get length() { return this.snapshots.length; }
  get newest() { return this.snapshots.at(-1); }
  get following() { return this.#held === null; }
  // The index the replay is on.
  get index() { return this.#held === null ? Math.max(0, this.snapshots.length - 1) : this.snapshots.indexOf(this.#held); }
  get shown() { return this.#held ?? this.snapshots.at(-1); }

  // The replay moved to `index`: the last one follows the training again.
  show(index) {
    if (!Number.isInteger(index) || index < 0 || index >= Math.max(1, this.snapshots.length)) {
      throw new RangeError(`index must be a whole number from 0 to ${this.snapshots.length - 1}, got ${index}`);
    }
    this.#held = index >= this.snapshots.length - 1 ? null : this.snapshots[index];
  }
}

/** How big a BoundedMap may grow and how long its entries live. */
export interface BoundedMapOptions {
  /** The most entries held; adding one more evicts one (least recently used, or an expired one). */
  maxEntries: number;
  /** Milliseconds an entry lives after it was set, unless `set` names its own; absent: until evicted. */
  ttlMs?: number;
  /** The time source for expiry (tests pass their own). */
  clock?: () => number;
}

interface Slot<V> {
  value: V;
  /** Epoch ms at which the entry is gone; Infinity without a TTL. */
  expiresAt: number;
  /** Read since it was last passed over by eviction (the second-chance bit). */
  used: boolean;
}

/** Entries eviction looks at before it drops the oldest whatever its bit says: O(1) per insert, worst case. */
const EVICTION_SCAN = 8;
/** Expired entries at the head dropped on each insert, so a map with a TTL empties itself as it is used. */
const EXPIRED_SWEEP = 2;

/**
 * A Map with a size cap and an optional time to live: THE container for anything keyed by what a caller sends
 * (API keys, addresses, user names, e-mail addresses, limiter buckets), so that no flood of distinct values can
 * grow the process. Every operation is O(1) and allocation-free on reads.
 *
 * Eviction is least-recently-used by approximation (CLOCK, "second chance"): a read only sets a bit on its entry
 * instead of moving it, keeping hits as cheap as a plain Map lookup; when the map is full, the oldest entries
 * that were read since they were last passed over move to the back, and the first one that was not (or that
 * expired) is dropped. A read never returns an expired entry.
 */
export class BoundedMap<K, V> implements Iterable<[K, V]> {
  private readonly slots = new Map<K, Slot<V>>();
  readonly capacity: number;
  private readonly ttlMs: number;
  private readonly clock: () => number;

  constructor(options: BoundedMapOptions) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1)
      throw new RangeError(`maxEntries must be a positive integer, got ${options.maxEntries}`);
    this.capacity = options.maxEntries;
    this.ttlMs = options.ttlMs ?? Infinity;
    this.clock = options.clock ?? (() => Date.now());
  }

  /** Entries held, expired ones not yet dropped included (never more than `capacity`). */
  get size(): number {
    return this.slots.size;
  }

  /** The live value under `key` (marked as used); `now` saves a clock read when the caller has one. */
  get(key: K, now?: number): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    if (slot.expiresAt !== Infinity && slot.expiresAt <= (now ?? this.clock())) {
      this.slots.delete(key);
      return undefined;
    }
    slot.used = true;
    return slot.value;
  }

  has(key: K, now?: number): boolean {
    return this.get(key, now) !== undefined;
  }

  /** Sets `key` (a new key may evict another); `ttlMs` overrides the map's for this entry. */
  set(key: K, value: V, ttlMs: number = this.ttlMs, now?: number): this {
    const expiresAt = ttlMs === Infinity ? Infinity : (now ?? this.clock()) + ttlMs;
    const slot = this.slots.get(key);
    if (slot !== undefined) {
      slot.value = value;
      slot.expiresAt = expiresAt;
      slot.used = true;
      return this;
    }
    this.dropExpiredHead(now);
    if (this.slots.size >= this.capacity) this.evictOne(now);
    this.slots.set(key, { value, expiresAt, used: false });
    return this;
  }

  delete(key: K): boolean {
    return this.slots.delete(key);
  }

  clear(): void {
    this.slots.clear();
  }

  /** Live entries, oldest first (deleting while iterating is allowed). */
  *entries(now: number = this.clock()): IterableIterator<[K, V]> {
    for (const [key, slot] of this.slots) if (slot.expiresAt > now) yield [key, slot.value];
  }

  *keys(): IterableIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): IterableIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }

  private dropExpiredHead(now: number | undefined): void {
    if (this.ttlMs === Infinity && this.slots.size < this.capacity) return;
    let t = now;
    let n = 0;
    for (const [key, slot] of this.slots) {
      if (n++ >= EXPIRED_SWEEP || slot.expiresAt === Infinity) return;
      t ??= this.clock();
      if (slot.expiresAt > t) return;
      this.slots.delete(key);
    }
  }

  private evictOne(now: number | undefined): void {
    let t = now;
    let scanned = 0;
    for (const [key, slot] of this.slots) {
      if (slot.expiresAt !== Infinity && slot.expiresAt <= (t ??= this.clock())) {
        this.slots.delete(key);
        return;
      }
      if (!slot.used || ++scanned > EVICTION_SCAN) {
        this.slots.delete(key);
        return;
      }
      // Read since last passed over: a second chance at the back.
      slot.used = false;
      this.slots.delete(key);
      this.slots.set(key, slot);
    }
  }
}

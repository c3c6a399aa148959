import { BoundedMap } from '../../lib/bounded-map.js';
import type { BucketUse, LimitBucket, LimitCheck, LimitStore } from './types.js';
import { minuteWindow, refusalOf, WINDOW_MS } from './window.js';

/** Buckets counted at once on one node (token, user, group and channel ids; the least recently used go first). */
export const MAX_LIMIT_BUCKETS = 50_000;

interface Counts extends BucketUse {
  window: number;
}

/** Node-local counts: one entry per bucket, reset when its window passes, gone a window after its last use. */
export class MemoryLimitStore implements LimitStore {
  private readonly counts = new BoundedMap<string, Counts>({ maxEntries: MAX_LIMIT_BUCKETS, ttlMs: 2 * WINDOW_MS });

  get size(): number {
    return this.counts.size;
  }

  get capacity(): number {
    return this.counts.capacity;
  }

  check(buckets: LimitBucket[], tokens: number, now: number): LimitCheck {
    const window = minuteWindow(now).index;
    const entries = buckets.map((b) => this.entry(b, window, now));
    const used = entries.map((e) => ({ requests: e.requests, tokens: e.tokens }));
    for (let i = 0; i < buckets.length; i++) {
      const b = buckets[i]!;
      const kind = refusalOf(b.rpm, b.tpm, used[i]!.requests, used[i]!.tokens, tokens);
      if (kind) return { window, used, refused: { index: i, kind } };
    }
    for (let i = 0; i < buckets.length; i++) {
      const b = buckets[i]!;
      const e = entries[i]!;
      if (b.rpm > 0) e.requests += 1;
      if (b.tpm > 0) e.tokens += tokens;
      used[i] = { requests: e.requests, tokens: e.tokens };
    }
    return { window, used };
  }

  adjust(buckets: LimitBucket[], window: number, delta: number): void {
    for (const b of buckets) {
      // Read as of the window's start: an entry of that window has not expired then.
      const e = this.counts.get(keyOf(b), window * WINDOW_MS);
      if (b.tpm > 0 && e && e.window === window) e.tokens = Math.max(0, e.tokens + delta);
    }
  }

  private entry(b: LimitBucket, window: number, now: number): Counts {
    const k = keyOf(b);
    let e = this.counts.get(k, now);
    if (!e || e.window !== window) {
      e = { window, requests: 0, tokens: 0 };
      this.counts.set(k, e, undefined, now);
    }
    return e;
  }
}

const keyOf = (b: LimitBucket) => `${b.level}:${b.id}`;

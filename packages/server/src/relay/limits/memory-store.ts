import type { BucketUse, LimitBucket, LimitCheck, LimitStore } from './types.js';
import { minuteWindow, refusalOf, WINDOW_MS } from './window.js';

interface Counts extends BucketUse {
  window: number;
}

/** Node-local counts: one entry per bucket, reset when its window passes. */
export class MemoryLimitStore implements LimitStore {
  private readonly counts = new Map<string, Counts>();
  private lastSweep = 0;

  check(buckets: LimitBucket[], tokens: number, now: number): LimitCheck {
    const window = minuteWindow(now).index;
    this.sweep(now, window);
    const entries = buckets.map((b) => this.entry(b, window));
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
      const e = this.counts.get(keyOf(b));
      if (b.tpm > 0 && e && e.window === window) e.tokens = Math.max(0, e.tokens + delta);
    }
  }

  private entry(b: LimitBucket, window: number): Counts {
    const k = keyOf(b);
    let e = this.counts.get(k);
    if (!e || e.window !== window) {
      e = { window, requests: 0, tokens: 0 };
      this.counts.set(k, e);
    }
    return e;
  }

  /** Drops the counts of finished windows, at most once a window. */
  private sweep(now: number, window: number): void {
    if (now - this.lastSweep < WINDOW_MS) return;
    this.lastSweep = now;
    for (const [k, e] of this.counts) if (e.window < window) this.counts.delete(k);
  }
}

const keyOf = (b: LimitBucket) => `${b.level}:${b.id}`;

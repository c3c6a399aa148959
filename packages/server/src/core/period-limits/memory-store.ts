import { BoundedMap } from '../../lib/bounded-map.js';
import type { PeriodSeed } from './log-seeds.js';
import type { CounterRef, PeriodCounter, PeriodStore, PeriodTake, PeriodUse } from './types.js';
import { inWindow, slotLeavesAt, WINDOW_SLOTS } from './periods.js';

/**
 * Counters held at once on one node. Each is one owner's one period; a counter pushed out beyond this (the least
 * recently used) starts again at 0, so the cap is far above the owners with limits a node serves.
 */
export const MAX_PERIOD_COUNTERS = 500_000;

/** A calendar counter's count, or the rolling window's amounts per slot. */
type Entry = { total: number } | { slots: Map<number, number> };

/**
 * Node-local period counters: a synchronous check-and-count per call, so concurrent calls on this node never take
 * more than a limit. A calendar counter lives until its period ends, a rolling one until its newest amount leaves.
 */
export class MemoryPeriodStore implements PeriodStore {
  private readonly counts = new BoundedMap<string, Entry>({ maxEntries: MAX_PERIOD_COUNTERS });

  get size(): number {
    return this.counts.size;
  }

  get capacity(): number {
    return this.counts.capacity;
  }

  take(counters: PeriodCounter[], amount: number, minimum: number, now: number): PeriodTake {
    const uses: PeriodUse[] = counters.map((c) => this.use(c, now));
    let granted = amount;
    let tightest = -1;
    counters.forEach((c, i) => {
      const room = Math.max(0, c.limit - uses[i]!.used);
      if (room < granted) {
        granted = room;
        tightest = i;
      }
    });
    if (granted < minimum) return { granted: 0, uses, refused: tightest };
    if (granted > 0) counters.forEach((c, i) => (uses[i] = this.add(c, granted, now)));
    return { granted, uses };
  }

  /** Drops every counter, as a restart of the node does (each starts again from its seed when next used). */
  clear(): void {
    this.counts.clear();
  }

  /** Whether the counter is held (counted or seeded since this node started, and not gone since). */
  has(key: string, now: number): boolean {
    return this.counts.get(key, now) !== undefined;
  }

  /** Starts a counter not held yet from `seed` (a count, or the rolling window's amounts per slot). */
  seed(c: PeriodCounter, seed: PeriodSeed, now: number): void {
    if (this.has(c.key, now)) return;
    if (c.slot < 0)
      this.counts.set(c.key, { total: typeof seed === 'number' ? seed : 0 }, Math.max(1, c.endsAt - now), now);
    else
      this.counts.set(
        c.key,
        { slots: typeof seed === 'number' ? new Map() : seed },
        Math.max(1, slotLeavesAt(c.slot) - now),
        now,
      );
  }

  adjust(counters: readonly CounterRef[], delta: number, now: number): void {
    for (const c of counters) {
      const e = this.counts.get(c.key, now);
      if (!e) continue;
      if ('total' in e) e.total = Math.max(0, e.total + delta);
      else if (e.slots.has(c.slot)) e.slots.set(c.slot, Math.max(0, e.slots.get(c.slot)! + delta));
    }
  }

  private use(c: PeriodCounter, now: number): PeriodUse {
    const e = this.counts.get(c.key, now);
    if (!e) return { used: 0, oldest: -1 };
    if ('total' in e) return { used: e.total, oldest: -1 };
    let used = 0;
    let oldest = -1;
    for (const [slot, v] of e.slots) {
      if (!inWindow(slot, c.slot)) {
        if (slot <= c.slot - WINDOW_SLOTS) e.slots.delete(slot);
        continue;
      }
      used += v;
      if (v > 0 && (oldest < 0 || slot < oldest)) oldest = slot;
    }
    return { used, oldest };
  }

  private add(c: PeriodCounter, amount: number, now: number): PeriodUse {
    let e = this.counts.get(c.key, now);
    if (c.slot < 0) {
      if (!e || !('total' in e)) {
        e = { total: 0 };
        this.counts.set(c.key, e, Math.max(1, c.endsAt - now), now);
      }
      e.total += amount;
      return { used: e.total, oldest: -1 };
    }
    if (!e || !('slots' in e)) e = { slots: new Map() };
    e.slots.set(c.slot, (e.slots.get(c.slot) ?? 0) + amount);
    // Kept until its newest amount leaves the window.
    this.counts.set(c.key, e, Math.max(1, slotLeavesAt(c.slot) - now), now);
    return this.use(c, now);
  }
}

/** A credential and when it stops being valid (ms since the epoch). */
export interface Expiring<T> {
  value: T;
  expiresAt: number;
}

/**
 * Credentials minted from channel keys (access tokens, signed JWTs), kept per key until `marginMs` before they
 * expire. At most `max` keys are kept (the oldest dropped first); concurrent callers of one key share one mint.
 */
export class CredentialCache<T> {
  private readonly entries = new Map<string, Expiring<T>>();
  private readonly pending = new Map<string, Promise<Expiring<T>>>();

  constructor(
    private readonly max: number,
    private readonly marginMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key's credential while it is fresh, else undefined. */
  fresh(key: string): T | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expiresAt - this.marginMs > this.now() ? hit.value : undefined;
  }

  put(key: string, entry: Expiring<T>): T {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    return entry.value;
  }

  /** Forgets a key's credential (the upstream refused it). */
  drop(key: string): void {
    this.entries.delete(key);
  }

  /** The fresh credential of a key, or a new one from `mint` (one mint at a time per key). */
  async obtain(key: string, mint: () => Promise<Expiring<T>>): Promise<T> {
    const hit = this.fresh(key);
    if (hit !== undefined) return hit;
    let wait = this.pending.get(key);
    if (!wait) {
      wait = mint().finally(() => this.pending.delete(key));
      this.pending.set(key, wait);
    }
    return this.put(key, await wait);
  }

  get size(): number {
    return this.entries.size;
  }
}

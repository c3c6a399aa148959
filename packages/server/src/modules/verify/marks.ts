import type { Redis } from 'ioredis';
import { BoundedMap } from '../../lib/bounded-map.js';

/**
 * Sessions that passed a secure verification recently (memory on one node, Redis across a cluster so any node
 * sees the mark). A mark holds its expiry time (epoch seconds) and is gone after it.
 */
export interface VerifiedMarks {
  mark(sessionKey: string, ttlSeconds: number): Promise<void>;
  /** True while the session's mark is live. */
  has(sessionKey: string): Promise<boolean>;
}

/** Most verification marks one node keeps (keyed by session: a flood of sessions evicts the oldest). */
const MAX_VERIFIED_MARKS = 10_000;

export class MemoryVerifiedMarks implements VerifiedMarks {
  private readonly until = new BoundedMap<string, number>({ maxEntries: MAX_VERIFIED_MARKS });

  async mark(sessionKey: string, ttlSeconds: number): Promise<void> {
    const now = Date.now();
    for (const [k, end] of this.until) if (end <= now) this.until.delete(k);
    this.until.set(sessionKey, now + ttlSeconds * 1000);
  }

  async has(sessionKey: string): Promise<boolean> {
    const end = this.until.get(sessionKey);
    return end !== undefined && end > Date.now();
  }
}

export class RedisVerifiedMarks implements VerifiedMarks {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(sessionKey: string): string {
    return `${this.prefix}secure-verified:${sessionKey}`;
  }

  async mark(sessionKey: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.key(sessionKey), '1', 'EX', ttlSeconds);
  }

  async has(sessionKey: string): Promise<boolean> {
    return (await this.redis.exists(this.key(sessionKey))) === 1;
  }
}

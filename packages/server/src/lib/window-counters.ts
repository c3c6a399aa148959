import type { Redis } from 'ioredis';

/** Fixed-window counters: a Map on one node, Redis across a cluster. */
export interface WindowCounters {
  incr(key: string, windowSeconds: number): Promise<number> | number;
  get(key: string, windowSeconds: number): Promise<number> | number;
}

export class MemoryWindowCounters implements WindowCounters {
  private readonly counts = new Map<string, { n: number; endsAt: number }>();
  private lastSweep = 0;

  private slot(key: string, windowSeconds: number, now: number): [string, number] {
    const index = Math.floor(now / 1000 / windowSeconds);
    return [`${key}:${index}`, (index + 1) * windowSeconds * 1000];
  }

  incr(key: string, windowSeconds: number, now = Date.now()): number {
    this.sweep(now);
    const [k, endsAt] = this.slot(key, windowSeconds, now);
    const entry = this.counts.get(k);
    if (entry) return ++entry.n;
    this.counts.set(k, { n: 1, endsAt });
    return 1;
  }

  get(key: string, windowSeconds: number, now = Date.now()): number {
    return this.counts.get(this.slot(key, windowSeconds, now)[0])?.n ?? 0;
  }

  /** Drops finished windows, at most once a minute. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [k, e] of this.counts) if (e.endsAt <= now) this.counts.delete(k);
  }
}

export class RedisWindowCounters implements WindowCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private slot(key: string, windowSeconds: number): string {
    return `${this.prefix}wc:${key}:${Math.floor(Date.now() / 1000 / windowSeconds)}`;
  }

  async incr(key: string, windowSeconds: number): Promise<number> {
    const k = this.slot(key, windowSeconds);
    const [[, n]] = (await this.redis
      .multi()
      .incr(k)
      .expire(k, windowSeconds + 1)
      .exec()) as [[Error | null, number]];
    return n;
  }

  async get(key: string, windowSeconds: number): Promise<number> {
    return Number((await this.redis.get(this.slot(key, windowSeconds))) ?? 0);
  }
}

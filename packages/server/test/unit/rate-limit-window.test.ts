import { describe, expect, it } from 'vitest';
import { MemoryLimitStore } from '../../src/relay/limits/memory-store.js';
import { rateHeaders } from '../../src/relay/limits/admission.js';
import type { LimitBucket } from '../../src/relay/limits/types.js';
import { minuteWindow, refusalOf, remaining, secondsToReset, WINDOW_MS } from '../../src/relay/limits/window.js';

const MINUTE_START = 29_000_000 * WINDOW_MS;

describe('minute windows', () => {
  it('aligns windows to the epoch minute and counts the seconds to the end, at least 1', () => {
    expect(minuteWindow(MINUTE_START)).toEqual({ index: 29_000_000, endsAt: MINUTE_START + WINDOW_MS });
    expect(minuteWindow(MINUTE_START + WINDOW_MS - 1).index).toBe(29_000_000);
    expect(minuteWindow(MINUTE_START + WINDOW_MS).index).toBe(29_000_001);
    const w = minuteWindow(MINUTE_START);
    expect(secondsToReset(w, MINUTE_START)).toBe(60);
    expect(secondsToReset(w, MINUTE_START + 1)).toBe(60);
    expect(secondsToReset(w, MINUTE_START + 45_000)).toBe(15);
    expect(secondsToReset(w, MINUTE_START + 44_999)).toBe(16);
    expect(secondsToReset(w, MINUTE_START + 59_999)).toBe(1);
  });

  it('refuses the request past rpm and the tokens past tpm; 0 is no limit', () => {
    expect(refusalOf(3, 0, 2, 0, 10)).toBeUndefined();
    expect(refusalOf(3, 0, 3, 0, 10)).toBe('requests');
    expect(refusalOf(0, 100, 99, 90, 10)).toBeUndefined();
    expect(refusalOf(0, 100, 99, 91, 10)).toBe('tokens');
    expect(refusalOf(0, 0, 1e9, 1e9, 1e9)).toBeUndefined();
    expect(refusalOf(5, 100, 5, 100, 1)).toBe('requests');
    expect(remaining(10, 12)).toBe(0);
    expect(remaining(10, 4)).toBe(6);
  });
});

describe('node-local limit store', () => {
  const token: LimitBucket = { level: 'token', id: '1', rpm: 2, tpm: 0 };
  const group: LimitBucket = { level: 'group', id: 'vip', rpm: 0, tpm: 100 };

  it('counts in every bucket or in none, and starts over in the next window', () => {
    const s = new MemoryLimitStore();
    expect(s.check([token, group], 40, MINUTE_START)).toEqual({
      window: 29_000_000,
      used: [
        { requests: 1, tokens: 0 },
        { requests: 0, tokens: 40 },
      ],
    });
    expect(s.check([token, group], 40, MINUTE_START + 1).refused).toBeUndefined();
    // The token is out of requests: the group's tokens are not counted either.
    expect(s.check([token, group], 10, MINUTE_START + 2)).toEqual({
      window: 29_000_000,
      used: [
        { requests: 2, tokens: 0 },
        { requests: 0, tokens: 80 },
      ],
      refused: { index: 0, kind: 'requests' },
    });
    expect(s.check([group], 21, MINUTE_START + 3).refused).toEqual({ index: 0, kind: 'tokens' });
    expect(s.check([group], 20, MINUTE_START + 3).used).toEqual([{ requests: 0, tokens: 100 }]);
    const next = s.check([token, group], 50, MINUTE_START + WINDOW_MS);
    expect(next).toEqual({
      window: 29_000_001,
      used: [
        { requests: 1, tokens: 0 },
        { requests: 0, tokens: 50 },
      ],
    });
  });

  it('settles a reservation by the difference, never below 0, and only in its own window', () => {
    const s = new MemoryLimitStore();
    const first = s.check([group], 60, MINUTE_START);
    s.adjust([group], first.window, -45);
    expect(s.check([group], 0, MINUTE_START + 1).used[0]!.tokens).toBe(15);
    s.adjust([group], first.window, -1000);
    expect(s.check([group], 0, MINUTE_START + 2).used[0]!.tokens).toBe(0);
    s.check([group], 30, MINUTE_START + WINDOW_MS);
    s.adjust([group], first.window, 500);
    expect(s.check([group], 0, MINUTE_START + WINDOW_MS + 1).used[0]!.tokens).toBe(30);
  });

  it('reports the tightest level in the x-ratelimit headers, with retry-after on a refusal', () => {
    const user: LimitBucket = { level: 'user', id: '7', rpm: 10, tpm: 1000 };
    const now = MINUTE_START + 42_500;
    const c = {
      window: 0,
      used: [
        { requests: 1, tokens: 0 },
        { requests: 9, tokens: 300 },
        { requests: 0, tokens: 95 },
      ],
    };
    expect(rateHeaders([token, user, group], c, now)).toEqual({
      'x-ratelimit-limit-requests': '2',
      'x-ratelimit-remaining-requests': '1',
      'x-ratelimit-reset-requests': '18s',
      'x-ratelimit-limit-tokens': '100',
      'x-ratelimit-remaining-tokens': '5',
      'x-ratelimit-reset-tokens': '18s',
    });
    expect(
      rateHeaders([user], { ...c, used: [c.used[1]!], refused: { index: 0, kind: 'requests' } }, now),
    ).toMatchObject({ 'retry-after': '18' });
  });
});

/** A limits context whose Redis is a real client to a port nobody listens on (every command fails at once). */
interface Unreachable {
  ctx: {
    options: never;
    redis: import('ioredis').Redis;
    config: { redisKeyPrefix: string };
    log: { warn(obj: object, msg: string): void };
  };
  /** What the limits warned. */
  warnings: string[];
}

/** Runs `body` with an unreachable Redis, disconnected afterwards. */
async function withUnreachableRedis(body: (u: Unreachable) => Promise<void>): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis({
    port: 1,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  const warnings: string[] = [];
  const ctx = {
    options: { json: () => ({}) } as never,
    redis,
    config: { redisKeyPrefix: 'unreachable:' },
    log: { warn: (_: object, msg: string) => void warnings.push(msg) },
  };
  try {
    await body({ ctx, warnings });
  } finally {
    redis.disconnect();
  }
}

/**
 * Every relay limit whose counters live in Redis lets calls through while Redis cannot be reached (a limiter never
 * takes the gateway down), and says so once a minute per limit (limits/outage.ts).
 */
describe('limits when Redis cannot be reached', () => {
  it('per-minute limits (RPM/TPM): let the call through unlimited and warn once', async () => {
    const { admitCaller } = await import('../../src/relay/limits/admission.js');
    const auth = { tokenId: 1, userId: 2, perMinute: { tokenRpm: 1, tokenTpm: 0, userRpm: 0, userTpm: 0 } } as never;
    await withUnreachableRedis(async ({ ctx, warnings }) => {
      expect(await admitCaller(ctx, auth, 'default', 10)).toBeUndefined();
      expect(await admitCaller(ctx, auth, 'default', 10)).toBeUndefined();
      expect(warnings).toEqual(['rate limits: the counters cannot be reached; calls pass unlimited meanwhile']);
    });
  });

  it("request limits (ModelRequestRateLimit*, a token's rate_limit_*): let the call through and warn once", async () => {
    const { admitWithin } = await import('../../src/relay/limits/request-limits.js');
    const { RedisWindowCounters } = await import('../../src/lib/window-counters.js');
    const limits = [{ key: 'mrl:2', windowSeconds: 60, total: 1, success: 1 }];
    await withUnreachableRedis(async ({ ctx, warnings }) => {
      const counters = new RedisWindowCounters(ctx.redis, ctx.config.redisKeyPrefix);
      for (let i = 0; i < 3; i++) expect(await admitWithin(counters, limits, Date.now(), ctx.log)).toBe(limits);
      expect(warnings).toEqual(['request limits: the counters cannot be reached; calls pass unlimited meanwhile']);
    });
  });

  it('concurrency limits: let the call through and warn once', async () => {
    const { enterCall } = await import('../../src/relay/limits/concurrency.js');
    const { EventEmitter } = await import('node:events');
    const auth = { tokenId: 1, userId: 2, concurrencyLimit: 1 } as never;
    await withUnreachableRedis(async ({ ctx, warnings }) => {
      for (let i = 0; i < 3; i++) {
        const res = Object.assign(new EventEmitter(), { closed: false }) as never;
        await enterCall(ctx, { token: 0, user: 0 }, auth, res);
      }
      expect(warnings).toEqual(['concurrency limits: Redis cannot be reached; calls pass unlimited meanwhile']);
    });
  });
});

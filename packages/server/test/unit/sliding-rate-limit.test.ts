import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryWindowCounters, rateLimiterOver, slidingCount } from '../../src/lib/window-counters.js';
import { FAILURE_WINDOW_SECONDS, MAX_FAILURES_PER_USER, TwoFactorAttempts } from '../../src/modules/twofa/attempts.js';
import { RelayError } from '../../src/relay/pipeline/errors.js';
import { admitWithin, countSuccess, type RequestLimit } from '../../src/relay/limits/request-limits.js';

const WINDOW_S = 1200;
const WINDOW_MS = WINDOW_S * 1000;
/** A window boundary (a multiple of the window since the epoch). */
const BOUNDARY = 1_500_000 * WINDOW_MS;

/** A hit at `at` under `limit`: whether it is admitted. */
type Hit = (at: number, limit?: number) => Promise<boolean>;

/** A limiter on its own counters whose clock the test sets. */
function limiterAt(): Hit {
  let now = 0;
  const limited = rateLimiterOver(new MemoryWindowCounters(), () => now);
  return (at: number, limit = 20) => {
    now = at;
    return limited('critical:198.51.100.1', limit, WINDOW_S);
  };
}

/** The relay's request limit (a user's model request limit or a token's own) on its own counters. */
function relayLimitAt(kind: 'total' | 'success'): Hit {
  const counters = new MemoryWindowCounters();
  return async (at: number, limit = 20) => {
    const limits: RequestLimit[] = [
      {
        key: 'mrl:7',
        windowSeconds: WINDOW_S,
        total: kind === 'total' ? limit : 0,
        success: kind === 'success' ? limit : 0,
      },
    ];
    try {
      // Every admitted call succeeds (the success limit counts those).
      countSuccess(counters, await admitWithin(counters, limits, at, { warn: () => undefined }), at);
      return true;
    } catch (err) {
      if (err instanceof RelayError && err.status === 429) return false;
      throw err;
    }
  };
}

/** Every limiter that slides, under the same tests. */
const LIMITERS: [string, () => Hit][] = [
  ['the critical routes (sign-in, registration, setup)', limiterAt],
  ["the relay's request limit (all calls)", () => relayLimitAt('total')],
  ["the relay's request limit (successful calls)", () => relayLimitAt('success')],
];

describe('sliding window counts', () => {
  it('weighs the previous window by the share the sliding window still covers', () => {
    expect(slidingCount(3, 0, WINDOW_S, BOUNDARY + 5)).toBe(3);
    expect(slidingCount(3, 20, WINDOW_S, BOUNDARY)).toBe(23);
    expect(slidingCount(3, 20, WINDOW_S, BOUNDARY + WINDOW_MS / 4)).toBe(18);
    expect(slidingCount(3, 20, WINDOW_S, BOUNDARY + WINDOW_MS / 2)).toBe(13);
  });
});

describe.each(LIMITERS)('%s: a sliding window', (_name, makeHit) => {
  it('spends no second allowance across a window boundary: 20 just before it, then the next ones refused', async () => {
    const hit = makeHit();
    for (let i = 0; i < 20; i++) expect(await hit(BOUNDARY - 1_000 + i)).toBe(true);
    expect(await hit(BOUNDARY - 1)).toBe(false);
    // A fixed window would start again here with 20 more.
    for (let i = 0; i < 20; i++) expect(await hit(BOUNDARY + i * 10)).toBe(false);
  });

  it('admits again as the previous window slides out, and fully after a quiet window', async () => {
    const hit = makeHit();
    for (let i = 0; i < 20; i++) await hit(BOUNDARY - WINDOW_MS / 2 + i);
    // Half-way through the next window, the previous 20 weigh 10: ten more are admitted, the eleventh not.
    const half = BOUNDARY + WINDOW_MS / 2;
    for (let i = 0; i < 10; i++) expect(await hit(half + i)).toBe(true);
    expect(await hit(half + 10)).toBe(false);
    for (let i = 0; i < 20; i++) expect(await hit(BOUNDARY + 2 * WINDOW_MS + i)).toBe(true);
  });

  it('admits at most limit × (1 + d / window) hits in any span of d up to one window (fixed windows: twice the limit)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        // Hit times over three windows, many of them within seconds of a boundary (where fixed windows fail).
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: 3 * WINDOW_MS - 1 }),
            fc
              .tuple(fc.integer({ min: 1, max: 2 }), fc.integer({ min: -5_000, max: 5_000 }))
              .map(([w, d]) => w * WINDOW_MS + d),
          ),
          { minLength: 1, maxLength: 120 },
        ),
        fc.integer({ min: 1, max: WINDOW_MS }),
        async (limit, offsets, span) => {
          const hit = makeHit();
          const admitted: number[] = [];
          for (const t of offsets.sort((a, b) => a - b).map((o) => BOUNDARY + o))
            if (await hit(t, limit)) admitted.push(t);
          for (const end of admitted) {
            const inSpan = admitted.filter((t) => t > end - span && t <= end).length;
            expect(inSpan).toBeLessThanOrEqual(limit * (1 + span / WINDOW_MS));
          }
        },
      ),
      { numRuns: 3_000 },
    );
  });
});

describe('two-factor failures slide the same way', () => {
  const W = FAILURE_WINDOW_SECONDS * 1000;
  const START = 6_000_000 * W;
  afterEach(() => vi.useRealTimers());
  const at = (ms: number) => vi.setSystemTime(ms);

  it('five wrong codes just before a boundary leave one guess just after it, not five more', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const attempts = new TwoFactorAttempts(new MemoryWindowCounters());
    const ip = '198.51.100.9';
    at(START + W - 2_000);
    for (let i = 0; i < MAX_FAILURES_PER_USER; i++) {
      await attempts.assertOpen(7, ip);
      await attempts.fail(7, ip);
    }
    expect(await attempts.userLocked(7)).toBe(true);
    // A second past the boundary the five weigh 4.98: one more guess (fixed windows gave five more here).
    at(START + W + 1_000);
    expect(await attempts.userLocked(7)).toBe(false);
    await attempts.assertOpen(7, ip);
    await attempts.fail(7, ip);
    expect(await attempts.userLocked(7)).toBe(true);
    await expect(attempts.assertOpen(7, ip)).rejects.toMatchObject({ status: 429 });
    // Once the failures' windows have slid out, the user is free again.
    at(START + 3 * W + 1_000);
    expect(await attempts.userLocked(7)).toBe(false);
  });
});

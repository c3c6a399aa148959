import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryWindowCounters, RedisWindowCounters } from '../../src/lib/window-counters.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from '../support/redis.js';

const WINDOW_S = 60;
const WINDOW_MS = WINDOW_S * 1000;
const START = 30_000_000 * WINDOW_MS;

/** The sliding rate limiter reads the same counts from Redis (a cluster) as from memory (one node). */
describe('window counters in Redis', () => {
  const prefix = newRedisPrefix();
  const redis = new Redis(TEST_REDIS);
  afterAll(async () => {
    redis.disconnect();
    await dropRedisKeys(prefix);
  });

  it('give the same current and previous counts as the in-memory counters for any sequence of hits and reads', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        // (caller, when, counted alone: a success counted after the call, as the relay's limits do)
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 3 * WINDOW_MS - 1 }), fc.boolean()),
          { minLength: 1, maxLength: 40 },
        ),
        async (hits) => {
          const memory = new MemoryWindowCounters();
          const shared = new RedisWindowCounters(redis, `${prefix}${run++}:`);
          const sorted = [...hits].sort((a, b) => a[1] - b[1]);
          for (const [caller, offset, alone] of sorted) {
            const key = `rl:critical:192.0.2.${caller}`;
            if (alone)
              expect(await shared.incr(key, WINDOW_S, START + offset)).toEqual(
                memory.incr(key, WINDOW_S, START + offset),
              );
            else
              expect(await shared.hit(key, WINDOW_S, START + offset)).toEqual(
                memory.hit(key, WINDOW_S, START + offset),
              );
            // Read without counting (two-factor failures), for this caller and another.
            for (const other of [key, `rl:critical:192.0.2.${(caller + 1) % 3}`])
              expect(await shared.counts(other, WINDOW_S, START + offset)).toEqual(
                memory.counts(other, WINDOW_S, START + offset),
              );
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keep a window readable through the next one (its key outlives it by a window)', async () => {
    const shared = new RedisWindowCounters(redis, `${prefix}ttl:`);
    await shared.hit('rl:k', WINDOW_S, Date.now());
    const [key] = await redis.keys(`${prefix}ttl:*`);
    expect(await redis.ttl(key!)).toBeGreaterThan(WINDOW_S + 1);
  });
});

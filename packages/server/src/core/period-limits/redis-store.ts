import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import type { CounterRef, PeriodCounter, PeriodStore, PeriodTake } from './types.js';
import { slotLeavesAt, WINDOW_SLOTS } from './periods.js';

/** A Lua script run by its digest, sent whole only when Redis does not know it yet. */
function script(source: string) {
  const sha = crypto.createHash('sha1').update(source).digest('hex');
  return async (redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(source, keys.length, ...keys, ...args);
    }
  };
}

/** A key outlives its period by this much: a settlement may still move it. */
const KEY_GRACE_MS = 3_600_000;

/**
 * Checks every counter, then counts the grant in all of them or in none: one script, so no two nodes take the
 * same room. KEYS: the counters; ARGV: amount, minimum, then per counter limit, slot (-1: calendar), ttl (ms) and
 * whether it must exist (1: a budget's counter, seeded from the logs when missing). A calendar counter is a number,
 * a rolling one a hash of slot → amount whose slots out of the window are dropped. Returns the grant (-1: refused,
 * -2: counter n is missing and nothing was counted), the tightest (or missing) counter (1-based, 0: none), then per
 * counter its count and oldest slot with an amount (-1: none).
 */
const TAKE = script(`local amount = tonumber(ARGV[1])
local minimum = tonumber(ARGV[2])
local n = #KEYS
local granted = amount
local tight = 0
local out = {0, 0}
for i = 1, n do
  if ARGV[4 * i + 2] == '1' and redis.call('EXISTS', KEYS[i]) == 0 then return {-2, i} end
end
for i = 1, n do
  local limit = tonumber(ARGV[4 * i - 1])
  local slot = tonumber(ARGV[4 * i])
  local used = 0
  local oldest = -1
  if slot < 0 then
    used = tonumber(redis.call('GET', KEYS[i]) or '0')
  else
    local f = redis.call('HGETALL', KEYS[i])
    for j = 1, #f, 2 do
      local s = tonumber(f[j])
      local v = tonumber(f[j + 1])
      if s <= slot - ${WINDOW_SLOTS} then redis.call('HDEL', KEYS[i], f[j])
      elseif s <= slot then
        used = used + v
        if v > 0 and (oldest < 0 or s < oldest) then oldest = s end
      end
    end
  end
  out[1 + 2 * i] = used
  out[2 + 2 * i] = oldest
  local room = limit - used
  if room < 0 then room = 0 end
  if room < granted then granted = room; tight = i end
end
out[2] = tight
if granted < minimum then out[1] = -1; return out end
out[1] = granted
if granted == 0 then return out end
for i = 1, n do
  local slot = tonumber(ARGV[4 * i])
  if slot < 0 then
    out[1 + 2 * i] = redis.call('INCRBY', KEYS[i], granted)
  else
    redis.call('HINCRBY', KEYS[i], slot, granted)
    out[1 + 2 * i] = out[1 + 2 * i] + granted
    if out[2 + 2 * i] < 0 then out[2 + 2 * i] = slot end
  end
  redis.call('PEXPIRE', KEYS[i], ARGV[4 * i + 1])
end
return out`);

/** Moves existing counters by ARGV[1], never below 0; ARGV[1 + i] is counter i's slot (-1: calendar). */
const ADJUST = script(`local d = tonumber(ARGV[1])
for i = 1, #KEYS do
  local slot = ARGV[1 + i]
  if slot == '-1' then
    if redis.call('EXISTS', KEYS[i]) == 1 and redis.call('INCRBY', KEYS[i], d) < 0 then
      redis.call('SET', KEYS[i], 0, 'KEEPTTL')
    end
  elseif redis.call('HEXISTS', KEYS[i], slot) == 1 and redis.call('HINCRBY', KEYS[i], slot, d) < 0 then
    redis.call('HSET', KEYS[i], slot, 0)
  end
end
return 0`);

/** How long a counter's key lives: to its period's end (or its newest slot's leaving) and a grace beyond. */
function ttlOf(c: PeriodCounter, now: number): number {
  const ends = c.slot < 0 ? c.endsAt : slotLeavesAt(c.slot);
  return Math.max(1, ends - now) + KEY_GRACE_MS;
}

/** Cluster-wide period counters in Redis: one script call per take, whatever the number of counters. */
export class RedisPeriodStore implements PeriodStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(c: Pick<PeriodCounter, 'key'>): string {
    return `${this.prefix}pl:${c.key}`;
  }

  async take(counters: PeriodCounter[], amount: number, minimum: number, now: number): Promise<PeriodTake> {
    const args: (string | number)[] = [amount, minimum];
    for (const c of counters) {
      args.push(c.limit, c.slot, ttlOf(c, now), c.budget ? 1 : 0);
    }
    const out = (await TAKE(this.redis, counters.map(this.key, this), args)) as number[];
    if (Number(out[0]) === -2) return { granted: 0, uses: [], missing: Number(out[1]) - 1 };
    const uses = counters.map((_, i) => ({ used: Number(out[2 + 2 * i]), oldest: Number(out[3 + 2 * i]) }));
    const granted = Number(out[0]);
    return granted < 0 ? { granted: 0, uses, refused: Number(out[1]) - 1 } : { granted, uses };
  }

  /** Starts a counter that is missing at `value` (SET NX: a node that got there first wins). */
  async seed(c: PeriodCounter, value: number, now: number): Promise<void> {
    await this.redis.set(this.key(c), value, 'PX', ttlOf(c, now), 'NX');
  }

  async adjust(counters: readonly CounterRef[], delta: number): Promise<void> {
    if (!counters.length || delta === 0) return;
    await ADJUST(this.redis, counters.map(this.key, this), [delta, ...counters.map((c) => c.slot)]);
  }
}

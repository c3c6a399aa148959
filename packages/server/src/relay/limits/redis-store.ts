import type { Redis } from 'ioredis';
import { LuaScript } from '../../accounting/balance-scripts.js';
import type { LimitBucket, LimitCheck, LimitStore } from './types.js';
import { minuteWindow, WINDOW_MS } from './window.js';

/** Counter keys outlive their window a little: a settlement may still adjust them. */
const KEY_TTL_SECONDS = Math.ceil((2 * WINDOW_MS) / 1000);

/**
 * Checks every bucket, then counts the call in all of them or in none. KEYS: per bucket its requests and
 * tokens keys; ARGV: ttl, tokens, then per bucket rpm and tpm. Returns refused bucket (1-based, 0: none),
 * kind (1 requests, 2 tokens), then per bucket the requests and tokens counts.
 */
const CHECK = new LuaScript(`local ttl = tonumber(ARGV[1])
local est = tonumber(ARGV[2])
local n = #KEYS / 2
local out = {0, 0}
for i = 1, n do
  local r = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0')
  local t = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
  local rpm = tonumber(ARGV[1 + 2 * i])
  local tpm = tonumber(ARGV[2 + 2 * i])
  out[1 + 2 * i] = r
  out[2 + 2 * i] = t
  if out[1] == 0 then
    if rpm > 0 and r + 1 > rpm then out[1] = i; out[2] = 1
    elseif tpm > 0 and t + est > tpm then out[1] = i; out[2] = 2 end
  end
end
if out[1] ~= 0 then return out end
for i = 1, n do
  if tonumber(ARGV[1 + 2 * i]) > 0 then
    out[1 + 2 * i] = redis.call('INCR', KEYS[2 * i - 1])
    redis.call('EXPIRE', KEYS[2 * i - 1], ttl)
  end
  if tonumber(ARGV[2 + 2 * i]) > 0 and est > 0 then
    out[2 + 2 * i] = redis.call('INCRBY', KEYS[2 * i], est)
    redis.call('EXPIRE', KEYS[2 * i], ttl)
  end
end
return out`);

/** Moves existing token counters by ARGV[1], never below 0 (a finished window's keys may be gone: left so). */
const ADJUST = new LuaScript(`local d = tonumber(ARGV[1])
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    if redis.call('INCRBY', KEYS[i], d) < 0 then redis.call('SET', KEYS[i], 0, 'KEEPTTL') end
  end
end
return 0`);

/** Cluster-wide counts in Redis: one script call per check, whatever the number of levels. */
export class RedisLimitStore implements LimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  private key(b: LimitBucket, window: number, kind: 'r' | 't'): string {
    return `${this.prefix}rl:${b.level}:${b.id}:${window}:${kind}`;
  }

  async check(buckets: LimitBucket[], tokens: number, now: number): Promise<LimitCheck> {
    const window = minuteWindow(now).index;
    const keys: string[] = [];
    const args: (string | number)[] = [KEY_TTL_SECONDS, tokens];
    for (const b of buckets) {
      keys.push(this.key(b, window, 'r'), this.key(b, window, 't'));
      args.push(b.rpm, b.tpm);
    }
    const out = (await CHECK.run(this.redis, keys, args)) as number[];
    const used = buckets.map((_, i) => ({ requests: Number(out[2 + 2 * i]), tokens: Number(out[3 + 2 * i]) }));
    const refused = Number(out[0]);
    return refused
      ? { window, used, refused: { index: refused - 1, kind: Number(out[1]) === 1 ? 'requests' : 'tokens' } }
      : { window, used };
  }

  adjust(buckets: LimitBucket[], window: number, delta: number): void {
    const keys = buckets.filter((b) => b.tpm > 0).map((b) => this.key(b, window, 't'));
    if (!keys.length || delta === 0) return;
    ADJUST.run(this.redis, keys, [delta]).catch(this.onError);
  }
}

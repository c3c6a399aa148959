import type { Redis } from 'ioredis';
import type { BalanceKind, Hold, Ledger, ReserveTarget } from './ledger.js';

type Loader = (ids: number[]) => Promise<Map<number, number>>;

/*
 * Each balance is a Redis hash {b: balance, g: generation}. Reservations take from b atomically (one script
 * for user and token together); a settle gives the reservation back only to the generation it was taken
 * from, so a balance rebuilt from the database in between (an admin edit, a Redis restart) is never credited
 * twice. The database follows through each node's batched writer.
 */
const RESERVE = `
for i, k in ipairs(KEYS) do
  if redis.call('EXISTS', k) == 0 then return {-10 - i} end
end
local amount = tonumber(ARGV[1])
local gens = {}
for i, k in ipairs(KEYS) do
  local b = tonumber(redis.call('HGET', k, 'b'))
  if amount > 0 and b < amount then return {-i} end
  gens[i] = tonumber(redis.call('HGET', k, 'g'))
end
for i, k in ipairs(KEYS) do redis.call('HINCRBY', k, 'b', -amount) end
return {1, gens[1], gens[2] or 0}
`;

const SETTLE = `
local reserved = tonumber(ARGV[1])
local charge = tonumber(ARGV[2])
local bal = {}
for i, k in ipairs(KEYS) do
  if redis.call('EXISTS', k) == 1 then
    local b = tonumber(redis.call('HGET', k, 'b'))
    if tonumber(redis.call('HGET', k, 'g')) == tonumber(ARGV[2 + i]) then b = b + reserved end
    bal[i] = b
    if charge > b then charge = math.max(0, b) end
  end
end
for i, k in ipairs(KEYS) do
  if bal[i] ~= nil then redis.call('HSET', k, 'b', bal[i] - charge) end
end
return charge
`;

/** Creates a balance from the database value unless one exists; a rebuild bumps the generation. */
const LOAD = `
if ARGV[2] == '1' or redis.call('EXISTS', KEYS[1]) == 0 then
  local g = tonumber(redis.call('HGET', KEYS[1], 'g') or '0') + 1
  redis.call('HSET', KEYS[1], 'b', ARGV[1], 'g', g)
end
return 1
`;

export class RedisLedger implements Ledger {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly loadUsers: Loader,
    private readonly loadTokens: Loader,
  ) {}

  private key(kind: BalanceKind, id: number): string {
    return `${this.prefix}bal:${kind === 'users' ? 'u' : 't'}:${id}`;
  }

  private async load(kind: BalanceKind, id: number, rebuild: boolean): Promise<boolean> {
    const v = (await (kind === 'users' ? this.loadUsers : this.loadTokens)([id])).get(id);
    if (v === undefined) return false;
    await this.redis.eval(LOAD, 1, this.key(kind, id), String(v), rebuild ? '1' : '0');
    return true;
  }

  async reserve(t: ReserveTarget, amount: number): Promise<Hold | 'user' | 'token'> {
    const keys = [this.key('users', t.userId), ...(t.tokenId === undefined ? [] : [this.key('tokens', t.tokenId)])];
    for (let attempt = 0; attempt < 3; attempt++) {
      const [code, gu, gt] = (await this.redis.eval(RESERVE, keys.length, ...keys, String(amount))) as number[];
      if (code === 1) return { amount, gens: [gu!, gt!] };
      if (code === -1) return 'user';
      if (code === -2) return 'token';
      // -11: the user's balance is not in Redis yet, -12: the token's.
      const missingUser = code === -11;
      if (!(await this.load(missingUser ? 'users' : 'tokens', missingUser ? t.userId : t.tokenId!, false))) return missingUser ? 'user' : 'token';
    }
    return 'user';
  }

  async settle(t: ReserveTarget, hold: Hold, actual: number): Promise<number> {
    const keys = [this.key('users', t.userId), ...(t.tokenId === undefined ? [] : [this.key('tokens', t.tokenId)])];
    const [gu, gt] = hold.gens ?? [0, 0];
    return Number(await this.redis.eval(SETTLE, keys.length, ...keys, String(hold.amount), String(actual), String(gu), String(gt)));
  }

  async available(kind: BalanceKind, id: number): Promise<number | undefined> {
    let b = await this.redis.hget(this.key(kind, id), 'b');
    if (b === null && (await this.load(kind, id, false))) b = await this.redis.hget(this.key(kind, id), 'b');
    return b === null ? undefined : Number(b);
  }

  /** Rebuilds the balance from the database (only if Redis holds it; otherwise the next call loads it). */
  async refresh(kind: BalanceKind, id: number): Promise<void> {
    if (await this.redis.exists(this.key(kind, id))) await this.load(kind, id, true);
  }

  beforeCommit(): Promise<void> {
    return Promise.resolve();
  }

  committed(): void {
    // Redis is the live balance; the database catches up on its own.
  }

  commitFailed(): void {
    // Nothing is fenced yet.
  }
}

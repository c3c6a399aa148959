import crypto from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * The Lua scripts of the Redis ledger. A balance is a hash: `b` spendable, `g` its epoch (random, set when the
 * hash is built from the database), `d` the database value as the ledger knows it (set from the database, then
 * moved by every commit), `v` commit version, `o:<node>` what that node holds outstanding (live reservations
 * plus charges not yet committed), `c:<node>` that node's commits in progress. Every script moves amounts
 * between `b` and an `o:` field in equal parts and a commit moves `d` with the database, so b + Σo = d = the
 * database value holds between reconciliations; a reconciliation tells Redis drift (b + Σo ≠ d) from database
 * changes made outside the relay (d ≠ database: an admin edit, a top-up).
 */

/** Runs a script by its hash, sending its text only when Redis does not know it yet. */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = crypto.createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/** Integers written as plain digits (Lua would print large numbers in exponent form). */
const INT = `local function int(n) return string.format('%d', n) end
`;

/** The live node ids (heartbeat within ARGV ttl in KEYS[1]); the caller itself always counts as live. */
const LIVE = `local function liveNodes(nodesKey, ttl, self)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local live = {}
  for _, n in ipairs(redis.call('ZRANGEBYSCORE', nodesKey, now - tonumber(ttl), '+inf')) do live[n] = true end
  live[self] = true
  return live
end
local function busy(h, live)
  for j = 1, #h, 2 do
    local f = h[j]
    if string.sub(f, 1, 2) == 'c:' and live[string.sub(f, 3)] and tonumber(h[j + 1]) > 0 then return true end
  end
  return false
end
`;

/**
 * The body of a script that applies `fn(KEYS, ARGV)` to each of several calls in turn, as if each had run on its
 * own: ARGV is the number of calls, then for each its key count, argument count and arguments; KEYS are every
 * call's keys in order. Returns the calls' results in order; a call whose `fn` failed gets its error as its
 * result (an error reply in the array), and the others go on, as they would have in runs of their own.
 */
const EACH_CALL = (fn: string) => `
local out = {}
local k, a = 1, 2
for i = 1, tonumber(ARGV[1]) do
  local nk, na = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  local keys, args = {}, {}
  for j = 1, nk do keys[j] = KEYS[k + j - 1] end
  for j = 1, na do args[j] = ARGV[a + 1 + j] end
  local ok, r = pcall(${fn}, keys, args)
  if ok then
    out[i] = r
  else
    out[i] = redis.error_reply(type(r) == 'table' and r.err or tostring(r))
  end
  k = k + nk
  a = a + 2 + na
end
return out
`;

/**
 * KEYS: the balances (user, then token). ARGV: amount, node, and optionally the least amount (default: all of it).
 * Takes as much of the amount as every balance has, at least the least amount (and more than 0 when the amount
 * is), from every balance or none, and books it as the node's outstanding. Returns {1, epochs..., amount taken},
 * {-i} when balance i is short, {-10 - i} when balance i is not in Redis.
 */
const RESERVE_FN = `${INT}
local function reserve(KEYS, ARGV)
  local fields = {}
  for i, k in ipairs(KEYS) do
    fields[i] = redis.call('HMGET', k, 'b', 'g')
    if not fields[i][1] and not fields[i][2] and redis.call('EXISTS', k) == 0 then return {-10 - i} end
  end
  local amount = tonumber(ARGV[1])
  local least = tonumber(ARGV[3] or ARGV[1])
  if least < 1 then least = 1 end
  local held = 'o:' .. ARGV[2]
  local gens = {}
  local take = amount
  for i, k in ipairs(KEYS) do
    local b = tonumber(fields[i][1])
    if amount > 0 then
      if b < least then return {-i} end
      if b < take then take = b end
    end
    gens[i] = fields[i][2]
  end
  for i, k in ipairs(KEYS) do
    redis.call('HINCRBY', k, 'b', int(-take))
    redis.call('HINCRBY', k, held, int(take))
  end
  return {1, gens[1], gens[2] or '', int(take)}
end
`;
export const RESERVE = new LuaScript(`${RESERVE_FN}return reserve(KEYS, ARGV)`);
/** RESERVE for several calls in one script run (EACH_CALL). */
export const RESERVE_EACH = new LuaScript(`${RESERVE_FN}${EACH_CALL('reserve')}`);

/**
 * KEYS: the balances. ARGV: reserved, actual charge, the holding node, this node, the epochs reserved from.
 * Gives the reservation back only to the epoch it was taken from while the holder's field is there (a
 * reconciliation that dropped it already gave it back), then takes the charge (capped by every balance) and
 * books it as this node's outstanding. Returns {charge, epochs charged ('' where the balance is absent)}.
 */
const SETTLE_FN = `${INT}
local function settle(KEYS, ARGV)
  local reserved = tonumber(ARGV[1])
  local charge = tonumber(ARGV[2])
  local held = 'o:' .. ARGV[3]
  local mine = 'o:' .. ARGV[4]
  local bal = {}
  local backs = {}
  local gens = {}
  for i, k in ipairs(KEYS) do
    local f = redis.call('HMGET', k, 'b', 'g', held)
    if f[1] or f[2] or f[3] or redis.call('EXISTS', k) == 1 then
      local b = tonumber(f[1])
      local g = f[2]
      local o = tonumber(f[3])
      local back = 0
      if g == ARGV[4 + i] and o then back = math.min(reserved, math.max(o, 0)) end
      b = b + back
      backs[i] = back
      bal[i] = b
      gens[i] = g
      if charge > b then charge = math.max(0, b) end
    end
  end
  -- The reservation given back and the charge taken, netted: each field is written once.
  for i, k in ipairs(KEYS) do
    if bal[i] ~= nil then
      local back = backs[i]
      if back ~= charge then redis.call('HINCRBY', k, 'b', int(back - charge)) end
      if held == mine then
        if charge ~= back then redis.call('HINCRBY', k, mine, int(charge - back)) end
      else
        if back ~= 0 then redis.call('HINCRBY', k, held, int(-back)) end
        if charge ~= 0 then redis.call('HINCRBY', k, mine, int(charge)) end
      end
    end
  end
  return {charge, gens[1] or '', gens[2] or ''}
end
`;
export const SETTLE = new LuaScript(`${SETTLE_FN}return settle(KEYS, ARGV)`);
/** SETTLE for several calls in one script run (EACH_CALL). */
export const SETTLE_EACH = new LuaScript(`${SETTLE_FN}${EACH_CALL('settle')}`);

/** KEYS: a balance. ARGV: database value, new epoch, ttl ms. Builds the balance unless it exists. */
export const LOAD = new LuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'b', ARGV[1], 'd', ARGV[1], 'g', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1
`);

/**
 * KEYS: balances a commit is about to change. ARGV: node. Marks the node's commit in progress on each; returns
 * their epochs ('' where absent).
 */
export const FENCE = new LuaScript(`
local out = {}
for i, k in ipairs(KEYS) do
  out[i] = ''
  if redis.call('EXISTS', k) == 1 then
    redis.call('HINCRBY', k, 'c:' .. ARGV[1], 1)
    out[i] = redis.call('HGET', k, 'g')
  end
end
return out
`);

/**
 * KEYS: balances (a key may repeat, one entry per epoch). ARGV: node, then per entry: unfence (1/0), the epoch
 * fenced, the amount the database moved, the epoch booked to, the amount booked. Ends the node's commit in
 * progress; counts the commit in `v` and moves `d` with the database (forgets it unless the balance is the one
 * fenced); takes the amount booked off the node's outstanding where the epoch is still the one it was booked to.
 */
export const RELEASE = new LuaScript(`${INT}
local fence = 'c:' .. ARGV[1]
local held = 'o:' .. ARGV[1]
for i, k in ipairs(KEYS) do
  local a = 2 + (i - 1) * 5
  if redis.call('EXISTS', k) == 1 then
    local g = redis.call('HGET', k, 'g')
    if ARGV[a] == '1' then
      local c = tonumber(redis.call('HGET', k, fence) or '0')
      if c <= 1 then redis.call('HDEL', k, fence) else redis.call('HINCRBY', k, fence, -1) end
    end
    local moved = tonumber(ARGV[a + 2])
    if moved ~= 0 then
      redis.call('HINCRBY', k, 'v', 1)
      -- Not the balance fenced (rebuilt meanwhile, or the fence failed): whether its d has this commit is unknown.
      if g ~= ARGV[a + 1] then redis.call('HDEL', k, 'd')
      elseif redis.call('HEXISTS', k, 'd') == 1 then redis.call('HINCRBY', k, 'd', int(-moved)) end
    end
    local amount = tonumber(ARGV[a + 4])
    local o = tonumber(redis.call('HGET', k, held))
    if amount > 0 and o and g == ARGV[a + 3] then
      redis.call('HINCRBY', k, held, int(-math.min(amount, math.max(o, 0))))
    end
  end
end
return 1
`);

/**
 * KEYS: the node set, then balances. ARGV: node ttl ms, this node. Per balance {exists, epoch, version, busy}:
 * what a reconciliation must find unchanged after it read the database.
 */
export const SNAPSHOT = new LuaScript(`${LIVE}
local live = liveNodes(KEYS[1], ARGV[1], ARGV[2])
local out = {}
for i = 2, #KEYS do
  local h = redis.call('HGETALL', KEYS[i])
  local g, v = '', '0'
  for j = 1, #h, 2 do
    if h[j] == 'g' then g = h[j + 1] elseif h[j] == 'v' then v = h[j + 1] end
  end
  table.insert(out, #h > 0 and 1 or 0)
  table.insert(out, g)
  table.insert(out, v)
  table.insert(out, busy(h, live) and 1 or 0)
end
return out
`);

/** Results of FIX per balance. */
export const FIX_GONE = 0;
export const FIX_DONE = 1;
export const FIX_BUSY = 2;
export const FIX_DELETED = 3;

/**
 * KEYS: the node set, then balances. ARGV: node ttl ms, this node, balance ttl ms, then per balance: epoch and
 * version seen by SNAPSHOT, database value ('' when the row is gone). Where nothing changed since the snapshot
 * and no live commit is in progress: drops dead nodes' fields, sets b = database − Σ live outstanding and
 * d = database, renews the ttl. Returns per balance {result, drift of Redis (d − Σ live outstanding − b),
 * change made outside the relay (database − d), b before}.
 */
export const FIX = new LuaScript(`${INT}${LIVE}
local live = liveNodes(KEYS[1], ARGV[1], ARGV[2])
local out = {}
for i = 2, #KEYS do
  local k = KEYS[i]
  local a = 4 + (i - 2) * 3
  local h = redis.call('HGETALL', k)
  local f = {}
  for j = 1, #h, 2 do f[h[j]] = h[j + 1] end
  local result, drift, outside, before = ${FIX_DONE}, 0, 0, 0
  if #h == 0 or f['g'] ~= ARGV[a] then
    result = ${FIX_GONE}
  elseif (f['v'] or '0') ~= ARGV[a + 1] or busy(h, live) then
    result = ${FIX_BUSY}
  elseif ARGV[a + 2] == '' then
    redis.call('DEL', k)
    result = ${FIX_DELETED}
  else
    local outstanding = 0
    for j = 1, #h, 2 do
      local p = string.sub(h[j], 1, 2)
      if p == 'o:' or p == 'c:' then
        if not live[string.sub(h[j], 3)] then redis.call('HDEL', k, h[j])
        elseif p == 'o:' then outstanding = outstanding + tonumber(h[j + 1]) end
      end
    end
    before = tonumber(f['b'])
    local db = tonumber(ARGV[a + 2])
    -- Without d (unknown since a commit), all the difference counts as drift.
    local known = tonumber(f['d'] or ARGV[a + 2])
    drift = known - outstanding - before
    outside = db - known
    redis.call('HSET', k, 'b', int(db - outstanding), 'd', int(db))
    redis.call('PEXPIRE', k, ARGV[3])
  end
  table.insert(out, result)
  table.insert(out, int(drift))
  table.insert(out, int(outside))
  table.insert(out, int(before))
end
return out
`);

/**
 * KEYS: the node set. ARGV: node, node ttl ms, fresh (1 for a new id). Records the heartbeat and forgets nodes
 * past the ttl. A known id that is no longer live was given up for dead by the others: returns -1 (the caller
 * takes a new id). Otherwise returns the number of live nodes.
 */
export const HEARTBEAT = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - ttl))
if ARGV[3] ~= '1' and not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return -1 end
redis.call('ZADD', KEYS[1], now, ARGV[1])
return redis.call('ZCARD', KEYS[1])
`);

/**
 * KEYS: the leader lock, the node set. ARGV: node, lock ms, node ttl ms. Takes or renews the lock if this node
 * is live; a lock held by a node that is no longer live is taken over. Returns 1 when this node leads.
 */
export const LEAD = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function live(n)
  local s = redis.call('ZSCORE', KEYS[2], n)
  return s and tonumber(s) >= now - tonumber(ARGV[3])
end
if not live(ARGV[1]) then return 0 end
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] and live(cur) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`);

/** KEYS: the leader lock, the node set. ARGV: node. Leaves the cluster: the lock if held, the heartbeat. */
export const LEAVE = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`);

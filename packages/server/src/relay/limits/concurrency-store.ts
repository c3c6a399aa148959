import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { LuaScript } from '../../accounting/balance-scripts.js';

/** One level's cap on calls in flight: the token's or the user's (the id names the counter). */
export interface ConcurrencySlot {
  level: 'token' | 'user';
  id: string;
  limit: number;
}

/** A call's place in its slots, handed back to release it. */
export interface ConcurrencyLease {
  slots: ConcurrencySlot[];
  /** The lease's member in the Redis sets ('' in memory). */
  id: string;
}

/** Counts calls in flight per slot: in memory on one node, as leases in Redis across a cluster. */
export interface ConcurrencyStore {
  /** Takes a place in every slot when all have room: the lease, or the index of the first full slot. */
  acquire(slots: ConcurrencySlot[]): Promise<ConcurrencyLease | number> | ConcurrencyLease | number;
  /** Gives the places back (fire and forget). */
  release(lease: ConcurrencyLease): void;
}

const keyOf = (s: ConcurrencySlot) => `${s.level}:${s.id}`;

/**
 * Node-local counts. An entry lives while a call holds it (deleted at 0), so the map never holds more entries
 * than twice the calls in flight on this node.
 */
export class MemoryConcurrencyStore implements ConcurrencyStore {
  private readonly inFlight = new Map<string, number>();

  get size(): number {
    return this.inFlight.size;
  }

  acquire(slots: ConcurrencySlot[]): ConcurrencyLease | number {
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i]!;
      if ((this.inFlight.get(keyOf(s)) ?? 0) >= s.limit) return i;
    }
    for (const s of slots) this.inFlight.set(keyOf(s), (this.inFlight.get(keyOf(s)) ?? 0) + 1);
    return { slots, id: '' };
  }

  release(lease: ConcurrencyLease): void {
    for (const s of lease.slots) {
      const k = keyOf(s);
      const n = (this.inFlight.get(k) ?? 0) - 1;
      if (n > 0) this.inFlight.set(k, n);
      else this.inFlight.delete(k);
    }
  }
}

/** How long a lease lives in Redis without its node renewing it: a crashed node's places are free after this. */
export const LEASE_TTL_MS = 30_000;
/** How often a node renews the leases of its calls still in flight (well within LEASE_TTL_MS). */
export const LEASE_RENEW_MS = 10_000;

/** Redis's clock in ms, the same for every node (a node's own clock may be off). */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Drops each slot's expired leases, then adds the lease to all when every slot has room. KEYS: the slots' sorted
 * sets (member: lease id, score: its expiry); ARGV: ttl ms, lease id, then each slot's limit. Returns 0 (taken) or
 * the 1-based index of the first full slot.
 */
const ACQUIRE = new LuaScript(`${NOW}local ttl = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  if redis.call('ZCARD', KEYS[i]) >= tonumber(ARGV[2 + i]) then return i end
end
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], now + ttl, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return 0`);

/** Removes lease ARGV[1] from every slot in KEYS. */
const RELEASE = new LuaScript(`for i = 1, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
return 0`);

/** Extends the leases still present: KEYS[i] holds lease ARGV[1 + i]; ARGV[1] the ttl ms. */
const RENEW = new LuaScript(`${NOW}local ttl = tonumber(ARGV[1])
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', now + ttl, ARGV[1 + i])
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return 0`);

/**
 * Cluster-wide counts: each slot a sorted set of leases in Redis, each lease expiring LEASE_TTL_MS after its last
 * renewal. This node renews its calls' leases every LEASE_RENEW_MS while they run; a node that dies stops renewing,
 * and its places are taken back by the next acquire after their expiry.
 */
export class RedisConcurrencyStore implements ConcurrencyStore {
  /** This node's leases in flight (bounded by its calls in flight). */
  private readonly live = new Set<ConcurrencyLease>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  private key(s: ConcurrencySlot): string {
    return `${this.prefix}cc:${keyOf(s)}`;
  }

  async acquire(slots: ConcurrencySlot[]): Promise<ConcurrencyLease | number> {
    const lease = { slots, id: randomUUID() };
    const args: (string | number)[] = [LEASE_TTL_MS, lease.id];
    for (const s of slots) args.push(s.limit);
    const full = Number(
      await ACQUIRE.run(
        this.redis,
        slots.map((s) => this.key(s)),
        args,
      ),
    );
    if (full) return full - 1;
    this.live.add(lease);
    this.timer ??= setInterval(() => void this.renew(), LEASE_RENEW_MS).unref();
    return lease;
  }

  release(lease: ConcurrencyLease): void {
    if (!this.live.delete(lease)) return;
    RELEASE.run(
      this.redis,
      lease.slots.map((s) => this.key(s)),
      [lease.id],
    ).catch(this.onError);
  }

  /** One script call renewing every lease of this node's calls in flight (every LEASE_RENEW_MS). */
  async renew(): Promise<void> {
    if (!this.live.size) return;
    const keys: string[] = [];
    const args: (string | number)[] = [LEASE_TTL_MS];
    for (const lease of this.live)
      for (const s of lease.slots) {
        keys.push(this.key(s));
        args.push(lease.id);
      }
    await RENEW.run(this.redis, keys, args).catch(this.onError);
  }
}

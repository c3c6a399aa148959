import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Db } from '../../db/connect.js';
import { isUniqueViolation } from '../../db/unique.js';

/** A named right to run a background job, held by one node of a cluster at a time until it expires. */
export interface ClusterLease {
  readonly holder: string;
  /** Takes or renews the lease for `ttlMs`; true when this node holds it now. */
  acquire(ttlMs: number): Promise<boolean>;
  /** Gives it up (only if this node holds it), so another node may take it at once. */
  release(): Promise<void>;
}

const newHolder = (): string => crypto.randomBytes(8).toString('hex');

// Renews only the holder's own lease; takes a free one.
const ACQUIRE = `
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if cur then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** A lease in Redis: one key whose value names the holder, with a time to live. */
export class RedisLease implements ClusterLease {
  readonly holder = newHolder();
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    name: string,
  ) {
    this.key = `${prefix}lease:${name}`;
  }

  async acquire(ttlMs: number): Promise<boolean> {
    return Number(await this.redis.eval(ACQUIRE, 1, this.key, this.holder, String(ttlMs))) === 1;
  }

  async release(): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, this.holder);
  }
}

/** A lease in the database: a `cluster_leases` row taken or renewed by a conditional UPDATE. */
export class DatabaseLease implements ClusterLease {
  readonly holder = newHolder();

  constructor(
    private readonly db: Db,
    private readonly name: string,
  ) {}

  async acquire(ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const k = this.db.kysely;
    const r = await k
      .updateTable('cluster_leases')
      .set({ holder: this.holder, expires_at: now + ttlMs })
      .where('name', '=', this.name)
      .where((eb) => eb.or([eb('holder', '=', this.holder), eb('expires_at', '<', now)]))
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 1) return true;
    // MySQL counts an UPDATE that changed nothing (a renewal in the same millisecond) as no row.
    const row = await k
      .selectFrom('cluster_leases')
      .select(['holder', 'expires_at'])
      .where('name', '=', this.name)
      .executeTakeFirst();
    if (row) return row.holder === this.holder && Number(row.expires_at) >= now;
    try {
      await k
        .insertInto('cluster_leases')
        .values({ name: this.name, holder: this.holder, expires_at: now + ttlMs })
        .execute();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async release(): Promise<void> {
    await this.db.kysely
      .updateTable('cluster_leases')
      .set({ holder: '', expires_at: 0 })
      .where('name', '=', this.name)
      .where('holder', '=', this.holder)
      .execute();
  }
}

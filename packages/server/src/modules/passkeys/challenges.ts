import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AppContext } from '../../context.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { perContext } from '../../per-context.js';

/**
 * One-time values of the passkey ceremonies, kept on the server: the challenge a begin call handed out (with what
 * it was for and for whom) and the short "passkey verified" mark that POST /api/verify turns into a secure
 * verification. In memory on one node; in Redis when it is configured, so a begin on one node and its finish on
 * another meet. Keys are SHA-256 digests of what the caller holds; each value is taken at most once.
 */
export interface OneTimeStore {
  put(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value, removed; undefined when absent, taken already, or expired. */
  take(key: string): Promise<string | undefined>;
}

/** Most one-time values one node keeps (login challenges are handed to anyone: a flood evicts the oldest). */
const MAX_ENTRIES = 10_000;
const digest = (key: string): string => crypto.createHash('sha256').update(key).digest('hex');

export class MemoryOneTimeStore implements OneTimeStore {
  private readonly entries = new BoundedMap<string, string>({ maxEntries: MAX_ENTRIES });
  readonly capacity = MAX_ENTRIES;

  /** Values held (never more than `capacity`). */
  get size(): number {
    return this.entries.size;
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(digest(key), value, ttlMs);
  }

  async take(key: string): Promise<string | undefined> {
    const k = digest(key);
    const value = this.entries.get(k);
    this.entries.delete(k);
    return value;
  }
}

export class RedisOneTimeStore implements OneTimeStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(key: string): string {
    return `${this.prefix}passkey:${digest(key)}`;
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.key(key), value, 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async take(key: string): Promise<string | undefined> {
    const res = await this.redis.multi().get(this.key(key)).del(this.key(key)).exec();
    const [getResult, delResult] = res ?? [];
    // Only the caller whose DEL removed the key gets the value: two takes at once never both succeed.
    if (!getResult || getResult[0] || !delResult || delResult[1] !== 1) return undefined;
    return typeof getResult[1] === 'string' ? getResult[1] : undefined;
  }
}

export const passkeyOneTimeOf = perContext((ctx: AppContext): OneTimeStore =>
  ctx.redis ? new RedisOneTimeStore(ctx.redis, ctx.config.redisKeyPrefix) : new MemoryOneTimeStore(),
);

/** How long a passed passkey verification waits for POST /api/verify (seconds), as new-api's. */
export const PASSKEY_READY_SECONDS = 60;
const readyKey = (sessionKey: string): string => `ready:${sessionKey}`;

/** Marks the session as having just passed a passkey assertion of its user. */
export async function markPasskeyReady(ctx: AppContext, sessionKey: string, userId: number): Promise<void> {
  await passkeyOneTimeOf(ctx).put(readyKey(sessionKey), String(userId), PASSKEY_READY_SECONDS * 1000);
}

/** Takes the session's passkey mark: true once, when it is live and belongs to `userId`. */
export async function takePasskeyReady(ctx: AppContext, sessionKey: string, userId: number): Promise<boolean> {
  return (await passkeyOneTimeOf(ctx).take(readyKey(sessionKey))) === String(userId);
}

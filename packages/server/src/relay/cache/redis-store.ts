import type { Redis } from 'ioredis';
import { usageOf, usageText, type AnswerStore, type CachedAnswer, type StoredKey } from './store.js';

/**
 * Cached answers in Redis, shared by every node: each answer a hash `rc:a:<key>` with a TTL, and the sorted set
 * `rc:index` of keys by expiry, which bounds the cache (the answers soonest to expire go first when it is full).
 */
export class RedisAnswerStore implements AnswerStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private answerKey = (key: string) => `${this.prefix}rc:a:${key}`;
  private get index() {
    return `${this.prefix}rc:index`;
  }

  async get(key: string, now: number): Promise<CachedAnswer | undefined> {
    const h = await this.redis.hgetall(this.answerKey(key));
    const expiresAt = Number(h.e);
    if (!h.b || !(expiresAt > now)) return undefined;
    return {
      model: h.m ?? '',
      status: Number(h.s) || 200,
      contentType: h.t ?? '',
      body: h.b,
      usage: usageOf(h.u ?? ''),
      expiresAt,
    };
  }

  async put(key: string, a: CachedAnswer, maxEntries: number): Promise<StoredKey[]> {
    const ttl = Math.max(1, a.expiresAt - Date.now());
    const fields = {
      m: a.model,
      s: String(a.status),
      t: a.contentType,
      b: a.body,
      u: usageText(a.usage),
      e: String(a.expiresAt),
    };
    await this.redis
      .multi()
      .hset(this.answerKey(key), fields)
      .pexpire(this.answerKey(key), ttl)
      .zadd(this.index, a.expiresAt, key)
      .zremrangebyscore(this.index, '-inf', Date.now())
      .exec();
    const excess = (await this.redis.zcard(this.index)) - maxEntries;
    if (excess <= 0) return [];
    const popped = await this.redis.zpopmin(this.index, excess);
    const dropped: StoredKey[] = [];
    for (let i = 0; i + 1 < popped.length; i += 2) dropped.push({ key: popped[i]!, expiresAt: Number(popped[i + 1]) });
    if (dropped.length) await this.redis.del(...dropped.map((d) => this.answerKey(d.key)));
    return dropped;
  }

  async delete(key: string): Promise<void> {
    await this.redis.multi().del(this.answerKey(key)).zrem(this.index, key).exec();
  }

  async keys(now: number, limit: number): Promise<StoredKey[]> {
    const flat = await this.redis.zrevrangebyscore(this.index, '+inf', `(${now}`, 'WITHSCORES', 'LIMIT', 0, limit);
    const out: StoredKey[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ key: flat[i]!, expiresAt: Number(flat[i + 1]) });
    return out;
  }
}

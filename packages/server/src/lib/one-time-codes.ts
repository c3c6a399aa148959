import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { BoundedMap } from './bounded-map.js';

/**
 * Short-lived single-use secrets (mail verification codes, reset tokens) kept server-side: in memory on one
 * node, in Redis across a cluster so any node can check them. Only a SHA-256 digest is stored; a check
 * compares digests in constant time and consumes the secret.
 */
export interface OneTimeCodes {
  /** Stores `secret` under `key` for `ttlMs`, replacing an earlier one. */
  put(key: string, secret: string, ttlMs: number): Promise<void>;
  /** True once when `secret` matches the live one under `key` (which is then removed); false otherwise. */
  consume(key: string, secret: string): Promise<boolean>;
}

const digest = (secret: string): Buffer => crypto.createHash('sha256').update(secret, 'utf8').digest();

/** Codes held at once on one node (keyed by e-mail addresses a caller names: a flood evicts the least recently used). */
export const MAX_ONE_TIME_CODES = 10_000;

export class MemoryOneTimeCodes implements OneTimeCodes {
  private readonly entries = new BoundedMap<string, Buffer>({ maxEntries: MAX_ONE_TIME_CODES });

  get size(): number {
    return this.entries.size;
  }

  get capacity(): number {
    return this.entries.capacity;
  }

  async put(key: string, secret: string, ttlMs: number): Promise<void> {
    this.entries.set(key, digest(secret), ttlMs);
  }

  async consume(key: string, secret: string): Promise<boolean> {
    const stored = this.entries.get(key);
    if (!stored || !crypto.timingSafeEqual(stored, digest(secret))) return false;
    this.entries.delete(key);
    return true;
  }
}

/** Deletes the key only while it still holds the digest that was checked (so two nodes cannot both use it). */
const DELETE_IF_SAME = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

export class RedisOneTimeCodes implements OneTimeCodes {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(key: string): string {
    return `${this.prefix}otc:${key}`;
  }

  async put(key: string, secret: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.key(key), digest(secret).toString('hex'), 'PX', Math.max(1, Math.round(ttlMs)));
  }

  async consume(key: string, secret: string): Promise<boolean> {
    const k = this.key(key);
    const stored = await this.redis.get(k);
    if (!stored || stored.length !== 64) return false;
    if (!crypto.timingSafeEqual(Buffer.from(stored, 'hex'), digest(secret))) return false;
    return Number(await this.redis.eval(DELETE_IF_SAME, 1, k, stored)) === 1;
  }
}

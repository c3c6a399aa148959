import type { Redis } from 'ioredis';
import { BoundedMap } from '../../lib/bounded-map.js';

/** Where a session is pinned: the channel, its key, and the model the channel was asked for (after its mapping). */
export interface AffinityPin {
  channelId: number;
  keyIndex: number;
  /** The mapped model when the pin was made: a changed model_mapping drops the pin. */
  model: string;
}

/**
 * The pins of sessions (AffinityMatch.key → AffinityPin), kept for their rule's TTL: in this process, or in Redis
 * so every node sends a session to the same channel and key.
 */
export interface AffinityStore {
  get(key: string): AffinityPin | undefined | Promise<AffinityPin | undefined>;
  set(key: string, pin: AffinityPin, ttlMs: number): void;
  delete(key: string): void;
  /** Every live key (as set, without any prefix): statistics. */
  keys(): Promise<string[]>;
  /** Deletes the keys that start with `prefix` ('' for all); answers how many. */
  clear(prefix: string): Promise<number>;
  /** Entries one node holds at most; 0 when the store has no such cap (Redis). */
  readonly capacity: number;
  readonly algorithm: string;
}

const encodePin = (p: AffinityPin): string => `${p.channelId}:${p.keyIndex}:${p.model}`;

function decodePin(text: string | null): AffinityPin | undefined {
  if (!text) return undefined;
  const first = text.indexOf(':');
  const second = text.indexOf(':', first + 1);
  if (first < 0 || second < 0) return undefined;
  const channelId = Number(text.slice(0, first));
  const keyIndex = Number(text.slice(first + 1, second));
  if (!Number.isInteger(channelId) || !Number.isInteger(keyIndex)) return undefined;
  return { channelId, keyIndex, model: text.slice(second + 1) };
}

/** One node's pins: bounded by channel_affinity_setting.max_entries, least recently used dropped first. */
export class MemoryAffinityStore implements AffinityStore {
  private readonly pins: BoundedMap<string, AffinityPin>;
  readonly algorithm = 'lru';

  constructor(readonly capacity: number) {
    this.pins = new BoundedMap({ maxEntries: capacity });
  }

  get(key: string): AffinityPin | undefined {
    return this.pins.get(key);
  }

  set(key: string, pin: AffinityPin, ttlMs: number): void {
    this.pins.set(key, pin, ttlMs);
  }

  delete(key: string): void {
    this.pins.delete(key);
  }

  keys(): Promise<string[]> {
    return Promise.resolve([...this.pins.entries()].map(([key]) => key));
  }

  clear(prefix: string): Promise<number> {
    let n = 0;
    for (const key of [...this.pins.keys()]) {
      if (!key.startsWith(prefix)) continue;
      this.pins.delete(key);
      n++;
    }
    return Promise.resolve(n);
  }
}

const SCAN_BATCH = 1000;
/** Glob characters of Redis' MATCH escaped, so a prefix matches as written. */
const globEscape = (s: string): string => s.replace(/[*?[\]\\]/g, '\\$&');

/** The pins of the cluster in Redis, each a key with its TTL; a node reads a pin another made. */
export class RedisAffinityStore implements AffinityStore {
  private readonly prefix: string;
  readonly capacity = 0;
  readonly algorithm = 'redis-ttl';

  constructor(
    private readonly redis: Redis,
    keyPrefix: string,
  ) {
    this.prefix = `${keyPrefix}affinity:`;
  }

  async get(key: string): Promise<AffinityPin | undefined> {
    return decodePin(await this.redis.get(this.prefix + key));
  }

  set(key: string, pin: AffinityPin, ttlMs: number): void {
    this.redis.set(this.prefix + key, encodePin(pin), 'PX', ttlMs).catch(() => undefined);
  }

  delete(key: string): void {
    this.redis.unlink(this.prefix + key).catch(() => undefined);
  }

  private async scan(prefix: string, each: (keys: string[]) => Promise<void>): Promise<void> {
    let cursor = '0';
    const match = `${globEscape(this.prefix + prefix)}*`;
    do {
      const [next, found] = await this.redis.scan(cursor, 'MATCH', match, 'COUNT', SCAN_BATCH);
      cursor = next;
      if (found.length) await each(found);
    } while (cursor !== '0');
  }

  async keys(): Promise<string[]> {
    const out: string[] = [];
    await this.scan('', async (found) => {
      for (const k of found) out.push(k.slice(this.prefix.length));
    });
    return out;
  }

  async clear(prefix: string): Promise<number> {
    let n = 0;
    await this.scan(prefix, async (found) => {
      n += await this.redis.unlink(...found);
    });
    return n;
  }
}

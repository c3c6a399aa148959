import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ConfigError } from '../config.js';
import { countStorageError } from './metrics.js';

type Handler = (message: string) => void;

/**
 * Cache invalidation between nodes over Redis pub/sub. Without Redis it is local only and other nodes
 * catch up on their SYNC_FREQUENCY reload.
 */
export interface ClusterBus {
  publish(topic: string, message?: string): Promise<void>;
  subscribe(topic: string, handler: Handler): void;
  close(): Promise<void>;
}

export class LocalBus implements ClusterBus {
  async publish(): Promise<void> {}
  subscribe(): void {}
  async close(): Promise<void> {}
}

export class RedisBus implements ClusterBus {
  private readonly handlers = new Map<string, Handler[]>();
  private readonly nodeId = `${process.pid}-${Math.random().toString(36).slice(2)}`;

  constructor(
    private readonly pub: Redis,
    private readonly sub: Redis,
    private readonly prefix: string,
    log: Logger,
  ) {
    sub.on('message', (channel: string, raw: string) => {
      const topic = channel.slice(prefix.length + 4);
      const sep = raw.indexOf('|');
      if (raw.slice(0, sep) === this.nodeId) return;
      for (const h of this.handlers.get(topic) ?? []) {
        try {
          h(raw.slice(sep + 1));
        } catch (err) {
          log.warn({ err, topic }, 'cluster bus handler failed');
        }
      }
    });
  }

  async publish(topic: string, message = ''): Promise<void> {
    await this.pub.publish(`${this.prefix}bus:${topic}`, `${this.nodeId}|${message}`);
  }

  subscribe(topic: string, handler: Handler): void {
    const list = this.handlers.get(topic);
    if (list) list.push(handler);
    else {
      this.handlers.set(topic, [handler]);
      void this.sub.subscribe(`${this.prefix}bus:${topic}`);
    }
  }

  async close(): Promise<void> {
    this.sub.disconnect();
  }
}

/**
 * The bus over `redis`: publishing on it, subscribing on a second connection of its own, connected (ready check
 * done) before the first SUBSCRIBE, so no ordinary command ever reaches it once it is in subscriber mode.
 */
export async function connectRedisBus(redis: Redis, prefix: string, log: Logger): Promise<RedisBus> {
  const sub = redis.duplicate();
  sub.on('error', (err: Error) => {
    countStorageError('redis', 'subscriber');
    log.warn({ err: err.message }, 'redis subscriber connection error');
  });
  await sub.connect();
  return new RedisBus(redis, sub, prefix, log);
}

/**
 * How Tollway's Redis client runs. Auto-pipelining sends the commands of one event-loop turn (the reservations and
 * settlements of every call in it) in one write, and Redis answers them in one read: under load that halves the
 * relay's CPU spent on Redis I/O and Redis's own.
 */
export const REDIS_CLIENT_OPTIONS = {
  maxRetriesPerRequest: 2,
  enableOfflineQueue: true,
  enableAutoPipelining: true,
} as const;

/** Connects to Redis and checks it answers; a failure names REDIS_CONN_STRING. */
export async function connectRedis(conn: string): Promise<Redis> {
  const redis = new Redis(conn, { lazyConnect: true, ...REDIS_CLIENT_OPTIONS });
  redis.on('error', () => countStorageError('redis', 'connection'));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new ConfigError('REDIS_CONN_STRING', `cannot connect to Redis: ${(err as Error).message}`);
  }
  return redis;
}

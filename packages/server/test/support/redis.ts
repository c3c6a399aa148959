import crypto from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis the cluster tests share; TEST_REDIS_URL overrides it. */
export const TEST_REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A REDIS_KEY_PREFIX of a suite's own, so suites never see each other's keys. */
export function newRedisPrefix(): string {
  return `tollway-test-${crypto.randomBytes(4).toString('hex')}:`;
}

/** Deletes every key under `prefix` (a suite's cleanup). */
export async function dropRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(TEST_REDIS);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
}

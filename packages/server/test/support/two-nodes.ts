import { afterAll, beforeAll } from 'vitest';
import { startTestApp, type TestApp } from './app.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from './redis.js';

/** Two nodes of one cluster: a shared PostgreSQL database and a shared Redis prefix. */
export interface TwoNodes {
  a: TestApp;
  b: TestApp;
  database: TestDatabase;
  prefix: string;
}

/**
 * Two nodes started in beforeAll and closed (database dropped, Redis keys removed) in afterAll. SYNC_FREQUENCY is
 * far away unless `env` says otherwise, so only the Redis bus can carry a change in time. The returned object is
 * filled in beforeAll; `ready` runs once it is.
 */
export function useTwoNodes(
  env: Record<string, string> = {},
  ready?: (nodes: TwoNodes) => unknown,
  timeout?: number,
): TwoNodes {
  const nodes: Partial<TwoNodes> = { prefix: newRedisPrefix() };
  beforeAll(async () => {
    nodes.database = await createTestDatabase('postgres');
    const nodeEnv = { REDIS_CONN_STRING: TEST_REDIS, REDIS_KEY_PREFIX: nodes.prefix!, SYNC_FREQUENCY: '3600', ...env };
    nodes.a = await startTestApp('postgres', nodeEnv, nodes.database);
    nodes.b = await startTestApp('postgres', nodeEnv, nodes.database);
    await ready?.(nodes as TwoNodes);
  }, timeout);
  afterAll(async () => {
    await nodes.a?.close();
    await nodes.b?.close();
    await nodes.database?.drop();
    await dropRedisKeys(nodes.prefix!);
  });
  return nodes as TwoNodes;
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.js';
import { metricsText } from '../../src/lib/metrics.js';
import { parseSamples, sampleValue } from '../support/prometheus-text.js';
import { WRITER_MAX_BACKLOG, WRITER_MAX_LAG_MS, writerHealthy } from '../../src/observability/health.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from '../support/redis.js';

const get = (t: TestApp, url: string) => t.app.inject({ method: 'GET', url });

describe('GET /healthz and /readyz', () => {
  let plain: TestApp;
  let clustered: TestApp;
  const prefix = newRedisPrefix();
  beforeAll(async () => {
    plain = await startTestApp('sqlite');
    clustered = await startTestApp('sqlite', { REDIS_CONN_STRING: TEST_REDIS, REDIS_KEY_PREFIX: prefix });
  });
  afterAll(async () => {
    await plain?.close();
    await clustered?.close();
    await dropRedisKeys(prefix);
  });

  it('answers liveness without authentication or I/O', async () => {
    const res = await get(plain, '/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('is ready with the database and writer healthy, Redis checked only when configured', async () => {
    const alone = await get(plain, '/readyz');
    expect(alone.statusCode).toBe(200);
    expect(alone.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'skipped', writer: 'ok' } });
    const withRedis = await get(clustered, '/readyz');
    expect(withRedis.statusCode).toBe(200);
    expect(withRedis.json()).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok', writer: 'ok' } });
  });

  it('reads the real writer: a queued record is backlog until its batch commits', async () => {
    const writer = plain.runtime.ctx.relay.writer;
    expect(writer.health()).toMatchObject({ backlog: 0, lagMs: 0 });
    writer.enqueue({ userId: 1, tokenId: 0, tokenLimited: false, channelId: 0, quota: 0, countsRequest: false });
    expect(writer.health().backlog).toBe(1);
    await writer.flush();
    expect(writer.health()).toMatchObject({ backlog: 0, lagMs: 0, failures: 0 });
  });

  it('calls a writer unhealthy past its lag or backlog bound', () => {
    expect(writerHealthy({ backlog: 0, lagMs: 0, failures: 0 })).toBe(true);
    expect(writerHealthy({ backlog: WRITER_MAX_BACKLOG, lagMs: WRITER_MAX_LAG_MS, failures: 2 })).toBe(true);
    expect(writerHealthy({ backlog: 0, lagMs: WRITER_MAX_LAG_MS + 1, failures: 5 })).toBe(false);
    expect(writerHealthy({ backlog: WRITER_MAX_BACKLOG + 1, lagMs: 0, failures: 0 })).toBe(false);
  });
});

describe.each(dialects)('/readyz with the database gone (%s)', (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    // The app's own handle on the database, closed by the test; the test database itself is dropped after.
    const own = await connectDatabase(database.dsn, '');
    t = await startTestApp(dialect, {}, { ...database, db: own, drop: async () => undefined });
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('is 503 naming the database, never its address or error, while liveness stays 200', async () => {
    expect((await get(t, '/readyz')).statusCode).toBe(200);
    const pingErrors = async () =>
      sampleValue(parseSamples(await metricsText()), 'tollway_storage_errors_total', { store: 'database', op: 'ping' });
    const errorsBefore = await pingErrors();
    await t.runtime.ctx.db.close();
    const res = await get(t, '/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'unavailable', checks: { database: 'down', redis: 'skipped', writer: 'ok' } });
    expect(res.body).not.toMatch(/127\.0\.0\.1|destroyed|closed|postgres|mysql|sqlite/i);
    expect((await pingErrors()) - errorsBefore).toBe(1);
    expect((await get(t, '/healthz')).statusCode).toBe(200);
  });
});

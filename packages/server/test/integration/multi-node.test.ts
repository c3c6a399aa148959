import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { addChannel, addToken, drainWriter, listen, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from '../support/redis.js';

/** Two nodes sharing one PostgreSQL database, one Redis and one SESSION_SECRET. */
describe('two nodes with shared database and Redis', () => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let mock: MockUpstream;
  const prefix = newRedisPrefix();
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const env = {
      REDIS_CONN_STRING: TEST_REDIS,
      REDIS_KEY_PREFIX: prefix,
      CRITICAL_RATE_LIMIT: '6',
      SYNC_FREQUENCY: '3600',
    };
    a = await startTestApp('postgres', env, database);
    b = await startTestApp('postgres', env, database);
    mock = await startMockUpstream({ record: false });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await mock?.close();
    await database?.drop();
    await dropRedisKeys(prefix);
  });

  it('a session made on one node works on the other', async () => {
    const onA = await setupRoot(a.app);
    const onB = new Client(b.app);
    onB.cookie = onA.cookie;
    onB.userId = onA.userId;
    const me = await onB.call<{ username: string }>('GET', '/api/user/self');
    expect(me.body.data!.username).toBe('root');
  });

  it('an option saved on one node takes effect on the other at once (Redis invalidation, not the hourly sync)', async () => {
    const root = new Client(a.app);
    await root.login('root', 'root-pass-123');
    expect((await root.call('PUT', '/api/option/', { key: 'SystemName', value: 'Cluster Name' })).body.success).toBe(
      true,
    );
    const anon = new Client(b.app);
    let name = '';
    for (let i = 0; i < 200 && name !== 'Cluster Name'; i++) {
      name = (await anon.call<{ system_name: string }>('GET', '/api/status')).body.data!.system_name;
      if (name !== 'Cluster Name') await new Promise((r) => setTimeout(r, 50));
    }
    expect(name).toBe('Cluster Name');
  });

  it('the critical rate limit is counted across nodes', async () => {
    const answers: { status: number; success?: boolean }[] = [];
    for (let i = 0; i < 8; i++) {
      const app = i % 2 === 0 ? a.app : b.app;
      const res = await app.inject({
        method: 'POST',
        url: '/api/user/login',
        remoteAddress: '10.9.9.9',
        payload: { username: 'root', password: 'bad-password' },
      });
      answers.push({
        status: res.statusCode,
        success: res.statusCode === 200 ? (res.json() as { success: boolean }).success : undefined,
      });
    }
    // A wrong password is a refusal (200, success:false) until the shared limit answers 429.
    expect(answers.slice(0, 6)).toEqual(Array(6).fill({ status: 200, success: false }));
    expect(answers.slice(6).map((x) => x.status)).toEqual([429, 429]);
  });

  it('reserves quota atomically across both nodes: 100 calls split over two nodes, quota for 20 → exactly 20 served', async () => {
    const root = new Client(a.app);
    await root.login('root', 'root-pass-123');
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ 'cluster-model': 0.001 }) });
    await addChannel(root, { name: 'cluster', key: 'cluster-key', baseUrl: mock.url, models: 'cluster-model' });
    const u = await createUserClient(a.app, root, 'cluster-user');
    await setQuota(root, u.userId!, 20 * 500);
    const { key } = await addToken(a, u.userId!, {});
    const [baseA, baseB] = [await listen(a), await listen(b)];
    // Node B learns about the channel through the bus.
    for (let i = 0; i < 100 && !b.runtime.ctx.channelCache.hasModel('default', 'cluster-model'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const call = (base: string) =>
      fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'cluster-model', messages: [{ role: 'user', content: 'hi' }] }),
      }).then((r) => r.status);
    const statuses = await Promise.all(Array.from({ length: 100 }, (_, i) => call(i % 2 ? baseA : baseB)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    await drainWriter(a);
    await drainWriter(b);
    const row = await database.db.kysely
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', u.userId!)
      .executeTakeFirstOrThrow();
    expect({ quota: Number(row.quota), used: Number(row.used_quota) }).toEqual({ quota: 0, used: 10_000 });

    // An admin top-up on node A is spendable on node B at once.
    await setQuota(root, u.userId!, 1000);
    expect(await call(baseB)).toBe(200);
    expect(await call(baseB)).toBe(200);
    expect(await call(baseB)).toBe(403);
  });
});

import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { balanceMetrics } from '../../src/accounting/balance-metrics.js';
import type { RedisLedger } from '../../src/accounting/redis-ledger.js';
import { createUserClient, setupRoot, type Client, type TestApp } from '../support/app.js';
import { addChannel, addToken, drainWriter, listen, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { TEST_REDIS } from '../support/redis.js';
import { useTwoNodes } from '../support/two-nodes.js';

const CALLS = 80;
const MODEL = 'nodes-model';
const USER_QUOTA = 5_000_000;
const TOKEN_QUOTA = 4_000_000;

const ledgerOf = (t: TestApp) => t.runtime.ctx.relay.ledger as RedisLedger;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Redis ledger on two real nodes', () => {
  let mock: MockUpstream;
  let root: Client;
  let userId: number;
  let token: { key: string; id: number };
  let bases: string[];
  const nodes = useTwoNodes({}, async ({ a, b }) => {
    mock = await startMockUpstream({ record: false });
    mock.behaviors.set('slow-key', { delayMs: 15 });
    root = await setupRoot(a.app);
    await root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ [MODEL]: 2 }) });
    await addChannel(root, { name: 'nodes', key: 'slow-key', baseUrl: mock.url, models: MODEL });
    const u = await createUserClient(a.app, root, 'nodes-user');
    userId = u.userId!;
    await setQuota(root, userId, USER_QUOTA);
    token = await addToken(a, userId, { remainQuota: TOKEN_QUOTA });
    bases = [await listen(a), await listen(b)];
    for (let i = 0; i < 100 && !b.runtime.ctx.channelCache.hasModel('default', MODEL); i++) await sleep(50);
    for (const t of [a, b]) await ledgerOf(t).start();
  });
  // Before the nodes close (after hooks run last registered first).
  afterAll(async () => {
    for (const t of [nodes.a, nodes.b]) if (t) await ledgerOf(t).stop();
    await mock?.close();
  });

  it('relayed calls on both nodes, an admin top-up and reconciliations in between leave Redis equal to the database', async () => {
    const { a, b, database, prefix } = nodes;
    const repairs = (await balanceMetrics.repairs.get()).values.reduce((n, v) => n + v.value, 0);
    let calling = true;
    const reconciling = (async () => {
      for (let i = 0; calling; i++) {
        await ledgerOf(i % 2 ? a : b).tick();
        await sleep(2);
      }
    })();
    const call = (i: number) =>
      fetch(`${bases[i % 2]}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: MODEL,
          max_tokens: 50 + i,
          stream: i % 3 === 0,
          messages: [{ role: 'user', content: `call ${i}` }],
        }),
      }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    const first = await Promise.all(Array.from({ length: CALLS / 2 }, (_, i) => call(i)));
    const [statuses] = await Promise.all([
      Promise.all(Array.from({ length: CALLS / 2 }, (_, i) => call(CALLS / 2 + i))),
      setQuota(root, userId, USER_QUOTA * 2),
    ]);
    calling = false;
    await reconciling;
    expect([...first, ...statuses].every((s) => s === 200)).toBe(true);
    for (const t of [a, b]) {
      await drainWriter(t);
      await ledgerOf(t).whenReleased();
    }

    const redis = new Redis(TEST_REDIS);
    try {
      const k = database.db.kysely;
      const user = Number(
        (await k.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota,
      );
      const tok = Number(
        (await k.selectFrom('tokens').select('remain_quota').where('id', '=', token.id).executeTakeFirstOrThrow())
          .remain_quota,
      );
      expect(user).toBeLessThan(USER_QUOTA * 2);
      expect(tok).toBeLessThan(TOKEN_QUOTA);
      const [hu, ht] = [
        await redis.hgetall(`${prefix}bal:u:${userId}`),
        await redis.hgetall(`${prefix}bal:t:${token.id}`),
      ];
      const held = (h: Record<string, string>) =>
        Object.entries(h)
          .filter(([f]) => f.startsWith('o:') || f.startsWith('c:'))
          .reduce((n, [, v]) => n + Number(v), 0);
      expect({ user: Number(hu.b), token: Number(ht.b), held: held(hu) + held(ht) }).toEqual({
        user,
        token: tok,
        held: 0,
      });
      expect((await balanceMetrics.repairs.get()).values.reduce((n, v) => n + v.value, 0)).toBe(repairs);
    } finally {
      redis.disconnect();
    }
  });
});

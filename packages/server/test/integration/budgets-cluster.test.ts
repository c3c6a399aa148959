import { Redis } from 'ioredis';
import { Agent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupRoot, type Client, type TestApp } from '../support/app.js';
import { concurrently, createBudget, spent, taggedCall } from '../support/budgets.js';
import { addChannel, drainWriter, listen } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { startMockWebhook, TEST_TLS_CERT, type MockWebhook } from '../support/mock-webhook.js';
import { insertOrg, insertOrgToken } from '../support/org-rows.js';
import { FIXED_MODEL, PER_CALL } from '../support/period-limits.js';
import { TEST_REDIS } from '../support/redis.js';
import { useTwoNodes } from '../support/two-nodes.js';

const LIMIT = 7 * PER_CALL + PER_CALL / 2;

/** Waits until `check` holds. */
async function until(check: () => Promise<boolean> | boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Two nodes sharing PostgreSQL and Redis count one budget together. */
describe('organization budgets across two nodes with Redis', () => {
  let a: TestApp, b: TestApp, mock: MockUpstream, root: Client, baseA: string, baseB: string, prefix: string;
  let hook: MockWebhook, previousDispatcher: Dispatcher;
  beforeAll(async () => {
    hook = await startMockWebhook();
    // The receiver is https with the test certificate on 127.0.0.1: trusted, and the outbound guard told to allow it.
    previousDispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new Agent({ connect: { ca: TEST_TLS_CERT } }));
  });
  useTwoNodes({}, async (nodes) => {
    ({ a, b, prefix } = nodes);
    mock = await startMockUpstream({ record: false });
    root = await setupRoot(a.app);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [FIXED_MODEL]: 0.001 }) });
    await root.call('PUT', '/api/option/', { key: 'fetch_setting.allow_private_ip', value: 'true' });
    await root.call('PUT', '/api/option/', { key: 'fetch_setting.allowed_ports', value: '[]' });
    await addChannel(root, { name: 'shared', key: 'shared-key', baseUrl: mock.url, models: FIXED_MODEL });
    baseA = await listen(a);
    baseB = await listen(b);
    await until(() => b.runtime.ctx.channelCache.hasModel('default', FIXED_MODEL));
    await until(() => b.runtime.ctx.options.json<Record<string, number>>('ModelPrice')[FIXED_MODEL] === 0.001);
    await until(() => b.runtime.ctx.options.get('fetch_setting.allowed_ports') === '[]');
  });
  afterAll(async () => {
    setGlobalDispatcher(previousDispatcher);
    await mock?.close();
    await hook?.close();
  });

  /** Whether node `n` holds the token with a budget (a budget change reaches it through the bus). */
  const hasBudgets = async (n: TestApp, key: string) =>
    (await n.runtime.ctx.relay.tokens.get(key.slice(3)))?.periods?.budgets !== undefined;

  it('100 concurrent calls over both nodes share one budget exactly; a budget made on A reaches B', async () => {
    const org = await insertOrg(a, 'cluster', { quota: 100_000_000 });
    const token = await insertOrgToken(a, org, 0);
    // Both nodes hold the token before the budget exists.
    expect((await taggedCall(baseA, token.key)).status).toBe(200);
    expect((await taggedCall(baseB, token.key)).status).toBe(200);
    // Their logs are written (a budget's counter starts from the logs as written when it is first used).
    await until(async () => {
      await drainWriter(b);
      return (await spent(a, org.walletUserId)) === 2 * PER_CALL;
    });
    await createBudget(root, org.orgId, { level: 'org', period: 'day', limit_quota: LIMIT });
    await until(() => hasBudgets(b, token.key));
    let i = 0;
    const { statuses } = await concurrently(100, () => taggedCall(i++ % 2 ? baseA : baseB, token.key));
    // The two calls before the budget count in its day (seeded from the logs).
    const served = Math.floor(LIMIT / PER_CALL) - 2;
    expect(statuses.filter((s) => s === 200)).toHaveLength(served);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100 - served);
    // Every served call is charged once it is written (each node's writer commits its own settlements).
    await until(async () => {
      await drainWriter(b);
      return (await spent(a, org.walletUserId)) === (served + 2) * PER_CALL;
    });
    await new Promise((r) => setTimeout(r, 200));
    await drainWriter(b);
    expect(await spent(a, org.walletUserId)).toBe((served + 2) * PER_CALL);
  });

  it('a budget counter deleted from Redis mid-period starts again from the logs', async () => {
    const org = await insertOrg(a, 'heal', { quota: 100_000_000 });
    const token = await insertOrgToken(a, org, 0);
    await createBudget(root, org.orgId, { level: 'org', period: 'month', limit_quota: 5 * PER_CALL });
    for (const base of [baseA, baseB, baseA]) expect((await taggedCall(base, token.key)).status).toBe(200);
    await drainWriter(a);
    await drainWriter(b);
    const redis = new Redis(TEST_REDIS);
    try {
      const keys = await redis.keys(`${prefix}pl:budget:*:org:0:month:*`);
      const ours: string[] = [];
      for (const k of keys) if ((await redis.get(k)) === String(3 * PER_CALL)) ours.push(k);
      expect(ours).toHaveLength(1);
      // Every settled call is in the logs (a settlement is queued just after its answer ends).
      await until(async () => {
        await drainWriter(b);
        return (await spent(a, org.walletUserId)) === 3 * PER_CALL;
      });
      await redis.del(ours[0]!);
      // Two more fit (3 already in the logs), then the budget refuses on either node.
      expect((await taggedCall(baseB, token.key)).status).toBe(200);
      expect(await redis.get(ours[0]!)).toBe(String(4 * PER_CALL));
      expect((await taggedCall(baseA, token.key)).status).toBe(200);
      expect((await taggedCall(baseB, token.key)).status).toBe(429);
      expect((await taggedCall(baseA, token.key)).status).toBe(429);
    } finally {
      redis.disconnect();
    }
    await until(async () => {
      await drainWriter(b);
      return (await spent(a, org.walletUserId)) === 5 * PER_CALL;
    });
  });

  it('a soft budget counted on both nodes alerts once per threshold, from one node', async () => {
    const org = await insertOrg(a, 'cluster-soft', { quota: 100_000_000, webhookUrl: hook.url, webhookSecret: 's' });
    const token = await insertOrgToken(a, org, 0);
    const budget = await createBudget(root, org.orgId, {
      level: 'org',
      period: 'week',
      limit_quota: 10 * PER_CALL,
      hard: false,
      alert_percents: [20, 50, 100],
      alert_email: false,
      alert_webhook: true,
    });
    let i = 0;
    const { statuses } = await concurrently(40, () => taggedCall(i++ % 2 ? baseA : baseB, token.key));
    expect(statuses.every((s) => s === 200)).toBe(true);
    const ours = () => hook.hooks.filter((h) => h.body.budget_id === budget.id).map((h) => Number(h.body.percent));
    await until(() => ours().length === 3);
    await new Promise((r) => setTimeout(r, 300));
    expect(ours().sort((x, y) => x - y)).toEqual([20, 50, 100]);
  });
});

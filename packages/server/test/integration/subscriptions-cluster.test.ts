import { afterAll, describe, expect, it } from 'vitest';
import { SubscriptionPeriods } from '../../src/modules/subscriptions/periods.js';
import { setupRoot, type Client, type TestApp } from '../support/app.js';
import { addChannel, drainWriter, listen, setQuota, userQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { FIXED_MODEL, limitedToken, openaiCall, PER_CALL } from '../support/period-limits.js';
import { bindPlan, createPlan, subscriptionRow } from '../support/subscriptions.js';
import { useTwoNodes } from '../support/two-nodes.js';

const waitFor = async (what: () => boolean) => {
  for (let i = 0; i < 100 && !what(); i++) await new Promise((r) => setTimeout(r, 50));
};

/** Both nodes have settled every call they answered and committed the charges. */
const settled = async (...nodes: TestApp[]) => {
  await waitFor(() => nodes.every((n) => n.runtime.ctx.relay.writer.health().openCalls === 0));
  for (const n of nodes) await drainWriter(n);
};

/** Two nodes sharing PostgreSQL and Redis draw on one plan balance. */
describe('subscription plans across two nodes with Redis', () => {
  let a: TestApp, b: TestApp, mock: MockUpstream, root: Client, baseA: string, baseB: string;
  useTwoNodes({}, async (nodes) => {
    ({ a, b } = nodes);
    mock = await startMockUpstream({ record: false });
    root = await setupRoot(a.app);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [FIXED_MODEL]: 0.001 }) });
    await addChannel(root, { name: 'shared', key: 'shared-key', baseUrl: mock.url, models: FIXED_MODEL });
    baseA = await listen(a);
    baseB = await listen(b);
    await waitFor(() => b.runtime.ctx.channelCache.hasModel('default', FIXED_MODEL));
    await waitFor(() => b.runtime.ctx.options.json<Record<string, number>>('ModelPrice')[FIXED_MODEL] === 0.001);
  });
  afterAll(async () => mock?.close());

  it('20 concurrent calls over both nodes on a plan for 7 and a wallet for 5 (each preference): no overdraft', async () => {
    for (const preference of ['subscription_first', 'wallet_first'] as const) {
      const { user, key } = await limitedToken(a, root, `cl-${preference.slice(0, 8)}`, {});
      await setQuota(root, user.userId!, 5 * PER_CALL);
      const plan = await createPlan(root, { title: `Cluster ${preference}`, total_amount: 7 * PER_CALL });
      const sub = await bindPlan(root, user.userId!, plan.id);
      await user.call('PUT', '/api/subscription/self/preference', { billing_preference: preference });
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => openaiCall(i % 2 ? baseA : baseB, key).then((r) => r.status)),
      );
      expect(
        statuses.filter((s) => s === 200),
        preference,
      ).toHaveLength(12);
      await settled(a, b);
      expect(Number((await subscriptionRow(a, sub.id)).amount_used)).toBe(7 * PER_CALL);
      expect(await userQuota(a, user.userId!)).toBe(0);
    }
  });

  it("a period reset on one node refills the plan for the other node's calls", async () => {
    const { user, key } = await limitedToken(a, root, 'cluster-reset', {});
    await setQuota(root, user.userId!, 0);
    const plan = await createPlan(root, {
      title: 'Cluster daily',
      total_amount: PER_CALL,
      quota_reset_period: 'daily',
    });
    const sub = await bindPlan(root, user.userId!, plan.id);
    const first = await openaiCall(baseB, key);
    expect(first.status, await first.text()).toBe(200);
    expect((await openaiCall(baseB, key)).status).toBe(403);
    await settled(a, b);
    const done = await new SubscriptionPeriods(a.runtime.ctx).runOnce(sub.next_reset_time);
    expect(done.reset).toBeGreaterThanOrEqual(1);
    expect((await openaiCall(baseB, key)).status).toBe(200);
    await settled(a, b);
    expect(Number((await subscriptionRow(a, sub.id)).amount_used)).toBe(PER_CALL);
  });
});

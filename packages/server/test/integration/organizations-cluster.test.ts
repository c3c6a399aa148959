import { afterAll, describe, expect, it } from 'vitest';
import { createUserClient, setupRoot, type Client, type TestApp } from '../support/app.js';
import { addChannel, listen, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { createOrg, join, ok, orgToken } from '../support/orgs.js';
import { FIXED_MODEL, openaiCall, PER_CALL } from '../support/period-limits.js';
import { useTwoNodes } from '../support/two-nodes.js';

/** Polls until `check` holds (the bus carries a change to the other node within moments), at most ~5 s. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/**
 * Two nodes sharing PostgreSQL and Redis: what one node decides about an organization (a member leaving, the
 * organization disabled, a role taken away) holds on the other at once, for its management routes and its tokens.
 */
describe('organizations across two nodes with Redis', () => {
  let a: TestApp, b: TestApp, mock: MockUpstream, root: Client, baseB: string;
  let owner: Client, member: Client, memberOnB: Client;
  useTwoNodes({}, async (nodes) => {
    ({ a, b } = nodes);
    mock = await startMockUpstream({ record: false });
    root = await setupRoot(a.app);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [FIXED_MODEL]: 0.001 }) });
    await addChannel(root, { name: 'shared', key: 'shared-key', baseUrl: mock.url, models: FIXED_MODEL });
    await listen(a);
    baseB = await listen(b);
    owner = await createUserClient(a.app, root, 'c-owner');
    member = await createUserClient(a.app, root, 'c-member');
    // The same person's session, used against node B.
    memberOnB = await createUserClient(b.app, root, 'c-member-b');
    for (let i = 0; i < 100 && !b.runtime.ctx.channelCache.hasModel('default', FIXED_MODEL); i++)
      await new Promise((r) => setTimeout(r, 50));
    for (
      let i = 0;
      i < 100 && b.runtime.ctx.options.json<Record<string, number>>('ModelPrice')[FIXED_MODEL] !== 0.001;
      i++
    )
      await new Promise((r) => setTimeout(r, 50));
  });
  afterAll(async () => mock?.close());

  it("a member removed on one node: their token stops on the other, and the other node's routes refuse them", async () => {
    const org = await createOrg(owner, 'Cluster');
    await setQuota(root, org.wallet_user_id, 100 * PER_CALL);
    await join(owner, member, org.id, 'member');
    await join(owner, memberOnB, org.id, 'admin');
    const tok = await orgToken(member, org.id, { name: 'm' });
    expect((await openaiCall(baseB, `sk-${tok.key}`)).status).toBe(200);

    await ok(owner, 'DELETE', `/api/org/${org.id}/members/${member.userId}`);
    expect(await eventually(async () => (await openaiCall(baseB, `sk-${tok.key}`)).status !== 200)).toBe(true);

    // A role taken away on node A is refused by node B's routes at once (membership is read per call).
    expect((await memberOnB.call('GET', `/api/org/${org.id}/invitations`)).body.success).toBe(true);
    await ok(owner, 'PUT', `/api/org/${org.id}/members/${memberOnB.userId}`, { role: 'viewer' });
    const after = await memberOnB.call('GET', `/api/org/${org.id}/invitations`);
    expect(after.body).toMatchObject({ success: false, code: 'org_forbidden' });
  });

  it('an organization disabled on one node: its tokens stop on the other', async () => {
    const org = await createOrg(owner, 'Frozen');
    await setQuota(root, org.wallet_user_id, 100 * PER_CALL);
    const tok = await orgToken(owner, org.id, { name: 'o' });
    expect((await openaiCall(baseB, `sk-${tok.key}`)).status).toBe(200);
    await ok(root, 'PUT', `/api/org/${org.id}/status`, { status: 2 });
    expect(await eventually(async () => (await openaiCall(baseB, `sk-${tok.key}`)).status !== 200)).toBe(true);
    await ok(root, 'PUT', `/api/org/${org.id}/status`, { status: 1 });
    expect(await eventually(async () => (await openaiCall(baseB, `sk-${tok.key}`)).status === 200)).toBe(true);
  });
});

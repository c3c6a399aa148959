import { describe, expect, it } from 'vitest';
import { Client, ROOT, setupRoot, type TestApp } from '../support/app.js';
import { useTwoNodes } from '../support/two-nodes.js';

const CHANNEL_KEY = 'sk-cluster-reveal-0123456789abcdef';

/** Two nodes sharing PostgreSQL and Redis: a session verified on one node may read a channel key on the other. */
describe('channel key reveal across nodes', () => {
  let a: TestApp, b: TestApp, rootA: Client, channelId: number;
  useTwoNodes({}, async (nodes) => {
    ({ a, b } = nodes);
    rootA = await setupRoot(a.app);
    const res = await rootA.call<{ ids: number[] }>('POST', '/api/channel/', {
      channel: { name: 'reveal', key: CHANNEL_KEY, models: 'gpt-4o' },
    });
    channelId = res.body.data!.ids[0]!;
  });

  it('verifying on node A lets the same session read the key on node B; another session stays refused', async () => {
    const rootB = new Client(b.app);
    rootB.cookie = rootA.cookie;
    rootB.userId = rootA.userId;
    const reveal = (c: Client) => c.call<{ key: string }>('POST', `/api/channel/${channelId}/key`, {});
    expect((await reveal(rootB)).body.success).toBe(false);
    expect(
      (await rootA.call('POST', '/api/verify', { method: 'password', password: ROOT.password })).body.success,
    ).toBe(true);
    expect((await reveal(rootB)).body).toMatchObject({ success: true, data: { key: CHANNEL_KEY } });
    const other = new Client(b.app);
    expect((await other.login(ROOT.username, ROOT.password)).body.success).toBe(true);
    expect((await reveal(other)).body.success).toBe(false);
  });
});

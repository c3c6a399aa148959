import { describe, expect, it } from 'vitest';
import { setupRoot, type Client, type TestApp } from '../support/app.js';
import { useTwoNodes } from '../support/two-nodes.js';

/** Two nodes sharing PostgreSQL and Redis: a channel change on one reroutes the other at once (bus topic 'channels'). */
describe('channel changes across nodes', () => {
  let a: TestApp;
  let b: TestApp;
  let root: Client;
  useTwoNodes({}, async (nodes) => {
    ({ a, b } = nodes);
    root = await setupRoot(a.app);
  });

  const until = async (check: () => boolean) => {
    for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
    return check();
  };

  it('create, disable and delete on node A are routed accordingly on node B without waiting for the sync', async () => {
    const res = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
      channel: { name: 'c', key: 'sk-cluster-0123456789abcdef', models: 'gpt-4o' },
    });
    const id = res.body.data!.ids[0]!;
    const cacheB = b.runtime.ctx.channelCache;
    expect(await until(() => cacheB.select('default', 'gpt-4o', new Set(), 0)?.id === id)).toBe(true);
    await root.call('PUT', '/api/channel/', { id, status: 2 });
    expect(await until(() => cacheB.modelsForGroup('default').length === 0)).toBe(true);
    await root.call('DELETE', `/api/channel/${id}`);
    expect(await until(() => cacheB.get(id) === undefined)).toBe(true);
  });
});

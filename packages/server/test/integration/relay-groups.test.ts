import type { TokenPublic } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, setupRoot, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter, listen } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { useTwoNodes } from '../support/two-nodes.js';

const MODEL = 'group-model';
const USABLE = JSON.stringify({ default: 'Default', vip: 'VIP' });
const DEFAULT_ONLY = JSON.stringify({ default: 'Default' });

/** One call in each protocol with the token; the status and parsed body of each. */
async function callAll(base: string, key: string) {
  const post = async (path: string, body: unknown, headers: Record<string, string>) => {
    const r = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: r.status, body: (await r.json()) as Record<string, any> };
  };
  const messages = [{ role: 'user', content: 'hi' }];
  return {
    openai: await post('/v1/chat/completions', { model: MODEL, messages }, { authorization: `Bearer ${key}` }),
    anthropic: await post(
      '/v1/messages',
      { model: MODEL, max_tokens: 16, messages },
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    ),
    gemini: await post(
      `/v1beta/models/${MODEL}:generateContent`,
      { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
      { 'x-goog-api-key': key },
    ),
  };
}

/** Every protocol refused the call with 403 in its own shape, naming the withdrawn group. */
function expectRefused(r: Awaited<ReturnType<typeof callAll>>, group: string) {
  expect(r.openai.status).toBe(403);
  expect(r.openai.body.error).toMatchObject({
    code: 'group_not_allowed',
    message: expect.stringContaining(`group ${group} is no longer available`),
  });
  expect(r.anthropic.status).toBe(403);
  expect(r.anthropic.body).toMatchObject({
    type: 'error',
    error: { type: 'permission_error', message: expect.stringContaining(group) },
  });
  expect(r.gemini.status).toBe(403);
  expect(r.gemini.body).toMatchObject({
    error: { code: 403, status: 'PERMISSION_DENIED', message: expect.stringContaining(group) },
  });
}

const served = (r: Awaited<ReturnType<typeof callAll>>) => [r.openai.status, r.anthropic.status, r.gemini.status];

describe.each(dialects)('a token pinned to a group that was withdrawn, on %s', (dialect) => {
  let t: TestApp, root: Client, base: string, mock: MockUpstream;
  const gw = useGateway(dialect, { users: ['vip-a', 'vip-b'] }, async (g) => {
    ({ t, root, base, mock } = g);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: 0.001 }) });
    await root.call('PUT', '/api/option/', { key: 'UserUsableGroups', value: USABLE });
    await addChannel(root, { name: 'both', key: 'group-key', baseUrl: mock.url, models: MODEL, group: 'default,vip' });
    for (const u of g.users) await root.call('PUT', '/api/user/', { id: u.userId, quota: 50_000_000 });
  });

  const tokenIn = async (user: Client, group: string) => {
    const res = await user.call<TokenPublic[]>('POST', '/api/token/', {
      name: `in-${group}`,
      group,
      unlimited_quota: true,
    });
    if (!res.body.success) throw new Error(res.body.message);
    return `sk-${res.body.data![0]!.key.replace(/^sk-/, '')}`;
  };
  const lastGroup = async (userId: number) => {
    await drainWriter(t);
    return (
      await t.database.db.kysely
        .selectFrom('logs')
        .select('group')
        .where('user_id', '=', userId)
        .where('type', '=', 2)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow()
    ).group;
  };

  it('is refused in every protocol once root removes the group from UserUsableGroups; unpinned tokens go on', async () => {
    const user = gw.users[0]!;
    const vip = await tokenIn(user, 'vip');
    const plain = await tokenIn(user, '');
    expect(served(await callAll(base, vip))).toEqual([200, 200, 200]);
    expect(await lastGroup(user.userId!)).toBe('vip');

    expect(
      (await root.call('PUT', '/api/option/', { key: 'UserUsableGroups', value: DEFAULT_ONLY })).body.success,
    ).toBe(true);
    const before = mock.requests.length;
    expectRefused(await callAll(base, vip), 'vip');
    expect(mock.requests.length).toBe(before);
    expect(served(await callAll(base, plain))).toEqual([200, 200, 200]);
    expect(await lastGroup(user.userId!)).toBe('default');

    // Offered again: the same token works again.
    await root.call('PUT', '/api/option/', { key: 'UserUsableGroups', value: USABLE });
    expect(served(await callAll(base, vip))).toEqual([200, 200, 200]);
  });

  it('is refused at once when an administrator moves the user out of the group (the cached user is dropped)', async () => {
    const user = gw.users[1]!;
    await root.call('PUT', '/api/option/', { key: 'UserUsableGroups', value: DEFAULT_ONLY });
    expect((await root.call('PUT', '/api/user/', { id: user.userId, group: 'vip' })).body.success).toBe(true);
    const vip = await tokenIn(user, 'vip');
    // Served and cached while the user is in vip.
    expect(served(await callAll(base, vip))).toEqual([200, 200, 200]);
    expect(await lastGroup(user.userId!)).toBe('vip');

    expect((await root.call('PUT', '/api/user/', { id: user.userId, group: 'default' })).body.success).toBe(true);
    expectRefused(await callAll(base, vip), 'vip');
    await root.call('PUT', '/api/option/', { key: 'UserUsableGroups', value: USABLE });
  });
});

/** Two nodes sharing PostgreSQL and Redis: a change made on one node refuses the token on the other at once. */
describe('a withdrawn group across two nodes with Redis', () => {
  let a: TestApp, b: TestApp, mock: MockUpstream, root: Client, baseB: string;
  useTwoNodes({}, async (nodes) => {
    ({ a, b } = nodes);
    mock = await startMockUpstream({ record: false });
    root = await setupRoot(a.app);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [MODEL]: 0.001 }) });
    await root.call('PUT', '/api/option/', { key: 'UserUsableGroups', value: DEFAULT_ONLY });
    await addChannel(root, { name: 'both', key: 'group-key', baseUrl: mock.url, models: MODEL, group: 'default,vip' });
    baseB = await listen(b);
    for (let i = 0; i < 100 && !b.runtime.ctx.channelCache.hasModel('vip', MODEL); i++)
      await new Promise((r) => setTimeout(r, 50));
  });
  // The nodes close first (hooks run in reverse), then the upstream.
  afterAll(async () => mock?.close());

  /** Calls on node B until `done` holds (the bus delivers within milliseconds; 5 s at most). */
  const untilOnB = async (key: string, done: (r: Awaited<ReturnType<typeof callAll>>) => boolean) => {
    let r = await callAll(baseB, key);
    for (let i = 0; i < 100 && !done(r); i++) {
      await new Promise((res) => setTimeout(res, 50));
      r = await callAll(baseB, key);
    }
    return r;
  };

  it('moving the user out of vip on node A refuses the token on node B; so does withdrawing the group', async () => {
    const user = await createUserClient(a.app, root, 'cluster-vip');
    await root.call('PUT', '/api/user/', { id: user.userId, quota: 50_000_000, group: 'vip' });
    const res = await user.call<TokenPublic[]>('POST', '/api/token/', {
      name: 'vip',
      group: 'vip',
      unlimited_quota: true,
    });
    const key = `sk-${res.body.data![0]!.key.replace(/^sk-/, '')}`;
    // Node B serves and caches the token (user in vip).
    expect(served(await callAll(baseB, key))).toEqual([200, 200, 200]);

    await root.call('PUT', '/api/user/', { id: user.userId, group: 'default' });
    expectRefused(await untilOnB(key, (r) => r.openai.status === 403), 'vip');

    // Back in vip (served on B again), then vip offered to all and withdrawn: B follows the option too.
    await root.call('PUT', '/api/user/', { id: user.userId, group: 'vip' });
    expect(served(await untilOnB(key, (r) => r.openai.status === 200))).toEqual([200, 200, 200]);
    await root.call('PUT', '/api/option/', { key: 'UserUsableGroups', value: USABLE });
    await root.call('PUT', '/api/user/', { id: user.userId, group: 'default' });
    expect(served(await untilOnB(key, (r) => r.openai.status === 200))).toEqual([200, 200, 200]);
    await root.call('PUT', '/api/option/', { key: 'UserUsableGroups', value: DEFAULT_ONLY });
    expectRefused(await untilOnB(key, (r) => r.openai.status === 403), 'vip');
  });
});

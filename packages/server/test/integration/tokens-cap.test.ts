import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';

const CAP = 3;

/** token_setting.max_user_tokens (new-api's name) caps how many tokens one user may hold. */
describe.each(dialects)('tokens per user on %s', (dialect) => {
  let t: TestApp, root: Client, user: Client;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    root = await setupRoot(t.app);
    user = await createUserClient(t.app, root, 'cap-user');
    expect(
      (await root.call('PUT', '/api/option/', { key: 'token_setting.max_user_tokens', value: CAP })).body,
    ).toMatchObject({ success: true });
  });
  afterAll(async () => t?.close());

  const create = (count: number, name = 'k') =>
    user.call<unknown>('POST', '/api/token/', {
      name,
      count,
      remain_quota: 0,
      unlimited_quota: true,
      expired_time: -1,
    });
  const total = async () =>
    (await user.call<{ total: number }>('GET', '/api/token/?p=1&page_size=50')).body.data!.total;

  it('refuses a creation that would pass the cap, counts deleted tokens out, and leaves other users alone', async () => {
    expect((await create(2)).body).toMatchObject({ success: true });
    const over = (await create(2)).body;
    expect(over.success).toBe(false);
    expect(over.message).toBe(`you can have at most ${CAP} tokens (you have 2); delete some first`);
    expect(await total()).toBe(2);
    expect((await create(1)).body).toMatchObject({ success: true });
    expect((await create(1)).body.success).toBe(false);
    const list = (await user.call<{ items: { id: number }[] }>('GET', '/api/token/?p=1&page_size=50')).body.data!.items;
    expect((await user.call('DELETE', `/api/token/${list[0]!.id}`)).body).toMatchObject({ success: true });
    expect((await create(1)).body).toMatchObject({ success: true });
    expect(await total()).toBe(CAP);
    expect(
      (
        await root.call('POST', '/api/token/', {
          name: 'root-own',
          count: 1,
          remain_quota: 0,
          unlimited_quota: true,
          expired_time: -1,
        })
      ).body,
    ).toMatchObject({
      success: true,
    });
  });
});

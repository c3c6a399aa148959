import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserClient, setupRoot, startTestApp, type Client, type TestApp } from '../support/app.js';
import { addChannel, addToken, drainWriter, listen, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

/** The console playground: POST /pg/chat/completions with the session, billed to the user's usable token. */
describe('playground', () => {
  let t: TestApp;
  let mock: MockUpstream;
  let root: Client;
  let user: Client;
  let base: string;
  beforeAll(async () => {
    mock = await startMockUpstream();
    t = await startTestApp('sqlite');
    root = await setupRoot(t.app);
    user = await createUserClient(t.app, root, 'pg-user');
    await setQuota(root, user.userId!, 5_000_000);
    await addChannel(root, { name: 'default-ch', key: 'k', baseUrl: mock.url, models: 'gpt-4o-mini' });
    await addChannel(root, { name: 'vip-ch', key: 'k', baseUrl: mock.url, models: 'gpt-4o-mini', group: 'vip' });
    base = await listen(t);
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  // The console's session (cookie and New-Api-User) instead of an API key; the SDK's key is not used.
  const sdk = (c: Client, headers: Record<string, string> = {}) =>
    new OpenAI({
      apiKey: 'unused',
      baseURL: `${base}/pg`,
      maxRetries: 0,
      defaultHeaders: { cookie: c.cookie, 'new-api-user': String(c.userId), ...headers },
    });
  const hi = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }] };

  it('refuses without a session, and without an enabled token sends the user to create one', async () => {
    await expect(
      new OpenAI({ apiKey: 'x', baseURL: `${base}/pg`, maxRetries: 0 }).chat.completions.create(hi),
    ).rejects.toMatchObject({ status: 401 });
    await expect(sdk(user, { 'new-api-user': '999' }).chat.completions.create(hi)).rejects.toMatchObject({
      status: 401,
    });
    await expect(sdk(user).chat.completions.create(hi)).rejects.toMatchObject({
      status: 403,
      error: { code: 'no_enabled_token' },
    });
    await addToken(t, user.userId!, { name: 'disabled-first', remainQuota: 0, unlimited: false });
    await expect(sdk(user).chat.completions.create(hi)).rejects.toMatchObject({
      status: 403,
      error: { code: 'no_enabled_token' },
    });
  });

  it('streams a chat with the session and bills the usable token in the default group', async () => {
    const tok = await addToken(t, user.userId!, { name: 'pg-token' });
    const stream = await sdk(user).chat.completions.create({ ...hi, stream: true, temperature: 0.5 });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from the mock!');
    await drainWriter(t);
    const log = await t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', user.userId!)
      .where('type', '=', 2)
      .executeTakeFirstOrThrow();
    expect(log).toMatchObject({
      token_id: tok.id,
      token_name: 'pg-token',
      group: 'default',
      channel_name: 'default-ch',
      is_stream: 1,
    });
    expect(Number(log.quota)).toBeGreaterThan(0);
    // The upstream never sees the playground's group field.
    expect(mock.requests.at(-1)!.body).not.toHaveProperty('group');
  });

  it('uses a group the user may use, and refuses one they may not', async () => {
    await root.call('PUT', '/api/option/', {
      key: 'UserUsableGroups',
      value: JSON.stringify({ default: 'Default', vip: 'VIP' }),
    });
    const res = await sdk(user).chat.completions.create({ ...hi, group: 'vip' } as typeof hi);
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    await drainWriter(t);
    const log = await t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', user.userId!)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log).toMatchObject({ group: 'vip', channel_name: 'vip-ch' });
    await expect(sdk(user).chat.completions.create({ ...hi, group: 'svip' } as typeof hi)).rejects.toMatchObject({
      status: 403,
      error: { code: 'group_not_allowed' },
    });
  });
});

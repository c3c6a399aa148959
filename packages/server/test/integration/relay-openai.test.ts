import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';

/** The OpenAI-compatible relay driven by the official `openai` SDK against our mock upstream. */
describe.each(dialects)('OpenAI relay on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, user: Client, sdk: OpenAI, tokenId: number;
  useGateway(dialect, { user: 'relay-user', quota: 1_000_000, token: { remainQuota: 400_000 } }, async (gw) => {
    ({ t, mock, root, user, tokenId } = gw);
    await addChannel(root, {
      name: 'mock-main',
      key: 'mock-key-main',
      baseUrl: mock.url,
      models: 'gpt-4o-mini,text-embedding-3-small,omni-moderation-latest',
    });
    sdk = new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
  });

  const quotaOf = async () =>
    Number(
      (
        await t.database.db.kysely
          .selectFrom('users')
          .select('quota')
          .where('id', '=', user.userId!)
          .executeTakeFirstOrThrow()
      ).quota,
    );

  it('relays a chat completion and bills it exactly: (12 + 5×4) × 0.075 = 2.4 → 2', async () => {
    const before = await quotaOf();
    const res = await sdk.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    expect(res.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
    const sent = mock.requests.at(-1)!;
    expect(sent.key).toBe('mock-key-main');
    expect(sent.body.model).toBe('gpt-4o-mini');
    await drainWriter(t);
    expect(before - (await quotaOf())).toBe(2);
    const log = await t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log).toMatchObject({
      user_id: user.userId,
      model_name: 'gpt-4o-mini',
      quota: 2,
      prompt_tokens: 12,
      completion_tokens: 5,
      is_stream: 0,
      token_id: tokenId,
      channel_name: 'mock-main',
    });
    const other = JSON.parse(log.other) as Record<string, unknown>;
    expect(other).toMatchObject({
      model_ratio: 0.075,
      completion_ratio: 4,
      group_ratio: 1,
      is_model_mapped: false,
      admin_info: { use_channel: [expect.any(Number)] },
    });
    const token = await t.database.db.kysely
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    expect(Number(token.used_quota)).toBeGreaterThanOrEqual(2);
  });

  it('streams chunk by chunk; the usage chunk reaches the client only when it asked', async () => {
    const stream = await sdk.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe('Hello from the mock!');
    expect(sawUsage).toBe(false);
    // Tollway asked the upstream for usage anyway.
    expect((mock.requests.at(-1)!.body.stream_options as { include_usage: boolean }).include_usage).toBe(true);

    const withUsage = await sdk.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of withUsage) if (chunk.usage) usage = chunk.usage;
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
    await drainWriter(t);
    const log = await t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log).toMatchObject({ is_stream: 1, quota: 2, prompt_tokens: 12, completion_tokens: 5 });
    expect(JSON.parse(log.other).frt).toBeGreaterThanOrEqual(0);
  });

  it('relays embeddings and moderations and lists the token’s models', async () => {
    const emb = await sdk.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'] });
    expect(emb.data).toHaveLength(2);
    const mod = await sdk.moderations.create({ model: 'omni-moderation-latest', input: 'hello' });
    expect(mod.results[0]!.flagged).toBe(false);
    const models = await sdk.models.list();
    expect(models.data.map((m) => m.id).sort()).toEqual([
      'gpt-4o-mini',
      'omni-moderation-latest',
      'text-embedding-3-small',
    ]);
    const one = await sdk.models.retrieve('gpt-4o-mini');
    expect(one.id).toBe('gpt-4o-mini');
    await expect(sdk.models.retrieve('nope')).rejects.toMatchObject({ status: 404 });
  });

  it('answers errors in the OpenAI shape with the right status', async () => {
    const bad = new OpenAI({ apiKey: 'sk-not-a-real-key', baseURL: sdk.baseURL, maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: 'gpt-4o-mini', messages: [] })).rejects.toMatchObject({
      status: 401,
      error: { type: 'invalid_request_error', code: 'invalid_api_key' },
    });
    await expect(
      sdk.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({
      status: 404,
      error: { code: 'model_not_found' },
    });
    const res = await fetch(`${sdk.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sdk.apiKey}`, 'content-type': 'application/json' },
      body: '{"model": ',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('malformed JSON');
    const noModel = await fetch(`${sdk.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sdk.apiKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(noModel.status).toBe(400);
    expect((await noModel.json()).error).toMatchObject({ code: 'missing_model' });
  });

  it('refuses when the user quota cannot cover the reservation', async () => {
    const poor = await createUserClient(t.app, root, 'poor-user');
    const tok = await addToken(t, poor.userId!, {});
    const client = new OpenAI({ apiKey: tok.key, baseURL: sdk.baseURL, maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({
      status: 403,
      error: { code: 'insufficient_user_quota' },
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';

/** The prompt check (CheckSensitiveEnabled + CheckSensitiveOnPromptEnabled with SensitiveWords) in every client format. */
describe.each(dialects)('sensitive-word prompt check on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string, key: string;
  useGateway(dialect, { user: 'sensitive-user', quota: 5_000_000 }, async (gw) => {
    ({ t, mock, root, base, key } = gw);
    await addChannel(root, {
      name: 'sw',
      key: 'sw-key',
      baseUrl: gw.mock.url,
      models: 'gpt-4o-mini,text-embedding-3-small,dall-e-3,gemini-2.5-flash',
    });
  });

  const setOption = async (k: string, value: string) => {
    const res = await root.call('PUT', '/api/option/', { key: k, value });
    expect(res.body.success, res.body.message).toBe(true);
  };
  const post = async (
    path: string,
    body: unknown,
    headers: Record<string, string> = { authorization: `Bearer ${key}` },
  ) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const chat = (content: string, system?: string) =>
    post('/v1/chat/completions', {
      model: 'gpt-4o-mini',
      messages: [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content }],
    });
  const upstreamCalls = () => mock.requests.length;

  it('checks nothing until both switches are on', async () => {
    await setOption('SensitiveWords', 'forbidden\nregex:secret-\\d+');
    expect((await chat('a forbidden thing')).status).toBe(200);
    await setOption('CheckSensitiveEnabled', 'true');
    expect((await chat('a forbidden thing')).status).toBe(200);
    await setOption('CheckSensitiveOnPromptEnabled', 'true');
    expect((await chat('a forbidden thing')).status).toBe(400);
  });

  it('refuses an OpenAI chat prompt with a word (any case) or a pattern, naming them, before any upstream call or charge', async () => {
    const before = upstreamCalls();
    await drainWriter(t);
    const quota = Number(
      (
        await t.database.db.kysely
          .selectFrom('users')
          .select('used_quota')
          .where('username', '=', 'sensitive-user')
          .executeTakeFirstOrThrow()
      ).used_quota,
    );
    const res = await chat('tell me about FORBIDDEN things', 'the code is secret-42');
    expect(res).toEqual({
      status: 400,
      body: {
        error: {
          message: 'sensitive words detected: secret-42, forbidden',
          type: 'invalid_request_error',
          param: null,
          code: 'sensitive_words_detected',
        },
      },
    });
    expect(upstreamCalls()).toBe(before);
    await drainWriter(t);
    const after = Number(
      (
        await t.database.db.kysely
          .selectFrom('users')
          .select('used_quota')
          .where('username', '=', 'sensitive-user')
          .executeTakeFirstOrThrow()
      ).used_quota,
    );
    expect(after).toBe(quota);
    const clean = await chat('tell me about allowed things', 'the code is secret-x');
    expect(clean.status).toBe(200);
    expect(upstreamCalls()).toBe(before + 1);
  });

  it('answers in the caller protocol: Anthropic (system and tool results checked) and Gemini', async () => {
    const anthropic = await post(
      '/v1/messages',
      { model: 'gpt-4o-mini', max_tokens: 10, system: 'be forbidden', messages: [{ role: 'user', content: 'hello' }] },
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    );
    expect(anthropic).toEqual({
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'sensitive words detected: forbidden' } },
    });
    const toolResult = await post(
      '/v1/messages',
      {
        model: 'gpt-4o-mini',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'look it up' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'lookup', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'found secret-7' }] },
        ],
      },
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    );
    expect(toolResult.status).toBe(400);
    const gemini = await post(
      '/v1beta/models/gemini-2.5-flash:generateContent',
      { contents: [{ role: 'user', parts: [{ text: 'Forbidden fruit' }] }] },
      { 'x-goog-api-key': key },
    );
    expect(gemini).toEqual({
      status: 400,
      body: { error: { code: 400, message: 'sensitive words detected: forbidden', status: 'INVALID_ARGUMENT' } },
    });
  });

  it('checks the prompt of embeddings, images and Gemini embeddings too', async () => {
    expect(
      (await post('/v1/embeddings', { model: 'text-embedding-3-small', input: ['fine', 'forbidden'] })).status,
    ).toBe(400);
    expect((await post('/v1/images/generations', { model: 'dall-e-3', prompt: 'a forbidden cat' })).status).toBe(400);
    expect(
      (
        await post(
          '/v1beta/models/gemini-2.5-flash:embedContent',
          { content: { parts: [{ text: 'forbidden' }] } },
          { 'x-goog-api-key': key },
        )
      ).status,
    ).toBe(400);
    expect((await post('/v1/embeddings', { model: 'text-embedding-3-small', input: 'fine' })).status).toBe(200);
  });

  it('does not check calls billed in the exempt group (global.safe_check_exempt_*)', async () => {
    await setOption('global.safe_check_exempt_group', 'default');
    expect((await chat('a forbidden thing')).status).toBe(400);
    await setOption('global.safe_check_exempt_enabled', 'true');
    try {
      expect((await chat('a forbidden thing')).status).toBe(200);
    } finally {
      await setOption('global.safe_check_exempt_enabled', 'false');
    }
    expect((await chat('a forbidden thing')).status).toBe(400);
  });

  it('refuses to save a regex entry that does not compile or matches empty text', async () => {
    const bad = await root.call('PUT', '/api/option/', { key: 'SensitiveWords', value: 'ok\nregex:(unclosed' });
    expect(bad.body.success).toBe(false);
    expect(bad.body.message).toMatch(/^SensitiveWords line 2: invalid regular expression/);
    const empty = await root.call('PUT', '/api/option/', { key: 'SensitiveWords', value: 'regex:a*' });
    expect(empty.body).toMatchObject({
      success: false,
      message: 'SensitiveWords line 1: the pattern matches empty text',
    });
  });
});

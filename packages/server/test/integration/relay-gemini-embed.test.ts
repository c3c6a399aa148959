import { GoogleGenAI } from '@google/genai';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';

/**
 * Gemini embedContent / batchEmbedContents inbound with Google's SDK: to a Gemini channel natively (texts
 * counted, the upstream gives no usage) and to an OpenAI channel converted to /v1/embeddings and back.
 */
describe.each(dialects)('Gemini embeddings on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string, key: string;
  useGateway(dialect, { user: 'embed-user', quota: 1_000_000 }, async (gw) => {
    ({ t, mock, root, base, key } = gw);
    await addChannel(root, {
      name: 'gemini-embed',
      key: 'ge-key',
      baseUrl: mock.url,
      type: 24,
      models: 'text-embedding-004,gemini-embedding-alias',
      modelMapping: { 'gemini-embedding-alias': 'text-embedding-004' },
    });
    await addChannel(root, {
      name: 'openai-embed',
      key: 'oa-key',
      baseUrl: mock.url,
      models: 'embed-via-openai',
      modelMapping: { 'embed-via-openai': 'text-embedding-3-small' },
    });
    mock.behaviors.set('oa-key', { promptTokens: 9 });
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify({ 'text-embedding-004': 5, 'gemini-embedding-alias': 5, 'embed-via-openai': 3 }),
    });
  });

  const genai = () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base } });
  const lastLog = async (model: string) => {
    await drainWriter(t);
    return t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('model_name', '=', model)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
  };

  it('SDK embedContent → Gemini channel: batchEmbedContents passed through, the texts counted for billing', async () => {
    const res = await genai().models.embedContent({
      model: 'gemini-embedding-alias',
      contents: ['first text', 'second, longer text'],
      config: { outputDimensionality: 3 },
    });
    expect(res.embeddings?.map((e) => e.values)).toEqual([
      [0.5, 0.25, 0],
      [0.5, 0.25, 1],
    ]);
    const sent = mock.requests.at(-1)!;
    expect(sent).toMatchObject({ path: '/v1beta/models/text-embedding-004:batchEmbedContents', key: 'ge-key' });
    expect((sent.body.requests as { model: string }[]).map((r) => r.model)).toEqual([
      'models/text-embedding-004',
      'models/text-embedding-004',
    ]);
    const log = await lastLog('gemini-embedding-alias');
    // Each text counted on its own, as OpenAI bills embeddings' inputs.
    const tokens = countTokens('first text') + countTokens('second, longer text');
    expect({ quota: Number(log.quota), prompt: log.prompt_tokens, completion: log.completion_tokens }).toEqual({
      quota: tokens * 5,
      prompt: tokens,
      completion: 0,
    });
  });

  it(':embedContent with ?key= → Gemini channel', async () => {
    const res = await fetch(`${base}/v1beta/models/text-embedding-004:embedContent?key=${key}`, {
      method: 'POST',
      body: JSON.stringify({ content: { parts: [{ text: 'hello embeddings' }] } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ embedding: { values: [0.5, 0.25, 0] } });
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/v1beta/models/text-embedding-004:embedContent',
      key: 'ge-key',
    });
    expect(Number((await lastLog('text-embedding-004')).quota)).toBe(countTokens('hello embeddings') * 5);
  });

  it('SDK embedContent and raw :embedContent → OpenAI channel, converted to /v1/embeddings and back', async () => {
    const res = await genai().models.embedContent({
      model: 'embed-via-openai',
      contents: ['a', 'b'],
      config: { outputDimensionality: 3 },
    });
    expect(res.embeddings?.map((e) => e.values)).toEqual([
      [0.1, 0.2, 0.3],
      [0.1, 0.2, 0.3],
    ]);
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/v1/embeddings',
      key: 'oa-key',
      body: { model: 'text-embedding-3-small', input: ['a', 'b'], dimensions: 3 },
    });
    const log = await lastLog('embed-via-openai');
    expect({ quota: Number(log.quota), prompt: log.prompt_tokens }).toEqual({ quota: 27, prompt: 9 });

    const single = await fetch(`${base}/v1beta/models/embed-via-openai:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key },
      body: JSON.stringify({ content: { parts: [{ text: 'one' }] } }),
    });
    expect(await single.json()).toEqual({ embedding: { values: [0.1, 0.2, 0.3] } });
  });

  it('errors answer in Gemini shape', async () => {
    const bad = await fetch(`${base}/v1beta/models/text-embedding-004:batchEmbedContents?key=${key}`, {
      method: 'POST',
      body: JSON.stringify({ requests: [] }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { status: string; message: string } }).error).toMatchObject({
      status: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/requests must be a non-empty array/),
    });
    const unauth = await fetch(`${base}/v1beta/models/text-embedding-004:embedContent?key=sk-nope`, {
      method: 'POST',
      body: '{}',
    });
    expect(unauth.status).toBe(401);
    expect(((await unauth.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
  });
});

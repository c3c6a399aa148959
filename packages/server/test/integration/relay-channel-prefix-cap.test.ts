import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { drainWriter, lastLogOf } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';

const OPENAI = 1;
const ANTHROPIC = 14;
const GEMINI = 24;

/** Prompts the reservation estimates (about one token per 3 bytes of the body) well under 50, near 120, over 1,000. */
const SMALL = 'hi';
const MEDIUM = 'a'.repeat(300);
const LARGE = 'a'.repeat(3000);

/**
 * A channel's model_prefix (the name sent upstream, after its model mapping) and max_input_tokens (channels whose
 * cap is below a call's estimated input are passed over; none left: 400 in the caller's protocol), driven by the
 * official SDKs against the mock upstream.
 */
describe.each(dialects)('channel model prefix and input cap on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string, key: string;
  const ids: Record<string, number> = {};

  /** A channel with the fields the shared helper does not set. */
  const addChannel = async (c: {
    name: string;
    type?: number;
    models: string;
    priority?: number;
    mapping?: Record<string, string>;
    prefix?: string;
    cap?: number;
  }) => {
    const res = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: c.name,
        type: c.type ?? OPENAI,
        key: `key-${c.name}`,
        base_url: mock.url,
        models: c.models,
        group: 'default',
        priority: c.priority ?? 0,
        ...(c.mapping ? { model_mapping: JSON.stringify(c.mapping) } : {}),
        model_prefix: c.prefix ?? '',
        max_input_tokens: c.cap ?? 0,
      },
    });
    if (!res.body.success) throw new Error(`channel create failed: ${res.body.message}`);
    ids[c.name] = res.body.data!.ids[0]!;
  };

  useGateway(dialect, { user: 'prefix-cap-user', quota: 10_000_000 }, async (gw) => {
    ({ t, mock, root, base, key } = gw);
    await addChannel({
      name: 'oa-prefixed',
      models: 'px-chat,px-direct,px-embed',
      mapping: { 'px-chat': 'gpt-4o-mini' },
      prefix: 'acme/',
    });
    await addChannel({
      name: 'claude-prefixed',
      type: ANTHROPIC,
      models: 'claude-sonnet-4-20250514',
      prefix: 'vendor.',
    });
    await addChannel({ name: 'gemini-prefixed', type: GEMINI, models: 'gemini-2.5-flash', prefix: 'tuned-' });
    // cap-model: a capped channel first by priority, an uncapped one (0) below it.
    await addChannel({ name: 'cap-high', models: 'cap-model', priority: 10, cap: 100 });
    await addChannel({ name: 'cap-zero', models: 'cap-model', priority: 0, cap: 0 });
    // capped-only: every channel has a cap; the larger is the lower priority.
    await addChannel({ name: 'capped-50', models: 'capped-only', priority: 10, cap: 50 });
    await addChannel({ name: 'capped-200', models: 'capped-only', priority: 0, cap: 200 });
    const models = [
      'px-chat',
      'px-direct',
      'px-embed',
      'claude-sonnet-4-20250514',
      'gemini-2.5-flash',
      'cap-model',
      'capped-only',
    ];
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify(Object.fromEntries(models.map((m) => [m, 0.075]))),
    });
  });

  const openai = () => new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 });
  const genai = () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base } });
  const chat = (model: string, content: string) =>
    openai().chat.completions.create({ model, messages: [{ role: 'user', content }] });
  const logCount = async () => {
    await drainWriter(t);
    return Number(
      (
        await t.database.db.kysely
          .selectFrom('logs')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  };

  it('sends the mapped model with the prefix to an OpenAI channel; the log keeps the client model', async () => {
    const res = await chat('px-chat', SMALL);
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/v1/chat/completions',
      key: 'key-oa-prefixed',
      body: { model: 'acme/gpt-4o-mini' },
    });
    const log = await lastLogOf(t, 'px-chat');
    expect(log.channel_id).toBe(ids['oa-prefixed']);
    expect(JSON.parse(log.other)).toMatchObject({ is_model_mapped: true, upstream_model_name: 'gpt-4o-mini' });

    // An unmapped model whose body would otherwise go out as the client's own bytes: the prefix is a change.
    let text = '';
    for await (const c of await openai().chat.completions.create({
      model: 'px-direct',
      stream: true,
      messages: [{ role: 'user', content: SMALL }],
    }))
      text += c.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Hello from the mock!');
    expect(mock.requests.at(-1)!.body.model).toBe('acme/px-direct');
    const direct = await lastLogOf(t, 'px-direct');
    expect(JSON.parse(direct.other)).toMatchObject({ is_model_mapped: false, upstream_model_name: 'px-direct' });

    const emb = await openai().embeddings.create({ model: 'px-embed', input: 'x' });
    expect(emb.data).toHaveLength(1);
    expect(mock.requests.at(-1)).toMatchObject({ path: '/v1/embeddings', body: { model: 'acme/px-embed' } });

    const r = await openai().responses.create({ model: 'px-chat', input: SMALL });
    expect(r.output_text).toBe('Hello from the mock!');
    expect(mock.requests.at(-1)).toMatchObject({ path: '/v1/chat/completions', body: { model: 'acme/gpt-4o-mini' } });
  });

  it('sends the prefixed model to Claude (body) and Gemini (URL) channels, passed through and converted', async () => {
    const msg = await anthropic().messages.create({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 20,
      messages: [{ role: 'user', content: SMALL }],
    });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/v1/messages',
      key: 'key-claude-prefixed',
      body: { model: 'vendor.claude-sonnet-4-20250514' },
    });
    expect((await lastLogOf(t, 'claude-sonnet-4-20250514')).channel_id).toBe(ids['claude-prefixed']);
    await chat('claude-sonnet-4-20250514', SMALL);
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/v1/messages',
      body: { model: 'vendor.claude-sonnet-4-20250514' },
    });

    const g = await genai().models.generateContent({ model: 'gemini-2.5-flash', contents: SMALL });
    expect(g.text).toBe('Hello from the mock!');
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/v1beta/models/tuned-gemini-2.5-flash:generateContent',
      key: 'key-gemini-prefixed',
    });
    let streamed = '';
    for await (const c of await genai().models.generateContentStream({ model: 'gemini-2.5-flash', contents: SMALL }))
      streamed += c.text ?? '';
    expect(streamed).toBe('Hello from the mock!');
    expect(mock.requests.at(-1)!.path).toBe('/v1beta/models/tuned-gemini-2.5-flash:streamGenerateContent');
    await chat('gemini-2.5-flash', SMALL);
    expect(mock.requests.at(-1)!.path).toBe('/v1beta/models/tuned-gemini-2.5-flash:generateContent');
    expect((await lastLogOf(t, 'gemini-2.5-flash')).model_name).toBe('gemini-2.5-flash');
  });

  it('a channel test sends the prefixed model too', async () => {
    const res = await root.call<unknown>('GET', `/api/channel/test/${ids['oa-prefixed']}?model=px-chat`);
    expect(res.body.success).toBe(true);
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/v1/chat/completions',
      body: { model: 'acme/gpt-4o-mini', max_tokens: 1 },
    });
  });

  it('passes over a channel whose cap is below the input; a cap of 0 takes any input', async () => {
    await chat('cap-model', SMALL);
    expect(mock.requests.at(-1)!.key).toBe('key-cap-high');
    await chat('cap-model', MEDIUM);
    expect(mock.requests.at(-1)!.key).toBe('key-cap-zero');
    const big = await chat('cap-model', LARGE.repeat(10));
    expect(big.choices[0]!.message.content).toBe('Hello from the mock!');
    expect(mock.requests.at(-1)!.key).toBe('key-cap-zero');
    const log = await lastLogOf(t, 'cap-model');
    expect(log.channel_id).toBe(ids['cap-zero']);
    expect(JSON.parse(log.other).admin_info.use_channel).toEqual([ids['cap-zero']]);

    // Every channel capped: the one whose cap takes the input, whatever its priority.
    await chat('capped-only', SMALL);
    expect(mock.requests.at(-1)!.key).toBe('key-capped-50');
    await chat('capped-only', MEDIUM);
    expect(mock.requests.at(-1)!.key).toBe('key-capped-200');
  });

  it('input above every cap: 400 in the OpenAI, Claude and Gemini shapes, nothing sent upstream, nothing logged', async () => {
    const sent = mock.requests.length;
    const logs = await logCount();
    const limit = 'exceeds the limit of every channel for model capped-only (largest: 200)';

    const oa = await chat('capped-only', LARGE).catch((e: unknown) => e);
    expect(oa).toBeInstanceOf(OpenAI.APIError);
    expect(oa).toMatchObject({
      status: 400,
      error: { type: 'invalid_request_error', code: 'context_length_exceeded' },
    });
    expect((oa as InstanceType<typeof OpenAI.APIError>).message).toContain(limit);

    const an = await anthropic()
      .messages.create({ model: 'capped-only', max_tokens: 20, messages: [{ role: 'user', content: LARGE }] })
      .catch((e: unknown) => e);
    expect(an).toBeInstanceOf(Anthropic.APIError);
    expect(an).toMatchObject({ status: 400, error: { type: 'error', error: { type: 'invalid_request_error' } } });
    expect((an as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { message: expect.stringContaining(limit) },
    });

    await expect(genai().models.generateContent({ model: 'capped-only', contents: LARGE })).rejects.toMatchObject({
      status: 400,
    });
    const g = await fetch(`${base}/v1beta/models/capped-only:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: LARGE }] }] }),
    });
    expect(g.status).toBe(400);
    expect(await g.json()).toEqual({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining(limit) },
    });

    const streamed = await openai()
      .chat.completions.create({ model: 'capped-only', stream: true, messages: [{ role: 'user', content: LARGE }] })
      .catch((e: unknown) => e);
    expect(streamed).toMatchObject({ status: 400 });

    expect(mock.requests.length).toBe(sent);
    expect(await logCount()).toBe(logs);
    const channels = await t.database.db.kysely
      .selectFrom('channels')
      .select(['id', 'status'])
      .where('id', 'in', [ids['capped-50']!, ids['capped-200']!])
      .execute();
    expect(channels.map((c) => c.status)).toEqual([1, 1]);
  });
});

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter, lastLogOf } from '../support/gateway.js';
import { startMockBedrock, type MockBedrock } from '../support/mock-bedrock.js';

const ACCESS_KEY = 'AKIDTOLLWAYTEST';
const SECRET = 'tollway/Secret+Key0123456789abcdefEXAMPLE';
const CUT_KEY = 'AKIDTOLLWAYCUT';

/**
 * AWS Bedrock channels (type 33, key `Ak|Sk|Region`) end to end: the official Anthropic and OpenAI SDKs through
 * the running server to a mock Bedrock runtime that verifies every request's SigV4 signature, answering
 * InvokeModel with JSON and InvokeModelWithResponseStream with the binary AWS event stream; billing and logs exact.
 */
describe.each(dialects)('AWS Bedrock relay on %s', (dialect) => {
  let t: TestApp, mock: MockBedrock, root: Client, user: Client, base: string, key: string, channelId: number;
  useGateway(
    dialect,
    {
      user: 'bedrock-user',
      quota: 10_000_000,
      mock: () => startMockBedrock({ [ACCESS_KEY]: SECRET, [CUT_KEY]: SECRET }),
    },
    async (gw) => {
      ({ t, mock, root, user, base, key } = gw);
      channelId = await addChannel(root, {
        name: 'bedrock-up',
        type: 33,
        key: `${ACCESS_KEY}|${SECRET}|us-west-2`,
        baseUrl: mock.url,
        models: 'claude-sonnet-4-20250514,gpt-via-bedrock,nova-lite',
        modelMapping: { 'gpt-via-bedrock': 'claude-3-5-sonnet-20241022', 'nova-lite': 'us.amazon.nova-lite-v1:0' },
      });
      await addChannel(root, {
        name: 'bedrock-cut',
        type: 33,
        key: `${CUT_KEY}|${SECRET}|eu-west-1`,
        baseUrl: mock.url,
        models: 'claude-3-7-sonnet-20250219',
      });
      mock.cutStreams.set(CUT_KEY, 3);
      await addChannel(root, {
        name: 'bedrock-wrong-secret',
        type: 33,
        key: `${ACCESS_KEY}|not-the-secret|us-east-1`,
        baseUrl: mock.url,
        models: 'claude-3-haiku-20240307',
      });
      await root.call('PUT', '/api/option/', {
        key: 'ModelRatio',
        value: JSON.stringify({
          'claude-sonnet-4-20250514': 1.5,
          'gpt-via-bedrock': 1.5,
          'claude-3-haiku-20240307': 0.125,
          'claude-3-7-sonnet-20250219': 1.5,
          'nova-lite': 1,
        }),
      });
      await root.call('PUT', '/api/option/', {
        key: 'CacheRatio',
        value: JSON.stringify({ 'claude-sonnet-4-20250514': 0.1, 'gpt-via-bedrock': 0.1, 'nova-lite': 0.25 }),
      });
      await root.call('PUT', '/api/option/', {
        key: 'CompletionRatio',
        value: JSON.stringify({
          'claude-sonnet-4-20250514': 5,
          'gpt-via-bedrock': 5,
          'claude-3-haiku-20240307': 5,
          'nova-lite': 4,
        }),
      });
      mock.behaviors.set(ACCESS_KEY, { promptTokens: 20, completionTokens: 6, cachedTokens: 100 });
    },
  );

  const lastLog = (model: string) => lastLogOf(t, model);
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
  const anthropic = () => new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 });
  /** A streamed chat completion with the usage chunk: its text and usage. */
  const streamedChat = async (openai: OpenAI, model: string) => {
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const c of await openai.chat.completions.create({
      model,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    })) {
      text += c.choices[0]?.delta?.content ?? '';
      if (c.usage) usage = c.usage;
    }
    return { text, usage };
  };
  // (20 + 100 cache reads × 0.1 + 6 × 5) × 1.5 = 90
  const EXPECTED_QUOTA = 90;

  it('rejects channel keys that are not Ak|Sk|Region', async () => {
    const res = await root.call('POST', '/api/channel/', {
      mode: 'single',
      channel: { name: 'bad', type: 33, key: 'only-an-access-key', base_url: mock.url, models: 'x', group: 'default' },
    });
    expect(res.body).toMatchObject({
      success: false,
      message: 'key: channel type 33 needs the key format Ak|Sk|Region',
    });
  });

  it('Anthropic SDK → Bedrock InvokeModel: signed request, Bedrock body, exact billing and log', async () => {
    const before = await quotaOf();
    const msg = await anthropic().messages.create({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    expect(msg.usage).toMatchObject({ input_tokens: 20, output_tokens: 6, cache_read_input_tokens: 100 });
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke');
    expect({ modelId: sent.modelId, accessKeyId: sent.accessKeyId, region: sent.region }).toEqual({
      modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0',
      accessKeyId: ACCESS_KEY,
      region: 'us-west-2',
    });
    expect(sent.body).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(sent.headers['x-api-key']).toBeUndefined();
    const log = await lastLog('claude-sonnet-4-20250514');
    expect(log).toMatchObject({
      user_id: user.userId,
      channel_id: channelId,
      quota: EXPECTED_QUOTA,
      prompt_tokens: 20,
      completion_tokens: 6,
      is_stream: 0,
    });
    expect(before - (await quotaOf())).toBe(EXPECTED_QUOTA);
  });

  it('Anthropic SDK stream → InvokeModelWithResponseStream: the event stream becomes Anthropic SSE', async () => {
    const stream = anthropic().messages.stream({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const events: string[] = [];
    stream.on('streamEvent', (e) => events.push(e.type));
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    expect(final.usage).toMatchObject({ input_tokens: 20, output_tokens: 6 });
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(events.filter((e) => e === 'content_block_delta')).toHaveLength(5);
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke-with-response-stream');
    expect(sent.headers.accept).toBe('application/vnd.amazon.eventstream');
    expect(sent.body.stream).toBeUndefined();
    const log = await lastLog('claude-sonnet-4-20250514');
    expect(log).toMatchObject({ quota: EXPECTED_QUOTA, prompt_tokens: 20, completion_tokens: 6, is_stream: 1 });
  });

  it('OpenAI SDK → Bedrock (converted), plain and streamed, with the mapped model id', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const res = await openai.chat.completions.create({
      model: 'gpt-via-bedrock',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    // OpenAI semantics: prompt tokens include the cache reads.
    expect(res.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 6 });
    const sent = mock.requests.at(-1)!;
    expect(sent.modelId).toBe('anthropic.claude-3-5-sonnet-20241022-v2:0');
    expect(sent.body).toMatchObject({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 8192,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(Number((await lastLog('gpt-via-bedrock')).quota)).toBe(EXPECTED_QUOTA);

    expect(await streamedChat(openai, 'gpt-via-bedrock')).toMatchObject({
      text: 'Hello from the mock!',
      usage: { prompt_tokens: 120, completion_tokens: 6 },
    });
    expect(mock.requests.at(-1)!.path).toBe(
      '/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke-with-response-stream',
    );
    const log = await lastLog('gpt-via-bedrock');
    expect(log).toMatchObject({ quota: EXPECTED_QUOTA, completion_tokens: 6, is_stream: 1 });
  });

  it('other models go through the Converse API: OpenAI SDK plain and streamed, Anthropic SDK streamed', async () => {
    // (20 + 100 cache reads × 0.25 + 6 × 4) × 1 = 69
    const NOVA_QUOTA = 69;
    const openai = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const res = await openai.chat.completions.create({
      model: 'nova-lite',
      max_tokens: 50,
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    expect(res.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 6 });
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/model/us.amazon.nova-lite-v1%3A0/converse');
    expect(sent.body).toEqual({
      system: [{ text: 'be brief' }],
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
      inferenceConfig: { maxTokens: 50, temperature: 0.2 },
    });
    expect(await lastLog('nova-lite')).toMatchObject({
      quota: NOVA_QUOTA,
      prompt_tokens: 20,
      completion_tokens: 6,
      is_stream: 0,
    });

    expect(await streamedChat(openai, 'nova-lite')).toMatchObject({
      text: 'Hello from the mock!',
      usage: { prompt_tokens: 120, completion_tokens: 6 },
    });
    expect(mock.requests.at(-1)!.path).toBe('/model/us.amazon.nova-lite-v1%3A0/converse-stream');
    expect(await lastLog('nova-lite')).toMatchObject({ quota: NOVA_QUOTA, completion_tokens: 6, is_stream: 1 });

    const final = await anthropic()
      .messages.stream({ model: 'nova-lite', max_tokens: 30, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    expect(final.usage).toMatchObject({ input_tokens: 20, output_tokens: 6, cache_read_input_tokens: 100 });
    expect(await lastLog('nova-lite')).toMatchObject({ quota: NOVA_QUOTA, is_stream: 1 });
  });

  it('an exception inside the event stream reaches the Anthropic client as a stream error', async () => {
    const stream = anthropic().messages.stream({
      model: 'claude-3-7-sonnet-20250219',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const texts: string[] = [];
    stream.on('text', (d) => texts.push(d));
    await expect(stream.finalMessage()).rejects.toThrow(
      'throttlingException: Too many tokens, please wait before trying again.',
    );
    expect(texts).toEqual(['Hello']);
    expect(mock.requests.at(-1)!).toMatchObject({
      modelId: 'eu.anthropic.claude-3-7-sonnet-20250219-v1:0',
      region: 'eu-west-1',
    });
    // No usage arrived: billed from the prompt estimate and the text that was delivered, at the model's ratios.
    let log: Awaited<ReturnType<typeof lastLog>> | undefined;
    for (let i = 0; i < 40 && !log; i++) {
      log = await lastLog('claude-3-7-sonnet-20250219').catch(() => undefined);
      if (!log) await new Promise((r) => setTimeout(r, 50));
    }
    expect(log).toMatchObject({ is_stream: 1, channel_name: 'bedrock-cut', completion_tokens: 1 });
    expect(JSON.parse(log!.other)).toMatchObject({ usage_reported: false, model_ratio: 1.5 });
    expect(log!.quota).toBe(Math.round((log!.prompt_tokens + 1) * 1.5));
  });

  it('the admin channel test goes through the same signing', async () => {
    const ok = (await root.call('GET', `/api/channel/test/${channelId}`)).body as unknown as {
      success: boolean;
      message: string;
    };
    expect(ok).toMatchObject({ success: true, message: 'test passed with claude-sonnet-4-20250514' });
    expect(mock.requests.at(-1)!).toMatchObject({
      modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0',
      body: { anthropic_version: 'bedrock-2023-05-31', max_tokens: 1 },
    });
  });

  it('a wrong secret fails the signature check at Bedrock and the client gets an error, not a charge', async () => {
    const before = await quotaOf();
    const refusedBefore = mock.refused.length;
    const err = await anthropic()
      .messages.create({
        model: 'claude-3-haiku-20240307',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hi' }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(mock.refused.slice(refusedBefore)).toContain(
      'The request signature we calculated does not match the signature you provided.',
    );
    expect(err).toMatchObject({
      status: 403,
      error: {
        type: 'error',
        error: { message: 'The request signature we calculated does not match the signature you provided.' },
      },
    });
    await drainWriter(t);
    expect(await quotaOf()).toBe(before);
  });
});

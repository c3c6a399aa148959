import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserClient, setupRoot, startTestApp, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { addChannel, addToken, drainWriter, listen, setQuota } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';

/**
 * The Claude and Gemini settings of the models tab, end to end: the official SDKs call the running server, the
 * mock upstreams record what arrived (thinking config, safety settings, headers, max_tokens, URL version and
 * model), and billing and log rows are checked for the thinking-suffixed names.
 */
describe.each(dialects)('Claude and Gemini settings in the relay on %s', (dialect) => {
  let t: TestApp;
  let mock: MockUpstream;
  let root: Client;
  let base: string;
  let key: string;
  const setOption = async (k: string, value: unknown) => {
    const res = await root.call('PUT', '/api/option/', {
      key: k,
      value: typeof value === 'string' ? value : JSON.stringify(value),
    });
    expect(res.body.success).toBe(true);
  };
  beforeAll(async () => {
    mock = await startMockUpstream();
    t = await startTestApp(dialect);
    root = await setupRoot(t.app);
    const user = await createUserClient(t.app, root, 'settings-user');
    await setQuota(root, user.userId!, 10_000_000);
    base = await listen(t);
    key = (await addToken(t, user.userId!, {})).key;
    await addChannel(root, {
      name: 'claude-up',
      key: 'cl-key',
      baseUrl: mock.url,
      type: 14,
      models: 'claude-sonnet-4,claude-sonnet-4-thinking',
    });
    await addChannel(root, {
      name: 'gemini-up',
      key: 'gm-key',
      baseUrl: mock.url,
      type: 24,
      models: 'gemini-2.5-flash,gemini-2.5-flash-thinking,gemini-2.5-pro-thinking-4096',
    });
    // Only the base models are priced, except one suffixed name with a ratio of its own.
    await setOption('ModelRatio', {
      'claude-sonnet-4': 1.5,
      'gemini-2.5-flash': 0.15,
      'gemini-2.5-pro': 0.625,
      'gemini-2.5-pro-thinking-4096': 1,
    });
    await setOption('CompletionRatio', { 'claude-sonnet-4': 5, 'gemini-2.5-flash': 8, 'gemini-2.5-pro': 8 });
    await setOption('CacheRatio', { 'claude-sonnet-4': 0.1 });
    await setOption('claude.model_headers_settings', {
      'claude-sonnet-4': { 'anthropic-beta': ['output-128k-2025-02-19', 'token-efficient-tools-2025-02-19'] },
    });
    await setOption('claude.default_max_tokens', { default: 8192, 'claude-sonnet-4': 16000 });
    await setOption('gemini.thinking_adapter_enabled', 'true');
    await setOption('gemini.safety_settings', { default: 'BLOCK_NONE', HARM_CATEGORY_HATE_SPEECH: 'BLOCK_ONLY_HIGH' });
    await setOption('gemini.version_settings', { default: 'v1beta', 'gemini-2.5-pro': 'v1' });
    mock.behaviors.set('cl-key', {
      promptTokens: 20,
      completionTokens: 6,
      cachedTokens: 100,
      cacheWriteTokens: 40,
      thinking: 'Let me think.',
    });
    mock.behaviors.set('gm-key', { thinking: 'Pondering.' });
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  const lastLog = async (model: string) => {
    await drainWriter(t);
    const log = await t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('model_name', '=', model)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    return {
      quota: Number(log.quota),
      prompt: log.prompt_tokens,
      completion: log.completion_tokens,
      stream: log.is_stream,
      other: JSON.parse(String(log.other ?? '{}')),
    };
  };
  const anthropic = () => new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 });
  const openai = () => new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
  const genai = () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base } });
  // (20 input + 100 cache reads × 0.1 + 40 cache writes × 1.25 + 6 × 5) × 1.5 = 165
  const claudeQuota = 165;

  it('Anthropic SDK, claude-sonnet-4-thinking → suffix stripped, thinking budget 80 % of max_tokens, temperature 1, beta headers; billed as the base model', async () => {
    const msg = await anthropic().messages.create({
      model: 'claude-sonnet-4-thinking',
      max_tokens: 2000,
      temperature: 0.3,
      top_p: 0.5,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(msg.content).toEqual([
      { type: 'thinking', thinking: 'Let me think.', signature: 'sig-mock' },
      { type: 'text', text: 'Hello from the mock!' },
    ]);
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.body).toEqual({
      model: 'claude-sonnet-4',
      max_tokens: 2000,
      temperature: 1,
      thinking: { type: 'enabled', budget_tokens: 1600 },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(sent.headers['anthropic-beta']).toBe('output-128k-2025-02-19,token-efficient-tools-2025-02-19');
    const log = await lastLog('claude-sonnet-4-thinking');
    expect({ quota: log.quota, prompt: log.prompt, completion: log.completion }).toEqual({
      quota: claudeQuota,
      prompt: 20,
      completion: 6,
    });
    expect(log.other).toMatchObject({
      model_ratio: 1.5,
      completion_ratio: 5,
      cache_tokens: 100,
      cache_creation_tokens: 40,
    });

    const stream = anthropic().messages.stream({
      model: 'claude-sonnet-4-thinking',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'thinking', thinking: 'Let me think.' });
    expect(mock.requests.at(-1)!.body).toMatchObject({
      model: 'claude-sonnet-4',
      max_tokens: 1280,
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    expect((await lastLog('claude-sonnet-4-thinking')).quota).toBe(claudeQuota);
  });

  it('OpenAI SDK → Claude channel without max_tokens: the per-model default and the thinking budget from it; reasoning and cache usage come back in OpenAI terms', async () => {
    const res = await openai().chat.completions.create({
      model: 'claude-sonnet-4-thinking',
      temperature: 0.2,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(mock.requests.at(-1)!.body).toMatchObject({
      model: 'claude-sonnet-4',
      max_tokens: 16000,
      temperature: 1,
      thinking: { type: 'enabled', budget_tokens: 12800 },
    });
    expect(mock.requests.at(-1)!.headers['anthropic-beta']).toBe(
      'output-128k-2025-02-19,token-efficient-tools-2025-02-19',
    );
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    expect((res.choices[0]!.message as any).reasoning_content).toBe('Let me think.');
    // OpenAI counts cache reads and writes inside prompt_tokens: 20 + 100 + 40.
    expect(res.usage).toMatchObject({
      prompt_tokens: 160,
      completion_tokens: 6,
      prompt_tokens_details: { cached_tokens: 100 },
    });
    expect((await lastLog('claude-sonnet-4-thinking')).quota).toBe(claudeQuota);

    await openai().chat.completions.create({ model: 'claude-sonnet-4', messages: [{ role: 'user', content: 'hi' }] });
    const plain = mock.requests.at(-1)!.body;
    expect(plain).toMatchObject({ model: 'claude-sonnet-4', max_tokens: 16000 });
    expect(plain.thinking).toBeUndefined();

    let reasoning = '';
    let text = '';
    for await (const c of await openai().chat.completions.create({
      model: 'claude-sonnet-4-thinking',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    })) {
      reasoning += (c.choices[0]?.delta as any)?.reasoning_content ?? '';
      text += c.choices[0]?.delta?.content ?? '';
    }
    expect({ reasoning, text }).toEqual({ reasoning: 'Let me think.', text: 'Hello from the mock!' });
    const log = await lastLog('claude-sonnet-4-thinking');
    expect({ quota: log.quota, stream: log.stream }).toEqual({ quota: claudeQuota, stream: 1 });
  });

  it('Google GenAI SDK, gemini-2.5-flash-thinking → base model in the URL, thinkingConfig from the share of maxOutputTokens, safety settings; billed as the base model', async () => {
    const res = await genai().models.generateContent({
      model: 'gemini-2.5-flash-thinking',
      contents: 'hi',
      config: { maxOutputTokens: 1000 },
    });
    expect(res.candidates![0]!.content!.parts).toEqual([
      { text: 'Pondering.', thought: true },
      { text: 'Hello from the mock!' },
    ]);
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.body.generationConfig).toEqual({
      maxOutputTokens: 1000,
      thinkingConfig: { includeThoughts: true, thinkingBudget: 600 },
    });
    expect(sent.body.safetySettings).toEqual([
      { category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' },
      { category: 'HARM_CATEGORY_HATE_SPEECH', threshold: 'BLOCK_ONLY_HIGH' },
      { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', threshold: 'BLOCK_NONE' },
      { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', threshold: 'BLOCK_NONE' },
      { category: 'HARM_CATEGORY_CIVIC_INTEGRITY', threshold: 'BLOCK_NONE' },
    ]);
    // (12 + 5 × 8) × 0.15 = 7.8 → 8
    expect(await lastLog('gemini-2.5-flash-thinking')).toMatchObject({ quota: 8, prompt: 12, completion: 5 });
  });

  it('Google GenAI SDK streamed, gemini-2.5-pro-thinking-4096 → the v1 API by version settings, budget 4096; its own ratio wins over the base model', async () => {
    const parts: any[] = [];
    for await (const chunk of await genai().models.generateContentStream({
      model: 'gemini-2.5-pro-thinking-4096',
      contents: 'hi',
    }))
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    expect(parts[0]).toEqual({ text: 'Pondering.', thought: true });
    expect(
      parts
        .filter((p) => !p.thought)
        .map((p) => p.text)
        .join(''),
    ).toBe('Hello from the mock!');
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1/models/gemini-2.5-pro:streamGenerateContent');
    expect(sent.body.generationConfig).toEqual({ thinkingConfig: { includeThoughts: true, thinkingBudget: 4096 } });
    // its own ratio 1 and no completion ratio of its own: (12 + 5) × 1
    expect(await lastLog('gemini-2.5-pro-thinking-4096')).toMatchObject({ quota: 17, stream: 1 });
  });

  it('OpenAI SDK reasoning_effort → Gemini thinkingBudget; thoughts come back as reasoning_content, plain and streamed', async () => {
    const res = await openai().chat.completions.create({
      model: 'gemini-2.5-flash',
      reasoning_effort: 'high',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(mock.requests.at(-1)!.body.generationConfig).toEqual({
      thinkingConfig: { includeThoughts: true, thinkingBudget: 19660 },
    });
    expect((res.choices[0]!.message as any).reasoning_content).toBe('Pondering.');
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    let reasoning = '';
    for await (const c of await openai().chat.completions.create({
      model: 'gemini-2.5-flash',
      reasoning_effort: 'low',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    }))
      reasoning += (c.choices[0]?.delta as any)?.reasoning_content ?? '';
    expect(reasoning).toBe('Pondering.');
    expect(mock.requests.at(-1)!.body.generationConfig).toEqual({
      thinkingConfig: { includeThoughts: true, thinkingBudget: 4915 },
    });
    expect(await lastLog('gemini-2.5-flash')).toMatchObject({ quota: 8, stream: 1 });
  });

  it('Anthropic SDK → Gemini channel with -thinking: thoughts become thinking blocks, streamed', async () => {
    const stream = anthropic().messages.stream({
      model: 'gemini-2.5-flash-thinking',
      max_tokens: 2000,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'thinking', thinking: 'Pondering.' });
    expect(final.content.at(-1)).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(sent.body.generationConfig).toMatchObject({
      maxOutputTokens: 2000,
      thinkingConfig: { includeThoughts: true, thinkingBudget: 1200 },
    });
    expect(await lastLog('gemini-2.5-flash-thinking')).toMatchObject({ quota: 8, stream: 1 });
  });
});

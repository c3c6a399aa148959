import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';

/**
 * Every client format against every upstream format, end to end with the official SDKs: Anthropic's SDK on
 * /v1/messages, Google's on /v1beta, OpenAI's responses.create — each to a channel of its own format and to a
 * channel of another, streaming included, billing and logs checked.
 */
describe('client formats × upstream formats', () => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string, key: string;
  useGateway('sqlite', { user: 'format-user', quota: 10_000_000 }, async (gw) => {
    ({ t, mock, root, base, key } = gw);
    // One model per upstream format; the OpenAI-format channel also serves the Claude and Gemini names mapped.
    await addChannel(root, {
      name: 'openai-up',
      key: 'oa-key',
      baseUrl: mock.url,
      models: 'gpt-4o-mini,claude-via-openai,gemini-via-openai',
      modelMapping: { 'claude-via-openai': 'gpt-4o-mini', 'gemini-via-openai': 'gpt-4o-mini' },
    });
    await addChannel(root, {
      name: 'anthropic-up',
      key: 'an-key',
      baseUrl: mock.url,
      type: 14,
      models: 'claude-sonnet-4-20250514,gpt-via-claude',
      modelMapping: { 'gpt-via-claude': 'claude-sonnet-4-20250514' },
    });
    await addChannel(root, {
      name: 'gemini-up',
      key: 'ge-key',
      baseUrl: mock.url,
      type: 24,
      models: 'gemini-2.5-flash',
    });
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify({
        'gpt-4o-mini': 0.075,
        'claude-via-openai': 0.075,
        'gemini-via-openai': 0.075,
        'claude-sonnet-4-20250514': 1.5,
        'gpt-via-claude': 1.5,
        'gemini-2.5-flash': 0.15,
      }),
    });
    await root.call('PUT', '/api/option/', {
      key: 'CompletionRatio',
      value: JSON.stringify({
        'gpt-4o-mini': 4,
        'claude-via-openai': 4,
        'gemini-via-openai': 4,
        'claude-sonnet-4-20250514': 5,
        'gpt-via-claude': 5,
        'gemini-2.5-flash': 8,
      }),
    });
    mock.behaviors.set('an-key', { promptTokens: 20, completionTokens: 6, cachedTokens: 100 });
  });

  const lastLog = async (model: string) => {
    await drainWriter(t);
    return t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('model_name', '=', model)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
  };
  const anthropic = () => new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 });
  const genai = () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base } });

  it('Anthropic SDK → Anthropic channel (pass-through), plain and streamed, billed with cache reads', async () => {
    const msg = await anthropic().messages.create({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    expect(mock.requests.at(-1)).toMatchObject({ path: '/v1/messages', key: 'an-key' });
    expect(mock.requests.at(-1)!.headers['anthropic-version']).toBe('2023-06-01');
    const log = await lastLog('claude-sonnet-4-20250514');
    // (20 + 100 × 0.1 cache ratio + 6 × 5) × 1.5 = 90
    expect({ quota: Number(log.quota), prompt: log.prompt_tokens, completion: log.completion_tokens }).toEqual({
      quota: 90,
      prompt: 20,
      completion: 6,
    });
    const stream = anthropic().messages.stream({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(await stream.finalText()).toBe('Hello from the mock!');
    expect(Number((await lastLog('claude-sonnet-4-20250514')).quota)).toBe(90);
  });

  it('Anthropic SDK → OpenAI channel (converted), plain and streamed', async () => {
    const msg = await anthropic().messages.create({
      model: 'claude-via-openai',
      max_tokens: 50,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(msg).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-via-openai',
      stop_reason: 'end_turn',
      usage: { input_tokens: 12, output_tokens: 5 },
    });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body).toMatchObject({
      model: 'gpt-4o-mini',
      max_tokens: 50,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(Number((await lastLog('claude-via-openai')).quota)).toBe(Math.round((12 + 5 * 4) * 0.075));
    const stream = anthropic().messages.stream({
      model: 'claude-via-openai',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const events: string[] = [];
    stream.on('streamEvent', (e) => events.push(e.type));
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    expect(final.usage.output_tokens).toBe(5);
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    const log = await lastLog('claude-via-openai');
    expect(log.is_stream).toBe(1);
    expect(log.completion_tokens).toBe(5);
  });

  it('Google GenAI SDK → Gemini channel (pass-through) and → OpenAI channel (converted), plain and streamed', async () => {
    const direct = await genai().models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });
    expect(direct.text).toBe('Hello from the mock!');
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/v1beta/models/gemini-2.5-flash:generateContent',
      key: 'ge-key',
    });
    expect(Number((await lastLog('gemini-2.5-flash')).quota)).toBe(Math.round((12 + 5 * 8) * 0.15));
    let streamed = '';
    for await (const chunk of await genai().models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' }))
      streamed += chunk.text ?? '';
    expect(streamed).toBe('Hello from the mock!');

    const converted = await genai().models.generateContent({
      model: 'gemini-via-openai',
      contents: 'hi',
      config: { systemInstruction: 'be brief', maxOutputTokens: 40 },
    });
    expect(converted.text).toBe('Hello from the mock!');
    expect(converted.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 5 });
    expect(mock.requests.at(-1)!.body).toMatchObject({
      model: 'gpt-4o-mini',
      max_tokens: 40,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
    let text = '';
    for await (const chunk of await genai().models.generateContentStream({
      model: 'gemini-via-openai',
      contents: 'hi',
    }))
      text += chunk.text ?? '';
    expect(text).toBe('Hello from the mock!');
    const log = await lastLog('gemini-via-openai');
    expect({ stream: log.is_stream, completion: log.completion_tokens, quota: Number(log.quota) }).toEqual({
      stream: 1,
      completion: 5,
      quota: Math.round((12 + 5 * 4) * 0.075),
    });
  });

  it('OpenAI SDK responses.create → chat channel, plain and streamed', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const res = await openai.responses.create({
      model: 'gpt-4o-mini',
      instructions: 'be brief',
      input: 'hi',
      max_output_tokens: 30,
    });
    expect(res.output_text).toBe('Hello from the mock!');
    expect(res.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 });
    expect(mock.requests.at(-1)!.body).toMatchObject({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    });
    const stream = await openai.responses.create({ model: 'gpt-4o-mini', input: 'hi', stream: true });
    let text = '';
    let completed = false;
    for await (const e of stream) {
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type === 'response.completed') completed = e.response.usage?.output_tokens === 5;
    }
    expect(text).toBe('Hello from the mock!');
    expect(completed).toBe(true);
    const log = await lastLog('gpt-4o-mini');
    expect({
      stream: log.is_stream,
      prompt: log.prompt_tokens,
      completion: log.completion_tokens,
      quota: Number(log.quota),
    }).toEqual({
      stream: 1,
      prompt: 12,
      completion: 5,
      quota: 2,
    });
  });

  it('OpenAI SDK chat → Anthropic channel (converted), streamed, and errors in each protocol', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    let text = '';
    for await (const c of await openai.chat.completions.create({
      model: 'gpt-via-claude',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    }))
      text += c.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Hello from the mock!');
    expect(mock.requests.at(-1)!.body).toMatchObject({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 8192,
      stream: true,
    });
    const bad = new Anthropic({ apiKey: 'sk-wrong', baseURL: base, maxRetries: 0 });
    await expect(
      bad.messages.create({
        model: 'claude-sonnet-4-20250514',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toMatchObject({
      status: 401,
      error: { type: 'error', error: { type: 'authentication_error' } },
    });
    const g = await fetch(`${base}/v1beta/models/gemini-2.5-flash:generateContent?key=sk-wrong`, {
      method: 'POST',
      body: '{}',
    });
    expect(g.status).toBe(401);
    expect(((await g.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
  });
});

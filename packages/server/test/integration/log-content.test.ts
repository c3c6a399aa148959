import { describe, expect, it } from 'vitest';
import { CHAT_CONTENT_CAP, CHAT_CONTENT_CUT_MARKER } from '../../src/relay/pipeline/capped-text.js';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter, lastLogOf } from '../support/gateway.js';

/** The mock's default answer (its pieces joined). */
const ANSWER = 'Hello from the mock!';
/** 20 000 characters in 2 000 pieces: longer than the cap. */
const LONG_PIECES = Array.from({ length: 2000 }, (_, i) => `${String(i).padStart(4, '0')}-word `);
const LONG_ANSWER = LONG_PIECES.join('');
const MODELS = [
  'content-off',
  'content-gpt',
  'content-gpt-sse',
  'content-claude',
  'content-claude-sse',
  'content-long-prompt',
];
const LONG_MODELS = ['long-gpt', 'long-gpt-sse', 'long-claude', 'long-claude-sse'];
/** 12 prompt + 5 completion tokens (the mock's usage) × completion ratio 2, model ratio 1. */
const QUOTA = 22;

type Other = Record<string, unknown>;

/**
 * LogChatContentEnabled: the consume log's `other` carries the prompt (input_content) and the answer the client
 * received (output_content), each capped with a marker; off, neither is there. OpenAI pass-through (plain and
 * SSE) and Anthropic Messages converted from the OpenAI upstream (plain and SSE); billing is the same either way.
 */
describe.each(dialects)('chat content in consume logs on %s', (dialect) => {
  let t: TestApp, root: Client, user: Client, base: string, key: string;
  const setOption = async (k: string, value: string) =>
    expect((await root.call('PUT', '/api/option/', { key: k, value })).body.success).toBe(true);
  useGateway(dialect, { user: 'content-user', quota: 50_000_000 }, async (gw) => {
    ({ t, root, user, base, key } = gw);
    await addChannel(root, { name: 'content', key: 'content-key', baseUrl: gw.mock.url, models: MODELS.join(',') });
    await addChannel(root, {
      name: 'content-long',
      key: 'long-key',
      baseUrl: gw.mock.url,
      models: LONG_MODELS.join(','),
    });
    gw.mock.behaviors.set('long-key', { pieces: LONG_PIECES, completionTokens: 5000 });
    await setOption('ModelRatio', JSON.stringify(Object.fromEntries([...MODELS, ...LONG_MODELS].map((m) => [m, 1]))));
    await setOption(
      'CompletionRatio',
      JSON.stringify(Object.fromEntries([...MODELS, ...LONG_MODELS].map((m) => [m, 2]))),
    );
  });

  const openai = async (model: string, stream: boolean, content = 'Say hello') => {
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        model,
        stream,
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content },
        ],
      }),
    });
    expect(res.status).toBe(200);
    return res.text();
  };
  const claude = async (model: string, stream: boolean) => {
    const res = await fetch(`${base}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model,
        stream,
        max_tokens: 100,
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi there' }] }],
      }),
    });
    expect(res.status).toBe(200);
    return res.text();
  };
  const otherOf = async (model: string) => {
    const log = await lastLogOf(t, model);
    return { log, other: JSON.parse(log.other ?? '{}') as Other };
  };
  /** The text of an OpenAI SSE answer's content deltas, as the client received it. */
  const sseText = (body: string) =>
    body
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map(
        (e) =>
          (JSON.parse(e.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '',
      )
      .join('');
  /** The text of an Anthropic SSE answer's text deltas. */
  const claudeSseText = (body: string) =>
    body
      .split('\n\n')
      .map((e) => e.split('\n').find((l) => l.startsWith('data: ')))
      .filter((l): l is string => l !== undefined)
      .map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: { type: string; text?: string } })
      .filter((e) => e.type === 'content_block_delta' && e.delta?.type === 'text_delta')
      .map((e) => e.delta!.text)
      .join('');

  it('keeps no content while the option is off (the default)', async () => {
    expect(JSON.parse(await openai('content-off', false)).choices[0].message.content).toBe(ANSWER);
    const { other } = await otherOf('content-off');
    expect(other).not.toHaveProperty('input_content');
    expect(other).not.toHaveProperty('output_content');
    await openai('content-off', true);
    const { log, other: streamed } = await otherOf('content-off');
    expect(Number(log.quota)).toBe(QUOTA);
    expect(streamed).not.toHaveProperty('input_content');
    expect(streamed).not.toHaveProperty('output_content');
  });

  it('logs the prompt (with the system prompt) and the answer of OpenAI calls, plain and streamed, billed as before', async () => {
    await setOption('LogChatContentEnabled', 'true');
    expect(JSON.parse(await openai('content-gpt', false)).choices[0].message.content).toBe(ANSWER);
    const plain = await otherOf('content-gpt');
    expect(plain.other).toMatchObject({ input_content: 'You are terse.\n\nSay hello', output_content: ANSWER });
    expect([plain.log.prompt_tokens, plain.log.completion_tokens, Number(plain.log.quota)]).toEqual([12, 5, QUOTA]);

    expect(sseText(await openai('content-gpt-sse', true))).toBe(ANSWER);
    const streamed = await otherOf('content-gpt-sse');
    expect(streamed.other).toMatchObject({ input_content: 'You are terse.\n\nSay hello', output_content: ANSWER });
    expect([streamed.log.prompt_tokens, streamed.log.completion_tokens, Number(streamed.log.quota)]).toEqual([
      12,
      5,
      QUOTA,
    ]);
  });

  it('logs the prompt and the answer of Anthropic calls converted from the OpenAI upstream, plain and streamed', async () => {
    const plainBody = JSON.parse(await claude('content-claude', false)) as { content: { text: string }[] };
    expect(plainBody.content[0]!.text).toBe(ANSWER);
    const plain = await otherOf('content-claude');
    expect(plain.other).toMatchObject({ input_content: 'Be brief.\n\nHi there', output_content: ANSWER });

    expect(claudeSseText(await claude('content-claude-sse', true))).toBe(ANSWER);
    const streamed = await otherOf('content-claude-sse');
    expect(streamed.other).toMatchObject({ input_content: 'Be brief.\n\nHi there', output_content: ANSWER });
    expect(Number(plain.log.quota)).toBe(QUOTA);
    expect([streamed.log.prompt_tokens, streamed.log.completion_tokens, Number(streamed.log.quota)]).toEqual([
      12,
      5,
      QUOTA,
    ]);
  });

  it('caps a long answer with the marker while the client receives it whole', async () => {
    const capped = LONG_ANSWER.slice(0, CHAT_CONTENT_CAP) + CHAT_CONTENT_CUT_MARKER;
    expect(JSON.parse(await openai('long-gpt', false)).choices[0].message.content).toBe(LONG_ANSWER);
    expect((await otherOf('long-gpt')).other.output_content).toBe(capped);
    expect(sseText(await openai('long-gpt-sse', true))).toBe(LONG_ANSWER);
    expect((await otherOf('long-gpt-sse')).other.output_content).toBe(capped);
    expect((JSON.parse(await claude('long-claude', false)) as { content: { text: string }[] }).content[0]!.text).toBe(
      LONG_ANSWER,
    );
    expect((await otherOf('long-claude')).other.output_content).toBe(capped);
    expect(claudeSseText(await claude('long-claude-sse', true))).toBe(LONG_ANSWER);
    const streamed = await otherOf('long-claude-sse');
    expect(streamed.other.output_content).toBe(capped);
    expect([streamed.log.completion_tokens, Number(streamed.log.quota)]).toEqual([5000, 12 + 5000 * 2]);
  });

  it('caps a long prompt the same way', async () => {
    const prompt = 'x'.repeat(CHAT_CONTENT_CAP + 500);
    await openai('content-long-prompt', false, prompt);
    const { other } = await otherOf('content-long-prompt');
    expect(other.input_content).toBe(
      `You are terse.\n\n${prompt}`.slice(0, CHAT_CONTENT_CAP) + CHAT_CONTENT_CUT_MARKER,
    );
    expect(other.output_content).toBe(ANSWER);
  });

  it('shows the user their own prompt and answer in their logs', async () => {
    await drainWriter(t);
    const res = await user.call<{ items: { model_name: string; other: string }[] }>(
      'GET',
      '/api/log/self/?page_size=100&model_name=content-gpt',
    );
    expect(res.body.success).toBe(true);
    const other = JSON.parse(res.body.data!.items[0]!.other) as Other;
    expect(other).toMatchObject({ input_content: 'You are terse.\n\nSay hello', output_content: ANSWER });
    expect(other).not.toHaveProperty('admin_info');
  });

  it('stops capturing when the option is turned off again', async () => {
    await setOption('LogChatContentEnabled', 'false');
    await openai('content-gpt', true);
    const { other } = await otherOf('content-gpt');
    expect(other).not.toHaveProperty('output_content');
    expect(other).not.toHaveProperty('input_content');
  });
});

import { createHook } from 'node:async_hooks';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTextTokens } from '../../src/relay/pipeline/token-count.js';
import type { Client, TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter, lastLogOf } from '../support/gateway.js';

/**
 * Stream keep-alive (general_setting.ping_interval_enabled / _seconds): while a streamed answer is idle the
 * relay writes `: PING` SSE comments between events. The mock upstream pauses 2.5 s between chunks; the
 * interval is 1 s. The raw SSE text is read for the pings, the official SDKs for the content; billing and logs
 * are those of an unpinged call. The relay's ping timers are watched with async_hooks (their callback is named
 * `ping`) to show none outlives its stream. Pings live in the relay's stream pump, not the data layer: one database
 * (SQLite) is enough; billing on every database is the billing tests' part.
 */
const liveTimers = new Set<number>();
const timerHook = createHook({
  init(id, type, _trigger, resource) {
    if (type === 'Timeout' && (resource as { _onTimeout?: { name?: string } })._onTimeout?.name === 'ping')
      liveTimers.add(id);
  },
  destroy(id) {
    liveTimers.delete(id);
  },
});
beforeAll(() => void timerHook.enable());
afterAll(() => void timerHook.disable());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MODELS = ['ping-raw', 'ping-sdk', 'ping-claude-raw', 'ping-claude-sdk', 'ping-off', 'ping-cut'];

/** The SSE blocks of a stream's text (events and comments), in order. */
const blocksOf = (text: string) => text.split('\n\n').filter((b) => b !== '');

describe('stream keep-alive pings', () => {
  let t: TestApp, root: Client, base: string, key: string;
  const setOption = async (k: string, value: string) =>
    expect((await root.call('PUT', '/api/option/', { key: k, value })).body.success).toBe(true);
  useGateway('sqlite', { user: 'ping-user', quota: 50_000_000 }, async (gw) => {
    ({ t, root, base, key } = gw);
    await addChannel(root, {
      name: 'ping-slow',
      key: 'slow-key',
      baseUrl: gw.mock.url,
      models: MODELS.filter((m) => m !== 'ping-cut').join(','),
    });
    await addChannel(root, { name: 'ping-cut', key: 'cut-key', baseUrl: gw.mock.url, models: 'ping-cut' });
    gw.mock.behaviors.set('slow-key', {
      pieces: ['Hello', ' world'],
      chunkDelayMs: 2500,
      promptTokens: 12,
      completionTokens: 5,
    });
    gw.mock.behaviors.set('cut-key', { pieces: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], chunkDelayMs: 1500 });
    await setOption('ModelRatio', JSON.stringify(Object.fromEntries(MODELS.map((m) => [m, 1]))));
    await setOption('CompletionRatio', JSON.stringify(Object.fromEntries(MODELS.map((m) => [m, 2]))));
    await setOption('general_setting.ping_interval_enabled', 'true');
    await setOption('general_setting.ping_interval_seconds', '1');
    // The tokenizer loads on the first count (0.5 s, seconds on a loaded machine): an Anthropic stream converted
    // from OpenAI counts its prompt for message_start, and that first load once held "Hello" back until " world"
    // came, leaving no silence between them to ping in. Loaded here, the streams' timing is the upstream's.
    countTextTokens('warm up');
  });

  const chatRaw = (model: string, signal?: AbortSignal) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      signal,
    });
  /** Billing of a pinged call equals an unpinged one: 12 prompt + 5 completion × 2, model ratio 1. */
  const expectBilled = async (model: string) => {
    const log = await lastLogOf(t, model);
    expect({
      prompt: log.prompt_tokens,
      completion: log.completion_tokens,
      quota: Number(log.quota),
      stream: Boolean(log.is_stream),
    }).toEqual({
      prompt: 12,
      completion: 5,
      quota: 22,
      stream: true,
    });
  };
  const contentOf = (blocks: string[]) =>
    blocks
      .filter((b) => b.startsWith('data: {'))
      .map(
        (b) =>
          (JSON.parse(b.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '',
      )
      .join('');

  it('OpenAI stream: `: PING` comments between whole events while the upstream is silent; none after the end; billed as usual', async () => {
    const res = await chatRaw('ping-raw');
    expect(res.status).toBe(200);
    const blocks = blocksOf(await res.text());
    // Every block is a whole event or a ping: no ping inside an event.
    for (const b of blocks) expect(b === ': PING' || b.startsWith('data: ')).toBe(true);
    const first = blocks.findIndex((b) => b.includes('"Hello"'));
    const second = blocks.findIndex((b) => b.includes('" world"'));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(blocks.slice(first + 1, second).filter((b) => b === ': PING').length).toBeGreaterThanOrEqual(1);
    expect(blocks.at(-1)).toBe('data: [DONE]');
    expect(contentOf(blocks)).toBe('Hello world');
    await expectBilled('ping-raw');
  });

  it('the official openai SDK reads the pinged stream unchanged', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const stream = await openai.chat.completions.create({
      model: 'ping-sdk',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello world');
    await expectBilled('ping-sdk');
  });

  it('Anthropic /v1/messages stream converted from the OpenAI upstream: pings between events; @anthropic-ai/sdk reads it', async () => {
    const res = await fetch(`${base}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'ping-claude-raw',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(res.status).toBe(200);
    const blocks = blocksOf(await res.text());
    for (const b of blocks) expect(b === ': PING' || b.startsWith('event: ')).toBe(true);
    const first = blocks.findIndex((b) => b.includes('"Hello"'));
    const second = blocks.findIndex((b) => b.includes('" world"'));
    expect(first).toBeGreaterThanOrEqual(0);
    expect(blocks.slice(first + 1, second).filter((b) => b === ': PING').length).toBeGreaterThanOrEqual(1);
    expect(blocks.at(-1)).toMatch(/^event: message_stop/);
    await expectBilled('ping-claude-raw');

    const anthropic = new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 });
    const final = await anthropic.messages
      .stream({ model: 'ping-claude-sdk', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(final.content).toEqual([expect.objectContaining({ type: 'text', text: 'Hello world' })]);
    expect(final.usage.output_tokens).toBe(5);
    await expectBilled('ping-claude-sdk');
  });

  it('with the option off no ping is written', async () => {
    await setOption('general_setting.ping_interval_enabled', 'false');
    try {
      const res = await chatRaw('ping-off');
      const text = await res.text();
      expect(text).not.toContain(': PING');
      expect(contentOf(blocksOf(text))).toBe('Hello world');
      expect(liveTimers.size).toBe(0);
      await expectBilled('ping-off');
    } finally {
      await setOption('general_setting.ping_interval_enabled', 'true');
    }
  });

  it('a finished stream leaves no ping timer', async () => {
    const res = await chatRaw('ping-raw');
    const reader = res.body!.getReader();
    // While the stream runs its timer exists…
    await reader.read();
    expect(liveTimers.size).toBe(1);
    while (!(await reader.read()).done);
    await drainWriter(t);
    await sleep(20);
    // …and is gone once it ended (without stopping it would stay armed for the next second).
    expect(liveTimers.size).toBe(0);
  });

  it('a client that leaves mid-stream: the pump finishes, the cut call is logged and its ping timer is gone', async () => {
    const before = await t.database.db.kysely
      .selectFrom('logs')
      .select('id')
      .where('model_name', '=', 'ping-cut')
      .execute();
    const abort = new AbortController();
    const res = await chatRaw('ping-cut', abort.signal);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes(': PING')) seen += decoder.decode((await reader.read()).value);
    expect(liveTimers.size).toBe(1);
    abort.abort();
    let rows = before;
    for (let i = 0; i < 100 && rows.length === before.length; i++) {
      await sleep(50);
      await drainWriter(t);
      rows = await t.database.db.kysely.selectFrom('logs').select('id').where('model_name', '=', 'ping-cut').execute();
    }
    expect(rows.length).toBe(before.length + 1);
    await sleep(20);
    expect(liveTimers.size).toBe(0);
  });
});

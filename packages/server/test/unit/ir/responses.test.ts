import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import { openAIResponses as R } from '../../../src/relay/providers/openai/responses.js';
import { SseSplitter } from '../../../src/relay/ir/sse.js';
import type { IRRequest, IRResponse, IRStreamEvent, WireFormat } from '../../../src/relay/ir/types.js';
import {
  completedFromChat,
  encodedStream,
  fromChatStream,
  NOW,
  responseFromIR,
  type WireEvent,
  type WireResponse,
} from '../../fixtures/ir/responses/expected.js';

const text = (name: string): string =>
  readFileSync(new URL(`../../fixtures/ir/responses/${name}`, import.meta.url), 'utf8');
const json = <T = Record<string, unknown>>(name: string): T => JSON.parse(text(name)) as T;

/** Splits SSE text and decodes every event with one state, as the relay does. */
function decodeAll<D>(f: WireFormat<D>, sseText: string): IRStreamEvent[] {
  const state = f.newDecodeState();
  return new SseSplitter().push(sseText).flatMap((ev) => f.decodeEvent(state, ev));
}

function encodeAll(events: IRStreamEvent[], model: string): string {
  const state = R.newEncodeState(model);
  return events.map((e) => R.encodeEvent(state, e)).join('');
}

/** Encoded SSE → its events; each `event:` name must equal the payload's type. */
function parseEvents(sseText: string): WireEvent[] {
  return new SseSplitter().push(sseText).map((ev) => {
    const data = JSON.parse(ev.data) as WireEvent;
    expect(ev.event).toBe(data.type);
    return data;
  });
}

/** An OpenAI SDK client whose every request is answered by `body` (no network). */
const sdkAnswering = (body: string, contentType: string) =>
  new OpenAI({
    apiKey: 'sk-test',
    baseURL: 'http://tollway.test/v1',
    maxRetries: 0,
    fetch: async () => new Response(body, { status: 200, headers: { 'content-type': contentType } }),
  });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW * 1000);
});
afterEach(() => vi.useRealTimers());

describe('Responses requests', () => {
  const ir = json<IRRequest>('request.ir.json');

  it('converts instructions, multi-turn items, images, reasoning, function calls and outputs to the IR', () => {
    expect(R.requestToIR(json('request.json'))).toEqual(ir);
  });

  it('builds a Responses request from the IR (thinking dropped, tools non-strict, nothing stored)', () => {
    expect(R.requestFromIR(ir)).toEqual(json('request.from-ir.json'));
  });

  it('reaches a Chat Completions upstream through the IR', () => {
    expect(openAIChat.requestFromIR(R.requestToIR(json('request.json')))).toEqual(json('request.chat.json'));
  });

  it('reads a Chat Completions request back into the same conversation', () => {
    const back = R.requestToIR(R.requestFromIR(openAIChat.requestToIR(json('request.chat.json'))));
    const withoutThinking = ir.messages.map((m) => ({ ...m, parts: m.parts.filter((p) => p.type !== 'thinking') }));
    expect(back.messages).toEqual(withoutThinking);
    expect(back.system).toEqual([ir.system.join('\n\n')]);
  });

  it('takes a plain string input, sampling, a named tool choice and a JSON schema format', () => {
    const got = R.requestToIR({
      model: 'gpt-4.1',
      input: 'Hi',
      temperature: 0.2,
      top_p: 0.9,
      tool_choice: { type: 'function', name: 'lookup' },
      tools: [
        { type: 'function', name: 'lookup', parameters: null, strict: null },
        { type: 'file_search', vector_store_ids: ['vs_1'] },
      ],
      text: { format: { type: 'json_schema', name: 'city', schema: { type: 'object' }, strict: true } },
    });
    expect(got).toMatchObject({
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
      system: [],
      temperature: 0.2,
      topP: 0.9,
      stream: false,
      toolChoice: { name: 'lookup' },
      tools: [{ name: 'lookup', parameters: { type: 'object', properties: {} } }],
      responseFormat: { type: 'json_schema', name: 'city', schema: { type: 'object' }, strict: true },
    });
    expect(R.requestFromIR(got)).toMatchObject({
      input: [{ role: 'user', content: 'Hi' }],
      temperature: 0.2,
      top_p: 0.9,
      tool_choice: { type: 'function', name: 'lookup' },
      text: { format: { type: 'json_schema', name: 'city', schema: { type: 'object' }, strict: true } },
    });
  });

  it('handles json_object, built-in-only tools, audio input, list outputs and assistant turns split over items', () => {
    const got = R.requestToIR({
      model: 'm',
      text: { format: { type: 'json_object' } },
      tools: [{ type: 'web_search_preview' }],
      tool_choice: { type: 'web_search_preview' },
      input: [
        { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] },
        { role: 'assistant', content: 'Looking.' },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [
            { type: 'input_text', text: 'a' },
            { type: 'input_text', text: 'b' },
          ],
        },
        { type: 'item_reference', id: 'msg_old' },
      ],
    });
    expect(got.responseFormat).toEqual({ type: 'json_object' });
    expect(got.tools).toBeUndefined();
    expect(got.toolChoice).toBeUndefined();
    expect(got.messages).toEqual([
      { role: 'user', parts: [{ type: 'audio', data: 'UklGRg==', format: 'wav' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_call', id: 'c1', name: 'f', arguments: '{}' },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'c1', name: 'f', content: 'ab' }] },
    ]);
    expect(R.requestFromIR(got).input).toEqual([
      { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } }] },
      { role: 'assistant', content: 'Looking.' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'ab' },
    ]);
  });

  it('turns Anthropic-style tool results inside a user message into function_call_output items', () => {
    const body = R.requestFromIR({
      model: 'm',
      system: [],
      stream: false,
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'tool_result', toolCallId: 'toolu_1', content: 'done' },
            { type: 'text', text: 'and now?' },
          ],
        },
      ],
    });
    expect(body.input).toEqual([
      { type: 'function_call_output', call_id: 'toolu_1', output: 'done' },
      { role: 'user', content: 'and now?' },
    ]);
  });
});

describe('Responses answers', () => {
  const ir = json<IRResponse>('response.ir.json');

  it('converts reasoning, output_text, two function calls and cached usage to the IR', () => {
    expect(R.responseToIR(json('response.json'))).toEqual(ir);
  });

  it('builds a complete Response object that the official SDK parses', async () => {
    const body = R.responseFromIR(ir, 'gpt-5');
    expect(body).toEqual(responseFromIR);
    const answer = await sdkAnswering(JSON.stringify(body), 'application/json').responses.create({
      model: 'gpt-5',
      input: 'Book it',
    });
    expect(answer.output_text).toBe('Checking the weather and booking your table now.');
    expect(answer.output.filter((o) => o.type === 'function_call').map((o) => o.name)).toEqual([
      'get_weather',
      'book_table',
    ]);
    expect(R.responseToIR(body)).toEqual({ ...ir, model: 'gpt-5' });
  });

  it('maps incomplete answers both ways', () => {
    const incomplete = {
      id: 'resp_1',
      model: 'm',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [],
    };
    expect(R.responseToIR(incomplete).stopReason).toBe('length');
    expect(R.responseToIR({ ...incomplete, incomplete_details: { reason: 'content_filter' } }).stopReason).toBe(
      'content_filter',
    );
    const body = R.responseFromIR(
      {
        id: 'x1',
        model: 'm',
        parts: [{ type: 'text', text: 'Once upon' }],
        stopReason: 'length',
        usage: { inputTokens: 5, outputTokens: 16, cacheReadTokens: 0, cacheWriteTokens: 3, reasoningTokens: 0 },
      },
      'm',
    );
    expect(body).toMatchObject({
      id: 'resp_x1',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', status: 'incomplete' }],
      usage: {
        input_tokens: 8,
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 3 },
        output_tokens: 16,
        total_tokens: 24,
      },
    });
    expect(R.responseToIR(body).usage).toEqual({
      inputTokens: 5,
      outputTokens: 16,
      cacheReadTokens: 0,
      cacheWriteTokens: 3,
      reasoningTokens: 0,
    });
  });

  it('answers errors in the OpenAI shape', () => {
    expect(R.errorBody(400, 'bad input', 'invalid_request_error')).toEqual({
      error: { message: 'bad input', type: 'invalid_request_error', code: null, param: null },
    });
  });
});

describe('Responses streams', () => {
  const irEvents = json<IRStreamEvent[]>('stream.ir.json');

  it('decodes a recorded stream: reasoning summary parts, text, two function calls, completion with usage', () => {
    expect(decodeAll(R, text('stream.sse'))).toEqual(irEvents);
  });

  it('encodes IR events into the exact event sequence, and decodes it back to the same IR', () => {
    const out = encodeAll(irEvents, 'gpt-5-2025-08-07');
    const events = parseEvents(out);
    expect(events).toEqual(encodedStream);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(decodeAll(R, out)).toEqual(irEvents);
  });

  it('streams a Chat Completions upstream to a Responses client, whole and typed as the SDK Response', async () => {
    const ir = decodeAll(openAIChat, text('chat-stream.sse'));
    expect(ir).toContainEqual({
      type: 'usage',
      usage: { inputTokens: 176, outputTokens: 58, cacheReadTokens: 1024, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
    const out = encodeAll(ir, 'gpt-4.1');
    const events = parseEvents(out);
    expect(events).toEqual(fromChatStream);
    const last = events.at(-1)!;
    if (last.type !== 'response.completed') throw new Error(`ends with ${last.type}`);
    const completed: WireResponse = last.response;
    expect(completed).toEqual(completedFromChat);

    // The official SDK, both raw events and its accumulating stream helper.
    const seen: string[] = [];
    for await (const e of await sdkAnswering(out, 'text/event-stream').responses.create({
      model: 'gpt-4.1',
      input: 'Weather?',
      stream: true,
    }))
      seen.push(e.type);
    expect(seen).toEqual(fromChatStream.map((e) => e.type));
    // (Its stream helper accumulates a snapshot from the item events; it sets no output_text without a parse format.)
    const stream = sdkAnswering(out, 'text/event-stream').responses.stream({ model: 'gpt-4.1', input: 'Weather?' });
    const snapshots: string[] = [];
    stream.on('response.output_text.delta', (e) => snapshots.push(e.snapshot));
    const final = await stream.finalResponse();
    expect(snapshots).toEqual(['Let me check', 'Let me check both.']);
    expect(
      final.output.flatMap((o) =>
        o.type === 'message' ? o.content.map((c) => (c.type === 'output_text' ? c.text : '')) : [],
      ),
    ).toEqual(['Let me check both.']);
    expect(final.output.flatMap((o) => (o.type === 'function_call' ? [o.arguments] : []))).toEqual([
      '{"city":"Paris"}',
      '{"city":"Tokyo"}',
    ]);
    expect(final.usage).toEqual(completedFromChat.usage);
  });

  it('waits for the end to complete, so usage after the stop reason is included', () => {
    const usage = { inputTokens: 3, outputTokens: 2, cacheReadTokens: 4, cacheWriteTokens: 0, reasoningTokens: 0 };
    const events = parseEvents(
      encodeAll(
        [
          { type: 'start', id: 'u1', model: 'x' },
          { type: 'text', text: 'Hi' },
          { type: 'stop', reason: 'stop' },
          { type: 'usage', usage },
          { type: 'end' },
        ],
        'm',
      ),
    );
    expect(events.at(-2)?.type).toBe('response.output_item.done');
    expect(events.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { status: 'completed', usage: { input_tokens: 7, input_tokens_details: { cached_tokens: 4 } } },
    });
    const noUsage = parseEvents(encodeAll([{ type: 'text', text: 'Hi' }, { type: 'end' }], 'm'));
    expect(noUsage.map((e) => e.type).slice(0, 3)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
    ]);
    expect(noUsage.at(-1)).not.toHaveProperty('response.usage');
  });

  it('ends a truncated answer with response.incomplete, and decodes it as length', () => {
    const out = encodeAll(
      [
        { type: 'start', id: 'l1', model: 'x' },
        { type: 'text', text: 'Once' },
        { type: 'stop', reason: 'length' },
        { type: 'end' },
      ],
      'm',
    );
    const events = parseEvents(out);
    expect(events.at(-1)).toMatchObject({
      type: 'response.incomplete',
      response: {
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        output: [{ status: 'incomplete' }],
      },
    });
    expect(decodeAll(R, out)).toEqual([
      { type: 'start', id: 'resp_l1', model: 'm' },
      { type: 'text', text: 'Once' },
      { type: 'stop', reason: 'length' },
      { type: 'end' },
    ]);
  });

  it('reports an error as an error event and response.failed, then stays silent', () => {
    const state = R.newEncodeState('m');
    const out = [
      R.encodeEvent(state, { type: 'start', id: 'e1', model: 'x' }),
      R.encodeEvent(state, { type: 'error', message: 'upstream timed out' }),
      R.encodeEvent(state, { type: 'end' }),
    ].join('');
    const events = parseEvents(out);
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
    expect(events[2]).toEqual({
      type: 'error',
      code: null,
      message: 'upstream timed out',
      param: null,
      sequence_number: 2,
    });
    expect(events[3]).toMatchObject({
      response: { status: 'failed', error: { code: 'server_error', message: 'upstream timed out' } },
    });
    expect(decodeAll(R, out)).toEqual([
      { type: 'start', id: 'resp_e1', model: 'm' },
      { type: 'error', message: 'upstream timed out' },
      { type: 'end' },
    ]);
  });

  it('decodes arguments sent only whole, refusals, raw reasoning text and failures', () => {
    const ev = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
    const sseText = [
      ev({ type: 'response.created', response: { id: 'resp_w', model: 'gpt-oss' } }),
      ev({ type: 'response.reasoning_text.delta', item_id: 'rs', output_index: 0, content_index: 0, delta: 'hmm' }),
      ev({
        type: 'response.output_item.added',
        output_index: 1,
        item: { type: 'function_call', id: 'fc', call_id: 'c9', name: 'f', arguments: '' },
      }),
      ev({ type: 'response.function_call_arguments.done', item_id: 'fc', output_index: 1, arguments: '{"a":1}' }),
      ev({
        type: 'response.output_item.done',
        output_index: 1,
        item: { type: 'function_call', id: 'fc', call_id: 'c9', name: 'f', arguments: '{"a":1}' },
      }),
      ev({ type: 'response.refusal.delta', item_id: 'm', output_index: 2, content_index: 0, delta: 'No.' }),
      ev({
        type: 'response.failed',
        response: {
          id: 'resp_w',
          status: 'failed',
          error: { code: 'server_error', message: 'boom' },
          usage: { input_tokens: 4, output_tokens: 1 },
        },
      }),
    ].join('');
    expect(decodeAll(R, sseText)).toEqual([
      { type: 'start', id: 'resp_w', model: 'gpt-oss' },
      { type: 'thinking', text: 'hmm' },
      { type: 'tool_call_start', index: 0, id: 'c9', name: 'f' },
      { type: 'tool_call_args', index: 0, args: '{"a":1}' },
      { type: 'text', text: 'No.' },
      { type: 'error', message: 'boom' },
      {
        type: 'usage',
        usage: { inputTokens: 4, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      },
      { type: 'end' },
    ]);
  });
});

import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../../src/relay/providers/anthropic/convert.js';
import { cohereChat } from '../../../src/relay/providers/cohere/convert.js';
import { collectStream } from '../../../src/relay/ir/collect.js';
import { cozeChat } from '../../../src/relay/providers/coze/convert.js';
import { difyChat } from '../../../src/relay/providers/dify/convert.js';
import { formatFor } from '../../../src/relay/providers/formats.js';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import { SseSplitter } from '../../../src/relay/ir/sse.js';
import type { IRRequest, IRStreamEvent, UpstreamFormat } from '../../../src/relay/ir/types.js';

const text = (dir: string, name: string): string =>
  readFileSync(new URL(`../../fixtures/ir/${dir}/${name}`, import.meta.url), 'utf8');
const fixture = (dir: string, name: string): any => JSON.parse(text(dir, name));

/** Decodes SSE text split into `size`-character chunks, as a network would cut it. */
function decodeAll(format: UpstreamFormat, sseText: string, size: number): IRStreamEvent[] {
  const state = format.newDecodeState();
  const splitter = new SseSplitter();
  const out: IRStreamEvent[] = [];
  for (let i = 0; i < sseText.length; i += size)
    for (const ev of splitter.push(sseText.slice(i, i + size))) out.push(...format.decodeEvent(state, ev));
  for (const ev of splitter.flush()) out.push(...format.decodeEvent(state, ev));
  return out;
}

const ir = (over: Partial<IRRequest>): IRRequest => ({
  model: 'm',
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  stream: false,
  ...over,
});

describe('Cohere chat v2', () => {
  it('writes an IR request as a v2 chat body: system, images, tool plan and calls, tool results, params, thinking', () => {
    expect(cohereChat.requestFromIR(fixture('cohere', 'request.ir.json'))).toEqual(fixture('cohere', 'request.json'));
  });

  it('takes an OpenAI request; a named tool choice offers only that tool, required', () => {
    const body = cohereChat.requestFromIR(
      openAIChat.requestToIR({
        model: 'command-r',
        messages: [{ role: 'user', content: 'x' }],
        tools: [
          { type: 'function', function: { name: 'a', parameters: { type: 'object' } } },
          { type: 'function', function: { name: 'b', parameters: { type: 'object' } } },
        ],
        tool_choice: { type: 'function', function: { name: 'b' } },
      }),
    );
    expect(body).toMatchObject({ tools: [{ type: 'function', function: { name: 'b' } }], tool_choice: 'REQUIRED' });
    expect(cohereChat.requestFromIR(ir({ toolChoice: 'none' })).tool_choice).toBe('NONE');
    expect(cohereChat.requestFromIR(ir({})).tool_choice).toBeUndefined();
  });

  it('reads a tool-call answer: plan as thinking, several calls, billed units (not raw tokens) as usage', () => {
    expect(cohereChat.responseToIR(fixture('cohere', 'response-tools.json'))).toEqual(
      fixture('cohere', 'response-tools.ir.json'),
    );
  });

  it('reads a text answer with thinking; usage.tokens when no billed units; MAX_TOKENS is length', () => {
    const res = cohereChat.responseToIR(fixture('cohere', 'response-text.json'));
    expect(res).toMatchObject({
      parts: [
        { type: 'thinking', text: 'The user says hello.' },
        { type: 'text', text: 'Hello! How can I' },
      ],
      stopReason: 'length',
      usage: { inputTokens: 5, outputTokens: 12 },
    });
    expect(openAIChat.responseFromIR(res, 'command-r')).toMatchObject({
      choices: [
        {
          message: { content: 'Hello! How can I', reasoning_content: 'The user says hello.' },
          finish_reason: 'length',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 12 },
    });
  });

  it.each([1, 7, 64, 100_000])(
    'decodes the stream cut every %i characters: thinking, text, two tool calls, stop, usage',
    (size) => {
      expect(decodeAll(cohereChat, text('cohere', 'stream.sse'), size)).toEqual(fixture('cohere', 'stream.ir.json'));
    },
  );

  it('re-encodes the stream for an Anthropic client with both tool calls and the usage', () => {
    const state = anthropicMessages.newEncodeState('command-r');
    const out = (fixture('cohere', 'stream.ir.json') as IRStreamEvent[])
      .map((e) => anthropicMessages.encodeEvent(state, e))
      .join('');
    expect(out).toContain('"name":"get_weather"');
    expect(out).toContain('"name":"get_time"');
    expect(out).toContain('"stop_reason":"tool_use"');
    expect(out).toContain('"output_tokens":28');
  });
});

describe('Dify chat-messages', () => {
  it('sends the last user message as the query, the system prompt as an input, image URLs as files, always streaming', () => {
    const body = difyChat.requestFromIR(
      ir({
        system: ['be brief'],
        stream: true,
        user: 'alice',
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'first' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'ok' }] },
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'What is ' },
              { type: 'text', text: 'this?' },
              { type: 'image', url: 'https://example.com/a.png' },
            ],
          },
        ],
      }),
    );
    expect(body).toEqual({
      inputs: { system: 'be brief' },
      query: 'What is this?',
      response_mode: 'streaming',
      user: 'alice',
      files: [{ type: 'image', transfer_method: 'remote_url', url: 'https://example.com/a.png' }],
    });
    expect(difyChat.requestFromIR(ir({}))).toEqual({
      inputs: {},
      query: 'Hi',
      response_mode: 'streaming',
      user: 'tollway',
    });
  });

  it('reads a blocking answer with metadata.usage', () => {
    expect(difyChat.responseToIR(fixture('dify', 'response.json'))).toEqual({
      id: '9da23599-e713-473b-982c-4328d4f5c78a',
      model: '',
      parts: [{ type: 'text', text: 'iPhone 13 Pro Max specs are listed here:...' }],
      stopReason: 'stop',
      usage: { inputTokens: 1033, outputTokens: 128, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
  });

  it.each([1, 5, 50, 100_000])(
    'decodes the stream cut every %i characters: message and agent_message text, message_end usage',
    (size) => {
      expect(decodeAll(difyChat, text('dify', 'stream.sse'), size)).toEqual(fixture('dify', 'stream.ir.json'));
    },
  );

  it('an error event ends the stream with the error', () => {
    const events = decodeAll(
      difyChat,
      'data: {"event": "error", "task_id": "t", "message_id": "m", "status": 400, "code": "invalid_param", "message": "query is required"}\n\ndata: {"event": "message", "answer": "late"}\n\n',
      9,
    );
    expect(events).toEqual([
      { type: 'start', id: 'm', model: '' },
      { type: 'error', message: 'query is required' },
      { type: 'stop', reason: 'error' },
      { type: 'end' },
    ]);
  });
});

describe('Coze chat v3', () => {
  it('sends the bot (model) and the conversation as additional messages, always streaming; images as object_string', () => {
    const body = cozeChat.requestFromIR(
      ir({
        model: '7379462189365198898',
        system: ['ignored: the bot has its persona'],
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'hello' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'Hi!' }] },
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'what is this' },
              { type: 'image', url: 'https://example.com/cat.jpg' },
            ],
          },
        ],
      }),
    );
    expect(body).toEqual({
      bot_id: '7379462189365198898',
      user_id: 'tollway',
      stream: true,
      auto_save_history: false,
      additional_messages: [
        { role: 'user', type: 'question', content: 'hello', content_type: 'text' },
        { role: 'assistant', type: 'answer', content: 'Hi!', content_type: 'text' },
        {
          role: 'user',
          type: 'question',
          content: '[{"type":"text","text":"what is this"},{"type":"image","file_url":"https://example.com/cat.jpg"}]',
          content_type: 'object_string',
        },
      ],
    });
  });

  it.each([1, 13, 100_000])(
    'decodes the stream cut every %i characters: reasoning, answer deltas only, chat.completed usage',
    (size) => {
      expect(decodeAll(cozeChat, text('coze', 'stream.sse'), size)).toEqual(fixture('coze', 'stream.ir.json'));
    },
  );

  it('a failed chat ends with its last_error message', () => {
    expect(decodeAll(cozeChat, text('coze', 'stream-failed.sse'), 11).slice(1)).toEqual([
      { type: 'error', message: 'The bot is not published to the API channel.' },
      { type: 'stop', reason: 'error' },
      { type: 'end' },
    ]);
  });

  it('a plain client call is the stream collected into one answer (reasoning and text joined, usage kept)', async () => {
    const bytes = Buffer.from(text('coze', 'stream.sse'));
    const chunks = [bytes.subarray(0, 301), bytes.subarray(301, 302), bytes.subarray(302)];
    const collected = await collectStream(Readable.from(chunks), formatFor('coze'));
    expect(collected).toMatchObject({ error: undefined, sawUsage: true });
    expect(collected.response).toEqual({
      id: '7382159487131697202',
      model: '',
      parts: [
        { type: 'thinking', text: 'The user greets me.' },
        { type: 'text', text: '2024 年 10 月 1 日 – sunny' },
      ],
      stopReason: 'stop',
      usage: { inputTokens: 614, outputTokens: 19, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
    const failed = await collectStream(
      Readable.from([Buffer.from(text('coze', 'stream-failed.sse'))]),
      formatFor('coze'),
    );
    expect(failed.error).toBe('The bot is not published to the API channel.');
  });

  it('collects streamed tool calls by index', async () => {
    const collected = await collectStream(Readable.from([text('cohere', 'stream.sse')]), cohereChat);
    expect(collected.response.parts.filter((p) => p.type === 'tool_call')).toEqual([
      { type: 'tool_call', id: 'get_weather_nsz5zm3w56q3', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'tool_call', id: 'get_time_k2', name: 'get_time', arguments: '{"city":"Paris"}' },
    ]);
  });

  it('upstream-only formats have no client side', () => {
    for (const f of [cozeChat, cohereChat]) expect('requestToIR' in f || 'encodeEvent' in f).toBe(false);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  anthropicMessages as A,
  anthropicRequestFromIR,
  DEFAULT_MAX_TOKENS,
} from '../../../src/relay/providers/anthropic/convert.js';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import { SseSplitter } from '../../../src/relay/ir/sse.js';
import type { IRRequest, IRStreamEvent, IRUsage, WireFormat } from '../../../src/relay/ir/types.js';

const text = (name: string): string =>
  readFileSync(new URL(`../../fixtures/ir/anthropic/${name}`, import.meta.url), 'utf8');
const fixture = (name: string): any => JSON.parse(text(name));

/** Splits SSE text in awkward 37-character chunks, as a network would, and decodes every event. */
function decodeAll<D>(format: WireFormat<D, any>, sseText: string): IRStreamEvent[] {
  const state = format.newDecodeState();
  const splitter = new SseSplitter();
  const out: IRStreamEvent[] = [];
  for (let i = 0; i < sseText.length; i += 37)
    for (const ev of splitter.push(sseText.slice(i, i + 37))) out.push(...format.decodeEvent(state, ev));
  for (const ev of splitter.flush()) out.push(...format.decodeEvent(state, ev));
  return out;
}

const encodeAll = (events: IRStreamEvent[], model = 'claude-sonnet-4-5'): string => {
  const state = A.newEncodeState(model);
  return events.map((e) => A.encodeEvent(state, e)).join('');
};

/** The `event:` names of SSE text, in order. */
const names = (sseText: string): string[] => [...sseText.matchAll(/^event: (.+)$/gm)].map((m) => m[1]!);

const usage = (u: Partial<IRUsage>): IRUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  ...u,
});
const ir = (over: Partial<IRRequest>): IRRequest => ({
  model: 'claude-sonnet-4-5',
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  stream: false,
  ...over,
});

describe('Anthropic requests', () => {
  it('reads system blocks, images, tool turns, thinking and every parameter into IR', () => {
    expect(A.requestToIR(fixture('request.json'))).toEqual(fixture('request.ir.json'));
  });

  it('writes the IR back as the same Anthropic request, minus cache_control and tool-result block structure', () => {
    const expected = fixture('request.json');
    expected.system = [
      { type: 'text', text: 'You are a travel assistant.' },
      { type: 'text', text: 'Answer briefly.' },
    ];
    expected.messages[2].content[1].content = '14:05\nPDT (UTC-7)';
    expect(A.requestFromIR(fixture('request.ir.json'))).toEqual(expected);
  });

  it('reaches an OpenAI upstream: system message, image_url parts, tool_calls and tool messages', () => {
    expect(openAIChat.requestFromIR(A.requestToIR(fixture('request.json')))).toEqual(fixture('request.openai.json'));
  });

  it('takes an OpenAI request: merged roles, data URLs as base64, tool messages as user tool_result blocks first', () => {
    const body = A.requestFromIR(
      openAIChat.requestToIR({
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'Be terse.' },
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'text', text: 'What is this?' },
            ],
          },
          { role: 'user', content: 'And the weather?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '-3 °C' },
          { role: 'user', content: 'Thanks' },
          { role: 'assistant', content: '' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
        tool_choice: 'required',
        parallel_tool_calls: false,
        temperature: 0.2,
      }),
    );
    expect(body).toEqual({
      model: 'gpt-4o',
      max_tokens: DEFAULT_MAX_TOKENS,
      system: 'Be terse.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'text', text: 'What is this?' },
            { type: 'text', text: 'And the weather?' },
          ],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { location: 'Oslo' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: '-3 °C' },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
      temperature: 0.2,
      tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
  });

  it('maps tool_choice both ways', () => {
    const tools = [{ name: 'f', parameters: { type: 'object' } }];
    const cases: [any, any][] = [
      [{ type: 'auto' }, 'auto'],
      [{ type: 'any' }, 'required'],
      [{ type: 'none' }, 'none'],
      [{ type: 'tool', name: 'f' }, { name: 'f' }],
    ];
    for (const [wire, choice] of cases) {
      expect(A.requestToIR({ model: 'm', max_tokens: 1, messages: [], tool_choice: wire }).toolChoice).toEqual(choice);
      expect(A.requestFromIR(ir({ tools, toolChoice: choice })).tool_choice).toEqual(wire);
    }
    expect(A.requestFromIR(ir({ toolChoice: 'auto' })).tool_choice).toBeUndefined();
  });

  it('maps reasoning effort to a thinking budget and keeps max_tokens above it', () => {
    const think = (over: Partial<IRRequest>) => {
      const b = A.requestFromIR(ir(over)) as any;
      return [b.max_tokens, b.thinking?.budget_tokens];
    };
    expect(think({ reasoning: { effort: 'minimal' } })).toEqual([8192, 1024]);
    expect(think({ reasoning: { effort: 'low' } })).toEqual([8192, 1024]);
    expect(think({ reasoning: { effort: 'medium' } })).toEqual([8192, 4096]);
    expect(think({ reasoning: { effort: 'high' } })).toEqual([16384 + 8192, 16384]);
    expect(think({ reasoning: { effort: 'high' }, maxTokens: 32000 })).toEqual([32000, 16384]);
    expect(think({ reasoning: { effort: 'high' }, maxTokens: 4000 })).toEqual([4000, 3999]);
    expect(think({ reasoning: { budgetTokens: 2000 }, maxTokens: 1000 })).toEqual([1000, undefined]);
    expect(think({})).toEqual([8192, undefined]);
    expect(anthropicRequestFromIR(ir({}), 4096).max_tokens).toBe(4096);
  });

  it('drops sampling changes Anthropic rejects with thinking on, and unsigned thinking it cannot verify', () => {
    const b: any = A.requestFromIR(
      ir({
        reasoning: { effort: 'medium' },
        temperature: 0.3,
        topK: 5,
        topP: 0.9,
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'thinking', text: 'from an OpenAI model' },
              { type: 'text', text: 'Hello' },
            ],
          },
        ],
      }),
    );
    expect(b).not.toHaveProperty('temperature');
    expect(b).not.toHaveProperty('top_k');
    expect(b).not.toHaveProperty('top_p');
    expect(b.messages[1]).toEqual({ role: 'assistant', content: 'Hello' });
    expect(A.requestFromIR(ir({ temperature: 0.3, topK: 5, topP: 0.9 }))).toMatchObject({
      temperature: 0.3,
      top_k: 5,
      top_p: 0.9,
    });
  });

  it('reads string system, disabled thinking, errors in tool results and skips server tools', () => {
    const r = A.requestToIR({
      model: 'm',
      max_tokens: 100,
      system: 'Sys',
      thinking: { type: 'disabled' },
      tools: [
        { type: 'web_search_20250305', name: 'web_search' },
        { name: 'f', input_schema: { type: 'object' } },
      ],
      messages: [
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'boom', is_error: true }] },
      ],
    });
    expect(r.system).toEqual(['Sys']);
    expect(r.reasoning).toBeUndefined();
    expect(r.tools).toEqual([{ name: 'f', parameters: { type: 'object' } }]);
    expect(r.messages).toEqual([
      { role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'toolu_1', content: 'boom', isError: true }] },
    ]);
    expect(A.requestFromIR(r).messages).toEqual([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'boom', is_error: true }] },
    ]);
  });
});

describe('Anthropic responses', () => {
  it('reads thinking, text, two tool_use blocks and cache usage into IR, and writes them back unchanged', () => {
    const parsed = A.responseToIR(fixture('response.json'));
    expect(parsed).toEqual(fixture('response.ir.json'));
    expect(A.responseFromIR(parsed, 'claude-sonnet-4-5-20250929')).toEqual(fixture('response.json'));
  });

  it('answers an Anthropic client from an OpenAI upstream: cached tokens move out of input_tokens', () => {
    const parsed = openAIChat.responseToIR(fixture('openai-response.json'));
    expect(parsed.usage).toEqual(usage({ inputTokens: 400, outputTokens: 52, cacheReadTokens: 600 }));
    expect(A.responseFromIR(parsed, 'claude-sonnet-4-5')).toEqual(fixture('openai-response.anthropic.json'));
  });

  it('answers an OpenAI client from an Anthropic upstream: cache reads and writes count in prompt_tokens', () => {
    const out = openAIChat.responseFromIR(A.responseToIR(fixture('response.json')), 'claude') as any;
    expect(out.usage).toEqual({
      prompt_tokens: 2468,
      completion_tokens: 187,
      total_tokens: 2655,
      prompt_tokens_details: { cached_tokens: 1800, cache_creation_tokens: 256 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(out.choices[0].finish_reason).toBe('tool_calls');
    expect(out.choices[0].message.tool_calls.map((c: any) => c.function.name)).toEqual(['get_weather', 'get_time']);
  });

  it('maps stop reasons and redacted thinking', () => {
    const stops: [string, string][] = [
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['max_tokens', 'length'],
      ['tool_use', 'tool_calls'],
      ['refusal', 'content_filter'],
    ];
    for (const [wire, reason] of stops)
      expect(A.responseToIR({ stop_reason: wire, content: [] }).stopReason).toBe(reason);
    const r = A.responseToIR({
      id: 'msg_1',
      content: [{ type: 'redacted_thinking', data: 'opaque' }],
      stop_reason: 'end_turn',
    });
    expect(r.parts).toEqual([{ type: 'thinking', text: '', signature: 'opaque', redacted: true }]);
    expect(A.responseFromIR(r, 'm').content).toEqual([{ type: 'redacted_thinking', data: 'opaque' }]);
    expect(A.responseFromIR({ ...r, id: 'abc', stopReason: 'length' }, 'm')).toMatchObject({
      id: 'msg_abc',
      stop_reason: 'max_tokens',
      stop_sequence: null,
    });
  });
});

describe('Anthropic streams', () => {
  it('decodes a recorded-style stream: thinking with signature, text, two tool_use blocks, final usage', () => {
    expect(decodeAll(A, text('stream.sse'))).toEqual(fixture('stream.ir.json'));
  });

  it('decodes error events, skips ping and redacted blocks, and prefers message_delta input counts', () => {
    const s = A.newDecodeState();
    const d = (data: any) => A.decodeEvent(s, { event: data.type, data: JSON.stringify(data) });
    expect(
      d({ type: 'message_start', message: { id: 'msg_1', model: 'm', usage: { input_tokens: 10, output_tokens: 1 } } }),
    ).toHaveLength(1);
    expect(d({ type: 'ping' })).toEqual([]);
    expect(
      d({ type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'x' } }),
    ).toEqual([]);
    expect(
      d({
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'tool_use', id: 't', name: 'f', input: { a: 1 } },
      }),
    ).toEqual([
      { type: 'tool_call_start', index: 0, id: 't', name: 'f' },
      { type: 'tool_call_args', index: 0, args: '{"a":1}' },
    ]);
    expect(
      d({
        type: 'message_delta',
        delta: { stop_reason: 'max_tokens' },
        usage: { input_tokens: 12, cache_read_input_tokens: 3, output_tokens: 9 },
      }),
    ).toEqual([
      { type: 'stop', reason: 'length' },
      { type: 'usage', usage: usage({ inputTokens: 12, outputTokens: 9, cacheReadTokens: 3 }) },
    ]);
    expect(d({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toEqual([
      { type: 'error', message: 'Overloaded' },
    ]);
    expect(A.decodeEvent(s, { data: 'not json' })).toEqual([]);
  });

  it('encodes IR events, usage arriving after stop, as the exact Anthropic event sequence, and decodes it back', () => {
    const events: IRStreamEvent[] = fixture('encode.ir.json');
    const encoded = encodeAll(events);
    expect(encoded).toBe(text('encode.sse'));
    const back = decodeAll(A, encoded);
    expect(back).toEqual(events.map((e) => (e.type === 'start' ? { ...e, model: 'claude-sonnet-4-5' } : e)));
  });

  it('relays an OpenAI upstream stream to an Anthropic client with the usage chunk that comes last', () => {
    const chunk = (delta: any, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const upstream =
      chunk({ role: 'assistant', content: '' }) +
      chunk({ content: 'Hello' }) +
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] }) +
      chunk({}, 'tool_calls') +
      `data: ${JSON.stringify({ id: 'chatcmpl-1', choices: [], usage: { prompt_tokens: 1000, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 600 } } })}\n\n` +
      'data: [DONE]\n\n';
    const encoded = encodeAll(decodeAll(openAIChat, upstream));
    expect(names(encoded)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const back = decodeAll(A, encoded);
    expect(back.at(0)).toEqual({ type: 'start', id: 'msg_chatcmpl-1', model: 'claude-sonnet-4-5' });
    expect(back.slice(-3)).toEqual([
      { type: 'stop', reason: 'tool_calls' },
      { type: 'usage', usage: usage({ inputTokens: 400, outputTokens: 20, cacheReadTokens: 600 }) },
      { type: 'end' },
    ]);
  });

  it('keeps the sequence valid whatever order events come in', () => {
    // No start, no stop, no usage: message_start with a generated id and zero usage, end_turn on end.
    const bare = encodeAll([{ type: 'text', text: 'Hi' }, { type: 'end' }]);
    expect(names(bare)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(bare).toMatch(/"id":"msg_[a-z0-9]+"/);
    expect(bare).toContain(
      '"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0}',
    );
    expect(bare).toContain('"delta":{"stop_reason":"end_turn","stop_sequence":null}');

    // text → tool → text: a new block each time; a tool call never stopped explicitly still says tool_use.
    const mixed = decodeAll(
      A,
      encodeAll([
        { type: 'text', text: 'a' },
        { type: 'tool_call_args', index: 0, args: '{}' },
        { type: 'text', text: 'b' },
        { type: 'thinking', text: 'x', signature: 's1' },
        { type: 'thinking', text: 'y' },
        { type: 'end' },
      ]),
    );
    expect(mixed.filter((e) => e.type !== 'start')).toEqual([
      { type: 'text', text: 'a' },
      { type: 'tool_call_start', index: 0, id: expect.stringMatching(/^toolu_/), name: '' },
      { type: 'tool_call_args', index: 0, args: '{}' },
      { type: 'text', text: 'b' },
      { type: 'thinking', text: 'x' },
      { type: 'thinking', text: '', signature: 's1' },
      { type: 'thinking', text: 'y' },
      { type: 'stop', reason: 'tool_calls' },
      { type: 'usage', usage: usage({}) },
      { type: 'end' },
    ]);
  });

  it('ends the message only at the end (content after a stop still counts), and carries usage known before the start', () => {
    const s = A.newEncodeState('m');
    const first = A.encodeEvent(s, { type: 'usage', usage: usage({ inputTokens: 7, cacheReadTokens: 2 }) });
    expect(first).toContain(
      '"usage":{"input_tokens":7,"cache_creation_input_tokens":0,"cache_read_input_tokens":2,"output_tokens":0}',
    );
    A.encodeEvent(s, { type: 'text', text: 'x' });
    expect(A.encodeEvent(s, { type: 'stop', reason: 'stop' })).toBe('');
    expect(
      A.encodeEvent(s, { type: 'usage', usage: usage({ inputTokens: 7, cacheReadTokens: 2, outputTokens: 5 }) }),
    ).toBe('');
    expect(names(A.encodeEvent(s, { type: 'text', text: 'late' }))).toEqual(['content_block_delta']);
    const last = A.encodeEvent(s, { type: 'end' });
    expect(names(last)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(last).toContain(
      '"usage":{"input_tokens":7,"cache_creation_input_tokens":0,"cache_read_input_tokens":2,"output_tokens":5}',
    );
    expect(A.encodeEvent(s, { type: 'end' })).toBe('');

    // Usage, then stop, then end with no later usage: message_delta on end with the last usage.
    const gemini = encodeAll([
      { type: 'text', text: 'x' },
      { type: 'usage', usage: usage({ inputTokens: 3, outputTokens: 4 }) },
      { type: 'stop', reason: 'length' },
      { type: 'end' },
    ]);
    expect(decodeAll(A, gemini).slice(-3)).toEqual([
      { type: 'stop', reason: 'length' },
      { type: 'usage', usage: usage({ inputTokens: 3, outputTokens: 4 }) },
      { type: 'end' },
    ]);
  });

  it('sends an error event and nothing after it', () => {
    const s = A.newEncodeState('m');
    A.encodeEvent(s, { type: 'text', text: 'x' });
    expect(A.encodeEvent(s, { type: 'error', message: 'upstream died' })).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"upstream died"}}\n\n',
    );
    expect(A.encodeEvent(s, { type: 'end' })).toBe('');
  });
});

describe('Anthropic errors', () => {
  it('chooses the error type from the HTTP status', () => {
    const types: [number, string][] = [
      [400, 'invalid_request_error'],
      [422, 'invalid_request_error'],
      [401, 'authentication_error'],
      [403, 'permission_error'],
      [404, 'not_found_error'],
      [413, 'request_too_large'],
      [429, 'rate_limit_error'],
      [500, 'api_error'],
      [502, 'api_error'],
      [503, 'overloaded_error'],
      [529, 'overloaded_error'],
    ];
    for (const [status, type] of types)
      expect(A.errorBody(status, 'msg')).toEqual({ type: 'error', error: { type, message: 'msg' } });
    expect(A.errorBody(500, 'm', 'tollway_error')).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'm' },
    });
    expect(A.errorBody(400, 'm', 'rate_limit_error')).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'm' },
    });
  });
});

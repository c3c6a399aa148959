import { describe, expect, it } from 'vitest';
import { geminiGenerate } from '../../../src/relay/providers/gemini/convert.js';
import type { IRStreamEvent } from '../../../src/relay/ir/types.js';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import { decodeGemini, encodeGemini, events, fixture, json, usage, withoutStartUsage } from './gemini-helpers.js';

describe('gemini responses', () => {
  it('golden: response → IR (thoughts billed as output, cached tokens out of input)', () => {
    expect(geminiGenerate.responseToIR(json('response.json'))).toEqual(json('response.ir.json'));
  });

  it('golden: IR → response', () => {
    expect(geminiGenerate.responseFromIR(json('response.ir.json'), 'gemini-2.5-flash')).toStrictEqual(
      json('response.from-ir.json'),
    );
  });

  it('cross-format: Gemini usage bills the same through OpenAI semantics', () => {
    const openai = openAIChat.responseFromIR(
      geminiGenerate.responseToIR(json('response.json')),
      'gemini-2.5-flash',
    ) as { usage: unknown; choices: { finish_reason: string }[] };
    expect(openai.choices[0]!.finish_reason).toBe('tool_calls');
    expect(openai.usage).toEqual({
      prompt_tokens: 1200,
      completion_tokens: 380,
      total_tokens: 1580,
      prompt_tokens_details: { cached_tokens: 1024 },
      completion_tokens_details: { reasoning_tokens: 332 },
    });
  });

  it.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['SPII', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'error'],
    ['OTHER', 'stop'],
  ])('finishReason %s → %s', (finishReason, stop) => {
    expect(
      geminiGenerate.responseToIR({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason }] }).stopReason,
    ).toBe(stop);
  });

  it('a blocked prompt is a content filter stop', () => {
    expect(
      geminiGenerate.responseToIR({
        promptFeedback: { blockReason: 'SAFETY' },
        usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
      }),
    ).toEqual({
      id: '',
      model: '',
      parts: [],
      stopReason: 'content_filter',
      usage: usage(9, 0),
    });
  });

  it.each([
    [400, 'INVALID_ARGUMENT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'PERMISSION_DENIED'],
    [404, 'NOT_FOUND'],
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'INTERNAL'],
    [503, 'UNAVAILABLE'],
  ])('error body for %i', (code, status) => {
    expect(geminiGenerate.errorBody(code, 'nope')).toEqual({ error: { code, message: 'nope', status } });
  });
});

describe('gemini streams', () => {
  it('golden: alt=sse chunks → IR events (the first chunk’s usage rides on start)', () => {
    const decoded = decodeGemini(fixture('stream.sse'));
    expect(decoded[0]).toMatchObject({ type: 'start', usage: usage(176, 0, 1024) });
    expect(withoutStartUsage(decoded)).toEqual(json('stream.ir.json'));
    expect(withoutStartUsage(decodeGemini(fixture('stream.sse').replace(/\n/g, '\r\n')))).toEqual(
      json('stream.ir.json'),
    );
  });

  it('golden: IR events (usage after stop) → exact alt=sse text, which decodes back', () => {
    const input = json<IRStreamEvent[]>('encode.ir.json');
    const text = encodeGemini(input);
    expect(text).toBe(fixture('encode.sse'));
    expect(decodeGemini(text)).toEqual([
      { type: 'start', id: 'msg_01XFDUDYJgAACzvnptvVoYEL', model: 'gemini-2.5-flash' },
      { type: 'thinking', text: 'Two cities, so two calls.', signature: 'ErUBCkYIBxgCIkB0ZXN0' },
      { type: 'text', text: 'Checking' },
      { type: 'text', text: ' both.' },
      { type: 'tool_call_start', index: 0, id: 'toolu_01A', name: 'get_weather' },
      { type: 'tool_call_args', index: 0, args: '{"city":"London"}' },
      { type: 'tool_call_start', index: 1, id: 'toolu_01B', name: 'get_weather' },
      { type: 'tool_call_args', index: 1, args: '{"city":"Paris"}' },
      { type: 'stop', reason: 'tool_calls' },
      { type: 'usage', usage: input.find((e) => e.type === 'usage')!.usage },
      { type: 'end' },
    ]);
  });

  it('Gemini stream → IR → Gemini stream → IR is stable (signatures stay on their call)', () => {
    const once = withoutStartUsage(decodeGemini(fixture('stream.sse')));
    expect(decodeGemini(encodeGemini(once))).toEqual(once);
  });

  it('cross-format: OpenAI streamed chunks → IR → exact Gemini alt=sse', () => {
    const state = openAIChat.newDecodeState();
    const irEvents = events(fixture('openai-stream.sse')).flatMap((e) => openAIChat.decodeEvent(state, e));
    expect(encodeGemini(irEvents)).toBe(fixture('openai-stream.gemini.sse'));
  });

  it('cross-format: a Gemini stream reaches an OpenAI client with usage', () => {
    const s = openAIChat.newEncodeState('gemini-2.5-flash');
    openAIChat.includeUsage(s, true);
    const out = decodeGemini(fixture('stream.sse'))
      .map((e) => openAIChat.encodeEvent(s, e))
      .join('');
    const chunks = events(out).map((e) => e.data);
    expect(chunks.at(-1)).toBe('[DONE]');
    const last = JSON.parse(chunks.at(-2)!);
    expect(last.usage).toMatchObject({
      prompt_tokens: 1200,
      completion_tokens: 320,
      prompt_tokens_details: { cached_tokens: 1024 },
      completion_tokens_details: { reasoning_tokens: 280 },
    });
    expect(out).toContain('"finish_reason":"tool_calls"');
  });

  it('usage comes from the last chunk when no finishReason arrives, and finish is idempotent', () => {
    const state = geminiGenerate.newDecodeState();
    const a = geminiGenerate.decodeEvent(state, {
      data: '{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1},"responseId":"r"}',
    });
    expect(a).toEqual([
      { type: 'start', id: 'r', model: '', usage: usage(5, 1) },
      { type: 'text', text: 'Hi' },
    ]);
    expect(geminiGenerate.finish(state)).toEqual([{ type: 'usage', usage: usage(5, 1) }, { type: 'end' }]);
    expect(geminiGenerate.finish(state)).toEqual([]);
  });

  it('usage on a chunk after the finishReason chunk is reported once', () => {
    const state = geminiGenerate.newDecodeState();
    const out = [
      '{"candidates":[{"content":{"parts":[{"text":"x"}]},"finishReason":"MAX_TOKENS"}]}',
      '{"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":7}}',
      '{"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":7}}',
    ].flatMap((data) => geminiGenerate.decodeEvent(state, { data }));
    expect([...out, ...geminiGenerate.finish(state)]).toEqual([
      { type: 'start', id: '', model: '' },
      { type: 'text', text: 'x' },
      { type: 'stop', reason: 'length' },
      { type: 'usage', usage: usage(3, 7) },
      { type: 'end' },
    ]);
  });

  it('an error chunk becomes an error event; the encoder writes it in Gemini shape', () => {
    const state = geminiGenerate.newDecodeState();
    expect(
      geminiGenerate.decodeEvent(state, {
        data: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}',
      }),
    ).toEqual([
      { type: 'start', id: '', model: '' },
      { type: 'error', message: 'The model is overloaded.' },
    ]);
    expect(encodeGemini([{ type: 'error', message: 'boom' }, { type: 'end' }])).toBe(
      'data: {"error":{"code":500,"message":"boom","status":"INTERNAL"}}\n\n',
    );
  });

  it('usage before stop waits for the end; a later usage wins', () => {
    const head: IRStreamEvent[] = [
      { type: 'start', id: 'r1', model: 'm' },
      { type: 'usage', usage: usage(10, 0) },
      { type: 'text', text: 'ok' },
      { type: 'stop', reason: 'stop' },
    ];
    const final = (u: ReturnType<typeof usage>) =>
      `data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"usageMetadata":${JSON.stringify({ promptTokenCount: u.inputTokens, candidatesTokenCount: u.outputTokens, totalTokenCount: u.inputTokens + u.outputTokens })},"modelVersion":"g","responseId":"r1"}\n\n`;
    const textChunk =
      'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"index":0}],"modelVersion":"g","responseId":"r1"}\n\n';
    expect(encodeGemini([...head, { type: 'end' }], 'g')).toBe(textChunk + final(usage(10, 0)));
    expect(
      encodeGemini(
        [...head, { type: 'usage', usage: usage(10, 4) }, { type: 'usage', usage: usage(99, 99) }, { type: 'end' }],
        'g',
      ),
    ).toBe(textChunk + final(usage(10, 4)));
  });

  it('a trailing signature goes on the final empty text part, as Gemini sends it', () => {
    const text = encodeGemini(
      [
        { type: 'start', id: 'r', model: '' },
        { type: 'text', text: 'a' },
        { type: 'thinking', text: '', signature: 'SIG' },
        { type: 'stop', reason: 'stop' },
        { type: 'end' },
      ],
      'g',
    );
    expect(text).toContain('"parts":[{"text":"","thoughtSignature":"SIG"}]},"finishReason":"STOP"');
    expect(decodeGemini(text).filter((e) => e.type === 'thinking')).toEqual([
      { type: 'thinking', text: '', signature: 'SIG' },
    ]);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { geminiGenerate, geminiModelFromPath, geminiSchema } from '../../../src/relay/ir/gemini.js';
import { openAIChat } from '../../../src/relay/ir/openai-chat.js';
import { SseSplitter } from '../../../src/relay/ir/sse.js';
import type { IRRequest, IRStreamEvent } from '../../../src/relay/ir/types.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/ir/gemini/${name}`, import.meta.url), 'utf8');
const json = <T = Record<string, unknown>>(name: string): T => JSON.parse(fixture(name)) as T;

/** Splits SSE text in awkward places, as a network would. */
function events(text: string, step = 37) {
  const splitter = new SseSplitter();
  const out = [];
  for (let i = 0; i < text.length; i += step) out.push(...splitter.push(text.slice(i, i + step)));
  return [...out, ...splitter.flush()];
}

function decodeGemini(text: string): IRStreamEvent[] {
  const state = geminiGenerate.newDecodeState();
  return [...events(text).flatMap((e) => geminiGenerate.decodeEvent(state, e)), ...geminiGenerate.finish(state)];
}

function encodeGemini(evs: IRStreamEvent[], model = 'gemini-2.5-flash'): string {
  const state = geminiGenerate.newEncodeState(model);
  return evs.map((e) => geminiGenerate.encodeEvent(state, e)).join('');
}

/** Stream events without the usage the first chunk carries on 'start' (the encoder does not send it there). */
const withoutStartUsage = (events: IRStreamEvent[]): IRStreamEvent[] => events.map((e) => (e.type === 'start' ? { type: 'start', id: e.id, model: e.model } : e));
const usage = (input: number, output: number, cacheRead = 0, reasoning = 0) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: 0,
  reasoningTokens: reasoning,
});

const baseIR = (over: Partial<IRRequest>): IRRequest => ({
  model: 'gemini-2.5-flash',
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
  stream: false,
  ...over,
});

describe('gemini paths', () => {
  it.each([
    ['/v1beta/models/gemini-2.5-flash:streamGenerateContent', 'gemini-2.5-flash', 'streamGenerateContent'],
    ['/v1beta/models/gemini-2.5-pro:generateContent?key=abc', 'gemini-2.5-pro', 'generateContent'],
    ['/v1/models/gemini-2.0-flash-001:streamGenerateContent?alt=sse', 'gemini-2.0-flash-001', 'streamGenerateContent'],
    ['/v1beta/models/text-embedding-004:embedContent', 'text-embedding-004', 'embedContent'],
    ['/v1beta/models/my%20model:generateContent', 'my model', 'generateContent'],
  ])('%s', (path, model, method) => {
    expect(geminiModelFromPath(path)).toEqual({ model, method });
  });

  it('answers undefined for paths without a method', () => {
    expect(geminiModelFromPath('/v1beta/models')).toBeUndefined();
    expect(geminiModelFromPath('/v1beta/models/gemini-2.5-flash')).toBeUndefined();
  });
});

describe('gemini requests', () => {
  it('golden: request → IR', () => {
    expect(geminiGenerate.requestToIR(json('request.json'))).toEqual(json('request.ir.json'));
  });

  it('golden: IR → request (unsigned thoughts are not sent back, signatures stay on their part)', () => {
    expect(geminiGenerate.requestFromIR(json<IRRequest>('request.ir.json'))).toStrictEqual(json('request.from-ir.json'));
  });

  it('cross-format: Gemini request → IR → exact OpenAI Chat request', () => {
    const ir = geminiGenerate.requestToIR(json('request.json'));
    ir.model = 'gpt-4o';
    expect(openAIChat.requestFromIR(ir)).toStrictEqual(json('request.openai.json'));
  });

  it('reads the snake_case spelling of the docs’ curl examples', () => {
    const body = {
      system_instruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Look' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0K' } }] }],
      tools: [{ function_declarations: [{ name: 'f', parameters: { type: 'object', properties: { a_b: { type: 'string' } } } }] }],
      tool_config: { function_calling_config: { mode: 'ANY', allowed_function_names: ['f'] } },
      generation_config: { max_output_tokens: 100, stop_sequences: ['x'], thinking_config: { thinking_budget: 512 } },
    };
    expect(geminiGenerate.requestToIR(body)).toEqual({
      model: '',
      system: ['Be brief.'],
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Look' },
            { type: 'image', data: 'iVBORw0K', mediaType: 'image/png' },
          ],
        },
      ],
      tools: [{ name: 'f', parameters: { type: 'object', properties: { a_b: { type: 'string' } } } }],
      toolChoice: { name: 'f' },
      maxTokens: 100,
      stop: ['x'],
      stream: false,
      reasoning: { budgetTokens: 512 },
    });
  });

  it('maps files, audio, ids, tool modes, JSON output and thinking settings', () => {
    const ir = geminiGenerate.requestToIR({
      contents: [
        {
          role: 'user',
          parts: [
            { fileData: { mimeType: 'image/png', fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc' } },
            { inlineData: { mimeType: 'audio/mpeg', data: 'SUQz' } },
          ],
        },
        { role: 'model', parts: [{ functionCall: { id: 'fc-1', name: 'a', args: {} } }, { functionCall: { name: 'b' } }, { functionCall: { name: 'a', args: { x: 1 } } }] },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'a', response: { n: 2 } } },
            { functionResponse: { id: 'fc-1', name: 'a', response: { n: 1 } } },
            { functionResponse: { name: 'b', response: {} } },
            { functionResponse: { name: 'zzz', response: {} } },
            { text: 'next' },
          ],
        },
      ],
      tools: [{ googleSearch: {} }, { functionDeclarations: [{ name: 'a', parameters: { type: 'OBJECT', properties: { x: { type: 'INTEGER' } } } }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['a', 'b'] } },
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: { type: 'OBJECT', properties: { ok: { type: 'BOOLEAN' } } },
        thinkingConfig: { thinkingBudget: -1, includeThoughts: true },
      },
    });
    expect(ir.messages).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'image', url: 'https://generativelanguage.googleapis.com/v1beta/files/abc', mediaType: 'image/png' },
          { type: 'audio', data: 'SUQz', format: 'mp3' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'fc-1', name: 'a', arguments: '{}' },
          { type: 'tool_call', id: 'call_0', name: 'b', arguments: '{}' },
          { type: 'tool_call', id: 'call_1', name: 'a', arguments: '{"x":1}' },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool_result', toolCallId: 'call_1', name: 'a', content: '{"n":2}' },
          { type: 'tool_result', toolCallId: 'fc-1', name: 'a', content: '{"n":1}' },
          { type: 'tool_result', toolCallId: 'call_0', name: 'b', content: '{}' },
          { type: 'tool_result', toolCallId: 'call_2', name: 'zzz', content: '{}' },
        ],
      },
      { role: 'user', parts: [{ type: 'text', text: 'next' }] },
    ]);
    // OpenAPI-style schemas become JSON Schema; only function declarations become tools.
    expect(ir.tools).toEqual([{ name: 'a', parameters: { type: 'object', properties: { x: { type: 'integer' } } } }]);
    expect(ir.toolChoice).toBe('required');
    expect(ir.responseFormat).toEqual({ type: 'json_schema', name: 'response', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    expect(ir.reasoning).toEqual({});
  });

  it.each([
    [{ mode: 'NONE' }, 'none'],
    [{ mode: 'AUTO' }, 'auto'],
    [{ mode: 'ANY' }, 'required'],
    [{ mode: 'ANY', allowedFunctionNames: ['only'] }, { name: 'only' }],
  ])('tool mode %o → %o and back', (fc, choice) => {
    const ir = geminiGenerate.requestToIR({ contents: [], toolConfig: { functionCallingConfig: fc } });
    expect(ir.toolChoice).toEqual(choice);
    expect(geminiGenerate.requestFromIR({ ...ir, toolChoice: choice as IRRequest['toolChoice'] }).toolConfig).toEqual({ functionCallingConfig: fc });
  });

  it.each([
    [{ thinkingBudget: 0 }, { budgetTokens: 0 }],
    [{ thinkingLevel: 'high' }, { effort: 'high' }],
    [{ includeThoughts: false }, undefined],
  ])('thinkingConfig %o → reasoning %o', (tc, reasoning) => {
    expect(geminiGenerate.requestToIR({ contents: [], generationConfig: { thinkingConfig: tc } }).reasoning).toEqual(reasoning);
  });

  it.each([
    [{ effort: 'minimal' }, { thinkingBudget: 0 }],
    [{ effort: 'low' }, { thinkingBudget: 1024, includeThoughts: true }],
    [{ effort: 'medium' }, { thinkingBudget: 8192, includeThoughts: true }],
    [{ effort: 'high' }, { thinkingBudget: 24576, includeThoughts: true }],
    [
      { effort: 'low', budgetTokens: 3000 },
      { thinkingBudget: 3000, includeThoughts: true },
    ],
    [{}, { includeThoughts: true }],
  ] as const)('reasoning %o → thinkingConfig %o', (reasoning, thinkingConfig) => {
    expect(geminiGenerate.requestFromIR(baseIR({ reasoning })).generationConfig).toEqual({ thinkingConfig });
  });

  it('cross-format: an OpenAI request reaches Gemini (names from call ids, merged turns, cleaned schemas, images)', () => {
    const ir = openAIChat.requestToIR({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'sys' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
            { type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGR' } },
          ],
        },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_Ab', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }] },
        { role: 'tool', tool_call_id: 'call_Ab', content: 'a small feline' },
        { role: 'user', content: 'thanks' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            parameters: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              additionalProperties: false,
              properties: {
                q: { type: 'string', format: 'uri' },
                opt: { anyOf: [{ $ref: '#/$defs/Mode' }, { type: 'null' }] },
                tags: { type: ['array', 'null'], items: { const: 'x' } },
              },
              required: ['q'],
              $defs: { Mode: { type: 'string', enum: ['a', 'b'], title: 'Mode' } },
            },
          },
        },
        { type: 'function', function: { name: 'ping', parameters: { type: 'object', properties: {} } } },
      ],
      tool_choice: { type: 'function', function: { name: 'lookup' } },
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false } } },
    });
    expect(geminiGenerate.requestFromIR(ir)).toStrictEqual({
      systemInstruction: { parts: [{ text: 'sys' }] },
      contents: [
        {
          role: 'user',
          parts: [{ text: 'see' }, { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.png' } }, { inlineData: { mimeType: 'image/webp', data: 'UklGR' } }],
        },
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'cat' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { output: 'a small feline' } } }, { text: 'thanks' }] },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'lookup',
              parameters: {
                type: 'object',
                properties: {
                  q: { type: 'string' },
                  opt: { nullable: true, type: 'string', enum: ['a', 'b'], title: 'Mode' },
                  tags: { type: 'array', nullable: true, items: { enum: ['x'] } },
                },
                required: ['q'],
              },
            },
            { name: 'ping' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['lookup'] } },
      generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'object', properties: { a: { type: 'integer' } } } },
    });
  });

  it('sends tool errors as { error }, and JSON tool output as the object itself', () => {
    const body = geminiGenerate.requestFromIR(
      baseIR({
        messages: [
          {
            role: 'assistant',
            parts: [
              { type: 'tool_call', id: 't1', name: 'f', arguments: '{}' },
              { type: 'tool_call', id: 't2', name: 'g', arguments: 'not json' },
            ],
          },
          {
            role: 'user',
            parts: [
              { type: 'tool_result', toolCallId: 't1', content: 'boom', isError: true },
              { type: 'tool_result', toolCallId: 't2', content: '{"ok":true}' },
            ],
          },
        ],
      }),
    );
    expect(body.contents).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'g', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { error: 'boom' } } }, { functionResponse: { name: 'g', response: { ok: true } } }] },
    ]);
  });

  it('resolves recursive $refs without looping', () => {
    const s = geminiSchema({ type: 'object', properties: { node: { $ref: '#' } } });
    expect(JSON.stringify(s).length).toBeLessThan(5000);
  });
});

describe('gemini responses', () => {
  it('golden: response → IR (thoughts billed as output, cached tokens out of input)', () => {
    expect(geminiGenerate.responseToIR(json('response.json'))).toEqual(json('response.ir.json'));
  });

  it('golden: IR → response', () => {
    expect(geminiGenerate.responseFromIR(json('response.ir.json'), 'gemini-2.5-flash')).toStrictEqual(json('response.from-ir.json'));
  });

  it('cross-format: Gemini usage bills the same through OpenAI semantics', () => {
    const openai = openAIChat.responseFromIR(geminiGenerate.responseToIR(json('response.json')), 'gemini-2.5-flash') as { usage: unknown; choices: { finish_reason: string }[] };
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
    expect(geminiGenerate.responseToIR({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason }] }).stopReason).toBe(stop);
  });

  it('a blocked prompt is a content filter stop', () => {
    expect(geminiGenerate.responseToIR({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 } })).toEqual({
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
    expect(withoutStartUsage(decodeGemini(fixture('stream.sse').replace(/\n/g, '\r\n')))).toEqual(json('stream.ir.json'));
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
    expect(geminiGenerate.decodeEvent(state, { data: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}' })).toEqual([
      { type: 'start', id: '', model: '' },
      { type: 'error', message: 'The model is overloaded.' },
    ]);
    expect(encodeGemini([{ type: 'error', message: 'boom' }, { type: 'end' }])).toBe('data: {"error":{"code":500,"message":"boom","status":"INTERNAL"}}\n\n');
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
    const textChunk = 'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"index":0}],"modelVersion":"g","responseId":"r1"}\n\n';
    expect(encodeGemini([...head, { type: 'end' }], 'g')).toBe(textChunk + final(usage(10, 0)));
    expect(encodeGemini([...head, { type: 'usage', usage: usage(10, 4) }, { type: 'usage', usage: usage(99, 99) }, { type: 'end' }], 'g')).toBe(textChunk + final(usage(10, 4)));
  });

  it('a trailing signature goes on the final empty text part, as Gemini sends it', () => {
    const text = encodeGemini(
      [{ type: 'start', id: 'r', model: '' }, { type: 'text', text: 'a' }, { type: 'thinking', text: '', signature: 'SIG' }, { type: 'stop', reason: 'stop' }, { type: 'end' }],
      'g',
    );
    expect(text).toContain('"parts":[{"text":"","thoughtSignature":"SIG"}]},"finishReason":"STOP"');
    expect(decodeGemini(text).filter((e) => e.type === 'thinking')).toEqual([{ type: 'thinking', text: '', signature: 'SIG' }]);
  });
});

import { describe, expect, it } from 'vitest';
import { geminiGenerate, geminiModelFromPath, geminiSchema } from '../../../src/relay/providers/gemini/convert.js';
import type { IRRequest } from '../../../src/relay/ir/types.js';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import { baseIR, json } from './gemini-helpers.js';

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
    expect(geminiGenerate.requestFromIR(json<IRRequest>('request.ir.json'))).toStrictEqual(
      json('request.from-ir.json'),
    );
  });

  it('cross-format: Gemini request → IR → exact OpenAI Chat request', () => {
    const ir = geminiGenerate.requestToIR(json('request.json'));
    ir.model = 'gpt-4o';
    expect(openAIChat.requestFromIR(ir)).toStrictEqual(json('request.openai.json'));
  });

  it('reads the snake_case spelling of the docs’ curl examples', () => {
    const body = {
      system_instruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Look' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0K' } }] },
      ],
      tools: [
        {
          function_declarations: [
            { name: 'f', parameters: { type: 'object', properties: { a_b: { type: 'string' } } } },
          ],
        },
      ],
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
            {
              fileData: {
                mimeType: 'image/png',
                fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc',
              },
            },
            { inlineData: { mimeType: 'audio/mpeg', data: 'SUQz' } },
          ],
        },
        {
          role: 'model',
          parts: [
            { functionCall: { id: 'fc-1', name: 'a', args: {} } },
            { functionCall: { name: 'b' } },
            { functionCall: { name: 'a', args: { x: 1 } } },
          ],
        },
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
      tools: [
        { googleSearch: {} },
        {
          functionDeclarations: [{ name: 'a', parameters: { type: 'OBJECT', properties: { x: { type: 'INTEGER' } } } }],
        },
      ],
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
    expect(ir.responseFormat).toEqual({
      type: 'json_schema',
      name: 'response',
      schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
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
    expect(geminiGenerate.requestFromIR({ ...ir, toolChoice: choice as IRRequest['toolChoice'] }).toolConfig).toEqual({
      functionCallingConfig: fc,
    });
  });

  it.each([
    [{ thinkingBudget: 0 }, { budgetTokens: 0 }],
    [{ thinkingLevel: 'high' }, { effort: 'high' }],
    [{ includeThoughts: false }, undefined],
  ])('thinkingConfig %o → reasoning %o', (tc, reasoning) => {
    expect(geminiGenerate.requestToIR({ contents: [], generationConfig: { thinkingConfig: tc } }).reasoning).toEqual(
      reasoning,
    );
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
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_Ab', type: 'function', function: { name: 'lookup', arguments: '{"q":"cat"}' } }],
        },
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
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'out',
          schema: { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false },
        },
      },
    });
    expect(geminiGenerate.requestFromIR(ir)).toStrictEqual({
      systemInstruction: { parts: [{ text: 'sys' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'see' },
            { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/cat.png' } },
            { inlineData: { mimeType: 'image/webp', data: 'UklGR' } },
          ],
        },
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'cat' } } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'lookup', response: { output: 'a small feline' } } }, { text: 'thanks' }],
        },
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
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: { type: 'object', properties: { a: { type: 'integer' } } },
      },
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
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'f', response: { error: 'boom' } } },
          { functionResponse: { name: 'g', response: { ok: true } } },
        ],
      },
    ]);
  });

  it('resolves recursive $refs without looping', () => {
    const s = geminiSchema({ type: 'object', properties: { node: { $ref: '#' } } });
    expect(JSON.stringify(s).length).toBeLessThan(5000);
  });
});

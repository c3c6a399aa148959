import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../../src/relay/providers/anthropic/convert.js';
import {
  anthropicOutputSchema,
  hasNativeStructuredOutput,
  STRUCTURED_TOOL,
  STRUCTURED_VALUE_TOOL,
} from '../../../src/relay/providers/anthropic/structured.js';
import { geminiGenerate } from '../../../src/relay/providers/gemini/convert.js';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import { openAIResponses } from '../../../src/relay/providers/openai/responses.js';
import { SseSplitter } from '../../../src/relay/ir/sse.js';
import type { IRRequest, IRStreamEvent } from '../../../src/relay/ir/types.js';

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, temp: { type: 'number', minimum: -100 } },
  required: ['city', 'temp'],
};
const chat = (over: Record<string, unknown> = {}) =>
  openAIChat.requestToIR({ model: 'x', messages: [{ role: 'user', content: 'weather?' }], ...over });
const toAnthropic = (ir: IRRequest, model: string) =>
  anthropicMessages.requestFromIR({ ...ir, model }) as Record<string, any>;
const jsonSchemaFormat = { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } };

describe('which Claude models have native structured output', () => {
  it.each([
    ['claude-sonnet-4-5', true],
    ['claude-sonnet-4-5-20250929', true],
    ['claude-opus-4-1-20250805', true],
    ['claude-opus-4-5', true],
    ['claude-haiku-4-5@20251001', true],
    ['claude-sonnet-4-6', true],
    ['claude-opus-5', true],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', true],
    ['claude-sonnet-4-20250514', false],
    ['claude-opus-4-20250514', false],
    ['claude-3-5-haiku-20241022', false],
    ['claude-3-7-sonnet-latest', false],
    ['claude-3-opus-20240229', false],
    ['some-proxy-model', false],
  ])('%s → %s', (model, native) => expect(hasNativeStructuredOutput(model)).toBe(native));
});

describe('structured output to an Anthropic upstream', () => {
  it('native models get output_config.format with a schema Anthropic accepts', () => {
    const body = toAnthropic(chat({ response_format: jsonSchemaFormat }), 'claude-sonnet-4-5');
    expect(body.output_config).toEqual({
      format: {
        type: 'json_schema',
        schema: {
          type: 'object',
          properties: { city: { type: 'string' }, temp: { type: 'number' } },
          required: ['city', 'temp'],
          additionalProperties: false,
        },
      },
    });
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
  });

  it('the schema cleaner closes nested objects, turns oneOf into anyOf, drops unsupported bounds and formats', () => {
    expect(
      anthropicOutputSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          list: {
            type: 'array',
            minItems: 2,
            maxItems: 5,
            items: {
              type: 'object',
              properties: { id: { type: 'string', format: 'uuid' }, n: { type: 'integer', format: 'int64' } },
              additionalProperties: true,
            },
          },
          pick: { oneOf: [{ type: 'string', maxLength: 3 }, { type: 'null' }] },
        },
        $defs: { x: { properties: { a: { type: 'string' } } } },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        list: {
          type: 'array',
          items: {
            type: 'object',
            properties: { id: { type: 'string', format: 'uuid' }, n: { type: 'integer' } },
            additionalProperties: false,
          },
        },
        pick: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      $defs: { x: { properties: { a: { type: 'string' } }, additionalProperties: false } },
      additionalProperties: false,
    });
  });

  it('older models get a forced reserved tool with the schema', () => {
    const body = toAnthropic(chat({ response_format: jsonSchemaFormat }), 'claude-3-5-haiku-20241022');
    expect(body.output_config).toBeUndefined();
    expect(body.tools).toEqual([{ name: STRUCTURED_TOOL, description: expect.any(String), input_schema: schema }]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: STRUCTURED_TOOL });
  });

  it('json_object (no native form) is a forced tool taking any object, on every model', () => {
    for (const model of ['claude-sonnet-4-5', 'claude-3-5-haiku-20241022']) {
      const body = toAnthropic(chat({ response_format: { type: 'json_object' } }), model);
      expect(body.tools).toEqual([
        { name: STRUCTURED_TOOL, description: expect.any(String), input_schema: { type: 'object' } },
      ]);
      expect(body.tool_choice).toEqual({ type: 'tool', name: STRUCTURED_TOOL });
    }
  });

  it('a non-object schema is wrapped under value; the caller’s tools stay callable (tool_choice any)', () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    const body = toAnthropic(
      chat({
        tools,
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'list', schema: { type: 'array', items: { type: 'string' } } },
        },
      }),
      'claude-3-5-haiku-20241022',
    );
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(['lookup', STRUCTURED_VALUE_TOOL]);
    expect(body.tools[1].input_schema).toEqual({
      type: 'object',
      properties: { value: { type: 'array', items: { type: 'string' } } },
      required: ['value'],
    });
    expect(body.tool_choice).toEqual({ type: 'any' });
  });

  it('thinking allows only auto: the tool is offered, not forced; tool_choice none keeps tools out', () => {
    const thinking = toAnthropic(
      { ...chat({ response_format: jsonSchemaFormat }), reasoning: { budgetTokens: 2048 } },
      'claude-3-7-sonnet-20250219',
    );
    expect(thinking.tools.map((t: { name: string }) => t.name)).toEqual([STRUCTURED_TOOL]);
    expect(thinking.tool_choice).toBeUndefined();
    const none = toAnthropic(
      chat({
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        tool_choice: 'none',
        response_format: jsonSchemaFormat,
      }),
      'claude-3-5-haiku-20241022',
    );
    expect(none.tools.map((t: { name: string }) => t.name)).toEqual(['f']);
  });

  it('Responses text.format reaches Anthropic too', () => {
    const ir = openAIResponses.requestToIR({
      model: 'x',
      input: 'hi',
      text: { format: { type: 'json_schema', name: 'w', schema, strict: true } },
    });
    expect(toAnthropic(ir, 'claude-opus-4-5').output_config.format.type).toBe('json_schema');
    expect(toAnthropic(ir, 'claude-3-5-haiku-20241022').tool_choice).toEqual({ type: 'tool', name: STRUCTURED_TOOL });
  });
});

describe('the forced tool’s answer becomes text', () => {
  it('whole answers: the reserved tool_use is the text; tool_use stop means stop', () => {
    const ir = anthropicMessages.responseToIR({
      id: 'msg_1',
      content: [{ type: 'tool_use', id: 'toolu_1', name: STRUCTURED_TOOL, input: { city: 'Paris', temp: 21 } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 5, output_tokens: 3 },
    });
    expect(ir.parts).toEqual([{ type: 'text', text: '{"city":"Paris","temp":21}' }]);
    expect(ir.stopReason).toBe('stop');
    const openai = openAIChat.responseFromIR(ir, 'm') as {
      choices: { message: { content: string; tool_calls?: unknown }; finish_reason: string }[];
    };
    expect(openai.choices[0]).toMatchObject({
      message: { content: '{"city":"Paris","temp":21}' },
      finish_reason: 'stop',
    });
    expect(openai.choices[0]!.message.tool_calls).toBeUndefined();
    const value = anthropicMessages.responseToIR({
      content: [{ type: 'tool_use', id: 't', name: STRUCTURED_VALUE_TOOL, input: { value: ['a', 'b'] } }],
      stop_reason: 'tool_use',
    });
    expect(value.parts).toEqual([{ type: 'text', text: '["a","b"]' }]);
  });

  it('other tools stay tool calls', () => {
    const ir = anthropicMessages.responseToIR({
      content: [{ type: 'tool_use', id: 't', name: 'lookup', input: {} }],
      stop_reason: 'tool_use',
    });
    expect(ir.parts).toEqual([{ type: 'tool_call', id: 't', name: 'lookup', arguments: '{}' }]);
    expect(ir.stopReason).toBe('tool_calls');
  });

  const sse = (events: Record<string, unknown>[]) =>
    events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');
  const decode = (text: string): IRStreamEvent[] => {
    const state = anthropicMessages.newDecodeState();
    return new SseSplitter().push(text).flatMap((ev) => anthropicMessages.decodeEvent(state, ev));
  };
  const toolStream = (name: string, pieces: string[]) =>
    sse([
      {
        type: 'message_start',
        message: { id: 'msg_1', model: 'claude-3-5-haiku-20241022', usage: { input_tokens: 9, output_tokens: 1 } },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name, input: {} } },
      ...pieces.map((partial_json) => ({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json },
      })),
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 4 } },
      { type: 'message_stop' },
    ]);

  it('streams: input_json_delta pieces of the reserved tool are text events; the stop is a plain stop', () => {
    const events = decode(toolStream(STRUCTURED_TOOL, ['{"city":', '"Paris"}']));
    expect(events.filter((e) => e.type === 'text')).toEqual([
      { type: 'text', text: '{"city":' },
      { type: 'text', text: '"Paris"}' },
    ]);
    expect(events.some((e) => e.type === 'tool_call_start')).toBe(false);
    expect(events.find((e) => e.type === 'stop')).toEqual({ type: 'stop', reason: 'stop' });
    // Through to an OpenAI client: content deltas and finish_reason stop.
    const enc = openAIChat.newEncodeState('m');
    const out = events.map((e) => openAIChat.encodeEvent(enc, e)).join('');
    expect(out).toContain('"content":"{\\"city\\":"');
    expect(out).toContain('"finish_reason":"stop"');
    expect(out).not.toContain('tool_calls');
  });

  it('streams: the value tool is sent whole when its block stops', () => {
    const events = decode(toolStream(STRUCTURED_VALUE_TOOL, ['{"value":', '[1,2]}']));
    expect(events.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: '[1,2]' }]);
  });
});

describe('Anthropic structured output requests → other formats', () => {
  const anthropicBody = (over: Record<string, unknown>) => ({
    model: 'claude-x',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'hi' }],
    ...over,
  });

  it('output_config.format and the beta output_format → IR → OpenAI response_format, Responses text.format, Gemini responseSchema', () => {
    for (const body of [
      anthropicBody({ output_config: { format: { type: 'json_schema', schema } } }),
      anthropicBody({ output_format: { type: 'json_schema', schema } }),
    ]) {
      const ir = anthropicMessages.requestToIR(body);
      expect(ir.responseFormat).toEqual({ type: 'json_schema', name: 'output', schema });
      expect(openAIChat.requestFromIR(ir).response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'output', schema },
      });
      expect(openAIResponses.requestFromIR(ir).text).toEqual({
        format: { type: 'json_schema', name: 'output', schema },
      });
      expect(geminiGenerate.requestFromIR(ir).generationConfig).toEqual({
        maxOutputTokens: 100,
        responseMimeType: 'application/json',
        responseSchema: schema,
      });
    }
  });

  it('no format, or one that is not json_schema, is no structured output', () => {
    expect(anthropicMessages.requestToIR(anthropicBody({})).responseFormat).toBeUndefined();
    expect(
      anthropicMessages.requestToIR(anthropicBody({ output_config: { effort: 'low' } })).responseFormat,
    ).toBeUndefined();
  });

  it('OpenAI json_object reaches Responses and Gemini', () => {
    const ir = chat({ response_format: { type: 'json_object' } });
    expect(openAIResponses.requestFromIR(ir).text).toEqual({ format: { type: 'json_object' } });
    expect(geminiGenerate.requestFromIR(ir).generationConfig).toEqual({ responseMimeType: 'application/json' });
  });
});

import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import type { AutoParseableTextFormat } from 'openai/lib/parser';
import type { FunctionTool, ResponseFunctionToolCall, ResponseInputItem } from 'openai/resources/responses/responses';
import { describe, expect } from 'vitest';
import {
  PNG_BASE64,
  PNG_BYTES,
  SDK_PERSON,
  SDK_PERSON_SAMPLE,
  SDK_TIME_ARGS,
  SDK_WEATHER_ARGS,
} from '../support/conformance-fixtures.js';
import { compatEach } from '../support/compat.js';
import { CHANNEL_MODELS, useConformanceGateway, type ChannelKind } from '../support/conformance.js';
import {
  chatPath,
  rolesOf,
  structuredSchemaOf,
  systemOf,
  toolsOf,
  upstreamCall,
} from '../support/conformance-expect.js';
import { MOCK_INPUT_TOKENS, MOCK_OUTPUT_TOKENS, type VendorRequest } from '../support/mock-vendor.js';

const CLIENT = 'openai';

const WEATHER: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather of a city',
  strict: false,
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city', 'unit'],
  },
};
const TIME: FunctionTool = {
  type: 'function',
  name: 'get_time',
  strict: false,
  parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};
// Built once through a plain signature: inferring the helper's generics over zod's types takes tsc minutes.
const PERSON_FORMAT = (
  zodTextFormat as unknown as (schema: unknown, name: string) => AutoParseableTextFormat<typeof SDK_PERSON_SAMPLE>
)(SDK_PERSON, 'person');

const TOOL_TURNS: ResponseInputItem[] = [
  { role: 'user', content: 'Weather in Paris?' },
  { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
  { type: 'function_call_output', call_id: 'call_1', output: '22 degrees' },
];

/**
 * The Responses API through every channel type. The OpenAI channel may take /v1/responses natively or as chat
 * completions; the other vendors get their own format.
 */
describe('openai SDK (Responses API) through every channel type', () => {
  const fx = useConformanceGateway();
  const client = () => new OpenAI({ apiKey: fx.key, baseURL: `${fx.base}/v1`, maxRetries: 0 });

  /** The upstream request of a Responses call, checked (OpenAI: either endpoint). */
  const upstream = (channel: ChannelKind, stream = false): VendorRequest => {
    if (channel !== 'openai') return upstreamCall(fx, channel, chatPath(channel, stream));
    const path = fx.vendor.lastRequest('openai').path;
    expect(['/v1/responses', '/v1/chat/completions']).toContain(path);
    return upstreamCall(fx, channel, path);
  };
  const functionCalls = (output: OpenAI.Responses.ResponseOutputItem[]) =>
    output.filter((o): o is ResponseFunctionToolCall => o.type === 'function_call');

  compatEach(CLIENT, 'responses text', async (channel) => {
    const res = await client().responses.create({
      model: CHANNEL_MODELS[channel],
      instructions: 'Be brief.',
      input: 'hi',
      max_output_tokens: 64,
    });
    expect(res.status).toBe('completed');
    expect(res.output_text).toBe(`Hello from ${channel}`);
    expect(res.usage).toMatchObject({ input_tokens: MOCK_INPUT_TOKENS, output_tokens: MOCK_OUTPUT_TOKENS });
    const up = upstream(channel);
    expect(systemOf(up)).toBe('Be brief.');
  });

  compatEach(CLIENT, 'responses stream', async (channel) => {
    const stream = await client().responses.create({ model: CHANNEL_MODELS[channel], input: 'hi', stream: true });
    let text = '';
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type === 'response.completed') completed = e.response;
    }
    expect(text).toBe(`Hello from ${channel}`);
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_item.added');
    expect(types).toContain('response.output_item.done');
    expect(completed?.status).toBe('completed');
    expect(completed?.output.find((o) => o.type === 'message')).toMatchObject({
      role: 'assistant',
      content: [{ type: 'output_text', text: `Hello from ${channel}` }],
    });
    expect(completed?.usage).toMatchObject({ input_tokens: MOCK_INPUT_TOKENS, output_tokens: MOCK_OUTPUT_TOKENS });
    upstream(channel, true);
  });

  compatEach(CLIENT, 'responses multi-turn', async (channel) => {
    const input: ResponseInputItem[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'again' },
    ];
    const res = await client().responses.create({ model: CHANNEL_MODELS[channel], input });
    expect(res.output_text).toBe(`Hello from ${channel}`);
    expect(rolesOf(upstream(channel))).toEqual(['user', 'assistant', 'user']);
  });

  compatEach(CLIENT, 'responses tool call', async (channel) => {
    const res = await client().responses.create({
      model: CHANNEL_MODELS[channel],
      input: 'Weather and time, in parallel',
      tools: [WEATHER, TIME],
    });
    const calls = functionCalls(res.output);
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([
      ['get_weather', SDK_WEATHER_ARGS],
      ['get_time', SDK_TIME_ARGS],
    ]);
    expect(calls.every((c) => c.call_id)).toBe(true);
    expect(toolsOf(upstream(channel)).map((t) => t.name)).toEqual(['get_weather', 'get_time']);
  });

  compatEach(CLIENT, 'responses tool call stream', async (channel) => {
    const stream = client().responses.stream({
      model: CHANNEL_MODELS[channel],
      input: 'Weather in Paris?',
      tools: [WEATHER],
    });
    let args = '';
    stream.on('response.function_call_arguments.delta', (e) => (args += e.delta));
    const final = await stream.finalResponse();
    const calls = functionCalls(final.output);
    expect(calls.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual([['get_weather', SDK_WEATHER_ARGS]]);
    expect(JSON.parse(args)).toEqual(SDK_WEATHER_ARGS);
    upstream(channel, true);
  });

  compatEach(CLIENT, 'responses tool result turn', async (channel) => {
    const res = await client().responses.create({
      model: CHANNEL_MODELS[channel],
      input: TOOL_TURNS,
      tools: [WEATHER],
    });
    expect(res.output_text).toBe('Tool said: 22 degrees');
    expect(rolesOf(upstream(channel)).slice(-1)).toEqual(['tool']);
  });

  compatEach(CLIENT, 'responses image', async (channel) => {
    const res = await client().responses.create({
      model: CHANNEL_MODELS[channel],
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', detail: 'auto', image_url: `data:image/png;base64,${PNG_BASE64}` },
          ],
        },
      ],
    });
    expect(res.output_text).toBe(`Image: image/png ${PNG_BYTES} bytes`);
    upstream(channel);
  });

  compatEach(CLIENT, 'responses structured output', async (channel) => {
    const res = await client().responses.parse({
      model: CHANNEL_MODELS[channel],
      input: 'Make a person',
      text: { format: PERSON_FORMAT },
    });
    expect(res.output_parsed).toEqual(SDK_PERSON_SAMPLE);
    const schema = structuredSchemaOf(upstream(channel)) as { properties?: object } | undefined;
    expect(Object.keys(schema?.properties ?? {})).toEqual(['name', 'age', 'tags']);
  });

  compatEach(CLIENT, 'responses errors', async (channel) => {
    const unknown = client().responses.create({ model: `${CHANNEL_MODELS[channel]}-not-served`, input: 'hi' });
    await expect(unknown).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const bad = client().responses.create({ model: CHANNEL_MODELS[channel], input: 42 as unknown as string });
    await expect(bad).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });
});

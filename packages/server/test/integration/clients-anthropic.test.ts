import Anthropic from '@anthropic-ai/sdk';
import { jsonSchemaOutputFormat } from '@anthropic-ai/sdk/helpers/json-schema';
import type { MessageParam, RawMessageStreamEvent, Tool, ToolUseBlock } from '@anthropic-ai/sdk/resources/messages';
import { encodeChat } from 'gpt-tokenizer';
import { describe, expect } from 'vitest';
import {
  BILLED_PROMPT,
  PNG_BASE64,
  PNG_BYTES,
  SDK_PERSON_SAMPLE,
  SDK_TIME_ARGS,
  SDK_WEATHER_ARGS,
} from '../support/conformance-fixtures.js';
import { compat, compatEach } from '../support/compat.js';
import {
  CHANNEL_MODELS,
  ERROR_MODELS,
  GEMINI_FINISH_EVERY_CHUNK_MODEL,
  useConformanceGateway,
  type ChannelKind,
} from '../support/conformance.js';
import {
  chatPath,
  paramsOf,
  rolesOf,
  structuredSchemaOf,
  systemOf,
  toolsOf,
  upstreamCall,
} from '../support/conformance-expect.js';
import { MOCK_INPUT_TOKENS, MOCK_OUTPUT_TOKENS } from '../support/mock-vendor.js';

const CLIENT = '@anthropic-ai/sdk';
const MAX_TOKENS = 256;
const BETA = 'structured-outputs-2025-11-13';

const WEATHER: Tool = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city', 'unit'],
  },
};
const TIME: Tool = {
  name: 'get_time',
  description: 'Time in a zone',
  input_schema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};
const PERSON_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'age', 'tags'],
  additionalProperties: false,
} as const;

const TOOL_TURNS: MessageParam[] = [
  { role: 'user', content: 'Weather in Paris?' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } }],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '22 degrees' }] },
];

describe('@anthropic-ai/sdk (messages, count_tokens, models) through every channel type', () => {
  const fx = useConformanceGateway();
  const client = (fetchCount?: { n: number }) =>
    new Anthropic({
      apiKey: fx.key,
      baseURL: fx.base,
      maxRetries: 0,
      ...(fetchCount
        ? { maxRetries: 2, fetch: (url: RequestInfo | URL, init?: RequestInit) => (fetchCount.n++, fetch(url, init)) }
        : {}),
    });
  const ask = (
    channel: ChannelKind,
    messages: MessageParam[] | string,
    extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {},
  ) =>
    client().messages.create({
      model: CHANNEL_MODELS[channel],
      max_tokens: MAX_TOKENS,
      messages: typeof messages === 'string' ? [{ role: 'user', content: messages }] : messages,
      ...extra,
    });
  const streamOf = (
    channel: ChannelKind,
    messages: MessageParam[] | string,
    extra: Partial<Anthropic.MessageStreamParams> = {},
  ) =>
    client().messages.stream({
      model: CHANNEL_MODELS[channel],
      max_tokens: MAX_TOKENS,
      messages: typeof messages === 'string' ? [{ role: 'user', content: messages }] : messages,
      ...extra,
    });
  const textOf = (m: Anthropic.Message) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const toolUses = (m: Anthropic.Message) => m.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');

  compatEach(CLIENT, 'text', async (channel) => {
    const msg = await ask(channel, 'hi');
    expect(msg).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: CHANNEL_MODELS[channel],
      stop_reason: 'end_turn',
    });
    expect(textOf(msg)).toBe(`Hello from ${channel}`);
    expect(rolesOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual(['user']);
  });

  compatEach(CLIENT, 'usage', async (channel) => {
    const msg = await ask(channel, 'hi');
    expect(msg.usage).toMatchObject({ input_tokens: MOCK_INPUT_TOKENS, output_tokens: MOCK_OUTPUT_TOKENS });
  });

  compatEach(CLIENT, 'stream', async (channel) => {
    const stream = streamOf(channel, BILLED_PROMPT);
    const events: RawMessageStreamEvent[] = [];
    stream.on('streamEvent', (e) => events.push(e));
    const final = await stream.finalMessage();
    expect(textOf(final)).toBe(`Hello from ${channel}`);
    expect(final.stop_reason).toBe('end_turn');
    expect(events[0]!.type).toBe('message_start');
    expect(events.at(-1)!.type).toBe('message_stop');
    // LangChain and others read the prompt size from message_start.
    const start = events[0] as Anthropic.RawMessageStartEvent;
    // Anthropic states its count there; an OpenAI upstream's (at the end) is counted as its chat template bills it.
    if (channel !== 'gemini') expect(start.message.usage.input_tokens).toBe(MOCK_INPUT_TOKENS);
    else expect(start.message.usage.input_tokens).toBeGreaterThan(0);
    expect(encodeChat([{ role: 'user', content: BILLED_PROMPT }], 'gpt-4o')).toHaveLength(MOCK_INPUT_TOKENS);
    expect(final.usage).toMatchObject({ input_tokens: MOCK_INPUT_TOKENS, output_tokens: MOCK_OUTPUT_TOKENS });
    upstreamCall(fx, channel, chatPath(channel, true));
  });

  compat(CLIENT, 'stream (finishReason on every chunk)', 'gemini', async () => {
    const stream = client().messages.stream({
      model: GEMINI_FINISH_EVERY_CHUNK_MODEL,
      max_tokens: MAX_TOKENS,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const types: string[] = [];
    stream.on('streamEvent', (e) => types.push(e.type));
    const final = await stream.finalMessage();
    expect(textOf(final)).toBe('Hello from gemini');
    expect(types.filter((t) => t === 'message_delta' || t === 'message_stop')).toEqual([
      'message_delta',
      'message_stop',
    ]);
    expect(types.at(-1)).toBe('message_stop');
    expect(final.usage).toMatchObject({ input_tokens: MOCK_INPUT_TOKENS, output_tokens: MOCK_OUTPUT_TOKENS });
    upstreamCall(fx, 'gemini', chatPath('gemini', true, GEMINI_FINISH_EVERY_CHUNK_MODEL));
  });

  compatEach(CLIENT, 'system prompt', async (channel) => {
    const msg = await ask(channel, 'hi', { system: [{ type: 'text', text: 'Be brief.' }] });
    expect(textOf(msg)).toBe(`Hello from ${channel}`);
    const up = upstreamCall(fx, channel, chatPath(channel));
    expect(systemOf(up)).toBe('Be brief.');
    expect(rolesOf(up)).toEqual(['user']);
  });

  compatEach(CLIENT, 'multi-turn', async (channel) => {
    const msg = await ask(channel, [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'again' },
    ]);
    expect(textOf(msg)).toBe(`Hello from ${channel}`);
    expect(rolesOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual(['user', 'assistant', 'user']);
  });

  compatEach(CLIENT, 'tool call', async (channel) => {
    const msg = await ask(channel, 'Weather in Paris?', { tools: [WEATHER] });
    expect(msg.stop_reason).toBe('tool_use');
    const uses = toolUses(msg);
    expect(uses.map((u) => [u.name, u.input])).toEqual([['get_weather', SDK_WEATHER_ARGS]]);
    expect(uses[0]!.id).toBeTruthy();
    const up = upstreamCall(fx, channel, chatPath(channel));
    expect(toolsOf(up).map((t) => t.name)).toEqual(['get_weather']);
  });

  compatEach(CLIENT, 'parallel tool calls', async (channel) => {
    const msg = await ask(channel, 'Weather and time, in parallel', { tools: [WEATHER, TIME] });
    const uses = toolUses(msg);
    expect(uses.map((u) => [u.name, u.input])).toEqual([
      ['get_weather', SDK_WEATHER_ARGS],
      ['get_time', SDK_TIME_ARGS],
    ]);
    expect(new Set(uses.map((u) => u.id)).size).toBe(2);
  });

  compatEach(CLIENT, 'tool result turn', async (channel) => {
    const msg = await ask(channel, TOOL_TURNS, { tools: [WEATHER] });
    expect(textOf(msg)).toBe('Tool said: 22 degrees');
    expect(rolesOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual(['user', 'assistant', 'tool']);
  });

  compatEach(CLIENT, 'tool call stream', async (channel) => {
    const stream = streamOf(channel, 'Weather and time, in parallel', { tools: [WEATHER, TIME] });
    let json = '';
    stream.on('inputJson', (delta) => (json += delta));
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(toolUses(final).map((u) => [u.name, u.input])).toEqual([
      ['get_weather', SDK_WEATHER_ARGS],
      ['get_time', SDK_TIME_ARGS],
    ]);
    expect(json).toBe(JSON.stringify(SDK_WEATHER_ARGS) + JSON.stringify(SDK_TIME_ARGS));
    expect(final.usage.output_tokens).toBe(MOCK_OUTPUT_TOKENS);
    upstreamCall(fx, channel, chatPath(channel, true));
  });

  compatEach(CLIENT, 'tool result turn stream', async (channel) => {
    expect(await streamOf(channel, TOOL_TURNS, { tools: [WEATHER] }).finalText()).toBe('Tool said: 22 degrees');
    expect(rolesOf(upstreamCall(fx, channel, chatPath(channel, true)))).toEqual(['user', 'assistant', 'tool']);
  });

  compatEach(CLIENT, 'image', async (channel) => {
    const msg = await ask(channel, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
        ],
      },
    ]);
    expect(textOf(msg)).toBe(`Image: image/png ${PNG_BYTES} bytes`);
    upstreamCall(fx, channel, chatPath(channel));
  });

  compatEach(CLIENT, 'parameters', async (channel) => {
    const msg = await ask(channel, 'hi', { temperature: 0.25, top_p: 0.5, max_tokens: 64, stop_sequences: ['END'] });
    expect(textOf(msg)).toBe(`Hello from ${channel}`);
    expect(paramsOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual({
      temperature: 0.25,
      topP: 0.5,
      maxTokens: 64,
      stop: ['END'],
    });
  });

  compatEach(CLIENT, 'structured output', async (channel) => {
    const msg = await client().messages.parse({
      model: CHANNEL_MODELS[channel],
      max_tokens: MAX_TOKENS,
      messages: [{ role: 'user', content: 'Make a person' }],
      output_config: { format: jsonSchemaOutputFormat(PERSON_SCHEMA) },
    });
    expect(msg.parsed_output).toEqual(SDK_PERSON_SAMPLE);
    const schema = structuredSchemaOf(upstreamCall(fx, channel, chatPath(channel))) as
      { properties?: object } | undefined;
    expect(Object.keys(schema?.properties ?? {})).toEqual(['name', 'age', 'tags']);
  });

  compatEach(CLIENT, 'structured output stream', async (channel) => {
    const stream = streamOf(channel, 'Make a person', {
      output_config: { format: jsonSchemaOutputFormat(PERSON_SCHEMA) },
    });
    expect(JSON.parse(await stream.finalText())).toEqual(SDK_PERSON_SAMPLE);
    expect(structuredSchemaOf(upstreamCall(fx, channel, chatPath(channel, true)))).toBeDefined();
  });

  compatEach(CLIENT, 'count_tokens', async (channel) => {
    const res = await client().messages.countTokens({
      model: CHANNEL_MODELS[channel],
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'How many tokens is this?' }],
    });
    expect(res.input_tokens).toBeGreaterThan(0);
  });

  compatEach(CLIENT, 'models', async (channel) => {
    const ids: string[] = [];
    for await (const m of client().models.list()) ids.push(m.id);
    expect(ids).toContain(CHANNEL_MODELS[channel]);
    const one = await client().models.retrieve(CHANNEL_MODELS[channel]);
    expect(one).toMatchObject({
      type: 'model',
      id: CHANNEL_MODELS[channel],
      display_name: expect.any(String),
      created_at: expect.any(String),
    });
  });

  compatEach(CLIENT, 'errors', async (channel) => {
    const count = { n: 0 };
    const before = fx.vendor.requests.length;
    const unknown = client(count).messages.create({
      model: `${CHANNEL_MODELS[channel]}-not-served`,
      max_tokens: MAX_TOKENS,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(unknown).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    await expect(unknown).rejects.toMatchObject({ error: { type: 'error', error: { type: 'not_found_error' } } });
    expect(count.n).toBe(1);
    expect(fx.vendor.requests.length).toBe(before);
    const badInput = client().messages.create({
      model: CHANNEL_MODELS[channel],
      max_tokens: MAX_TOKENS,
      messages: 'hi' as unknown as MessageParam[],
    });
    await expect(badInput).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    const upstream400 = client().messages.create({
      model: ERROR_MODELS[channel],
      max_tokens: MAX_TOKENS,
      messages: [{ role: 'user', content: 'hi' }],
    });
    await expect(upstream400).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(upstream400).rejects.toMatchObject({
      error: { type: 'error', error: { type: 'invalid_request_error' } },
    });
  });

  compat(CLIENT, 'anthropic-beta header', 'anthropic', async () => {
    const msg = await client().beta.messages.create({
      model: CHANNEL_MODELS.anthropic,
      max_tokens: MAX_TOKENS,
      betas: [BETA],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: 'Hello from anthropic' });
    const up = upstreamCall(fx, 'anthropic', '/v1/messages');
    expect(up.headers['anthropic-beta']).toBe(BETA);
    expect(up.headers['anthropic-version']).toBe('2023-06-01');
  });
});

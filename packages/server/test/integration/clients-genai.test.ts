import {
  ApiError,
  GoogleGenAI,
  Type,
  type Content,
  type FunctionDeclaration,
  type GenerateContentConfig,
  type GenerateContentResponse,
} from '@google/genai';
import { describe, expect } from 'vitest';
import { PNG_BASE64, PNG_BYTES, SDK_PERSON_SAMPLE, SDK_TIME_ARGS } from '../support/conformance-fixtures.js';
import { compat, compatEach } from '../support/compat.js';
import {
  ANTHROPIC_TOOL_OUTPUT_MODEL,
  CHANNEL_MODELS,
  EMBEDDING_MODELS,
  ERROR_MODELS,
  useConformanceGateway,
  type ChannelKind,
} from '../support/conformance.js';
import {
  chatPath,
  paramsOf,
  rolesOf,
  schemaTypes,
  structuredSchemaOf,
  systemOf,
  toolsOf,
  upstreamCall,
} from '../support/conformance-expect.js';
import { MOCK_EMBEDDING, MOCK_INPUT_TOKENS, MOCK_OUTPUT_TOKENS } from '../support/mock-vendor.js';

const CLIENT = '@google/genai';

/** OpenAPI-style (Gemini) parameters: upper-case types, nullable. */
const WEATHER: FunctionDeclaration = {
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: {
    type: Type.OBJECT,
    properties: {
      city: { type: Type.STRING },
      unit: { type: Type.STRING, enum: ['celsius', 'fahrenheit'] },
      days: { type: Type.INTEGER, nullable: true },
    },
    required: ['city', 'unit'],
  },
};
/** JSON Schema parameters. */
const TIME: FunctionDeclaration = {
  name: 'get_time',
  description: 'Time in a zone',
  parametersJsonSchema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};
const WEATHER_ARGS = { city: 'sample', unit: 'celsius', days: 1 };
const PERSON_SCHEMA = {
  type: Type.OBJECT,
  properties: {
    name: { type: Type.STRING },
    age: { type: Type.INTEGER },
    tags: { type: Type.ARRAY, items: { type: Type.STRING } },
  },
  required: ['name', 'age', 'tags'],
};
const PERSON_JSON_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    age: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'age', 'tags'],
};

const TOOL_TURNS: Content[] = [
  { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
  { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } } }] },
  { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: '22 degrees' } } }] },
];

describe('@google/genai (generateContent, countTokens, models, embeddings) through every channel type', () => {
  const fx = useConformanceGateway();
  const client = () => new GoogleGenAI({ apiKey: fx.key, httpOptions: { baseUrl: fx.base } });
  const ask = (
    channel: ChannelKind,
    contents: Content[] | string,
    config: GenerateContentConfig = {},
    model: string = CHANNEL_MODELS[channel],
  ) => client().models.generateContent({ model, contents, config });
  const streamText = async (
    channel: ChannelKind,
    contents: Content[] | string,
    config: GenerateContentConfig = {},
    model: string = CHANNEL_MODELS[channel],
  ) => {
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await client().models.generateContentStream({ model, contents, config }))
      chunks.push(chunk);
    return { chunks, text: chunks.map((c) => c.text ?? '').join('') };
  };
  const calls = (res: GenerateContentResponse) => (res.functionCalls ?? []).map((c) => [c.name, c.args]);
  const lowerCaseTypes = (schema: unknown) => schemaTypes(schema).every((t) => t === t.toLowerCase());

  compatEach(CLIENT, 'text', async (channel) => {
    const res = await ask(channel, 'hi');
    expect(res.text).toBe(`Hello from ${channel}`);
    expect(res.candidates![0]!.finishReason).toBe('STOP');
    expect(rolesOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual(['user']);
  });

  compatEach(CLIENT, 'usage', async (channel) => {
    const res = await ask(channel, 'hi');
    expect(res.usageMetadata).toMatchObject({
      promptTokenCount: MOCK_INPUT_TOKENS,
      candidatesTokenCount: MOCK_OUTPUT_TOKENS,
      totalTokenCount: MOCK_INPUT_TOKENS + MOCK_OUTPUT_TOKENS,
    });
  });

  compatEach(CLIENT, 'stream', async (channel) => {
    const { chunks, text } = await streamText(channel, 'hi');
    expect(text).toBe(`Hello from ${channel}`);
    const last = chunks.at(-1)!;
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last.usageMetadata).toMatchObject({
      promptTokenCount: MOCK_INPUT_TOKENS,
      candidatesTokenCount: MOCK_OUTPUT_TOKENS,
    });
    upstreamCall(fx, channel, chatPath(channel, true));
  });

  compatEach(CLIENT, 'system prompt', async (channel) => {
    const res = await ask(channel, 'hi', { systemInstruction: 'Be brief.' });
    expect(res.text).toBe(`Hello from ${channel}`);
    const up = upstreamCall(fx, channel, chatPath(channel));
    expect(systemOf(up)).toBe('Be brief.');
    expect(rolesOf(up)).toEqual(['user']);
  });

  compatEach(CLIENT, 'multi-turn', async (channel) => {
    const res = await ask(channel, [
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ text: 'Hello!' }] },
      { role: 'user', parts: [{ text: 'again' }] },
    ]);
    expect(res.text).toBe(`Hello from ${channel}`);
    expect(rolesOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual(['user', 'assistant', 'user']);
  });

  compatEach(CLIENT, 'tool call (OpenAPI schema)', async (channel) => {
    const res = await ask(channel, 'Weather in Paris?', { tools: [{ functionDeclarations: [WEATHER] }] });
    expect(calls(res)).toEqual([['get_weather', WEATHER_ARGS]]);
    const tool = toolsOf(upstreamCall(fx, channel, chatPath(channel)))[0]!;
    expect(tool.name).toBe('get_weather');
    // JSON Schema vendors refuse Gemini's upper-case types; the gateway converts them.
    if (channel !== 'gemini') expect(lowerCaseTypes(tool.schema)).toBe(true);
    expect(tool.schema).toMatchObject({
      properties: { city: expect.anything(), unit: { enum: ['celsius', 'fahrenheit'] }, days: expect.anything() },
    });
  });

  compatEach(CLIENT, 'tool call (JSON schema)', async (channel) => {
    const res = await ask(channel, 'Time?', { tools: [{ functionDeclarations: [TIME] }] });
    expect(calls(res)).toEqual([['get_time', SDK_TIME_ARGS]]);
    expect(toolsOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual([
      {
        name: 'get_time',
        schema: expect.objectContaining({ properties: { zone: expect.objectContaining({ type: 'string' }) } }),
      },
    ]);
  });

  compatEach(CLIENT, 'parallel tool calls', async (channel) => {
    const res = await ask(channel, 'Weather and time, in parallel', {
      tools: [{ functionDeclarations: [WEATHER, TIME] }],
    });
    expect(calls(res)).toEqual([
      ['get_weather', WEATHER_ARGS],
      ['get_time', SDK_TIME_ARGS],
    ]);
  });

  compatEach(CLIENT, 'tool result turn', async (channel) => {
    const res = await ask(channel, TOOL_TURNS, { tools: [{ functionDeclarations: [WEATHER] }] });
    expect(res.text).toMatch(/^Tool said: .*22 degrees/);
    expect(rolesOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual(['user', 'assistant', 'tool']);
  });

  compatEach(CLIENT, 'tool call stream', async (channel) => {
    const { chunks } = await streamText(channel, 'Weather and time, in parallel', {
      tools: [{ functionDeclarations: [WEATHER, TIME] }],
    });
    expect(chunks.flatMap(calls)).toEqual([
      ['get_weather', WEATHER_ARGS],
      ['get_time', SDK_TIME_ARGS],
    ]);
    expect(chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: MOCK_INPUT_TOKENS });
    upstreamCall(fx, channel, chatPath(channel, true));
  });

  compatEach(CLIENT, 'tool result turn stream', async (channel) => {
    const { text } = await streamText(channel, TOOL_TURNS, { tools: [{ functionDeclarations: [WEATHER] }] });
    expect(text).toMatch(/^Tool said: .*22 degrees/);
    upstreamCall(fx, channel, chatPath(channel, true));
  });

  compatEach(CLIENT, 'image', async (channel) => {
    const res = await ask(channel, [
      { role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } }] },
    ]);
    expect(res.text).toBe(`Image: image/png ${PNG_BYTES} bytes`);
    upstreamCall(fx, channel, chatPath(channel));
  });

  compatEach(CLIENT, 'parameters', async (channel) => {
    const res = await ask(channel, 'hi', { temperature: 0.25, topP: 0.5, maxOutputTokens: 64, stopSequences: ['END'] });
    expect(res.text).toBe(`Hello from ${channel}`);
    expect(paramsOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual({
      temperature: 0.25,
      topP: 0.5,
      maxTokens: 64,
      stop: ['END'],
    });
  });

  compatEach(CLIENT, 'structured output (responseSchema)', async (channel) => {
    const res = await ask(channel, 'Make a person', {
      responseMimeType: 'application/json',
      responseSchema: PERSON_SCHEMA,
    });
    expect(JSON.parse(res.text!)).toEqual(SDK_PERSON_SAMPLE);
    const schema = structuredSchemaOf(upstreamCall(fx, channel, chatPath(channel)));
    expect(Object.keys((schema as { properties?: object } | undefined)?.properties ?? {})).toEqual([
      'name',
      'age',
      'tags',
    ]);
    if (channel !== 'gemini') expect(lowerCaseTypes(schema)).toBe(true);
  });

  compatEach(CLIENT, 'structured output (responseJsonSchema)', async (channel) => {
    const res = await ask(channel, 'Make a person', {
      responseMimeType: 'application/json',
      responseJsonSchema: PERSON_JSON_SCHEMA,
    });
    expect(JSON.parse(res.text!)).toEqual(SDK_PERSON_SAMPLE);
    expect(structuredSchemaOf(upstreamCall(fx, channel, chatPath(channel)))).toMatchObject({
      properties: { name: expect.anything() },
    });
  });

  compatEach(CLIENT, 'structured output stream', async (channel) => {
    const { text } = await streamText(channel, 'Make a person', {
      responseMimeType: 'application/json',
      responseSchema: PERSON_SCHEMA,
    });
    expect(JSON.parse(text)).toEqual(SDK_PERSON_SAMPLE);
    expect(structuredSchemaOf(upstreamCall(fx, channel, chatPath(channel, true)))).toBeDefined();
  });

  compat(CLIENT, 'structured output (forced tool)', 'anthropic', async () => {
    const res = await ask(
      'anthropic',
      'Make a person',
      { responseMimeType: 'application/json', responseSchema: PERSON_SCHEMA },
      ANTHROPIC_TOOL_OUTPUT_MODEL,
    );
    expect(JSON.parse(res.text!)).toEqual(SDK_PERSON_SAMPLE);
    expect(res.functionCalls ?? []).toEqual([]);
    const up = upstreamCall(fx, 'anthropic', '/v1/messages');
    expect(up.body.output_config).toBeUndefined();
    expect(up.body.tool_choice).toMatchObject({ type: 'tool' });
    expect(lowerCaseTypes(toolsOf(up)[0]!.schema)).toBe(true);
  });

  compatEach(CLIENT, 'countTokens', async (channel) => {
    const res = await client().models.countTokens({
      model: CHANNEL_MODELS[channel],
      contents: 'How many tokens is this?',
    });
    expect(res.totalTokens).toBeGreaterThan(0);
  });

  compatEach(CLIENT, 'models', async (channel) => {
    const names: string[] = [];
    for await (const m of await client().models.list()) names.push(String(m.name));
    expect(names).toContain(`models/${CHANNEL_MODELS[channel]}`);
    const one = await client().models.get({ model: CHANNEL_MODELS[channel] });
    expect(one.name).toBe(`models/${CHANNEL_MODELS[channel]}`);
  });

  compatEach(
    CLIENT,
    'embeddings',
    async (channel) => {
      const model = EMBEDDING_MODELS[channel as 'openai' | 'gemini'];
      const res = await client().models.embedContent({ model, contents: ['first', 'second'] });
      expect(res.embeddings?.map((e) => e.values)).toEqual([MOCK_EMBEDDING, MOCK_EMBEDDING]);
      const up = upstreamCall(
        fx,
        channel,
        channel === 'openai' ? '/v1/embeddings' : `/v1beta/models/${model}:batchEmbedContents`,
      );
      if (channel === 'openai') expect(up.body).toMatchObject({ model, input: ['first', 'second'] });
    },
    ['openai', 'gemini'],
  );

  compatEach(CLIENT, 'errors', async (channel) => {
    const before = fx.vendor.requests.length;
    const unknown = ask(channel, 'hi', {}, `${CHANNEL_MODELS[channel]}-not-served`);
    await expect(unknown).rejects.toBeInstanceOf(ApiError);
    await expect(unknown).rejects.toMatchObject({ status: 404 });
    expect(fx.vendor.requests.length).toBe(before);
    const upstream400 = ask(channel, 'hi', {}, ERROR_MODELS[channel]);
    await expect(upstream400).rejects.toMatchObject({ status: 400 });
    const res = await fetch(`${fx.base}/v1beta/models/${ERROR_MODELS[channel]}:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': fx.key, 'content-type': 'application/json' },
      body: '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}',
    });
    expect(await res.json()).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.any(String) },
    });
  });
});

import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { AutoParseableResponseFormat } from 'openai/lib/parser';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { describe, expect } from 'vitest';
import { countTokens } from 'gpt-tokenizer';
import {
  PNG_BASE64,
  PNG_BYTES,
  SDK_PERSON,
  SDK_PERSON_SAMPLE,
  SDK_TIME_ARGS,
  SDK_WEATHER_ARGS,
} from '../support/conformance-fixtures.js';
import { compat, compatEach } from '../support/compat.js';
import {
  ANTHROPIC_TOOL_OUTPUT_MODEL,
  CHANNEL_MODELS,
  EMBEDDING_MODELS,
  ERROR_MODELS,
  GEMINI_FINISH_EVERY_CHUNK_MODEL,
  useConformanceGateway,
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

const CLIENT = 'openai';

const WEATHER: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city', 'unit'],
    },
  },
};
const TIME: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_time',
    description: 'Time in a zone',
    parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
  },
};
// Built once through a plain signature: inferring the helper's generics over zod's types takes tsc minutes.
const PERSON_FORMAT = (
  zodResponseFormat as unknown as (
    schema: unknown,
    name: string,
  ) => AutoParseableResponseFormat<typeof SDK_PERSON_SAMPLE>
)(SDK_PERSON, 'person');

/** A tool call and its result, as a client sends them back. */
const TOOL_TURNS: ChatCompletionMessageParam[] = [
  { role: 'user', content: 'Weather in Paris?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '22 degrees' },
];

describe('openai SDK (chat completions, embeddings, models) through every channel type', () => {
  const fx = useConformanceGateway();
  const client = (fetchCount?: { n: number }) =>
    new OpenAI({
      apiKey: fx.key,
      baseURL: `${fx.base}/v1`,
      maxRetries: 0,
      ...(fetchCount
        ? { maxRetries: 2, fetch: (url: RequestInfo | URL, init?: RequestInit) => (fetchCount.n++, fetch(url, init)) }
        : {}),
    });
  const user = (content: string): ChatCompletionMessageParam[] => [{ role: 'user', content }];

  compatEach(CLIENT, 'text', async (channel) => {
    const res = await client().chat.completions.create({ model: CHANNEL_MODELS[channel], messages: user('hi') });
    expect(res.choices[0]!.message).toMatchObject({ role: 'assistant', content: `Hello from ${channel}` });
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(res.model).toBe(CHANNEL_MODELS[channel]);
    const up = upstreamCall(fx, channel, chatPath(channel));
    expect(rolesOf(up)).toEqual(['user']);
  });

  compatEach(CLIENT, 'usage', async (channel) => {
    const res = await client().chat.completions.create({ model: CHANNEL_MODELS[channel], messages: user('hi') });
    expect(res.usage).toMatchObject({
      prompt_tokens: MOCK_INPUT_TOKENS,
      completion_tokens: MOCK_OUTPUT_TOKENS,
      total_tokens: MOCK_INPUT_TOKENS + MOCK_OUTPUT_TOKENS,
    });
  });

  compatEach(CLIENT, 'stream', async (channel) => {
    const stream = await client().chat.completions.create({
      model: CHANNEL_MODELS[channel],
      messages: user('hi'),
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(`Hello from ${channel}`);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: MOCK_INPUT_TOKENS, completion_tokens: MOCK_OUTPUT_TOKENS });
    upstreamCall(fx, channel, chatPath(channel, true));
  });

  compat(CLIENT, 'stream (finishReason on every chunk)', 'gemini', async () => {
    const stream = await client().chat.completions.create({
      model: GEMINI_FINISH_EVERY_CHUNK_MODEL,
      messages: user('hi'),
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from gemini');
    expect(finishes).toEqual(['stop']);
    expect(usage).toMatchObject({ prompt_tokens: MOCK_INPUT_TOKENS, completion_tokens: MOCK_OUTPUT_TOKENS });
    upstreamCall(fx, 'gemini', chatPath('gemini', true, GEMINI_FINISH_EVERY_CHUNK_MODEL));
  });

  compatEach(CLIENT, 'system prompt', async (channel) => {
    const res = await client().chat.completions.create({
      model: CHANNEL_MODELS[channel],
      messages: [{ role: 'system', content: 'Be brief.' }, ...user('hi')],
    });
    expect(res.choices[0]!.message.content).toBe(`Hello from ${channel}`);
    const up = upstreamCall(fx, channel, chatPath(channel));
    expect(systemOf(up)).toBe('Be brief.');
    expect(rolesOf(up)).toEqual(['user']);
  });

  compatEach(CLIENT, 'multi-turn', async (channel) => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'again' },
    ];
    const res = await client().chat.completions.create({ model: CHANNEL_MODELS[channel], messages });
    expect(res.choices[0]!.message.content).toBe(`Hello from ${channel}`);
    expect(rolesOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual(['user', 'assistant', 'user']);
  });

  compatEach(CLIENT, 'tool call', async (channel) => {
    const res = await client().chat.completions.create({
      model: CHANNEL_MODELS[channel],
      messages: user('Weather in Paris?'),
      tools: [WEATHER],
    });
    const choice = res.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
    expect(call.id).toBeTruthy();
    expect(JSON.parse(call.function.arguments)).toEqual(SDK_WEATHER_ARGS);
    const up = upstreamCall(fx, channel, chatPath(channel));
    expect(toolsOf(up)).toEqual([
      {
        name: 'get_weather',
        schema: expect.objectContaining({ properties: expect.objectContaining({ city: expect.anything() }) }),
      },
    ]);
  });

  compatEach(CLIENT, 'parallel tool calls', async (channel) => {
    const res = await client().chat.completions.create({
      model: CHANNEL_MODELS[channel],
      messages: user('Weather and time, in parallel'),
      tools: [WEATHER, TIME],
    });
    const calls = (res.choices[0]!.message.tool_calls ?? []) as OpenAI.ChatCompletionMessageFunctionToolCall[];
    expect(calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['get_weather', SDK_WEATHER_ARGS],
      ['get_time', SDK_TIME_ARGS],
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
  });

  compatEach(CLIENT, 'tool result turn', async (channel) => {
    const res = await client().chat.completions.create({
      model: CHANNEL_MODELS[channel],
      messages: TOOL_TURNS,
      tools: [WEATHER],
    });
    expect(res.choices[0]!.message.content).toBe('Tool said: 22 degrees');
    const up = upstreamCall(fx, channel, chatPath(channel));
    expect(rolesOf(up)).toEqual(['user', 'assistant', 'tool']);
  });

  compatEach(CLIENT, 'tool call stream', async (channel) => {
    const stream = client().chat.completions.stream({
      model: CHANNEL_MODELS[channel],
      messages: user('Weather and time, in parallel'),
      tools: [WEATHER, TIME],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    const calls = (final.choices[0]!.message.tool_calls ?? []) as OpenAI.ChatCompletionMessageFunctionToolCall[];
    expect(calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['get_weather', SDK_WEATHER_ARGS],
      ['get_time', SDK_TIME_ARGS],
    ]);
    expect(calls.every((c) => c.id)).toBe(true);
    expect(final.usage).toMatchObject({ prompt_tokens: MOCK_INPUT_TOKENS, completion_tokens: MOCK_OUTPUT_TOKENS });
    upstreamCall(fx, channel, chatPath(channel, true));
  });

  compatEach(CLIENT, 'tool result turn stream', async (channel) => {
    const stream = client().chat.completions.stream({
      model: CHANNEL_MODELS[channel],
      messages: TOOL_TURNS,
      tools: [WEATHER],
    });
    expect(await stream.finalContent()).toBe('Tool said: 22 degrees');
    expect(rolesOf(upstreamCall(fx, channel, chatPath(channel, true)))).toEqual(['user', 'assistant', 'tool']);
  });

  compatEach(CLIENT, 'runTools loop', async (channel) => {
    const runner = client().chat.completions.runTools({
      model: CHANNEL_MODELS[channel],
      messages: user('Weather in Paris?'),
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather in a city',
            parameters: WEATHER.function.parameters!,
            parse: JSON.parse,
            function: (args: { city: string }) => `sunny in ${args.city}`,
          },
        },
      ],
    });
    expect(await runner.finalContent()).toBe('Tool said: sunny in sample');
    expect(rolesOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual(['user', 'assistant', 'tool']);
  });

  compatEach(CLIENT, 'image', async (channel) => {
    const res = await client().chat.completions.create({
      model: CHANNEL_MODELS[channel],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          ],
        },
      ],
    });
    expect(res.choices[0]!.message.content).toBe(`Image: image/png ${PNG_BYTES} bytes`);
    upstreamCall(fx, channel, chatPath(channel));
  });

  compatEach(CLIENT, 'parameters', async (channel) => {
    const res = await client().chat.completions.create({
      model: CHANNEL_MODELS[channel],
      messages: user('hi'),
      temperature: 0.25,
      top_p: 0.5,
      max_tokens: 64,
      stop: ['END'],
    });
    expect(res.choices[0]!.message.content).toBe(`Hello from ${channel}`);
    expect(paramsOf(upstreamCall(fx, channel, chatPath(channel)))).toEqual({
      temperature: 0.25,
      topP: 0.5,
      maxTokens: 64,
      stop: ['END'],
    });
  });

  compatEach(CLIENT, 'structured output', async (channel) => {
    const res = await client().chat.completions.parse({
      model: CHANNEL_MODELS[channel],
      messages: user('Make a person'),
      response_format: PERSON_FORMAT,
    });
    expect(res.choices[0]!.message.parsed).toEqual(SDK_PERSON_SAMPLE);
    const schema = structuredSchemaOf(upstreamCall(fx, channel, chatPath(channel))) as
      { properties?: object } | undefined;
    expect(Object.keys(schema?.properties ?? {})).toEqual(['name', 'age', 'tags']);
    if (channel !== 'gemini') expect(schemaTypes(schema).every((t) => t === t.toLowerCase())).toBe(true);
  });

  compatEach(CLIENT, 'structured output stream', async (channel) => {
    const stream = client().chat.completions.stream({
      model: CHANNEL_MODELS[channel],
      messages: user('Make a person'),
      response_format: PERSON_FORMAT,
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.parsed).toEqual(SDK_PERSON_SAMPLE);
    expect(structuredSchemaOf(upstreamCall(fx, channel, chatPath(channel, true)))).toBeDefined();
  });

  compat(CLIENT, 'structured output (forced tool)', 'anthropic', async () => {
    const res = await client().chat.completions.parse({
      model: ANTHROPIC_TOOL_OUTPUT_MODEL,
      messages: user('Make a person'),
      response_format: PERSON_FORMAT,
    });
    expect(res.choices[0]!.message.parsed).toEqual(SDK_PERSON_SAMPLE);
    expect(res.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(res.choices[0]!.finish_reason).toBe('stop');
    const up = upstreamCall(fx, 'anthropic', '/v1/messages');
    expect(up.body.output_config).toBeUndefined();
    const forced = (up.body.tool_choice as { type?: string; name?: string } | undefined)?.name;
    expect(up.body.tool_choice).toMatchObject({ type: 'tool' });
    expect(toolsOf(up).find((t) => t.name === forced)?.schema).toMatchObject({
      properties: { name: expect.anything(), age: expect.anything(), tags: expect.anything() },
    });
  });

  compatEach(CLIENT, 'errors', async (channel) => {
    const count = { n: 0 };
    const before = fx.vendor.requests.length;
    const unknown = client(count).chat.completions.create({
      model: `${CHANNEL_MODELS[channel]}-not-served`,
      messages: user('hi'),
    });
    await expect(unknown).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect(count.n).toBe(1);
    expect(fx.vendor.requests.length).toBe(before);
    const badInput = client().chat.completions.create({
      model: CHANNEL_MODELS[channel],
      messages: 'hi' as unknown as ChatCompletionMessageParam[],
    });
    await expect(badInput).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    const upstream400 = client().chat.completions.create({ model: ERROR_MODELS[channel], messages: user('hi') });
    await expect(upstream400).rejects.toMatchObject({ status: 400, constructor: OpenAI.BadRequestError });
  });

  compat(CLIENT, 'openai-beta header', 'openai', async () => {
    const beta = new OpenAI({
      apiKey: fx.key,
      baseURL: `${fx.base}/v1`,
      maxRetries: 0,
      organization: 'org-caller',
      defaultHeaders: { 'OpenAI-Beta': 'assistants=v2' },
    });
    const res = await beta.chat.completions.create({ model: CHANNEL_MODELS.openai, messages: user('hi') });
    expect(res.choices[0]!.message.content).toBe('Hello from openai');
    const up = upstreamCall(fx, 'openai', chatPath('openai'));
    expect(up.headers['openai-beta']).toBe('assistants=v2');
    // The caller's own OpenAI account is not the channel's.
    expect(up.headers['openai-organization']).toBeUndefined();
  });

  compatEach(CLIENT, 'models', async (channel) => {
    const ids: string[] = [];
    for await (const m of client().models.list()) ids.push(m.id);
    expect(ids).toContain(CHANNEL_MODELS[channel]);
    const one = await client().models.retrieve(CHANNEL_MODELS[channel]);
    expect(one).toMatchObject({ id: CHANNEL_MODELS[channel], object: 'model' });
  });

  const embeddingPath = (channel: 'openai' | 'gemini') =>
    channel === 'openai' ? '/v1/embeddings' : `/v1beta/models/${EMBEDDING_MODELS.gemini}:batchEmbedContents`;

  compatEach(
    CLIENT,
    'embeddings',
    async (channel) => {
      const model = EMBEDDING_MODELS[channel as 'openai' | 'gemini'];
      const floats = await client().embeddings.create({ model, input: ['first', 'second'], encoding_format: 'float' });
      expect(floats.data.map((d) => [d.index, d.embedding])).toEqual([
        [0, MOCK_EMBEDDING],
        [1, MOCK_EMBEDDING],
      ]);
      // Gemini reports no usage for embeddings: the inputs are counted, each on its own as OpenAI bills them.
      if (channel === 'gemini') expect(floats.usage.prompt_tokens).toBe(countTokens('first') + countTokens('second'));
      else expect(floats.usage.prompt_tokens).toBe(MOCK_INPUT_TOKENS);
      const up = upstreamCall(fx, channel, embeddingPath(channel as 'openai' | 'gemini'));
      if (channel === 'gemini')
        expect(
          (up.body.requests as { content: { parts: { text: string }[] } }[]).map((r) => r.content.parts[0]!.text),
        ).toEqual(['first', 'second']);
      else expect(up.body).toMatchObject({ model, input: ['first', 'second'] });
    },
    ['openai', 'gemini'],
  );

  compatEach(
    CLIENT,
    'embeddings base64',
    async (channel) => {
      // The SDK asks for base64 by default and decodes it to floats.
      const res = await client().embeddings.create({
        model: EMBEDDING_MODELS[channel as 'openai' | 'gemini'],
        input: 'one text',
      });
      expect(res.data.map((d) => d.embedding)).toEqual([MOCK_EMBEDDING]);
      expect(res.usage.prompt_tokens).toBe(channel === 'gemini' ? countTokens('one text') : MOCK_INPUT_TOKENS);
      const up = upstreamCall(fx, channel, embeddingPath(channel as 'openai' | 'gemini'));
      if (channel === 'openai') expect(up.body.encoding_format).toBe('base64');
    },
    ['openai', 'gemini'],
  );
});

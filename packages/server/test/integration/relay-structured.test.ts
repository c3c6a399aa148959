import http from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, Type } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { STRUCTURED_TOOL } from '../../src/relay/providers/anthropic/structured.js';
import { useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';
import { listenLocally, type LocalServer } from '../support/local-server.js';
import type { MockUpstream } from '../support/mock-upstream.js';

/**
 * Structured output, Gemini schemas and stream ends across formats, with the official SDKs through the gateway:
 * what the client sees and what the upstream received. The simple mock answers text; a small scripted vendor in
 * this file answers what it does not (a Claude tool_use answer, a Gemini stream with finishReason on every chunk).
 */

const ANSWER = { city: 'Paris', temp: 21 };
const GEMINI_PIECES = ['Hello', ' from', ' gemini'];
const USAGE = { input: 11, output: 7 };
const weatherSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temp: { type: 'number' } },
  required: ['city', 'temp'],
  additionalProperties: false,
};

interface Scripted extends LocalServer {
  requests: { path: string; body: Record<string, any> }[];
}

const sse = (res: http.ServerResponse, events: { event?: string; data: unknown }[]) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
};

/** Anthropic: answers a forced tool with a tool_use of it (plain or streamed); Gemini: finishReason on every chunk. */
async function startScripted(): Promise<Scripted> {
  const requests: Scripted['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, any>;
      const path = (req.url ?? '').split('?')[0]!;
      requests.push({ path, body });
      if (path === '/v1/messages') return answerClaude(res, body);
      if (path.endsWith(':streamGenerateContent')) return answerGeminiEveryChunk(res, path);
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not here"}}');
    });
  });
  return Object.assign(await listenLocally(server), { requests });
}

function answerClaude(res: http.ServerResponse, body: Record<string, any>) {
  const tool = body.tool_choice?.type === 'tool' ? String(body.tool_choice.name) : undefined;
  if (!tool) {
    res.writeHead(400, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'this script expects a forced tool' },
      }),
    );
    return;
  }
  const usage = { input_tokens: USAGE.input, output_tokens: USAGE.output };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'msg_s',
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [{ type: 'tool_use', id: 'toolu_s', name: tool, input: ANSWER }],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  const json = JSON.stringify(ANSWER);
  const half = Math.floor(json.length / 2);
  sse(
    res,
    [
      {
        type: 'message_start',
        message: {
          id: 'msg_s',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: USAGE.input, output_tokens: 1 },
        },
      },
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_s', name: tool, input: {} },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: json.slice(half) } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { output_tokens: USAGE.output },
      },
      { type: 'message_stop' },
    ].map((data) => ({ event: data.type, data })),
  );
}

function answerGeminiEveryChunk(res: http.ServerResponse, path: string) {
  const model = /models\/([^:]+):/.exec(path)?.[1] ?? '';
  sse(
    res,
    GEMINI_PIECES.map((text, i) => ({
      data: {
        candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
        ...(i === GEMINI_PIECES.length - 1
          ? {
              usageMetadata: {
                promptTokenCount: USAGE.input,
                candidatesTokenCount: USAGE.output,
                totalTokenCount: USAGE.input + USAGE.output,
              },
            }
          : {}),
        modelVersion: model,
        responseId: 'every-chunk',
      },
    })),
  );
}

describe('structured output, Gemini schemas and stream ends across formats', () => {
  let mock: MockUpstream, base: string, key: string;
  let scripted: Scripted;
  useGateway('sqlite', { user: 'structured-user', quota: 50_000_000 }, async (gw) => {
    ({ mock, base, key } = gw);
    scripted = await startScripted();
    const { root } = gw;
    await addChannel(root, { name: 'oa', key: 'oa-key', baseUrl: mock.url, models: 'gpt-4o-mini' });
    await addChannel(root, {
      name: 'claude-native',
      key: 'an-key',
      baseUrl: mock.url,
      type: 14,
      models: 'claude-sonnet-4-5',
    });
    await addChannel(root, {
      name: 'claude-old',
      key: 'old-key',
      baseUrl: scripted.url,
      type: 14,
      models: 'claude-3-5-haiku-20241022',
    });
    await addChannel(root, {
      name: 'gemini-every-chunk',
      key: 'ge-key',
      baseUrl: scripted.url,
      type: 24,
      models: 'gemini-2.0-flash',
    });
    const models = ['gpt-4o-mini', 'claude-sonnet-4-5', 'claude-3-5-haiku-20241022', 'gemini-2.0-flash'];
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify(Object.fromEntries(models.map((m) => [m, 1]))),
    });
    await root.call('PUT', '/api/option/', {
      key: 'CompletionRatio',
      value: JSON.stringify(Object.fromEntries(models.map((m) => [m, 2]))),
    });
  });
  afterAll(async () => scripted?.close());

  const openai = () => new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 });
  const genai = () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base } });
  const lastMock = () => mock.requests.at(-1)!;
  const lastScripted = () => scripted.requests.at(-1)!;
  const responseFormat = {
    type: 'json_schema' as const,
    json_schema: { name: 'weather', schema: weatherSchema, strict: true },
  };

  it('OpenAI response_format → a Claude model with native structured output: output_config.format upstream', async () => {
    const done = await openai().chat.completions.create({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      response_format: responseFormat,
    });
    expect(done.choices[0]!.message.content).toBe('Hello from the mock!');
    const sent = lastMock();
    expect(sent.path).toBe('/v1/messages');
    expect(sent.body.output_config).toEqual({ format: { type: 'json_schema', schema: weatherSchema } });
    expect(sent.body.tools).toBeUndefined();
  });

  it('OpenAI response_format → an older Claude: a forced tool upstream, its input is the JSON answer (plain and streamed)', async () => {
    const done = await openai().chat.completions.create({
      model: 'claude-3-5-haiku-20241022',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      response_format: responseFormat,
    });
    expect(JSON.parse(done.choices[0]!.message.content!)).toEqual(ANSWER);
    expect(done.choices[0]!.finish_reason).toBe('stop');
    expect(done.choices[0]!.message.tool_calls).toBeUndefined();
    const sent = lastScripted().body;
    expect(sent.output_config).toBeUndefined();
    expect(sent.tools).toEqual([expect.objectContaining({ name: STRUCTURED_TOOL, input_schema: weatherSchema })]);
    expect(sent.tool_choice).toEqual({ type: 'tool', name: STRUCTURED_TOOL });

    const stream = await openai().chat.completions.create({
      model: 'claude-3-5-haiku-20241022',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      response_format: responseFormat,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(JSON.parse(text)).toEqual(ANSWER);
    expect(finishes).toEqual(['stop']);
    expect(usage).toMatchObject({ prompt_tokens: USAGE.input, completion_tokens: USAGE.output });
  });

  it('OpenAI Responses text.format → an older Claude: output_text is the JSON answer', async () => {
    const r = await openai().responses.create({
      model: 'claude-3-5-haiku-20241022',
      input: 'Weather in Paris?',
      text: { format: { type: 'json_schema', name: 'weather', schema: weatherSchema, strict: true } },
    });
    expect(JSON.parse(r.output_text)).toEqual(ANSWER);
    expect(lastScripted().body.tool_choice).toEqual({ type: 'tool', name: STRUCTURED_TOOL });
  });

  it('Anthropic output_config.format → an OpenAI channel: response_format upstream', async () => {
    const msg = await anthropic().messages.create({
      model: 'gpt-4o-mini',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      output_config: { format: { type: 'json_schema', schema: weatherSchema } },
    });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    const sent = lastMock();
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema: weatherSchema },
    });
  });

  it('Gemini OBJECT schemas → an OpenAI channel: tools and response_format in lower-case JSON Schema', async () => {
    const r = await genai().models.generateContent({
      model: 'gpt-4o-mini',
      contents: 'Weather in Paris?',
      config: {
        tools: [
          {
            functionDeclarations: [
              {
                name: 'get_weather',
                description: 'Weather of a city',
                parameters: {
                  type: Type.OBJECT,
                  properties: {
                    city: { type: Type.STRING },
                    unit: { type: Type.STRING, enum: ['C', 'F'], nullable: true },
                  },
                  required: ['city'],
                },
              },
            ],
          },
        ],
        responseMimeType: 'application/json',
        responseSchema: { type: Type.OBJECT, properties: { ok: { type: Type.BOOLEAN } }, propertyOrdering: ['ok'] },
      },
    });
    expect(r.text).toBe('Hello from the mock!');
    const sent = lastMock().body as Record<string, any>;
    expect(sent.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' }, unit: { type: ['string', 'null'], enum: ['C', 'F', null] } },
            required: ['city'],
          },
        },
      },
    ]);
    expect(sent.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
    });
  });

  it('a Gemini stream with finishReason on every chunk reaches an Anthropic client whole', async () => {
    const stream = anthropic().messages.stream({
      model: 'gemini-2.0-flash',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'Say hello, please.' }],
    });
    const types: string[] = [];
    let startInput = -1;
    stream.on('streamEvent', (e) => {
      types.push(e.type);
      if (e.type === 'message_start') startInput = e.message.usage.input_tokens;
    });
    const final = await stream.finalMessage();
    expect(final.content).toHaveLength(1);
    expect(final.content[0]).toMatchObject({ type: 'text', text: GEMINI_PIECES.join('') });
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage).toMatchObject({ input_tokens: USAGE.input, output_tokens: USAGE.output });
    expect(types.filter((t) => t === 'message_delta')).toHaveLength(1);
    expect(types.at(-1)).toBe('message_stop');
    // The upstream's first chunk had no usage: message_start carries the gateway's own count of the prompt.
    expect(startInput).toBeGreaterThan(0);
    expect(lastScripted().path).toBe('/v1beta/models/gemini-2.0-flash:streamGenerateContent');
  });

  it('the same stream reaches an OpenAI client whole, with one finish_reason', async () => {
    const stream = await openai().chat.completions.create({
      model: 'gemini-2.0-flash',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    const finishes: string[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
    }
    expect(text).toBe(GEMINI_PIECES.join(''));
    expect(finishes).toEqual(['stop']);
  });

  it('an Anthropic stream from an OpenAI channel reports input tokens in message_start, the real usage at the end', async () => {
    const stream = anthropic().messages.stream({
      model: 'gpt-4o-mini',
      max_tokens: 50,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'What is the capital of France?' }],
    });
    let startInput = -1;
    stream.on('streamEvent', (e) => {
      if (e.type === 'message_start') startInput = e.message.usage.input_tokens;
    });
    const final = await stream.finalMessage();
    expect(startInput).toBeGreaterThan(5);
    // The simple mock reports 12 prompt tokens and 5 completion tokens at the end.
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 });
  });
});

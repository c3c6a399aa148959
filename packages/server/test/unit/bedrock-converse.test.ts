import { describe, expect, it } from 'vitest';
import type { IRRequest } from '../../src/relay/ir/types.js';
import {
  bedrockAdaptorFor,
  bedrockClaudeAdaptor,
  bedrockConverseAdaptor,
} from '../../src/relay/providers/aws/adaptor.js';
import { BedrockStreamFramer } from '../../src/relay/providers/aws/bedrock-stream.js';
import { bedrockConverse } from '../../src/relay/providers/aws/converse.js';
import { sha256Hex } from '../../src/relay/providers/aws/sigv4.js';
import type { UpstreamCall } from '../../src/relay/providers/types.js';
import { converseEvent } from '../support/aws-event-stream.js';

/** Bedrock Converse, written from the Bedrock API reference (Converse / ConverseStream request and response shapes). */
describe('Bedrock Converse wire format', () => {
  it('IR → Converse request: system, content blocks, tool calls and results, image bytes, inference config, tool config', () => {
    const ir: IRRequest = {
      model: 'us.amazon.nova-pro-v1:0',
      system: ['You are terse.', 'Use tools.'],
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'What is in this picture, and the weather in Paris?' },
            { type: 'image', url: 'data:image/jpeg;base64,/9j/AAAA' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          ],
        },
        { role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'tooluse_1', content: '18°C, cloudy' }] },
        { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
      ],
      tools: [
        {
          name: 'get_weather',
          description: 'Weather by city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      ],
      toolChoice: 'required',
      maxTokens: 512,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stop: ['END'],
      stream: false,
    };
    expect(bedrockConverse.requestFromIR(ir)).toEqual({
      system: [{ text: 'You are terse.' }, { text: 'Use tools.' }],
      messages: [
        {
          role: 'user',
          content: [
            { text: 'What is in this picture, and the weather in Paris?' },
            { image: { format: 'jpeg', source: { bytes: '/9j/AAAA' } } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { text: 'Checking.' },
            { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
          ],
        },
        // The tool result and the next user text share one user turn (Converse alternates roles).
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 'tooluse_1', content: [{ text: '18°C, cloudy' }] } },
            { text: 'Thanks' },
          ],
        },
      ],
      inferenceConfig: { maxTokens: 512, temperature: 0.5, topP: 0.9, stopSequences: ['END'] },
      additionalModelRequestFields: { top_k: 40 },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'get_weather',
              description: 'Weather by city',
              inputSchema: { json: ir.tools![0]!.parameters },
            },
          },
        ],
        toolChoice: { any: {} },
      },
    });
  });

  it('Converse response → IR: text, tool use, reasoning, stop reason and usage with cache tokens', () => {
    const ir = bedrockConverse.responseToIR({
      output: {
        message: {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'Need weather.', signature: 'sig' } } },
            { text: 'Let me check.' },
            { toolUse: { toolUseId: 'tooluse_2', name: 'get_weather', input: { city: 'Oslo' } } },
          ],
        },
      },
      stopReason: 'tool_use',
      usage: {
        inputTokens: 30,
        outputTokens: 12,
        totalTokens: 92,
        cacheReadInputTokens: 40,
        cacheWriteInputTokens: 10,
      },
      metrics: { latencyMs: 300 },
    });
    expect(ir.parts).toEqual([
      { type: 'thinking', text: 'Need weather.', signature: 'sig' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', id: 'tooluse_2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    expect(ir.stopReason).toBe('tool_calls');
    expect(ir.usage).toEqual({
      inputTokens: 30,
      outputTokens: 12,
      cacheReadTokens: 40,
      cacheWriteTokens: 10,
      reasoningTokens: 0,
    });
  });

  it('ConverseStream events (from the binary event stream) → IR events, tool input streamed in pieces', () => {
    const bytes = Buffer.concat([
      converseEvent('messageStart', { role: 'assistant' }),
      converseEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Sure' } }),
      converseEvent('contentBlockStop', { contentBlockIndex: 0 }),
      converseEvent('contentBlockStart', {
        contentBlockIndex: 1,
        start: { toolUse: { toolUseId: 'tooluse_3', name: 'get_weather' } },
      }),
      converseEvent('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } }),
      converseEvent('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '"Rome"}' } } }),
      converseEvent('contentBlockStop', { contentBlockIndex: 1 }),
      converseEvent('messageStop', { stopReason: 'tool_use' }),
      converseEvent('metadata', {
        usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 },
        metrics: { latencyMs: 80 },
      }),
    ]);
    const framer = new BedrockStreamFramer('converse');
    const state = bedrockConverse.newDecodeState();
    const events = [];
    for (let i = 0; i < bytes.length; i += 13)
      for (const ev of framer.push(bytes.subarray(i, i + 13))) events.push(...bedrockConverse.decodeEvent(state, ev));
    expect(events).toEqual([
      { type: 'start', id: '', model: '' },
      { type: 'text', text: 'Sure' },
      { type: 'tool_call_start', index: 0, id: 'tooluse_3', name: 'get_weather' },
      { type: 'tool_call_args', index: 0, args: '{"city":' },
      { type: 'tool_call_args', index: 0, args: '"Rome"}' },
      { type: 'stop', reason: 'tool_calls' },
      {
        type: 'usage',
        usage: { inputTokens: 9, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      },
      { type: 'end' },
    ]);
  });

  it('routes Claude to InvokeModel and other Bedrock models to Converse', () => {
    expect(bedrockAdaptorFor('claude-sonnet-4-20250514')).toBe(bedrockClaudeAdaptor);
    expect(bedrockAdaptorFor('us.anthropic.claude-opus-4-1-20250805-v1:0')).toBe(bedrockClaudeAdaptor);
    expect(bedrockAdaptorFor('amazon.nova-lite-v1:0')).toBe(bedrockConverseAdaptor);
    expect(bedrockAdaptorFor('meta.llama3-1-70b-instruct-v1:0')).toBe(bedrockConverseAdaptor);
  });
});

describe('Bedrock Claude request preparation', () => {
  const call = (model: string, stream: boolean) =>
    ({
      channel: { baseUrl: '', type: 33 },
      key: 'AKIDEXAMPLE|secret|eu-central-1',
      model,
      stream,
      openaiPath: '/v1/chat/completions',
      options: undefined,
    }) as unknown as UpstreamCall;

  it('targets the regional runtime, moves anthropic-beta into the body, drops model/stream and signs the final body', async () => {
    const c = call('claude-sonnet-4-20250514', true);
    const target = bedrockClaudeAdaptor.target(c);
    expect(target.url.href).toBe(
      'https://bedrock-runtime.eu-central-1.amazonaws.com/model/eu.anthropic.claude-sonnet-4-20250514-v1%3A0/invoke-with-response-stream',
    );
    const p = await bedrockClaudeAdaptor.prepare!(c, {
      url: target.url,
      headers: { ...target.headers, 'anthropic-beta': 'context-1m-2025-08-07, token-efficient-tools-2025-02-19' },
      body: { model: 'x', stream: true, max_tokens: 10, messages: [] },
    });
    expect(JSON.parse(p.body)).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 10,
      messages: [],
      anthropic_beta: ['context-1m-2025-08-07', 'token-efficient-tools-2025-02-19'],
    });
    expect(p.headers['anthropic-beta']).toBeUndefined();
    expect(p.headers['x-amz-content-sha256']).toBe(sha256Hex(p.body));
    expect(p.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-central-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
  });

  it('refuses a key that is not Ak|Sk|Region', () => {
    const c = { ...call('claude-3-haiku-20240307', false), key: 'just-one-part' } as UpstreamCall;
    expect(() => bedrockClaudeAdaptor.prepare!(c, { url: new URL('http://x/'), headers: {}, body: {} })).toThrow(
      'AWS Bedrock key must be Ak|Sk|Region',
    );
  });
});

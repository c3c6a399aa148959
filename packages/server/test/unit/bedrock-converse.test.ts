import { describe, expect, it } from 'vitest';
import type { IRRequest } from '../../src/relay/ir/types.js';
import { bedrockAdaptorFor, bedrockClaudeAdaptor, bedrockConverseAdaptor } from '../../src/relay/providers/aws/adaptor.js';
import { BedrockStreamFramer } from '../../src/relay/providers/aws/bedrock-stream.js';
import { bedrockConverse } from '../../src/relay/providers/aws/converse.js';
import { converseEvent } from '../support/aws-event-stream.js';

/** Bedrock Converse, written from the Bedrock API reference (Converse / ConverseStream request and response shapes). */
describe('Bedrock Converse wire format', () => {
  it('IR → Converse request: system, content blocks, tool calls and results, image bytes, inference config, tool config', () => {
    const ir: IRRequest = {
      model: 'us.amazon.nova-pro-v1:0',
      system: ['You are terse.', 'Use tools.'],
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'What is in this picture, and the weather in Paris?' }, { type: 'image', url: 'data:image/jpeg;base64,/9j/AAAA' }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'Checking.' }, { type: 'tool_call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
        { role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'tooluse_1', content: '18°C, cloudy' }] },
        { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
      ],
      tools: [{ name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
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
        { role: 'user', content: [{ text: 'What is in this picture, and the weather in Paris?' }, { image: { format: 'jpeg', source: { bytes: '/9j/AAAA' } } }] },
        { role: 'assistant', content: [{ text: 'Checking.' }, { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } }] },
        // The tool result and the next user text share one user turn (Converse alternates roles).
        { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '18°C, cloudy' }] } }, { text: 'Thanks' }] },
      ],
      inferenceConfig: { maxTokens: 512, temperature: 0.5, topP: 0.9, stopSequences: ['END'] },
      additionalModelRequestFields: { top_k: 40 },
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather', description: 'Weather by city', inputSchema: { json: ir.tools![0]!.parameters } } }], toolChoice: { any: {} } },
    });
  });

  it('Converse response → IR: text, tool use, reasoning, stop reason and usage with cache tokens', () => {
    const ir = bedrockConverse.responseToIR({
      output: {
        message: {
          role: 'assistant',
          content: [{ reasoningContent: { reasoningText: { text: 'Need weather.', signature: 'sig' } } }, { text: 'Let me check.' }, { toolUse: { toolUseId: 'tooluse_2', name: 'get_weather', input: { city: 'Oslo' } } }],
        },
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 30, outputTokens: 12, totalTokens: 92, cacheReadInputTokens: 40, cacheWriteInputTokens: 10 },
      metrics: { latencyMs: 300 },
    });
    expect(ir.parts).toEqual([
      { type: 'thinking', text: 'Need weather.', signature: 'sig' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', id: 'tooluse_2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
    expect(ir.stopReason).toBe('tool_calls');
    expect(ir.usage).toEqual({ inputTokens: 30, outputTokens: 12, cacheReadTokens: 40, cacheWriteTokens: 10, reasoningTokens: 0 });
  });

  it('ConverseStream events (from the binary event stream) → IR events, tool input streamed in pieces', () => {
    const bytes = Buffer.concat([
      converseEvent('messageStart', { role: 'assistant' }),
      converseEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Sure' } }),
      converseEvent('contentBlockStop', { contentBlockIndex: 0 }),
      converseEvent('contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_3', name: 'get_weather' } } }),
      converseEvent('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } }),
      converseEvent('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '"Rome"}' } } }),
      converseEvent('contentBlockStop', { contentBlockIndex: 1 }),
      converseEvent('messageStop', { stopReason: 'tool_use' }),
      converseEvent('metadata', { usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 }, metrics: { latencyMs: 80 } }),
    ]);
    const framer = new BedrockStreamFramer('converse');
    const state = bedrockConverse.newDecodeState();
    const events = [];
    for (let i = 0; i < bytes.length; i += 13) for (const ev of framer.push(bytes.subarray(i, i + 13))) events.push(...bedrockConverse.decodeEvent(state, ev));
    expect(events).toEqual([
      { type: 'start', id: '', model: '' },
      { type: 'text', text: 'Sure' },
      { type: 'tool_call_start', index: 0, id: 'tooluse_3', name: 'get_weather' },
      { type: 'tool_call_args', index: 0, args: '{"city":' },
      { type: 'tool_call_args', index: 0, args: '"Rome"}' },
      { type: 'stop', reason: 'tool_calls' },
      { type: 'usage', usage: { inputTokens: 9, outputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
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

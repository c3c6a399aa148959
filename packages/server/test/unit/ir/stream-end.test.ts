import { describe, expect, it } from 'vitest';
import { anthropicMessages } from '../../../src/relay/providers/anthropic/convert.js';
import { geminiGenerate } from '../../../src/relay/providers/gemini/convert.js';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import { openAIResponses } from '../../../src/relay/providers/openai/responses.js';
import { SseSplitter } from '../../../src/relay/ir/sse.js';
import type { IRStreamEvent, WireFormat } from '../../../src/relay/ir/types.js';

/** A Gemini stream whose every chunk says finishReason STOP (some Gemini versions do); usage only on the last. */
const pieces = ['Hello', ' from', ' gemini'];
const everyChunkStop = pieces
  .map(
    (text, i) =>
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }], ...(i === pieces.length - 1 ? { usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 } } : {}), responseId: 'r1', modelVersion: 'gemini-2.0-flash' })}\n\n`,
  )
  .join('');

function decodeGemini(text: string): IRStreamEvent[] {
  const state = geminiGenerate.newDecodeState();
  const events = new SseSplitter().push(text).flatMap((ev) => geminiGenerate.decodeEvent(state, ev));
  return [...events, ...geminiGenerate.finish(state)];
}

const encode = <E>(format: WireFormat<unknown, E>, events: IRStreamEvent[], prepare?: (s: E) => void): string => {
  const s = format.newEncodeState('m');
  prepare?.(s);
  return events.map((e) => format.encodeEvent(s, e)).join('');
};
const dataOf = (text: string) => new SseSplitter().push(text).map((e) => e.data);

describe('a finish reason ends the answer only when the upstream stream ends', () => {
  it('the Gemini decoder reports one stop and the usage at the end, after all the text', () => {
    const events = decodeGemini(everyChunkStop);
    expect(events.map((e) => e.type)).toEqual(['start', 'text', 'text', 'text', 'stop', 'usage', 'end']);
    expect(events.filter((e) => e.type === 'stop')).toEqual([{ type: 'stop', reason: 'stop' }]);
  });

  it('→ Anthropic client: all text, one message_delta with the usage, message_stop last', () => {
    const out = encode(anthropicMessages, decodeGemini(everyChunkStop));
    const events = dataOf(out).map((d) => JSON.parse(d) as Record<string, any>);
    expect(
      events
        .filter((e) => e.type === 'content_block_delta')
        .map((e) => e.delta.text)
        .join(''),
    ).toBe('Hello from gemini');
    expect(events.filter((e) => e.type === 'message_delta')).toEqual([
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { input_tokens: 11, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 7 },
      },
    ]);
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
  });

  it('→ OpenAI client: all text and exactly one finish_reason chunk, before the usage chunk', () => {
    const out = encode(openAIChat, decodeGemini(everyChunkStop), (s) => openAIChat.includeUsage(s as never, true));
    const data = dataOf(out);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Record<string, any>);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Hello from gemini');
    const finishes = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finishes.map((c) => c.choices[0].finish_reason)).toEqual(['stop']);
    expect(chunks.indexOf(finishes[0]!)).toBe(chunks.length - 2);
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 7 });
  });

  it('→ OpenAI client: a repeated stop event still gives one finish_reason (the latest reason); text after it is kept', () => {
    const out = encode(openAIChat, [
      { type: 'start', id: 'x', model: 'm' },
      { type: 'text', text: 'a' },
      { type: 'stop', reason: 'stop' },
      { type: 'text', text: 'b' },
      { type: 'stop', reason: 'length' },
      { type: 'end' },
    ]);
    const chunks = dataOf(out)
      .slice(0, -1)
      .map((d) => JSON.parse(d) as Record<string, any>);
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('ab');
    expect(chunks.filter((c) => c.choices[0].finish_reason).map((c) => c.choices[0].finish_reason)).toEqual(['length']);
  });

  it('→ Responses client: one message with all the text, completed once', () => {
    const out = encode(openAIResponses, decodeGemini(everyChunkStop));
    const events = dataOf(out).map((d) => JSON.parse(d) as Record<string, any>);
    const completed = events.filter((e) => e.type === 'response.completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]!.response.output).toHaveLength(1);
    expect(completed[0]!.response.output[0].content[0].text).toBe('Hello from gemini');
    expect(completed[0]!.response.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });
  });
});

describe('Anthropic message_start input_tokens for converted streams', () => {
  const body = {
    model: 'claude-x',
    max_tokens: 10,
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'What is the capital of France?' }],
  };

  it('the gateway counts the prompt when the upstream has not reported it yet', () => {
    let counted = 0;
    const s = anthropicMessages.newEncodeState('m');
    anthropicMessages.prepareEncoder!(s, { body, includeUsage: false });
    const counter = s.promptTokens!;
    s.promptTokens = () => {
      counted++;
      return counter();
    };
    const start = JSON.parse(
      dataOf(anthropicMessages.encodeEvent(s, { type: 'start', id: 'chatcmpl-1', model: 'gpt' }))[0]!,
    );
    expect(start.message.usage.input_tokens).toBeGreaterThan(5);
    expect(start.message.usage.output_tokens).toBe(0);
    expect(counted).toBe(1);
    anthropicMessages.encodeEvent(s, { type: 'text', text: 'Paris' });
    anthropicMessages.encodeEvent(s, { type: 'stop', reason: 'stop' });
    anthropicMessages.encodeEvent(s, {
      type: 'usage',
      usage: { inputTokens: 21, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
    });
    const end = dataOf(anthropicMessages.encodeEvent(s, { type: 'end' })).map(
      (d) => JSON.parse(d) as Record<string, any>,
    );
    // The final message_delta carries the upstream's real usage, input included.
    expect(end.find((e) => e.type === 'message_delta')!.usage).toMatchObject({ input_tokens: 21, output_tokens: 2 });
    expect(counted).toBe(1);
  });

  it('the upstream’s usage on its first event wins, without counting', () => {
    const s = anthropicMessages.newEncodeState('m');
    s.promptTokens = () => {
      throw new Error('should not count');
    };
    const events = decodeGemini(
      everyChunkStop.replace('"responseId":"r1"', '"usageMetadata":{"promptTokenCount":11},"responseId":"r1"'),
    );
    const out = events.map((e) => anthropicMessages.encodeEvent(s, e)).join('');
    expect(JSON.parse(dataOf(out)[0]!).message.usage).toMatchObject({ input_tokens: 11, output_tokens: 0 });
  });
});

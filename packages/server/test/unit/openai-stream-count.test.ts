import { describe, expect, it } from 'vitest';
import {
  countedCompletionTokens,
  newStreamState,
  transformOpenAIChunk,
} from '../../src/relay/providers/openai/stream.js';

const event = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;
const usageEvent = (completion: number) =>
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: completion, total_tokens: 3 + completion } })}\n\n`;

/** A counter that records what it was asked to count: characters stand in for tokens. */
function counter() {
  const seen: string[] = [];
  return { seen, count: (text: string) => (seen.push(text), text.length) };
}

describe('OpenAI stream: content text is read only for a count', () => {
  it('counts every delta of a stream without usage, over several unread windows and chunk boundaries', () => {
    const state = newStreamState();
    const c = counter();
    const deltas = Array.from({ length: 3000 }, (_, i) => `word${i} `);
    const text = deltas.map(event).join('');
    // Chunks that cut events anywhere.
    for (let i = 0; i < text.length; i += 997) transformOpenAIChunk(state, text.slice(i, i + 997), false, c.count);
    expect(countedCompletionTokens(state, c.count)).toBe(deltas.join('').length);
    expect(c.seen.join('')).toBe(deltas.join(''));
  });

  it('never parses or counts content once the upstream reports usage, and drops the usage-only event', () => {
    const state = newStreamState();
    const c = counter();
    let out = '';
    for (let i = 0; i < 100; i++) out += transformOpenAIChunk(state, event(`part ${i} `), false, c.count);
    out += transformOpenAIChunk(state, usageEvent(42), false, c.count);
    out += transformOpenAIChunk(state, event('after usage'), false, c.count);
    expect(state.usage?.completionTokens).toBe(42);
    expect(state.unread).toEqual([]);
    expect(c.seen).toEqual([]);
    expect(out).not.toContain('"usage"');
    expect(out).toContain('after usage');
  });

  it('a captured answer is read as it goes (the log needs its text even with usage)', () => {
    const capture = {
      parts: [] as string[],
      add(t: string) {
        this.parts.push(t);
      },
      value: () => '',
    };
    const state = newStreamState(capture as never);
    transformOpenAIChunk(state, event('Hello') + event(' world') + usageEvent(2), true, counter().count);
    expect(capture.parts.join('')).toBe('Hello world');
    expect(state.usage?.completionTokens).toBe(2);
  });
});

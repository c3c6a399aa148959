import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdsDeltaText, holdsUsageObject } from '../../src/relay/providers/openai/stream-markers.js';

/** The plain substring searches the markers stand for (what inspectEvent did before). */
const plainUsage = (data: string) => data.includes('"usage":{');
const plainText = (data: string) =>
  data.includes('content":"') || data.includes('"arguments":"') || data.includes('"text":"');

/** Pieces of the markers, their tails without the head, near misses and JSON punctuation. */
const pieces = [
  '"usage":{',
  'usage":{',
  '"usage": {',
  'usage',
  '"',
  'content":"',
  'ontent":"',
  '"reasoning_content":"',
  '"arguments":"',
  'rguments":"',
  '"a',
  'a',
  '"text":"',
  'xt":"',
  '"te',
  'te',
  't',
  ':',
  '{',
  '}',
  ',',
  'x',
  'e',
];
const data = fc.oneof(
  fc.array(fc.constantFrom(...pieces), { maxLength: 30 }).map((p) => p.join('')),
  fc.string({ unit: fc.constantFrom('"', 'a', 't', 'e', 'x', 'u', 's', ':', '{', 'r', 'g', 'm', 'n'), maxLength: 60 }),
  fc.string({ maxLength: 80 }),
);

const chunk = (obj: unknown) => JSON.stringify(obj);

describe('OpenAI stream markers', () => {
  it('answer as the plain substring searches do, on generated event data', () => {
    fc.assert(
      fc.property(data, (d) => {
        expect(holdsUsageObject(d)).toBe(plainUsage(d));
        expect(holdsDeltaText(d)).toBe(plainText(d));
      }),
      { numRuns: 5000 },
    );
  });

  it('find usage, content, reasoning, tool-call arguments and completions text in real chunks', () => {
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini' };
    const usage = chunk({ ...base, choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });
    expect([holdsUsageObject(usage), holdsDeltaText(usage)]).toEqual([true, false]);
    const content = chunk({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' } }] });
    expect([holdsUsageObject(content), holdsDeltaText(content)]).toEqual([false, true]);
    const reasoning = chunk({ ...base, choices: [{ index: 0, delta: { reasoning_content: 'Hm' } }] });
    expect(holdsDeltaText(reasoning)).toBe(true);
    const tool = chunk({ ...base, choices: [{ index: 0, delta: { tool_calls: [{ function: { arguments: '{' } }] } }] });
    expect(holdsDeltaText(tool)).toBe(true);
    const text = chunk({ ...base, choices: [{ index: 0, text: 'Hi' }] });
    expect(holdsDeltaText(text)).toBe(true);
    const stop = chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null });
    expect([holdsUsageObject(stop), holdsDeltaText(stop)]).toEqual([false, false]);
  });
});

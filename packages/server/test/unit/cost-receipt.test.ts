import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withUsageCost } from '../../src/relay/billing/receipt.js';
import { usageFromJsonTail, usageObjectSpan } from '../../src/relay/billing/usage.js';
import { newStreamState, transformOpenAIChunk } from '../../src/relay/providers/openai/stream.js';
import type { Receipt } from '../../src/relay/pipeline/types.js';

const receipt = (quota: number): Receipt => ({ quota, usd: quota / 500_000, headers: {} });
const count = (text: string) => text.length;
const notUsage = fc.string().filter((k) => k !== 'usage');

describe('the cost in an answer’s usage (billing/receipt.ts)', () => {
  it('goes into the last usage object, leaving the rest of the answer as it was', () => {
    const answer = {
      id: 'x',
      choices: [{ index: 0, message: { role: 'assistant', content: 'a "usage": {} in text' } }],
      usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 0 } },
    };
    const out = JSON.parse(withUsageCost(JSON.stringify(answer), receipt(220))) as typeof answer;
    expect(out).toEqual({ ...answer, usage: { ...answer.usage, cost: 0.00044, cost_quota: 220 } });
  });

  it('makes a usage object where there is none, or where it is null or empty', () => {
    expect(JSON.parse(withUsageCost('{"id":"x"}', receipt(5)))).toEqual({
      id: 'x',
      usage: { cost: 0.00001, cost_quota: 5 },
    });
    expect(JSON.parse(withUsageCost('{"usage":{}}', receipt(5)))).toEqual({ usage: { cost: 0.00001, cost_quota: 5 } });
    expect(JSON.parse(withUsageCost('{"usage":null,"id":"x"}', receipt(5)))).toMatchObject({
      usage: { cost: 0.00001, cost_quota: 5 },
    });
  });

  it('any JSON answer with a usage object stays JSON with the cost added and nothing else changed', () => {
    fc.assert(
      fc.property(
        fc.dictionary(notUsage, fc.jsonValue()),
        // A usage object's members: counts, and details objects (none named usage, as in every vendor's usage).
        fc.dictionary(
          notUsage.filter((k) => k !== 'cost' && k !== 'cost_quota'),
          fc.oneof(fc.nat(), fc.string(), fc.constant(null), fc.dictionary(notUsage, fc.nat())),
        ),
        fc.nat(),
        (rest, usage, quota) => {
          const text = JSON.stringify({ ...rest, usage });
          const out = JSON.parse(withUsageCost(text, receipt(quota))) as Record<string, unknown>;
          expect(out).toEqual(
            JSON.parse(JSON.stringify({ ...rest, usage: { ...usage, cost: quota / 500_000, cost_quota: quota } })),
          );
        },
      ),
    );
  });

  it('a `"usage": null` is no usage object (the usage read from a tail is unchanged otherwise)', () => {
    expect(usageObjectSpan('{"usage":null,"x":{"a":1}}')).toBeUndefined();
    expect(usageFromJsonTail('{"usage" : {"prompt_tokens":3,"completion_tokens":2}}')).toMatchObject({
      promptTokens: 3,
      completionTokens: 2,
    });
  });

  it('a stream’s usage chunk is rewritten only when asked; other events pass as they came', () => {
    const content = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'hi' } }] })}\n\n`;
    const usage = `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } })}\n\n`;
    const done = 'data: [DONE]\n\n';
    const seen: string[] = [];
    const out = transformOpenAIChunk(newStreamState(), content + usage + done, true, count, (e) => {
      seen.push(e);
      return withUsageCost(e, receipt(7));
    });
    expect(seen).toEqual([usage]);
    const events = out.split('\n\n').filter(Boolean);
    expect(events[0]).toBe(content.trim());
    expect(JSON.parse(events[1]!.slice('data: '.length))).toMatchObject({
      usage: { prompt_tokens: 3, cost: 0.000014, cost_quota: 7 },
    });
    expect(events[2]).toBe('data: [DONE]');
    // Not asked for the usage chunk: dropped, and the rewrite is not called.
    expect(transformOpenAIChunk(newStreamState(), usage, false, count, () => 'x')).toBe('');
  });
});

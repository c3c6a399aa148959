import { readFileSync } from 'node:fs';
import { computeQuota, type Price } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { billingUsage } from '../../../src/relay/upstream/forward-convert.js';
import { anthropicMessages } from '../../../src/relay/providers/anthropic/convert.js';
import { geminiGenerate } from '../../../src/relay/providers/gemini/convert.js';
import { openAIChat } from '../../../src/relay/providers/openai/chat.js';
import { openAIResponses } from '../../../src/relay/providers/openai/responses.js';
import { SseSplitter } from '../../../src/relay/ir/sse.js';
import type { IRResponse, IRStreamEvent, IRUsage, WireFormat } from '../../../src/relay/ir/types.js';

/**
 * Every format pair, both directions, with one conversation written in each format's wire shape from its public
 * API reference (fixtures/ir/matrix): a system prompt, a text + image turn, an assistant turn calling three
 * different tools, their three results and a follow-up; the answer has reasoning, text, three tool calls and usage
 * with cache reads and cache writes (100 fresh input, 300 read, 50 written, 40 output of which 12 reasoning).
 */
const formats = {
  openai: openAIChat,
  responses: openAIResponses,
  anthropic: anthropicMessages,
  gemini: geminiGenerate,
} as Record<string, WireFormat<any, any>>;
type Name = 'openai' | 'responses' | 'anthropic' | 'gemini';
const names: Name[] = ['openai', 'responses', 'anthropic', 'gemini'];
const pairs = names.flatMap((from) => names.map((to) => [from, to] as const));

const text = (file: string): string =>
  readFileSync(new URL(`../../fixtures/ir/matrix/${file}`, import.meta.url), 'utf8');
const request = (f: Name): any => JSON.parse(text(`request.${f}.json`));
const response = (f: Name): any => JSON.parse(text(`response.${f}.json`));
const stream = (f: Name): string => text(`stream.${f}.sse`);

function decodeAll(format: WireFormat<any, any>, sseText: string): IRStreamEvent[] {
  const state = format.newDecodeState();
  const splitter = new SseSplitter();
  const out: IRStreamEvent[] = [];
  // 53-character pieces, as a network might cut them
  for (let i = 0; i < sseText.length; i += 53)
    for (const ev of splitter.push(sseText.slice(i, i + 53))) out.push(...format.decodeEvent(state, ev));
  for (const ev of splitter.flush()) out.push(...format.decodeEvent(state, ev));
  const finish = (format as { finish?: (s: unknown) => IRStreamEvent[] }).finish;
  if (finish && !out.some((e) => e.type === 'end')) out.push(...finish(state));
  return out;
}

const encodeAll = (format: WireFormat<any, any>, events: IRStreamEvent[]): string => {
  const state = format.newEncodeState('test-model');
  (format as typeof openAIChat).includeUsage?.(state, true);
  return events.map((e) => format.encodeEvent(state, e)).join('');
};

/** What must survive any conversion: reasoning text, answer text, the calls (name + arguments), stop reason, usage. */
interface Meaning {
  thinking: string;
  text: string;
  calls: { name: string; args: unknown }[];
  stop: string;
  usage: IRUsage;
}

const ofResponse = (r: IRResponse): Meaning => ({
  thinking: r.parts.map((p) => (p.type === 'thinking' ? p.text : '')).join(''),
  text: r.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''),
  calls: r.parts.flatMap((p) => (p.type === 'tool_call' ? [{ name: p.name, args: JSON.parse(p.arguments) }] : [])),
  stop: r.stopReason,
  usage: r.usage,
});

function ofEvents(events: IRStreamEvent[]): Meaning {
  const m: Meaning = {
    thinking: '',
    text: '',
    calls: [],
    stop: '',
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
  };
  const args = new Map<number, string>();
  for (const e of events) {
    if (e.type === 'thinking') m.thinking += e.text;
    else if (e.type === 'text') m.text += e.text;
    else if (e.type === 'tool_call_start') {
      m.calls.push({ name: e.name, args: undefined });
      args.set(e.index, '');
    } else if (e.type === 'tool_call_args') args.set(e.index, (args.get(e.index) ?? '') + e.args);
    else if (e.type === 'stop') m.stop = e.reason;
    else if (e.type === 'usage') m.usage = e.usage;
    else if (e.type === 'error') throw new Error(e.message);
  }
  [...args.values()].forEach((a, i) => (m.calls[i]!.args = JSON.parse(a)));
  return m;
}

/**
 * The meaning expected after `from` → `to`: everything, except what one side has no field for — Anthropic
 * reports no reasoning-token count, Gemini has no cache writes (they stay billable as plain input).
 */
function expected(from: Name, to: Name): Meaning {
  const usage: IRUsage = {
    inputTokens: 100,
    outputTokens: 40,
    cacheReadTokens: 300,
    cacheWriteTokens: 50,
    reasoningTokens: 12,
  };
  if (from === 'anthropic' || to === 'anthropic') usage.reasoningTokens = 0;
  if (from === 'gemini' || to === 'gemini') Object.assign(usage, { inputTokens: 150, cacheWriteTokens: 0 });
  return {
    thinking: 'The user wants an evening plan; I need the weather, the time and hotels.',
    text: 'Let me look these up.',
    calls: [
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_time', args: { tz: 'Europe/Paris' } },
      { name: 'find_hotels', args: { city: 'Paris', max_price: 200 } },
    ],
    stop: 'tool_calls',
    usage,
  };
}

/** model ratio 2, completion ratio 4, cache reads 0.1, cache writes 1.25. */
const price: Price = {
  mode: 'ratio',
  modelRatio: 2,
  completionRatio: 4,
  cacheRatio: 0.1,
  cacheCreationRatio: 1.25,
  groupRatio: 1,
};
const quotaOf = (u: IRUsage) => computeQuota(price, billingUsage(u, true), 500000, 'anthropic');

/** The quota a client would compute from the usage fields it received, read raw in its own format's semantics. */
function clientQuota(to: Name, body: any): number {
  switch (to) {
    case 'openai': {
      const u = body.usage;
      return computeQuota(
        price,
        {
          promptTokens: u.prompt_tokens,
          completionTokens: u.completion_tokens,
          cachedTokens: u.prompt_tokens_details?.cached_tokens,
          cacheCreationTokens: u.prompt_tokens_details?.cache_creation_tokens,
        },
        500000,
        'openai',
      );
    }
    case 'responses': {
      const u = body.usage;
      return computeQuota(
        price,
        {
          promptTokens: u.input_tokens,
          completionTokens: u.output_tokens,
          cachedTokens: u.input_tokens_details?.cached_tokens,
          cacheCreationTokens: u.input_tokens_details?.cache_write_tokens,
        },
        500000,
        'openai',
      );
    }
    case 'anthropic': {
      const u = body.usage;
      return computeQuota(
        price,
        {
          promptTokens: u.input_tokens,
          completionTokens: u.output_tokens,
          cachedTokens: u.cache_read_input_tokens,
          cacheCreationTokens: u.cache_creation_input_tokens,
        },
        500000,
        'anthropic',
      );
    }
    case 'gemini': {
      const u = body.usageMetadata;
      return computeQuota(
        price,
        {
          promptTokens: u.promptTokenCount,
          completionTokens: u.candidatesTokenCount + (u.thoughtsTokenCount ?? 0),
          cachedTokens: u.cachedContentTokenCount,
        },
        500000,
        'openai',
      );
    }
  }
}

describe('format matrix: requests', () => {
  it.each(pairs)('%s request → %s request, exactly as the target API documents it', (from, to) => {
    const ir = formats[from]!.requestToIR(request(from));
    ir.model = 'test-model';
    expect(formats[to]!.requestFromIR(ir)).toEqual(request(to));
  });
});

describe('format matrix: answers', () => {
  it.each(pairs)(
    '%s answer → %s client: reasoning, text, three tool calls, stop and cache usage kept; billed right',
    (from, to) => {
      const upstream = formats[from]!.responseToIR(response(from));
      // The relay bills what the upstream reported, in one meaning whatever its format.
      expect(ofResponse(upstream)).toEqual(expected(from, from));
      const body = formats[to]!.responseFromIR(upstream, 'test-model');
      expect(ofResponse(formats[to]!.responseToIR(body))).toEqual(expected(from, to));
      // 100 + 300 × 0.1 + 50 × 1.25 + 40 × 4 = 352.5 → × 2 = 705; with Gemini the 50 written are plain input: 680.
      const quota = from === 'gemini' || to === 'gemini' ? 680 : 705;
      expect(quotaOf(expected(from, to).usage)).toBe(quota);
      expect(clientQuota(to, body)).toBe(quota);
    },
  );

  it.each(names)('%s answer → itself is unchanged in meaning and written in the documented shape', (f) => {
    const body = formats[f]!.responseFromIR(formats[f]!.responseToIR(response(f)), 'test-model');
    const strip = (o: any) =>
      JSON.parse(JSON.stringify(o), (k, v) =>
        ['id', 'created', 'created_at', 'responseId', 'signature'].includes(k) ? undefined : v,
      );
    expect(strip(body)).toMatchObject(strip(response(f)));
  });
});

describe('format matrix: streams', () => {
  it.each(pairs)('%s stream → %s client stream: the same meaning event by event, billed right', (from, to) => {
    const upstream = decodeAll(formats[from]!, stream(from));
    expect(ofEvents(upstream)).toEqual(expected(from, from));
    const sse = encodeAll(formats[to]!, upstream);
    expect(ofEvents(decodeAll(formats[to]!, sse))).toEqual(expected(from, to));
    expect(quotaOf(ofEvents(upstream).usage)).toBe(from === 'gemini' ? 680 : 705);
  });
});

describe('format matrix: reasoning requests', () => {
  const m = [{ role: 'user', content: 'hi' }];
  const asked: Record<Name, any> = {
    openai: { model: 'm', reasoning_effort: 'high', max_tokens: 20000, messages: m },
    responses: { model: 'm', reasoning: { effort: 'high' }, max_output_tokens: 20000, input: 'hi' },
    anthropic: { model: 'm', max_tokens: 20000, thinking: { type: 'enabled', budget_tokens: 16384 }, messages: m },
    gemini: {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      generationConfig: { maxOutputTokens: 20000, thinkingConfig: { thinkingBudget: 16384, includeThoughts: true } },
    },
  };
  /** How each format says "think hard": an effort where only efforts exist, a budget where budgets do. */
  const said = (to: Name, body: any) => {
    if (to === 'openai') return body.reasoning_effort;
    if (to === 'responses') return body.reasoning?.effort;
    if (to === 'anthropic') return body.thinking;
    return body.generationConfig?.thinkingConfig;
  };
  const want = (to: Name, from: Name) => {
    if (to === 'openai' || to === 'responses') return 'high';
    // An effort becomes that format's budget for "high"; a budget travels as it is.
    const budget = from === 'openai' || from === 'responses' ? (to === 'anthropic' ? 16384 : 24576) : 16384;
    return to === 'anthropic'
      ? { type: 'enabled', budget_tokens: budget }
      : { thinkingBudget: budget, includeThoughts: true };
  };
  it.each(pairs)('%s reasoning request → %s', (from, to) => {
    const ir = formats[from]!.requestToIR(asked[from]);
    ir.model = 'm';
    expect(said(to, formats[to]!.requestFromIR(ir))).toEqual(want(to, from));
  });
});

import { describe, expect, it } from 'vitest';
import { cacheable, cacheKey, canonicalBody } from '../../src/relay/cache/key.js';
import { openAIChat } from '../../src/relay/providers/openai/chat.js';
import type { InboundCall } from '../../src/relay/pipeline/types.js';

const call = (body: Record<string, unknown>, more: Partial<InboundCall> = {}): InboundCall => ({
  format: openAIChat,
  body,
  model: 'm',
  stream: false,
  includeUsage: false,
  maxTokens: 0,
  bytes: 0,
  ...more,
});

const ASK = { model: 'm', temperature: 0.2, messages: [{ role: 'user', content: 'hi' }] };

describe('response cache key', () => {
  it('is the same for the same request in another key order, with or without the fields that do not change the answer', () => {
    const reordered = { messages: [{ content: 'hi', role: 'user' }], temperature: 0.2, model: 'm' };
    const noisy = { ...ASK, user: 'alice', metadata: { user_id: 'x' }, prompt_cache_key: 'p', store: true };
    expect(canonicalBody(reordered)).toBe(canonicalBody(ASK));
    expect(cacheKey('t:1', call(noisy))).toBe(cacheKey('t:1', call(ASK)));
    expect(canonicalBody({ b: [2, { d: 1, c: null }], a: 'x', u: undefined })).toBe(
      '{"a":"x","b":[2,{"c":null,"d":1}]}',
    );
  });

  it('differs by scope, content, parameters, stream flag, model and client format', () => {
    const base = cacheKey('t:1', call(ASK));
    expect(cacheKey('t:2', call(ASK))).not.toBe(base);
    expect(cacheKey('u:1', call(ASK))).not.toBe(base);
    expect(cacheKey('t:1', call({ ...ASK, temperature: 0.3 }))).not.toBe(base);
    expect(cacheKey('t:1', call({ ...ASK, messages: [{ role: 'user', content: 'hi!' }] }))).not.toBe(base);
    expect(cacheKey('t:1', call(ASK, { stream: true }))).not.toBe(base);
    expect(cacheKey('t:1', call(ASK, { model: 'n' }))).not.toBe(base);
    expect(cacheKey('t:1', call(ASK, { openaiEndpoint: 'completions' }))).not.toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });

  it('leaves out what may not be cached: cost in the usage, the Responses API, provider-run tools, other endpoints', () => {
    expect(cacheable(call(ASK))).toBe(true);
    expect(cacheable(call(ASK, { usageCost: true }))).toBe(false);
    expect(cacheable(call(ASK, { openaiEndpoint: 'moderations' }))).toBe(false);
    expect(cacheable(call(ASK, { format: { ...openAIChat, name: 'responses' } }))).toBe(false);
    expect(cacheable(call({ ...ASK, tools: [{ type: 'web_search_preview' }] }))).toBe(false);
    expect(cacheable(call({ ...ASK, tools: [{ type: 'function', function: { name: 'f' } }] }))).toBe(true);
  });
});

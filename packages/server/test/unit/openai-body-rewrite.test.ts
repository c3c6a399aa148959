import { describe, expect, it } from 'vitest';
import { rewriteOpenAIBody, type BodyRewrite } from '../../src/relay/providers/openai/request.js';

const plain: BodyRewrite = { model: 'gpt-4o-mini', forceStreamUsage: true, systemPrompt: '', paramOverride: {} };
const bytes = (body: unknown, space?: number) => Buffer.from(JSON.stringify(body, null, space));
const sent = (out: string | Buffer) => JSON.parse(out.toString()) as Record<string, unknown>;

describe('OpenAI body rewrite with the client bytes', () => {
  it('sends an unchanged body as the very bytes the client sent', () => {
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'héllo \u2028' }], temperature: 0.5 };
    const raw = bytes(body, 2);
    expect(rewriteOpenAIBody(body, plain, 'chat', raw)).toBe(raw);
  });

  it('adds only the usage request in front of a streamed body that has no stream_options', () => {
    const body = { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] };
    const out = rewriteOpenAIBody(body, plain, 'chat', Buffer.concat([Buffer.from('  \n'), bytes(body)]));
    expect(sent(out)).toEqual({ ...body, stream_options: { include_usage: true } });
    // Byte for byte: the client's bytes with the key inserted after the opening brace, leading white space kept.
    const raw = bytes(body);
    const usage = '"stream_options":{"include_usage":true},';
    expect(rewriteOpenAIBody(body, plain, 'chat', raw).toString()).toBe(`{${usage}${raw.toString().slice(1)}`);
    expect(out.toString()).toBe(`  \n{${usage}${raw.toString().slice(1)}`);
  });

  it('keeps a stream that already asks for usage as it is, and rebuilds one whose stream_options lack it', () => {
    const asks = { model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [] };
    const raw = bytes(asks);
    expect(rewriteOpenAIBody(asks, plain, 'chat', raw)).toBe(raw);
    const lacks = {
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: false, other: 1 },
      messages: [],
    };
    expect(sent(rewriteOpenAIBody(lacks, plain, 'chat', bytes(lacks)))).toEqual({
      ...lacks,
      stream_options: { include_usage: true, other: 1 },
    });
  });

  it('rebuilds the body for a mapped model, a system prompt or overrides, exactly as without the bytes', () => {
    const body = { model: 'alias', messages: [{ role: 'user', content: 'hi' }], temperature: 1 };
    const cases: [Record<string, unknown>, BodyRewrite][] = [
      [body, { ...plain, model: 'gpt-4o-mini' }],
      [
        { ...body, model: 'gpt-4o-mini' },
        { ...plain, systemPrompt: 'be brief' },
      ],
      [
        { ...body, model: 'gpt-4o-mini' },
        { ...plain, paramOverride: { temperature: null, top_p: 0.1 } },
      ],
    ];
    for (const [b, r] of cases) {
      const out = rewriteOpenAIBody(b, r, 'chat', bytes(b));
      expect(typeof out).toBe('string');
      expect(out).toBe(rewriteOpenAIBody(b, r, 'chat'));
    }
    expect(
      sent(rewriteOpenAIBody(body, { ...plain, paramOverride: { temperature: null } }, 'chat', bytes(body))),
    ).not.toHaveProperty('temperature');
  });

  it('does not ask embeddings for a usage chunk', () => {
    const body = { model: 'gpt-4o-mini', stream: true, input: 'x' };
    const raw = bytes(body);
    expect(rewriteOpenAIBody(body, plain, 'embeddings', raw)).toBe(raw);
  });
});

import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';
import { freshWindow, setTokenLimits } from '../support/rate-limits.js';

const PRICED = { 'gpt-4o-mini': 0.075, 'claude-sonnet-5-5': 1.5, 'gemini-2.5-flash': 0.15 };

/** Each official SDK meets a refusal as its own rate-limit error: 429, the protocol's error shape, retry-after. */
describe('RPM/TPM refusals through the official SDKs', () => {
  let t: TestApp, mock: MockUpstream, root: Client, user: Client, base: string;
  useGateway('sqlite', { user: 'sdk-limits', quota: 100_000_000, token: false }, async (gw) => {
    ({ t, mock, root, user, base } = gw);
    await addChannel(root, { name: 'openai-up', key: 'oa-key', baseUrl: mock.url, models: 'gpt-4o-mini' });
    await addChannel(root, {
      name: 'anthropic-up',
      key: 'an-key',
      baseUrl: mock.url,
      type: 14,
      models: 'claude-sonnet-5-5',
    });
    await addChannel(root, {
      name: 'gemini-up',
      key: 'ge-key',
      baseUrl: mock.url,
      type: 24,
      models: 'gemini-2.5-flash',
    });
    await root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify(PRICED) });
  });

  /** A token allowed one request a minute. */
  const oneRequestToken = async () => {
    const { key, id } = await addToken(t, user.userId!);
    await setTokenLimits(t, key, id, 1, 0);
    return key;
  };

  it('OpenAI: RateLimitError with the headers; the answer before it carries them too', async () => {
    await freshWindow();
    const client = new OpenAI({ apiKey: await oneRequestToken(), baseURL: `${base}/v1`, maxRetries: 0 });
    const ok = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(ok.response.headers.get('x-ratelimit-limit-requests')).toBe('1');
    expect(ok.response.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const err = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const e = err as InstanceType<typeof OpenAI.RateLimitError>;
    expect(e.status).toBe(429);
    expect(e.error).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limited',
      message: expect.stringContaining('token limit of 1 requests per minute'),
    });
    expect(Number(e.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(e.headers?.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(e.headers?.get('x-ratelimit-remaining-requests')).toBe('0');
  });

  it('Anthropic: RateLimitError with a rate_limit_error body', async () => {
    await freshWindow();
    const client = new Anthropic({ apiKey: await oneRequestToken(), baseURL: base, maxRetries: 0 });
    const hi = { model: 'claude-sonnet-5-5', max_tokens: 10, messages: [{ role: 'user' as const, content: 'hi' }] };
    await client.messages.create(hi);
    const err = await client.messages.create(hi).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const e = err as InstanceType<typeof Anthropic.RateLimitError>;
    expect(e.status).toBe(429);
    expect(e.error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error', message: expect.stringContaining('requests per minute') },
    });
    expect(Number(e.headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(e.headers?.get('x-ratelimit-limit-requests')).toBe('1');
  });

  it('Gemini: ApiError 429 RESOURCE_EXHAUSTED; a request larger than the TPM limit is refused outright', async () => {
    const { key, id } = await addToken(t, user.userId!);
    await setTokenLimits(t, key, id, 0, 50);
    const client = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base } });
    const err = await client.models
      .generateContent({ model: 'gemini-2.5-flash', contents: 'hi', config: { maxOutputTokens: 100 } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(429);
    const body = JSON.parse((err as ApiError).message) as { error: { code: number; status: string; message: string } };
    expect(body.error).toMatchObject({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      message: expect.stringMatching(
        /^request too large: it needs about \d+ tokens, more than the token limit of 50 tokens per minute$/,
      ),
    });
    expect(mock.requests.filter((r) => r.path.includes('gemini-2.5-flash'))).toEqual([]);
  });
});

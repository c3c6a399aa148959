import http from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken } from '../support/gateway.js';
import { listenLocally } from '../support/local-server.js';
import type { MockUpstream } from '../support/mock-upstream.js';

/** A pass-through proxy in front of the gateway that counts the requests each path received. */
async function countingProxy(
  target: string,
): Promise<{ url: string; count(path: string): number; close(): Promise<void> }> {
  const counts = new Map<string, number>();
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const up = http.request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  const local = await listenLocally(server);
  return { url: local.url, count: (path) => counts.get(path) ?? 0, close: local.close };
}

const PRICED = {
  'gpt-4o-mini': 0.075,
  'claude-sonnet-5-5': 1.5,
  'gemini-2.5-flash': 0.15,
  'ghost-model': 1,
  'parked-model': 1,
  'gpt-4o': 1,
};

/**
 * Status codes the official SDKs act on (a model the caller cannot use is a final 404 in each protocol's shape,
 * not a 503 they retry; 503 only when the model's channels are all disabled), the vendor headers a client sets
 * reaching an upstream of that vendor without the caller's credentials, and root's opening quota.
 */
describe('relay status codes and client headers', () => {
  let t: TestApp, mock: MockUpstream, root: Client, user: Client, base: string, key: string;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  useGateway('sqlite', { user: 'status-user', quota: 10_000_000 }, async (gw) => {
    ({ t, mock, root, user, base, key } = gw);
    await addChannel(root, {
      name: 'openai-up',
      key: 'oa-key',
      baseUrl: mock.url,
      models: 'gpt-4o-mini,unpriced-model,gpt-4o',
    });
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
    const parked = await addChannel(root, { name: 'parked', key: 'pk-key', baseUrl: mock.url, models: 'parked-model' });
    expect((await root.call('PUT', '/api/channel/', { id: parked, status: 2 })).body.success).toBe(true);
    await root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify(PRICED) });
  });
  beforeAll(async () => {
    proxy = await countingProxy(base);
  });
  afterAll(async () => proxy?.close());

  // Default retries: a status an SDK retries would show as more than one request at the proxy.
  const openai = (opts: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) =>
    new OpenAI({ apiKey: key, baseURL: `${proxy.url}/v1`, ...opts });
  const anthropic = (opts: Partial<ConstructorParameters<typeof Anthropic>[0]> = {}) =>
    new Anthropic({ apiKey: key, baseURL: proxy.url, ...opts });
  const genai = (retryOptions?: { attempts: number }) =>
    new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: proxy.url, ...(retryOptions ? { retryOptions } : {}) } });
  const hi = (model: string) => ({ model, messages: [{ role: 'user' as const, content: 'hi' }] });
  /** Requests at the proxy on `path` while `run` ran. */
  const requestsDuring = async (path: string, run: () => Promise<unknown>) => {
    const before = proxy.count(path);
    await run().catch(() => undefined);
    return proxy.count(path) - before;
  };

  it('a model no channel serves is a final 404 model_not_found: the OpenAI SDK with its default retries sends one request', async () => {
    const err = await openai()
      .chat.completions.create(hi('ghost-model'))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err).toMatchObject({
      status: 404,
      error: {
        code: 'model_not_found',
        type: 'invalid_request_error',
        message: 'no available channel for model ghost-model in group default',
      },
    });
    expect(
      await requestsDuring('/v1/chat/completions', () => openai().chat.completions.create(hi('ghost-model'))),
    ).toBe(1);
    // A name no channel serves and nobody priced (a typo) is not found either, not "no price".
    await expect(openai().chat.completions.create(hi('gpt-4o-mnii'))).rejects.toMatchObject({
      status: 404,
      error: { code: 'model_not_found' },
    });
    // The Responses API answers in the same shape, code included.
    await expect(openai().responses.create({ model: 'ghost-model', input: 'hi' })).rejects.toMatchObject({
      status: 404,
      error: { code: 'model_not_found' },
    });
    expect(
      await requestsDuring('/v1/responses', () => openai().responses.create({ model: 'ghost-model', input: 'hi' })),
    ).toBe(1);
  });

  it('an unpriced model and a model outside the token’s list are final 404s with their own codes', async () => {
    await expect(openai().chat.completions.create(hi('unpriced-model'))).rejects.toMatchObject({
      status: 404,
      error: {
        code: 'model_price_not_set',
        message: 'model unpriced-model has no price or ratio set; ask the administrator to set one',
      },
    });
    expect(
      await requestsDuring('/v1/chat/completions', () => openai().chat.completions.create(hi('unpriced-model'))),
    ).toBe(1);
    const limited = await addToken(t, user.userId!, { modelLimits: 'gpt-4o', name: 'limited' });
    const limitedClient = openai({ apiKey: limited.key });
    await expect(limitedClient.chat.completions.create(hi('gpt-4o-mini'))).rejects.toMatchObject({
      status: 404,
      error: { code: 'model_not_allowed' },
    });
    expect(
      await requestsDuring('/v1/chat/completions', () => limitedClient.chat.completions.create(hi('gpt-4o-mini'))),
    ).toBe(1);
    expect((await limitedClient.chat.completions.create(hi('gpt-4o'))).choices).toHaveLength(1);
  });

  it('Anthropic’s SDK reads the 404 as not_found_error and does not retry it', async () => {
    const err = await anthropic()
      .messages.create({ ...hi('ghost-model'), max_tokens: 10 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect(err).toMatchObject({
      status: 404,
      error: {
        type: 'error',
        error: { type: 'not_found_error', message: 'no available channel for model ghost-model in group default' },
      },
    });
    expect(
      await requestsDuring('/v1/messages', () => anthropic().messages.create({ ...hi('ghost-model'), max_tokens: 10 })),
    ).toBe(1);
  });

  it('Google’s SDK reads NOT_FOUND, and with its retries on sends one request', async () => {
    const err = await genai()
      .models.generateContent({ model: 'ghost-model', contents: 'hi' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
    expect(JSON.parse((err as ApiError).message)).toEqual({
      error: { code: 404, message: 'no available channel for model ghost-model in group default', status: 'NOT_FOUND' },
    });
    // With retryOptions the SDK retries 408, 429 and 5xx only; a 404 ends it at once ("Non-retryable exception").
    const retrying = genai({ attempts: 3 });
    await expect(retrying.models.generateContent({ model: 'ghost-model', contents: 'hi' })).rejects.toThrow(
      /Non-retryable/,
    );
    expect(
      await requestsDuring('/v1beta/models/ghost-model:generateContent', () =>
        retrying.models.generateContent({ model: 'ghost-model', contents: 'hi' }),
      ),
    ).toBe(1);
  });

  it('a model whose channels are all disabled is a 503 (retried by SDKs, which is right: it may come back)', async () => {
    const err = await openai({ maxRetries: 1 })
      .chat.completions.create(hi('parked-model'))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, error: { code: 'no_available_channel' } });
    expect(
      await requestsDuring('/v1/chat/completions', () =>
        openai({ maxRetries: 1 }).chat.completions.create(hi('parked-model')),
      ),
    ).toBe(2);
    const claude = await anthropic({ maxRetries: 0 })
      .messages.create({ ...hi('parked-model'), max_tokens: 10 })
      .catch((e: unknown) => e);
    expect(claude).toMatchObject({ status: 503, error: { error: { type: 'overloaded_error' } } });
  });

  it('Anthropic’s SDK betas reach an Anthropic channel with the channel’s key only', async () => {
    const msg = await anthropic().beta.messages.create(
      {
        ...hi('claude-sonnet-5-5'),
        max_tokens: 10,
        betas: ['context-1m-2025-08-07', 'token-efficient-tools-2025-02-19'],
      },
      { headers: { cookie: 'session=caller' } },
    );
    expect(msg.content[0]).toMatchObject({ type: 'text' });
    const sent = mock.requests.at(-1)!;
    expect(sent).toMatchObject({ path: '/v1/messages', key: 'an-key' });
    expect(sent.headers['anthropic-beta']).toBe('context-1m-2025-08-07,token-efficient-tools-2025-02-19');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers['x-api-key']).toBe('an-key');
    for (const h of ['authorization', 'cookie', 'x-goog-api-key']) expect(sent.headers[h]).toBeUndefined();
    expect(JSON.stringify(sent.headers)).not.toContain(key.slice(3));

    // Without a beta, none is sent; a client's own anthropic-version replaces the default.
    await anthropic().messages.create(
      { ...hi('claude-sonnet-5-5'), max_tokens: 10 },
      { headers: { 'anthropic-version': '2023-01-01' } },
    );
    expect(mock.requests.at(-1)!.headers['anthropic-beta']).toBeUndefined();
    expect(mock.requests.at(-1)!.headers['anthropic-version']).toBe('2023-01-01');
  });

  it('the Claude settings’ per-model headers win over the client’s', async () => {
    await root.call('PUT', '/api/option/', {
      key: 'claude.model_headers_settings',
      value: JSON.stringify({ 'claude-sonnet-5-5': { 'anthropic-beta': ['output-128k-2025-02-19'] } }),
    });
    try {
      await anthropic().beta.messages.create({
        ...hi('claude-sonnet-5-5'),
        max_tokens: 10,
        betas: ['context-1m-2025-08-07'],
      });
      expect(mock.requests.at(-1)!.headers['anthropic-beta']).toBe('output-128k-2025-02-19');
    } finally {
      await root.call('PUT', '/api/option/', { key: 'claude.model_headers_settings', value: '{}' });
    }
  });

  it('a converted call (OpenAI SDK → Anthropic channel) carries the anthropic-beta it was given, not the caller’s key', async () => {
    const client = openai({ defaultHeaders: { 'anthropic-beta': 'prompt-caching-2024-07-31' } });
    expect((await client.chat.completions.create(hi('claude-sonnet-5-5'))).choices[0]!.message.content).toBe(
      'Hello from the mock!',
    );
    const sent = mock.requests.at(-1)!;
    expect(sent).toMatchObject({ path: '/v1/messages', key: 'an-key' });
    expect(sent.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(sent.headers.authorization).toBeUndefined();
  });

  it('openai-beta reaches an OpenAI channel; the caller’s organization, project, cookies and key do not', async () => {
    const client = openai({
      organization: 'org-caller',
      project: 'proj-caller',
      defaultHeaders: { 'OpenAI-Beta': 'assistants=v2', cookie: 'session=caller', 'anthropic-beta': 'not-for-openai' },
    });
    await client.chat.completions.create(hi('gpt-4o-mini'));
    const sent = mock.requests.at(-1)!;
    expect(sent).toMatchObject({ path: '/v1/chat/completions', key: 'oa-key' });
    expect(sent.headers['openai-beta']).toBe('assistants=v2');
    expect(sent.headers.authorization).toBe('Bearer oa-key');
    for (const h of ['openai-organization', 'openai-project', 'cookie', 'anthropic-beta', 'x-api-key'])
      expect(sent.headers[h]).toBeUndefined();
  });

  it('a Gemini channel gets no client header of another vendor and only its own key', async () => {
    const client = new GoogleGenAI({
      apiKey: key,
      httpOptions: { baseUrl: proxy.url, headers: { 'anthropic-beta': 'x', 'openai-beta': 'y' } },
    });
    expect((await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).text).toBe(
      'Hello from the mock!',
    );
    const sent = mock.requests.at(-1)!;
    expect(sent).toMatchObject({ path: '/v1beta/models/gemini-2.5-flash:generateContent', key: 'ge-key' });
    expect(sent.headers['x-goog-api-key']).toBe('ge-key');
    for (const h of ['anthropic-beta', 'openai-beta', 'authorization']) expect(sent.headers[h]).toBeUndefined();
  });

  it('root, set up through the setup API, starts with 100,000,000 quota and can call a model at once', async () => {
    const self = await root.call<{ quota: number; used_quota: number }>('GET', '/api/user/self');
    expect(self.body.data).toMatchObject({ quota: 100_000_000, used_quota: 0 });
    const rootKey = (await addToken(t, root.userId!, { name: 'root-token' })).key;
    const answer = await openai({ apiKey: rootKey, maxRetries: 0 }).chat.completions.create(hi('gpt-4o-mini'));
    expect(answer.choices[0]!.message.content).toBe('Hello from the mock!');
  });
});

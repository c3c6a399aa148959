import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { countTextTokens } from '../../src/relay/pipeline/token-count.js';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';

type Json = Record<string, unknown>;

interface Vendor {
  label: string;
  type: number;
  /** Model the client asks for; `upstream` is what the channel maps it to. */
  model: string;
  upstream?: string;
  key: string;
  other?: string;
  /** The Authorization header the upstream must see (a matcher for signed ones). */
  auth: unknown;
  path: string;
  /** The request body the upstream must see, for the plain call and for the streamed one. */
  plainBody: Json;
  streamBody: Json;
}

const openAIBody = (model: string, stream: boolean): Json => ({
  model,
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hi' },
  ],
  ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
});

const compatible = (label: string, type: number, path: string, extra: Partial<Vendor> = {}): Vendor => {
  const model = `${label}-model`;
  return {
    label,
    type,
    model,
    key: `${label}-key`,
    auth: `Bearer ${label}-key`,
    path,
    plainBody: openAIBody(model, false),
    streamBody: openAIBody(model, true),
    ...extra,
  };
};

/** Every vendor type of this area: where the call must land, with which credential and body. */
const vendors: Vendor[] = [
  compatible('ollama', 4, '/v1/chat/completions'),
  compatible('dashscope', 17, '/compatible-mode/v1/chat/completions'),
  compatible('zhipu', 26, '/api/paas/v4/chat/completions'),
  compatible('volcengine', 45, '/api/v3/chat/completions'),
  compatible('qianfan', 46, '/v2/chat/completions'),
  compatible('cloudflare', 39, '/client/v4/accounts/acct-42/ai/v1/chat/completions', {
    key: 'acct-42|cf-token',
    auth: 'Bearer cf-token',
  }),
  compatible('cloudflare-other', 39, '/client/v4/accounts/acct-7/ai/v1/chat/completions', { other: 'acct-7' }),
  {
    label: 'cohere',
    type: 34,
    model: 'command-r',
    key: 'co-key',
    auth: 'Bearer co-key',
    path: '/v2/chat',
    plainBody: {
      model: 'command-r',
      stream: false,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    },
    streamBody: {
      model: 'command-r',
      stream: true,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    },
  },
  {
    label: 'dify',
    type: 37,
    model: 'dify-app',
    key: 'app-dify-key',
    auth: 'Bearer app-dify-key',
    path: '/v1/chat-messages',
    // Agent apps answer only when streaming: the plain call streams upstream too.
    plainBody: { inputs: { system: 'be brief' }, query: 'hi', response_mode: 'streaming', user: 'tollway' },
    streamBody: { inputs: { system: 'be brief' }, query: 'hi', response_mode: 'streaming', user: 'tollway' },
  },
  {
    label: 'coze',
    type: 49,
    model: 'coze-bot',
    upstream: '7350001',
    key: 'pat-coze',
    auth: 'Bearer pat-coze',
    path: '/v3/chat',
    // Coze answers in full only when streaming: the plain call streams upstream too.
    plainBody: {
      bot_id: '7350001',
      user_id: 'tollway',
      stream: true,
      auto_save_history: false,
      additional_messages: [{ role: 'user', type: 'question', content: 'hi', content_type: 'text' }],
    },
    streamBody: {
      bot_id: '7350001',
      user_id: 'tollway',
      stream: true,
      auto_save_history: false,
      additional_messages: [{ role: 'user', type: 'question', content: 'hi', content_type: 'text' }],
    },
  },
  {
    label: 'tencent',
    type: 23,
    model: 'hunyuan-lite',
    key: '1250000000|AKIDmockTollway|mock-secret-key',
    // The mock checks the TC3 signature over the bytes it received and refuses a wrong one.
    auth: expect.stringMatching(
      /^TC3-HMAC-SHA256 Credential=AKIDmockTollway\/\d{4}-\d{2}-\d{2}\/hunyuan\/tc3_request, SignedHeaders=content-type;host, Signature=[0-9a-f]{64}$/,
    ),
    path: '/',
    plainBody: {
      Model: 'hunyuan-lite',
      Stream: false,
      Messages: [
        { Role: 'system', Content: 'be brief' },
        { Role: 'user', Content: 'hi' },
      ],
    },
    streamBody: {
      Model: 'hunyuan-lite',
      Stream: true,
      Messages: [
        { Role: 'system', Content: 'be brief' },
        { Role: 'user', Content: 'hi' },
      ],
    },
  },
];

/**
 * The native and OpenAI-compatible vendor adaptors end to end: the official `openai` SDK (and Anthropic's for
 * one case) calls through the running server to a mock speaking each vendor's wire format; the upstream must
 * see the vendor's path, credential and body shape, and billing and log rows must be exact.
 * Prices: ratio 0.5, completion ratio 2 → (12 + 5 × 2) × 0.5 = 11 per call.
 */
describe.each(dialects)('vendor adaptors on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, user: Client, base: string, key: string, sdk: OpenAI;
  useGateway(dialect, { user: 'vendor-user', quota: 10_000_000 }, async (gw) => {
    ({ t, mock, root, user, base, key } = gw);
    sdk = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const models = [
      ...vendors.map((v) => v.model),
      'jina-embeddings-v3',
      'embedding-3',
      'jina-reranker-v2',
      'rerank-v3.5',
      'hunyuan-bad',
      'coze-revoked',
    ];
    for (const v of vendors) {
      await addChannel(root, {
        name: v.label,
        type: v.type,
        key: v.key,
        baseUrl: mock.url,
        models: v.model,
        other: v.other,
        ...(v.upstream ? { modelMapping: { [v.model]: v.upstream } } : {}),
      });
    }
    await addChannel(root, {
      name: 'jina',
      type: 38,
      key: 'jina-key',
      baseUrl: mock.url,
      models: 'jina-embeddings-v3',
    });
    await addChannel(root, {
      name: 'jina-rerank',
      type: 38,
      key: 'jina-rr-key',
      baseUrl: mock.url,
      models: 'jina-reranker-v2',
    });
    await addChannel(root, {
      name: 'cohere-rerank',
      type: 34,
      key: 'co-rr-key',
      baseUrl: mock.url,
      models: 'rerank-v3.5',
    });
    await addChannel(root, {
      name: 'zhipu-embed',
      type: 26,
      key: 'zhipu-embed-key',
      baseUrl: mock.url,
      models: 'embedding-3',
    });
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify(Object.fromEntries(models.map((m) => [m, 0.5]))),
    });
    await root.call('PUT', '/api/option/', {
      key: 'CompletionRatio',
      value: JSON.stringify(Object.fromEntries(models.map((m) => [m, 2]))),
    });
  });

  const lastLog = async (model: string) => {
    await drainWriter(t);
    const log = await t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('model_name', '=', model)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    return {
      quota: Number(log.quota),
      prompt: log.prompt_tokens,
      completion: log.completion_tokens,
      stream: log.is_stream,
      channel: log.channel_name,
    };
  };
  const lastRequest = () => {
    const r = mock.requests.at(-1)!;
    return { path: r.path, auth: r.headers.authorization, body: r.body };
  };
  const quotaOf = async () =>
    Number(
      (
        await t.database.db.kysely
          .selectFrom('users')
          .select('quota')
          .where('id', '=', user.userId!)
          .executeTakeFirstOrThrow()
      ).quota,
    );
  const messages = [
    { role: 'system' as const, content: 'be brief' },
    { role: 'user' as const, content: 'hi' },
  ];

  it.each(vendors)('$label (type $type): plain call — path, credential, body, answer, bill', async (v) => {
    const before = await quotaOf();
    const res = await sdk.chat.completions.create({ model: v.model, messages });
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    expect(res.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
    expect(res.model).toBe(v.model);
    expect(lastRequest()).toEqual({ path: v.path, auth: v.auth, body: v.plainBody });
    expect(await lastLog(v.model)).toEqual({ quota: 11, prompt: 12, completion: 5, stream: 0, channel: v.label });
    expect(before - (await quotaOf())).toBe(11);
  });

  it.each(vendors)('$label (type $type): streamed call — path, credential, body, chunks, bill', async (v) => {
    const before = await quotaOf();
    const stream = await sdk.chat.completions.create({
      model: v.model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect({ text, finish }).toEqual({ text: 'Hello from the mock!', finish: 'stop' });
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
    expect(lastRequest()).toEqual({ path: v.path, auth: v.auth, body: v.streamBody });
    expect(await lastLog(v.model)).toEqual({ quota: 11, prompt: 12, completion: 5, stream: 1, channel: v.label });
    expect(before - (await quotaOf())).toBe(11);
  });

  it('a client user id reaches Dify and Coze as their user', async () => {
    await sdk.chat.completions.create({ model: 'dify-app', messages, user: 'alice' });
    expect(lastRequest().body).toMatchObject({ user: 'alice' });
    await sdk.chat.completions.create({
      model: 'coze-bot',
      messages: [...messages, { role: 'assistant', content: 'Hello.' }, { role: 'user', content: 'again' }],
      user: 'bob',
    });
    expect(lastRequest().body).toMatchObject({
      user_id: 'bob',
      additional_messages: [
        { role: 'user', type: 'question', content: 'hi', content_type: 'text' },
        { role: 'assistant', type: 'answer', content: 'Hello.', content_type: 'text' },
        { role: 'user', type: 'question', content: 'again', content_type: 'text' },
      ],
    });
  });

  it('embeddings on Jina (/v1/embeddings) and Zhipu (/api/paas/v4/embeddings), billed by prompt tokens', async () => {
    const jina = await sdk.embeddings.create({ model: 'jina-embeddings-v3', input: ['a', 'b'] });
    expect(jina.data).toHaveLength(2);
    expect(lastRequest()).toMatchObject({
      path: '/v1/embeddings',
      auth: 'Bearer jina-key',
      body: { model: 'jina-embeddings-v3', input: ['a', 'b'] },
    });
    expect(await lastLog('jina-embeddings-v3')).toEqual({
      quota: 6,
      prompt: 12,
      completion: 0,
      stream: 0,
      channel: 'jina',
    });
    await sdk.embeddings.create({ model: 'embedding-3', input: 'a' });
    expect(lastRequest()).toMatchObject({ path: '/api/paas/v4/embeddings', auth: 'Bearer zhipu-embed-key' });
    expect(await lastLog('embedding-3')).toEqual({
      quota: 6,
      prompt: 12,
      completion: 0,
      stream: 0,
      channel: 'zhipu-embed',
    });
  });

  it('rerank on Jina (/v1/rerank, reported tokens) and Cohere (/v2/rerank, tokens counted by us), answered in Jina shape', async () => {
    const rerank = async (model: string) => {
      const res = await fetch(`${base}/v1/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model,
          query: 'capital of France',
          documents: ['Berlin is in Germany', { text: 'Paris is the capital of France' }, 'Madrid'],
          top_n: 2,
          return_documents: true,
        }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Json;
    };
    const jina = await rerank('jina-reranker-v2');
    expect(lastRequest()).toEqual({
      path: '/v1/rerank',
      auth: 'Bearer jina-rr-key',
      body: {
        model: 'jina-reranker-v2',
        query: 'capital of France',
        documents: ['Berlin is in Germany', 'Paris is the capital of France', 'Madrid'],
        top_n: 2,
        return_documents: true,
      },
    });
    expect(jina).toEqual({
      model: 'jina-reranker-v2',
      results: [
        { index: 2, relevance_score: 0.9, document: { text: 'Madrid' } },
        { index: 1, relevance_score: 0.8, document: { text: 'Paris is the capital of France' } },
      ],
      usage: { prompt_tokens: 12, total_tokens: 12 },
    });
    expect(await lastLog('jina-reranker-v2')).toEqual({
      quota: 6,
      prompt: 12,
      completion: 0,
      stream: 0,
      channel: 'jina-rerank',
    });

    const cohere = await rerank('rerank-v3.5');
    expect(lastRequest()).toEqual({
      path: '/v2/rerank',
      auth: 'Bearer co-rr-key',
      body: {
        model: 'rerank-v3.5',
        query: 'capital of France',
        documents: ['Berlin is in Germany', 'Paris is the capital of France', 'Madrid'],
        top_n: 2,
      },
    });
    const counted = countTextTokens('capital of France\nBerlin is in Germany\nParis is the capital of France\nMadrid');
    expect(cohere).toEqual({
      model: 'rerank-v3.5',
      results: [
        { index: 2, relevance_score: 0.9, document: { text: 'Madrid' } },
        { index: 1, relevance_score: 0.8, document: { text: 'Paris is the capital of France' } },
      ],
      usage: { prompt_tokens: counted, total_tokens: counted },
    });
    expect(await lastLog('rerank-v3.5')).toEqual({
      quota: Math.round(counted * 0.5),
      prompt: counted,
      completion: 0,
      stream: 0,
      channel: 'cohere-rerank',
    });
  });

  it('the model list of a compatible vendor is fetched under its prefix (Volcengine /api/v3/models, Cloudflare by account)', async () => {
    const res = await root.call<string[]>('POST', '/api/channel/fetch_models', {
      type: 45,
      base_url: mock.url,
      key: 'ark-key',
    });
    expect(res.body).toMatchObject({ success: true, data: ['gpt-4o-mini'] });
    expect(lastRequest()).toMatchObject({ path: '/api/v3/models', auth: 'Bearer ark-key' });
    await root.call<string[]>('POST', '/api/channel/fetch_models', {
      type: 39,
      base_url: mock.url,
      key: 'acct-9|cf-token',
    });
    expect(lastRequest()).toMatchObject({ path: '/client/v4/accounts/acct-9/ai/v1/models', auth: 'Bearer cf-token' });
  });

  it('Anthropic SDK → Cohere channel, streamed: converted both ways, billed from billed_units', async () => {
    const anthropic = new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 });
    const stream = anthropic.messages.stream({
      model: 'command-r',
      max_tokens: 64,
      system: 'be brief',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 });
    expect(lastRequest()).toEqual({
      path: '/v2/chat',
      auth: 'Bearer co-key',
      body: {
        model: 'command-r',
        stream: true,
        max_tokens: 64,
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
      },
    });
    expect(await lastLog('command-r')).toEqual({ quota: 11, prompt: 12, completion: 5, stream: 1, channel: 'cohere' });
  });

  it('errors carried in a 200 JSON answer (Tencent signature refused, Coze token refused) fail the call with their status, unbilled', async () => {
    await addChannel(root, {
      name: 'tencent-bad',
      type: 23,
      key: '1250000000|AKIDmockTollway|wrong-secret',
      baseUrl: mock.url,
      models: 'hunyuan-bad',
    });
    const before = await quotaOf();
    for (const stream of [false, true]) {
      await expect(sdk.chat.completions.create({ model: 'hunyuan-bad', messages, stream })).rejects.toMatchObject({
        status: 401,
        message: expect.stringContaining('AuthFailure.SignatureFailure'),
      });
    }
    await addChannel(root, {
      name: 'coze-revoked',
      type: 49,
      key: 'pat-revoked',
      baseUrl: mock.url,
      models: 'coze-revoked',
    });
    for (const stream of [false, true]) {
      await expect(sdk.chat.completions.create({ model: 'coze-revoked', messages, stream })).rejects.toMatchObject({
        status: 401,
        message: expect.stringContaining('Coze error 4100'),
      });
    }
    await drainWriter(t);
    expect(await quotaOf()).toBe(before);
    // The channel test sees the refusal too.
    const ids = (
      await root.call<{ items: { id: number; name: string }[] }>('GET', '/api/channel/search?keyword=tencent')
    ).body.data!.items;
    const tested = await root.call('GET', `/api/channel/test/${ids.find((c) => c.name === 'tencent-bad')!.id}`);
    expect(tested.body).toMatchObject({
      success: false,
      message: expect.stringContaining('AuthFailure.SignatureFailure'),
    });
    const good = await root.call('GET', `/api/channel/test/${ids.find((c) => c.name === 'tencent')!.id}`);
    expect(good.body).toMatchObject({ success: true });
  });

  it('an upstream error reaches the client in its protocol and is not billed', async () => {
    mock.behaviors.set('co-key', { failStatus: 400, failMessage: 'invalid request: model not found' });
    const before = await quotaOf();
    await expect(sdk.chat.completions.create({ model: 'command-r', messages })).rejects.toMatchObject({ status: 400 });
    mock.behaviors.delete('co-key');
    await drainWriter(t);
    expect(await quotaOf()).toBe(before);
  });
});

import OpenAI from 'openai';
import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { countPromptTokens, countTextTokens } from '../../src/relay/pipeline/token-count.js';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter, lastLogOf } from '../support/gateway.js';
import { startMockAIProxyLibrary, type MockAIProxyLibrary } from '../support/mock-aiproxy-library.js';
import { startMockCodex, type MockCodex } from '../support/mock-codex.js';
import { startMockErnie, type MockErnie } from '../support/mock-ernie.js';
import { startMockSpark, type MockSpark } from '../support/mock-spark.js';
import { startMockZhipuV3, type MockZhipuV3 } from '../support/mock-zhipu-v3.js';

/** The four mocks of this suite, started and closed together. */
interface Mocks {
  spark: MockSpark;
  ernie: MockErnie;
  zhipu: MockZhipuV3;
  library: MockAIProxyLibrary;
  codex: MockCodex;
  close(): Promise<void>;
}

async function startMocks(): Promise<Mocks> {
  const spark = await startMockSpark([{ appId: 'app-1', apiSecret: 'spark-secret', apiKey: 'spark-key' }]);
  const ernie = await startMockErnie({ 'ernie-client': 'ernie-secret' });
  const zhipu = await startMockZhipuV3({ 'glm-id': 'glm-secret' });
  const library = await startMockAIProxyLibrary({ 'aip-key': 'lib-7' });
  const codex = await startMockCodex({ 'at-codex': 'acct-1' });
  return {
    spark,
    ernie,
    zhipu,
    library,
    codex,
    close: async () => {
      await Promise.all([spark.close(), ernie.close(), zhipu.close(), library.close(), codex.close()]);
    },
  };
}

interface Vendor {
  label: string;
  type: number;
  model: string;
  key: string;
  other?: string;
  mock: keyof Omit<Mocks, 'close'>;
  /** A channel of the same type whose credential the upstream refuses, its model, and what the caller is told. */
  bad: { model: string; key: string; status: number; message: RegExp };
}

const vendors: Vendor[] = [
  {
    label: 'spark',
    type: ChannelType.Xunfei,
    model: 'SparkDesk-v3.5',
    key: 'app-1|spark-secret|spark-key',
    mock: 'spark',
    bad: {
      model: 'SparkDesk-v3.1',
      key: 'app-1|wrong-secret|spark-key',
      status: 401,
      message: /HMAC signature cannot be verified/,
    },
  },
  {
    label: 'ernie',
    type: ChannelType.Baidu,
    model: 'ERNIE-4.0-8K',
    key: 'ernie-client|ernie-secret',
    mock: 'ernie',
    bad: {
      model: 'ERNIE-Bot',
      key: 'ernie-client|wrong-secret',
      status: 401,
      message: /Baidu access token exchange failed: invalid_client/,
    },
  },
  {
    label: 'chatglm',
    type: ChannelType.Zhipu,
    model: 'chatglm_turbo',
    key: 'glm-id.glm-secret',
    mock: 'zhipu',
    bad: { model: 'chatglm_pro', key: 'glm-id.wrong-secret', status: 401, message: /Zhipu error 1002/ },
  },
  {
    label: 'codex',
    type: ChannelType.Codex,
    model: 'gpt-5-codex',
    key: JSON.stringify({ access_token: 'at-codex', account_id: 'acct-1', refresh_token: 'rt-1' }),
    mock: 'codex',
    bad: {
      model: 'gpt-5-codex-mini',
      key: JSON.stringify({ access_token: 'at-expired', account_id: 'acct-1' }),
      status: 401,
      message: /authentication token is expired/,
    },
  },
];

const LIBRARY = { model: 'library-gpt', key: 'aip-key', other: 'lib-7' };

/**
 * The older native chat APIs end to end with the official `openai` SDK through the running server: iFlytek Spark
 * (signed WebSocket), Baidu ERNIE v1 (access-token exchange), Zhipu ChatGLM v3 (JWT), Codex (the ChatGPT backend's
 * Responses API with an OAuth credential), AI Proxy's library API (no usage: billed on Tollway's count) and PaLM
 * (retired). Each mock verifies the credential it is sent.
 * Prices: ratio 0.5, completion ratio 2 → (12 + 5 × 2) × 0.5 = 11 per call where the vendor reports usage.
 */
describe.each(dialects)('legacy vendor adaptors on %s', (dialect) => {
  let t: TestApp, mocks: Mocks, root: Client, user: Client, base: string, key: string, sdk: OpenAI;
  useGateway(dialect, { user: 'legacy-user', quota: 10_000_000, mock: startMocks }, async (gw) => {
    ({ t, mock: mocks, root, user, base, key } = gw);
    sdk = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    for (const v of vendors) {
      const url = mocks[v.mock].url;
      await addChannel(root, { name: v.label, type: v.type, key: v.key, baseUrl: url, models: v.model });
      await addChannel(root, {
        name: `${v.label}-bad`,
        type: v.type,
        key: v.bad.key,
        baseUrl: url,
        models: v.bad.model,
      });
    }
    const libraryUrl = mocks.library.url;
    await addChannel(root, {
      name: 'library',
      type: ChannelType.AIProxyLibrary,
      baseUrl: libraryUrl,
      models: LIBRARY.model,
      key: LIBRARY.key,
      other: LIBRARY.other,
    });
    await addChannel(root, {
      name: 'library-bad',
      type: ChannelType.AIProxyLibrary,
      baseUrl: libraryUrl,
      models: 'library-bad',
      key: 'aip-wrong',
      other: LIBRARY.other,
    });
    await addChannel(root, {
      name: 'palm',
      type: ChannelType.PaLM,
      baseUrl: '',
      models: 'chat-bison-001',
      key: 'palm-key',
    });
    const models = [...vendors.flatMap((v) => [v.model, v.bad.model]), LIBRARY.model, 'library-bad', 'chat-bison-001'];
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
    const log = await lastLogOf(t, model);
    return {
      quota: Number(log.quota),
      prompt: log.prompt_tokens,
      completion: log.completion_tokens,
      stream: log.is_stream,
    };
  };
  // After the writer committed every settlement queued (a call's bill lands just after its answer).
  const quotaOf = async () => {
    await drainWriter(t);
    return Number(
      (
        await t.database.db.kysely
          .selectFrom('users')
          .select('quota')
          .where('id', '=', user.userId!)
          .executeTakeFirstOrThrow()
      ).quota,
    );
  };
  const messages = [
    { role: 'system' as const, content: 'be brief' },
    { role: 'user' as const, content: 'hi' },
  ];
  const streamed = async (model: string) => {
    const stream = await sdk.chat.completions.create({
      model,
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
    return { text, usage, finish };
  };
  const failureOf = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: unknown) => {
        expect(err).toBeInstanceOf(OpenAI.APIError);
        const e = err as InstanceType<typeof OpenAI.APIError>;
        return { status: e.status, message: String((e.error as { message?: string } | undefined)?.message ?? '') };
      },
    );

  it.each(vendors)('$label: plain call — answer, usage, exact bill', async (v) => {
    const before = await quotaOf();
    const sent = mocks[v.mock].requests.length;
    const res = await sdk.chat.completions.create({ model: v.model, messages });
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    expect(res.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 5 });
    expect(mocks[v.mock].requests.length).toBe(sent + 1);
    expect(await lastLog(v.model)).toEqual({ quota: 11, prompt: 12, completion: 5, stream: 0 });
    expect(before - (await quotaOf())).toBe(11);
  });

  it.each(vendors)('$label: streamed call — chunks, usage, exact bill', async (v) => {
    const before = await quotaOf();
    expect(await streamed(v.model)).toEqual({
      text: 'Hello from the mock!',
      finish: 'stop',
      usage: expect.objectContaining({ prompt_tokens: 12, completion_tokens: 5 }),
    });
    expect(await lastLog(v.model)).toEqual({ quota: 11, prompt: 12, completion: 5, stream: 1 });
    expect(before - (await quotaOf())).toBe(11);
  });

  it.each(vendors)('$label: a refused credential is a clear error in the OpenAI shape, nothing billed', async (v) => {
    const before = await quotaOf();
    const failure = await failureOf(sdk.chat.completions.create({ model: v.bad.model, messages }));
    expect(failure?.status).toBe(v.bad.status);
    expect(failure?.message).toMatch(v.bad.message);
    expect(before - (await quotaOf())).toBe(0);
  });

  it('Spark: the upstream saw the signed socket path and the frame in its wire', () => {
    const r = mocks.spark.requests.find((x) => x.path === '/v3.5/chat')!;
    expect(r.body).toEqual({
      header: { app_id: 'app-1' },
      parameter: { chat: { domain: 'generalv3.5' } },
      payload: {
        message: {
          text: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'hi' },
          ],
        },
      },
    });
    expect(mocks.spark.refusedSignatures).toBeGreaterThan(0);
  });

  it('Codex: a Responses client reaches the backend as it is (streamed, not stored), billed exactly', async () => {
    const before = await quotaOf();
    const res = await sdk.responses.create({ model: 'gpt-5-codex', instructions: 'be brief', input: 'hi' });
    expect(res.output_text).toBe('Hello from the mock!');
    expect(mocks.codex.requests.at(-1)!.body).toMatchObject({
      model: 'gpt-5-codex',
      instructions: 'be brief',
      input: 'hi',
      store: false,
      stream: true,
    });
    expect(mocks.codex.requests.at(-1)!.headers['chatgpt-account-id']).toBe('acct-1');
    expect(await lastLog('gpt-5-codex')).toEqual({ quota: 11, prompt: 12, completion: 5, stream: 0 });
    expect(before - (await quotaOf())).toBe(11);
  });

  it('ERNIE: one token exchange serves every call of the key', () => {
    expect(mocks.ernie.issued.get('ernie-client')).toBe(1);
    expect(mocks.ernie.requests.every((r) => r.path.endsWith('/chat/completions_pro'))).toBe(true);
  });

  it('ERNIE: a token the upstream no longer takes fails the call with 401 and is exchanged again', async () => {
    mocks.ernie.revokeTokens();
    const failure = await failureOf(sdk.chat.completions.create({ model: 'ERNIE-4.0-8K', messages }));
    expect(failure).toEqual({ status: 401, message: 'Baidu error 110: Access token invalid or no longer valid' });
    const res = await sdk.chat.completions.create({ model: 'ERNIE-4.0-8K', messages });
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    expect(mocks.ernie.issued.get('ernie-client')).toBe(2);
  });

  it('AI Proxy library: the answer with its sources, billed on the counted prompt and answer', async () => {
    const before = await quotaOf();
    const question = [{ role: 'user' as const, content: 'hi, with sources' }];
    const res = await sdk.chat.completions.create({ model: LIBRARY.model, messages: question });
    const answer = 'Hello from the mock!\n\nReferences:\n1. [Guide](https://docs.example/guide)';
    expect(res.choices[0]!.message.content).toBe(answer);
    expect(mocks.library.requests.at(-1)!.body).toEqual({
      model: LIBRARY.model,
      query: 'hi, with sources',
      libraryId: 'lib-7',
      stream: false,
    });
    const prompt = countPromptTokens({ model: LIBRARY.model, messages: question });
    const completion = countTextTokens(answer);
    const quota = Math.round((prompt + completion * 2) * 0.5);
    expect(await lastLog(LIBRARY.model)).toEqual({ quota, prompt, completion, stream: 0 });
    expect(before - (await quotaOf())).toBe(quota);
  });

  it('AI Proxy library: a streamed answer, billed on the counted text', async () => {
    const before = await quotaOf();
    const { text, finish } = await streamed(LIBRARY.model);
    expect({ text, finish }).toEqual({ text: 'Hello from the mock!', finish: 'stop' });
    expect(mocks.library.requests.at(-1)!.body).toMatchObject({ query: 'hi', stream: true });
    const prompt = countPromptTokens({ model: LIBRARY.model, messages });
    const completion = countTextTokens(text);
    const quota = Math.round((prompt + completion * 2) * 0.5);
    expect(await lastLog(LIBRARY.model)).toEqual({ quota, prompt, completion, stream: 1 });
    expect(before - (await quotaOf())).toBe(quota);
  });

  it('AI Proxy library: an unknown key is a clear 401 in the OpenAI shape', async () => {
    expect(await failureOf(sdk.chat.completions.create({ model: 'library-bad', messages }))).toEqual({
      status: 401,
      message: 'invalid api key',
    });
  });

  it('PaLM: every call is answered with its retirement (410), in the caller protocol shape, nothing billed', async () => {
    const before = await quotaOf();
    const failure = await failureOf(sdk.chat.completions.create({ model: 'chat-bison-001', messages }));
    expect(failure).toEqual({ status: 410, message: expect.stringMatching(/Google retired the PaLM API/) });
    const res = await fetch(`${base}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'chat-bison-001', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(410);
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { message: expect.stringMatching(/Google retired the PaLM API/) },
    });
    expect(before - (await quotaOf())).toBe(0);
  });
});

import { ApiError, GoogleGenAI } from '@google/genai';
import { countTokens } from 'gpt-tokenizer';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';
import { makeServiceAccount } from '../support/mock-vertex.js';
import {
  startMockVertexEmbed,
  VERTEX_TOKENS_PER_TEXT,
  vertexVector,
  type MockVertexEmbed,
} from '../support/mock-gemini-embed.js';

const EMBED = 'gemini-embedding-001';
const CHAT = 'gemini-2.5-flash';
/** The mock's Gemini vectors: [0.5, 0.25, i] for the i-th request of a batch. */
const mockVector = (i: number) => [0.5, 0.25, i];
/** Framing the gateway counts per message of a prompt. */
const PER_MESSAGE = 3;

type GeminiError = { error: { code: number; message: string; status: string } };

/**
 * The Gemini API's other routes with the official SDKs: OpenAI-format embeddings to a Gemini channel
 * (batchEmbedContents, float and base64), countTokens answered by the gateway, models.get / models.list, and
 * every /v1beta failure in Gemini's error shape.
 */
describe('Gemini routes with the official SDKs', () => {
  let t: TestApp, mock: MockUpstream, vertex: MockVertexEmbed, root: Client, base: string, key: string, userId: number;
  afterAll(async () => vertex?.close());
  useGateway('sqlite', { user: 'gemini-routes', quota: 10_000_000 }, async (gw) => {
    ({ t, mock, root, base, key } = gw);
    userId = gw.user.userId!;
    vertex = await startMockVertexEmbed();
    await addChannel(root, {
      name: 'gemini-up',
      key: 'ge-key',
      baseUrl: mock.url,
      type: 24,
      models: `${CHAT},${EMBED},embed-alias`,
      modelMapping: { 'embed-alias': EMBED },
    });
    await addChannel(root, { name: 'openai-up', key: 'oa-key', baseUrl: mock.url, models: 'text-embedding-3-small' });
    await addChannel(root, {
      name: 'vertex-up',
      key: makeServiceAccount('proj-embed', `${vertex.url}/token`).keyText,
      baseUrl: vertex.url,
      type: 41,
      other: 'us-central1',
      models: 'vertex-embedding',
    });
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify({
        [CHAT]: 0.15,
        [EMBED]: 2,
        'embed-alias': 2,
        'text-embedding-3-small': 1,
        'vertex-embedding': 1,
      }),
    });
  });

  const openai = () => new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
  const genai = (apiKey = key) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: base } });
  const logsOf = async (model: string) => {
    await drainWriter(t);
    return t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('model_name', '=', model)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .execute();
  };
  const geminiFailure = async (p: Promise<unknown>): Promise<ApiError> => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  };
  const expectGeminiError = async (res: Response, status: number, grpc: string) => {
    expect(res.status).toBe(status);
    const body = (await res.json()) as GeminiError;
    expect(body.error).toMatchObject({ code: status, status: grpc, message: expect.any(String) });
    return body;
  };

  describe('OpenAI-format embeddings to a Gemini channel', () => {
    it('openai SDK default (base64): batchEmbedContents upstream, vectors decoded by the SDK, billed from the gateway count', async () => {
      const res = await openai().embeddings.create({ model: EMBED, input: ['first text', 'second, longer text'] });
      expect(res.data.map((d) => d.embedding)).toEqual([mockVector(0), mockVector(1)]);
      expect(res.data.map((d) => d.index)).toEqual([0, 1]);
      // Each input counted on its own, as OpenAI bills embeddings.
      const tokens = countTokens('first text') + countTokens('second, longer text');
      expect(res).toMatchObject({
        object: 'list',
        model: EMBED,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });

      const sent = mock.requests.at(-1)!;
      expect(sent).toMatchObject({ method: 'POST', path: `/v1beta/models/${EMBED}:batchEmbedContents`, key: 'ge-key' });
      expect(sent.body).toEqual({
        requests: [
          { model: `models/${EMBED}`, content: { parts: [{ text: 'first text' }] } },
          { model: `models/${EMBED}`, content: { parts: [{ text: 'second, longer text' }] } },
        ],
      });
      const [log] = await logsOf(EMBED);
      expect({ quota: Number(log!.quota), prompt: log!.prompt_tokens, completion: log!.completion_tokens }).toEqual({
        quota: tokens * 2,
        prompt: tokens,
        completion: 0,
      });
    });

    it('base64 on the wire is Float32 little-endian, as OpenAI answers it', async () => {
      const res = await fetch(`${base}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: EMBED, input: 'one', encoding_format: 'base64' }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { object: string; index: number; embedding: string }[] };
      expect(body.data).toHaveLength(1);
      expect(body.data[0]).toMatchObject({ object: 'embedding', index: 0 });
      const bytes = Buffer.from(body.data[0]!.embedding, 'base64');
      const floats = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
      expect(floats).toEqual(mockVector(0));
    });

    it('float with dimensions: outputDimensionality upstream, the model name mapped, the caller’s name answered', async () => {
      const res = await openai().embeddings.create({
        model: 'embed-alias',
        input: 'hello there',
        encoding_format: 'float',
        dimensions: 3,
      });
      expect(res.data[0]!.embedding).toEqual(mockVector(0));
      expect(res.model).toBe('embed-alias');
      expect(mock.requests.at(-1)).toMatchObject({
        path: `/v1beta/models/${EMBED}:batchEmbedContents`,
        body: {
          requests: [
            { model: `models/${EMBED}`, content: { parts: [{ text: 'hello there' }] }, outputDimensionality: 3 },
          ],
        },
      });
      const [log] = await logsOf('embed-alias');
      expect(log!.prompt_tokens).toBe(countTokens('hello there'));
    });

    it('token arrays and bad fields are refused with a 400, nothing sent upstream, nothing billed', async () => {
      const before = mock.requests.length;
      const logsBefore = (await logsOf(EMBED)).length;
      for (const input of [
        [1, 2, 3],
        [[1, 2], [3]],
      ]) {
        const err = await openai()
          .embeddings.create({ model: EMBED, input })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(OpenAI.BadRequestError);
        expect((err as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/token array/);
      }
      const bad = await openai()
        .embeddings.create({ model: EMBED, input: 'x', dimensions: -1 })
        .catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
      expect(mock.requests.length).toBe(before);
      expect((await logsOf(EMBED)).length).toBe(logsBefore);
    });

    it('an OpenAI channel still gets the call as sent, the answer passed through', async () => {
      // The simple OpenAI mock answers floats whatever is asked, so the client asks for floats here.
      const res = await openai().embeddings.create({
        model: 'text-embedding-3-small',
        input: 'x',
        encoding_format: 'float',
      });
      expect(res.data[0]!.embedding).toEqual([0.1, 0.2, 0.3]);
      expect(mock.requests.at(-1)).toMatchObject({
        path: '/v1/embeddings',
        key: 'oa-key',
        body: { model: 'text-embedding-3-small', input: 'x', encoding_format: 'float' },
      });
      const raw = await fetch(`${base}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({
          model: 'text-embedding-3-small',
          input: ['a', 'b'],
          encoding_format: 'base64',
          user: 'u1',
        }),
      });
      expect(raw.status).toBe(200);
      expect(mock.requests.at(-1)!.body).toEqual({
        model: 'text-embedding-3-small',
        input: ['a', 'b'],
        encoding_format: 'base64',
        user: 'u1',
      });
    });

    it('a Vertex AI channel gets a predict call (signed), OpenAI and Gemini callers alike, billed from Vertex token counts', async () => {
      const res = await openai().embeddings.create({ model: 'vertex-embedding', input: ['a', 'b'], dimensions: 3 });
      expect(res.data.map((d) => d.embedding)).toEqual([vertexVector(0), vertexVector(1)]);
      expect(res.usage).toEqual({
        prompt_tokens: 2 * VERTEX_TOKENS_PER_TEXT,
        total_tokens: 2 * VERTEX_TOKENS_PER_TEXT,
      });
      expect(vertex.requests.at(-1)).toEqual({
        path: '/v1/projects/proj-embed/locations/us-central1/publishers/google/models/vertex-embedding:predict',
        authorization: expect.stringMatching(/^Bearer /),
        body: { instances: [{ content: 'a' }, { content: 'b' }], parameters: { outputDimensionality: 3 } },
      });
      const [log] = await logsOf('vertex-embedding');
      expect({ quota: Number(log!.quota), prompt: log!.prompt_tokens }).toEqual({
        quota: 2 * VERTEX_TOKENS_PER_TEXT,
        prompt: 2 * VERTEX_TOKENS_PER_TEXT,
      });

      const native = await genai().models.embedContent({
        model: 'vertex-embedding',
        contents: ['only one'],
        config: { taskType: 'RETRIEVAL_QUERY' },
      });
      expect(native.embeddings?.map((e) => e.values)).toEqual([vertexVector(0)]);
      expect(vertex.requests.at(-1)!.body).toEqual({
        instances: [{ content: 'only one', task_type: 'RETRIEVAL_QUERY' }],
      });
    });
  });

  describe('countTokens, answered by the gateway', () => {
    it('genai models.countTokens: the gateway’s own count, nothing upstream, nothing billed', async () => {
      const before = mock.requests.length;
      const logsBefore = (await logsOf(CHAT)).length;
      const res = await genai().models.countTokens({ model: CHAT, contents: 'How many tokens is this sentence?' });
      expect(res.totalTokens).toBe(PER_MESSAGE + countTokens('How many tokens is this sentence?'));
      const multi = await genai().models.countTokens({
        model: CHAT,
        contents: [
          { role: 'user', parts: [{ text: 'hello' }] },
          { role: 'model', parts: [{ text: 'hi there' }] },
        ],
      });
      expect(multi.totalTokens).toBe(2 * PER_MESSAGE + countTokens('hello') + countTokens('hi there'));
      expect(mock.requests.length).toBe(before);
      expect((await logsOf(CHAT)).length).toBe(logsBefore);
    });

    it('generateContentRequest (with its system instruction), ?key= and Bearer auth', async () => {
      const body = {
        generateContentRequest: {
          model: `models/${CHAT}`,
          systemInstruction: { parts: [{ text: 'Be brief.' }] },
          contents: [{ role: 'user', parts: [{ text: 'Tell me a story' }] }],
        },
      };
      const expected = countTokens('Be brief.') + PER_MESSAGE + countTokens('Tell me a story');
      const byQuery = await fetch(`${base}/v1beta/models/${CHAT}:countTokens?key=${key}`, {
        method: 'POST',
        body: JSON.stringify(body),
      });
      expect(byQuery.status).toBe(200);
      expect(await byQuery.json()).toEqual({ totalTokens: expected });
      const byBearer = await fetch(`${base}/v1beta/models/${CHAT}:countTokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      });
      expect(await byBearer.json()).toEqual({ totalTokens: PER_MESSAGE + countTokens('hi') });
    });

    it('refusals in Gemini’s shape: bad key 401, unknown model 404, a model outside the token’s limits, bad body 400', async () => {
      expect((await geminiFailure(genai('sk-nope').models.countTokens({ model: CHAT, contents: 'x' }))).status).toBe(
        401,
      );
      const unknown = await geminiFailure(genai().models.countTokens({ model: 'gemini-nobody-serves', contents: 'x' }));
      expect(unknown.status).toBe(404);
      expect(unknown.message).toMatch(/NOT_FOUND/);

      const limited = await addToken(t, userId, { modelLimits: EMBED });
      const outside = await geminiFailure(genai(limited.key).models.countTokens({ model: CHAT, contents: 'x' }));
      expect([403, 404]).toContain(outside.status);
      expect(
        (await genai(limited.key).models.countTokens({ model: EMBED, contents: 'x' })).totalTokens,
      ).toBeGreaterThan(0);

      await expectGeminiError(
        await fetch(`${base}/v1beta/models/${CHAT}:countTokens?key=${key}`, {
          method: 'POST',
          body: JSON.stringify({ contents: 'not a list' }),
        }),
        400,
        'INVALID_ARGUMENT',
      );
      await expectGeminiError(
        await fetch(`${base}/v1beta/models/${CHAT}:countTokens?key=${key}`, {
          method: 'POST',
          body: JSON.stringify({ generateContentRequest: 7 }),
        }),
        400,
        'INVALID_ARGUMENT',
      );
    });
  });

  describe('models.get and models.list', () => {
    it('genai models.get: Gemini’s model shape, the methods the gateway answers', async () => {
      const chat = await genai().models.get({ model: CHAT });
      expect(chat).toMatchObject({ name: `models/${CHAT}`, displayName: CHAT, version: expect.any(String) });
      expect(chat.supportedActions).toEqual(['generateContent', 'streamGenerateContent', 'countTokens']);
      const embed = await genai().models.get({ model: `models/${EMBED}` });
      expect(embed.supportedActions).toEqual(expect.arrayContaining(['embedContent', 'batchEmbedContents']));
      const raw = await fetch(`${base}/v1beta/models/${CHAT}`, { headers: { 'x-goog-api-key': key } });
      expect(await raw.json()).toMatchObject({
        name: `models/${CHAT}`,
        supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'],
      });
    });

    it('models.get of a model not served to the token: 404 in Gemini’s shape', async () => {
      const err = await geminiFailure(genai().models.get({ model: 'gemini-nobody-serves' }));
      expect(err.status).toBe(404);
      const limited = await addToken(t, userId, { modelLimits: EMBED });
      expect((await geminiFailure(genai(limited.key).models.get({ model: CHAT }))).status).toBe(404);
      expect((await geminiFailure(genai('sk-nope').models.get({ model: CHAT }))).status).toBe(401);
    });

    it('genai models.list pages through every model with pageSize / pageToken', async () => {
      const all = ['embed-alias', CHAT, EMBED, 'text-embedding-3-small', 'vertex-embedding'].sort();
      const seen: string[] = [];
      const pager = await genai().models.list({ config: { pageSize: 2 } });
      for await (const m of pager) seen.push(m.name!);
      expect(seen.sort()).toEqual(all.map((id) => `models/${id}`));

      const first = (await (await fetch(`${base}/v1beta/models?pageSize=3&key=${key}`)).json()) as {
        models: unknown[];
        nextPageToken?: string;
      };
      expect(first.models).toHaveLength(3);
      expect(first.nextPageToken).toEqual(expect.any(String));
      const rest = (await (
        await fetch(`${base}/v1beta/models?pageSize=3&pageToken=${first.nextPageToken}&key=${key}`)
      ).json()) as { models: unknown[]; nextPageToken?: string };
      expect(rest.models).toHaveLength(all.length - 3);
      expect(rest.nextPageToken).toBeUndefined();
      const whole = (await (await fetch(`${base}/v1beta/models?key=${key}`)).json()) as {
        models: unknown[];
        nextPageToken?: string;
      };
      expect(whole.models).toHaveLength(all.length);
      await expectGeminiError(
        await fetch(`${base}/v1beta/models?pageToken=garbage&key=${key}`),
        400,
        'INVALID_ARGUMENT',
      );
    });
  });

  describe('every /v1beta failure in Gemini’s error shape', () => {
    it('unknown paths, wrong methods and bad keys', async () => {
      const auth = { 'x-goog-api-key': key };
      await expectGeminiError(await fetch(`${base}/v1beta/nothing/here`, { headers: auth }), 404, 'NOT_FOUND');
      await expectGeminiError(await fetch(`${base}/v1beta/tunedModels/x`, { headers: auth }), 404, 'NOT_FOUND');
      await expectGeminiError(
        await fetch(`${base}/v1beta/models/${CHAT}`, { method: 'DELETE', headers: auth }),
        404,
        'NOT_FOUND',
      );
      await expectGeminiError(
        await fetch(`${base}/v1beta/models/${CHAT}:generateContent`, { headers: auth }),
        404,
        'NOT_FOUND',
      );
      await expectGeminiError(
        await fetch(`${base}/v1beta/files`, { method: 'POST', headers: auth, body: '{}' }),
        404,
        'NOT_FOUND',
      );
      await expectGeminiError(
        await fetch(`${base}/v1beta/models/${CHAT}:fooBar`, { method: 'POST', headers: auth, body: '{}' }),
        404,
        'NOT_FOUND',
      );
      await expectGeminiError(
        await fetch(`${base}/v1beta/models`, { headers: { 'x-goog-api-key': 'sk-nope' } }),
        401,
        'UNAUTHENTICATED',
      );
      await expectGeminiError(await fetch(`${base}/v1beta/models/${CHAT}`), 401, 'UNAUTHENTICATED');
      await expectGeminiError(
        await fetch(`${base}/v1beta/models/${CHAT}:generateContent?key=sk-nope`, { method: 'POST', body: '{}' }),
        401,
        'UNAUTHENTICATED',
      );
    });

    it('the SDK reads them as ApiError with the status', async () => {
      const err = await geminiFailure(genai().models.generateContent({ model: 'gemini-nobody-serves', contents: 'x' }));
      expect(err.status).toBeGreaterThanOrEqual(400);
      expect(err.message).toMatch(/"status"|[A-Z_]{5,}/);
    });
  });
});

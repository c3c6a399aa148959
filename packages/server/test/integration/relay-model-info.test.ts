import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';

const MODELS = ['claude-sonnet-4-5', 'gemini-2.5-flash', 'gpt-4o-mini'];

/**
 * GET /v1/models and /v1/models/{model} answer in the caller's protocol, with the official SDKs: Anthropic's
 * shape with anthropic-version, Gemini's with a Gemini-style key, else OpenAI's; a model the token cannot see
 * is a 404 in the same protocol, and no lookup goes upstream.
 */
describe('model list and lookup in the caller’s protocol', () => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string, key: string, userId: number;
  useGateway('sqlite', { user: 'model-info', quota: 1_000_000 }, async (gw) => {
    ({ t, mock, root, base, key } = gw);
    userId = gw.user.userId!;
    await addChannel(root, { name: 'openai-up', key: 'oa-key', baseUrl: mock.url, models: 'gpt-4o-mini' });
    await addChannel(root, {
      name: 'anthropic-up',
      key: 'an-key',
      baseUrl: mock.url,
      type: 14,
      models: 'claude-sonnet-4-5',
    });
    await addChannel(root, {
      name: 'gemini-up',
      key: 'ge-key',
      baseUrl: mock.url,
      type: 24,
      models: 'gemini-2.5-flash',
    });
  });

  const anthropic = (apiKey = key) => new Anthropic({ apiKey, baseURL: base, maxRetries: 0 });
  const openai = (apiKey = key) => new OpenAI({ apiKey, baseURL: `${base}/v1`, maxRetries: 0 });
  const failure = async (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e,
    );

  it('Anthropic SDK models.retrieve and models.list: Anthropic’s model objects', async () => {
    const before = mock.requests.length;
    const model = await anthropic().models.retrieve('claude-sonnet-4-5');
    expect(model).toMatchObject({ type: 'model', id: 'claude-sonnet-4-5', display_name: 'claude-sonnet-4-5' });
    expect(new Date(model.created_at).getTime()).toBeGreaterThan(0);
    expect(model).not.toHaveProperty('object');
    const ids: string[] = [];
    for await (const m of anthropic().models.list()) {
      expect(m.type).toBe('model');
      ids.push(m.id);
    }
    expect(ids.sort()).toEqual(MODELS);
    expect(mock.requests.length).toBe(before);
  });

  it('Anthropic SDK: an unknown model is NotFoundError with Anthropic’s not_found_error, a bad key AuthenticationError', async () => {
    const err = await failure(anthropic().models.retrieve('claude-nobody-serves'));
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
    expect((err as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error', message: expect.stringContaining('claude-nobody-serves') },
    });
    expect(await failure(anthropic('sk-nope').models.retrieve('claude-sonnet-4-5'))).toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
  });

  it('OpenAI SDK models.retrieve and list: OpenAI’s model objects (as before); unknown → NotFoundError', async () => {
    const model = await openai().models.retrieve('gpt-4o-mini');
    expect(model).toMatchObject({
      id: 'gpt-4o-mini',
      object: 'model',
      owned_by: expect.any(String),
      created: expect.any(Number),
    });
    const ids: string[] = [];
    for await (const m of openai().models.list()) ids.push(m.id);
    expect(ids.sort()).toEqual(MODELS);
    const err = await failure(openai().models.retrieve('gpt-nobody-serves'));
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('a Gemini-style key (x-goog-api-key or ?key=) gets Gemini’s shape, from the SDK on API version v1 too', async () => {
    const genai = new GoogleGenAI({ apiKey: key, apiVersion: 'v1', httpOptions: { baseUrl: base } });
    const model = await genai.models.get({ model: 'gemini-2.5-flash' });
    expect(model).toMatchObject({ name: 'models/gemini-2.5-flash', displayName: 'gemini-2.5-flash' });
    expect(model.supportedActions).toContain('generateContent');
    const err = await failure(genai.models.get({ model: 'gemini-nobody-serves' }));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);

    const byQuery = await fetch(`${base}/v1/models/gpt-4o-mini?key=${key}`);
    expect(await byQuery.json()).toMatchObject({
      name: 'models/gpt-4o-mini',
      supportedGenerationMethods: expect.arrayContaining(['generateContent']),
    });
    const missing = await fetch(`${base}/v1/models/nope?key=${key}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { code: 404, status: 'NOT_FOUND', message: expect.stringContaining('models/nope') },
    });
  });

  it('a model outside the token’s limits is not found, in each protocol', async () => {
    const limited = await addToken(t, userId, { modelLimits: 'gpt-4o-mini' });
    expect(await failure(anthropic(limited.key).models.retrieve('claude-sonnet-4-5'))).toBeInstanceOf(
      Anthropic.NotFoundError,
    );
    expect(await failure(openai(limited.key).models.retrieve('claude-sonnet-4-5'))).toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const gemini = await fetch(`${base}/v1/models/claude-sonnet-4-5`, { headers: { 'x-goog-api-key': limited.key } });
    expect(gemini.status).toBe(404);
    expect(((await gemini.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
    expect((await openai(limited.key).models.retrieve('gpt-4o-mini')).id).toBe('gpt-4o-mini');
  });
});

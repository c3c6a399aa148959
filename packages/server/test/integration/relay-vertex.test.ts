import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter, lastLogOf } from '../support/gateway.js';
import { makeServiceAccount, startMockVertex, type MockVertex } from '../support/mock-vertex.js';

/**
 * Google Vertex AI channels (type 41, service-account JSON key, region text or JSON map) end to end: the
 * official Google, Anthropic and OpenAI SDKs through the running server to a mock Vertex whose token endpoint
 * verifies our RS256 JWT with the account's public key; Gemini and Claude routes; billing and logs exact.
 */
describe.each(dialects)('Vertex AI relay on %s', (dialect) => {
  let t: TestApp,
    mock: MockVertex,
    root: Client,
    user: Client,
    base: string,
    key: string,
    geminiChannel: number,
    claudeChannel: number;
  useGateway(dialect, { user: 'vertex-user', quota: 10_000_000, mock: startMockVertex }, async (gw) => {
    ({ t, mock, root, user, base, key } = gw);
    // One project for Gemini (plain-text region), one for Claude (JSON region map), one the mock does not trust.
    const gemini = makeServiceAccount('proj-gemini', mock.tokenUri);
    const claude = makeServiceAccount('proj-claude', mock.tokenUri);
    const stranger = makeServiceAccount('proj-stranger', mock.tokenUri);
    gw.mock.trust(gemini.clientEmail, gemini.publicKey);
    gw.mock.trust(claude.clientEmail, claude.publicKey);
    geminiChannel = await addChannel(root, {
      name: 'vertex-gemini',
      type: 41,
      key: gemini.keyText,
      baseUrl: mock.url,
      other: 'us-central1',
      models: 'gemini-2.5-flash,gpt-via-vertex',
      modelMapping: { 'gpt-via-vertex': 'gemini-2.5-flash' },
    });
    claudeChannel = await addChannel(root, {
      name: 'vertex-claude',
      type: 41,
      key: claude.keyText,
      baseUrl: mock.url,
      other: JSON.stringify({ default: 'us-central1', 'claude-sonnet-4-20250514': 'us-east5' }),
      models: 'claude-sonnet-4-20250514,gpt-via-vertex-claude',
      modelMapping: { 'gpt-via-vertex-claude': 'claude-sonnet-4-20250514' },
    });
    await addChannel(root, {
      name: 'vertex-stranger',
      type: 41,
      key: stranger.keyText,
      baseUrl: mock.url,
      other: 'europe-west4',
      models: 'gemini-untrusted',
    });
    await root.call('PUT', '/api/option/', {
      key: 'ModelRatio',
      value: JSON.stringify({
        'gemini-2.5-flash': 0.15,
        'gpt-via-vertex': 0.15,
        'claude-sonnet-4-20250514': 1.5,
        'gpt-via-vertex-claude': 1.5,
        'gemini-untrusted': 1,
      }),
    });
    await root.call('PUT', '/api/option/', {
      key: 'CompletionRatio',
      value: JSON.stringify({
        'gemini-2.5-flash': 8,
        'gpt-via-vertex': 8,
        'claude-sonnet-4-20250514': 5,
        'gpt-via-vertex-claude': 5,
      }),
    });
    mock.behaviors.set('proj-claude', { promptTokens: 20, completionTokens: 6 });
  });

  const lastLog = (model: string) => lastLogOf(t, model);
  const grantsFor = (project: string) =>
    mock.tokenGrants.filter((g) => g.iss === `relay@${project}.iam.gserviceaccount.com`).length;
  // Gemini: (12 + 5 × 8) × 0.15 = 7.8 → 8; Claude: (20 + 6 × 5) × 1.5 = 75.
  const GEMINI_QUOTA = 8;
  const CLAUDE_QUOTA = 75;

  it('refuses a region that starts like JSON but is not', async () => {
    const res = await root.call('POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'bad',
        type: 41,
        key: '{"project_id":"p"}',
        base_url: mock.url,
        other: '{nope',
        models: 'x',
        group: 'default',
      },
    });
    expect(res.body).toMatchObject({
      success: false,
      message: 'other: for type 41 the region must be plain text or a valid JSON object',
    });
  });

  it('Google GenAI SDK → Vertex Gemini, plain and streamed, one OAuth token for both', async () => {
    const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base } });
    const direct = await genai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' });
    expect(direct.text).toBe('Hello from the mock!');
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe(
      '/v1/projects/proj-gemini/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(sent.headers.authorization).toMatch(/^Bearer ya29\.mock-/);
    expect(sent.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    const log = await lastLog('gemini-2.5-flash');
    expect(log).toMatchObject({
      user_id: user.userId,
      channel_id: geminiChannel,
      quota: GEMINI_QUOTA,
      prompt_tokens: 12,
      completion_tokens: 5,
      is_stream: 0,
    });

    let streamed = '';
    for await (const chunk of await genai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' }))
      streamed += chunk.text ?? '';
    expect(streamed).toBe('Hello from the mock!');
    expect(mock.requests.at(-1)!.path).toBe(
      '/v1/projects/proj-gemini/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(await lastLog('gemini-2.5-flash')).toMatchObject({
      quota: GEMINI_QUOTA,
      completion_tokens: 5,
      is_stream: 1,
    });
    expect(grantsFor('proj-gemini')).toBe(1);
  });

  it('OpenAI SDK → Vertex Gemini (converted), streamed', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    let text = '';
    for await (const c of await openai.chat.completions.create({
      model: 'gpt-via-vertex',
      stream: true,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
    }))
      text += c.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Hello from the mock!');
    const sent = mock.requests.at(-1)!;
    expect(sent.model).toBe('gemini-2.5-flash');
    expect(sent.body).toMatchObject({
      systemInstruction: { parts: [{ text: 'be brief' }] },
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    });
    expect(await lastLog('gpt-via-vertex')).toMatchObject({
      quota: GEMINI_QUOTA,
      prompt_tokens: 12,
      completion_tokens: 5,
      is_stream: 1,
    });
    expect(grantsFor('proj-gemini')).toBe(1);
  });

  it('Anthropic SDK → Claude on Vertex (rawPredict / streamRawPredict) in the mapped region', async () => {
    const anthropic = new Anthropic({ apiKey: key, baseURL: base, maxRetries: 0 });
    const msg = await anthropic.messages.create({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(msg.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    const sent = mock.requests.at(-1)!;
    expect(sent.path).toBe(
      '/v1/projects/proj-claude/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict',
    );
    expect(sent.body).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(await lastLog('claude-sonnet-4-20250514')).toMatchObject({
      channel_id: claudeChannel,
      quota: CLAUDE_QUOTA,
      prompt_tokens: 20,
      completion_tokens: 6,
      is_stream: 0,
    });

    const final = await anthropic.messages
      .stream({ model: 'claude-sonnet-4-20250514', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .finalMessage();
    expect(final.content[0]).toMatchObject({ type: 'text', text: 'Hello from the mock!' });
    expect(final.usage.output_tokens).toBe(6);
    expect(mock.requests.at(-1)!.path).toBe(
      '/v1/projects/proj-claude/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict',
    );
    expect(await lastLog('claude-sonnet-4-20250514')).toMatchObject({
      quota: CLAUDE_QUOTA,
      completion_tokens: 6,
      is_stream: 1,
    });
    expect(grantsFor('proj-claude')).toBe(1);
  });

  it('OpenAI SDK → Claude on Vertex (converted), plain and streamed', async () => {
    const openai = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const res = await openai.chat.completions.create({
      model: 'gpt-via-vertex-claude',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.choices[0]!.message.content).toBe('Hello from the mock!');
    expect(mock.requests.at(-1)!.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 8192 });
    expect(mock.requests.at(-1)!.body.model).toBeUndefined();
    let text = '';
    for await (const c of await openai.chat.completions.create({
      model: 'gpt-via-vertex-claude',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    }))
      text += c.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Hello from the mock!');
    expect(await lastLog('gpt-via-vertex-claude')).toMatchObject({
      quota: CLAUDE_QUOTA,
      prompt_tokens: 20,
      completion_tokens: 6,
      is_stream: 1,
    });
  });

  it('the admin channel test fetches a token and calls the model like the relay', async () => {
    const ok = (await root.call('GET', `/api/channel/test/${claudeChannel}`)).body as unknown as {
      success: boolean;
      message: string;
    };
    expect(ok).toMatchObject({ success: true, message: 'test passed with claude-sonnet-4-20250514' });
    expect(mock.requests.at(-1)!).toMatchObject({
      project: 'proj-claude',
      region: 'us-east5',
      method: 'rawPredict',
      body: { anthropic_version: 'vertex-2023-10-16', max_tokens: 1 },
    });
    expect(grantsFor('proj-claude')).toBe(1);
  });

  it('a key whose JWT the token endpoint refuses fails the call with a clear message and no charge', async () => {
    const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base } });
    const err = (await genai.models
      .generateContent({ model: 'gemini-untrusted', contents: 'hi' })
      .catch((e: unknown) => e)) as Error;
    expect(err.message).toContain('Vertex AI token exchange failed: Invalid JWT Signature.');
    expect(mock.tokenRefusals).toContain('Invalid JWT Signature.');
    expect(mock.requests.some((r) => r.project === 'proj-stranger')).toBe(false);
    await drainWriter(t);
    const consumed = await t.database.db.kysely
      .selectFrom('logs')
      .select('id')
      .where('model_name', '=', 'gemini-untrusted')
      .where('type', '=', 2)
      .execute();
    expect(consumed).toEqual([]);
  });
});

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { countTokens } from 'gpt-tokenizer';
import OpenAI, { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { MOCK_TRANSCRIPT, mockSpeech } from '../support/mock-media.js';
import type { MockUpstream } from '../support/mock-upstream.js';

const PER_UNIT = 500_000;

/**
 * Images, audio and rerank through the generic relay with the official `openai` SDK against our mock upstream:
 * each call billed exactly (per image with size/quality factors, per 1K characters, per minute of audio, by
 * tokens) and logged; multipart uploads streamed from a spool, replayed on a retry, the model field mapped.
 */
describe.each(dialects)('media relay on %s', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, user: Client, sdk: OpenAI, base: string, key: string;
  useGateway(dialect, { user: 'media-user', quota: 10_000_000 }, async (gw) => {
    ({ t, mock, root, user, base, key } = gw);
    sdk = new OpenAI({ apiKey: key, baseURL: `${base}/v1`, maxRetries: 0 });
    const models =
      'dall-e-3,dall-e-2,my-dalle,gpt-image-1,tts-1,whisper-1,gpt-4o-transcribe,jina-reranker-v2,retry-edit';
    await addChannel(root, {
      name: 'media',
      key: 'media-key',
      baseUrl: mock.url,
      models,
      modelMapping: { 'my-dalle': 'dall-e-2', 'retry-edit': 'dall-e-2' },
    });
    await addChannel(root, {
      name: 'media-down',
      key: 'down-key',
      baseUrl: mock.url,
      models: 'retry-edit',
      priority: 10,
      modelMapping: { 'retry-edit': 'dall-e-2' },
    });
    await addChannel(root, {
      name: 'azure-media',
      key: 'az-key',
      baseUrl: mock.url,
      type: 3,
      models: 'dall-e-3-azure,tts-azure',
      modelMapping: { 'dall-e-3-azure': 'dall-e-3', 'tts-azure': 'tts-1' },
    });
    mock.behaviors.set('down-key', { failStatus: 500 });
    const set = (k: string, v: unknown) =>
      root.call('PUT', '/api/option/', { key: k, value: typeof v === 'string' ? v : JSON.stringify(v) });
    await set('ModelPrice', {
      'dall-e-3': 0.04,
      'dall-e-2': 0.02,
      'my-dalle': 0.02,
      'retry-edit': 0.02,
      'dall-e-3-azure': 0.04,
      'tts-azure': 0.015,
      'tts-1': 0.015,
      'whisper-1': 0.006,
    });
    await set('ModelRatio', { 'gpt-image-1': 2.5, 'gpt-4o-transcribe': 1.25, 'jina-reranker-v2': 0.5 });
    await set('CompletionRatio', { 'gpt-image-1': 4, 'gpt-4o-transcribe': 4 });
    await set('RetryTimes', '1');
  });

  const lastLog = async (model: string) => {
    await drainWriter(t);
    return t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('model_name', '=', model)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
  };
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

  it('images.generate is billed per image at the model price with OpenAI size/quality factors', async () => {
    const before = await quotaOf();
    const hd = await sdk.images.generate({
      model: 'dall-e-3',
      prompt: 'a lighthouse',
      size: '1792x1024',
      quality: 'hd',
    });
    expect(hd.data?.[0]?.url).toBe('https://images.example/dall-e-3/0.png');
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/v1/images/generations',
      key: 'media-key',
      body: { model: 'dall-e-3', size: '1792x1024', quality: 'hd' },
    });
    // HD 1792×1024 is 3× the standard 1024² price: 0.04 × 3 × 500000.
    expect(Number((await lastLog('dall-e-3')).quota)).toBe(60_000);
    const two = await sdk.images.generate({ model: 'dall-e-3', prompt: 'two boats', n: 2 });
    expect(two.data).toHaveLength(2);
    const log = await lastLog('dall-e-3');
    expect({ quota: Number(log.quota), stream: log.is_stream }).toEqual({ quota: 0.04 * 2 * PER_UNIT, stream: 0 });
    expect(JSON.parse(log.other)).toMatchObject({ model_price: 0.04, billed_units: 2 });
    expect(before - (await quotaOf())).toBe(60_000 + 40_000);
  });

  it('Azure channels get the deployment paths and api-key', async () => {
    await sdk.images.generate({ model: 'dall-e-3-azure', prompt: 'on azure', size: '1024x1792' });
    const image = mock.requests.at(-1)!;
    expect({ path: image.path, key: image.headers['api-key'], model: image.body.model }).toEqual({
      path: '/openai/deployments/dall-e-3/images/generations',
      key: 'az-key',
      model: 'dall-e-3',
    });
    expect(Number((await lastLog('dall-e-3-azure')).quota)).toBe(0.04 * 2 * PER_UNIT);
    const speech = await sdk.audio.speech.create({ model: 'tts-azure', voice: 'alloy', input: 'azure' });
    expect(Buffer.from(await speech.arrayBuffer()).equals(mockSpeech('azure'))).toBe(true);
    expect(mock.requests.at(-1)!.path).toBe('/openai/deployments/tts-1/audio/speech');
  });

  it('gpt-image-1 at a model ratio is billed by the tokens the upstream reports', async () => {
    const res = await sdk.images.generate({ model: 'gpt-image-1', prompt: 'a cat' });
    expect(res.usage).toMatchObject({ input_tokens: 50, output_tokens: 4150 });
    const log = await lastLog('gpt-image-1');
    // (50 + 4150 × 4) × 2.5
    expect({ quota: Number(log.quota), prompt: log.prompt_tokens, completion: log.completion_tokens }).toEqual({
      quota: 41_625,
      prompt: 50,
      completion: 4150,
    });
  });

  it('images.edit streams the file through, maps the model field, bills n × the 512² factor', async () => {
    const image = crypto.randomBytes(300_000);
    const res = await sdk.images.edit({
      model: 'my-dalle',
      image: await toFile(image, 'photo.png', { type: 'image/png' }),
      prompt: 'add a hat',
      n: 2,
      size: '512x512',
    });
    expect(res.data?.map((d) => Buffer.from(d.b64_json!, 'base64').toString())).toEqual(['edited-0', 'edited-1']);
    const upload = mock.uploads.at(-1)!;
    expect(upload.path).toBe('/v1/images/edits');
    expect(upload.fields).toMatchObject({ model: 'dall-e-2', prompt: 'add a hat', n: '2', size: '512x512' });
    expect(upload.files.image).toEqual({
      filename: 'photo.png',
      size: image.length,
      sha256: crypto.createHash('sha256').update(image).digest('hex'),
    });
    const log = await lastLog('my-dalle');
    // 0.02 × (2 images × 0.9 for 512²) × 500000
    expect(Number(log.quota)).toBe(18_000);
    expect(JSON.parse(log.other)).toMatchObject({
      is_model_mapped: true,
      upstream_model_name: 'dall-e-2',
      billed_units: 1.8,
    });
  });

  it('a multipart upload is sent again, whole, to the next channel when the first fails', async () => {
    const image = crypto.randomBytes(70_000);
    const before = mock.requests.length;
    await sdk.images.edit({
      model: 'retry-edit',
      image: await toFile(image, 'x.png', { type: 'image/png' }),
      prompt: 'retry me',
    });
    expect(mock.requests.slice(before).map((r) => r.key)).toEqual(['down-key', 'media-key']);
    expect(mock.uploads.at(-1)!.files.image!.sha256).toBe(crypto.createHash('sha256').update(image).digest('hex'));
    const log = await lastLog('retry-edit');
    expect(Number(log.quota)).toBe(0.02 * PER_UNIT);
    expect(JSON.parse(log.other).admin_info.use_channel).toHaveLength(2);
  });

  it('audio.speech streams the audio back, billed per 1K input characters', async () => {
    const input = 'Tollway speaks forty characters exactly.';
    expect(input).toHaveLength(40);
    const res = await sdk.audio.speech.create({ model: 'tts-1', voice: 'alloy', input });
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await res.arrayBuffer()).equals(mockSpeech(input))).toBe(true);
    const log = await lastLog('tts-1');
    // 0.015 per 1K characters: 0.015 × 40/1000 × 500000
    expect({ quota: Number(log.quota), prompt: log.prompt_tokens }).toEqual({ quota: 300, prompt: 40 });
    // The cost is known before the audio (its characters): the receipt is in the answer's head.
    expect(res.headers.get('x-tollway-cost-quota')).toBe('300');
    expect(res.headers.get('x-tollway-cost')).toMatch(/^0\.0006 USD$/);
  });

  it('transcriptions are billed per minute when the upstream reports the duration, by tokens when it reports tokens', async () => {
    const audio = crypto.randomBytes(120_000);
    const json = await sdk.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(audio, 'talk.mp3', { type: 'audio/mpeg' }),
    });
    expect(json.text).toBe(MOCK_TRANSCRIPT);
    expect(mock.uploads.at(-1)!.files.file!.size).toBe(audio.length);
    // 90 s = 1.5 minutes × 0.006 × 500000
    expect(Number((await lastLog('whisper-1')).quota)).toBe(4500);
    const verbose = await sdk.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(audio, 'talk.mp3'),
      response_format: 'verbose_json',
    });
    expect(verbose.duration).toBe(90);
    expect(Number((await lastLog('whisper-1')).quota)).toBe(4500);
    // Plain text is asked of the upstream as json: billed by the same duration (issue 31); the text's tokens are logged.
    const text = await sdk.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(audio, 'talk.mp3'),
      response_format: 'text',
    });
    expect(String(text).trim()).toBe(MOCK_TRANSCRIPT);
    expect(mock.uploads.at(-1)!.fields.response_format).toBe('json');
    const plain = await lastLog('whisper-1');
    expect({ quota: Number(plain.quota), completion: plain.completion_tokens }).toEqual({
      quota: 4500,
      completion: countTokens(MOCK_TRANSCRIPT),
    });

    await sdk.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file: await toFile(audio, 'talk.mp3') });
    const tokens = await lastLog('gpt-4o-transcribe');
    // (40 + 11 × 4) × 1.25
    expect({ quota: Number(tokens.quota), prompt: tokens.prompt_tokens, completion: tokens.completion_tokens }).toEqual(
      { quota: 105, prompt: 40, completion: 11 },
    );

    const events = await sdk.audio.transcriptions.create({
      model: 'gpt-4o-transcribe',
      file: await toFile(audio, 'talk.mp3'),
      stream: true,
    });
    const types: string[] = [];
    let done = '';
    for await (const e of events) {
      types.push(e.type);
      if (e.type === 'transcript.text.done') done = e.text;
    }
    expect(done).toBe(MOCK_TRANSCRIPT);
    expect(types.filter((x) => x === 'transcript.text.delta')).toHaveLength(MOCK_TRANSCRIPT.split(' ').length);
    const streamed = await lastLog('gpt-4o-transcribe');
    // (30 + 12 × 4) × 1.25 = 97.5 → 98
    expect({
      quota: Number(streamed.quota),
      prompt: streamed.prompt_tokens,
      completion: streamed.completion_tokens,
      stream: streamed.is_stream,
    }).toEqual({
      quota: 98,
      prompt: 30,
      completion: 12,
      stream: 1,
    });
  });

  it('translations: duration from verbose_json, else one call', async () => {
    const audio = crypto.randomBytes(10_000);
    const verbose = await sdk.audio.translations.create({
      model: 'whisper-1',
      file: await toFile(audio, 'de.mp3'),
      response_format: 'verbose_json',
    });
    expect(verbose.text).toBe(MOCK_TRANSCRIPT);
    expect(mock.uploads.at(-1)!.path).toBe('/v1/audio/translations');
    expect(Number((await lastLog('whisper-1')).quota)).toBe(4500);
    await sdk.audio.translations.create({ model: 'whisper-1', file: await toFile(audio, 'de.mp3') });
    expect(Number((await lastLog('whisper-1')).quota)).toBe(3000);
  });

  it('rerank passes through to {base}/v1/rerank, billed by the reported tokens', async () => {
    const res = await fetch(`${base}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'jina-reranker-v2',
        query: 'capital of France',
        documents: ['Paris is the capital', 'Berlin', { text: 'Rome' }],
        top_n: 2,
        return_documents: true,
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      results: { index: number; document?: { text: string } }[];
      usage: { total_tokens: number };
    };
    // The mock ranks the documents in reverse and reports its default 12 tokens.
    expect(body.results.map((r) => r.index)).toEqual([2, 1]);
    expect(body.results[0]!.document).toEqual({ text: 'Rome' });
    expect(body.usage.total_tokens).toBe(12);
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/v1/rerank',
      key: 'media-key',
      body: { model: 'jina-reranker-v2', top_n: 2, documents: ['Paris is the capital', 'Berlin', 'Rome'] },
    });
    const log = await lastLog('jina-reranker-v2');
    // 12 × 0.5
    expect({ quota: Number(log.quota), prompt: log.prompt_tokens }).toEqual({ quota: 6, prompt: 12 });
  });

  it('bad inputs answer OpenAI-shaped errors; stateful APIs answer 501', async () => {
    await expect(
      sdk.images.edit({ model: '', image: await toFile(Buffer.from('x'), 'a.png'), prompt: 'p' }),
    ).rejects.toMatchObject({
      status: 400,
      error: { code: 'missing_model' },
    });
    const broken = await fetch(`${base}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=abc' },
      body: '--abc\r\ncontent-disposition: form-data; name="model"\r\n\r\nwhisper-1',
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { message: string } }).error.message).toMatch(/closing boundary/);
    await expect(sdk.images.generate({ model: 'dall-e-3', prompt: 'x', n: 11 })).rejects.toMatchObject({ status: 400 });
    await expect(sdk.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: '' })).rejects.toMatchObject({
      status: 400,
    });
    const unauth = await fetch(`${base}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
      body: '--abc--',
    });
    expect(unauth.status).toBe(401);
    for (const path of ['/v1/files', '/v1/fine_tuning/jobs', '/v1/fine-tunes']) {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(501);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
        `${path.startsWith('/v1/fine_tuning') ? '/v1/fine_tuning' : path} is not supported by this gateway`,
      );
    }
    const plain = await fetch(`${base}/v1/realtime?model=x`, { headers: { authorization: `Bearer ${key}` } });
    expect(plain.status).toBe(400);
  });

  it('leaves no spooled upload behind once the calls are over', async () => {
    const spools = () => fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('tollway-upload-'));
    for (let i = 0; i < 40 && spools().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(spools()).toEqual([]);
  });
});

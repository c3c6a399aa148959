import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import type { TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { pollVideoUntilFinal, taskRefundLogs, type Video } from '../support/video-tasks.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter } from '../support/gateway.js';
import {
  MOCK_KLING_KEY,
  MOCK_OPENAI_VIDEO_KEY,
  MOCK_VIDEO_BYTES,
  startMockVideo,
  type MockVideo,
} from '../support/mock-video.js';

const PER_UNIT = 500_000;
const PRICES = { 'kling-v1': 0.5, 'sora-2': 0.4, 'sora-openai': 0.3, 'sora-prefixed': 0.2 };
const MAX_PASSES = 10;
/** The gateway's body limit in this suite (MAX_REQUEST_BODY_MB): a larger multipart submit is a 413. */
const BODY_LIMIT_MB = 12;
const MB = 1024 * 1024;
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('mock reference image')]);

/**
 * Video generation as new-api serves it (`/v1/video/generations`, `/v1/videos`) against a mock Kling (JWT checked)
 * and a mock OpenAI videos API, reached through a Sora channel and through an OpenAI channel: charged per model,
 * polled to completion, the result shown and served; failures refunded once; bad input and foreign tasks refused.
 */
describe.each(dialects)('video task relay on %s', (dialect) => {
  const gw = useGateway<MockVideo>(
    dialect,
    {
      user: 'video-user',
      quota: 10_000_000,
      users: ['video-other'],
      mock: startMockVideo,
      env: { MAX_REQUEST_BODY_MB: String(BODY_LIMIT_MB) },
    },
    async (g) => {
      await addChannel(g.root, {
        name: 'kling',
        key: MOCK_KLING_KEY,
        baseUrl: g.mock.url,
        models: 'kling-v1',
        type: ChannelType.Kling,
      });
      await addChannel(g.root, {
        name: 'sora',
        key: MOCK_OPENAI_VIDEO_KEY,
        baseUrl: g.mock.url,
        models: 'sora-2',
        type: ChannelType.Sora,
      });
      await addChannel(g.root, {
        name: 'openai',
        key: MOCK_OPENAI_VIDEO_KEY,
        baseUrl: g.mock.url,
        models: 'sora-openai',
        modelMapping: { 'sora-openai': 'sora-2' },
      });
      // A chained mapping and a prefix: the upstream is asked for acme/sora-2.
      await addChannel(g.root, {
        name: 'prefixed',
        key: MOCK_OPENAI_VIDEO_KEY,
        baseUrl: g.mock.url,
        models: 'sora-prefixed',
        modelMapping: { 'sora-prefixed': 'sora-mid', 'sora-mid': 'sora-2' },
        modelPrefix: 'acme/',
      });
      await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify(PRICES) });
    },
  );

  const call = async (method: string, path: string, body?: unknown, key = gw.key) => {
    const res = await fetch(`${gw.base}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const type = res.headers.get('content-type') ?? '';
    const raw = Buffer.from(await res.arrayBuffer());
    expectNoUpstreamId(
      `${method} ${path}`,
      `${res.headers.get('location') ?? ''} ${type.includes('json') ? raw.toString('utf8') : ''}`,
    );
    return {
      status: res.status,
      headers: res.headers,
      body: (type.includes('json') ? JSON.parse(raw.toString('utf8')) : raw) as Record<string, unknown>,
    };
  };
  /** Callers see public task ids only: no answer carries an id the upstream gave (Kling's bare id included). */
  const expectNoUpstreamId = (label: string, text: string) => {
    for (const upstreamId of gw.mock.tasks.keys()) expect(text, label).not.toContain(upstreamId);
  };
  const t = (): TestApp => gw.t;
  const quota = async () => {
    await drainWriter(t());
    return Number(
      (
        await t()
          .database.db.kysely.selectFrom('users')
          .select('quota')
          .where('id', '=', gw.user.userId!)
          .executeTakeFirstOrThrow()
      ).quota,
    );
  };
  const pollUntilFinal = (id: string) =>
    pollVideoUntilFinal(t(), async () => (await call('GET', `/v1/videos/${id}`)).body as unknown as Video);
  const refundsOf = (id: string) => taskRefundLogs(t(), gw.user.userId!, id);

  it('Kling: /v1/video/generations submits with a signed JWT, is charged, polled to completed, and its video served', async () => {
    const before = await quota();
    const res = await call('POST', '/v1/video/generations', {
      model: 'kling-v1',
      prompt: 'a fox in the snow',
      size: '1280x720',
      duration: 5,
    });
    expect(res).toMatchObject({
      status: 200,
      body: { object: 'video', model: 'kling-v1', status: 'queued', progress: 0 },
    });
    const id = res.body.id as string;
    expect(id).toMatch(/^task_[\w-]{20,}$/);
    expect(before - (await quota())).toBe(PRICES['kling-v1'] * PER_UNIT);
    expect(gw.mock.submits.at(-1)).toMatchObject({
      vendor: 'kling',
      path: '/v1/videos/text2video',
      body: { model_name: 'kling-v1', aspect_ratio: '16:9', duration: '5' },
    });
    expect(gw.mock.jwtPayloads.length).toBeGreaterThan(0);
    const done = await pollUntilFinal(id);
    expect(done).toMatchObject({
      id,
      status: 'completed',
      progress: 100,
      metadata: { url: expect.stringContaining('.mp4') },
    });
    expect(gw.mock.badAuth).toBe(0);
    const legacy = await call('GET', `/v1/video/generations/${id}`);
    expect(legacy.body).toMatchObject({
      code: 'success',
      data: { task_id: id, platform: 'kling', status: 'SUCCESS', progress: '100%', result_url: done.metadata!.url },
    });
    const content = await call('GET', `/v1/videos/${id}/content`);
    expect(content.status).toBe(302);
    expect(content.headers.get('location')).toBe(done.metadata!.url);
    expect(before - (await quota())).toBe(PRICES['kling-v1'] * PER_UNIT);
  });

  it('OpenAI-compatible: /v1/videos through a Sora channel and an OpenAI channel, content streamed from the upstream', async () => {
    for (const model of ['sora-2', 'sora-openai'] as const) {
      const before = await quota();
      const res = await call('POST', '/v1/videos', { model, prompt: 'ocean waves', seconds: '4', size: '720x1280' });
      expect(res.status).toBe(200);
      expect(before - (await quota())).toBe(PRICES[model] * PER_UNIT);
      expect(gw.mock.submits.at(-1)).toMatchObject({
        vendor: 'openai',
        body: { model: 'sora-2', prompt: 'ocean waves', seconds: '4' },
      });
      const id = res.body.id as string;
      if (model === 'sora-2') {
        // OpenAI's SDKs send multipart forms: their text fields are accepted the same.
        const form = new FormData();
        for (const [k, v] of Object.entries({ model, prompt: 'ocean waves', seconds: '4' })) form.set(k, v);
        const multi = await fetch(`${gw.base}/v1/videos`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gw.key}` },
          body: form,
        });
        expect(multi.status).toBe(200);
        expect(gw.mock.submits.at(-1)).toMatchObject({
          vendor: 'openai',
          body: { model: 'sora-2', prompt: 'ocean waves', seconds: '4' },
        });
      }
      const notYet = await call('GET', `/v1/videos/${id}/content`);
      expect(notYet).toMatchObject({ status: 400, body: { error: { code: 'video_not_ready' } } });
      expect(await pollUntilFinal(id)).toMatchObject({ status: 'completed', model, progress: 100 });
      // The upstream names no start: the first poll that found it running (or done) is recorded as its start.
      const times = await t()
        .database.db.kysely.selectFrom('tasks')
        .select(['submit_time', 'start_time', 'finish_time'])
        .where('task_id', '=', id)
        .executeTakeFirstOrThrow();
      expect(Number(times.start_time)).toBeGreaterThanOrEqual(Number(times.submit_time));
      expect(Number(times.start_time)).toBeLessThanOrEqual(Number(times.finish_time));
      expect(Number(times.start_time)).toBeGreaterThan(0);
      const content = await call('GET', `/v1/videos/${id}/content`);
      expect(content.status).toBe(200);
      expect(Buffer.compare(content.body as unknown as Buffer, MOCK_VIDEO_BYTES)).toBe(0);
    }
  });

  it("a task goes upstream under the channel's chained mapping and model prefix, billed and shown under the caller's model", async () => {
    const before = await quota();
    const res = await call('POST', '/v1/videos', {
      model: 'sora-prefixed',
      prompt: 'prefixed waves',
      seconds: '4',
      size: '720x1280',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'video', model: 'sora-prefixed' });
    expect(gw.mock.submits.at(-1)).toMatchObject({
      vendor: 'openai',
      body: { model: 'acme/sora-2', prompt: 'prefixed waves' },
    });
    expect(before - (await quota())).toBe(PRICES['sora-prefixed'] * PER_UNIT);
  });

  it('failed tasks are refunded exactly once; a refused submit is not charged', async () => {
    for (const model of ['kling-v1', 'sora-2']) {
      const before = await quota();
      const id = (await call('POST', '/v1/videos', { model, prompt: 'this will fail' })).body.id as string;
      const v = await pollUntilFinal(id);
      expect(v).toMatchObject({ status: 'failed', error: { message: expect.stringContaining('mock') } });
      for (let i = 0; i < 2; i++) await t().runtime.taskPoller.job.runOnce();
      expect(await quota()).toBe(before);
      expect(await refundsOf(id)).toHaveLength(1);
    }
    const before = await quota();
    const refused = await call('POST', '/v1/video/generations', { model: 'kling-v1', prompt: 'refuse this' });
    expect(refused).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('content security') } },
    });
    expect(await quota()).toBe(before);
  });

  it('bad input is a 4xx in the OpenAI shape, never a 5xx', async () => {
    const cases: [string, unknown, number, string][] = [
      ['/v1/videos', { prompt: 'no model' }, 400, 'model is required'],
      ['/v1/videos', { model: 'kling-v1' }, 400, 'field prompt is required'],
      ['/v1/video/generations', '{oops', 400, 'malformed JSON'],
      ['/v1/video/generations', { model: 'kling-v1', prompt: 'x', duration: 999 }, 400, 'duration'],
      ['/v1/videos', { model: 'no-such-video-model', prompt: 'x' }, 404, 'no-such-video-model'],
    ];
    for (const [path, body, status, message] of cases) {
      const res = await call('POST', path, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((res.body.error as { message: string }).message).toContain(message);
    }
    // Multipart: only an input_reference file, only one, a well-formed body within the limit.
    const post = (form: FormData | string, type?: string) =>
      fetch(`${gw.base}/v1/videos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, ...(type ? { 'content-type': type } : {}) },
        body: form,
      });
    const formOf = (files: [string, Buffer][], model = 'sora-2') => {
      const form = new FormData();
      form.set('model', model);
      form.set('prompt', 'x');
      for (const [name, bytes] of files)
        form.append(name, new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'a.png');
      return form;
    };
    const submitsBefore = gw.mock.submits.length;
    const multipartCases: [FormData | string, string | undefined, number, Record<string, unknown>][] = [
      [formOf([['image', PNG]]), undefined, 400, { param: 'image', code: 'unsupported_parameter' }],
      [
        formOf([
          ['input_reference', PNG],
          ['input_reference', PNG],
        ]),
        undefined,
        400,
        { param: 'input_reference', code: 'unsupported_parameter' },
      ],
      ['--x\r\nnonsense', 'multipart/form-data; boundary=x', 400, { type: 'invalid_request_error' }],
      [
        '--x\r\ncontent-disposition: form-data; name="model"\r\n\r\nsora-2\r\n--x--\r\n',
        'multipart/form-data',
        400,
        { type: 'invalid_request_error' },
      ],
      [
        formOf([['input_reference', Buffer.alloc(11 * MB)]], 'kling-v1'),
        undefined,
        400,
        { param: 'input_reference', code: 'file_too_large' },
      ],
      [
        formOf([['input_reference', Buffer.alloc((BODY_LIMIT_MB + 1) * MB)]]),
        undefined,
        413,
        { type: 'invalid_request_error' },
      ],
    ];
    for (const [body, type, status, error] of multipartCases) {
      const res = await post(body, type);
      expect(res.status, JSON.stringify(error)).toBe(status);
      expect(await res.json()).toMatchObject({ error });
    }
    expect(gw.mock.submits.length).toBe(submitsBefore);
    const badKey = await call('GET', '/v1/videos/task_x', undefined, 'sk-wrong');
    expect(badKey).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
  });

  it('the openai SDK: create with an input_reference file (streamed upstream as a form, model mapped), retrieve, download, remix', async () => {
    const client = new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
    const before = await quota();
    const created = await client.videos.create({
      model: 'sora-openai' as never,
      prompt: 'a lighthouse at dusk',
      seconds: '4',
      input_reference: await toFile(PNG, 'ref.png', { type: 'image/png' }),
    });
    expect(created).toMatchObject({
      object: 'video',
      model: 'sora-openai',
      status: 'queued',
      seconds: '4',
      id: expect.stringMatching(/^task_/),
    });
    expectNoUpstreamId('create', JSON.stringify(created));
    expect(before - (await quota())).toBe(PRICES['sora-openai'] * PER_UNIT);
    const sent = gw.mock.submits.at(-1)!;
    expect(sent.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(sent.body).toMatchObject({ model: 'sora-2', prompt: 'a lighthouse at dusk', seconds: '4' });
    expect(sent.files).toHaveLength(1);
    expect(sent.files![0]).toMatchObject({ field: 'input_reference', filename: 'ref.png', type: 'image/png' });
    expect(Buffer.compare(sent.files![0]!.bytes, PNG)).toBe(0);

    // A remix of an unfinished video is refused before anything is sent or charged.
    await expect(client.videos.remix(created.id, { prompt: 'too soon' })).rejects.toMatchObject({
      status: 400,
      code: 'video_not_ready',
    });
    let v = await client.videos.retrieve(created.id);
    for (let i = 0; i < MAX_PASSES && v.status !== 'completed'; i++) {
      await t().runtime.taskPoller.job.runOnce();
      v = await client.videos.retrieve(created.id);
    }
    expect(v).toMatchObject({ id: created.id, status: 'completed', progress: 100 });
    expectNoUpstreamId('retrieve', JSON.stringify(v));
    const bytes = Buffer.from(await (await client.videos.downloadContent(created.id)).arrayBuffer());
    expect(Buffer.compare(bytes, MOCK_VIDEO_BYTES)).toBe(0);

    const mid = await quota();
    const remixed = await client.videos.remix(created.id, { prompt: 'the same lighthouse in a storm' });
    expect(remixed).toMatchObject({
      object: 'video',
      model: 'sora-openai',
      status: 'queued',
      remixed_from_video_id: created.id,
      seconds: '4',
    });
    expect(remixed.id).not.toBe(created.id);
    expectNoUpstreamId('remix', JSON.stringify(remixed));
    expect(mid - (await quota())).toBe(PRICES['sora-openai'] * PER_UNIT);
    const origin = [...gw.mock.tasks.values()].find((x) => x.prompt === 'a lighthouse at dusk')!;
    expect(gw.mock.submits.at(-1)).toMatchObject({
      vendor: 'openai',
      path: `/v1/videos/${origin.id}/remix`,
      body: { prompt: 'the same lighthouse in a storm' },
    });
    const row = await t()
      .database.db.kysely.selectFrom('tasks')
      .select(['channel_id', 'action'])
      .where('model_name', '=', 'sora-openai')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    const originRow = await t()
      .database.db.kysely.selectFrom('tasks')
      .select(['channel_id'])
      .where('model_name', '=', 'sora-openai')
      .orderBy('id', 'asc')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ channel_id: originRow.channel_id, action: 'remixGenerate' });
    expect(await pollUntilFinal(remixed.id)).toMatchObject({ status: 'completed', remixed_from_video_id: created.id });
  });

  it('Kling: an input_reference file is sent inline as the image (image to video); Kling videos are not remixed', async () => {
    const form = new FormData();
    form.set('model', 'kling-v1');
    form.set('prompt', 'a kite');
    form.set('input_reference', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'kite.png');
    const res = await fetch(`${gw.base}/v1/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}` },
      body: form,
    });
    expect(res.status).toBe(200);
    const id = ((await res.json()) as Video).id;
    expect(gw.mock.submits.at(-1)).toMatchObject({
      vendor: 'kling',
      path: '/v1/videos/image2video',
      body: { image: PNG.toString('base64'), prompt: 'a kite' },
    });
    expect(await pollUntilFinal(id)).toMatchObject({ status: 'completed' });
    const before = await quota();
    const remix = await call('POST', `/v1/videos/${id}/remix`, { prompt: 'again' });
    expect(remix).toMatchObject({ status: 400, body: { error: { code: 'unsupported_operation' } } });
    for (const bad of ['{oops', { prompt: '' }, { prompt: 7 }]) {
      const r = await call('POST', `/v1/videos/${id}/remix`, bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    expect(await quota()).toBe(before);
  });

  it("a caller cannot fetch another user's task", async () => {
    const otherKey = (await addToken(t(), gw.users[0]!.userId!)).key;
    const id = (await call('POST', '/v1/videos', { model: 'sora-2', prompt: 'mine' })).body.id as string;
    for (const path of [
      `/v1/videos/${id}`,
      `/v1/video/generations/${id}`,
      `/v1/videos/${id}/content`,
      `/v1/videos/${id}/remix`,
    ]) {
      const res = await call(
        path.endsWith('remix') ? 'POST' : 'GET',
        path,
        path.endsWith('remix') ? { prompt: 'theirs' } : undefined,
        otherKey,
      );
      expect(res, path).toMatchObject({ status: 404, body: { error: { code: 'task_not_exist' } } });
    }
    expect((await call('GET', `/v1/videos/${id}`)).status).toBe(200);
  });

  it('the console plays a video with its session: the owner and administrators get it, another user and a call without New-Api-User do not', async () => {
    const id = (await call('POST', '/v1/videos', { model: 'sora-2', prompt: 'for the console' })).body.id as string;
    expect(await pollUntilFinal(id)).toMatchObject({ status: 'completed' });
    const path = `/v1/videos/${id}/content`;
    const owner = await gw.user.call('GET', path);
    expect(owner.status).toBe(200);
    expect(Buffer.compare(owner.raw.rawPayload, MOCK_VIDEO_BYTES)).toBe(0);
    expect((await gw.root.call('GET', path)).status).toBe(200);
    expect(await gw.users[0]!.call('GET', path)).toMatchObject({
      status: 404,
      body: { error: { code: 'task_not_exist' } },
    });
    const noHeader = await gw.user.call('GET', path, undefined, { 'new-api-user': '' });
    expect(noHeader.status).toBe(401);
    expect(noHeader.body).toMatchObject({ error: { type: 'invalid_request_error' } });
  });
});

import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { pollVideoUntilFinal, taskRefundLogs, type Video } from '../support/video-tasks.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, userQuota } from '../support/gateway.js';
import { MOCK_DOUBAO_KEY, startMockDoubaoVideo, type MockDoubaoVideo } from '../support/mock-doubao-video.js';
import { MOCK_JIMENG_AK, MOCK_JIMENG_KEY, startMockJimeng, type MockJimeng } from '../support/mock-jimeng.js';
import { MOCK_VIDU_KEY, startMockVidu, type MockVidu } from '../support/mock-vidu.js';

const PER_UNIT = 500_000;
const JIMENG = 'jimeng_vgfm_t2v_l20';
const VIDU = 'viduq1';
const DOUBAO = 'doubao-seedance-1-0-pro-250528';
const PRICES = {
  [JIMENG]: 0.6,
  jimeng_v30: 0.7,
  [VIDU]: 0.35,
  [DOUBAO]: 0.45,
  'jimeng-badkey': 0.1,
  'vidu-badkey': 0.1,
  'doubao-badkey': 0.1,
};
const MAX_PASSES = 10;

interface Mocks {
  jimeng: MockJimeng;
  vidu: MockVidu;
  doubao: MockDoubaoVideo;
  close(): Promise<void>;
}

async function startMocks(): Promise<Mocks> {
  const [jimeng, vidu, doubao] = await Promise.all([startMockJimeng(), startMockVidu(), startMockDoubaoVideo()]);
  return {
    jimeng,
    vidu,
    doubao,
    close: async () => void (await Promise.all([jimeng.close(), vidu.close(), doubao.close()])),
  };
}

/**
 * The native video vendors beside Kling — Jimeng (signed Volcengine requests), Vidu and Doubao Seedance — served on
 * new-api's routes (`/v1/video/generations`, `/v1/videos`): charged the model's per-call price, polled to completion,
 * the video's URL shown and redirected to; failures refunded once; refusals and bad channel keys never charged.
 */
describe.each(dialects)('video vendors (Jimeng, Vidu, Doubao) on %s', (dialect) => {
  const gw = useGateway<Mocks>(
    dialect,
    { user: 'vendor-video-user', quota: 10_000_000, mock: startMocks },
    async (g) => {
      const channel = (
        name: string,
        type: number,
        key: string,
        baseUrl: string,
        models: string,
        mapping?: Record<string, string>,
      ) => addChannel(g.root, { name, type, key, baseUrl, models, ...(mapping ? { modelMapping: mapping } : {}) });
      await channel('jimeng', ChannelType.Jimeng, MOCK_JIMENG_KEY, g.mock.jimeng.url, `${JIMENG},jimeng_v30`);
      await channel('vidu', ChannelType.Vidu, MOCK_VIDU_KEY, g.mock.vidu.url, VIDU);
      await channel('doubao', ChannelType.DoubaoVideo, MOCK_DOUBAO_KEY, g.mock.doubao.url, DOUBAO);
      // Channels whose keys the vendors refuse (a Jimeng secret that signs wrong, unknown tokens).
      await channel(
        'jimeng-bad',
        ChannelType.Jimeng,
        `${MOCK_JIMENG_AK}|not-the-secret`,
        g.mock.jimeng.url,
        'jimeng-badkey',
        {
          'jimeng-badkey': JIMENG,
        },
      );
      await channel('vidu-bad', ChannelType.Vidu, 'vda_wrong', g.mock.vidu.url, 'vidu-badkey', { 'vidu-badkey': VIDU });
      await channel('doubao-bad', ChannelType.DoubaoVideo, 'ark-wrong', g.mock.doubao.url, 'doubao-badkey', {
        'doubao-badkey': DOUBAO,
      });
      await g.root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify(PRICES) });
    },
  );

  const t = (): TestApp => gw.t;
  const call = async (method: string, path: string, body?: unknown, key = gw.key) => {
    const res = await fetch(`${gw.base}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
    };
  };
  const quota = () => userQuota(t(), gw.user.userId!);
  const pollUntilFinal = (id: string) =>
    pollVideoUntilFinal(t(), async () => (await call('GET', `/v1/videos/${id}`)).body as unknown as Video);
  const refundsOf = (id: string) => taskRefundLogs(t(), gw.user.userId!, id);

  const vendors = [
    {
      name: 'jimeng',
      model: JIMENG,
      upstreamIds: () => [...gw.mock.jimeng.tasks.keys()],
      lastSubmit: () => gw.mock.jimeng.submits.at(-1),
      expectedBody: { req_key: JIMENG, prompt: 'a crane over the lake', frames: 241, aspect_ratio: '9:16', seed: -1 },
      url: /^https:\/\/cdn\.mock-jimeng\.test\/\d+\.mp4$/,
    },
    {
      name: 'vidu',
      model: VIDU,
      upstreamIds: () => [...gw.mock.vidu.tasks.keys()],
      lastSubmit: () => gw.mock.vidu.submits.at(-1),
      expectedBody: {
        path: '/ent/v2/text2video',
        body: {
          model: VIDU,
          prompt: 'a crane over the lake',
          duration: 10,
          resolution: '720x1280',
          movement_amplitude: 'auto',
        },
      },
      url: /^https:\/\/cdn\.mock-vidu\.test\/\d+\.mp4$/,
    },
    {
      name: 'doubao',
      model: DOUBAO,
      upstreamIds: () => [...gw.mock.doubao.tasks.keys()],
      lastSubmit: () => gw.mock.doubao.submits.at(-1),
      expectedBody: { model: DOUBAO, duration: 10, content: [{ type: 'text', text: 'a crane over the lake' }] },
      url: /^https:\/\/ark-content\.mock-doubao\.test\/cgt-[0-9a-f]+\.mp4$/,
    },
  ] as const;

  it.each(vendors)(
    '$name: submitted, charged its price, polled to completed, its video shown and redirected to',
    async (v) => {
      const before = await quota();
      const res = await call('POST', '/v1/video/generations', {
        model: v.model,
        prompt: 'a crane over the lake',
        size: '720x1280',
        duration: 10,
      });
      expect(res).toMatchObject({ status: 200, body: { object: 'video', model: v.model, status: 'queued' } });
      const id = res.body.id as string;
      expect(id).toMatch(/^task_[\w-]{20,}$/);
      // Callers see the public id only.
      for (const up of v.upstreamIds()) expect(JSON.stringify(res.body)).not.toContain(up);
      expect(before - (await quota())).toBe(PRICES[v.model] * PER_UNIT);
      expect(v.lastSubmit()).toMatchObject(v.expectedBody);
      const done = await pollUntilFinal(id);
      expect(done).toMatchObject({
        id,
        status: 'completed',
        progress: 100,
        metadata: { url: expect.stringMatching(v.url) },
      });
      const legacy = await call('GET', `/v1/video/generations/${id}`);
      expect(legacy.body).toMatchObject({
        code: 'success',
        data: { task_id: id, platform: v.name, status: 'SUCCESS', progress: '100%', result_url: done.metadata!.url },
      });
      const content = await call('GET', `/v1/videos/${id}/content`);
      expect(content.status).toBe(302);
      expect(content.headers.get('location')).toBe(done.metadata!.url);
      expect(before - (await quota())).toBe(PRICES[v.model] * PER_UNIT);
    },
  );

  it('Jimeng signs every call (the mock checks each signature); a Jimeng 3.0 model with an image takes its image-to-video req_key, polled under it', async () => {
    expect(gw.mock.jimeng.badSignature).toBe(0);
    expect(gw.mock.jimeng.signed.length).toBeGreaterThan(1);
    expect(gw.mock.jimeng.signed.at(-1)!.signedHeaders).toBe('content-type;host;x-content-sha256;x-date');
    const res = await call('POST', '/v1/videos', {
      model: 'jimeng_v30',
      prompt: 'a paper boat',
      images: ['https://img.example/boat.png'],
    });
    expect(res.status).toBe(200);
    expect(gw.mock.jimeng.submits.at(-1)).toMatchObject({
      req_key: 'jimeng_i2v_first_v30',
      image_urls: ['https://img.example/boat.png'],
      frames: 121,
    });
    expect(await pollUntilFinal(res.body.id as string)).toMatchObject({ status: 'completed' });
    expect(gw.mock.jimeng.badSignature).toBe(0);
  });

  it('Vidu picks its endpoint by the images (first and last frame → start-end2video); Doubao sends images as content items', async () => {
    const vidu = await call('POST', '/v1/video/generations', {
      model: VIDU,
      prompt: 'sunrise to sunset',
      images: ['https://img.example/a.png', 'https://img.example/b.png'],
    });
    expect(vidu.status).toBe(200);
    expect(gw.mock.vidu.submits.at(-1)).toMatchObject({
      path: '/ent/v2/start-end2video',
      body: { images: ['https://img.example/a.png', 'https://img.example/b.png'], duration: 5, resolution: '1080p' },
    });
    const row = await t()
      .database.db.kysely.selectFrom('tasks')
      .select(['action', 'platform'])
      .where('task_id', '=', vidu.body.id as string)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ action: 'firstTailGenerate', platform: 'vidu' });
    const doubao = await call('POST', '/v1/video/generations', {
      model: DOUBAO,
      prompt: 'a bridge',
      image: 'https://img.example/bridge.png',
      metadata: { resolution: '720p', ratio: 'adaptive' },
    });
    expect(doubao.status).toBe(200);
    expect(gw.mock.doubao.submits.at(-1)).toEqual({
      model: DOUBAO,
      resolution: '720p',
      ratio: 'adaptive',
      content: [
        { type: 'image_url', image_url: { url: 'https://img.example/bridge.png' } },
        { type: 'text', text: 'a bridge' },
      ],
    });
  });

  it.each(vendors)('$name: a failed task is refunded exactly once; a refused submit is not charged', async (v) => {
    const before = await quota();
    const id = (await call('POST', '/v1/videos', { model: v.model, prompt: 'this will fail' })).body.id as string;
    expect(before - (await quota())).toBe(PRICES[v.model] * PER_UNIT);
    const done = await pollUntilFinal(id);
    expect(done).toMatchObject({ status: 'failed', error: { message: expect.any(String) } });
    for (let i = 0; i < 2; i++) await t().runtime.taskPoller.job.runOnce();
    expect(await quota()).toBe(before);
    const refunds = await refundsOf(id);
    expect(refunds).toHaveLength(1);
    expect(Number(refunds[0]!.quota)).toBe(PRICES[v.model] * PER_UNIT);
    const refused = await call('POST', '/v1/video/generations', { model: v.model, prompt: 'refuse this' });
    expect(refused).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringMatching(/Risk|refused|sensitive/) } },
    });
    expect(await quota()).toBe(before);
  });

  it('a channel key the vendor refuses (a wrong Jimeng secret, unknown tokens) fails the submit, uncharged; a wrong caller key is refused', async () => {
    const before = await quota();
    const counts = () => [gw.mock.jimeng.badSignature, gw.mock.vidu.badAuth, gw.mock.doubao.badAuth];
    const [sig, vidu, doubao] = counts();
    for (const model of ['jimeng-badkey', 'vidu-badkey', 'doubao-badkey']) {
      const res = await call('POST', '/v1/video/generations', { model, prompt: 'a quiet street' });
      expect(res.status, model).toBe(401);
      expect((res.body.error as { message: string }).message, model).toMatch(/Signature|invalid/);
    }
    expect(counts()).toEqual([sig! + 1, vidu! + 1, doubao! + 1]);
    expect(await quota()).toBe(before);
    const wrong = await call('POST', '/v1/videos', { model: VIDU, prompt: 'x' }, 'sk-wrong');
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
  });

  it.each(vendors)('$name: the openai SDK creates a video, charged once, and retrieves it to completed', async (v) => {
    const client = new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 });
    const before = await quota();
    const submits = v.upstreamIds().length;
    const created = await client.videos.create({ model: v.model as never, prompt: 'a red kite', seconds: '8' });
    expect(created).toMatchObject({ object: 'video', status: 'queued', model: v.model });
    expect(v.upstreamIds()).toHaveLength(submits + 1);
    expect(before - (await quota())).toBe(PRICES[v.model] * PER_UNIT);
    let got = await client.videos.retrieve(created.id);
    for (let i = 0; i < MAX_PASSES && got.status !== 'completed'; i++) {
      await t().runtime.taskPoller.job.runOnce();
      got = await client.videos.retrieve(created.id);
    }
    expect(got).toMatchObject({ id: created.id, status: 'completed', progress: 100 });
    expect(before - (await quota())).toBe(PRICES[v.model] * PER_UNIT);
  });
});

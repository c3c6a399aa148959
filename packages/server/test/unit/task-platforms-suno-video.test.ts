import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CachedChannel } from '../../src/core/routing/channel-cache.js';
import { sunoPlatform } from '../../src/relay/tasks/suno/platform.js';
import { parseSunoFetchIds, parseSunoSubmit, SunoError } from '../../src/relay/tasks/suno/wire.js';
import { klingJwt, klingKeys } from '../../src/relay/tasks/video/kling.js';
import { klingPlatform, openAIVideoPlatform } from '../../src/relay/tasks/video/platform.js';
import { openAIVideo, parseVideoSubmit } from '../../src/relay/tasks/video/wire.js';
import type { TaskPlatform, TaskState } from '../../src/relay/tasks/types.js';
import { MOCK_SUNO_KEY, startMockSuno, type MockSuno } from '../support/mock-suno.js';
import {
  MOCK_KLING_AK,
  MOCK_KLING_GATEWAY_KEY,
  MOCK_KLING_KEY,
  MOCK_OPENAI_VIDEO_KEY,
  startMockVideo,
  type MockVideo,
} from '../support/mock-video.js';

const channel = {} as CachedChannel;
let suno: MockSuno;
let video: MockVideo;

beforeAll(async () => {
  [suno, video] = await Promise.all([startMockSuno(), startMockVideo()]);
});
afterAll(async () => {
  await Promise.all([suno.close(), video.close()]);
});

/** Polls one task until it is final (or `max` polls), returning every state seen. */
async function pollAll(p: TaskPlatform, baseUrl: string, key: string, id: string, max = 6): Promise<TaskState[]> {
  const seen: TaskState[] = [];
  for (let i = 0; i < max; i++) {
    const [s] = await p.fetchTasks({ channel, key, baseUrl }, [id]);
    seen.push(s!);
    if (s!.status === 'SUCCESS' || s!.status === 'FAILURE') break;
  }
  return seen;
}

async function submitted(
  p: TaskPlatform,
  baseUrl: string,
  key: string,
  action: string,
  model: string,
  body: Record<string, unknown>,
): Promise<string> {
  const r = await p.submit({ channel, key, baseUrl, action, model, body });
  if (!r.ok) throw new Error(`refused: ${r.message}`);
  return r.upstreamTaskId;
}

describe('suno platform', () => {
  it('submits music and follows it to SUCCESS with the clips', async () => {
    const body = parseSunoSubmit('MUSIC', { prompt: 'a song about cats', tags: 'pop' });
    expect(body.mv).toBe('chirp-v3-0');
    const id = await submitted(
      sunoPlatform,
      suno.url,
      MOCK_SUNO_KEY,
      'MUSIC',
      'suno_music',
      body as unknown as Record<string, unknown>,
    );
    expect(suno.submits.at(-1)).toMatchObject({
      action: 'MUSIC',
      body: { prompt: 'a song about cats', mv: 'chirp-v3-0' },
    });
    const states = await pollAll(sunoPlatform, suno.url, MOCK_SUNO_KEY, id);
    expect(states.map((s) => s.status)).toEqual(['SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS']);
    expect(states.at(-1)).toMatchObject({
      progress: '100%',
      urls: [expect.stringContaining('.mp3'), expect.stringContaining('.mp3')],
    });
    expect(Array.isArray(states.at(-1)!.data)).toBe(true);
  });

  it('lyrics end with their text; a failing task ends in FAILURE with its reason; a refusal is not accepted', async () => {
    const lyrics = await submitted(sunoPlatform, suno.url, MOCK_SUNO_KEY, 'LYRICS', 'suno_lyrics', { prompt: 'rain' });
    expect((await pollAll(sunoPlatform, suno.url, MOCK_SUNO_KEY, lyrics)).at(-1)!.data).toMatchObject({
      text: expect.stringContaining('rain'),
    });
    const failing = await submitted(sunoPlatform, suno.url, MOCK_SUNO_KEY, 'MUSIC', 'suno_music', {
      prompt: 'please fail',
    });
    expect((await pollAll(sunoPlatform, suno.url, MOCK_SUNO_KEY, failing)).at(-1)).toMatchObject({
      status: 'FAILURE',
      failReason: expect.stringContaining('mock'),
    });
    const r = await sunoPlatform.submit({
      channel,
      key: MOCK_SUNO_KEY,
      baseUrl: suno.url,
      action: 'MUSIC',
      model: 'suno_music',
      body: { prompt: 'refuse me' },
    });
    expect(r).toMatchObject({ ok: false, code: 'error', message: expect.stringContaining('rejected') });
    const bad = await sunoPlatform.submit({
      channel,
      key: 'wrong',
      baseUrl: suno.url,
      action: 'MUSIC',
      model: 'suno_music',
      body: { prompt: 'x' },
    });
    expect(bad).toMatchObject({ ok: false, httpStatus: 401 });
  });

  it('validates submits and fetch ids as new-api does', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return [(e as SunoError).status, (e as SunoError).message];
      }
      return undefined;
    };
    expect(code(() => parseSunoSubmit('LYRICS', {}))).toEqual([400, 'prompt_empty']);
    expect(code(() => parseSunoSubmit('MUSIC', { prompt: 1 }))?.[0]).toBe(400);
    expect(code(() => parseSunoSubmit('MUSIC', { prompt: 'x', continue_clip_id: 'c' }))).toEqual([
      400,
      'task id is empty',
    ]);
    expect(code(() => parseSunoSubmit('MUSIC', []))?.[0]).toBe(400);
    expect(parseSunoSubmit('MUSIC', { prompt: 'x', callBackUrl: 'http://169.254.169.254/' }).callBackUrl).toBe('');
    expect(parseSunoFetchIds({ ids: ['a', 'b'] })).toEqual(['a', 'b']);
    expect(code(() => parseSunoFetchIds({ ids: 'a' }))?.[0]).toBe(400);
    expect(code(() => parseSunoFetchIds({ ids: [1] }))?.[0]).toBe(400);
  });
});

describe('kling platform', () => {
  it('signs an HS256 JWT the upstream verifies, and follows text and image tasks to SUCCESS', async () => {
    expect(klingKeys(MOCK_KLING_KEY)).toEqual({ accessKey: MOCK_KLING_AK, secretKey: 'sk-mock-kling-secret' });
    const jwt = klingJwt('ak', 'sk', 1000);
    expect(JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString())).toEqual({
      iss: 'ak',
      exp: 2800,
      nbf: 995,
    });
    const text = await submitted(klingPlatform, video.url, MOCK_KLING_KEY, 'textGenerate', 'kling-v1', {
      model: 'kling-v1',
      prompt: 'a cat surfing',
    });
    expect(text).toMatch(/^text2video-/);
    expect(video.submits.at(-1)).toMatchObject({
      vendor: 'kling',
      path: '/v1/videos/text2video',
      body: { model_name: 'kling-v1', prompt: 'a cat surfing', duration: '5' },
    });
    const states = await pollAll(klingPlatform, video.url, MOCK_KLING_KEY, text);
    expect(states.map((s) => s.status)).toEqual(['IN_PROGRESS', 'SUCCESS']);
    expect(states.at(-1)).toMatchObject({ progress: '100%', urls: [expect.stringContaining('.mp4')] });
    const image = await submitted(klingPlatform, video.url, MOCK_KLING_KEY, 'generate', 'kling-v1', {
      model: 'kling-v1',
      prompt: 'move',
      image: 'https://x.test/a.png',
    });
    expect(image).toMatch(/^image2video-/);
    expect((await pollAll(klingPlatform, video.url, MOCK_KLING_KEY, image)).at(-1)!.status).toBe('SUCCESS');
    expect(video.jwtPayloads.length).toBeGreaterThanOrEqual(5);
    expect(video.jwtPayloads.every((p) => p.iss === MOCK_KLING_AK && p.exp - p.nbf === 1805)).toBe(true);
  });

  it('a failing task ends in FAILURE; a wrong secret and a refused prompt are not accepted; foreign ids are skipped', async () => {
    const failing = await submitted(klingPlatform, video.url, MOCK_KLING_KEY, 'textGenerate', 'kling-v1', {
      model: 'kling-v1',
      prompt: 'fail now',
    });
    expect((await pollAll(klingPlatform, video.url, MOCK_KLING_KEY, failing)).at(-1)).toMatchObject({
      status: 'FAILURE',
      failReason: expect.stringContaining('mock'),
    });
    const bad = await klingPlatform.submit({
      channel,
      key: `${MOCK_KLING_AK}|wrong`,
      baseUrl: video.url,
      action: 'textGenerate',
      model: 'kling-v1',
      body: { prompt: 'x' },
    });
    expect(bad).toMatchObject({ ok: false, httpStatus: 401, message: 'Authorization is invalid' });
    const refused = await klingPlatform.submit({
      channel,
      key: MOCK_KLING_KEY,
      baseUrl: video.url,
      action: 'textGenerate',
      model: 'kling-v1',
      body: { prompt: 'refuse' },
    });
    expect(refused).toMatchObject({ ok: false, httpStatus: 400, message: expect.stringContaining('content security') });
    expect(
      await klingPlatform.fetchTasks({ channel, key: MOCK_KLING_KEY, baseUrl: video.url }, [
        '../../etc',
        'text2video-nope',
      ]),
    ).toEqual([]);
  });

  it('a sk- key reaches another new-api under /kling with the key itself as the bearer', async () => {
    const id = await submitted(klingPlatform, video.url, MOCK_KLING_GATEWAY_KEY, 'textGenerate', 'kling-v1', {
      model: 'kling-v1',
      prompt: 'relayed',
    });
    expect(video.submits.at(-1)).toMatchObject({ vendor: 'kling', path: '/kling/v1/videos/text2video' });
    expect((await pollAll(klingPlatform, video.url, MOCK_KLING_GATEWAY_KEY, id)).at(-1)!.status).toBe('SUCCESS');
  });
});

describe('openai-compatible video platform', () => {
  it('submits, polls to completed, fails and refuses in OpenAI shapes', async () => {
    const id = await submitted(openAIVideoPlatform, video.url, MOCK_OPENAI_VIDEO_KEY, 'textGenerate', 'sora-2', {
      model: 'sora-2',
      prompt: 'waves',
      seconds: '4',
    });
    expect(video.submits.at(-1)).toMatchObject({
      vendor: 'openai',
      body: { model: 'sora-2', prompt: 'waves', seconds: '4' },
    });
    const states = await pollAll(openAIVideoPlatform, video.url, MOCK_OPENAI_VIDEO_KEY, id);
    expect(states.map((s) => [s.status, s.progress])).toEqual([
      ['IN_PROGRESS', '40%'],
      ['SUCCESS', '100%'],
    ]);
    const failing = await submitted(openAIVideoPlatform, video.url, MOCK_OPENAI_VIDEO_KEY, 'textGenerate', 'sora-2', {
      prompt: 'fail',
    });
    expect((await pollAll(openAIVideoPlatform, video.url, MOCK_OPENAI_VIDEO_KEY, failing)).at(-1)).toMatchObject({
      status: 'FAILURE',
      failReason: 'mock: sora could not render',
    });
    const r = await openAIVideoPlatform.submit({
      channel,
      key: MOCK_OPENAI_VIDEO_KEY,
      baseUrl: video.url,
      action: 'textGenerate',
      model: 'sora-2',
      body: { prompt: 'refuse' },
    });
    expect(r).toMatchObject({ ok: false, httpStatus: 400 });
  });

  it('validates submits and answers stored tasks as OpenAI video objects', () => {
    expect(() => parseVideoSubmit({ prompt: 'x' })).toThrow('model is required');
    expect(() => parseVideoSubmit({ model: 'm', prompt: ' ' })).toThrow('prompt');
    expect(() => parseVideoSubmit({ model: 'm', prompt: 'x', duration: 1000 })).toThrow('duration');
    expect(() => parseVideoSubmit({ model: 'm', prompt: 'x', images: 'a' })).toThrow('images');
    expect(parseVideoSubmit({ model: 'm', prompt: 'x', duration: '5', metadata: '{"mode":"pro"}' })).toMatchObject({
      duration: 5,
      metadata: { mode: 'pro' },
    });
    const base = {
      task_id: 'task_1',
      model: 'm',
      progress: '30%',
      fail_reason: '',
      submit_time: 10,
      finish_time: 0,
      url: '',
      seconds: '',
      size: '',
    };
    expect(openAIVideo({ ...base, status: 'IN_PROGRESS' })).toMatchObject({
      id: 'task_1',
      object: 'video',
      status: 'in_progress',
      progress: 30,
    });
    expect(openAIVideo({ ...base, status: 'NOT_START' }).status).toBe('queued');
    expect(openAIVideo({ ...base, status: 'FAILURE', fail_reason: 'boom', finish_time: 20 })).toMatchObject({
      status: 'failed',
      error: { message: 'boom' },
      completed_at: 20,
    });
  });
});

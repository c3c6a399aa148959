import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelType } from '@tollway/shared';
import {
  actionOfCustomId,
  mjModelName,
  parseSimpleChange,
  planSubmit,
} from '../../src/relay/tasks/midjourney/actions.js';
import { midjourneyPlatform, upstreamSubmitPath } from '../../src/relay/tasks/midjourney/platform.js';
import { mjTaskView, upstreamBody } from '../../src/relay/tasks/midjourney/upstream-body.js';
import { MjError, mjModeOf, parseMjBody, upstreamMjPath } from '../../src/relay/tasks/midjourney/wire.js';
import type { OptionReader } from '../../src/lib/option-reader.js';
import type { TaskUpstream } from '../../src/relay/tasks/types.js';
import type { CachedChannel } from '../../src/core/routing/channel-cache.js';
import { startMockMidjourney, type MockMidjourney } from '../support/mock-midjourney.js';

const options = (values: Record<string, string | boolean>): OptionReader => ({
  get: (k) => String(values[k] ?? ''),
  bool: (k) => values[k] === true,
  num: (k) => Number(values[k] ?? 0),
  json: (k) => JSON.parse(String(values[k] ?? 'null')),
});

const refusal = (fn: () => unknown): MjError => {
  try {
    fn();
  } catch (err) {
    return err as MjError;
  }
  throw new Error('expected a refusal');
};

describe('midjourney actions', () => {
  it('names models as new-api does', () => {
    expect(mjModelName('IMAGINE')).toBe('mj_imagine');
    expect(mjModelName('HIGH_VARIATION')).toBe('mj_high_variation');
    expect(mjModelName('SWAP_FACE')).toBe('swap_face');
  });

  it('reads midjourney-proxy-plus button ids', () => {
    expect(actionOfCustomId('MJ::JOB::upsample::2::3dbbd469')).toEqual({ action: 'UPSCALE', index: 2 });
    expect(actionOfCustomId('MJ::JOB::variation::3::x')).toEqual({ action: 'VARIATION', index: 3 });
    expect(actionOfCustomId('MJ::JOB::reroll::0::x::SOLO')).toEqual({ action: 'REROLL', index: 1 });
    expect(actionOfCustomId('MJ::Outpaint::50::1::x')).toEqual({ action: 'ZOOM', index: 1 });
    expect(actionOfCustomId('MJ::Inpaint::1::x::SOLO')).toEqual({ action: 'INPAINT', index: 1 });
    expect(refusal(() => actionOfCustomId('MJ::JOB::upsample::9::x')).description).toBe('index_parse_failed');
    expect(refusal(() => actionOfCustomId('nonsense')).status).toBe(400);
  });

  it('reads simple-change content', () => {
    expect(parseSimpleChange('1320098173412546 U2')).toEqual({
      taskId: '1320098173412546',
      action: 'UPSCALE',
      index: 2,
    });
    expect(parseSimpleChange('1 r')).toEqual({ taskId: '1', action: 'REROLL', index: 1 });
    expect(parseSimpleChange('1 V5')).toBeUndefined();
    expect(parseSimpleChange('1')).toBeUndefined();
  });

  it('checks each route body and refuses in midjourney-proxy shape', () => {
    expect(planSubmit('imagine', { prompt: 'a cat' })).toMatchObject({
      action: 'IMAGINE',
      model: 'mj_imagine',
      free: false,
    });
    expect(planSubmit('action', { customId: 'MJ::JOB::upsample::1::x', taskId: '7' })).toMatchObject({
      action: 'UPSCALE',
      originTaskId: '7',
    });
    expect(planSubmit('action', { customId: 'MJ::CustomZoom::x', taskId: '7' })).toMatchObject({
      action: 'CUSTOM_ZOOM',
      free: true,
    });
    expect(planSubmit('change', { taskId: '7', action: 'VARIATION', index: 1 })).toMatchObject({
      action: 'VARIATION',
      originTaskId: '7',
    });
    expect(planSubmit('swap', { sourceBase64: 'a', targetBase64: 'b' }).model).toBe('swap_face');
    const err = refusal(() => planSubmit('imagine', { prompt: '' }));
    expect(err.body).toMatchObject({ code: 4, description: 'prompt_is_required' });
    expect(refusal(() => planSubmit('imagine', { prompt: 5 as unknown as string })).status).toBe(400);
    expect(refusal(() => planSubmit('blend', { base64Array: ['a'] })).description).toBe('base64Array_is_required');
    expect(refusal(() => planSubmit('change', { taskId: '7', action: 'DELETE', index: 1 })).description).toBe(
      'unknown_action',
    );
    expect(refusal(() => parseMjBody(Buffer.from('[1]'))).status).toBe(400);
    expect(refusal(() => parseMjBody(Buffer.from('{'))).status).toBe(400);
  });

  it('maps mode prefixes to the upstream path', () => {
    expect(upstreamMjPath('/mj-fast/mj/submit/imagine')).toBe('/mj/submit/imagine');
    expect(upstreamMjPath('/mj/submit/imagine')).toBe('/mj/submit/imagine');
    expect(mjModeOf('/mj-relax/mj/task/1/fetch')).toBe('relax');
    expect(mjModeOf('/mj/task/1/fetch')).toBeUndefined();
    expect(upstreamSubmitPath('UPSCALE', { customId: 'MJ::JOB::upsample::1::x' })).toBe('/mj/submit/action');
    expect(upstreamSubmitPath('UPSCALE', { taskId: '1', action: 'UPSCALE', index: 1 })).toBe('/mj/submit/change');
  });
});

describe('midjourney settings', () => {
  const body = {
    prompt: 'a cat --fast --relax',
    notifyHook: 'https://hook.example/x',
    accountFilter: { instanceId: '1' },
  };

  it('drops notifyHook and accountFilter unless enabled; clears modes when asked', () => {
    expect(upstreamBody(body, options({}))).toEqual({ prompt: 'a cat --fast --relax' });
    const all = upstreamBody(
      body,
      options({ MjNotifyEnabled: true, MjAccountFilterEnabled: true, MjModeClearEnabled: true }),
    );
    expect(all).toEqual({
      prompt: 'a cat  ',
      notifyHook: 'https://hook.example/x',
      accountFilter: { instanceId: '1' },
    });
  });

  it('forwards image URLs through the gateway with MjForwardUrlEnabled', () => {
    const row = {
      mj_id: '42',
      action: 'IMAGINE',
      prompt: 'p',
      prompt_en: 'p',
      description: '',
      submit_time: 1,
      start_time: 2,
      finish_time: 3,
      image_url: 'https://cdn.example/a.png',
      status: 'SUCCESS',
      progress: '100%',
      fail_reason: '',
      buttons: '[{"customId":"MJ::JOB::upsample::1::x"}]',
    };
    expect(mjTaskView(row, options({ MjForwardUrlEnabled: true, ServerAddress: 'https://gw.example/' })).imageUrl).toBe(
      'https://gw.example/mj/image/42',
    );
    expect(mjTaskView({ ...row, status: 'IN_PROGRESS' }, options({ MjForwardUrlEnabled: true }), 5).imageUrl).toBe(
      '/mj/image/42?rand=5',
    );
    const plain = mjTaskView(row, options({}));
    expect(plain).toMatchObject({
      id: '42',
      imageUrl: 'https://cdn.example/a.png',
      submitTime: 1000,
      startTime: 2000,
      finishTime: 3000,
    });
    expect(plain.buttons?.[0]?.customId).toBe('MJ::JOB::upsample::1::x');
  });
});

describe('midjourney platform against the mock proxy', () => {
  let mock: MockMidjourney;
  let up: TaskUpstream;
  beforeAll(async () => {
    mock = await startMockMidjourney();
    up = { channel: { id: 1, type: ChannelType.Midjourney } as CachedChannel, key: mock.secret, baseUrl: mock.url };
  });
  afterAll(() => mock.close());

  it('submits, polls to success, refuses banned prompts and reports failures', async () => {
    const ok = await midjourneyPlatform.submit({
      ...up,
      action: 'IMAGINE',
      model: 'mj_imagine',
      body: { prompt: 'a cat' },
    });
    expect(ok).toMatchObject({ ok: true, code: 1 });
    const fail = await midjourneyPlatform.submit({
      ...up,
      action: 'IMAGINE',
      model: 'mj_imagine',
      body: { prompt: 'will fail' },
    });
    const banned = await midjourneyPlatform.submit({
      ...up,
      action: 'IMAGINE',
      model: 'mj_imagine',
      body: { prompt: 'banned' },
    });
    expect(banned).toMatchObject({ ok: false, code: 24, httpStatus: 200 });
    const ids = [ok, fail].map((r) => (r.ok ? r.upstreamTaskId : ''));
    expect((await midjourneyPlatform.fetchTasks(up, ids)).map((s) => s.status)).toEqual(['IN_PROGRESS', 'IN_PROGRESS']);
    const done = await midjourneyPlatform.fetchTasks(up, ids);
    expect(done[0]).toMatchObject({ status: 'SUCCESS', progress: '100%' });
    expect(done[0]!.imageUrl).toContain('/images/');
    expect(done[0]!.buttons?.length).toBeGreaterThan(0);
    expect(done[1]).toMatchObject({ status: 'FAILURE', failReason: 'Mock: the job was refused' });
    expect(
      mock.requests.every((r) => r.path.startsWith('/images/') || r.headers['mj-api-secret'] === mock.secret),
    ).toBe(true);
  });

  it('sends actions to the action route and fails on a wrong secret', async () => {
    const first = await midjourneyPlatform.submit({
      ...up,
      action: 'IMAGINE',
      model: 'mj_imagine',
      body: { prompt: 'x' },
    });
    const id = first.ok ? first.upstreamTaskId : '';
    const act = await midjourneyPlatform.submit({
      ...up,
      action: 'UPSCALE',
      model: 'mj_upscale',
      body: { taskId: id, customId: `MJ::JOB::upsample::1::${id}` },
    });
    expect(act.ok).toBe(true);
    expect(mock.requests.at(-1)!.path).toBe('/mj/submit/action');
    const denied = await midjourneyPlatform.submit({
      ...up,
      key: 'wrong',
      action: 'IMAGINE',
      model: 'mj_imagine',
      body: { prompt: 'x' },
    });
    expect(denied).toMatchObject({ ok: false, httpStatus: 401 });
  });
});

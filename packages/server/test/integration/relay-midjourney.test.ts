import { describe, expect, it } from 'vitest';
import { ChannelType } from '@tollway/shared';
import { createUserClient, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter, setQuota } from '../support/gateway.js';
import { MOCK_MJ_PNG, startMockMidjourney, type MockMidjourney } from '../support/mock-midjourney.js';

const IMAGINE_QUOTA = 25_000; // $0.05 × 500 000
const UPSCALE_QUOTA = 10_000; // $0.02 × 500 000
const START_QUOTA = 1_000_000;
const DEADLINE_MS = 10_000;
const POLL_PAUSE_MS = 50;
const TWO_DAYS_S = 2 * 86_400;
const MJ_MODELS =
  'mj_imagine,mj_upscale,mj_variation,mj_reroll,mj_describe,mj_blend,mj_modal,mj_shorten,mj_upload,swap_face,mj_video,mj_edits';
const VIDEO_QUOTA = 40_000; // $0.08 × 500 000
const EDITS_QUOTA = 15_000; // $0.03 × 500 000

interface Answer {
  code: number;
  description: string;
  result: string;
  properties: Record<string, unknown> | null;
}
interface TaskView {
  id: string;
  action?: string;
  videoUrl?: string;
  videoUrls?: { url: string }[];
  status: string;
  progress: string;
  imageUrl: string;
  failReason: string;
  buttons?: { customId: string; label: string }[];
}

describe.each(dialects)('midjourney relay on %s', (dialect) => {
  let t: TestApp, mock: MockMidjourney, root: Client, base: string, key: string, user: Client;
  const gw = useGateway(
    dialect,
    { mock: () => startMockMidjourney(), user: 'mj-user', quota: START_QUOTA },
    async (g) => {
      ({ t, mock, root, base, key, user } = g);
      await root.call('PUT', '/api/option/', {
        key: 'ModelPrice',
        value: JSON.stringify({
          mj_imagine: 0.05,
          mj_upscale: 0.02,
          mj_variation: 0.02,
          mj_reroll: 0.02,
          mj_modal: 0.02,
          mj_describe: 0.02,
          mj_blend: 0.02,
          mj_shorten: 0.02,
          mj_upload: 0.02,
          swap_face: 0.02,
          mj_video: 0.08,
          mj_edits: 0.03,
        }),
      });
      await root.call('PUT', '/api/option/', { key: 'ServerAddress', value: base });
      await addChannel(root, {
        name: 'mj',
        type: ChannelType.Midjourney,
        key: mock.secret,
        baseUrl: mock.url,
        models: MJ_MODELS,
      });
    },
  );
  void gw;

  const call = async <T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = { authorization: `Bearer ${key}` },
  ) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const quotaOf = async (id: number) =>
    Number(
      (await t.database.db.kysely.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow())
        .quota,
    );
  const row = (mjId: string) =>
    t.database.db.kysely.selectFrom('midjourneys').selectAll().where('mj_id', '=', mjId).executeTakeFirstOrThrow();

  /** Polls (the poller's pass) and fetches until the task is final. */
  const untilFinal = async (id: string, headers?: Record<string, string>): Promise<TaskView> => {
    const end = Date.now() + DEADLINE_MS;
    for (;;) {
      await t.runtime.taskPoller.pass(Math.floor(Date.now() / 1000));
      const { body } = await call<TaskView>('GET', `/mj/task/${id}/fetch`, undefined, headers);
      if (body.status === 'SUCCESS' || body.status === 'FAILURE') return body;
      if (Date.now() > end) throw new Error(`task ${id} still ${body.status}`);
      await new Promise((r) => setTimeout(r, POLL_PAUSE_MS));
    }
  };

  it('submits, bills at submit, polls to SUCCESS and shows the result with buttons', async () => {
    const before = await quotaOf(user.userId!);
    const sub = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'a cat', state: 'mine' });
    expect(sub.status).toBe(200);
    expect(sub.body).toMatchObject({ code: 1 });
    const id = sub.body.result;
    await drainWriter(t);
    expect(await quotaOf(user.userId!)).toBe(before - IMAGINE_QUOTA);
    const log = await t.database.db.kysely
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', user.userId!)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log.model_name).toBe('mj_imagine');
    expect(Number(log.quota)).toBe(IMAGINE_QUOTA);
    expect(JSON.parse(log.other).task_id).toBe(id);
    expect((await row(id)).action).toBe('IMAGINE');
    const done = await untilFinal(id);
    expect(done).toMatchObject({ id, status: 'SUCCESS', progress: '100%' });
    expect(done.imageUrl).toBe(`${base}/mj/image/${id}`);
    expect(done.buttons?.map((b) => b.label)).toContain('U1');
    expect(mock.requests.find((r) => r.path === '/mj/submit/imagine')!.headers['mj-api-secret']).toBe(mock.secret);
  });

  it("a submit the quota cannot pay for is refused as midjourney-proxy's quota error, not an upstream one", async () => {
    const poor = await addToken(t, user.userId!, { remainQuota: 1, name: 'mj-poor' });
    const sent = mock.requests.length;
    const res = await call<Answer & { type: string }>(
      'POST',
      '/mj/submit/imagine',
      { prompt: 'a cat' },
      {
        authorization: `Bearer ${poor.key}`,
      },
    );
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 4, description: 'quota_not_enough', type: 'insufficient_quota' });
    expect(mock.requests.length).toBe(sent);
  });

  it('refunds a failed task exactly once and does not charge a refused submit', async () => {
    const before = await quotaOf(user.userId!);
    const sub = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'this will fail' });
    const failed = await untilFinal(sub.body.result);
    expect(failed).toMatchObject({ status: 'FAILURE', failReason: 'Mock: the job was refused' });
    await call('POST', '/mj/notify', { id: sub.body.result });
    await t.runtime.taskPoller.pass(Math.floor(Date.now() / 1000));
    await drainWriter(t);
    expect(await quotaOf(user.userId!)).toBe(before);
    const refunds = await t.database.db.kysely
      .selectFrom('logs')
      .select('other')
      .where('user_id', '=', user.userId!)
      .where('type', '=', 4)
      .execute();
    expect(refunds.filter((r) => JSON.parse(r.other).task_id === sub.body.result)).toHaveLength(1);

    const banned = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'banned words' });
    expect(banned.status).toBe(200);
    expect(banned.body).toMatchObject({ code: 24, result: '' });
    await drainWriter(t);
    expect(await quotaOf(user.userId!)).toBe(before);
  });

  it('refuses bad input and bad keys with 4xx in midjourney-proxy shape', async () => {
    expect(await call<Answer>('POST', '/mj/submit/imagine', {})).toMatchObject({
      status: 400,
      body: { code: 4, description: 'prompt_is_required' },
    });
    expect(await call<Answer>('POST', '/mj/submit/imagine', '{not json')).toMatchObject({
      status: 400,
      body: { code: 4 },
    });
    expect(await call<Answer>('POST', '/mj/submit/imagine', [1])).toMatchObject({ status: 400, body: { code: 4 } });
    expect(await call<Answer>('POST', '/mj/submit/simple-change', { content: 'x U9' })).toMatchObject({
      status: 400,
      body: { description: 'content_parse_failed' },
    });
    expect(
      await call<Answer>('POST', '/mj/submit/action', { taskId: 'nope', customId: 'MJ::JOB::upsample::1::x' }),
    ).toMatchObject({
      status: 400,
      body: { description: 'task_not_found' },
    });
    expect(await call<Answer>('POST', '/mj/task/list-by-condition', { ids: 'x' })).toMatchObject({
      status: 400,
      body: { code: 4 },
    });
    const noKey = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'x' }, {});
    expect(noKey.status).toBe(401);
    expect(noKey.body.code).toBe(4);
    const secret = await call<Answer>(
      'POST',
      '/mj/submit/imagine',
      { prompt: 'by secret header' },
      { 'mj-api-secret': key },
    );
    expect(secret.body.code).toBe(1);
  });

  it('serves the mode prefixes and shows each caller only its own tasks', async () => {
    for (const mode of ['fast', 'relax', 'turbo']) {
      const sub = await call<Answer>('POST', `/mj-${mode}/mj/submit/imagine`, { prompt: `a ${mode} dog` });
      expect(sub.body.code).toBe(1);
      expect(mock.requests.at(-1)!.path).toBe('/mj/submit/imagine');
      expect((await row(sub.body.result)).mode).toBe(mode);
      expect((await call<TaskView>('GET', `/mj-${mode}/mj/task/${sub.body.result}/fetch`)).body.id).toBe(
        sub.body.result,
      );
    }
    const mine = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'private' });
    const other = await createUserClient(t.app, root, 'mj-other');
    await setQuota(root, other.userId!, START_QUOTA);
    const otherKey = (await addToken(t, other.userId!, {})).key;
    const asOther = { authorization: `Bearer ${otherKey}` };
    expect((await call<Answer>('GET', `/mj/task/${mine.body.result}/fetch`, undefined, asOther)).status).toBe(400);
    expect(
      (await call<TaskView[]>('POST', '/mj/task/list-by-condition', { ids: [mine.body.result] }, asOther)).body,
    ).toEqual([]);
    expect(
      (await call<TaskView[]>('POST', '/mj/task/list-by-condition', { ids: [mine.body.result] })).body.map((x) => x.id),
    ).toEqual([mine.body.result]);
    expect((await call<Answer>('GET', `/mj/task/${mine.body.result}/image-seed`)).body).toMatchObject({
      code: 1,
      result: '1234567890',
    });
  });

  it('proxies images through the SSRF guard only while MjForwardUrlEnabled is on', async () => {
    const sub = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'an image' });
    const done = await untilFinal(sub.body.result);
    await root.call('PUT', '/api/option/', { key: 'fetch_setting.enable_ssrf_protection', value: 'true' });
    await root.call('PUT', '/api/option/', { key: 'fetch_setting.allow_private_ip', value: 'false' });
    await root.call('PUT', '/api/option/', { key: 'fetch_setting.allowed_ports', value: '[]' });
    const blocked = await fetch(done.imageUrl);
    expect(blocked.status).toBe(403);
    expect(((await blocked.json()) as { error: string }).error).toContain('loopback');
    await root.call('PUT', '/api/option/', { key: 'fetch_setting.allow_private_ip', value: 'true' });
    const img = await fetch(done.imageUrl);
    expect(img.status, img.status === 200 ? '' : await img.clone().text()).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await img.arrayBuffer())).toEqual(MOCK_MJ_PNG);
    await root.call('PUT', '/api/option/', { key: 'MjForwardUrlEnabled', value: 'false' });
    expect((await fetch(done.imageUrl)).status).toBe(404);
    expect((await call<TaskView>('GET', `/mj/task/${sub.body.result}/fetch`)).body.imageUrl).toBe(
      `${mock.url}/images/${sub.body.result}.png`,
    );
    await root.call('PUT', '/api/option/', { key: 'MjForwardUrlEnabled', value: 'true' });
  });

  it('passes notifyHook only with MjNotifyEnabled; the upstream notify updates the task at once', async () => {
    const hook = `${base}/mj/notify`;
    const off = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'no hook', notifyHook: hook });
    expect(mock.requests.at(-1)!.body.notifyHook).toBeUndefined();
    void off;
    await root.call('PUT', '/api/option/', { key: 'MjNotifyEnabled', value: 'true' });
    const on = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'with hook', notifyHook: hook });
    expect(mock.requests.at(-1)!.body.notifyHook).toBe(hook);
    await mock.advance(on.body.result);
    expect(mock.notified.at(-1)).toMatchObject({ url: hook, status: 200 });
    // The notify made the gateway read the task from its channel: no poller pass ran.
    expect((await row(on.body.result)).status).not.toBe('SUBMITTED');
    await root.call('PUT', '/api/option/', { key: 'MjNotifyEnabled', value: 'false' });
    expect((await call<Answer>('POST', '/mj/notify', { id: 'unknown' })).status).toBe(400);
  });

  it('runs an action from a finished task button on the same channel, billed at its own price', async () => {
    const sub = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'to upscale' });
    expect(
      (
        await call<Answer>('POST', '/mj/submit/action', {
          taskId: sub.body.result,
          customId: `MJ::JOB::upsample::1::${sub.body.result}`,
        })
      ).body,
    ).toMatchObject({
      code: 4,
      description: 'task_status_not_success',
    });
    const done = await untilFinal(sub.body.result);
    await drainWriter(t);
    const before = await quotaOf(user.userId!);
    const u1 = done.buttons!.find((b) => b.label === 'U1')!;
    const act = await call<Answer>('POST', '/mj/submit/action', { taskId: done.id, customId: u1.customId });
    expect(act.body.code).toBe(1);
    expect(mock.requests.at(-1)!.path).toBe('/mj/submit/action');
    await drainWriter(t);
    expect(await quotaOf(user.userId!)).toBe(before - UPSCALE_QUOTA);
    const r = await row(act.body.result);
    expect(r).toMatchObject({ action: 'UPSCALE', prompt: 'to upscale', model_name: 'mj_upscale' });
    expect((await untilFinal(act.body.result)).status).toBe('SUCCESS');
    const change = await call<Answer>('POST', '/mj/submit/simple-change', { content: `${done.id} V2` });
    expect(change.body.code).toBe(1);
    expect((await row(change.body.result)).action).toBe('VARIATION');
  });
  it('refuses a caller without quota before the upstream, and fails a task that never finishes with one refund', async () => {
    const poor = await createUserClient(t.app, root, 'mj-poor');
    const poorKey = (await addToken(t, poor.userId!, {})).key;
    const submits = mock.requests.length;
    const refused = await call<Answer>(
      'POST',
      '/mj/submit/imagine',
      { prompt: 'no money' },
      { authorization: `Bearer ${poorKey}` },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe(4);
    expect(mock.requests.length).toBe(submits);

    // A user of its own: the timeout pass below also ends (and refunds) tasks earlier cases left unfinished.
    const waiter = await createUserClient(t.app, root, 'mj-waiter');
    await setQuota(root, waiter.userId!, START_QUOTA);
    const waiterAuth = { authorization: `Bearer ${(await addToken(t, waiter.userId!, {})).key}` };
    const before = await quotaOf(waiter.userId!);
    const stuck = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'never ends' }, waiterAuth);
    expect(stuck.body.code).toBe(1);
    await drainWriter(t);
    expect(await quotaOf(waiter.userId!)).toBeLessThan(before);
    await t.runtime.taskPoller.pass(Math.floor(Date.now() / 1000));
    await t.runtime.taskPoller.pass(Math.floor(Date.now() / 1000));
    expect(
      (await call<TaskView>('GET', `/mj/task/${stuck.body.result}/fetch`, undefined, waiterAuth)).body.status,
    ).toBe('IN_PROGRESS');
    // A pass two days later: past the task timeout.
    await t.runtime.taskPoller.pass(Math.floor(Date.now() / 1000) + TWO_DAYS_S);
    expect(
      (await call<TaskView>('GET', `/mj/task/${stuck.body.result}/fetch`, undefined, waiterAuth)).body,
    ).toMatchObject({ status: 'FAILURE' });
    await t.runtime.taskPoller.pass(Math.floor(Date.now() / 1000) + TWO_DAYS_S);
    await drainWriter(t);
    expect(await quotaOf(waiter.userId!)).toBe(before);
  });
  it('serves describe, blend, shorten, upload and face swap, and actions on unfinished tasks once the check is off', async () => {
    const img = 'data:image/png;base64,iVBORw0KGgo=';
    const cases: [string, Record<string, unknown>, string][] = [
      ['/mj/submit/describe', { base64: img }, 'DESCRIBE'],
      ['/mj/submit/blend', { base64Array: [img, img], dimensions: 'SQUARE' }, 'BLEND'],
      ['/mj/submit/shorten', { prompt: 'a very long prompt' }, 'SHORTEN'],
      ['/mj/submit/upload-discord-images', { base64Array: [img] }, 'UPLOAD'],
      ['/mj/insight-face/swap', { sourceBase64: img, targetBase64: img }, 'SWAP_FACE'],
    ];
    for (const [path, body, action] of cases) {
      const sub = await call<Answer>('POST', path, body);
      expect(sub.body.code, `${path}: ${sub.body.description}`).toBe(1);
      expect(mock.requests.at(-1)!.path).toBe(path);
      expect((await row(sub.body.result)).action).toBe(action);
    }
    // An upload is done once accepted.
    const upload = [...mock.tasks.values()].find((x) => x.action === 'UPLOAD')!;
    expect((await row(upload.id)).status).toBe('SUCCESS');
    expect((await call<Answer>('POST', '/mj/insight-face/swap', { sourceBase64: img })).status).toBe(400);

    const fresh = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'unfinished' });
    await root.call('PUT', '/api/option/', { key: 'MjActionCheckSuccessEnabled', value: 'false' });
    const early = await call<Answer>('POST', '/mj/submit/change', {
      taskId: fresh.body.result,
      action: 'UPSCALE',
      index: 1,
    });
    expect(early.body.code).toBe(1);
    expect(mock.requests.at(-1)!.path).toBe('/mj/submit/change');
    await root.call('PUT', '/api/option/', { key: 'MjActionCheckSuccessEnabled', value: 'true' });
  });

  it('video: animates a finished task on its channel (or a given image), billed as mj_video; edits: billed as mj_edits', async () => {
    const img = 'data:image/png;base64,iVBORw0KGgo=';
    const origin = await untilFinal(
      (await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'a paper boat' })).body.result,
    );
    await drainWriter(t);
    let before = await quotaOf(user.userId!);
    const video = await call<Answer>('POST', '/mj/submit/video', { taskId: origin.id, index: 1, motion: 'low' });
    expect(video.body).toMatchObject({ code: 1 });
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/mj/submit/video',
      body: { taskId: origin.id, motion: 'low' },
    });
    await drainWriter(t);
    expect(await quotaOf(user.userId!)).toBe(before - VIDEO_QUOTA);
    expect(await row(video.body.result)).toMatchObject({
      action: 'VIDEO',
      model_name: 'mj_video',
      prompt: 'a paper boat',
      channel_id: (await row(origin.id)).channel_id,
    });
    const done = await untilFinal(video.body.result);
    expect(done).toMatchObject({
      action: 'VIDEO',
      status: 'SUCCESS',
      videoUrl: `${mock.url}/videos/${video.body.result}-1.mp4`,
    });
    expect(done.videoUrls?.map((v) => v.url)).toEqual(
      [1, 2].map((i) => `${mock.url}/videos/${video.body.result}-${i}.mp4`),
    );
    expect((await row(video.body.result)).video_url).toBe(done.videoUrl);

    // From an image, under a mode prefix; refused without a task or an image, or on a task not the caller's.
    const fromImage = await call<Answer>('POST', '/mj-relax/mj/submit/video', {
      image: img,
      prompt: 'waves',
      motion: 'high',
    });
    expect(fromImage.body.code).toBe(1);
    expect(mock.requests.at(-1)!.path).toBe('/mj/submit/video');
    expect((await row(fromImage.body.result)).mode).toBe('relax');
    expect(await call<Answer>('POST', '/mj/submit/video', { motion: 'low' })).toMatchObject({
      status: 400,
      body: { code: 4, description: 'task_id_is_required' },
    });
    expect(await call<Answer>('POST', '/mj/submit/video', { taskId: 'not-mine' })).toMatchObject({
      status: 400,
      body: { description: 'task_not_found' },
    });
    expect(await call<Answer>('POST', '/mj/submit/video', { image: 7 })).toMatchObject({
      status: 400,
      body: { code: 4 },
    });

    await drainWriter(t);
    before = await quotaOf(user.userId!);
    const edits = await call<Answer>('POST', '/mj/submit/edits', { prompt: 'make it red', image: img });
    expect(edits.body.code).toBe(1);
    expect(mock.requests.at(-1)).toMatchObject({
      path: '/mj/submit/edits',
      body: { prompt: 'make it red', image: img },
    });
    expect(await row(edits.body.result)).toMatchObject({ action: 'EDITS', model_name: 'mj_edits' });
    await drainWriter(t);
    expect(await quotaOf(user.userId!)).toBe(before - EDITS_QUOTA);
    expect(await call<Answer>('POST', '/mj/submit/edits', { image: img })).toMatchObject({
      status: 400,
      body: { code: 4, description: 'prompt_is_required' },
    });
  });

  it('a submit answered with code 3 (no account) disables the channel when automatic disabling is on', async () => {
    // A channel and a caller of their own (group vip), so the other cases keep their channel.
    const chId = await addChannel(root, {
      name: 'mj-no-account',
      type: ChannelType.Midjourney,
      key: mock.secret,
      baseUrl: mock.url,
      models: MJ_MODELS,
      group: 'vip',
    });
    const vip = await createUserClient(t.app, root, 'mj-vip');
    await setQuota(root, vip.userId!, START_QUOTA);
    expect((await root.call('PUT', '/api/user/', { id: vip.userId, group: 'vip' })).body.success).toBe(true);
    const auth = { authorization: `Bearer ${(await addToken(t, vip.userId!, {})).key}` };
    const status = async () =>
      t.database.db.kysely
        .selectFrom('channels')
        .select(['status', 'other_info'])
        .where('id', '=', chId)
        .executeTakeFirstOrThrow();

    await root.call('PUT', '/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'false' });
    const off = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'no-account here' }, auth);
    expect(off).toMatchObject({
      status: 200,
      body: { code: 3, description: 'No available account instance', result: '' },
    });
    expect((await status()).status).toBe(1);

    await root.call('PUT', '/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'true' });
    const on = await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'no-account again' }, auth);
    expect(on.body.code).toBe(3);
    const after = await status();
    expect(after.status).toBe(3);
    expect(JSON.parse(after.other_info).status_reason).toContain('No available account instance');
    await drainWriter(t);
    expect(await quotaOf(vip.userId!)).toBe(START_QUOTA);
    // The disabled channel serves no more: the next submit finds none.
    expect((await call<Answer>('POST', '/mj/submit/imagine', { prompt: 'a cat' }, auth)).body.code).not.toBe(1);
    await root.call('PUT', '/api/option/', { key: 'AutomaticDisableChannelEnabled', value: 'false' });
  });
});

import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, addToken, drainWriter } from '../support/gateway.js';
import { MOCK_SUNO_KEY, startMockSuno, type MockSuno } from '../support/mock-suno.js';

const PER_UNIT = 500_000;
const MUSIC_PRICE = 0.1;
const LYRICS_PRICE = 0.02;
const MAX_PASSES = 10;

/**
 * Suno as new-api serves it, against a mock Suno API: submit → charged at the per-task price → polled by the task
 * poller → the result in new-api's Suno shape; a failed task refunded once; bad input and other users' tasks refused.
 */
describe.each(dialects)('suno task relay on %s', (dialect) => {
  const gw = useGateway<MockSuno>(
    dialect,
    { user: 'suno-user', quota: 10_000_000, users: ['suno-other'], mock: startMockSuno },
    async (g) => {
      await addChannel(g.root, {
        name: 'suno',
        key: MOCK_SUNO_KEY,
        baseUrl: g.mock.url,
        models: 'suno_music,suno_lyrics',
        type: ChannelType.SunoAPI,
      });
      await g.root.call('PUT', '/api/option/', {
        key: 'ModelPrice',
        value: JSON.stringify({ suno_music: MUSIC_PRICE, suno_lyrics: LYRICS_PRICE }),
      });
    },
  );
  let otherKey: string;

  const call = async (method: string, path: string, body?: unknown, key = gw.key) => {
    const res = await fetch(`${gw.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    // Callers see public task ids only: no answer ever carries an id the upstream gave.
    for (const upstreamId of gw.mock.tasks.keys()) expect(text, `${method} ${path}`).not.toContain(upstreamId);
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> & { data: unknown } };
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
  /** Runs poller passes until the task is final (a bounded number of them). */
  const pollUntilFinal = async (id: string) => {
    const seen: string[] = [];
    for (let i = 0; i < MAX_PASSES; i++) {
      await t().runtime.taskPoller.job.runOnce();
      const { body } = await call('GET', `/suno/fetch/${id}`);
      const status = (body.data as { status: string }).status;
      if (seen.at(-1) !== status) seen.push(status);
      if (status === 'SUCCESS' || status === 'FAILURE') break;
    }
    return seen;
  };
  const logsOf = async (taskId: string) => {
    await drainWriter(t());
    const rows = await t()
      .database.db.kysely.selectFrom('logs')
      .select(['type', 'quota', 'other'])
      .where('user_id', '=', gw.user.userId!)
      .execute();
    return rows.filter((r) => String(r.other).includes(taskId));
  };

  it('music: submitted, charged at suno_music, polled through the statuses to SUCCESS with the clips', async () => {
    const before = await quota();
    const res = await call('POST', '/suno/submit/music', { prompt: 'a song about the sea', tags: 'folk' });
    expect(res).toMatchObject({ status: 200, body: { code: 'success', data: expect.any(String) } });
    const id = res.body.data as string;
    expect(id).toMatch(/^task_[\w-]{20,}$/);
    expect(gw.mock.tasks.has(id)).toBe(false);
    expect(before - (await quota())).toBe(MUSIC_PRICE * PER_UNIT);
    expect(gw.mock.submits.at(-1)).toMatchObject({
      action: 'MUSIC',
      body: { prompt: 'a song about the sea', mv: 'chirp-v3-0' },
    });
    const first = await call('GET', `/suno/fetch/${id}`);
    expect(first.body).toMatchObject({ code: 'success', data: { task_id: id, action: 'MUSIC', status: 'SUBMITTED' } });
    expect(await pollUntilFinal(id)).toEqual(['SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS']);
    const done = await call('POST', '/suno/fetch', { ids: [id] });
    expect(done.body).toMatchObject({
      code: 'success',
      data: [{ task_id: id, status: 'SUCCESS', progress: '100%', fail_reason: '' }],
    });
    const clips = (done.body.data as { data: { audio_url: string }[] }[])[0]!.data;
    expect(clips.map((c) => c.audio_url)).toEqual([expect.stringContaining('.mp3'), expect.stringContaining('.mp3')]);
    const logs = await logsOf(id);
    expect(logs).toHaveLength(1);
    expect(JSON.parse(String(logs[0]!.other))).toMatchObject({ task_id: id, model_price: MUSIC_PRICE });
    expect(before - (await quota())).toBe(MUSIC_PRICE * PER_UNIT);
  });

  it('lyrics: charged at suno_lyrics, ends with the text', async () => {
    const before = await quota();
    const res = await call('POST', '/suno/submit/lyrics', { prompt: 'rain on the roof' });
    const id = res.body.data as string;
    expect(before - (await quota())).toBe(LYRICS_PRICE * PER_UNIT);
    expect((await pollUntilFinal(id)).at(-1)).toBe('SUCCESS');
    const { body } = await call('GET', `/suno/fetch/${id}`);
    // The upstream's record repeats its task id: shown as the public one.
    expect(body.data).toMatchObject({
      task_id: id,
      action: 'LYRICS',
      data: { id, text: expect.stringContaining('rain on the roof') },
    });
  });

  it('a continuation names the earlier task by its public id; it goes upstream by the upstream id, on that channel', async () => {
    const first = (await call('POST', '/suno/submit/music', { prompt: 'a song to continue' })).body.data as string;
    expect((await pollUntilFinal(first)).at(-1)).toBe('SUCCESS');
    const clips = ((await call('GET', `/suno/fetch/${first}`)).body.data as { data: { id: string }[] }).data;
    const upstreamFirst = (
      await t()
        .database.db.kysely.selectFrom('tasks')
        .select('upstream_task_id')
        .where('task_id', '=', first)
        .executeTakeFirstOrThrow()
    ).upstream_task_id;
    expect(gw.mock.tasks.has(upstreamFirst)).toBe(true);
    const next = await call('POST', '/suno/submit/music', {
      prompt: 'the second verse',
      task_id: first,
      continue_clip_id: clips[0]!.id,
      continue_at: 60,
    });
    expect(next).toMatchObject({ status: 200, body: { code: 'success', data: expect.stringMatching(/^task_/) } });
    expect(gw.mock.submits.at(-1)!.body).toMatchObject({
      task_id: upstreamFirst,
      continue_clip_id: clips[0]!.id,
      continue_at: 60,
    });
    const unknown = await call('POST', '/suno/submit/music', {
      prompt: 'x',
      task_id: upstreamFirst,
      continue_clip_id: clips[0]!.id,
    });
    expect(unknown).toMatchObject({ status: 400, body: { code: 'task_not_exist', data: null } });
  });

  it('a task that fails is refunded exactly once; a refused submit is not charged', async () => {
    const before = await quota();
    const id = (await call('POST', '/suno/submit/music', { prompt: 'this one will fail' })).body.data as string;
    expect((await pollUntilFinal(id)).at(-1)).toBe('FAILURE');
    for (let i = 0; i < 2; i++) await t().runtime.taskPoller.job.runOnce();
    expect(await quota()).toBe(before);
    const { body } = await call('GET', `/suno/fetch/${id}`);
    expect(body.data).toMatchObject({ status: 'FAILURE', fail_reason: expect.stringContaining('mock') });
    const refunds = (await logsOf(id)).filter((l) => JSON.parse(String(l.other)).task_refund !== undefined);
    expect(refunds).toHaveLength(1);
    const refused = await call('POST', '/suno/submit/music', { prompt: 'please refuse this' });
    expect(refused.status).not.toBe(200);
    expect(refused.body).toMatchObject({ code: 'error', message: expect.stringContaining('rejected'), data: null });
    expect(await quota()).toBe(before);
  });

  it('bad input is a 4xx in the Suno shape, never a 5xx', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/suno/submit/lyrics', {}, 'prompt_empty'],
      ['POST', '/suno/submit/dance', { prompt: 'x' }, 'invalid_action'],
      ['POST', '/suno/submit/music', '{not json', 'the body is not valid JSON'],
      ['POST', '/suno/submit/music', { prompt: ['x'] }, 'prompt must be a string'],
      ['POST', '/suno/fetch', { ids: 'abc' }, 'ids must be an array'],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await call(method, path, body);
      expect(res.status, path).toBe(400);
      expect(res.body).toEqual({ code: 'invalid_request', message, data: null });
    }
    const noKey = await call('POST', '/suno/submit/music', { prompt: 'x' }, 'sk-wrong');
    expect(noKey).toMatchObject({ status: 401, body: { code: 'invalid_api_key', data: null } });
  });

  it("a caller cannot fetch another user's task", async () => {
    otherKey = (await addToken(t(), gw.users[0]!.userId!)).key;
    const id = (await call('POST', '/suno/submit/lyrics', { prompt: 'mine' })).body.data as string;
    const one = await call('GET', `/suno/fetch/${id}`, undefined, otherKey);
    expect(one).toMatchObject({ status: 400, body: { code: 'task_not_exist', data: null } });
    const list = await call('POST', '/suno/fetch', { ids: [id] }, otherKey);
    expect(list.body).toMatchObject({ code: 'success', data: [] });
    expect((await call('POST', '/suno/fetch', { ids: [id] })).body.data).toHaveLength(1);
  });
});

import crypto from 'node:crypto';
import { ChannelType } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend, startOn, type CrashBackend } from '../support/crash-server.js';
import { dialects } from '../support/databases.js';
import { MOCK_SUNO_KEY, startMockSuno, type MockSuno } from '../support/mock-suno.js';
import { waitForStart, type ServerProcess } from '../support/process.js';

const POLL_MS = 300;
const DEADLINE_MS = 30_000;
const USER_QUOTA = 1_000_000;
/** 0.1 × QuotaPerUnit (500 000). */
const PRICE = 50_000;
const START_TIMEOUT_MS = 60_000;

/** Through the API: root, the Suno price and channel, root's quota; an unlimited token in the database. Returns its key. */
async function provisionSuno(base: string, b: CrashBackend, upstream: string): Promise<string> {
  let cookie = '';
  const call = async (method: string, url: string, body?: unknown) => {
    const r = await fetch(base + url, {
      method,
      headers: { 'content-type': 'application/json', ...(cookie ? { cookie, 'new-api-user': '1' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const j = (await r.json()) as { success: boolean; message: string };
    if (!j.success) throw new Error(`${method} ${url}: ${j.message}`);
    return r;
  };
  await call('POST', '/api/setup', { username: 'root', password: 'root-pass-123', confirmPassword: 'root-pass-123' });
  cookie = (await call('POST', '/api/user/login', { username: 'root', password: 'root-pass-123' })).headers.get('set-cookie')!.split(';')[0]!;
  await call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ suno_music: 0.1 }) });
  await call('POST', '/api/channel/', {
    mode: 'single',
    channel: { name: 'suno', type: ChannelType.SunoAPI, key: MOCK_SUNO_KEY, base_url: upstream, models: 'suno_music', group: 'default' },
  });
  await call('PUT', '/api/user/', { id: 1, quota: USER_QUOTA });
  const key = crypto.randomBytes(24).toString('hex');
  await b.db.kysely
    .insertInto('tokens')
    .values({
      user_id: 1,
      key,
      status: 1,
      name: 'restart',
      created_time: Math.floor(Date.now() / 1000),
      accessed_time: 0,
      expired_time: -1,
      remain_quota: 0,
      unlimited_quota: 1,
      used_quota: 0,
      model_limits_enabled: 0,
      model_limits: '',
      allow_ips: '',
      group: '',
      rate_limit_enabled: 0,
      rate_limit_period: 60,
      rate_limit_count: 1000,
      rate_limit_success: 10,
      deleted_at: null,
    })
    .execute();
  return `sk-${key}`;
}

/**
 * A server killed (SIGKILL) right after a task is submitted, then started again on the same data: the new
 * process finds the unfinished task in the table and polls it to the end (PostgreSQL runs with Redis: the lease
 * there, the database lease on the others); the task was charged exactly once.
 */
describe.each(dialects)('task polling across a kill -9 (%s)', (dialect) => {
  let backend: CrashBackend;
  let mock: MockSuno;
  let server: ServerProcess | undefined;
  beforeAll(async () => {
    mock = await startMockSuno();
    backend = await openBackend(dialect);
    backend.env.TASK_POLL_INTERVAL_MS = String(POLL_MS);
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await backend?.drop();
    await mock?.close();
  });

  it(
    'the restarted server polls the task to SUCCESS; one charge, no refund',
    async () => {
      const first = await startOn(backend);
      server = first.server;
      await waitForStart(server);
      const key = await provisionSuno(first.base, backend, mock.url);
      const res = await fetch(`${first.base}/suno/submit/music`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'a song across a crash' }),
      });
      const taskId = ((await res.json()) as { data: string }).data;
      server.child.kill('SIGKILL');
      await server.exited;
      const polledBefore = mock.tasks.get(taskId)!.polls;
      const row = await backend.db.kysely.selectFrom('tasks').select(['status', 'quota']).where('task_id', '=', taskId).executeTakeFirstOrThrow();
      expect(row.status).not.toBe('SUCCESS');

      const second = await startOn(backend);
      server = second.server;
      await waitForStart(server);
      const end = Date.now() + DEADLINE_MS;
      let status = '';
      while (Date.now() < end) {
        status = (await backend.db.kysely.selectFrom('tasks').select('status').where('task_id', '=', taskId).executeTakeFirstOrThrow()).status;
        if (status === 'SUCCESS' || status === 'FAILURE') break;
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      expect(status).toBe('SUCCESS');
      expect(mock.tasks.get(taskId)!.polls).toBeGreaterThan(polledBefore);
      // Stopped cleanly so the writer commits; then the balance shows one charge.
      server.child.kill('SIGTERM');
      await server.exited;
      server = undefined;
      const user = await backend.db.kysely.selectFrom('users').select('quota').where('id', '=', 1).executeTakeFirstOrThrow();
      expect(Number(user.quota)).toBe(USER_QUOTA - PRICE);
    },
    START_TIMEOUT_MS * 2,
  );
});

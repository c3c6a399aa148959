import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChannelType, LogType } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend, startOn, type CrashBackend } from '../support/crash-server.js';
import { dialects } from '../support/databases.js';
import { MOCK_SUNO_KEY, startMockSuno, type MockSuno } from '../support/mock-suno.js';
import { tokenRow } from '../support/token-row.js';
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
  cookie = (await call('POST', '/api/user/login', { username: 'root', password: 'root-pass-123' })).headers
    .get('set-cookie')!
    .split(';')[0]!;
  await call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ suno_music: 0.1 }) });
  await call('POST', '/api/channel/', {
    mode: 'single',
    channel: {
      name: 'suno',
      type: ChannelType.SunoAPI,
      key: MOCK_SUNO_KEY,
      base_url: upstream,
      models: 'suno_music',
      group: 'default',
    },
  });
  await call('PUT', '/api/user/', { id: 1, quota: USER_QUOTA });
  const key = crypto.randomBytes(24).toString('hex');
  await b.db.kysely
    .insertInto('tokens')
    .values(tokenRow(key, { name: 'restart', created_time: Math.floor(Date.now() / 1000), unlimited_quota: 1 }))
    .execute();
  return `sk-${key}`;
}

/** In front of the mock: a submit reaches it (the upstream accepts the task) but its answer is never passed back. */
async function holdingSubmits(
  upstream: string,
): Promise<{ url: string; accepted: Promise<void>; close(): Promise<void> }> {
  let accepted!: () => void;
  const acceptedP = new Promise<void>((r) => (accepted = r));
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void fetch(upstream + req.url, {
        method: req.method,
        headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' },
        body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
      }).then(async (r) => {
        const body = await r.text();
        if (req.url!.startsWith('/suno/submit/')) {
          held.push(res);
          accepted();
          return;
        }
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(body);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: acceptedP,
    close: () => {
      for (const res of held) res.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

const HOUR_SECONDS = 3600;

/**
 * A server killed (SIGKILL) at the task engine's crash points, then started again on the same data (PostgreSQL
 * runs with Redis: the lease there, the database lease on the others):
 * - right after a task is submitted: the new process finds the unfinished task and polls it to the end, charged once;
 * - while the upstream holds a submission it accepted: nothing is charged; the row the submission left is ended by
 *   the poller once it is older than any submission can take;
 * - after a failed task's status was written but before its refund was: the poller's sweep gives the refund, once.
 */
describe.each(dialects)('task engine across a kill -9 (%s)', (dialect) => {
  let backend: CrashBackend;
  let mock: MockSuno;
  let server: ServerProcess | undefined;
  let key = '';
  const quota = async () =>
    Number(
      (await backend.db.kysely.selectFrom('users').select('quota').where('id', '=', 1).executeTakeFirstOrThrow()).quota,
    );
  const kill = async (signal: NodeJS.Signals) => {
    server!.child.kill(signal);
    await server!.exited;
    server = undefined;
  };
  const start = async () => {
    const s = await startOn(backend);
    server = s.server;
    await waitForStart(server);
    return s.base;
  };
  const submit = (base: string) =>
    fetch(`${base}/suno/submit/music`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a song across a crash' }),
    });
  const waitFor = async <T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> => {
    const end = Date.now() + DEADLINE_MS;
    let v = await read();
    while (!done(v) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, POLL_MS));
      v = await read();
    }
    return v;
  };
  beforeAll(async () => {
    mock = await startMockSuno();
    backend = await openBackend(dialect);
    backend.env.TASK_POLL_INTERVAL_MS = String(POLL_MS);
    key = await provisionSuno(await start(), backend, mock.url);
    await kill('SIGTERM');
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await backend?.drop();
    await mock?.close();
  });
  it(
    'the restarted server polls the task to SUCCESS; one charge, no refund',
    async () => {
      const before = await quota();
      const res = await submit(await start());
      const taskId = ((await res.json()) as { data: string }).data;
      await kill('SIGKILL');
      const row = await backend.db.kysely
        .selectFrom('tasks')
        .select(['status', 'quota', 'upstream_task_id'])
        .where('task_id', '=', taskId)
        .executeTakeFirstOrThrow();
      expect(row.upstream_task_id).not.toBe(taskId);
      const polledBefore = mock.tasks.get(row.upstream_task_id)!.polls;
      expect(row.status).not.toBe('SUCCESS');

      await start();
      const status = await waitFor(
        async () =>
          (
            await backend.db.kysely
              .selectFrom('tasks')
              .select('status')
              .where('task_id', '=', taskId)
              .executeTakeFirstOrThrow()
          ).status,
        (st) => st === 'SUCCESS' || st === 'FAILURE',
      );
      expect(status).toBe('SUCCESS');
      expect(mock.tasks.get(row.upstream_task_id)!.polls).toBeGreaterThan(polledBefore);
      // Stopped cleanly so the writer commits; then the balance shows one charge.
      await kill('SIGTERM');
      expect(await quota()).toBe(before - PRICE);
    },
    START_TIMEOUT_MS * 2,
  );

  it(
    'killed while the upstream holds an accepted submission: nothing charged, the row ended after the grace',
    async () => {
      const before = await quota();
      const proxy = await holdingSubmits(mock.url);
      try {
        await backend.db.kysely.updateTable('channels').set({ base_url: proxy.url }).execute();
        const base = await start();
        const answer = submit(base).catch(() => undefined);
        await proxy.accepted;
        await kill('SIGKILL');
        await answer;
      } finally {
        await proxy.close();
        await backend.db.kysely.updateTable('channels').set({ base_url: mock.url }).execute();
      }
      const cut = await backend.db.kysely
        .selectFrom('tasks')
        .selectAll()
        .where('upstream_task_id', '=', '')
        .executeTakeFirstOrThrow();
      expect({ status: cut.status, charge: cut.charge_batch }).toEqual({ status: 'NOT_START', charge: '' });
      // Time passes beyond any submission's length (the row's clock moved back rather than the test waiting).
      await backend.db.kysely
        .updateTable('tasks')
        .set({ submit_time: cut.submit_time - HOUR_SECONDS })
        .where('id', '=', cut.id)
        .execute();
      await start();
      const ended = await waitFor(
        async () =>
          await backend.db.kysely
            .selectFrom('tasks')
            .select(['status', 'fail_reason', 'refund_batch'])
            .where('id', '=', cut.id)
            .executeTakeFirstOrThrow(),
        (r) => r.status === 'FAILURE',
      );
      expect(ended).toEqual({ status: 'FAILURE', fail_reason: 'the submission was interrupted', refund_batch: '' });
      await kill('SIGTERM');
      expect(await quota()).toBe(before);
      const logs = await backend.db.kysely
        .selectFrom('logs')
        .select('id')
        .where(
          'request_id',
          '=',
          (
            await backend.db.kysely
              .selectFrom('tasks')
              .select('request_id')
              .where('id', '=', cut.id)
              .executeTakeFirstOrThrow()
          ).request_id,
        )
        .execute();
      expect(logs).toHaveLength(0);
    },
    START_TIMEOUT_MS * 2,
  );

  it(
    'killed between a failure and its refund: the restarted poller refunds it exactly once',
    async () => {
      const before = await quota();
      const res = await submit(await start());
      const taskId = ((await res.json()) as { data: string }).data;
      const charged = await waitFor(
        async () =>
          (
            await backend.db.kysely
              .selectFrom('tasks')
              .select('charge_batch')
              .where('task_id', '=', taskId)
              .executeTakeFirstOrThrow()
          ).charge_batch,
        (c) => c !== '',
      );
      expect(charged).not.toBe('');
      await kill('SIGKILL');
      expect(await quota()).toBe(before - PRICE);
      // What the dead process's poll wrote before it could journal the refund (the row's clock moved back).
      const now = Math.floor(Date.now() / 1000);
      await backend.db.kysely
        .updateTable('tasks')
        .set({
          status: 'FAILURE',
          fail_reason: 'upstream failed',
          progress: '100%',
          finish_time: now,
          updated_at: now - HOUR_SECONDS,
        })
        .where('task_id', '=', taskId)
        .execute();
      await start();
      const refunded = await waitFor(
        async () =>
          (
            await backend.db.kysely
              .selectFrom('tasks')
              .select('refund_batch')
              .where('task_id', '=', taskId)
              .executeTakeFirstOrThrow()
          ).refund_batch,
        (r) => r !== '',
      );
      expect(refunded).not.toBe('');
      // A few more passes: nothing is given twice.
      await new Promise((r) => setTimeout(r, POLL_MS * 5));
      await kill('SIGTERM');
      expect(await quota()).toBe(before);
      const refunds = (
        await backend.db.kysely.selectFrom('logs').select('other').where('type', '=', LogType.System).execute()
      ).filter((l) => JSON.parse(l.other || '{}').task_id === taskId);
      expect(refunds).toHaveLength(1);
    },
    START_TIMEOUT_MS * 2,
  );
});

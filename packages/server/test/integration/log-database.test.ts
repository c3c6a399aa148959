import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LogRow } from '@tollway/shared';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/connect.js';
import { applyBatch, type WriteRecord } from '../../src/accounting/writer-apply.js';
import { DurableWriter } from '../../src/accounting/writer.js';
import type { Client, TestApp } from '../support/app.js';
import { logDatabasePairs } from '../support/databases.js';
import { useGateway, useLogDatabaseEnv } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { logRow } from '../support/log-row.js';

/** LOG_SQL_DSN: the logs table in its own database, written by the durable writer and read by the log APIs. */
describe.each(logDatabasePairs)('logs in their own database (%s main, %s logs)', (mainDialect, logDialect) => {
  const env = useLogDatabaseEnv(logDialect);

  let t: TestApp, root: Client, user: Client, base: string, key: string;
  useGateway(mainDialect, { env, user: 'logdb-user', quota: 1_000_000 }, async (gw) => {
    ({ t, root, user, base, key } = gw);
    await addChannel(root, { name: 'logdb-mock', key: 'mock-key', baseUrl: gw.mock.url, models: 'gpt-4o-mini' });
  });

  const logsIn = async (db: Db, where: { model?: string; type?: number; userId?: number } = {}) => {
    await drainWriter(t);
    let q = db.kysely.selectFrom('logs').selectAll();
    if (where.model) q = q.where('model_name', '=', where.model);
    if (where.type) q = q.where('type', '=', where.type);
    if (where.userId) q = q.where('user_id', '=', where.userId);
    return q.execute();
  };
  const logDb = () => t.runtime.ctx.logDb;
  const mainDb = () => t.database.db;

  it('uses a second connection to the log database, migrated', () => {
    expect(logDb()).not.toBe(mainDb());
    expect(logDb().dialect).toBe(logDialect);
  });

  it('a relayed call: its log is in the log database only, its charge in the main one, the log APIs read it', async () => {
    const res = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const logged = await logsIn(logDb(), { model: 'gpt-4o-mini' });
    expect(logged).toHaveLength(1);
    expect(await logsIn(mainDb(), { model: 'gpt-4o-mini' })).toHaveLength(0);
    const charged = Number(logged[0]!.quota);
    expect(charged).toBeGreaterThan(0);
    const u = await mainDb()
      .kysely.selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', user.userId!)
      .executeTakeFirstOrThrow();
    expect({ quota: Number(u.quota), used: Number(u.used_quota), requests: Number(u.request_count) }).toEqual({
      quota: 1_000_000 - charged,
      used: charged,
      requests: 1,
    });
    const page = await user.call<{ items: LogRow[]; total: number }>('GET', '/api/log/self/?type=2');
    expect(page.body.data).toMatchObject({ total: 1, items: [{ model_name: 'gpt-4o-mini', quota: charged }] });
    const stat = await root.call<{ quota: number }>('GET', `/api/log/stat?username=logdb-user`);
    expect(stat.body.data!.quota).toBe(charged);
  });

  it('an account event (check-in) logs to the log database after its balance change commits; a refused one logs nothing', async () => {
    await root.call('PUT', '/api/option/', { key: 'CheckInEnabled', value: 'true' });
    await root.call('PUT', '/api/option/', { key: 'CheckInQuota', value: '700' });
    await root.call('PUT', '/api/option/', { key: 'CheckInMaxQuota', value: '0' });
    expect((await user.call('POST', '/api/user/check_in')).body.success).toBe(true);
    expect((await user.call('POST', '/api/user/check_in')).body.success).toBe(false);
    const inLogDb = await logsIn(logDb(), { type: 5, userId: user.userId! });
    expect(inLogDb.map((l) => Number(l.quota))).toEqual([700]);
    expect(await logsIn(mainDb(), { type: 5 })).toHaveLength(0);
    const self = await user.call<{ items: LogRow[] }>('GET', '/api/log/self/?type=5');
    expect(self.body.data!.items.map((l) => l.quota)).toEqual([700]);
  });

  it('deleting old logs deletes them from the log database', async () => {
    await drainWriter(t);
    const before = (await logsIn(logDb())).length;
    expect(before).toBeGreaterThan(0);
    const res = await root.call<number>('DELETE', `/api/log/?target_timestamp=${Math.floor(Date.now() / 1000) + 10}`);
    expect(res.body.data).toBe(before);
    expect(await logsIn(logDb())).toHaveLength(0);
  });

  it('a batch half applied (counters or logs) is completed on replay, never applied twice', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-logdb-'));
    const log = pino({ level: 'silent' });
    const userId = user.userId!;
    const quotaOf = async () =>
      Number(
        (await mainDb().kysely.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow())
          .quota,
      );
    const record = (content: string): WriteRecord => ({
      userId,
      tokenId: 0,
      tokenLimited: false,
      channelId: 0,
      quota: 5,
      countsRequest: true,
      log: logRow({
        user_id: userId,
        type: 4,
        content,
        username: 'logdb-user',
        model_name: 'replay',
        quota: 5,
        group: '',
        other: '',
      }),
    });
    try {
      const start = await quotaOf();
      // Counters applied, logs not (a crash between the two transactions).
      const a = { id: 'batch-a', records: [record('a')] };
      await mainDb()
        .kysely.transaction()
        .execute((trx) => applyBatch(trx, a.id, a.records, 1, { counters: true, logs: false }));
      // Logs applied, counters not.
      const b = { id: 'batch-b', records: [record('b')] };
      await logDb()
        .kysely.transaction()
        .execute((trx) => applyBatch(trx, b.id, b.records, 1, { counters: false, logs: true }));
      fs.writeFileSync(
        path.join(dir, 'writer-journal.jsonl'),
        `${JSON.stringify(a)}\n${JSON.stringify(b)}\n${JSON.stringify(a)}\n`,
      );
      const w = new DurableWriter(mainDb(), { dataDir: dir, log, logDb: logDb() });
      expect(await w.start()).toBe(2);
      await w.stop();
      const rows = await logDb()
        .kysely.selectFrom('logs')
        .select('content')
        .where('model_name', '=', 'replay')
        .orderBy('content')
        .execute();
      expect(rows.map((r) => r.content)).toEqual(['a', 'b']);
      expect(await quotaOf()).toBe(start - 10);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

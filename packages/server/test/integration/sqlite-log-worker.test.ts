import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { flatRuns, logChunks, logInsertSql } from '../../src/accounting/log-rows.js';
import { SqliteLogWorker } from '../../src/accounting/sqlite-log-worker.js';
import { applyBatch } from '../../src/accounting/writer-apply.js';
import { DurableWriter, type WriteRecord } from '../../src/accounting/writer.js';
import { loadSqliteDriver } from '../../src/db/sqlite-driver.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { loggedCharge, logRow } from '../support/log-row.js';
import { userRow } from '../support/user-row.js';

const log = pino({ level: 'silent' });
const START = 1_000_000;
const SRC = path.resolve(import.meta.dirname, '../../src');
/** A child process (tsx, the driver, a writer and its worker) takes 2–3 s idle; CI may be busy. */
const CHILD_TEST_TIMEOUT_MS = 60_000;

/**
 * On a SQLite file the writer's log rows go in through a worker thread with its own connection, after the batch's
 * counters committed with a marker that the rows are owed: rows once, however the two halves are interrupted.
 */
describe('SQLite log worker', () => {
  let d: TestDatabase;
  let dir: string;
  let uid: number;
  beforeAll(async () => {
    d = await createTestDatabase('sqlite');
    await migrateToLatest(d.db);
    await d.db.kysely
      .insertInto('users')
      .values(userRow('lw', { quota: START, aff_code: 'lw0001' }))
      .execute();
    uid = (await d.db.kysely.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-log-worker-'));
  });
  afterAll(async () => {
    await d?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const record = (quota: number, id: string): WriteRecord => loggedCharge(uid, 'lw', quota, id);
  const used = async () =>
    Number(
      (await d.db.kysely.selectFrom('users').select('used_quota').where('id', '=', uid).executeTakeFirstOrThrow())
        .used_quota,
    );
  const logsOf = async (prefix: string) =>
    (await d.db.kysely.selectFrom('logs').select('request_id').where('request_id', 'like', `${prefix}%`).execute())
      .length;
  const markers = async () =>
    (await d.db.kysely.selectFrom('writer_batches').select('id').where('id', 'like', '%:logs-owed').execute()).length;
  const worker = () => SqliteLogWorker.start(d.db.sqlite!, () => undefined)!;

  it('inserts a batch’s rows in the worker, in statements of 32, 8 and 1 rows, and leaves no marker', async () => {
    const before = await used();
    const w = worker();
    const insertOwed = vi.spyOn(w, 'insertOwed');
    const writer = new DurableWriter(d.db, { dataDir: path.join(dir, 'a'), log, logWorker: w });
    await writer.start();
    // 43 rows: one statement of 32, one of 8, three of 1.
    for (let i = 0; i < 43; i++) writer.enqueue(record(3, `a-${i}`));
    await writer.flush();
    expect(insertOwed).toHaveBeenCalledTimes(1);
    expect(insertOwed.mock.calls[0]![1]).toHaveLength(43);
    expect(await logsOf('a-')).toBe(43);
    expect(await used()).toBe(before + 43 * 3);
    expect(await markers()).toBe(0);
    await writer.stop();
    expect(w.alive).toBe(false);
  });

  it('a crash after the counters committed: the restart inserts the owed rows once and charges nothing again', async () => {
    const before = await used();
    const jdir = path.join(dir, 'b');
    // The worker never answers: the process dies with the counters committed and the rows owed.
    const hung = worker();
    vi.spyOn(hung, 'insertOwed').mockReturnValue(new Promise<boolean>(() => undefined));
    const dead = new DurableWriter(d.db, { dataDir: jdir, log, flushIntervalMs: 3_600_000, logWorker: hung });
    await dead.start();
    for (let i = 0; i < 5; i++) dead.enqueue(record(7, `b-${i}`));
    void dead.flush();
    await expect.poll(markers).toBe(1);
    expect(await used()).toBe(before + 35);
    expect(await logsOf('b-')).toBe(0);
    await hung.stop();

    const next = new DurableWriter(d.db, { dataDir: jdir, log });
    expect(await next.start()).toBe(5);
    await next.stop();
    const again = new DurableWriter(d.db, { dataDir: jdir, log });
    expect(await again.start()).toBe(0);
    await again.stop();
    expect(await used()).toBe(before + 35);
    expect(await logsOf('b-')).toBe(5);
    expect(await markers()).toBe(0);
  });

  it('a batch an earlier version applied whole (no marker) replays with no second copy of its rows', async () => {
    const before = await used();
    const batch = { id: 'c-old-batch', records: [record(11, 'c-0'), record(13, 'c-1')] };
    await d.db.kysely
      .transaction()
      .execute((trx) => applyBatch(trx, batch.id, batch.records, 1, { counters: true, logs: true }));
    const cdir = path.join(dir, 'c');
    fs.mkdirSync(cdir);
    fs.writeFileSync(path.join(cdir, 'writer-journal.jsonl'), `${JSON.stringify(batch)}\n`);
    const w = new DurableWriter(d.db, { dataDir: cdir, log });
    expect(await w.start()).toBe(0);
    await w.stop();
    expect(await used()).toBe(before + 24);
    expect(await logsOf('c-')).toBe(2);
  });

  it('the worker gone: the writer inserts the rows on the event loop, once, and says so', async () => {
    const warned: string[] = [];
    const w = SqliteLogWorker.start(d.db.sqlite!, (m) => warned.push(m))!;
    const writer = new DurableWriter(d.db, { dataDir: path.join(dir, 'd'), log, logWorker: w });
    await writer.start();
    writer.enqueue(record(1, 'd-0'));
    await writer.flush();
    await w.terminate();
    expect(w.alive).toBe(false);
    expect(warned.join()).toMatch(/sqlite log worker: ended/);
    for (let i = 1; i < 4; i++) writer.enqueue(record(1, `d-${i}`));
    await writer.flush();
    await writer.stop();
    expect(await logsOf('d-')).toBe(4);
    expect(await markers()).toBe(0);
  });

  it(
    'a process whose event loop empties with the rows’ job in flight waits for it before it exits',
    { timeout: CHILD_TEST_TIMEOUT_MS },
    async () => {
      // Enough rows (batches of 1,000) that the worker's jobs outlast the child's other pending I/O: without the
      // reference a job in flight holds, the child exited with rows owed (1,000 inserted of 20,000, a marker left).
      const rows = 20_000;
      // The script's last line leaves the flush running; nothing else holds the process open for long (the writer's
      // timers are unreferenced, and so is the idle worker).
      const script = `
        import pino from 'pino';
        import { connectDatabase } from ${JSON.stringify(`${SRC}/db/connect.ts`)};
        import { DurableWriter } from ${JSON.stringify(`${SRC}/accounting/writer.ts`)};
        const db = await connectDatabase('', ${JSON.stringify(d.db.sqlite!.name)});
        const w = new DurableWriter(db, { dataDir: ${JSON.stringify(path.join(dir, 'e'))}, log: pino({ level: 'silent' }) });
        await w.start();
        for (let i = 0; i < ${rows}; i++)
          w.enqueue({ userId: ${uid}, tokenId: 0, tokenLimited: false, channelId: 0, quota: 1, countsRequest: true,
            log: { user_id: ${uid}, created_at: 1, type: 2, request_id: 'e-' + i } });
        void w.flush();
      `;
      const res = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      });
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      expect(await logsOf('e-')).toBe(rows);
      expect(await markers()).toBe(0);
    },
  );

  it('a transaction that reads, then writes, is not failed by another connection’s commit in between (BEGIN IMMEDIATE)', async () => {
    const Sqlite = await loadSqliteDriver();
    const other = new Sqlite(d.db.sqlite!.name);
    other.pragma('busy_timeout = 0');
    let otherCommitted = true;
    try {
      await d.db.kysely.transaction().execute(async (trx) => {
        await trx.selectFrom('users').select('quota').where('id', '=', uid).executeTakeFirstOrThrow();
        try {
          other.prepare('UPDATE users SET request_count = request_count + 1 WHERE id = ?').run(uid);
        } catch (err) {
          expect((err as { code?: string }).code).toBe('SQLITE_BUSY');
          otherCommitted = false;
        }
        await trx.updateTable('users').set({ display_name: 'lw-immediate' }).where('id', '=', uid).execute();
      });
    } finally {
      other.close();
    }
    expect(otherCommitted).toBe(false);
    const row = await d.db.kysely
      .selectFrom('users')
      .select('display_name')
      .where('id', '=', uid)
      .executeTakeFirstOrThrow();
    expect(row.display_name).toBe('lw-immediate');
  });

  it('log inserts keep no statement journal: a batch writes a fraction of what the same INSERT without OR FAIL writes', async () => {
    // Bytes written by this thread (better-sqlite3 runs on it): the statement journal's temporary file and, at the
    // commit, the WAL.
    const written = () => Number(/^wchar: (\d+)$/m.exec(fs.readFileSync('/proc/thread-self/io', 'utf8'))![1]);
    const BATCH = 1024;
    // Consume rows as the relay writes them: a 400-character `other`.
    const run = (first: number) =>
      flatRuns(
        Array.from({ length: BATCH }, (_, i) =>
          logRow({ created_at: first + i, request_id: `io-${first + i}`, other: `{"a":"${'x'.repeat(392)}"}` }),
        ),
      )[0]!;
    // Each variant on a database of its own with nothing else connected to it and no checkpoint inside the
    // measure. SQLite journals only the pages there when the transaction began: a first batch makes them, the
    // second is measured.
    const batch = async (sql: (columns: readonly string[], size: number) => string) => {
      const fresh = await createTestDatabase('sqlite');
      try {
        await migrateToLatest(fresh.db);
        const sqlite = fresh.db.sqlite!;
        sqlite.pragma('wal_autocheckpoint = 0');
        const insert = (r: ReturnType<typeof run>) =>
          sqlite.transaction(() => {
            const width = r.columns.length;
            for (const { size, at } of logChunks(r.count))
              sqlite.prepare(sql(r.columns, size)).run(r.values.slice(at * width, (at + size) * width));
          })();
        insert(run(0));
        const before = written();
        insert(run(BATCH));
        return (written() - before) / BATCH;
      } finally {
        await fresh.drop();
      }
    };
    const shipped = await batch(logInsertSql);
    const journaled = await batch((columns, size) => logInsertSql(columns, size).replace('INSERT OR FAIL', 'INSERT'));
    expect(logInsertSql(['user_id'], 1)).toMatch(/^INSERT OR FAIL INTO logs/);
    // Measured (bytes a row): about 650 for the WAL alone, 3,200 with the statement journal's page copies.
    expect(journaled).toBeGreaterThan(shipped * 2.5);
  });
});

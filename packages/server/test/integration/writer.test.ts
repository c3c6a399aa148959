import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { LAZY_WRITE_MS } from '../../src/accounting/journal.js';
import { UNSETTLED_CALL_CONTENT } from '../../src/accounting/journal-recovery.js';
import { DurableWriter, type WriteRecord } from '../../src/accounting/writer.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { userRow } from '../support/user-row.js';
import { logRow } from '../support/log-row.js';

const log = pino({ level: 'silent' });

describe.each(dialects)('durable writer on %s', (dialect) => {
  let d: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    d = await createTestDatabase(dialect);
    await migrateToLatest(d.db);
    const k = d.db.kysely;
    await k
      .insertInto('users')
      .values(userRow('w', { quota: 10_000, aff_code: 'wwwwww' }))
      .execute();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-'));
  });
  afterAll(async () => {
    await d?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const userId = async () => (await d.db.kysely.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
  const record = (uid: number, quota: number, i: number): WriteRecord => ({
    userId: uid,
    tokenId: 0,
    tokenLimited: false,
    channelId: 0,
    quota,
    countsRequest: true,
    log: logRow({ user_id: uid, username: 'w', model_name: 'm', quota, prompt_tokens: i, request_id: `r${i}` }),
  });

  it('batches counters and multi-row log inserts, and reports commits', async () => {
    const uid = await userId();
    const committed: number[] = [];
    const w = new DurableWriter(d.db, { dataDir: dir, log, onCommitted: (rs) => committed.push(rs.length) });
    await w.start();
    for (let i = 0; i < 450; i++) w.enqueue(record(uid, 2, i));
    await w.stop();
    expect(committed.reduce((a, b) => a + b, 0)).toBe(450);
    const u = await d.db.kysely
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', uid)
      .executeTakeFirstOrThrow();
    expect({ q: Number(u.quota), used: Number(u.used_quota), n: u.request_count }).toEqual({
      q: 10_000 - 900,
      used: 900,
      n: 450,
    });
    expect(
      Number(
        (
          await d.db.kysely
            .selectFrom('logs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(450);
    expect(fs.readdirSync(path.join(dir, 'journal'))).toEqual([]);
  });

  it("replays an earlier version's single-file journal exactly once, skipping a torn last line", async () => {
    const uid = await userId();
    const journal = path.join(dir, 'writer-journal.jsonl');
    const batch = { id: 'crash-batch-1', records: [record(uid, 100, 1000), record(uid, 50, 1001)] };
    fs.writeFileSync(journal, `${JSON.stringify(batch)}\n${JSON.stringify(batch)}\n{"id":"torn`);
    const w = new DurableWriter(d.db, { dataDir: dir, log });
    expect(await w.start()).toBe(2);
    await w.stop();
    const again = new DurableWriter(d.db, { dataDir: dir, log });
    fs.writeFileSync(journal, `${JSON.stringify(batch)}\n`);
    expect(await again.start()).toBe(0);
    await again.stop();
    const u = await d.db.kysely
      .selectFrom('users')
      .select(['used_quota'])
      .where('id', '=', uid)
      .executeTakeFirstOrThrow();
    expect(Number(u.used_quota)).toBe(900 + 150);
  });
  const usedQuota = async (uid: number) =>
    Number(
      (await d.db.kysely.selectFrom('users').select('used_quota').where('id', '=', uid).executeTakeFirstOrThrow())
        .used_quota,
    );
  const rowsOf = async (prefix: string) =>
    (
      await d.db.kysely
        .selectFrom('logs')
        .select(['request_id', 'quota', 'content'])
        .where('request_id', 'like', `${prefix}%`)
        .orderBy('request_id')
        .execute()
    ).map((r) => ({
      id: r.request_id,
      quota: Number(r.quota),
      content: r.content,
    }));
  const withId = (r: WriteRecord, id: string): WriteRecord => ({ ...r, log: { ...r.log!, request_id: id } });

  it('after a crash bills settled calls exactly, open calls at their reservation, and refunded calls not at all, once', async () => {
    const uid = await userId();
    const crashDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-crash-'));
    const before = await usedQuota(uid);
    // A writer whose process "dies": its timer never flushes (long interval) and it is never stopped.
    const dead = new DurableWriter(d.db, { dataDir: crashDir, log, flushIntervalMs: 3_600_000 });
    await dead.start();
    await dead.begin('c-settled', withId(record(uid, 40, 1), 'c-settled'));
    await dead.begin('c-open', withId(record(uid, 70, 2), 'c-open'));
    await dead.begin('c-refunded', withId(record(uid, 90, 3), 'c-refunded'));
    dead.enqueue(withId(record(uid, 25, 1), 'c-settled'), 'c-settled');
    dead.release('c-refunded');
    // Opening lines are written at the next turn of the event loop, settlements within LAZY_WRITE_MS.
    await new Promise((r) => setTimeout(r, LAZY_WRITE_MS * 10));

    const next = new DurableWriter(d.db, { dataDir: crashDir, log });
    expect(await next.start()).toBe(1);
    await next.stop();
    expect(await usedQuota(uid)).toBe(before + 25 + 70);
    expect(await rowsOf('c-')).toEqual([
      { id: 'c-open', quota: 70, content: UNSETTLED_CALL_CONTENT },
      { id: 'c-settled', quota: 25, content: '' },
    ]);
    // The console words the billed-on-recovery row from its event (the content stays the English fallback).
    const open = await d.db.kysely
      .selectFrom('logs')
      .select('other')
      .where('request_id', '=', 'c-open')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(open.other).event).toEqual({ kind: 'unsettled_call' });
    expect(fs.readdirSync(path.join(crashDir, 'journal'))).toEqual([]);
    fs.rmSync(crashDir, { recursive: true, force: true });
  });

  it('replays journal segments exactly once when the previous run applied some of them before dying', async () => {
    const uid = await userId();
    const crashDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-crash-'));
    const before = await usedQuota(uid);
    const dead = new DurableWriter(d.db, { dataDir: crashDir, log, flushIntervalMs: 3_600_000 });
    await dead.start();
    await dead.begin('s-1', withId(record(uid, 10, 1), 's-1'));
    dead.enqueue(withId(record(uid, 11, 1), 's-1'), 's-1');
    await dead.flush();
    await dead.begin('s-2', withId(record(uid, 20, 2), 's-2'));
    dead.enqueue(withId(record(uid, 22, 2), 's-2'), 's-2');
    await new Promise((r) => setTimeout(r, LAZY_WRITE_MS * 10));
    // The first batch is committed and its segment gone; the second is only in the journal.
    const journal = path.join(crashDir, 'journal');
    const files = fs.readdirSync(journal);
    // Copy the journal as it is now, to replay it twice (a crash during the first recovery).
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-copy-'));
    fs.mkdirSync(path.join(copy, 'journal'));
    for (const f of files) fs.copyFileSync(path.join(journal, f), path.join(copy, 'journal', f));

    const next = new DurableWriter(d.db, { dataDir: crashDir, log });
    expect(await next.start()).toBe(1);
    await next.stop();
    const again = new DurableWriter(d.db, { dataDir: copy, log });
    expect(await again.start()).toBe(0);
    await again.stop();
    expect(await usedQuota(uid)).toBe(before + 11 + 22);
    expect((await rowsOf('s-')).map((r) => [r.id, r.quota])).toEqual([
      ['s-1', 11],
      ['s-2', 22],
    ]);
    fs.rmSync(crashDir, { recursive: true, force: true });
    fs.rmSync(copy, { recursive: true, force: true });
  });

  it('carries a long call forward so older segments go, and still bills it once after a crash', async () => {
    const uid = await userId();
    const crashDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-crash-'));
    const before = await usedQuota(uid);
    const dead = new DurableWriter(d.db, {
      dataDir: crashDir,
      log,
      flushIntervalMs: 3_600_000,
      carryOpenCallsAfterMs: 50,
    });
    await dead.start();
    await dead.begin('l-long', withId(record(uid, 500, 1), 'l-long'));
    for (let i = 0; i < 3; i++) {
      dead.enqueue(withId(record(uid, 1, i), `l-short-${i}`));
      await dead.flush();
      await new Promise((r) => setTimeout(r, 60));
    }
    await dead.flush();
    // Only the active segment is left: the long call's intent was copied into it.
    const journal = path.join(crashDir, 'journal');
    expect(fs.readdirSync(journal)).toHaveLength(1);
    expect(fs.readFileSync(path.join(journal, fs.readdirSync(journal)[0]!), 'utf8')).toContain('"i":"l-long"');
    expect(dead.openCalls()).toBe(1);

    const next = new DurableWriter(d.db, { dataDir: crashDir, log });
    await next.start();
    await next.stop();
    expect(await usedQuota(uid)).toBe(before + 3 + 500);
    expect((await rowsOf('l-long')).map((r) => r.quota)).toEqual([500]);
    fs.rmSync(crashDir, { recursive: true, force: true });
  });

  it.each(['interval', 'always'] as const)(
    'with JOURNAL_FSYNC=%s, a call settling while its segment is applied is still billed if the process dies as that segment is deleted',
    async (fsync) => {
      const uid = await userId();
      const crashDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-drop-'));
      const snapshot = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-snap-'));
      const journal = path.join(crashDir, 'journal');
      const before = await usedQuota(uid);
      const id = `g-${fsync}`;
      let settled = false;
      const dead = new DurableWriter(d.db, {
        dataDir: crashDir,
        log,
        fsync,
        flushIntervalMs: 3_600_000,
        // The call's answer ends just as its segment's batch commits: its settlement is queued, not yet written.
        onCommitted: () => {
          if (settled) return;
          settled = true;
          dead.enqueue(withId(record(uid, 6, 1), id), id);
        },
      });
      await dead.start();
      await dead.begin(id, withId(record(uid, 80, 1), id));
      dead.enqueue(withId(record(uid, 1, 2), `${id}-other`));
      // The process dies right after the applied segment is unlinked: the journal as it is then is what survives.
      const unlink = fs.promises.unlink;
      fs.promises.unlink = async (file) => {
        for (const f of fs.readdirSync(journal))
          if (path.join(journal, f) !== file) fs.copyFileSync(path.join(journal, f), path.join(snapshot, f));
        return unlink(file);
      };
      try {
        await dead.flush();
      } finally {
        fs.promises.unlink = unlink;
      }
      expect(settled).toBe(true);

      fs.rmSync(crashDir, { recursive: true, force: true });
      fs.mkdirSync(crashDir);
      fs.renameSync(snapshot, journal);
      const next = new DurableWriter(d.db, { dataDir: crashDir, log });
      await next.start();
      await next.stop();
      expect(await usedQuota(uid)).toBe(before + 1 + 6);
      expect((await rowsOf(id)).map((r) => [r.id, r.quota])).toEqual([
        [id, 6],
        [`${id}-other`, 1],
      ]);
      fs.rmSync(crashDir, { recursive: true, force: true });
    },
  );

  it('stop waits for open calls to settle and leaves an empty journal', async () => {
    const uid = await userId();
    const stopDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-stop-'));
    const before = await usedQuota(uid);
    const w = new DurableWriter(d.db, { dataDir: stopDir, log });
    await w.start();
    await w.begin('w-late', withId(record(uid, 30, 1), 'w-late'));
    const stopped = w.stop();
    // The call settles after the stop began (a stream finishing during shutdown).
    await new Promise((r) => setTimeout(r, 100));
    w.enqueue(withId(record(uid, 12, 1), 'w-late'), 'w-late');
    await stopped;
    expect(await usedQuota(uid)).toBe(before + 12);
    expect(fs.readdirSync(path.join(stopDir, 'journal'))).toEqual([]);
    fs.rmSync(stopDir, { recursive: true, force: true });
  });
  it('stop called while the timer flush is in progress waits for that batch (it was in neither queue)', async () => {
    const uid = await userId();
    const raceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-race-'));
    const before = await usedQuota(uid);
    const w = new DurableWriter(d.db, { dataDir: raceDir, log });
    await w.start();
    for (let i = 0; i < 3; i++) w.enqueue(withId(record(uid, 5, i), `race-${i}`));
    // As the flush timer does: a run starts, then SIGTERM's stop arrives while it is applying.
    void w.flush();
    await w.stop();
    expect(await usedQuota(uid)).toBe(before + 15);
    expect(fs.readdirSync(path.join(raceDir, 'journal'))).toEqual([]);
    fs.rmSync(raceDir, { recursive: true, force: true });
  });
  it.each(['always', 'off'] as const)(
    'with JOURNAL_FSYNC=%s a call opens, settles and commits the same way',
    async (fsync) => {
      const uid = await userId();
      const syncDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-fsync-'));
      const before = await usedQuota(uid);
      const w = new DurableWriter(d.db, { dataDir: syncDir, log, fsync });
      await w.start();
      await w.begin(`f-${fsync}`, withId(record(uid, 9, 1), `f-${fsync}`));
      // Once begin resolved, the opening line is in the segment file.
      const journal = path.join(syncDir, 'journal');
      expect(
        fs
          .readdirSync(journal)
          .map((f) => fs.readFileSync(path.join(journal, f), 'utf8'))
          .join(''),
      ).toContain(`"i":"f-${fsync}"`);
      w.enqueue(withId(record(uid, 4, 1), `f-${fsync}`), `f-${fsync}`);
      await w.stop();
      expect(await usedQuota(uid)).toBe(before + 4);
      expect(fs.readdirSync(journal)).toEqual([]);
      fs.rmSync(syncDir, { recursive: true, force: true });
    },
  );

  it('with JOURNAL_FSYNC=always, calls opening while segments rotate all resolve (no fsync on a closed descriptor)', async () => {
    const uid = await userId();
    // A RAM disk when there is one: its instant fsyncs make the race with a rotation's close likely.
    const syncDir = fs.mkdtempSync(
      path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'tollway-writer-always-'),
    );
    const before = await usedQuota(uid);
    const w = new DurableWriter(d.db, { dataDir: syncDir, log, fsync: 'always', flushIntervalMs: 1 });
    await w.start();
    const CALLS = 600;
    for (let i = 0; i < CALLS; i++) {
      await w.begin(`a-${i}`, withId(record(uid, 3, i), `a-${i}`));
      w.enqueue(withId(record(uid, 1, i), `a-${i}`), `a-${i}`);
    }
    await w.stop();
    expect(await usedQuota(uid)).toBe(before + CALLS);
    fs.rmSync(syncDir, { recursive: true, force: true });
  });
  it('stores every log column as Kysely would insert it: quoting, unicode, control characters, large numbers, defaults, more rows than one statement', async () => {
    const uid = await userId();
    const odd = [`O'Brien "q" \\ back\\slash`, 'line\nbreak\ttab\u0001', '中文 ünïcödé', '$1 $$ :name ? %s', ''];
    const rows = Array.from({ length: 1_201 }, (_, i) => {
      const row = logRow({
        user_id: uid,
        created_at: 1_795_960_800 + i,
        username: odd[i % odd.length]!.slice(0, 60),
        model_name: `m-${odd[(i + 1) % odd.length]}`,
        content: i % 7 ? `${odd[i % odd.length]} 🎉 ${i}` : '',
        quota: Number.MAX_SAFE_INTEGER - i,
        prompt_tokens: i,
        is_stream: i % 2,
        request_id: `col-${i}`,
        other: JSON.stringify({ n: i, s: odd[i % odd.length], nested: { a: [1, 'x"y'] } }),
      });
      // Runs of rows that leave columns undefined (their defaults apply) split the batch into column sets.
      return i % 100 < 5 ? { ...row, other: undefined as unknown as string, ip: undefined as unknown as string } : row;
    });
    const w = new DurableWriter(d.db, { dataDir: dir, log });
    await w.start();
    rows.forEach((r) =>
      w.enqueue({ userId: uid, tokenId: 0, tokenLimited: false, channelId: 0, quota: 0, countsRequest: false, log: r }),
    );
    await w.stop();
    // The reference: the same rows through Kysely's own insert, under other request ids.
    for (const r of rows)
      await d.db.kysely
        .insertInto('logs')
        .values({ ...r, request_id: `ref-${r.request_id}` })
        .execute();
    const read = async (prefix: string) =>
      (
        await d.db.kysely
          .selectFrom('logs')
          .selectAll()
          .where('request_id', 'like', `${prefix}-%`)
          .orderBy('id')
          .execute()
      ).map(({ id: _id, request_id, quota, created_at, ...rest }) => ({
        ...rest,
        quota: Number(quota),
        created_at: Number(created_at),
        request_id: request_id.replace(/^ref-/, ''),
      }));
    const written = await read('col');
    expect(written).toHaveLength(rows.length);
    expect(written).toEqual(await read('ref-col'));
    expect(written[3]!.quota).toBe(Number.MAX_SAFE_INTEGER - 3);
  });
});

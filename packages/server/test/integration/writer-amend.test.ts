import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { LAZY_WRITE_MS } from '../../src/accounting/journal.js';
import { DurableWriter, type WriteRecord } from '../../src/accounting/writer.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { userRow } from '../support/user-row.js';
import { loggedCharge } from '../support/log-row.js';

const log = pino({ level: 'silent' });
const FIRST_HOLD = 30;
const GROWN_HOLD = 90;

/**
 * A call whose hold grew after it was journaled (a move to a dearer fallback model) has its opening line replaced
 * (DurableWriter.amend): a crash bills the grown hold, once, and the segment of the first line still goes.
 */
describe.each(dialects)('a journaled call whose hold grew, on %s', (dialect) => {
  let d: TestDatabase;
  let uid = 0;
  beforeAll(async () => {
    d = await createTestDatabase(dialect);
    await migrateToLatest(d.db);
    await d.db.kysely
      .insertInto('users')
      .values(userRow('amend', { quota: 10_000, aff_code: 'amend1' }))
      .execute();
    uid = (await d.db.kysely.selectFrom('users').select('id').executeTakeFirstOrThrow()).id;
  });
  afterAll(async () => d?.drop());

  const record = (quota: number, id: string): WriteRecord => loggedCharge(uid, 'amend', quota, id);
  const usedQuota = async () =>
    Number(
      (await d.db.kysely.selectFrom('users').select('used_quota').where('id', '=', uid).executeTakeFirstOrThrow())
        .used_quota,
    );

  it('bills the grown hold after a crash, once, and lets the first line’s segment go', async () => {
    const crashDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-writer-amend-'));
    const journal = path.join(crashDir, 'journal');
    const before = await usedQuota();
    const dead = new DurableWriter(d.db, { dataDir: crashDir, log, flushIntervalMs: 3_600_000 });
    await dead.start();
    await dead.begin('grown', record(FIRST_HOLD, 'grown'));
    const [first] = fs.readdirSync(journal);
    // Another call settles and its batch commits: the journal moves to a new segment.
    dead.enqueue(record(1, 'other-1'));
    await dead.flush();
    await dead.amend('grown', record(GROWN_HOLD, 'grown'));
    dead.enqueue(record(1, 'other-2'));
    await dead.flush();
    await new Promise((r) => setTimeout(r, LAZY_WRITE_MS * 10));
    // The first line's segment had nothing else open: it is gone; the grown line is in a later one.
    const files = fs.readdirSync(journal);
    expect(files).not.toContain(first);
    const text = files.map((f) => fs.readFileSync(path.join(journal, f), 'utf8')).join('');
    expect(text).toContain(`"quota":${GROWN_HOLD}`);
    expect(text).not.toContain(`"quota":${FIRST_HOLD}`);
    expect(dead.openCalls()).toBe(1);

    const next = new DurableWriter(d.db, { dataDir: crashDir, log });
    await next.start();
    await next.stop();
    expect(await usedQuota()).toBe(before + 2 + GROWN_HOLD);
    const rows = await d.db.kysely.selectFrom('logs').select('quota').where('request_id', '=', 'grown').execute();
    expect(rows.map((r) => Number(r.quota))).toEqual([GROWN_HOLD]);
    fs.rmSync(crashDir, { recursive: true, force: true });
  });
});

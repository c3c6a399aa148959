import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { DurableWriter, type WriteRecord } from '../../src/relay/writer.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';

const log = pino({ level: 'silent' });

describe.each(dialects)('durable writer on %s', (dialect) => {
  let d: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    d = await createTestDatabase(dialect);
    await migrateToLatest(d.db);
    const k = d.db.kysely;
    await k.insertInto('users').values({ username: 'w', password: 'x', display_name: 'w', role: 1, status: 1, email: '', github_id: '', oidc_id: '', wechat_id: '', telegram_id: '', linux_do_id: '', access_token: null, quota: 10_000, used_quota: 0, request_count: 0, group: 'default', aff_code: 'wwwwww', aff_count: 0, aff_quota: 0, aff_history: 0, inviter_id: 0, setting: '', remark: '', created_at: 0, deleted_at: null }).execute();
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
    log: { user_id: uid, created_at: 1, type: 2, content: '', username: 'w', token_name: '', model_name: 'm', quota, prompt_tokens: i, completion_tokens: 0, use_time: 0, is_stream: 0, channel_id: 0, channel_name: '', token_id: 0, group: 'default', ip: '', request_id: `r${i}`, other: '{}' },
  });

  it('batches counters and multi-row log inserts, and reports commits', async () => {
    const uid = await userId();
    const committed: number[] = [];
    const w = new DurableWriter(d.db, { dataDir: dir, log, onCommitted: (rs) => committed.push(rs.length) });
    await w.start();
    for (let i = 0; i < 450; i++) w.enqueue(record(uid, 2, i));
    await w.stop();
    expect(committed.reduce((a, b) => a + b, 0)).toBe(450);
    const u = await d.db.kysely.selectFrom('users').select(['quota', 'used_quota', 'request_count']).where('id', '=', uid).executeTakeFirstOrThrow();
    expect({ q: Number(u.quota), used: Number(u.used_quota), n: u.request_count }).toEqual({ q: 10_000 - 900, used: 900, n: 450 });
    expect(Number((await d.db.kysely.selectFrom('logs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)).toBe(450);
    expect(fs.readFileSync(path.join(dir, 'writer-journal.jsonl'), 'utf8')).toBe('');
  });

  it('replays a journal left by a crash exactly once, skipping a torn last line', async () => {
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
    const u = await d.db.kysely.selectFrom('users').select(['used_quota']).where('id', '=', uid).executeTakeFirstOrThrow();
    expect(Number(u.used_quota)).toBe(900 + 150);
  });
});

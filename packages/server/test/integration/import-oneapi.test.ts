import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { runImport, type ImportResult } from '../../src/import/run.js';
import { SecretBox } from '../../src/lib/secret-box.js';
import { Client, startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { createSourceSchema, ONE_API } from '../support/newapi-schema.js';
import { seedOneApi, type SourceFacts } from '../support/newapi-rows.js';

/** one-api runs mostly on MySQL: its import is tested there (or on the one dialect a narrowed run has). */
const DIALECT = dialects.includes('mysql') ? 'mysql' : dialects[0]!;
const log = pino({ level: 'silent' });

describe(`import of a one-api database on ${DIALECT}`, () => {
  let source: TestDatabase,
    target: TestDatabase,
    mock: MockUpstream,
    facts: SourceFacts,
    result: ImportResult,
    t: TestApp;
  const box = new SecretBox(undefined);

  beforeAll(async () => {
    mock = await startMockUpstream();
    source = await createTestDatabase(DIALECT);
    await createSourceSchema(source.db.kysely, DIALECT, ONE_API);
    facts = await seedOneApi(source.db.kysely, DIALECT, mock.url);
    target = await createTestDatabase(DIALECT);
    await migrateToLatest(target.db);
    result = await runImport({ from: source.dsn, target: target.db, box, log });
  });
  afterAll(async () => {
    await t?.close();
    await target?.drop();
    await source?.drop();
    await mock?.close();
  });

  it('detects one-api, maps its token limits and log times, notes what Tollway lacks, and keeps the quota sums', async () => {
    expect(result.source.product).toBe('one-api');
    expect(result.reports.find((r) => r.table === 'users')).toMatchObject({ read: 2, written: 2 });
    expect(
      result.reports
        .find((r) => r.table === 'users')!
        .lines()
        .join('\n'),
    ).toContain('users.lark_id');
    expect(
      result.reports
        .find((r) => r.table === 'channels')!
        .lines()
        .join('\n'),
    ).toContain('channels.config');
    expect(result.quota.map((q) => [q.before, q.after])).toEqual([
      [facts.quota.users, facts.quota.users],
      [facts.quota.used, facts.quota.used],
      [facts.quota.tokens, facts.quota.tokens],
    ]);
    const k = target.db.kysely;
    // one-api has no subscription tables: nothing is read or written for them.
    for (const table of ['subscription_plans', 'user_subscriptions', 'subscription_orders'] as const) {
      expect(result.reports.find((r) => r.table === table)).toMatchObject({ read: 0, written: 0 });
      expect(await k.selectFrom(table).select('id').execute()).toEqual([]);
    }
    const token = await k.selectFrom('tokens').selectAll().executeTakeFirstOrThrow();
    expect(token).toMatchObject({
      key: facts.tokenKey.slice(3),
      model_limits_enabled: 1,
      model_limits: 'gpt-4o-mini',
      remain_quota: 300000,
    });
    const row = await k.selectFrom('logs').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ use_time: 3, is_stream: 1, channel_name: 'one-openai' });
    const channels = await k
      .selectFrom('channels')
      .select(['id', 'type', 'status', 'base_url'])
      .orderBy('id')
      .execute();
    expect(channels.slice(1)).toEqual([
      { id: 2, type: 43, status: 1, base_url: '' },
      { id: 3, type: 1, status: 1, base_url: 'https://api.groq.com/openai' },
      { id: 4, type: 38, status: 2, base_url: '' },
    ]);
    const notes = result.reports
      .find((r) => r.table === 'channels')!
      .lines()
      .join('\n');
    expect(notes).toContain('one-api type 36 stored as new-api type 43');
    expect(notes).toContain('one-api type 38 has no Tollway counterpart');
    const deepl = await k.selectFrom('abilities').select('enabled').where('channel_id', '=', 4).execute();
    expect(deepl).toEqual([{ enabled: 0 }]);
    const again = await runImport({ from: source.dsn, target: target.db, box, log });
    expect(again.written).toBe(0);
  });

  it('the one-api user logs in with the same password and the same key relays', async () => {
    t = await startTestApp(DIALECT, {}, target);
    const dave = new Client(t.app);
    expect((await dave.login(facts.username, facts.password)).body.success).toBe(true);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${facts.tokenKey}` },
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(res.statusCode).toBe(200);
    expect(mock.requests.at(-1)!.key).toBe('one-upstream-key');
  });
});

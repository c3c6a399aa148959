import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { RefusedError, runImport, type ImportResult } from '../../src/import/run.js';
import { SecretBox, SecretKeyError } from '../../src/lib/secret-box.js';
import { Client, startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { drainWriter } from '../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.js';
import { createSourceSchema, NEW_API } from '../support/newapi-schema.js';
import { BOB_TOTP_SECRET, NEWAPI_TIERED_EXPR, seedNewApi, type SourceFacts } from '../support/newapi-rows.js';
import { secondStep } from '../support/twofa.js';
import { totpCode } from '../../src/modules/twofa/totp.js';

const CRYPTO_SECRET = 'import-test-crypto-secret-0123456789';
const log = pino({ level: 'silent' });
const TABLES = [
  'users',
  'tokens',
  'channels',
  'abilities',
  'options',
  'redemptions',
  'redemption_uses',
  'top_ups',
  'logs',
  'midjourneys',
  'tasks',
  'user_identities',
  'setups',
] as const;

/** Every row of the imported tables, for comparing two states of the target. */
async function snapshot(db: TestDatabase): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    const rows = await db.db.kysely.selectFrom(table).selectAll().execute();
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** mysql://user:pass@host:port/db as GORM's user:pass@tcp(host:port)/db?charset=utf8mb4&parseTime=True&loc=Local. */
function gormDsn(dsn: string): string {
  const u = new URL(dsn);
  return `${u.username}:${u.password}@tcp(${u.hostname}:${u.port || 3306})${u.pathname}?charset=utf8mb4&parseTime=True&loc=Local`;
}

const userLines = (r: ImportResult) => report(r, 'users').lines().join('\n');
const report = (r: ImportResult, table: string) => r.reports.find((x) => x.table === table)!;

describe.each(dialects)('import of a new-api database on %s', (dialect) => {
  let source: TestDatabase,
    target: TestDatabase,
    mock: MockUpstream,
    facts: SourceFacts,
    first: ImportResult,
    t: TestApp;
  const box = new SecretBox(CRYPTO_SECRET);

  beforeAll(async () => {
    mock = await startMockUpstream();
    source = await createTestDatabase(dialect);
    await createSourceSchema(source.db.kysely, dialect, NEW_API);
    facts = await seedNewApi(source.db.kysely, dialect, mock.url);
    target = await createTestDatabase(dialect);
    await migrateToLatest(target.db);
    // MySQL's source is named the way new-api's SQL_DSN names it (GORM's form).
    first = await runImport({
      from: dialect === 'mysql' ? gormDsn(source.dsn) : source.dsn,
      target: target.db,
      box,
      log,
    });
  });
  afterAll(async () => {
    await t?.close();
    await target?.drop();
    await source?.drop();
    await mock?.close();
  });

  it('detects new-api, copies every table, lists what it could not map, and keeps the quota sums', () => {
    expect(first.source.product).toBe('new-api');
    expect(first.mode).toBe('fresh');
    expect(report(first, 'users')).toMatchObject({ read: 4, written: 4 });
    expect(report(first, 'tokens')).toMatchObject({ read: 3, written: 3 });
    expect(report(first, 'channels')).toMatchObject({ read: 2, written: 2 });
    // Abilities: the source's 5 rows, rebuilt from the channels (4 for the first, 1 for the disabled one).
    expect(report(first, 'abilities')).toMatchObject({ read: 5, written: 5 });
    expect(report(first, 'redemptions')).toMatchObject({ read: 2, written: 2 });
    expect(report(first, 'top_ups')).toMatchObject({ read: 1, written: 1 });
    expect(report(first, 'logs')).toMatchObject({ read: 3, written: 3 });
    expect(report(first, 'midjourneys')).toMatchObject({ read: 2, written: 2 });
    expect(report(first, 'tasks')).toMatchObject({ read: 4, written: 4 });
    const users = report(first, 'users').lines().join('\n');
    expect(users).toContain(
      'not mapped in 1 row(s): users.discord_id: Tollway has no such sign-in; the binding is not kept (id 3)',
    );
    // settings, header_override and remark are carried; a setting Tollway cannot honour is noted.
    const channels = report(first, 'channels').lines().join('\n');
    expect(channels).not.toContain('channels.header_override');
    expect(channels).not.toContain('channels.remark');
    expect(channels).toContain('channels.settings.azure_responses_version: a value Tollway does not support');
    const options = report(first, 'options');
    expect(options.skipped.get('unknown to Tollway')?.examples).toEqual(['SomeFutureOption']);
    expect(options.written).toBe(8);
    expect(first.quota.map((q) => [q.label, q.before, q.after, q.ok])).toEqual([
      ['users.quota', facts.quota.users, facts.quota.users, true],
      ['users.used_quota', facts.quota.used, facts.quota.used, true],
      ['tokens.remain_quota', facts.quota.tokens, facts.quota.tokens, true],
    ]);
  });

  it('stores keys and secrets sealed as Tollway does, rebuilds abilities, marks task charges and maps ids', async () => {
    const k = target.db.kysely;
    const token = await k.selectFrom('tokens').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    expect(token.key).toBe(box.sealFixed(facts.tokenKey.slice(3)));
    const channel = await k.selectFrom('channels').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    expect(channel.key.startsWith('enc:v1:')).toBe(true);
    expect(box.open(channel.key)).toBe('upstream-key-1');
    expect(JSON.parse(channel.model_mapping)).toEqual({ 'gpt-4o': 'gpt-4o-mini' });
    expect(channel).toMatchObject({ priority: 10, weight: 5, tag: 'main', group: 'default,vip', balance: 12.5 });
    // new-api's settings and header_override as the source stores them, byte for byte; the remark too.
    expect(channel.settings).toBe(
      JSON.stringify({ allow_service_tier: true, azure_responses_version: 'preview', custom_flag: 1 }),
    );
    expect(channel.header_override).toBe(JSON.stringify({ 'X-Org': 'acme', 'X-Proxy-Key': '{api_key}' }));
    expect(channel.setting).toBe(JSON.stringify({ force_format: false }));
    const multi = await k.selectFrom('channels').selectAll().where('id', '=', 3).executeTakeFirstOrThrow();
    expect(JSON.parse(multi.channel_info)).toMatchObject({ is_multi_key: true, multi_key_mode: 'polling' });
    expect(multi.remark).toBe('spare');
    const abilities = await k
      .selectFrom('abilities')
      .selectAll()
      .orderBy('channel_id')
      .orderBy('group')
      .orderBy('model')
      .execute();
    expect(abilities.map((a) => `${a.channel_id}/${a.group}/${a.model}/${a.enabled}`)).toEqual([
      '1/default/gpt-4o/1',
      '1/default/gpt-4o-mini/1',
      '1/vip/gpt-4o/1',
      '1/vip/gpt-4o-mini/1',
      '3/default/gpt-4o-mini/0',
    ]);
    const secret = await k
      .selectFrom('options')
      .select('value')
      .where('key', '=', 'GitHubClientSecret')
      .executeTakeFirstOrThrow();
    expect(box.open(secret.value)).toBe('gh-client-secret');
    // new-api's name of a Tollway option lands under Tollway's.
    const checkIn = await k
      .selectFrom('options')
      .select(['key', 'value'])
      .where('key', 'in', ['CheckInMaxQuota', 'checkin_setting.max_quota'])
      .execute();
    expect(checkIn).toEqual([{ key: 'CheckInMaxQuota', value: '2000' }]);
    const price = await k
      .selectFrom('options')
      .select('value')
      .where('key', '=', 'ModelPrice')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(price.value)).toEqual({ 'free-image': 0, 'paid-image': 0.05 });
    const exprs = await k
      .selectFrom('options')
      .select('value')
      .where('key', '=', 'billing_setting.billing_expr')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(exprs.value)).toEqual({ 'gpt-4o': NEWAPI_TIERED_EXPR });
    const root = await k.selectFrom('users').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    expect(root.access_token).toBe(box.lookupForm('a'.repeat(32)));
    const alice = await k.selectFrom('users').select('setting').where('id', '=', 2).executeTakeFirstOrThrow();
    const setting = JSON.parse(alice.setting) as { webhook_secret: string; webhook_url: string };
    expect(setting.webhook_secret.startsWith('enc:v1:')).toBe(true);
    expect(box.open(setting.webhook_secret)).toBe('whsec-alice');
    expect(setting.webhook_url).toBe('https://hooks.example/alice');
    const bob = await k.selectFrom('users').selectAll().where('username', '=', 'bob').executeTakeFirstOrThrow();
    expect(bob).toMatchObject({ inviter_id: 2, linux_do_id: '77', aff_code: 'Bob1' });
    const carol = await k.selectFrom('users').selectAll().where('username', '=', 'carol').executeTakeFirstOrThrow();
    expect(carol.deleted_at).not.toBeNull();
    // PostgreSQL and MySQL enforce Tollway's varchar(64): the name is cut, and the summary says so.
    expect(carol.display_name).toBe(dialect === 'sqlite' ? `Carol ${'x'.repeat(70)}` : `Carol ${'x'.repeat(58)}`);
    if (dialect !== 'sqlite')
      expect(userLines(first)).toContain('users.display_name longer than 64 characters: cut (id 5)');
    const ids = await k
      .selectFrom('user_identities')
      .select(['provider', 'external_id', 'user_id'])
      .orderBy('provider')
      .execute();
    expect(ids).toEqual([
      { provider: 'github', external_id: '4242', user_id: 2 },
      { provider: 'linuxdo', external_id: '77', user_id: 3 },
    ]);
    const hourly = await k
      .selectFrom('quota_data')
      .select(['user_id', 'model_name', 'count', 'quota'])
      .orderBy('id')
      .execute();
    expect(hourly).toEqual([
      { user_id: 2, model_name: 'gpt-4o-mini', count: 1, quota: 2000 },
      { user_id: 2, model_name: 'gpt-4o', count: 2, quota: 900 },
    ]);
    const vendors = await k.selectFrom('vendors').select(['id', 'name', 'icon']).execute();
    expect(vendors).toEqual([{ id: 3, name: 'OpenAI', icon: 'OpenAI' }]);
    const registry = await k.selectFrom('models').select(['model_name', 'vendor_id', 'name_rule', 'tags']).execute();
    expect(registry).toEqual([{ model_name: 'gpt-4o', vendor_id: 3, name_rule: 1, tags: 'chat' }]);
    const twoFactor = await k.selectFrom('two_factor').selectAll().execute();
    expect(twoFactor).toEqual([expect.objectContaining({ user_id: 3, enabled: 1 })]);
    expect(box.open(twoFactor[0]!.secret)).toBe(BOB_TOTP_SECRET);
    // His unused backup code is kept as new-api's bcrypt hash (import-twofa-codes.test.ts signs in with it).
    const codes = await k.selectFrom('two_factor_backup_codes').select(['user_id', 'used_at']).execute();
    expect(codes).toEqual([{ user_id: 3, used_at: 0 }]);
    const uses = await k.selectFrom('redemption_uses').selectAll().execute();
    expect(uses).toEqual([expect.objectContaining({ redemption_id: 2, user_id: 2, quota: 50000 })]);
    const mj = await k.selectFrom('midjourneys').selectAll().orderBy('id').execute();
    expect(mj.map((m) => [m.status, m.model_name, m.charge_batch, m.refund_batch])).toEqual([
      ['SUCCESS', 'mj_imagine', 'imported', ''],
      ['FAILURE', 'mj_upscale', 'imported', 'imported'],
    ]);
    const tasks = await k.selectFrom('tasks').selectAll().orderBy('id').execute();
    expect(
      tasks.map((x) => [x.task_id, x.upstream_task_id, x.token_id, x.model_name, x.charge_batch, x.refund_batch]),
    ).toEqual([
      ['task_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56', 'suno-up-77', 1, 'suno_music', 'imported', ''],
      ['video-legacy-1', 'video-legacy-1', 0, '', 'imported', ''],
      ['task_sora1', 'video_abc', 0, '', 'imported', 'imported'],
      ['task_hailuo1', 'task_hailuo1', 0, '', 'imported', ''],
    ]);
    expect(tasks.map((x) => [x.platform, x.result_url])).toEqual([
      ['suno', ''],
      ['kling', ''],
      ['sora', ''],
      ['hailuo', 'https://cdn.example/v.mp4'],
    ]);
    expect(report(first, 'tasks').lines().join('\n')).toContain('tasks.platform "hailuo": Tollway does not poll it');
    const logs = await k.selectFrom('logs').selectAll().where('id', '=', 2).executeTakeFirstOrThrow();
    expect(logs).toMatchObject({ channel_name: 'openai-main', is_stream: 1, request_id: 'req-1', token_id: 1 });
    expect(await k.selectFrom('setups').select('id').executeTakeFirst()).toEqual({ id: 1 });
  });

  it('stops before writing anything when CRYPTO_SECRET is not the one the target was sealed with', async () => {
    const before = await snapshot(target);
    await expect(
      runImport({ from: source.dsn, target: target.db, box: new SecretBox('another-secret-0123456789abcdef'), log }),
    ).rejects.toBeInstanceOf(SecretKeyError);
    await expect(
      runImport({ from: source.dsn, target: target.db, box: new SecretBox(undefined), log }),
    ).rejects.toBeInstanceOf(SecretKeyError);
    expect(await snapshot(target)).toEqual(before);
  });

  it('a second run changes nothing, not even what was changed in Tollway since', async () => {
    await target.db.kysely
      .updateTable('options')
      .set({ value: 'Renamed in Tollway' })
      .where('key', '=', 'SystemName')
      .execute();
    await target.db.kysely.updateTable('users').set({ display_name: 'Alice B.' }).where('id', '=', 2).execute();
    const before = await snapshot(target);
    const again = await runImport({ from: source.dsn, target: target.db, box, log });
    expect(again.mode).toBe('rerun');
    expect(again.written).toBe(0);
    expect(report(again, 'users')).toMatchObject({ read: 4, written: 0, present: 4 });
    expect(again.quota.every((q) => q.ok)).toBe(true);
    expect(await snapshot(target)).toEqual(before);
  });

  it('the same user logs in with the same password and the same sk- key relays a call through the imported channel', async () => {
    t = await startTestApp(dialect, { CRYPTO_SECRET }, target);
    // The imported price of 0 is read as stored.
    expect(t.runtime.ctx.options.json<Record<string, number>>('ModelPrice')).toEqual({
      'free-image': 0,
      'paid-image': 0.05,
    });
    const alice = new Client(t.app);
    expect((await alice.login('alice', 'wrong-password')).body.success).toBe(false);
    const login = await alice.login(facts.username, facts.password);
    expect(login.body).toMatchObject({ success: true, data: { id: 2 } });
    const self = await alice.call<{ quota: number; aff_code: string; group: string }>('GET', '/api/user/self');
    expect(self.body.data).toMatchObject({ quota: 2500000, aff_code: 'AbCd', group: 'vip' });
    // Bob keeps his authenticator: the password alone is not enough, his TOTP code completes the sign-in.
    const bob = new Client(t.app);
    const challenge = await bob.login('bob', 'bob-pass-9999');
    expect(challenge.body.data).toMatchObject({ require_2fa: true });
    const flow = (challenge.body.data as unknown as { flow_token: string }).flow_token;
    expect((await secondStep(bob, flow, totpCode(BOB_TOTP_SECRET, Date.now()))).body.success).toBe(true);
    const root = new Client(t.app);
    expect((await root.login('root', '123456')).body.success).toBe(true);

    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${facts.tokenKey}`, 'content-type': 'application/json' },
      payload: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().choices[0].message.content).toBe('Hello from the mock!');
    const call = mock.requests.at(-1)!;
    expect(call.key).toBe('upstream-key-1');
    // The imported header_override applies, {api_key} filled with the channel's key.
    expect(call.headers).toMatchObject({ 'x-org': 'acme', 'x-proxy-key': 'upstream-key-1' });
    // The channel's model mapping applies.
    expect(call.body.model).toBe('gpt-4o-mini');
    await drainWriter(t);
    // New rows get ids past the imported ones (PostgreSQL's sequences were moved).
    const logs = await target.db.kysely.selectFrom('logs').select('id').orderBy('id').execute();
    expect(logs.map((l) => l.id)).toEqual([1, 2, 3, 4]);
    const created = await alice.call('POST', '/api/token/', { name: 'after-import', unlimited_quota: true });
    expect(created.body.success).toBe(true);
    const newest = await target.db.kysely
      .selectFrom('tokens')
      .select('id')
      .where('name', '=', 'after-import')
      .executeTakeFirstOrThrow();
    expect(newest.id).toBe(5);
    const token = await target.db.kysely
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    expect(token.remain_quota).toBeLessThan(800000);
  });

  it('refuses a Tollway database holding other data unless --merge, which puts the source after it', async () => {
    const other = await createTestDatabase(dialect);
    try {
      await migrateToLatest(other.db);
      const k = other.db.kysely;
      await k
        .insertInto('users')
        .values({
          username: 'alice',
          password: 'x',
          display_name: '',
          role: 100,
          status: 1,
          email: '',
          github_id: '',
          oidc_id: '',
          wechat_id: '',
          telegram_id: '',
          linux_do_id: '',
          access_token: null,
          quota: 10,
          used_quota: 0,
          request_count: 0,
          group: 'default',
          aff_code: 'zzzz',
          aff_count: 0,
          aff_quota: 0,
          aff_history: 0,
          inviter_id: 0,
          setting: '',
          remark: '',
          created_at: 0,
          deleted_at: null,
        })
        .execute();
      await expect(runImport({ from: source.dsn, target: other.db, box, log })).rejects.toBeInstanceOf(RefusedError);
      expect(await k.selectFrom('tokens').select('id').execute()).toEqual([]);

      // The source's alice has a name the target's alice holds: refused until the operator says what to do.
      await expect(runImport({ from: source.dsn, target: other.db, box, log, merge: true })).rejects.toThrow(
        /source user id 2 "alice" \(quota 2500000\): the name is target user 1's/,
      );
      expect(await k.selectFrom('tokens').select('id').execute()).toEqual([]);
      const users = { renameUsers: { alice: 'alice-newapi' } };
      const merged = await runImport({ from: source.dsn, target: other.db, box, log, merge: true, users });
      expect(merged.mode).toBe('merge');
      expect(merged.offsets.users).toBe(1);
      // Renamed, she keeps her quota and her tokens (under her source id in the report).
      expect(userLines(merged)).toContain('users.username "alice" imported as "alice-newapi" (--rename-user) (id 2)');
      expect(report(merged, 'users').skippedCount).toBe(0);
      expect(report(merged, 'tokens').skippedCount).toBe(0);
      const renamed = await k
        .selectFrom('users')
        .select(['id', 'quota'])
        .where('username', '=', 'alice-newapi')
        .executeTakeFirstOrThrow();
      expect({ id: renamed.id, quota: Number(renamed.quota) }).toEqual({ id: 3, quota: 2500000 });
      expect(
        (await k.selectFrom('tokens').select('user_id').where('id', '=', 1).executeTakeFirstOrThrow()).user_id,
      ).toBe(3);
      expect(merged.quota.every((q) => q.ok)).toBe(true);
      // The source's root joins as a common user (never an administrator): the target keeps its own root.
      const roles = await k.selectFrom('users').select(['id', 'role']).where('role', '=', 100).execute();
      expect(roles).toEqual([{ id: 1, role: 100 }]);
      expect(
        await k.selectFrom('users').select('role').where('username', '=', 'root').executeTakeFirstOrThrow(),
      ).toEqual({ role: 1 });
      const bob = await k
        .selectFrom('users')
        .select(['id', 'inviter_id'])
        .where('username', '=', 'bob')
        .executeTakeFirstOrThrow();
      expect(bob).toEqual({ id: 4, inviter_id: 3 });
      const again = await runImport({ from: source.dsn, target: other.db, box, log, merge: true, users });
      expect(again.written).toBe(0);
    } finally {
      await other.drop();
    }
  });
});

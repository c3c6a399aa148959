import type { AuditRow } from '@tollway/shared';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/connect.js';
import { auditCatalog } from '../../src/modules/audit/catalog.js';
import { defaultAction } from '../../src/modules/audit/naming.js';
import type { CallResult, Client, TestApp } from '../support/app.js';
import { dialects, logDatabasePairs } from '../support/databases.js';
import { useApp, useGateway, useLogDatabaseEnv } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

const DAY = 86_400;

/** Every audit row as stored (raw columns), oldest first. */
async function rawRows(db: Db) {
  return db.kysely.selectFrom('audit_logs').selectAll().orderBy('id').execute();
}
const countRows = async (db: Db) =>
  Number(
    (
      await db.kysely
        .selectFrom('audit_logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe.each(dialects)('audit log on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, user: Client, base: string;
  useGateway(dialect, { admins: ['audit-admin'], users: ['audit-user'] }, (gw) => {
    ({ t, root, base } = gw);
    admin = gw.admins[0]!;
    user = gw.users[0]!;
  });
  const db = () => t.runtime.ctx.logDb;
  /** Rows written since `from` (a row count), excluding sign-ins. */
  const since = async (from: number) => (await rawRows(db())).slice(from).filter((r) => r.action !== 'auth.login');
  /** The call's data, failing the test when it was refused. */
  const ok = async <T>(p: Promise<CallResult<T>>): Promise<T> => {
    const res = await p;
    expect(res.body.success, res.body.message).toBe(true);
    return res.body.data as T;
  };

  it('records each kind of administrator action once, with actor, action, target and detail', async () => {
    const from = await countRows(db());
    await ok(root.call('PUT', '/api/option/', { key: 'Notice', value: 'audit notice' }));
    const created = await ok(
      admin.call<{ id: number }>('POST', '/api/user/', {
        username: 'audit-made',
        password: 'made-pass-123',
        display_name: 'made',
      }),
    );
    const madeId = created.id;
    await ok(admin.call('PUT', '/api/user/', { id: madeId, display_name: 'renamed', quota: 500 }));
    await ok(admin.call('POST', '/api/user/manage', { id: madeId, action: 'disable' }));
    const ch = await ok(
      admin.call<{ ids: number[] }>('POST', '/api/channel/', {
        mode: 'single',
        channel: {
          name: 'audit-ch',
          type: 1,
          key: 'k-1',
          base_url: 'http://127.0.0.1:9',
          models: 'gpt-4o',
          group: 'default',
        },
      }),
    );
    const chId = ch.ids[0]!;
    await ok(admin.call('PUT', '/api/channel/', { id: chId, name: 'audit-ch-2' }));
    await ok(admin.call('DELETE', `/api/channel/${chId}`));
    const codes = await ok(
      admin.call<string[]>('POST', '/api/redemption/', { name: 'audit-codes', quota: 100, count: 2 }),
    );
    const msg = await ok(
      admin.call<{ id: number }>('POST', '/api/admin/messages', {
        title: 'hello',
        content: 'body',
        format: 'markdown',
        user_ids: [user.userId],
      }),
    );
    const msgId = msg.id;
    await t.database.db.kysely
      .insertInto('top_ups')
      .values({
        user_id: user.userId!,
        amount: 10,
        money: 10,
        trade_no: 'audit-order-1',
        payment_method: 'alipay',
        create_time: Math.floor(Date.now() / 1000),
        complete_time: 0,
        status: 'pending',
      })
      .execute();
    await ok(admin.call('POST', '/api/user/topup/complete', { trade_no: 'audit-order-1' }));
    await ok(root.call('POST', '/api/option/rest_model_ratio'));
    await ok(root.call('DELETE', '/api/log/?target_timestamp=1000'));

    const rows = await since(from);
    const seen = rows.map((r) => [r.actor_name, r.action, r.target_type, r.target_id, r.outcome]);
    expect(seen).toEqual([
      ['root', 'option.update', 'option', 'Notice', 'ok'],
      ['audit-admin', 'user.create', 'user', String(madeId), 'ok'],
      ['audit-admin', 'user.update', 'user', String(madeId), 'ok'],
      ['audit-admin', 'user.disable', 'user', String(madeId), 'ok'],
      ['audit-admin', 'channel.create', 'channel', String(chId), 'ok'],
      ['audit-admin', 'channel.update', 'channel', String(chId), 'ok'],
      ['audit-admin', 'channel.delete', 'channel', String(chId), 'ok'],
      ['audit-admin', 'redemption.create', 'redemption', '', 'ok'],
      ['audit-admin', 'message.create', 'message', String(msgId), 'ok'],
      ['audit-admin', 'topup.complete', 'topup', 'audit-order-1', 'ok'],
      ['root', 'pricing.reset_model_ratio', 'pricing', 'ModelRatio', 'ok'],
      ['root', 'log.delete', 'log', '', 'ok'],
    ]);
    for (const r of rows) {
      expect(Number(r.actor_id)).toBe(r.actor_name === 'root' ? root.userId : admin.userId);
      expect(Number(r.actor_role)).toBe(r.actor_name === 'root' ? 100 : 10);
      expect(Number(r.created_at)).toBeGreaterThan(Date.now() / 1000 - 120);
      expect(r.user_agent).toBe('lightMyRequest');
    }
    const detail = (i: number) =>
      JSON.parse(rows[i]!.detail) as {
        route: string;
        fields?: Record<string, unknown>;
        query?: Record<string, unknown>;
      };
    expect(detail(0)).toEqual({ route: 'PUT /api/option/', fields: { option: 'Notice', value: 'audit notice' } });
    expect(detail(2)).toEqual({ route: 'PUT /api/user/', fields: { id: madeId, display_name: 'renamed', quota: 500 } });
    expect(detail(3).fields).toEqual({ id: madeId, action: 'disable' });
    expect(detail(11).query).toEqual({ target_timestamp: 1000 });
    // The codes a create returns are never written.
    const text = JSON.stringify(rows);
    for (const code of codes) expect(text).not.toContain(code);
  });

  it('never writes a secret: channel keys, passwords, option secrets, bearer values in JSON settings', async () => {
    const secrets = [
      'sk-auditChannelKey0123456789',
      'Audit-Password-987',
      'smtp-audit-token-555',
      'gh-audit-client-secret',
      'hdr-audit-bearer-777',
      'fetch-models-key-333',
    ];
    const from = await countRows(db());
    const ch = await ok(
      admin.call<{ ids: number[] }>('POST', '/api/channel/', {
        mode: 'single',
        channel: {
          name: 'secret-ch',
          type: 1,
          key: secrets[0],
          base_url: 'http://127.0.0.1:9',
          models: 'gpt-4o',
          group: 'default',
          param_override: JSON.stringify({ headers: { Authorization: `Bearer ${secrets[4]}` } }),
        },
      }),
    );
    const chId = ch.ids[0]!;
    await ok(admin.call('PUT', '/api/channel/', { id: chId, key: `${secrets[0]}-2` }));
    const made = await ok(
      root.call<{ id: number }>('POST', '/api/user/', {
        username: 'audit-pw',
        password: secrets[1],
        display_name: 'pw',
      }),
    );
    const madeId = made.id;
    await ok(admin.call('PUT', '/api/user/', { id: madeId, password: `${secrets[1]}-new` }));
    await ok(root.call('PUT', '/api/option/', { key: 'SMTPToken', value: secrets[2] }));
    await ok(root.call('PUT', '/api/option/', { key: 'GitHubClientSecret', value: secrets[3] }));
    await root.call('POST', '/api/channel/fetch_models', { type: 1, base_url: 'http://127.0.0.1:9', key: secrets[5] });
    const rows = await since(from);
    expect(rows.map((r) => r.action)).toEqual([
      'channel.create',
      'channel.update',
      'user.create',
      'user.update',
      'option.update',
      'option.update',
    ]);
    const raw = JSON.stringify(await rawRows(db()));
    for (const s of secrets) expect(raw).not.toContain(s);
    expect(JSON.parse(rows[1]!.detail).fields).toEqual({ id: chId, key: '***' });
    expect(JSON.parse(rows[3]!.detail).fields).toEqual({ id: madeId, password: '***' });
    expect(JSON.parse(rows[4]!.detail).fields).toEqual({ option: 'SMTPToken', value: '***' });
  });

  it('names every catalogued route that exists, and every admin or root write gets a resource.verb action', async () => {
    const declared = new Set(t.router.routes.map((r) => `${r.method} ${r.url}`));
    for (const key of Object.keys(auditCatalog)) expect(declared.has(key), key).toBe(true);
    for (const r of t.router.routes.filter((d) => (d.level === 'admin' || d.level === 'root') && d.method !== 'GET')) {
      expect(defaultAction(r), `${r.method} ${r.url}`).toMatch(/^[a-z0-9_]+\.[a-z0-9_]+$/);
    }
    expect(defaultAction({ method: 'DELETE', url: '/api/channel/disabled' })).toBe('channel.delete_disabled');
    expect(defaultAction({ method: 'PUT', url: '/api/admin/messages/:id' })).toBe('message.update');
    expect(defaultAction({ method: 'POST', url: '/api/channel/fix' })).toBe('channel.fix');
  });

  it('records nothing for reads or for calls that fail validation or find nothing', async () => {
    const before = await countRows(db());
    for (const c of [root, admin]) {
      await c.call('GET', '/api/user/');
      await c.call('GET', '/api/channel/');
      await c.call('GET', `/api/user/${user.userId}`);
      await c.call('GET', '/api/log/');
    }
    await root.call('GET', '/api/option/');
    await root.call('GET', '/api/audit/');
    expectRefused(await admin.call('PUT', '/api/user/', { id: 'x' }));
    expect((await root.call('PUT', '/api/option/', { key: 'NoSuchOption', value: '1' })).body.success).toBe(false);
    expectRefused(await admin.call('POST', '/api/channel/', { mode: 'single', channel: { name: 'no-key' } }));
    expect((await admin.call('POST', '/api/user/topup/complete', { trade_no: 'no-such-order' })).body.success).toBe(
      false,
    );
    expect((await admin.call('DELETE', '/api/admin/messages/999999')).body.success).toBe(false);
    expect(await countRows(db())).toBe(before);
  });

  it('records an administrator refused at a root-only route as denied; a plain user refused is not recorded', async () => {
    const rootMsg = await ok(
      root.call<{ id: number }>('POST', '/api/admin/messages', {
        title: 'from root',
        content: 'root text',
        format: 'markdown',
        user_ids: [user.userId],
      }),
    );
    const rootMsgId = rootMsg.id;
    const from = await countRows(db());
    // A root-only option: refused by the per-key rule (HTTP 200 on /api), recorded as denied.
    expectRefused(await admin.call('PUT', '/api/option/', { key: 'SMTPToken', value: 'denied-smtp-secret' }));
    expect((await admin.call('GET', '/api/audit/')).status).toBe(403);
    expect((await user.call('PUT', '/api/option/', { key: 'Notice', value: 'x' })).status).toBe(403);
    expect((await user.call('POST', '/api/user/manage', { id: admin.userId, action: 'disable' })).status).toBe(403);
    // A business rule's refusal (HTTP 200 on /api, recorded as denied): an admin may not rewrite root's message.
    expectRefused(
      await admin.call('PUT', `/api/admin/messages/${rootMsgId}`, { title: 'hijacked', content: 'x', format: 'html' }),
    );
    // A root-only operation on an admin route: promoting to administrator.
    expectRefused(await admin.call('POST', '/api/user/manage', { id: user.userId, action: 'promote' }));
    // A refused read on an admin route is not an action.
    expectRefused(await admin.call('GET', `/api/user/${root.userId}`));
    const rows = await since(from);
    expect(rows.map((r) => [r.actor_name, r.action, r.target_type, r.target_id, r.outcome])).toEqual([
      ['audit-admin', 'option.update', 'option', 'SMTPToken', 'denied'],
      ['audit-admin', 'audit.read', 'audit', '', 'denied'],
      ['audit-admin', 'message.update', 'message', String(rootMsgId), 'denied'],
      ['audit-admin', 'user.promote', 'user', String(user.userId), 'denied'],
    ]);
    expect(JSON.parse(rows[3]!.detail).message).toBe('regular administrators cannot promote others to administrator');
    expect(JSON.parse(rows[0]!.detail)).toMatchObject({ status: 403, fields: { option: 'SMTPToken', value: '***' } });
    expect(JSON.stringify(rows)).not.toContain('denied-smtp-secret');
  });

  it('records administrators signing in, not users', async () => {
    const from = await countRows(db());
    expect((await admin.login('audit-admin', 'user-pass-123')).body.success).toBe(true);
    expect((await user.login('audit-user', 'user-pass-123')).body.success).toBe(true);
    const rows = (await rawRows(db())).slice(from);
    expect(rows.map((r) => [r.actor_name, r.action, r.target_id, r.outcome])).toEqual([
      ['audit-admin', 'auth.login', String(admin.userId), 'ok'],
    ]);
    expect(rows[0]!.detail).not.toContain('user-pass-123');
  });

  it('stores the client address as resolved for the request (the socket, or the trusted proxy header)', async () => {
    const headers = (c: Client, extra: Record<string, string>) => ({
      cookie: c.cookie,
      'new-api-user': String(c.userId),
      'content-type': 'application/json',
      ...extra,
    });
    const put = (c: Client, value: string, extra: Record<string, string>) =>
      fetch(`${base}/api/option/`, {
        method: 'PUT',
        headers: headers(c, extra),
        body: JSON.stringify({ key: 'Notice', value }),
      });
    expect(
      (
        await put(root, 'direct', {
          'x-forwarded-for': '203.0.113.9',
          'x-real-ip': '203.0.113.9',
          'user-agent': `ua-${'x'.repeat(400)}`,
        })
      ).status,
    ).toBe(200);
    let last = (await rawRows(db())).at(-1)!;
    expect(last.ip).toMatch(/127\.0\.0\.1$/);
    expect(last.user_agent).toHaveLength(255);
    await ok(root.call('PUT', '/api/option/', { key: 'ReverseProxyEnabled', value: 'true' }));
    try {
      expect((await put(root, 'proxied', { 'x-real-ip': '198.51.100.23' })).status).toBe(200);
      last = (await rawRows(db())).at(-1)!;
      expect([last.action, last.ip]).toEqual(['option.update', '198.51.100.23']);
    } finally {
      await ok(root.call('PUT', '/api/option/', { key: 'ReverseProxyEnabled', value: 'false' }));
    }
  });

  it('lists rows for root only, newest first, with filters and paging', async () => {
    const list = (q: string) =>
      root.call<{ items: AuditRow[]; page: number; total: number }>('GET', `/api/audit/?${q}`);
    const all = await list('p=1&page_size=100');
    expect(all.body.success).toBe(true);
    const items = all.body.data!.items;
    expect(all.body.data!.total).toBe(await countRows(db()));
    expect(items.map((r) => r.id)).toEqual(
      [...items].sort((a, b) => b.created_at - a.created_at || b.id - a.id).map((r) => r.id),
    );
    const byAdmin = (await list(`actor=audit-admin&action=user.create&page_size=100`)).body.data!;
    expect(byAdmin.items.length).toBeGreaterThan(0);
    expect(byAdmin.items.every((r) => r.actor_name === 'audit-admin' && r.action === 'user.create')).toBe(true);
    const byId = (await list(`actor_id=${root.userId}&target_type=option&target_id=SMTPToken`)).body.data!;
    expect(byId.items.map((r) => [r.actor_name, r.action, r.outcome])).toEqual([['root', 'option.update', 'ok']]);
    expect((await list('outcome=denied')).body.data!.items.every((r) => r.outcome === 'denied')).toBe(true);
    const page2 = (await list('p=2&page_size=3')).body.data!;
    expect({ page: page2.page, ids: page2.items.map((r) => r.id) }).toEqual({
      page: 2,
      ids: items.slice(3, 6).map((r) => r.id),
    });
    const future = Math.floor(Date.now() / 1000) + DAY;
    expect((await list(`start_timestamp=${future}`)).body.data!.total).toBe(0);
    expect((await list(`end_timestamp=${future}&start_timestamp=1`)).body.data!.total).toBe(all.body.data!.total);
    expect((await list('actor_id=abc')).body.message).toContain('actor_id');
    expectRefused(await list('outcome=maybe'));
    expect((await admin.call('GET', '/api/audit/')).status).toBe(403);
    expect((await user.call('GET', '/api/audit/')).status).toBe(403);
  });

  it('an audit write that fails is logged, and the action still succeeds', async () => {
    const k = db().kysely;
    await sql`ALTER TABLE audit_logs RENAME TO audit_logs_away`.execute(k);
    try {
      expect(
        (await root.call('PUT', '/api/option/', { key: 'Notice', value: 'while audit is away' })).body.success,
      ).toBe(true);
    } finally {
      await sql`ALTER TABLE audit_logs_away RENAME TO audit_logs`.execute(k);
    }
    expect(t.runtime.ctx.options.get('Notice')).toBe('while audit is away');
    expect((await rawRows(db())).some((r) => r.detail.includes('while audit is away'))).toBe(false);
  });

  it('is pruned by the log retention job with the usage logs', async () => {
    const now = Math.floor(Date.now() / 1000);
    const old = {
      actor_id: 1,
      actor_name: 'root',
      actor_role: 100,
      action: 'option.update',
      target_type: 'option',
      target_id: 'Old',
      outcome: 'ok',
      ip: '',
      user_agent: '',
      detail: '{}',
    };
    await db()
      .kysely.insertInto('audit_logs')
      .values([
        { ...old, created_at: now - 40 * DAY },
        { ...old, created_at: now - 10 * DAY },
        { ...old, created_at: now - 1 * DAY, target_id: 'Recent' },
      ])
      .execute();
    const before = await countRows(db());
    await ok(root.call('PUT', '/api/option/', { key: 'LogRetentionDays', value: '7' }));
    try {
      expect(await t.runtime.logRetention!.runOnce()).toBeGreaterThanOrEqual(2);
    } finally {
      await ok(root.call('PUT', '/api/option/', { key: 'LogRetentionDays', value: '0' }));
    }
    const left = await rawRows(db());
    expect(left.filter((r) => r.target_id === 'Old')).toHaveLength(0);
    expect(left.filter((r) => r.target_id === 'Recent')).toHaveLength(1);
    // Two pruned, two option changes recorded.
    expect(left.length).toBe(before - 2 + 2);
  });
});

describe.each(logDatabasePairs)('audit log with LOG_SQL_DSN (%s main, %s logs)', (mainDialect, logDialect) => {
  const env = useLogDatabaseEnv(logDialect);
  const app = useApp(mainDialect, { env, admins: ['logdb-admin'], users: ['logdb-user'] });

  it('writes the rows to the log database only, and the list reads them there', async () => {
    const { t, root, admins, users } = app;
    expect(t.runtime.ctx.logDb).not.toBe(t.database.db);
    expect((await root.call('PUT', '/api/option/', { key: 'Notice', value: 'in the log db' })).body.success).toBe(true);
    expect(
      (await admins[0]!.call('PUT', '/api/user/', { id: users[0]!.userId, display_name: 'moved' })).body.success,
    ).toBe(true);
    const inLogDb = (await rawRows(t.runtime.ctx.logDb)).filter((r) => r.action !== 'auth.login');
    expect(inLogDb.map((r) => [r.actor_name, r.action, r.target_id])).toEqual([
      ['root', 'user.create', String(admins[0]!.userId)],
      ['root', 'user.create', String(users[0]!.userId)],
      ['root', 'option.update', 'Notice'],
      ['logdb-admin', 'user.update', String(users[0]!.userId)],
    ]);
    expect(await countRows(t.database.db)).toBe(0);
    const list = await root.call<{ items: AuditRow[] }>('GET', '/api/audit/?action=user.update');
    expect(list.body.data!.items.map((r) => r.actor_name)).toEqual(['logdb-admin']);
  });
});

import { LogType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/modules/auth/session.js';
import { openSession } from '../../src/modules/auth/sessions.js';
import { SessionOrigins } from '../../src/modules/auth/session-origin.js';
import type { RedemptionPublic } from '@tollway/shared';
import { Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

type Page = { items: RedemptionPublic[]; page: number; total: number };
const now = () => Math.floor(Date.now() / 1000);

describe.each(dialects)('redemption codes on %s', (dialect) => {
  let t: TestApp, admin: Client, alice: Client, bob: Client;
  useApp(
    dialect,
    { admins: ['red-admin'], users: ['alice', 'bob'], timeout: 60_000 },
    (app) =>
      ({
        t,
        admins: [admin],
        users: [alice, bob],
      } = app),
  );

  const k = () => t.runtime.ctx.db.kysely;
  const create = (body: Record<string, unknown>) => admin.call<string[]>('POST', '/api/redemption/', body);
  const createOne = async (body: Record<string, unknown>) => {
    const res = await create({ quota: 1000, ...body });
    expect(res.body.message).toBe('redemption codes created');
    return res.body.data![0]!;
  };
  const byKey = async (key: string) =>
    k().selectFrom('redemptions').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
  const quotaOf = async (id: number) =>
    Number((await k().selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow()).quota);
  const redeem = (c: Client, key: unknown) => c.call<number>('POST', '/api/user/topup', { key });
  /** Quota of all users together: a redeemed code adds its quota to it once. */
  const quotaSum = async () =>
    Number(
      (
        await k()
          .selectFrom('users')
          .select((eb) => eb.fn.sum<number>('quota').as('s'))
          .executeTakeFirstOrThrow()
      ).s,
    );

  /** n users made by the users service, each with a session cookie (no login round trip). */
  const manyUsers = async (prefix: string, n: number): Promise<Client[]> => {
    const ids = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        t.runtime.ctx.users.create({ username: `${prefix}${i}`, password: 'user-pass-123' }),
      ),
    );
    return Promise.all(
      ids.map(async (id) => {
        const c = new Client(t.app);
        c.cookie = `${SESSION_COOKIE}=${await openSession(t.runtime.ctx, id, SessionOrigins.password)}`;
        c.userId = id;
        return c;
      }),
    );
  };

  it('creates a batch of codes with 32-character keys and the given fields', async () => {
    const res = await create({ name: 'batch-a', quota: 500000, count: 3 });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const keys = res.body.data!;
    expect(keys).toHaveLength(3);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(new Set(keys).size).toBe(3);
    const row = await byKey(keys[0]!);
    expect(row).toMatchObject({
      name: 'batch-a',
      status: 1,
      is_gift: 0,
      max_uses: 1,
      used_count: 0,
      used_user_id: 0,
      user_id: admin.userId,
    });
    expect(Number(row.quota)).toBe(500000);
    expect(Number(row.created_time)).toBeGreaterThan(now() - 60);

    const got = await admin.call<RedemptionPublic>('GET', `/api/redemption/${row.id}`);
    expect(got.body.data).toMatchObject({
      id: row.id,
      key: keys[0],
      name: 'batch-a',
      quota: 500000,
      is_gift: false,
      valid_from: 0,
      valid_until: 0,
    });
  });

  it('creates one code with a custom key and a gift code with uses and a window', async () => {
    const res = await create({ name: 'custom', quota: 10, key: 'My-Code_2026' });
    expect(res.body.data).toEqual(['My-Code_2026']);
    const from = now() - 10;
    const until = now() + 3600;
    const gift = await createOne({ name: 'gift', is_gift: true, max_uses: 5, valid_from: from, valid_until: until });
    expect(await byKey(gift)).toMatchObject({ is_gift: 1, max_uses: 5 });
    const unlimited = await createOne({
      name: 'gift-unl',
      is_gift: true,
      max_uses: null,
      valid_from: null,
      valid_until: null,
    });
    expect(await byKey(unlimited)).toMatchObject({ is_gift: 1, max_uses: -1 });
  });

  it('refuses bad input with clear messages', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ quota: 1 }, '"name" is required'],
      [{ name: '  ', quota: 1 }, 'name is required (1-20 characters)'],
      [{ name: 'x'.repeat(21), quota: 1 }, 'name must be 1-20 characters'],
      [{ name: 'n', quota: 1, count: 0 }, 'count must be at least 1'],
      [{ name: 'n', quota: 1, count: 101 }, 'count must be at most 100'],
      [{ name: 'n', quota: 0 }, 'quota must be at least 1'],
      [{ name: 'n', quota: 1.5 }, 'quota must be an integer'],
      [{ name: 'n', quota: 1, is_gift: true, max_uses: 0 }, 'max_uses must be -1 (unlimited) or a whole number from 1'],
      [
        { name: 'n', quota: 1, valid_from: now() + 100, valid_until: now() + 50 },
        'effective time must be earlier than expiry time',
      ],
      [
        { name: 'n', quota: 1, key: 'abc', count: 2 },
        'a custom key can only be given when creating one code (count 1)',
      ],
      [{ name: 'n', quota: 1, key: 'bad key!' }, 'key may contain only letters, digits, "-" and "_"'],
      [{ name: 'n', quota: 1, key: 'x'.repeat(33) }, 'key must be at most 32 characters'],
      [{ name: 'n', quota: 1, key: 'My-Code_2026' }, 'a redemption code with this key already exists'],
    ];
    for (const [body, message] of cases) expectRefused(await create(body), JSON.stringify(body), message);
  });

  it('lists newest first with paging and searches by name, key and id', async () => {
    const page = await admin.call<Page>('GET', '/api/redemption/?p=1&page_size=2');
    expect(page.body.data!.items).toHaveLength(2);
    expect(page.body.data!.page).toBe(1);
    const total = page.body.data!.total;
    expect(total).toBe(
      Number(
        (
          await k()
            .selectFrom('redemptions')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    );
    const ids = page.body.data!.items.map((r) => r.id);
    expect(ids[0]).toBeGreaterThan(ids[1]!);

    const byName = await admin.call<Page>('GET', '/api/redemption/search?keyword=batch&p=1&page_size=10');
    expect(byName.body.data!.total).toBe(3);
    expect(byName.body.data!.items.every((r) => r.name === 'batch-a')).toBe(true);
    const byKeyRes = await admin.call<Page>('GET', '/api/redemption/search?keyword=My-Code_2026');
    expect(byKeyRes.body.data!.items.map((r) => r.name)).toEqual(['custom']);
    const row = await byKey('My-Code_2026');
    const byId = await admin.call<Page>('GET', `/api/redemption/search?keyword=${row.id}`);
    expect(byId.body.data!.items.map((r) => r.id)).toContain(row.id);
    const none = await admin.call<Page>('GET', '/api/redemption/search?keyword=no-such-code');
    expect(none.body.data).toEqual({ items: [], page: 1, page_size: 10, total: 0 });
  });

  it('edits an unused code, enables and disables it, and refuses edits of disabled or used codes', async () => {
    const key = await createOne({ name: 'edit-me', quota: 100 });
    const { id } = await byKey(key);
    const edited = await admin.call<RedemptionPublic>('PUT', '/api/redemption/', {
      id,
      name: 'edited',
      quota: 200,
      is_gift: true,
      max_uses: 3,
    });
    expect(edited.body).toMatchObject({ success: true, message: 'redemption code updated' });
    expect(edited.body.data).toMatchObject({ name: 'edited', quota: 200, is_gift: true, max_uses: 3, key });

    const badWindow = await admin.call('PUT', '/api/redemption/', {
      id,
      valid_from: now() + 100,
      valid_until: now() + 10,
    });
    expect(badWindow.body.message).toBe('effective time must be earlier than expiry time');

    const off = await admin.call<RedemptionPublic>('PUT', '/api/redemption/?status_only=true', { id, status: 2 });
    expect(off.body.data!.status).toBe(2);
    const editOff = await admin.call('PUT', '/api/redemption/', { id, name: 'nope' });
    expect(editOff.body).toMatchObject({
      success: false,
      message: 'only unused redemption codes (status 1) can be edited',
    });
    const badStatus = await admin.call('PUT', '/api/redemption/?status_only=true', { id, status: 3 });
    expect(badStatus.body.message).toBe('status must be 1 (enabled) or 2 (disabled)');
    const on = await admin.call<RedemptionPublic>('PUT', '/api/redemption/?status_only=true', { id, status: 1 });
    expect(on.body.data!.status).toBe(1);

    const normal = await createOne({ name: 'used-one', quota: 7 });
    expect((await redeem(alice, normal)).body.success).toBe(true);
    const usedId = (await byKey(normal)).id;
    const editUsed = await admin.call('PUT', '/api/redemption/', { id: usedId, quota: 9999 });
    expect(editUsed.body.message).toBe('only unused redemption codes (status 1) can be edited');
    const enableUsed = await admin.call('PUT', '/api/redemption/?status_only=true', { id: usedId, status: 1 });
    expect(enableUsed.body.message).toBe('a used redemption code cannot be enabled');
    expect((await byKey(normal)).status).toBe(3);
    const missing = await admin.call('PUT', '/api/redemption/', { id: 99999999, name: 'x' });
    expect(missing).toMatchObject({ status: 200, body: { success: false, message: 'redemption code not found' } });
  });

  it('counts and deletes by name, batch-disables, deletes disabled and deletes one', async () => {
    await create({ name: 'bulk', quota: 5, count: 4 });
    const count = await admin.call<number>('GET', '/api/redemption/count-by-name?name=bulk');
    expect(count.body.data).toBe(4);
    const noName = await admin.call('GET', '/api/redemption/count-by-name?name=');
    expect(noName.body.message).toContain('name is required');

    const bulkIds = (await k().selectFrom('redemptions').select('id').where('name', '=', 'bulk').execute()).map(
      (r) => r.id,
    );
    const empty = await admin.call('PUT', '/api/redemption/batch-disable', { ids: [] });
    expect(empty.body.message).toContain('please select at least one redemption code');
    const disabled = await admin.call<number>('PUT', '/api/redemption/batch-disable', { ids: bulkIds.slice(0, 2) });
    expect(disabled.body.data).toBe(2);
    const again = await admin.call<number>('PUT', '/api/redemption/batch-disable', { ids: bulkIds.slice(0, 3) });
    expect(again.body.data).toBe(1);

    const disabledBefore = Number(
      (
        await k()
          .selectFrom('redemptions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 2)
          .executeTakeFirstOrThrow()
      ).n,
    );
    const delDisabled = await admin.call<number>('DELETE', '/api/redemption/delete-disabled');
    expect(delDisabled.body.data).toBe(disabledBefore);
    expect(disabledBefore).toBeGreaterThanOrEqual(3);
    expect((await admin.call<number>('GET', '/api/redemption/count-by-name?name=bulk')).body.data).toBe(1);

    const delName = await admin.call<number>('DELETE', '/api/redemption/delete-by-name?name=bulk');
    expect(delName.body.data).toBe(1);
    expect((await admin.call<number>('GET', '/api/redemption/count-by-name?name=bulk')).body.data).toBe(0);

    const key = await createOne({ name: 'del-one' });
    const { id } = await byKey(key);
    const del = await admin.call('DELETE', `/api/redemption/${id}/`);
    expect(del.body).toMatchObject({ success: true, message: 'redemption code deleted' });
    expectRefused(await admin.call('GET', `/api/redemption/${id}`));
    expect((await admin.call('DELETE', `/api/redemption/${id}`)).body.message).toBe('redemption code not found');
  });

  it('keeps every admin route from ordinary users and anonymous callers', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/redemption/'],
      ['GET', '/api/redemption/search?keyword=a'],
      ['GET', '/api/redemption/1'],
      ['POST', '/api/redemption/', { name: 'x', quota: 1 }],
      ['PUT', '/api/redemption/', { id: 1, name: 'x' }],
      ['PUT', '/api/redemption/?status_only=true', { id: 1, status: 2 }],
      ['DELETE', '/api/redemption/1'],
      ['GET', '/api/redemption/count-by-name?name=x'],
      ['DELETE', '/api/redemption/delete-by-name?name=x'],
      ['PUT', '/api/redemption/batch-disable', { ids: [1] }],
      ['DELETE', '/api/redemption/delete-disabled'],
    ];
    const before = await k()
      .selectFrom('redemptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    for (const [method, url, body] of calls) {
      expect((await alice.call(method, url, body)).status, `${method} ${url}`).toBe(403);
      expect((await new Client(t.app).call(method, url, body)).status, `${method} ${url}`).toBe(401);
    }
    const after = await k()
      .selectFrom('redemptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect((await new Client(t.app).call('POST', '/api/user/topup', { key: 'x' })).status).toBe(401);
  });

  it('redeems a normal code once: credits quota, writes a top-up log, the relay balance follows', async () => {
    const key = await createOne({ name: 'normal', quota: 123456 });
    const ledger = t.runtime.ctx.relay.ledger;
    const before = await quotaOf(bob.userId!);
    // The relay holds the balance in memory (or Redis): it must learn the credit.
    expect(await ledger.available('users', bob.userId!)).toBe(before);

    const res = await redeem(bob, key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: 123456, is_gift: false });
    expect(await quotaOf(bob.userId!)).toBe(before + 123456);
    expect(await ledger.available('users', bob.userId!)).toBe(before + 123456);
    const row = await byKey(key);
    expect(row).toMatchObject({ status: 3, used_count: 1, used_user_id: bob.userId });
    expect(Number(row.redeemed_time)).toBeGreaterThan(now() - 60);

    const log = await k()
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', bob.userId!)
      .where('type', '=', LogType.Topup)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(Number(log.quota)).toBe(123456);
    expect(log.username).toBe('bob');
    expect(log.content).toContain(`code id ${row.id}`);
    const selfLogs = await bob.call<{ items: { type: number; quota: number }[] }>('GET', '/api/log/self/?type=1');
    expect(selfLogs.body.data!.items[0]).toMatchObject({ type: 1, quota: 123456 });

    const again = await redeem(bob, key);
    expect(again.body).toMatchObject({ success: false, message: 'redemption code already used' });
    const other = await redeem(alice, key);
    expect(other.body.message).toBe('redemption code already used');
    expect(await quotaOf(bob.userId!)).toBe(before + 123456);
  });

  it('refuses empty, unknown, disabled, expired and not-yet-valid codes with clear messages', async () => {
    const before = await quotaOf(alice.userId!);
    expect((await redeem(alice, '')).body.message).toBe('please enter a redemption code');
    expect((await redeem(alice, '   ')).body.message).toBe('please enter a redemption code');
    expect((await alice.call('POST', '/api/user/topup', {})).body.message).toBe('please enter a redemption code');
    expect((await redeem(alice, 'no-such-code-at-all')).body.message).toBe('invalid redemption code');

    const disabledKey = await createOne({ name: 'off' });
    await admin.call('PUT', '/api/redemption/?status_only=true', { id: (await byKey(disabledKey)).id, status: 2 });
    expect((await redeem(alice, disabledKey)).body.message).toBe('this redemption code has been disabled');

    const expiredKey = await createOne({ name: 'expired', valid_until: now() - 5 });
    expect((await redeem(alice, expiredKey)).body.message).toBe('this redemption code has expired');
    const expiredGift = await createOne({
      name: 'expired-g',
      is_gift: true,
      max_uses: 5,
      valid_from: now() - 100,
      valid_until: now() - 1,
    });
    expect((await redeem(alice, expiredGift)).body.message).toBe('this redemption code has expired');

    const from = now() + 3600;
    const laterKey = await createOne({ name: 'later', valid_from: from });
    const later = await redeem(alice, laterKey);
    expect(later.body.success).toBe(false);
    expect(later.body.message).toBe(
      `this redemption code is not valid yet: it can be used from ${new Date(from * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    );

    expect(await quotaOf(alice.userId!)).toBe(before);
    for (const key of [disabledKey, expiredKey, laterKey])
      expect(await byKey(key)).toMatchObject({ used_count: 0, used_user_id: 0 });
  });

  it('lets each user use a gift code once, up to max_uses', async () => {
    const key = await createOne({ name: 'gift-2', quota: 50, is_gift: true, max_uses: 2 });
    const [carol] = await manyUsers('carol', 1);
    expect((await redeem(alice, key)).body).toMatchObject({ success: true, data: 50, is_gift: true });
    expect((await redeem(alice, key)).body.message).toBe('you have already redeemed this gift code');
    expect((await redeem(bob, key)).body.success).toBe(true);
    expect((await redeem(carol!, key)).body.message).toBe('this gift code has reached its maximum number of uses');
    const row = await byKey(key);
    // A gift code stays status 1 when its uses run out (the console greys it by used_count).
    expect(row).toMatchObject({ status: 1, used_count: 2 });
    const users = await k()
      .selectFrom('redemption_uses')
      .select('user_id')
      .where('redemption_id', '=', row.id)
      .orderBy('user_id')
      .execute();
    expect(users.map((u) => u.user_id)).toEqual([alice.userId, bob.userId].sort((a, b) => a! - b!));
    expect((await admin.call('PUT', '/api/redemption/', { id: row.id, max_uses: 1 })).body.message).toBe(
      'max_uses cannot be lower than the number of times the code was already used',
    );
  });

  it('credits a gift code with max_uses 10 exactly 10 times under 100 parallel redemptions (4 attempts per user)', async () => {
    const quota = 777;
    const key = await createOne({ name: 'race-gift', quota, is_gift: true, max_uses: 10 });
    const users = await manyUsers('racer', 25);
    const totalBefore = await quotaSum();
    const attempts = users.flatMap((u) => [u, u, u, u]);
    expect(attempts).toHaveLength(100);
    const results = await Promise.all(attempts.map((u) => redeem(u, key)));
    const ok = results.filter((r) => r.body.success);
    expect(ok).toHaveLength(10);
    for (const r of results) expect(r.status, r.body.message).toBeLessThan(500);
    for (const r of results.filter((x) => !x.body.success)) {
      expect([
        'you have already redeemed this gift code',
        'this gift code has reached its maximum number of uses',
      ]).toContain(r.body.message);
    }
    expect(await quotaSum()).toBe(totalBefore + 10 * quota);
    const row = await byKey(key);
    expect(row.used_count).toBe(10);
    const uses = await k()
      .selectFrom('redemption_uses')
      .select('user_id')
      .where('redemption_id', '=', row.id)
      .execute();
    expect(new Set(uses.map((u) => u.user_id)).size).toBe(10);
    const credited = await Promise.all(users.map(async (u) => (await quotaOf(u.userId!)) / quota));
    expect(credited.filter((c) => c === 1)).toHaveLength(10);
    expect(credited.filter((c) => c === 0)).toHaveLength(15);
    const logs = await k()
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('type', '=', LogType.Topup)
      .where(
        'user_id',
        'in',
        users.map((u) => u.userId!),
      )
      .executeTakeFirstOrThrow();
    expect(Number(logs.n)).toBe(10);
  }, 60_000);

  it('credits a normal code once when the same user and others redeem it 20 times in parallel', async () => {
    const quota = 31337;
    const key = await createOne({ name: 'race-normal', quota });
    const users = await manyUsers('normrace', 5);
    const totalBefore = await quotaSum();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => redeem(users[i % 5]!, key)));
    expect(results.filter((r) => r.body.success)).toHaveLength(1);
    for (const r of results.filter((x) => !x.body.success)) expect(r.body.message).toBe('redemption code already used');
    expect(await quotaSum()).toBe(totalBefore + quota);
    expect(await byKey(key)).toMatchObject({ status: 3, used_count: 1 });
  }, 60_000);
});

import type { TokenPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

type Page = { items: TokenPublic[]; page: number; total: number };

describe.each(dialects)('tokens: create, list, search, get, delete, owner only, on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, alice: Client, bob: Client;
  useApp(
    dialect,
    { admins: ['tok-admin'], users: ['alice', 'bob'] },
    (app) =>
      ({
        t,
        root,
        admins: [admin],
        users: [alice, bob],
      } = app),
  );

  const create = (c: Client, body: Record<string, unknown>) => c.call<TokenPublic[]>('POST', '/api/token/', body);
  const list = (c: Client, query = '') => c.call<Page>('GET', `/api/token/${query}`);
  const reveal = async (c: Client, id: number) =>
    (await c.call<{ key: string }>('POST', `/api/token/${id}/key`)).body.data!.key;

  it('creates one token with the defaults and a 48-character key without prefix', async () => {
    const res = await create(alice, { name: 'alpha' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: 'token created' });
    const [tok] = res.body.data!;
    expect(res.body.data).toHaveLength(1);
    expect(tok!.key).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(tok).toMatchObject({
      name: 'alpha',
      user_id: alice.userId,
      status: 1,
      remain_quota: 500000,
      used_quota: 0,
      unlimited_quota: false,
      expired_time: -1,
      model_limits_enabled: false,
      model_limits: '',
      allow_ips: '',
      group: '',
      rate_limit_enabled: false,
      rate_limit_period: 60,
      rate_limit_count: 1000,
      rate_limit_success: 10,
    });
    expect(tok!.created_time).toBeGreaterThan(1_700_000_000);
    const row = await t.runtime.ctx.db.kysely
      .selectFrom('tokens')
      .selectAll()
      .where('id', '=', tok!.id)
      .executeTakeFirstOrThrow();
    expect(row.key).toBe(tok!.key);
    // The relay's cache knows the new key at once.
    expect((await t.runtime.ctx.relay.tokens.get(tok!.key))?.tokenId).toBe(tok!.id);
  });

  it('creates count tokens: the first keeps the name, the others get a random 6-character suffix', async () => {
    const res = await create(alice, {
      name: 'batch',
      count: 3,
      remain_quota: 1000,
      unlimited_quota: 1,
      model_limits_enabled: true,
      model_limits: 'gpt-4o, gpt-4o-mini,gpt-4o',
    });
    const made = res.body.data!;
    expect(made).toHaveLength(3);
    expect(made[0]!.name).toBe('batch');
    for (const tok of made.slice(1)) expect(tok.name).toMatch(/^batch-[A-Za-z0-9]{6}$/);
    expect(new Set(made.map((x) => x.key)).size).toBe(3);
    expect(new Set(made.map((x) => x.name)).size).toBe(3);
    for (const tok of made)
      expect(tok).toMatchObject({
        remain_quota: 1000,
        unlimited_quota: true,
        model_limits_enabled: true,
        model_limits: 'gpt-4o,gpt-4o-mini',
      });
  });

  it('refuses a bad name, count or expiry with the field named', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'name'],
      [{ name: '   ' }, 'name is required'],
      [{ name: 'x'.repeat(51) }, 'name must be at most 50 characters'],
      [{ name: 'n', count: 0 }, 'count'],
      [{ name: 'n', count: 101 }, 'count must be at most 100'],
      [{ name: 'n', count: 2.5 }, 'count'],
      [{ name: 'n', remain_quota: -1 }, 'remain_quota'],
      [{ name: 'n', expired_time: '2099-13-01 00:00:00' }, 'expired_time'],
      [{ name: 'n', expired_time: 0 }, 'expired_time'],
      [{ name: 'n', expired_time: 1_000_000_000 }, 'expired_time: the expiry time is in the past'],
      [{ name: 'n', unlimited_quota: 'yes' }, 'unlimited_quota'],
    ];
    for (const [body, message] of cases) {
      const res = await create(alice, body);
      expectRefused(res, JSON.stringify(body));
      expect(res.body.message, JSON.stringify(body)).toContain(message);
    }
  });

  it('accepts the expiry as "yyyy-MM-dd HH:mm:ss" (local time) or epoch seconds', async () => {
    const text = await create(alice, { name: 'dated', expired_time: '2099-01-02 03:04:05' });
    expect(text.body.data![0]!.expired_time).toBe(Math.floor(new Date(2099, 0, 2, 3, 4, 5).getTime() / 1000));
    const secs = await create(alice, { name: 'dated2', expired_time: 4_070_908_800 });
    expect(secs.body.data![0]!.expired_time).toBe(4_070_908_800);
    await t.runtime.ctx.db.kysely.deleteFrom('tokens').where('name', 'in', ['dated', 'dated2']).execute();
  });

  it('lists only own tokens, newest first, paged by size or page_size', async () => {
    const all = await list(alice, '?p=1&size=100');
    expect(all.body.data!.total).toBe(4);
    const ids = all.body.data!.items.map((x) => x.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(all.body.data!.items.every((x) => x.user_id === alice.userId)).toBe(true);
    const first = await list(alice, '?p=0&size=3');
    expect(first.body.data).toMatchObject({ page: 1, page_size: 3, total: 4 });
    expect(first.body.data!.items.map((x) => x.id)).toEqual(ids.slice(0, 3));
    const second = await list(alice, '?p=2&page_size=3');
    expect(second.body.data!.page).toBe(2);
    expect(second.body.data!.items.map((x) => x.id)).toEqual(ids.slice(3));
    expect((await list(bob)).body.data).toEqual({ items: [], page: 1, page_size: 10, total: 0 });
    expect((await list(admin)).body.data!.total).toBe(0);
    expectRefused(await list(alice, '?size=101'));
  });

  it('searches own tokens by name and by key (with or without sk-)', async () => {
    const all = (await list(alice, '?size=100')).body.data!.items;
    const alpha = { ...all.find((x) => x.name === 'alpha')! };
    alpha.key = await reveal(alice, alpha.id);
    const byName = await alice.call<Page>('GET', '/api/token/search?keyword=batch');
    expect(byName.body.data!.items.map((x) => x.name).every((n) => n.startsWith('batch'))).toBe(true);
    expect(byName.body.data!.total).toBe(3);
    const part = alpha.key.slice(10, 30);
    for (const token of [`sk-${alpha.key}`, part]) {
      const byKey = await alice.call<Page>('GET', `/api/token/search?token=${token}`);
      expect(byKey.body.data!.items.map((x) => x.id)).toEqual([alpha.id]);
    }
    const both = await alice.call<Page>('GET', `/api/token/search?keyword=batch&token=${part}`);
    expect(both.body.data!.total).toBe(0);
    // Someone else's key finds nothing.
    expect((await bob.call<Page>('GET', `/api/token/search?token=${alpha.key}`)).body.data!.total).toBe(0);
    expect((await admin.call<Page>('GET', `/api/token/search?token=${alpha.key}`)).body.data!.total).toBe(0);
  });

  it('gets an own token; anyone else, administrators included, gets 404 and never the key', async () => {
    const alpha = (await list(alice, '?size=100')).body.data!.items.find((x) => x.name === 'alpha')!;
    const own = await alice.call<TokenPublic>('GET', `/api/token/${alpha.id}`);
    expect(own.body.data).toMatchObject({ id: alpha.id, key: alpha.key, name: 'alpha' });
    const full = await reveal(alice, alpha.id);
    for (const other of [bob, admin, root]) {
      const res = await other.call('GET', `/api/token/${alpha.id}`);
      expectRefused(res);
      expect(res.body).toMatchObject({ success: false, message: 'token not found' });
      expect(res.raw.body).not.toContain(full);
      const upd = await other.call('PUT', '/api/token/', { id: alpha.id, name: 'stolen' });
      expectRefused(upd);
      expectRefused(await other.call('PUT', '/api/token/?status_only=true', { id: alpha.id, status: 2 }));
      expectRefused(await other.call('DELETE', `/api/token/${alpha.id}`));
    }
    const after = await alice.call<TokenPublic>('GET', `/api/token/${alpha.id}`);
    expect(after.body.data).toMatchObject({ name: 'alpha', status: 1 });
    expectRefused(await alice.call('GET', '/api/token/999999'));
  });

  it('updates the fields given and leaves the others', async () => {
    const alpha = (await list(alice, '?size=100')).body.data!.items.find((x) => x.name === 'alpha')!;
    const res = await alice.call<TokenPublic>('PUT', '/api/token/', {
      id: alpha.id,
      name: 'alpha2',
      remain_quota: 1234,
      model_limits_enabled: true,
      model_limits: ['gpt-4o', ' o3 '],
      rate_limit_enabled: true,
      rate_limit_count: 5,
      // Fields the console sends back from a row are ignored.
      key: 'ignored',
      used_quota: 999,
    });
    expect(res.body).toMatchObject({ success: true, message: 'token updated' });
    expect(res.body.data).toMatchObject({
      id: alpha.id,
      key: alpha.key,
      name: 'alpha2',
      remain_quota: 1234,
      used_quota: 0,
      model_limits_enabled: true,
      model_limits: 'gpt-4o,o3',
      rate_limit_enabled: true,
      rate_limit_count: 5,
      rate_limit_period: 60,
      expired_time: -1,
    });
    // Same values again: still a success on every database.
    expect((await alice.call('PUT', '/api/token/', { id: alpha.id, name: 'alpha2' })).body.success).toBe(true);
    expectRefused(await alice.call('PUT', '/api/token/', { name: 'no id' }));
  });

  it('deletes softly: gone from the API and the relay, the row kept with deleted_at', async () => {
    const [victim] = (await create(alice, { name: 'victim' })).body.data!;
    expect((await t.runtime.ctx.relay.tokens.get(victim!.key))?.tokenId).toBe(victim!.id);
    const del = await alice.call('DELETE', `/api/token/${victim!.id}/`);
    expect(del.body).toEqual({ success: true, message: 'token deleted' });
    expectRefused(await alice.call('GET', `/api/token/${victim!.id}`));
    expectRefused(await alice.call('DELETE', `/api/token/${victim!.id}`));
    expect((await list(alice, '?size=100')).body.data!.items.some((x) => x.id === victim!.id)).toBe(false);
    const row = await t.runtime.ctx.db.kysely
      .selectFrom('tokens')
      .select('deleted_at')
      .where('id', '=', victim!.id)
      .executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeTruthy();
    expect(await t.runtime.ctx.relay.tokens.get(victim!.key)).toBeUndefined();
  });

  it("no response to another user ever carries alice's keys", async () => {
    const ids = (await list(alice, '?size=100')).body.data!.items.map((x) => x.id);
    const keys = Object.values(
      (await alice.call<{ keys: Record<string, string> }>('POST', '/api/token/batch/keys', { ids })).body.data!.keys,
    );
    expect(keys).toHaveLength(ids.length);
    for (const c of [bob, admin, root]) {
      const bodies = [
        (await list(c, '?size=100')).raw.body,
        (await c.call('GET', '/api/token/search?keyword=')).raw.body,
      ];
      for (const b of bodies) for (const k of keys) expect(b).not.toContain(k);
    }
  });
});

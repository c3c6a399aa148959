import type { ChannelPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { addToken } from '../support/gateway.js';

type Page<T = ChannelPublic> = { items: T[]; total: number };

/** An upstream key as an attacker would grow it: 36 characters from a known alphabet. */
const SECRET_KEY = 'sk-upstream-Zq7wX2pLmN4vB8rT6yH3jK9d';

/**
 * Secrets are never searchable (issue 31, hole 7): channel search matches names, tags, ids and base URLs, and a
 * key only by its whole value for root (audited); LIKE wildcards typed by a caller are literal in every search.
 */
describe.each(dialects)('searches on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, user: Client, channelId: number;
  useApp(dialect, { admins: ['search-admin'], users: ['search-user'] }, async (app) => {
    ({ t, root } = app);
    [admin] = app.admins as [Client];
    [user] = app.users as [Client];
    const res = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'vault',
        tag: 'team-red',
        key: SECRET_KEY,
        base_url: 'https://vault.example.com',
        models: 'gpt-4o',
        group: 'default',
      },
    });
    channelId = res.body.data!.ids[0]!;
    await root.call('POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: '50%_off\\x!',
        key: 'k-other-0123456789',
        base_url: 'https://other.example.com',
        models: 'gpt-4o',
        group: 'default',
      },
    });
  });

  const channelIds = async (c: Client, keyword: string) => {
    const res = await c.call<Page>('GET', `/api/channel/search?keyword=${encodeURIComponent(keyword)}`);
    expect(res.body.success, res.body.message).toBe(true);
    return res.body.data!.items.map((i) => i.id);
  };

  it('a refused administrator cannot grow a channel key by substring search (hole 7)', async () => {
    // The attack: the key's first characters match, so each next character is found by trying the alphabet.
    for (const part of ['sk-', 'sk-upstream-Z', SECRET_KEY.slice(5, 20), SECRET_KEY.slice(-6)]) {
      expect(await channelIds(admin, part), part).not.toContain(channelId);
      expect(await channelIds(root, part), part).not.toContain(channelId);
    }
    // Neither wildcards nor the whole key help an administrator below root.
    expect(await channelIds(admin, 'sk-%')).not.toContain(channelId);
    expect(await channelIds(admin, SECRET_KEY)).not.toContain(channelId);
  });

  it('finds a channel by name, tag, id and base URL; root by the whole key, and that lookup is audited', async () => {
    expect(await channelIds(admin, 'VAULT')).toEqual([channelId]);
    expect(await channelIds(admin, 'team-red')).toEqual([channelId]);
    expect(await channelIds(admin, String(channelId))).toContain(channelId);
    expect(await channelIds(admin, 'vault.example')).toEqual([channelId]);
    const auditRows = () =>
      t.runtime.ctx.logDb.kysely
        .selectFrom('audit_logs')
        .selectAll()
        .where('action', '=', 'channel.search_key')
        .execute();
    expect(await auditRows()).toEqual([]);
    expect(await channelIds(root, SECRET_KEY)).toEqual([channelId]);
    const rows = await auditRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor_name: 'root',
      target_type: 'channel',
      target_id: String(channelId),
      outcome: 'ok',
    });
    // The key itself is never written to the audit log.
    expect(JSON.stringify(rows[0])).not.toContain(SECRET_KEY);
  });

  it('LIKE wildcards typed by a caller match only themselves, in every search', async () => {
    expect(await channelIds(admin, '%')).toHaveLength(1);
    expect(await channelIds(admin, '_')).toHaveLength(1);
    expect(await channelIds(admin, '\\')).toHaveLength(1);
    expect(await channelIds(admin, '!')).toHaveLength(1);
    expect(await channelIds(admin, 'v_ult')).toEqual([]);
    expect(await channelIds(admin, '50%_off\\x!')).toHaveLength(1);
    const group = await root.call<Page>('GET', '/api/channel/search?group=d%25');
    expect(group.body.data!.items).toEqual([]);
    const model = await root.call<Page>('GET', '/api/channel/search?model=gpt_4o');
    expect(model.body.data!.items).toEqual([]);

    const users = async (keyword: string) =>
      (await root.call<Page<{ username: string }>>('GET', `/api/user/search?keyword=${encodeURIComponent(keyword)}`))
        .body.data!.items;
    expect((await users('search_user')).map((u) => u.username)).toEqual([]);
    expect((await users('search-user')).map((u) => u.username)).toEqual(['search-user']);
    expect(await users('%')).toEqual([]);

    await addToken(t, user.userId!, { name: 'plain-token' });
    const tokens = async (q: string) =>
      (await user.call<Page<{ name: string }>>('GET', `/api/token/search?${q}`)).body.data!.items;
    expect(await tokens('keyword=%25')).toEqual([]);
    expect(await tokens('keyword=plain_token')).toEqual([]);
    expect((await tokens('keyword=plain-token')).map((x) => x.name)).toEqual(['plain-token']);

    await root.call('POST', '/api/redemption/', { name: 'promo-code', quota: 10, count: 1 });
    const codes = async (keyword: string) =>
      (await root.call<Page>('GET', `/api/redemption/search?keyword=${encodeURIComponent(keyword)}`)).body.data!.items;
    expect(await codes('promo_code')).toEqual([]);
    expect(await codes('%')).toEqual([]);
    expect(await codes('promo-code')).toHaveLength(1);

    const now = Math.floor(Date.now() / 1000);
    await t.runtime.ctx.db.kysely
      .insertInto('top_ups')
      .values({
        user_id: user.userId!,
        amount: 1,
        money: 1,
        trade_no: 'ORDER-1',
        payment_method: 'alipay',
        create_time: now,
        complete_time: 0,
        status: 'pending',
      })
      .execute();
    const orders = async (keyword: string) =>
      (await root.call<Page>('GET', `/api/user/topup?keyword=${encodeURIComponent(keyword)}`)).body.data!.items;
    expect(await orders('%')).toEqual([]);
    expect(await orders('ORDER_1')).toEqual([]);
    expect(await orders('ORDER-1')).toHaveLength(1);

    await root.call('POST', '/api/admin/messages', {
      title: 'maintenance',
      content: 'window',
      user_ids: [user.userId],
    });
    const messages = async (keyword: string) =>
      (await root.call<Page>('GET', `/api/admin/messages/search?keyword=${encodeURIComponent(keyword)}`)).body.data!
        .items;
    expect(await messages('%')).toEqual([]);
    expect(await messages('mainten_nce')).toEqual([]);
    expect(await messages('maintenance')).toHaveLength(1);
  });
});

import type { ChannelPublic, TokenPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { Client, ROOT, type TestApp } from '../support/app.js';
import { revealChannelKey } from '../support/channel-key.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, setQuota } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';

type Page<T> = { items: T[]; total: number };

const MODEL = 'gpt-4o-mini';
const UPSTREAM_KEY = 'sk-upstream-0123456789abcdef';
/** new-api's masked form of a token key: first 4, ten stars, last 4. */
const maskedToken = (key: string) => `${key.slice(0, 4)}**********${key.slice(-4)}`;

/**
 * new-api's key handling: token and channel keys masked in every list, search and detail answer; the owner
 * reveals a token key with POST /api/token/:id/key; root reveals a channel key with POST /api/channel/:id/key
 * after verifying the session (POST /api/verify); batch token delete and channel copy.
 */
describe.each(dialects)('new-api keys: masking, reveal, token batch, channel copy, on %s', (dialect) => {
  let t: TestApp,
    root: Client,
    admin: Client,
    alice: Client,
    bob: Client,
    base: string,
    mock: MockUpstream,
    channelId: number;
  useGateway(dialect, { admins: ['keys-admin'], users: ['keys-alice', 'keys-bob'] }, async (gw) => {
    ({ t, root, base, mock } = gw);
    [admin] = gw.admins as [Client];
    [alice, bob] = gw.users as [Client, Client];
    await setQuota(root, alice.userId!, 50_000_000);
    channelId = await addChannel(root, { name: 'keys-channel', key: UPSTREAM_KEY, baseUrl: mock.url, models: MODEL });
  });

  const createToken = async (c: Client, name: string) => {
    const res = await c.call<TokenPublic[]>('POST', '/api/token/', { name, unlimited_quota: true });
    expect(res.body.success).toBe(true);
    return res.body.data![0]!;
  };
  const revealToken = (c: Client, id: number) => c.call<{ key: string }>('POST', `/api/token/${id}/key`);
  const chat = (key: string) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('masks token keys in list, search, detail and update answers; the create answer alone has the full key', async () => {
    const made = await createToken(alice, 'masked-one');
    const full = made.key;
    expect(full).toMatch(/^[A-Za-z0-9]{48}$/);
    const list = await alice.call<Page<TokenPublic>>('GET', '/api/token/?p=1&size=100');
    const search = await alice.call<Page<TokenPublic>>('GET', `/api/token/search?token=sk-${full.slice(8, 24)}`);
    const byName = await alice.call<Page<TokenPublic>>('GET', '/api/token/search?keyword=masked-one');
    const detail = await alice.call<TokenPublic>('GET', `/api/token/${made.id}`);
    const updated = await alice.call<TokenPublic>('PUT', '/api/token/', { id: made.id, name: 'masked-one' });
    expect(list.body.data!.items.find((x) => x.id === made.id)!.key).toBe(maskedToken(full));
    expect(search.body.data!.items.map((x) => [x.id, x.key])).toEqual([[made.id, maskedToken(full)]]);
    expect(byName.body.data!.items.map((x) => x.key)).toEqual([maskedToken(full)]);
    expect(detail.body.data!.key).toBe(maskedToken(full));
    expect(updated.body.data!.key).toBe(maskedToken(full));
    for (const res of [list, search, byName, detail, updated]) expect(res.raw.body).not.toContain(full.slice(4, 44));
  });

  it('reveals a token key to its owner only (no-store), and the revealed sk- key relays a call', async () => {
    const made = await createToken(alice, 'reveal-one');
    const own = await revealToken(alice, made.id);
    expect(own.body).toEqual({ success: true, message: '', data: { key: made.key } });
    expect(own.raw.headers['cache-control']).toBe('no-store');
    for (const other of [bob, admin, root]) {
      const res = await revealToken(other, made.id);
      expect(res.body).toMatchObject({ success: false, message: 'token not found' });
      expect(res.raw.body).not.toContain(made.key);
    }
    expect((await revealToken(alice, 999_999)).body.success).toBe(false);
    const res = await chat(`sk-${own.body.data!.key}`);
    expect(res.status).toBe(200);
    expect(mock.requests.at(-1)!.key).toBe(UPSTREAM_KEY);
  });

  it('reveals several own keys by id; ids of others are left out', async () => {
    const a1 = await createToken(alice, 'many-1');
    const a2 = await createToken(alice, 'many-2');
    const b1 = await createToken(bob, 'many-bob');
    const res = await alice.call<{ keys: Record<string, string> }>('POST', '/api/token/batch/keys', {
      ids: [a1.id, a2.id, b1.id],
    });
    expect(res.body.data).toEqual({ keys: { [a1.id]: a1.key, [a2.id]: a2.key } });
    expect(res.raw.body).not.toContain(b1.key);
    const tooMany = await alice.call('POST', '/api/token/batch/keys', {
      ids: Array.from({ length: 101 }, (_, i) => i + 1),
    });
    expect(tooMany.body).toMatchObject({ success: false, message: 'at most 100 tokens at a time' });
  });

  it('POST /api/token/batch deletes only the caller’s tokens and answers the count; their keys stop relaying', async () => {
    const a1 = await createToken(alice, 'batch-del-1');
    const a2 = await createToken(alice, 'batch-del-2');
    const keep = await createToken(alice, 'batch-keep');
    const b1 = await createToken(bob, 'batch-bob');
    const res = await alice.call<number>('POST', '/api/token/batch', { ids: [a1.id, a2.id, b1.id, 999_999] });
    expect(res.body).toEqual({ success: true, message: '', data: 2 });
    const left = (await alice.call<Page<TokenPublic>>('GET', '/api/token/?size=100')).body.data!.items.map((x) => x.id);
    expect(left).toContain(keep.id);
    expect(left).not.toContain(a1.id);
    expect(left).not.toContain(a2.id);
    expect((await bob.call<TokenPublic>('GET', `/api/token/${b1.id}`)).body.data!.id).toBe(b1.id);
    expect((await chat(`sk-${a1.key}`)).status).toBe(401);
    expect((await chat(`sk-${keep.key}`)).status).toBe(200);
    // Deleting again counts nothing; an empty list is refused.
    expect((await alice.call<number>('POST', '/api/token/batch', { ids: [a1.id] })).body.data).toBe(0);
    const empty = await alice.call('POST', '/api/token/batch', { ids: [] });
    expect(empty.body).toMatchObject({
      success: false,
      message: expect.stringContaining('please select tokens first'),
    });
  });

  it('masks channel keys in list, search and detail answers', async () => {
    const list = await root.call<Page<ChannelPublic>>('GET', '/api/channel/?p=1&page_size=50');
    const search = await root.call<Page<ChannelPublic>>('GET', '/api/channel/search?keyword=keys-channel');
    const detail = await root.call<ChannelPublic>('GET', `/api/channel/${channelId}`);
    const masked = `${UPSTREAM_KEY.slice(0, 3)}********${UPSTREAM_KEY.slice(-4)}`;
    expect(list.body.data!.items.find((c) => c.id === channelId)!.key).toBe(masked);
    expect(search.body.data!.items.find((c) => c.id === channelId)!.key).toBe(masked);
    expect(detail.body.data!.key).toBe(masked);
    for (const res of [list, search, detail]) expect(res.raw.body).not.toContain(UPSTREAM_KEY);
  });

  it('reveals a channel key to root only, after a verification of the session', async () => {
    const reveal = (c: Client) => c.call<{ key: string }>('POST', `/api/channel/${channelId}/key`, {});
    // An administrator below root: refused whatever it verified.
    expect(
      (await admin.call('POST', '/api/verify', { method: 'password', password: 'user-pass-123' })).body.success,
    ).toBe(true);
    const byAdmin = await reveal(admin);
    expect(byAdmin.body.success).toBe(false);
    expect(byAdmin.raw.body).not.toContain(UPSTREAM_KEY);
    // Root on a fresh session: refused until verified; a wrong password does not verify.
    const fresh = new Client(t.app);
    expect((await fresh.login(ROOT.username, ROOT.password)).body.success).toBe(true);
    const unverified = await reveal(fresh);
    expect(unverified.body).toMatchObject({
      success: false,
      message: expect.stringContaining('secure verification required'),
    });
    const wrong = await fresh.call('POST', '/api/verify', { method: 'password', password: 'not-the-password' });
    expect(wrong.body).toMatchObject({ success: false, message: 'the password is wrong' });
    expect((await fresh.call('POST', '/api/verify', { method: '2fa', code: '123456' })).body).toMatchObject({
      success: false,
      message: expect.stringContaining('not enabled'),
    });
    expect((await reveal(fresh)).body.success).toBe(false);
    const ok = await fresh.call<{ verified: boolean; expires_at: number }>('POST', '/api/verify', {
      method: 'password',
      password: ROOT.password,
    });
    expect(ok.body).toMatchObject({ success: true, data: { verified: true } });
    expect(ok.body.data!.expires_at).toBeGreaterThan(Date.now() / 1000 + 200);
    const shown = await reveal(fresh);
    expect(shown.body).toMatchObject({ success: true, data: { key: UPSTREAM_KEY } });
    expect(shown.raw.headers['cache-control']).toBe('no-store');
    // The verification belongs to that session: root's other session is still refused.
    const other = new Client(t.app);
    await other.login(ROOT.username, ROOT.password);
    expect((await reveal(other)).body.success).toBe(false);
    // An access token is no session: it cannot verify nor read a key.
    const token = await fresh.call<string>('GET', '/api/user/token');
    const byToken = new Client(t.app);
    byToken.userId = fresh.userId;
    byToken.accessToken = token.body.data!;
    expect(
      (await byToken.call('POST', '/api/verify', { method: 'password', password: ROOT.password })).body.success,
    ).toBe(false);
    expect((await reveal(byToken)).body.success).toBe(false);
    // The reveal is in the audit log, without the key.
    const audit = await t.runtime.ctx.logDb.kysely
      .selectFrom('audit_logs')
      .selectAll()
      .where('action', '=', 'channel.key_view')
      .execute();
    expect(audit.some((a) => a.target_id === String(channelId) && a.outcome === 'ok')).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(UPSTREAM_KEY);
    const verified = await t.runtime.ctx.logDb.kysely
      .selectFrom('audit_logs')
      .selectAll()
      .where('action', '=', 'auth.secure_verify')
      .execute();
    expect(verified.some((a) => a.actor_id === fresh.userId && JSON.parse(a.detail).fields.method === 'password')).toBe(
      true,
    );
    expect(JSON.stringify(verified)).not.toContain(ROOT.password);
  });

  it('an edit that sends the masked key back keeps the stored key; a new key replaces it', async () => {
    const detail = (await root.call<ChannelPublic>('GET', `/api/channel/${channelId}`)).body.data!;
    const res = await root.call<ChannelPublic>('PUT', '/api/channel/', {
      ...detail,
      name: 'keys-channel-renamed',
      models: [MODEL],
      group: ['default'],
    });
    expect(res.body.success).toBe(true);
    expect(await revealChannelKey(root, channelId)).toBe(UPSTREAM_KEY);
    expect(t.runtime.ctx.channelCache.get(channelId)!.keys).toEqual([UPSTREAM_KEY]);
    const made = await createToken(alice, 'after-edit');
    expect((await chat(`sk-${made.key}`)).status).toBe(200);
    expect(mock.requests.at(-1)!.key).toBe(UPSTREAM_KEY);
    expect((await root.call('PUT', '/api/channel/', { id: channelId, key: `${UPSTREAM_KEY}-new` })).body.success).toBe(
      true,
    );
    expect(await revealChannelKey(root, channelId)).toBe(`${UPSTREAM_KEY}-new`);
    expect(
      (await root.call('PUT', '/api/channel/', { id: channelId, key: UPSTREAM_KEY, name: 'keys-channel' })).body
        .success,
    ).toBe(true);
  });

  it('a multi-key channel shows its first key masked; sending that back keeps every key', async () => {
    const keys = 'mk-first-0123456789abcdef\nmk-second-0123456789abcdef';
    const made = await root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode: 'multi_to_single',
      channel: { name: 'keys-multi', key: keys, models: 'm-multi' },
    });
    const id = made.body.data!.ids[0]!;
    const detail = (await root.call<ChannelPublic>('GET', `/api/channel/${id}`)).body.data!;
    expect(detail.key).toBe('mk-********cdef');
    expect((await root.call('PUT', '/api/channel/', { id, key: detail.key, name: 'keys-multi-2' })).body.success).toBe(
      true,
    );
    expect(await revealChannelKey(root, id)).toBe(keys);
    expect((await root.call('DELETE', `/api/channel/${id}`)).body.success).toBe(true);
  });

  it('copies a channel with its key and settings (suffix, reset_balance) and the copy relays', async () => {
    // A channel no earlier call went through: the settlement of those calls lands on theirs whenever it lands.
    const source = await addChannel(root, { name: 'copy-source', key: UPSTREAM_KEY, baseUrl: mock.url, models: MODEL });
    await t.runtime.ctx.db.kysely
      .updateTable('channels')
      .set({ used_quota: 777, balance: 12.5, priority: 3, weight: 7 })
      .where('id', '=', source)
      .execute();
    const copied = await root.call<{ id: number }>('POST', `/api/channel/copy/${source}`);
    expect(copied.body).toMatchObject({ success: true, data: { id: expect.any(Number) } });
    const copyId = copied.body.data!.id;
    const c = (await root.call<ChannelPublic>('GET', `/api/channel/${copyId}`)).body.data!;
    expect(c).toMatchObject({
      name: 'copy-source_复制',
      models: MODEL,
      group: 'default',
      base_url: mock.url,
      priority: 3,
      weight: 7,
      used_quota: 0,
      balance: 0,
      test_time: 0,
    });
    expect(await revealChannelKey(root, copyId)).toBe(UPSTREAM_KEY);
    const kept = await root.call<{ id: number }>('POST', `/api/channel/copy/${source}?suffix=-b&reset_balance=false`);
    expect((await root.call<ChannelPublic>('GET', `/api/channel/${kept.body.data!.id}`)).body.data).toMatchObject({
      name: 'copy-source-b',
      used_quota: 777,
      balance: 12.5,
    });
    expect((await admin.call('POST', `/api/channel/copy/${source}`)).body.success).toBe(true);
    expect((await alice.call('POST', `/api/channel/copy/${source}`)).body.success).toBe(false);
    expect((await root.call('POST', '/api/channel/copy/999999')).body.success).toBe(false);
    // With every other channel gone, the copy serves the call with the copied key.
    const others = (await root.call<Page<ChannelPublic>>('GET', '/api/channel/?p=1&page_size=50')).body
      .data!.items.map((x) => x.id)
      .filter((id) => id !== copyId);
    expect((await root.call('POST', '/api/channel/batch', { ids: others })).body.success).toBe(true);
    const made = await createToken(alice, 'via-copy');
    const before = mock.requests.length;
    expect((await chat(`sk-${made.key}`)).status).toBe(200);
    expect(mock.requests.length).toBe(before + 1);
    expect(mock.requests.at(-1)!.key).toBe(UPSTREAM_KEY);
    expect(t.runtime.ctx.channelCache.select('default', MODEL, new Set(), 0)?.id).toBe(copyId);
  });
});

import type { TokenPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

const EXPIRED = 'the token has expired and cannot be enabled: change its expiry time or set it to never expire first';
const EXHAUSTED =
  'the token has no quota left and cannot be enabled: change its remaining quota or make it unlimited first';

describe.each(dialects)('tokens: status rules, IP allow-list and groups on %s', (dialect) => {
  let t: TestApp, root: Client, user: Client;
  useApp(
    dialect,
    { users: ['rules-user'] },
    (app) =>
      ({
        t,
        root,
        users: [user],
      } = app),
  );

  const create = async (body: Record<string, unknown>) => {
    const res = await user.call<TokenPublic[]>('POST', '/api/token/', body);
    if (!res.body.success) throw new Error(res.body.message);
    return res.body.data![0]!;
  };
  const put = (body: Record<string, unknown>, statusOnly = false) =>
    user.call<TokenPublic>('PUT', `/api/token/${statusOnly ? '?status_only=true' : ''}`, body);
  const get = async (id: number) => (await user.call<TokenPublic>('GET', `/api/token/${id}`)).body.data!;
  const stored = (id: number) =>
    t.runtime.ctx.db.kysely.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const past = () => Math.floor(Date.now() / 1000) - 3600;
  const future = () => Math.floor(Date.now() / 1000) + 86400;

  it('toggles between enabled and disabled with status_only, and the relay sees it at once', async () => {
    const tok = await create({ name: 'toggle' });
    expect((await t.runtime.ctx.relay.tokens.get(tok.key))?.status).toBe(1);
    const off = await put({ id: tok.id, status: 2 }, true);
    expect(off.body).toMatchObject({ success: true, data: { id: tok.id, status: 2 } });
    expect((await t.runtime.ctx.relay.tokens.get(tok.key))?.status).toBe(2);
    expect((await put({ id: tok.id, status: 1 }, true)).body.data!.status).toBe(1);
    expect((await t.runtime.ctx.relay.tokens.get(tok.key))?.status).toBe(1);
    // status_only reads only id and status.
    const only = await put({ id: tok.id, status: 2, name: 'ignored' }, true);
    expect(only.body.data).toMatchObject({ name: 'toggle', status: 2 });
    for (const [body, message] of [
      [{ id: tok.id }, 'status is required'],
      [{ id: tok.id, status: 3 }, 'status must be 1 (enabled) or 2 (disabled)'],
      [{ id: tok.id, status: 5 }, 'status'],
    ] as const) {
      const res = await put(body, true);
      expectRefused(res);
      expect(res.body.message).toContain(message);
    }
  });

  it('shows an enabled token past its expiry as 3 and refuses to enable it until the expiry changes', async () => {
    const tok = await create({ name: 'expiring', expired_time: future() });
    const upd = await put({ id: tok.id, expired_time: past() });
    expect(upd.body.data!.status).toBe(3);
    expect((await stored(tok.id)).status).toBe(1);
    const listed = await user.call<{ items: TokenPublic[] }>('GET', '/api/token/?size=100');
    expect(listed.body.data!.items.find((x) => x.id === tok.id)!.status).toBe(3);
    expect((await put({ id: tok.id, status: 2 }, true)).body.data!.status).toBe(2);
    for (const statusOnly of [true, false]) {
      const res = await put({ id: tok.id, status: 1 }, statusOnly);
      expectRefused(res);
      expect(res.body).toMatchObject({ success: false, message: EXPIRED });
    }
    // Another past expiry in the same request is still refused.
    expect((await put({ id: tok.id, status: 1, expired_time: past() })).body.message).toBe(EXPIRED);
    expect((await stored(tok.id)).status).toBe(2);
    // A new expiry in the same request makes it valid.
    const ok = await put({ id: tok.id, status: 1, expired_time: future() });
    expect(ok.body.data).toMatchObject({ status: 1 });
    expect((await stored(tok.id)).status).toBe(1);
    const never = await create({ name: 'never' });
    await put({ id: never.id, expired_time: past(), status: 2 });
    expect((await put({ id: never.id, status: 1, expired_time: -1 })).body.data).toMatchObject({
      status: 1,
      expired_time: -1,
    });
  });

  it('shows a limited token without quota as 4 and refuses to enable it until quota or unlimited is given', async () => {
    const tok = await create({ name: 'spent', remain_quota: 10 });
    expect((await put({ id: tok.id, remain_quota: 0 })).body.data!.status).toBe(4);
    await put({ id: tok.id, status: 2 }, true);
    for (const statusOnly of [true, false]) {
      const res = await put({ id: tok.id, status: 1 }, statusOnly);
      expectRefused(res);
      expect(res.body.message).toBe(EXHAUSTED);
    }
    expect((await put({ id: tok.id, status: 1, remain_quota: 500 })).body.data).toMatchObject({
      status: 1,
      remain_quota: 500,
    });
    await put({ id: tok.id, remain_quota: 0, status: 2 });
    expect((await put({ id: tok.id, status: 1, unlimited_quota: true })).body.data).toMatchObject({
      status: 1,
      unlimited_quota: true,
      remain_quota: 0,
    });
    // A full update that sends back the displayed status 3 or 4 leaves the stored status alone.
    const row = await get(tok.id);
    expect((await put({ ...row, status: 4, name: 'spent2' })).body.data).toMatchObject({ name: 'spent2', status: 1 });
  });

  it('validates the IP allow-list line by line, naming the bad line', async () => {
    const ok = await create({ name: 'ips', allow_ips: '10.0.0.1\n192.168.0.0/16\n\n::1\n2001:db8::/32\n' });
    expect(ok.allow_ips).toBe('10.0.0.1\n192.168.0.0/16\n\n::1\n2001:db8::/32');
    for (const bad of ['not-an-ip', '10.0.0.0/33', '1.2.3.4/8/9', '300.1.1.1', '10.0.0.1, 10.0.0.2']) {
      const res = await user.call('POST', '/api/token/', { name: 'bad-ips', allow_ips: `10.0.0.1\n${bad}` });
      expectRefused(res, bad);
      expect(res.body.message, bad).toBe(`allow_ips: "${bad}" is not a valid IP address or CIDR range (one per line)`);
      const upd = await put({ id: ok.id, allow_ips: bad });
      expectRefused(upd, bad);
      expect(upd.body.message).toContain('allow_ips');
    }
    expect((await get(ok.id)).allow_ips).toBe('10.0.0.1\n192.168.0.0/16\n\n::1\n2001:db8::/32');
    expect((await put({ id: ok.id, allow_ips: null })).body.data!.allow_ips).toBe('');
    expect((await user.call('POST', '/api/token/', { name: 'x', allow_ips: 5 })).body.message).toContain('allow_ips');
  });

  it('accepts only groups open to the user: UserUsableGroups and their own group', async () => {
    expect((await create({ name: 'g-default', group: 'default' })).group).toBe('default');
    expect((await create({ name: 'g-vip', group: 'vip' })).group).toBe('vip');
    expect((await create({ name: 'g-empty', group: '' })).group).toBe('');
    // svip has a ratio but is not open to users.
    const refused = await user.call('POST', '/api/token/', { name: 'g-svip', group: 'svip' });
    expectRefused(refused);
    expect(refused.body.message).toBe('group: "svip" is not available to you');
    await root.call('PUT', '/api/user/', { id: user.userId, group: 'special' });
    const own = await create({ name: 'g-special', group: 'special' });
    expect(own.group).toBe('special');
    const vip = await create({ name: 'g-vip2', group: 'vip' });
    expect((await put({ id: vip.id, group: 'svip' })).body.message).toBe('group: "svip" is not available to you');
    expect((await put({ id: vip.id, group: 'special' })).body.data!.group).toBe('special');
    // Moved out of the special group: the token keeps it until its group is changed.
    await root.call('PUT', '/api/user/', { id: user.userId, group: 'default' });
    expect((await put({ id: own.id, group: 'special', name: 'kept' })).body.data).toMatchObject({
      group: 'special',
      name: 'kept',
    });
    expect((await put({ id: vip.id, group: 'vip' })).body.data!.group).toBe('vip');
    expectRefused(await put({ id: vip.id, group: 'special' }));
  });
});

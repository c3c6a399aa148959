import { describe, expect, it } from 'vitest';
import { Client, createUserClient, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

describe.each(dialects)('user management tier rules on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, admin2: Client, user: Client;
  useApp(
    dialect,
    { admins: ['admin1', 'admin2'], users: ['plain1'] },
    (app) =>
      ({
        t,
        root,
        admins: [admin, admin2],
        users: [user],
      } = app),
  );

  const manage = (c: Client, id: number, action: string) =>
    c.call<{ status: number; role: number }>('POST', '/api/user/manage', { id, action });

  it('pages, searches by keyword and group, and never returns passwords', async () => {
    for (let i = 0; i < 12; i++)
      await root.call('POST', '/api/user/', { username: `bulk${i}`, password: 'bulk-pass-1' });
    const p1 = await root.call<{ items: { username: string; password: string }[]; page: number; total: number }>(
      'GET',
      '/api/user/?p=1&page_size=10',
    );
    expect(p1.body.data!.items).toHaveLength(10);
    expect(p1.body.data!.total).toBe(16);
    expect(p1.body.data!.items.every((u) => u.password === '')).toBe(true);
    const p2 = await root.call<{ items: unknown[]; page: number }>('GET', '/api/user/?p=2&page_size=10');
    expect(p2.body.data).toMatchObject({ page: 2 });
    expect(p2.body.data!.items).toHaveLength(6);
    const found = await root.call<{ items: { username: string }[]; total: number }>(
      'GET',
      '/api/user/search?keyword=bulk1&p=1&page_size=50',
    );
    expect(found.body.data!.items.map((u) => u.username).sort()).toEqual(['bulk1', 'bulk10', 'bulk11']);
    await root.call('PUT', '/api/user/', { id: user.userId, group: 'vip' });
    const vip = await root.call<{ items: { username: string }[] }>('GET', '/api/user/search?keyword=&group=vip');
    expect(vip.body.data!.items.map((u) => u.username)).toEqual(['plain1']);
  });

  it('nobody creates a user of equal or higher role', async () => {
    const r = await admin.call('POST', '/api/user/', { username: 'sneaky', password: 'sneaky-pass', role: 10 });
    expectRefused(r);
    expect(r.body.message).toBe('cannot create users of equal or higher permission');
    expect(
      (await admin.call('POST', '/api/user/', { username: 'ok-user', password: 'okuser-pass' })).body.success,
    ).toBe(true);
    expectRefused(await root.call('POST', '/api/user/', { username: 'root2', password: 'root2-pass', role: 100 }));
  });

  it('an administrator cannot promote; only root promotes and demotes', async () => {
    const r = await manage(admin, user.userId!, 'promote');
    expect(r.body).toMatchObject({
      success: false,
      message: 'regular administrators cannot promote others to administrator',
    });
    const p = await manage(root, user.userId!, 'promote');
    expect(p.body.data).toEqual({ status: 1, role: 10 });
    const d = await manage(root, user.userId!, 'demote');
    expect(d.body.data).toEqual({ status: 1, role: 1 });
  });

  it('nobody modifies or deletes a user at the same or higher level', async () => {
    const r = await manage(admin, admin2.userId!, 'disable');
    expectRefused(r);
    expect(r.body.message).toBe('cannot disable a user at the same or a higher permission level');
    const upd = await admin.call('PUT', '/api/user/', { id: admin2.userId, quota: 999 });
    expectRefused(upd);
    expectRefused(await admin.call('GET', `/api/user/${root.userId}`));
  });

  it('the super administrator cannot be disabled, deleted or demoted', async () => {
    for (const action of ['disable', 'delete', 'demote'] as const) {
      const r = await manage(admin, root.userId!, action);
      expectRefused(r);
      expect(r.body.message).toMatch(/^the super administrator cannot be (disabled|deleted|demoted)$/);
    }
  });

  it('disable ends the session at once (enable does not bring it back: the user signs in again), edits apply', async () => {
    const victim = await createUserClient(t.app, root, 'victim');
    expect((await manage(admin, victim.userId!, 'disable')).body.data).toEqual({ status: 2, role: 1 });
    expect((await victim.call('GET', '/api/user/self')).status).toBe(401);
    expect((await new Client(t.app).login('victim', 'user-pass-123')).body.message).toBe('user banned');
    expect((await manage(admin, victim.userId!, 'enable')).body.data).toEqual({ status: 1, role: 1 });
    expect((await victim.call('GET', '/api/user/self')).status).toBe(401);
    expect((await victim.login('victim', 'user-pass-123')).body.success).toBe(true);
    expect((await victim.call('GET', '/api/user/self')).status).toBe(200);
    const edit = await admin.call('PUT', '/api/user/', {
      id: victim.userId,
      display_name: 'V',
      quota: 12345,
      group: 'vip',
      remark: 'note',
      password: 'changed-pass-1',
    });
    expect(edit.body).toEqual({ success: true, message: 'user updated' });
    const got = await admin.call<{ display_name: string; quota: number; group: string; remark: string }>(
      'GET',
      `/api/user/${victim.userId}`,
    );
    expect(got.body.data).toMatchObject({ display_name: 'V', quota: 12345, group: 'vip', remark: 'note' });
    expect((await new Client(t.app).login('victim', 'changed-pass-1')).body.success).toBe(true);
  });

  it('deletes softly: the row stays with DeletedAt, login is refused, the name stays taken', async () => {
    const gone = await createUserClient(t.app, root, 'gone');
    const r = await manage(admin, gone.userId!, 'delete');
    expect(r.body.success).toBe(true);
    const row = await root.call<{ DeletedAt: string | null }>('GET', `/api/user/${gone.userId}`);
    expect(row.body.data!.DeletedAt).not.toBeNull();
    expect((await new Client(t.app).login('gone', 'user-pass-123')).body.success).toBe(false);
    expect((await gone.call('GET', '/api/user/self')).status).toBe(401);
    expect((await root.call('POST', '/api/user/', { username: 'gone', password: 'gone-pass-1' })).body.message).toBe(
      'username already exists',
    );
    expect((await manage(root, gone.userId!, 'enable')).body.message).toBe('user does not exist');
  });
});

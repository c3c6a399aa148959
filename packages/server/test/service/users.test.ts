import { Role, UserStatus } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { useServiceContext } from '../support/service-context.js';

const t = useServiceContext();
const users = () => t.ctx.users;
const admin = () => t.ctx.userAdmin;
const register = (username: string, extra: Record<string, string> = {}) =>
  users().register({ username, password: 'password-123', email: '', aff_code: '', ...extra });

describe('user rules', () => {
  it('refuses a taken username on create and on register', async () => {
    const taken = await t.user();
    await expect(users().create({ username: taken.username, password: 'password-123' })).rejects.toThrow(
      'username already exists',
    );
    await expect(register(taken.username)).rejects.toThrow('username already exists');
  });

  it('registers only while registration and password registration are on; the two passwords must match', async () => {
    await expect(register(`reg${process.pid}a`, { password2: 'different-1' })).rejects.toThrow(
      'the two passwords differ',
    );
    await t.ctx.options.set('PasswordRegisterEnabled', 'false');
    await expect(register(`reg${process.pid}b`)).rejects.toThrow(/registration with username and password/);
    await t.ctx.options.set('PasswordRegisterEnabled', 'true');
    await t.ctx.options.set('RegisterEnabled', 'false');
    await expect(register(`reg${process.pid}c`)).rejects.toThrow(/disabled new user registration/);
    await t.ctx.options.set('RegisterEnabled', 'true');
    const id = await register(`reg${process.pid}d`);
    expect(await users().get(id)).toMatchObject({ role: Role.Common, status: UserStatus.Enabled });
  });

  it('logs in with the right password only, and never a disabled user', async () => {
    const root = await t.user({ role: Role.Root });
    const u = await t.user();
    await expect(users().login(u.username, 'password-123')).resolves.toMatchObject({ id: u.id });
    await expect(users().login(u.username, 'wrong-password')).rejects.toThrow(/username or password is wrong/);
    await admin().manage(root, u.id, 'disable');
    await expect(users().login(u.username, 'password-123')).rejects.toThrow('user banned');
  });

  it('lets an administrator create only users below them, of role 1 or 10', async () => {
    const root = await t.user({ role: Role.Root });
    const adm = await t.user({ role: Role.Admin });
    const input = (role: number) => ({
      username: `c${process.pid}_${role}_${Math.random().toString(36).slice(2, 8)}`,
      password: 'password-123',
      display_name: '',
      role,
    });
    await expect(admin().create(adm, input(Role.Admin))).rejects.toThrow(/equal or higher permission/);
    await expect(admin().create(root, input(50))).rejects.toThrow('role must be 1 or 10');
    await expect(admin().create(adm, input(Role.Common))).resolves.toBeGreaterThan(0);
    await expect(admin().create(root, input(Role.Admin))).resolves.toBeGreaterThan(0);
  });

  it('edits: no @ in a username, no negative quota, nobody at or above the editor', async () => {
    const root = await t.user({ role: Role.Root });
    const adm = await t.user({ role: Role.Admin });
    const peer = await t.user({ role: Role.Admin });
    const u = await t.user({ quota: 10 });
    await expect(admin().update(adm, { id: u.id, username: 'a@b' })).rejects.toThrow('username must not contain @');
    await expect(admin().update(adm, { id: u.id, quota: -1 })).rejects.toThrow('quota must not be negative');
    await expect(admin().update(adm, { id: peer.id, remark: 'x' })).rejects.toThrow(
      /same or a higher permission level/,
    );
    await admin().update(root, { id: u.id, quota: 500, group: 'vip' });
    expect(await users().get(u.id)).toMatchObject({ quota: 500, group: 'vip' });
  });

  it('manages roles: only root promotes, nobody manages themselves, root is never disabled or deleted', async () => {
    const root = await t.user({ role: Role.Root });
    const adm = await t.user({ role: Role.Admin });
    const u = await t.user();
    await expect(admin().manage(adm, u.id, 'promote')).rejects.toThrow(/cannot promote/);
    await expect(admin().manage(adm, adm.id, 'disable')).rejects.toThrow(/your own account/);
    await expect(admin().manage(adm, root.id, 'disable')).rejects.toThrow(/super administrator cannot be disabled/);
    await expect(admin().manage(root, u.id, 'promote')).resolves.toEqual({
      status: UserStatus.Enabled,
      role: Role.Admin,
    });
    await expect(admin().manage(root, u.id, 'promote')).rejects.toThrow('already an administrator');
    await expect(admin().manage(root, u.id, 'demote')).resolves.toMatchObject({ role: Role.Common });
    await admin().manage(root, u.id, 'delete');
    await expect(admin().manage(root, u.id, 'enable')).rejects.toThrow('user does not exist');
  });
});

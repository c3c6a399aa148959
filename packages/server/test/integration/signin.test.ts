import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { Client as ApiClient } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

const PASSWORD = 'user-pass-123';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

describe.each(dialects)('sign-in rules on %s', (dialect) => {
  let t: TestApp, root: Client;
  useApp(dialect, {}, (app) => ({ t, root } = app));
  const users = () => t.database.db.kysely.selectFrom('users');
  const register = (body: Record<string, unknown>) =>
    new ApiClient(t.app).call('POST', '/api/user/register', { password: PASSWORD, ...body });
  const login = (username: string, password = PASSWORD) => new ApiClient(t.app).login(username, password);
  /** A user as accounts made before these rules could be (names with '@', shared emails): straight through the service. */
  const legacyUser = (username: string, email = '', password = PASSWORD) =>
    t.runtime.ctx.users.create({ username, password, email });

  it('registration refuses an email that is not an email address, and creates nothing', async () => {
    for (const email of [
      'not-an-email',
      'a@b',
      'two@@example.com',
      'sp ace@example.com',
      '@example.com',
      'x@example.c0m',
      'x@-bad.com',
      'a..b@example.com',
    ]) {
      const res = await register({ username: `bad${Math.abs(email.length * 7)}x`, email });
      expectRefused(res, email);
      expect(res.body, email).toMatchObject({ success: false, message: 'invalid body: "email" invalid email address' });
    }
    expect(await users().select('id').where('username', 'like', 'bad%').execute()).toEqual([]);
    expect((await register({ username: 'goodmail', email: 'good.mail+tag@example.co.uk' })).body.success).toBe(true);
    expect((await register({ username: 'nomail' })).body.success).toBe(true);
  });

  it("administrators' email edits are validated too and may not take another user's email", async () => {
    await register({ username: 'holder', email: 'holder@example.com' });
    const target = await legacyUser('edited');
    const bad = await root.call('PUT', '/api/user/', { id: target, email: 'nope' });
    expect(bad.body).toMatchObject({ success: false, message: 'invalid body: "email" invalid email address' });
    const taken = await root.call('PUT', '/api/user/', { id: target, email: 'holder@example.com' });
    expect(taken.body).toMatchObject({ success: false, message: 'email already in use' });
    expect((await root.call('PUT', '/api/user/', { id: target, email: 'edited@example.com' })).body.success).toBe(true);
    expect((await users().select('email').where('id', '=', target).executeTakeFirstOrThrow()).email).toBe(
      'edited@example.com',
    );
  });

  it("new usernames and renames may not contain '@' (registration, administrator create and rename)", async () => {
    const reg = await register({ username: 'later@example.com' });
    expectRefused(reg);
    expect(reg.body).toMatchObject({ success: false, message: 'invalid body: "username" username must not contain @' });
    const created = await root.call('POST', '/api/user/', {
      username: 'x@example.com',
      password: PASSWORD,
      display_name: 'x',
    });
    expect(created.body).toMatchObject({
      success: false,
      message: 'invalid body: "username" username must not contain @',
    });
    const id = await legacyUser('renamed');
    const renamed = await root.call('PUT', '/api/user/', { id, username: 'r@example.com' });
    expect(renamed.body).toMatchObject({ success: false, message: 'username must not contain @' });
    expect(await users().select('id').where('username', 'like', '%@example.com').execute()).toEqual([]);
  });

  it("a squatter named after a later user's email cannot lock them out: a login name with @ means the email", async () => {
    // The squatter took the name before names could hold '@' (lowest id: the old lookup picked it first).
    const squatter = await legacyUser('carol@example.com', '', 'squatter-pass-1');
    const reg = await register({ username: 'carol', email: 'carol@example.com' });
    expect(reg.body.success).toBe(true);
    const carol = await login('carol@example.com');
    expect(carol.body).toMatchObject({ success: true, data: { username: 'carol' } });
    expect(carol.body.data!.id).not.toBe(squatter);
    const squat = await login('carol@example.com', 'squatter-pass-1');
    expect(squat.body).toMatchObject({
      success: false,
      message: 'username or password is wrong, or the user has been banned',
    });
    // An old account named with '@' still logs in by its name while no one holds that email.
    await legacyUser('dave@example.com', '', 'dave-pass-123');
    expect((await login('dave@example.com', 'dave-pass-123')).body).toMatchObject({
      success: true,
      data: { username: 'dave@example.com' },
    });
  });

  it('an email held by two live accounts (old data) is refused, never resolved by id; each still logs in by username', async () => {
    await legacyUser('twin1', 'twin@example.com');
    await legacyUser('twin2', 'twin@example.com', 'twin2-pass-12');
    const res = await login('twin@example.com');
    expect(res.body).toMatchObject({
      success: false,
      message: 'more than one account uses this email: log in with your username',
    });
    expect((await login('twin@example.com', 'twin2-pass-12')).body.success).toBe(false);
    expect((await login('twin1')).body).toMatchObject({ success: true, data: { username: 'twin1' } });
    expect((await login('twin2', 'twin2-pass-12')).body).toMatchObject({ success: true, data: { username: 'twin2' } });
  });

  it('a login for an unknown user spends the same bcrypt work as one with a wrong password (medians)', async () => {
    await legacyUser('timed', 'timed@example.com');
    // The server runs in this process: its CPU time per login measures the work done, whatever else loads the machine.
    const timed = async (name: string): Promise<number> => {
      const start = process.cpuUsage();
      const res = await login(name, 'wrong-password-1');
      expect(res.body.success).toBe(false);
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000;
    };
    await timed('timed');
    await timed('nobody-here');
    const known: number[] = [];
    const unknown: number[] = [];
    const unknownEmail: number[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(await timed('timed'));
      unknown.push(await timed(`nobody-${i}`));
      unknownEmail.push(await timed(`nobody-${i}@example.com`));
    }
    expect(median(unknown)).toBeGreaterThanOrEqual(0.5 * median(known));
    expect(median(unknownEmail)).toBeGreaterThanOrEqual(0.5 * median(known));
  });
});

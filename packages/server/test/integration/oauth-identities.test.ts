import { describe, expect, it } from 'vitest';
import { migrateToLatest, migrateUpTo, migrationNames } from '../../src/db/migrate.js';
import type { NewUser } from '../../src/modules/users/store.js';
import { userRow } from '../support/user-row.js';
import { Client } from '../support/app.js';
import { createTestDatabase, dialects } from '../support/databases.js';
import { MOCK_CLIENTS } from '../support/mock-oauth.js';
import { oauthCallback, oauthState } from '../support/oauth-flow.js';
import { useOAuthApp } from '../support/oauth-suite.js';
import { expectRefused } from '../support/refusal.js';

const ghUser = (n: number) => ({ id: 7700 + n, login: `racer${n}`, name: `Racer ${n}`, email: null });
const ghId = (n: number) => String(7700 + n);

/** A users row with the given provider ids, written straight to the table (as data from before migration 0010). */
const userRowWith = (username: string, ids: Partial<NewUser>, deleted = false): NewUser =>
  userRow(username, { created_at: 1, deleted_at: deleted ? '2026-01-01T00:00:00.000Z' : null, ...ids });

describe.each(dialects)('third-party account identities on %s', (dialect) => {
  const fx = useOAuthApp(dialect, () => ({
    GitHubOAuthEnabled: 'true',
    GitHubClientId: MOCK_CLIENTS.github.id,
    GitHubClientSecret: MOCK_CLIENTS.github.secret,
  }));
  const k = () => fx.t.database.db.kysely;
  /** A sign-in of GitHub user `n` as `c`, each with a code of its own. */
  const signIn = async (c: Client, n: number) => {
    const st = await oauthState(c);
    return oauthCallback(c, 'github', fx.mock.issueCode('github', ghUser(n)), st.state, st.cookie);
  };
  const columnHolders = async (n: number) =>
    (await k().selectFrom('users').select('id').where('github_id', '=', ghId(n)).orderBy('id').execute()).map(
      (r) => r.id,
    );
  const identities = (n: number) =>
    k().selectFrom('user_identities').select(['provider', 'user_id']).where('external_id', '=', ghId(n)).execute();
  const userCount = async () =>
    Number(
      (
        await k()
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('10 first sign-ins of one new GitHub account at the same moment create one user; each logs in as it or is refused cleanly', async () => {
    const before = await userCount();
    const clients = Array.from({ length: 10 }, () => new Client(fx.t.app));
    const states = await Promise.all(clients.map((c) => oauthState(c)));
    const results = await Promise.all(
      clients.map((c, i) =>
        oauthCallback(c, 'github', fx.mock.issueCode('github', ghUser(1)), states[i]!.state, states[i]!.cookie),
      ),
    );
    const holders = await columnHolders(1);
    expect(holders).toHaveLength(1);
    expect(await userCount()).toBe(before + 1);
    expect(await identities(1)).toEqual([{ provider: 'github', user_id: holders[0] }]);
    for (const res of results) {
      expect(res.status).toBeLessThan(500);
      if (res.body.success)
        expect(res.body).toMatchObject({ message: 'login success', data: { id: holders[0], github_id: ghId(1) } });
      else expect(res.body.message).toBe('this GitHub account is already bound to another user');
    }
    expect(results.filter((r) => r.body.success).length).toBeGreaterThanOrEqual(1);
    // The winner's account works afterwards like any other.
    expect((await signIn(new Client(fx.t.app), 1)).body).toMatchObject({ success: true, data: { id: holders[0] } });
  });

  it('two users binding one GitHub account at the same moment: it is bound to exactly one, the other is refused', async () => {
    const [alice, bob] = [fx.users[0]!, fx.users[1]!];
    const [a, b] = await Promise.all([signIn(alice, 2), signIn(bob, 2)]);
    const answers = [a.body, b.body];
    expect(answers).toContainEqual({ success: true, message: 'bind' });
    expect(answers).toContainEqual({
      success: false,
      message: 'this GitHub account is already bound to another user',
      code: 'oauth_account_taken',
      params: { provider: 'GitHub' },
    });
    const winner = a.body.success ? alice : bob;
    expect(await columnHolders(2)).toEqual([winner.userId]);
    expect(await identities(2)).toEqual([{ provider: 'github', user_id: winner.userId }]);
    expect((await signIn(new Client(fx.t.app), 2)).body).toMatchObject({ success: true, data: { id: winner.userId } });
  });

  it('binding another account releases the one bound before, which then signs in as a new user', async () => {
    const carol = await fx.root.call<{ id: number }>('POST', '/api/user/', {
      username: 'carol',
      password: 'carol-pass-1',
      display_name: 'carol',
    });
    expect(carol.body.success).toBe(true);
    const c = new Client(fx.t.app);
    expect((await c.login('carol', 'carol-pass-1')).body.success).toBe(true);
    expect((await signIn(c, 3)).body).toEqual({ success: true, message: 'bind' });
    expect((await signIn(c, 4)).body).toEqual({ success: true, message: 'bind' });
    expect(await fx.self(c)).toMatchObject({ username: 'carol', github_id: ghId(4) });
    expect(await identities(3)).toEqual([]);
    expect(await identities(4)).toEqual([{ provider: 'github', user_id: c.userId }]);
    const fresh = await signIn(new Client(fx.t.app), 3);
    expect(fresh.body).toMatchObject({ success: true, message: 'login success', data: { github_id: ghId(3) } });
    expect(fresh.body.data!.id).not.toBe(c.userId);
  });

  it('a deleted user keeps the account: its sign-in is refused, no new user is made and nobody else can bind it', async () => {
    const first = await signIn(new Client(fx.t.app), 5);
    const id = first.body.data!.id;
    expect((await fx.root.call('POST', '/api/user/manage', { id, action: 'delete' })).body.success).toBe(true);
    const before = await userCount();
    const again = await signIn(new Client(fx.t.app), 5);
    expectRefused(again);
    expect(again.body).toMatchObject({
      success: false,
      message: 'the user bound to this GitHub account has been deleted',
    });
    const bind = await signIn(fx.users[0]!, 5);
    expect(bind.body).toMatchObject({
      success: false,
      message: 'this GitHub account is already bound to another user',
    });
    expect(await userCount()).toBe(before);
    expect(await identities(5)).toEqual([{ provider: 'github', user_id: id }]);
  });
});

describe.each(dialects)('migration 0010 (user_identities) on %s', (dialect) => {
  it('copies the non-empty provider ids of existing users, the lowest user id keeping an id held twice (the other column emptied)', async () => {
    const test = await createTestDatabase(dialect);
    try {
      const k = test.db.kysely;
      // The database as the version before 0010 left it, with users written by that code (u2 and u3, inserted
      // in that order, both holding g-dup).
      await migrateUpTo(test.db, '0009_messages');
      for (const row of [
        userRowWith('u1', { github_id: 'g-1', oidc_id: 'sub-1' }),
        userRowWith('u2', { github_id: 'g-dup', wechat_id: 'wx-2', telegram_id: 'tg-2' }),
        userRowWith('u3', { github_id: 'g-dup', linux_do_id: 'ld-3' }),
        userRowWith('u4', {}),
        userRowWith('u5', { github_id: 'g-5' }, true),
      ]) {
        await k.insertInto('users').values(row).execute();
      }
      const byName = Object.fromEntries(
        (await k.selectFrom('users').select(['id', 'username']).execute()).map((r) => [r.username, r.id]),
      );
      expect(await migrateToLatest(test.db)).toEqual(
        migrationNames.slice(migrationNames.indexOf('0010_user_identities')),
      );
      const rows = await k.selectFrom('user_identities').select(['provider', 'external_id', 'user_id']).execute();
      const key = (r: { provider: string; external_id: string }) => `${r.provider}/${r.external_id}`;
      expect(rows.sort((a, b) => key(a).localeCompare(key(b)))).toEqual([
        { provider: 'github', external_id: 'g-1', user_id: byName.u1 },
        { provider: 'github', external_id: 'g-5', user_id: byName.u5 },
        { provider: 'github', external_id: 'g-dup', user_id: byName.u2 },
        { provider: 'linuxdo', external_id: 'ld-3', user_id: byName.u3 },
        { provider: 'oidc', external_id: 'sub-1', user_id: byName.u1 },
        { provider: 'telegram', external_id: 'tg-2', user_id: byName.u2 },
        { provider: 'wechat', external_id: 'wx-2', user_id: byName.u2 },
      ]);
      // The users columns say the same: the losing holder of g-dup no longer shows it.
      const columns = await k
        .selectFrom('users')
        .select(['username', 'github_id'])
        .where('username', 'in', ['u2', 'u3'])
        .orderBy('id')
        .execute();
      expect(columns).toEqual([
        { username: 'u2', github_id: 'g-dup' },
        { username: 'u3', github_id: '' },
      ]);
      // The primary key now refuses a second holder.
      await expect(
        k
          .insertInto('user_identities')
          .values({ provider: 'github', external_id: 'g-1', user_id: byName.u4!, created_at: 0 })
          .execute(),
      ).rejects.toThrow();
    } finally {
      await test.drop();
    }
  });
});

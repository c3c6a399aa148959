import { ErrorCode, LogType, parseLogOther, type LogEvent } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { Client, type CallResult, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';

type Coded = { success: boolean; message: string; code?: string; params?: Record<string, unknown> };

/** A refusal with its stable code (and params), the English message still beside it. */
function expectCode(res: CallResult, code: ErrorCode, params?: Record<string, unknown>): void {
  const body = res.body as Coded;
  expect(body.success, body.message).toBe(false);
  expect(body.message.length).toBeGreaterThan(0);
  expect(body.code, body.message).toBe(code);
  if (params) expect(body.params).toEqual(params);
}

describe.each(dialects)('stable error codes and log fields on %s', (dialect) => {
  let t: TestApp, root: Client, alice: Client, bob: Client;
  useApp(
    dialect,
    { users: ['codes-alice', 'codes-bob'] },
    (app) =>
      ({
        t,
        root,
        users: [alice, bob],
      } = app),
  );

  const setOption = async (key: string, value: string) =>
    expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
  /** The event stored with the newest log row of `type` for the user. */
  const lastEvent = async (userId: number, type: number): Promise<{ content: string; event?: LogEvent }> => {
    const row = await t.database.db.kysely
      .selectFrom('logs')
      .select(['content', 'other'])
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    return { content: row.content, event: parseLogOther(row.other).event };
  };

  it('sign-in: a wrong password, a missing session and a role too low carry their codes', async () => {
    expectCode(await new Client(t.app).login('codes-alice', 'wrong-password'), ErrorCode.LoginFailed);
    expectCode(await new Client(t.app).call('GET', '/api/user/self'), ErrorCode.NotLoggedIn);
    expectCode(await alice.call('GET', '/api/user/'), ErrorCode.NoPermission);
    expectCode(
      await root.call('POST', '/api/user/', { username: 'codes-alice', password: 'user-pass-123' }),
      ErrorCode.UsernameTaken,
    );
  });

  it('sign-in of a deleted account: told it was deleted with its password, the usual refusal without', async () => {
    const made = await root.call<{ id: number }>('POST', '/api/user/', {
      username: 'codes-gone',
      password: 'gone-pass-123',
      display_name: 'gone',
    });
    expect(made.body.success).toBe(true);
    const { id } = (
      await root.call<{ items: { id: number; username: string }[] }>('GET', '/api/user/search?keyword=codes-gone')
    ).body.data!.items.find((u) => u.username === 'codes-gone')!;
    expect((await root.call('POST', '/api/user/manage', { id, action: 'delete' })).body.success).toBe(true);
    const gone = await new Client(t.app).login('codes-gone', 'gone-pass-123');
    expectCode(gone, ErrorCode.UserDeleted);
    expect((gone.body as Coded).message).toBe('this account has been deleted');
    // A wrong password names no account: the same refusal as for a name never registered.
    expectCode(await new Client(t.app).login('codes-gone', 'wrong-password'), ErrorCode.LoginFailed);
    expectCode(await new Client(t.app).login('codes-never-was', 'gone-pass-123'), ErrorCode.LoginFailed);
  });

  it('redemption: empty, invalid and used codes; the redemption log keeps its fields', async () => {
    expectCode(await alice.call('POST', '/api/user/topup', { key: '' }), ErrorCode.RedemptionEmpty);
    expectCode(
      await alice.call('POST', '/api/user/topup', { key: 'no-such-code-0000000000000000000' }),
      ErrorCode.RedemptionInvalid,
    );
    const created = await root.call<string[]>('POST', '/api/redemption/', { name: 'codes', count: 1, quota: 2500 });
    const key = created.body.data![0]!;
    expect((await alice.call('POST', '/api/user/topup', { key })).body.success).toBe(true);
    expectCode(await bob.call('POST', '/api/user/topup', { key }), ErrorCode.RedemptionUsed);
    const log = await lastEvent(alice.userId!, LogType.Topup);
    expect(log.content).toContain('redemption code');
    expect(log.event).toMatchObject({ kind: 'redemption', quota: 2500, gift: false });
    expect(typeof log.event!.code_id).toBe('number');
  });

  it('check-in: disabled and already done carry codes; the check-in log keeps kind and quota', async () => {
    await setOption('CheckInEnabled', 'false');
    expectCode(await alice.call('POST', '/api/user/check_in'), ErrorCode.CheckInDisabled);
    await setOption('CheckInEnabled', 'true');
    await setOption('CheckInQuota', '1234');
    await setOption('CheckInMaxQuota', '0');
    expect((await alice.call('POST', '/api/user/check_in')).body.success).toBe(true);
    expectCode(await alice.call('POST', '/api/user/check_in'), ErrorCode.CheckInAlreadyToday);
    const log = await lastEvent(alice.userId!, LogType.CheckIn);
    expect(log.content).toContain('daily check-in: received 1234 quota');
    expect(log.event).toMatchObject({ kind: 'checkin', quota: 1234 });
    expect(log.event!.amount).toBeTruthy();
  });

  it('wallet and mail: the transfer minimum sends its value as params; mail without SMTP names the setting', async () => {
    expectCode(await alice.call('POST', '/api/user/aff_transfer', { quota: 1 }), ErrorCode.AffTransferMinimum, {
      min: 500_000,
    });
    await setOption('SMTPServer', '');
    expectCode(
      await new Client(t.app).call('GET', '/api/verification?email=someone%40example.com'),
      ErrorCode.SmtpNotConfigured,
    );
  });

  it('an administrator balance change logs mode, value and actor; too large a subtraction and the root carry codes', async () => {
    const res = await root.call('POST', '/api/user/manage', {
      id: bob.userId,
      action: 'add_quota',
      mode: 'add',
      value: 700,
    });
    expect(res.body.success, res.body.message).toBe(true);
    expect((await lastEvent(bob.userId!, LogType.Manage)).event).toEqual({
      kind: 'admin_quota',
      mode: 'add',
      quota: 700,
      actor: 'root',
    });
    expectCode(
      await root.call('POST', '/api/user/manage', {
        id: bob.userId,
        action: 'add_quota',
        mode: 'subtract',
        value: 10 ** 12,
      }),
      ErrorCode.BalanceTooLow,
    );
    expectCode(
      await root.call('POST', '/api/user/manage', { id: root.userId, action: 'disable' }),
      ErrorCode.RootProtected,
    );
  });

  it('tokens: an unknown token id carries its code', async () => {
    expectCode(await alice.call('GET', '/api/token/987654'), ErrorCode.TokenNotFound);
  });
});

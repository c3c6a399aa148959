import { ErrorCode } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type CallResult } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { enableTwoFactor, TotpClock, type Challenge, type Enabled } from '../support/twofa.js';
import { SoftAuthenticator, type CredentialJson } from '../support/webauthn.js';

const ORIGIN = 'http://localhost:3000';
const RP_ID = 'localhost';
const PASSWORD = 'user-pass-123';
/** How long a secure verification lasts, in ms (five minutes). */
const VERIFIED_FOR_MS = 300_000;

interface Options {
  options: {
    publicKey: { challenge: string; rp?: { id: string }; user: { id: string }; allowCredentials?: unknown[] };
  };
}

const codeOf = (res: CallResult): unknown => (res.body as { code?: unknown }).code;

/** The full passkey ceremonies over HTTP with a software authenticator, and their refusals. */
describe.each(dialects)('passkeys on %s', (dialect) => {
  const clock = new TotpClock();
  beforeAll(() => clock.start());
  afterAll(() => clock.stop());
  const app = useApp(dialect, { users: ['alice', 'bob'] });
  const key = new SoftAuthenticator(RP_ID, ORIGIN);
  let alice: Client;
  let aliceId: number;
  let enabled: Enabled;

  const setOption = async (k: string, value: string) =>
    expect((await app.root.call('PUT', '/api/option/', { key: k, value })).body.success).toBe(true);
  const anonymous = () => new Client(app.t.app);
  const begin = async (c: Client, url: string, body?: unknown) => {
    const res = await c.call<Options>('POST', url, body);
    expect(res.body).toMatchObject({ success: true });
    return res.body.data!.options.publicKey;
  };
  const loginWith = async (c: Client, cred: (o: { challenge: string }) => CredentialJson, body?: unknown) => {
    const options = await begin(c, '/api/user/passkey/login/begin', body);
    const res = await c.call<{ id: number; username: string }>('POST', '/api/user/passkey/login/finish', cred(options));
    if (res.body.success) c.userId = res.body.data!.id;
    return res;
  };

  it('is refused while passkey.enabled is off', async () => {
    [alice] = app.users as [Client];
    aliceId = alice.userId!;
    const res = await anonymous().call('POST', '/api/user/passkey/login/begin');
    expect(res.body).toMatchObject({ success: false });
    expect(codeOf(res)).toBe(ErrorCode.PasskeyUnavailable);
    expect((await app.root.call<Record<string, unknown>>('GET', '/api/status')).body.data).toMatchObject({
      passkey_login: false,
    });
  });

  it('registers a passkey for the RP id and origin of ServerAddress', async () => {
    await setOption('ServerAddress', ORIGIN);
    await setOption('passkey.enabled', 'true');
    expect((await app.root.call<Record<string, unknown>>('GET', '/api/status')).body.data).toMatchObject({
      passkey_login: true,
    });
    expect((await alice.call('GET', '/api/user/passkey')).body.data).toEqual({ enabled: false });
    const options = await begin(alice, '/api/user/passkey/register/begin');
    expect(options.rp).toMatchObject({ id: RP_ID });
    expect(Buffer.from(options.user.id, 'base64url').toString()).toBe(String(aliceId));
    const done = await alice.call('POST', '/api/user/passkey/register/finish', key.register(options));
    expect(done.body).toMatchObject({ success: true });
    expect((await alice.call('GET', '/api/user/passkey')).body.data).toMatchObject({
      enabled: true,
      last_used_at: null,
    });
  });

  it('signs in without a user name, and with one; the challenge is taken once', async () => {
    const c = anonymous();
    const options = await begin(c, '/api/user/passkey/login/begin');
    expect(options.allowCredentials ?? []).toEqual([]);
    const answer = key.assert(options);
    const res = await c.call<{ id: number; username: string }>('POST', '/api/user/passkey/login/finish', answer);
    expect(res.body).toMatchObject({ success: true, data: { id: aliceId, username: 'alice' } });
    c.userId = aliceId;
    expect((await c.call('GET', '/api/user/self')).body.success).toBe(true);
    expect((await alice.call('GET', '/api/user/passkey')).body.data).toMatchObject({
      last_used_at: expect.any(String),
    });
    // The same answer again: its challenge is gone.
    const replay = await anonymous().call('POST', '/api/user/passkey/login/finish', answer);
    expect(codeOf(replay)).toBe(ErrorCode.PasskeyChallengeExpired);
    const named = await begin(anonymous(), '/api/user/passkey/login/begin', { username: 'alice' });
    expect(named.allowCredentials).toEqual([expect.objectContaining({ id: key.id })]);
    expect((await loginWith(anonymous(), (o) => key.assert(o), { username: 'alice' })).body.success).toBe(true);
  });

  it('refuses a wrong origin, an unknown credential, a counter that went back and a disabled user', async () => {
    const wrongOrigin = await loginWith(anonymous(), (o) => key.assert(o, 'https://evil.example'));
    expect(codeOf(wrongOrigin)).toBe(ErrorCode.PasskeyVerificationFailed);
    const stranger = new SoftAuthenticator(RP_ID, ORIGIN);
    expect(codeOf(await loginWith(anonymous(), (o) => stranger.assert(o)))).toBe(ErrorCode.PasskeyUnknownCredential);
    const counter = key.counter;
    key.counter = counter - 2;
    expect(codeOf(await loginWith(anonymous(), (o) => key.assert(o)))).toBe(ErrorCode.PasskeyVerificationFailed);
    key.counter = counter;
    expect((await app.root.call('POST', '/api/user/manage', { id: aliceId, action: 'disable' })).body.success).toBe(
      true,
    );
    expect(codeOf(await loginWith(anonymous(), (o) => key.assert(o)))).toBe(ErrorCode.UserBanned);
    expect((await app.root.call('POST', '/api/user/manage', { id: aliceId, action: 'enable' })).body.success).toBe(
      true,
    );
    expect((await loginWith(anonymous(), (o) => key.assert(o))).body.success).toBe(true);
  });

  it('ends every session a passkey opened when passkeys are switched off; password sessions stay', async () => {
    const byPasskey = anonymous();
    const byPassword = anonymous();
    expect((await loginWith(byPasskey, (o) => key.assert(o))).body.success).toBe(true);
    expect((await byPassword.login('alice', PASSWORD)).body.success).toBe(true);
    await setOption('passkey.enabled', 'false');
    expect((await byPasskey.call('GET', '/api/user/self')).status).toBe(401);
    expect((await byPassword.call('GET', '/api/user/self')).body.success).toBe(true);
    await setOption('passkey.enabled', 'true');
  });

  it('completes the second step of a password sign-in', async () => {
    alice = anonymous();
    expect((await alice.login('alice', PASSWORD)).body.success).toBe(true);
    enabled = await enableTwoFactor(alice, clock);
    const c = anonymous();
    const first = await c.call<Challenge>('POST', '/api/user/login', { username: 'alice', password: PASSWORD });
    const flow = first.body.data!.flow_token;
    // Another user's passkey cannot complete alice's sign-in: only hers is offered and accepted.
    const bobKey = new SoftAuthenticator(RP_ID, ORIGIN);
    const options = await begin(c, '/api/user/passkey/login/begin', { flow_token: flow });
    expect(options.allowCredentials).toEqual([expect.objectContaining({ id: key.id })]);
    expect(codeOf(await c.call('POST', '/api/user/passkey/login/finish', bobKey.assert(options)))).toBe(
      ErrorCode.PasskeyUnknownCredential,
    );
    const done = await loginWith(c, (o) => key.assert(o), { flow_token: flow });
    expect(done.body).toMatchObject({ success: true, data: { id: aliceId } });
    expect((await c.call('GET', '/api/user/self')).body.success).toBe(true);
    // The pending sign-in is used up.
    const again = await c.call('POST', '/api/user/login/2fa', { code: '123456', flow_token: flow });
    expect(codeOf(again)).toBe(ErrorCode.SignInExpired);
    alice = c;
  });

  it('verifies the session for POST /api/verify once, then removes the passkey after it', async () => {
    const passkeyVerify = () => alice.call('POST', '/api/verify', { method: 'passkey' });
    expect(codeOf(await passkeyVerify())).toBe(ErrorCode.PasskeyNotVerified);
    expect((await alice.call('DELETE', '/api/user/passkey')).body.success).toBe(false);
    const options = await begin(alice, '/api/user/passkey/verify/begin');
    expect((await alice.call('POST', '/api/user/passkey/verify/finish', key.assert(options))).body.success).toBe(true);
    expect((await passkeyVerify()).body).toMatchObject({ success: true, data: { verified: true } });
    expect(codeOf(await passkeyVerify())).toBe(ErrorCode.PasskeyNotVerified);
    // A session the passkey signed in ends when the passkey is removed; the password session stays.
    const byPasskey = anonymous();
    expect((await loginWith(byPasskey, (o) => key.assert(o))).body.success).toBe(true);
    expect((await alice.call('DELETE', '/api/user/passkey')).body).toMatchObject({ success: true });
    expect((await byPasskey.call('GET', '/api/user/self')).status).toBe(401);
    expect((await alice.call('GET', '/api/user/self')).body.success).toBe(true);
    expect((await alice.call('GET', '/api/user/passkey')).body.data).toEqual({ enabled: false });
    expect(codeOf(await loginWith(anonymous(), (o) => key.assert(o)))).toBe(ErrorCode.PasskeyUnknownCredential);
  });

  it("needs a verification to register with 2FA on; an administrator resets a user's passkey", async () => {
    const again = new SoftAuthenticator(RP_ID, ORIGIN);
    clock.now += VERIFIED_FOR_MS;
    clock.tick();
    const unverified = await alice.call('POST', '/api/user/passkey/register/begin');
    expect(codeOf(unverified)).toBe(ErrorCode.VerificationRequired);
    const secret = enabled.secret;
    expect((await alice.call('POST', '/api/verify', { method: '2fa', code: clock.code(secret) })).body.success).toBe(
      true,
    );
    const options = await begin(alice, '/api/user/passkey/register/begin');
    expect((await alice.call('POST', '/api/user/passkey/register/finish', again.register(options))).body.success).toBe(
      true,
    );
    // A registration answer whose origin is not the site's is refused.
    const bob = app.users[1]!;
    const wrong = await begin(bob, '/api/user/passkey/register/begin');
    const refused = await bob.call(
      'POST',
      '/api/user/passkey/register/finish',
      new SoftAuthenticator(RP_ID, ORIGIN).register(wrong, 'https://evil.example'),
    );
    expect(codeOf(refused)).toBe(ErrorCode.PasskeyVerificationFailed);
    expect((await bob.call('DELETE', `/api/user/${aliceId}/reset_passkey`)).status).toBe(403);
    expect((await app.root.call('DELETE', `/api/user/${aliceId}/reset_passkey`)).body.success).toBe(true);
    expect((await alice.call('GET', '/api/user/passkey')).body.data).toEqual({ enabled: false });
    const twice = await app.root.call('DELETE', `/api/user/${aliceId}/reset_passkey`);
    expect(codeOf(twice)).toBe(ErrorCode.PasskeyNotRegistered);
    expect(codeOf(await loginWith(anonymous(), (o) => again.assert(o)))).toBe(ErrorCode.PasskeyUnknownCredential);
    const audit = await app.root.call<{ items: { action: string }[] }>('GET', '/api/audit/?p=1&page_size=5');
    expect(audit.body.data!.items.map((i) => i.action)).toContain('user.reset_passkey');
  });

  it("erases a deleted user's passkey", async () => {
    const bob = app.users[1]!;
    const bobKey = new SoftAuthenticator(RP_ID, ORIGIN);
    const options = await begin(bob, '/api/user/passkey/register/begin');
    expect((await bob.call('POST', '/api/user/passkey/register/finish', bobKey.register(options))).body.success).toBe(
      true,
    );
    const rows = () =>
      app.t.database.db.kysely
        .selectFrom('passkey_credentials')
        .select('id')
        .where('user_id', '=', bob.userId!)
        .execute();
    expect(await rows()).toHaveLength(1);
    expect((await app.root.call('DELETE', `/api/user/${bob.userId}`)).body.success).toBe(true);
    expect(await rows()).toHaveLength(0);
    expect(codeOf(await loginWith(anonymous(), (o) => bobKey.assert(o)))).toBe(ErrorCode.PasskeyUnknownCredential);
  });
});

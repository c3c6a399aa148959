import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisOneTimeCodes } from '../../src/lib/one-time-codes.js';
import { Client, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { startMockSmtp, type MockSmtp, type ReceivedMail } from '../support/mock-smtp.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from '../support/redis.js';
import { Redis } from 'ioredis';
import { expectRefused } from '../support/refusal.js';

const codeIn = (mail: ReceivedMail): string =>
  /verification code is: <strong>([A-Z0-9]{6})<\/strong>/.exec(mail.text)?.[1] ?? '';
const linkIn = (mail: ReceivedMail): URL => new URL(/href="([^"]+)"/.exec(mail.text)![1]!);
const q = encodeURIComponent;

describe.each(dialects)('email on %s', (dialect) => {
  let t: TestApp, root: Client, alice: Client, smtp: MockSmtp;
  useApp(
    dialect,
    { users: ['alice'] },
    (app) =>
      ({
        t,
        root,
        users: [alice],
      } = app),
  );
  beforeAll(async () => {
    smtp = await startMockSmtp();
  });
  afterAll(() => smtp?.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  const setOption = async (key: string, value: string) => {
    const res = await root.call('PUT', '/api/option/', { key, value });
    expect(res.body).toMatchObject({ success: true });
  };
  const anon = () => new Client(t.app);
  const requestCode = async (email: string): Promise<string> => {
    const before = smtp.to(email).length;
    const res = await anon().call('GET', `/api/verification?email=${q(email)}`);
    expect(res.body).toEqual({ success: true, message: 'verification code sent, please check your mailbox' });
    const code = codeIn(await smtp.waitFor(email, before));
    expect(code).toMatch(/^[A-Z0-9]{6}$/);
    return code;
  };
  const register = (username: string, email: string, verification_code: string) =>
    anon().call('POST', '/api/user/register', {
      username,
      password: `${username}-pass`,
      password2: `${username}-pass`,
      email,
      verification_code,
    });

  it('refuses codes and reset mails with a clear message while SMTP is not configured', async () => {
    const code = await anon().call('GET', '/api/verification?email=nobody%40example.com');
    expectRefused(code);
    expect(code.body.message).toMatch(/^mail delivery is not configured: .*SMTPServer/);
    const reset = await anon().call('GET', '/api/reset_password?email=nobody%40example.com');
    expect(reset.body).toEqual(code.body);
    expect(smtp.mails).toHaveLength(0);
  });

  it('mails a code from the configured sender that registers once; wrong, missing and reused codes are refused', async () => {
    await setOption('SMTPServer', smtp.host);
    await setOption('SMTPPort', String(smtp.port));
    await setOption('SMTPAccount', smtp.user);
    await setOption('SMTPToken', smtp.pass);
    await setOption('SMTPFrom', 'gateway@example.test');
    await setOption('EmailVerificationEnabled', 'true');

    const bad = await anon().call('GET', '/api/verification?email=not-an-email');
    expect(bad.body).toMatchObject({ success: false, message: 'invalid email address' });

    const code = await requestCode('carol@example.com');
    const mail = smtp.to('carol@example.com')[0]!;
    expect(mail.from).toBe('gateway@example.test');
    expect(mail.subject).toContain('email verification');

    const missing = await anon().call('POST', '/api/user/register', { username: 'carol', password: 'carol-pass' });
    expect(missing.body.message).toBe(
      'email and verification code are required: the administrator has enabled email verification',
    );
    const wrong = await register('carol', 'carol@example.com', code === 'AAAAAA' ? 'BBBBBB' : 'AAAAAA');
    expect(wrong.body).toMatchObject({ success: false, message: 'verification code wrong or expired' });
    const otherEmail = await register('carol', 'someone-else@example.com', code);
    expect(otherEmail.body.message).toBe('verification code wrong or expired');
    // The wrong tries did not use the code up; lower case is accepted.
    expect((await register('carol', 'carol@example.com', code.toLowerCase())).body).toEqual({
      success: true,
      message: 'register success',
    });
    const carol = anon();
    expect((await carol.login('carol', 'carol-pass')).body.data).toMatchObject({ email: 'carol@example.com' });

    // Now in use: no second code, no second account.
    const inUse = await anon().call('GET', '/api/verification?email=carol%40example.com');
    expect(inUse.body).toMatchObject({ success: false, message: 'email already in use' });
    // A used code is gone (checked through bind, where the address is the caller's own).
    const reuse = await carol.call('GET', `/api/oauth/email/bind?email=${q('carol@example.com')}&code=${code}`);
    expect(reuse.body).toMatchObject({ success: false, message: 'verification code wrong or expired' });
  });

  it('refuses an expired code', async () => {
    const code = await requestCode('dave@example.com');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10 * 60_000 + 1000);
    expect((await register('dave', 'dave@example.com', code)).body).toMatchObject({
      success: false,
      message: 'verification code wrong or expired',
    });
    vi.useRealTimers();
    const fresh = await requestCode('dave@example.com');
    expect((await register('dave', 'dave@example.com', fresh)).body.success).toBe(true);
  });

  it('applies the domain whitelist and the alias rule', async () => {
    await setOption('EmailDomainRestrictionEnabled', 'true');
    await setOption('EmailDomainWhitelist', 'example.com, Example.org');
    const outside = await anon().call('GET', '/api/verification?email=eve%40gmail.com');
    expect(outside.body).toMatchObject({
      success: false,
      message: 'the administrator allows only email addresses of these domains: example.com, example.org',
    });
    await requestCode('eve@EXAMPLE.org');
    await setOption('EmailAliasRestrictionEnabled', 'true');
    const alias = await anon().call('GET', `/api/verification?email=${q('eve+spam@example.com')}`);
    expect(alias.body).toMatchObject({
      success: false,
      message: 'the administrator does not allow email aliases: remove the "+" part of the address',
    });
    await setOption('EmailAliasRestrictionEnabled', 'false');
    await requestCode('eve+spam@example.com');
    await setOption('EmailDomainRestrictionEnabled', 'false');
    await requestCode('eve@gmail.com');
  });

  it('binds an email to the logged-in user with the mailed code', async () => {
    const code = await requestCode('alice@example.com');
    expect(
      (await anon().call('GET', `/api/oauth/email/bind?email=${q('alice@example.com')}&code=${code}`)).status,
    ).toBe(401);
    const taken = await alice.call('GET', `/api/oauth/email/bind?email=${q('carol@example.com')}&code=${code}`);
    expect(taken.body).toMatchObject({ success: false, message: 'email already in use' });
    const noCode = await alice.call('GET', `/api/oauth/email/bind?email=${q('alice@example.com')}&code=`);
    expect(noCode.body).toMatchObject({ success: false, message: 'verification code is required' });
    const ok = await alice.call('GET', `/api/oauth/email/bind?email=${q('alice@example.com')}&code=${code}`);
    expect(ok.body).toEqual({ success: true, message: 'email bound' });
    expect((await alice.call<{ email: string }>('GET', '/api/user/self')).body.data!.email).toBe('alice@example.com');
  });

  it("binds through new-api's current console call (POST, JSON body): the code is checked and used up, the address one account's", async () => {
    const bind = (c: Client, email: string, code: string) => c.call('POST', '/api/oauth/email/bind', { email, code });
    const code = await requestCode('alice.new@example.com');
    expect((await bind(anon(), 'alice.new@example.com', code)).status).toBe(401);
    expectRefused(await bind(alice, 'carol@example.com', code), 'taken', 'email already in use');
    expectRefused(await bind(alice, 'alice.new@example.com', 'ZZZZZZ'), 'wrong', 'verification code wrong or expired');
    expectRefused(
      await bind(alice, 'alice.other@example.com', code),
      'other address',
      'verification code wrong or expired',
    );
    expect((await bind(alice, 'alice.new@example.com', code)).body).toEqual({ success: true, message: 'email bound' });
    expect((await alice.call<{ email: string }>('GET', '/api/user/self')).body.data!.email).toBe(
      'alice.new@example.com',
    );
    const reuse = await bind(alice, 'alice.new@example.com', code);
    expectRefused(reuse, 'used code', 'verification code wrong or expired');
    // Her first address is free again: she moves back to it (the tests below use it).
    const back = await bind(alice, 'alice@example.com', await requestCode('alice@example.com'));
    expect(back.body).toEqual({ success: true, message: 'email bound' });
  });

  it('resets a password through the mailed link: new password works once, old one stops, token is single-use', async () => {
    await setOption('ServerAddress', 'https://gw.example.test/');
    const answer = await anon().call('GET', `/api/reset_password?email=${q('carol@example.com')}`);
    expect(answer.body).toEqual({
      success: true,
      message: 'if an account uses this email, a reset link has been sent to it; please check your mailbox',
    });
    const mails = smtp.to('carol@example.com');
    const mail = mails[mails.length - 1]!;
    expect(mail.subject).toContain('password reset');
    const link = linkIn(mail);
    expect(`${link.origin}${link.pathname}`).toBe('https://gw.example.test/user/reset');
    expect(link.searchParams.get('email')).toBe('carol@example.com');
    const token = link.searchParams.get('token')!;
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);

    // A session carol had before the reset (maybe someone else's) ends with it.
    const before = anon();
    expect((await before.login('carol', 'carol-pass')).body.success).toBe(true);

    const wrong = await anon().call('POST', '/api/user/reset', { email: 'carol@example.com', token: 'x'.repeat(32) });
    expect(wrong.body).toMatchObject({ success: false, message: 'reset link invalid or expired' });
    const otherUser = await anon().call('POST', '/api/user/reset', { email: 'alice@example.com', token });
    expect(otherUser.body.message).toBe('reset link invalid or expired');
    const done = await anon().call<string>('POST', '/api/user/reset', { email: 'carol@example.com', token });
    expect(done.body).toMatchObject({ success: true, message: 'password reset done' });
    const password = done.body.data!;
    expect(password).toMatch(/^[A-Za-z0-9]{12}$/);
    expect((await anon().login('carol', password)).body.success).toBe(true);
    expect((await anon().login('carol', 'carol-pass')).body.success).toBe(false);
    expect((await before.call('GET', '/api/user/self')).status).toBe(401);
    const again = await anon().call('POST', '/api/user/reset', { email: 'carol@example.com', token });
    expect(again.body).toMatchObject({ success: false, message: 'reset link invalid or expired' });
  });

  it('answers an unknown email like a known one but mails nothing; without ServerAddress nothing is mailed (never a link on the request host)', async () => {
    const before = smtp.mails.length;
    const unknown = await anon().call('GET', `/api/reset_password?email=${q('ghost@example.com')}`);
    expect(unknown.body).toEqual({
      success: true,
      message: 'if an account uses this email, a reset link has been sent to it; please check your mailbox',
    });
    expect(smtp.mails.length).toBe(before);

    await setOption('ServerAddress', '');
    const res = await anon().call('GET', `/api/reset_password?email=${q('alice@example.com')}`, undefined, {
      host: 'console.example.test:8080',
    });
    expectRefused(res, 'reset without ServerAddress', 'has not set the server address (ServerAddress)');
    expect(smtp.mails.length).toBe(before);
    await setOption('ServerAddress', 'https://gw.example.test');
  });

  it('refuses an expired reset link', async () => {
    await anon().call('GET', `/api/reset_password?email=${q('dave@example.com')}`);
    const token = linkIn(smtp.to('dave@example.com').at(-1)!).searchParams.get('token')!;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 15 * 60_000 + 1000);
    const late = await anon().call('POST', '/api/user/reset', { email: 'dave@example.com', token });
    expect(late.body).toMatchObject({ success: false, message: 'reset link invalid or expired' });
  });

  it('reports a refused SMTP login and a failed TLS start clearly', async () => {
    await setOption('SMTPToken', 'wrong-secret');
    const res = await anon().call('GET', `/api/verification?email=${q('frank@example.com')}`);
    expectRefused(res);
    expect(res.body.message).toMatch(/^sending the mail failed: .*invalid username or password/i);
    await setOption('SMTPToken', smtp.pass);
    // SMTPSSLEnabled means TLS from the first byte, which this plain server does not speak.
    await setOption('SMTPSSLEnabled', 'true');
    const tls = await anon().call('GET', `/api/verification?email=${q('frank@example.com')}`);
    expect(tls.body.message).toMatch(/^sending the mail failed: /);
    await setOption('SMTPSSLEnabled', 'false');
    await requestCode('frank@example.com');
  });
});

describe('one-time codes in Redis (shared by every node)', () => {
  const prefix = newRedisPrefix();
  const redis = new Redis(TEST_REDIS);
  afterAll(async () => {
    await dropRedisKeys(prefix);
    redis.disconnect();
  });

  it('checks a code on another connection once, refuses wrong and expired ones', async () => {
    const nodeA = new RedisOneTimeCodes(redis, prefix);
    const other = new Redis(TEST_REDIS);
    const nodeB = new RedisOneTimeCodes(other, prefix);
    try {
      await nodeA.put('verify:x@example.com', 'ABC123', 60_000);
      expect(await nodeB.consume('verify:x@example.com', 'ABC124')).toBe(false);
      expect(await nodeB.consume('verify:y@example.com', 'ABC123')).toBe(false);
      const both = await Promise.all([
        nodeB.consume('verify:x@example.com', 'ABC123'),
        nodeA.consume('verify:x@example.com', 'ABC123'),
      ]);
      expect(both.filter(Boolean)).toHaveLength(1);
      expect(await nodeA.consume('verify:x@example.com', 'ABC123')).toBe(false);
      // Only a digest is stored.
      await nodeA.put('reset:z@example.com', 'secret-token', 100);
      expect(await redis.get(`${prefix}otc:reset:z@example.com`)).toMatch(/^[0-9a-f]{64}$/);
      await new Promise((r) => setTimeout(r, 250));
      expect(await nodeB.consume('reset:z@example.com', 'secret-token')).toBe(false);
    } finally {
      other.disconnect();
    }
  });
});

describe('codes and reset links across two nodes sharing a database and Redis', () => {
  let database: TestDatabase, a: TestApp, b: TestApp, smtp: MockSmtp;
  const prefix = newRedisPrefix();
  beforeAll(async () => {
    smtp = await startMockSmtp();
    database = await createTestDatabase('sqlite');
    const env = { REDIS_CONN_STRING: TEST_REDIS, REDIS_KEY_PREFIX: prefix };
    a = await startTestApp('sqlite', env, database);
    b = await startTestApp('sqlite', env, database);
    const roots = [await setupRoot(a.app)];
    const onB = new Client(b.app);
    await onB.login('root', 'root-pass-123');
    roots.push(onB);
    const options = {
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPAccount: smtp.user,
      SMTPToken: smtp.pass,
      EmailVerificationEnabled: 'true',
      ServerAddress: 'https://gw.example.test',
    };
    // Saved on each node, so neither depends on how fast the other hears of it.
    for (const root of roots)
      for (const [key, value] of Object.entries(options))
        expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    await smtp?.close();
    await dropRedisKeys(prefix);
  });

  it('a code mailed by one node registers on the other once; a reset link made on one node works on the other once', async () => {
    expect((await new Client(a.app).call('GET', '/api/verification?email=nina%40example.com')).body.success).toBe(true);
    const code = codeIn(await smtp.waitFor('nina@example.com', 0));
    const reg = (app: TestApp) =>
      new Client(app.app).call('POST', '/api/user/register', {
        username: 'nina',
        password: 'nina-pass-1',
        email: 'nina@example.com',
        verification_code: code,
      });
    expect((await reg(b)).body).toEqual({ success: true, message: 'register success' });
    expect((await reg(a)).body.success).toBe(false);

    expect((await new Client(b.app).call('GET', '/api/reset_password?email=nina%40example.com')).body.success).toBe(
      true,
    );
    const token = linkIn(await smtp.waitFor('nina@example.com', 1)).searchParams.get('token')!;
    const done = await new Client(a.app).call<string>('POST', '/api/user/reset', { email: 'nina@example.com', token });
    expect(done.body.success).toBe(true);
    expect((await new Client(b.app).login('nina', done.body.data!)).body.success).toBe(true);
    expect(
      (await new Client(b.app).call('POST', '/api/user/reset', { email: 'nina@example.com', token })).body.message,
    ).toBe('reset link invalid or expired');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, ROOT, setupRoot, startTestApp, type CallResult, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { startMockSiteverify, type MockSiteverify } from '../support/mock-siteverify.js';
import { startMockSmtp, type MockSmtp } from '../support/mock-smtp.js';
import { expectRefused } from '../support/refusal.js';

const SECRET = '0x4AAAAAAA-test-secret';
const SITE_KEY = '0x4AAAAAAA-test-site-key';
const q = encodeURIComponent;
const withToken = (url: string, token: string | undefined) =>
  token === undefined ? url : `${url}${url.includes('?') ? '&' : '?'}turnstile=${q(token)}`;

/** The four public calls behind the bot check, each with the message it answers when it goes through. */
interface Endpoint {
  name: string;
  call(c: Client, token: string | undefined): Promise<CallResult>;
  done: string;
}

let serial = 0;
const endpoints: Endpoint[] = [
  {
    name: 'POST /api/user/login',
    call: (c, tk) => c.call('POST', withToken('/api/user/login', tk), ROOT),
    done: 'login success',
  },
  {
    name: 'POST /api/user/register',
    call: (c, tk) => {
      const username = `tw${++serial}`;
      return c.call('POST', withToken('/api/user/register', tk), {
        username,
        password: 'tw-pass-123',
        password2: 'tw-pass-123',
      });
    },
    done: 'register success',
  },
  {
    name: 'GET /api/verification',
    call: (c, tk) => c.call('GET', withToken(`/api/verification?email=${q(`new${++serial}@example.com`)}`, tk)),
    done: 'verification code sent, please check your mailbox',
  },
  {
    name: 'GET /api/reset_password',
    call: (c, tk) => c.call('GET', withToken(`/api/reset_password?email=${q('nobody@example.com')}`, tk)),
    done: 'if an account uses this email, a reset link has been sent to it; please check your mailbox',
  },
];

describe.each(dialects)('Turnstile bot check on %s', (dialect) => {
  let t: TestApp, root: Client, verifier: MockSiteverify, smtp: MockSmtp;
  beforeAll(async () => {
    verifier = await startMockSiteverify(SECRET);
    smtp = await startMockSmtp();
    t = await startTestApp(dialect, { TURNSTILE_VERIFY_URL: verifier.verifyUrl });
    root = await setupRoot(t.app);
    for (const [key, value] of Object.entries({
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPAccount: smtp.user,
      SMTPToken: smtp.pass,
      SMTPFrom: 'gateway@example.test',
      // Reset links are mailed only on the configured address (issue 31, hole 3).
      ServerAddress: 'https://gw.example.test',
    })) {
      expect((await root.call('PUT', '/api/option/', { key, value })).body).toMatchObject({ success: true });
    }
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await verifier?.close();
  });

  const setOption = async (key: string, value: string) =>
    expect((await root.call('PUT', '/api/option/', { key, value })).body).toMatchObject({ success: true });
  const anon = () => new Client(t.app);
  const enable = async (secret = SECRET) => {
    await setOption('TurnstileSiteKey', SITE_KEY);
    await setOption('TurnstileSecretKey', secret);
    await setOption('TurnstileCheckEnabled', 'true');
  };

  it.each(endpoints)('$name works without a token while the check is off, and never asks the verifier', async (ep) => {
    const res = await ep.call(anon(), undefined);
    expect(res.body).toMatchObject({ success: true, message: ep.done });
    // A token sent anyway is ignored too.
    expect((await ep.call(anon(), 'whatever')).body).toMatchObject({ success: true, message: ep.done });
    expect(verifier.calls).toHaveLength(0);
  });

  it('publishes the check and the site key in the status payload once enabled', async () => {
    await enable();
    const status = await anon().call<{ turnstile_check: boolean; turnstile_site_key: string }>('GET', '/api/status');
    expect(status.body.data).toMatchObject({ turnstile_check: true, turnstile_site_key: SITE_KEY });
  });

  it.each(endpoints)('$name refuses a missing or empty token without asking the verifier', async (ep) => {
    const mails = smtp.mails.length;
    for (const token of [undefined, '']) {
      const res = await ep.call(anon(), token);
      expectRefused(res);
      expect(res.body).toMatchObject({
        success: false,
        message: 'bot check required: wait a few seconds for the Turnstile check to finish, then try again',
      });
      expect(res.raw.headers['set-cookie']).toBeUndefined();
    }
    expect(verifier.calls).toHaveLength(0);
    expect(smtp.mails.length).toBe(mails);
  });

  it.each(endpoints)('$name refuses a token the verifier refuses, and one used before', async (ep) => {
    const mails = smtp.mails.length;
    const before = verifier.calls.length;
    const bad = await ep.call(anon(), 'forged-token');
    expectRefused(bad);
    expect(bad.body).toMatchObject({
      success: false,
      message:
        'bot check failed: the Turnstile token was refused (invalid-input-response); please redo the check and try again',
    });
    expect(verifier.calls.slice(before)).toEqual([
      {
        secret: SECRET,
        response: 'forged-token',
        remoteip: '127.0.0.1',
        contentType: 'application/x-www-form-urlencoded',
      },
    ]);

    const token = verifier.issue();
    expect((await ep.call(anon(), token)).body).toMatchObject({ success: true });
    const again = await ep.call(anon(), token);
    expect(again.body).toMatchObject({
      success: false,
      message:
        'bot check failed: the Turnstile token was refused (timeout-or-duplicate); please redo the check and try again',
    });
    expect(again.raw.headers['set-cookie']).toBeUndefined();
    // Only the accepted verification call mails anything (the reset address has no account).
    expect(smtp.mails.length).toBe(ep.name === 'GET /api/verification' ? mails + 1 : mails);
  });

  it.each(endpoints)(
    '$name goes through with a good token: the verifier saw the secret, the token and the caller IP',
    async (ep) => {
      const token = verifier.issue();
      const before = verifier.calls.length;
      const res = await ep.call(anon(), token);
      expect(res.body).toMatchObject({ success: true, message: ep.done });
      expect(verifier.calls.slice(before)).toEqual([
        { secret: SECRET, response: token, remoteip: '127.0.0.1', contentType: 'application/x-www-form-urlencoded' },
      ]);
    },
  );

  it('a login that passed the check gives a working session; a registration that passed creates the account', async () => {
    const c = anon();
    const login = await c.call<{ id: number }>('POST', withToken('/api/user/login', verifier.issue()), ROOT);
    expect(login.body).toMatchObject({ success: true, data: { username: 'root' } });
    c.userId = login.body.data!.id;
    expect((await c.call('GET', '/api/user/self')).body).toMatchObject({ success: true, data: { username: 'root' } });

    expect(
      (
        await anon().call('POST', withToken('/api/user/register', verifier.issue()), {
          username: 'twnew',
          password: 'tw-pass-123',
          password2: 'tw-pass-123',
        })
      ).body.success,
    ).toBe(true);
    const forged = await anon().call('POST', withToken('/api/user/register', 'forged'), {
      username: 'twforged',
      password: 'tw-pass-123',
      password2: 'tw-pass-123',
    });
    expect(forged.body.success).toBe(false);
    const find = async (name: string) =>
      (
        await root.call<{ items: { username: string }[] }>('GET', `/api/user/search?keyword=${name}`)
      ).body.data!.items.map((u) => u.username);
    expect(await find('twnew')).toEqual(['twnew']);
    expect(await find('twforged')).toEqual([]);
  });

  it('refuses when the verifier does not know the configured secret', async () => {
    await setOption('TurnstileSecretKey', 'some-other-secret');
    const res = await anon().call('POST', withToken('/api/user/login', verifier.issue()), ROOT);
    expect(res.body).toMatchObject({
      success: false,
      message:
        'bot check failed: the Turnstile token was refused (invalid-input-secret); please redo the check and try again',
    });
    expect(verifier.calls.at(-1)!.secret).toBe('some-other-secret');
    await setOption('TurnstileSecretKey', SECRET);
  });

  it('refuses with a clear message when the verifier answers garbage or cuts the connection', async () => {
    verifier.mode = 'garbage';
    const garbage = await anon().call('POST', withToken('/api/user/login', verifier.issue()), ROOT);
    expectRefused(garbage);
    expect(garbage.body).toMatchObject({
      success: false,
      message:
        'bot check unavailable: the Turnstile verifier gave an unreadable answer (HTTP 500), please try again later',
    });
    verifier.mode = 'drop';
    const dropped = await anon().call(
      'GET',
      withToken(`/api/reset_password?email=${q('nobody@example.com')}`, verifier.issue()),
    );
    expectRefused(dropped);
    expect(dropped.body).toMatchObject({
      success: false,
      message: 'bot check unavailable: the Turnstile verifier could not be reached, please try again later',
    });
    verifier.mode = 'answer';
  });

  it('lets calls through without a token again once the check is switched off', async () => {
    await setOption('TurnstileCheckEnabled', 'false');
    const before = verifier.calls.length;
    for (const ep of endpoints)
      expect((await ep.call(anon(), undefined)).body).toMatchObject({ success: true, message: ep.done });
    expect(verifier.calls.length).toBe(before);
  });

  it('refuses cleanly when the verifier is unreachable (nothing listens at its address)', async () => {
    await enable();
    await verifier.close();
    for (const ep of endpoints) {
      const res = await ep.call(anon(), 'any-token');
      expectRefused(res);
      expect(res.body).toMatchObject({
        success: false,
        message: 'bot check unavailable: the Turnstile verifier could not be reached, please try again later',
      });
    }
  });
});

import { ErrorCode } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { startMockSmtp, type MockSmtp, type ReceivedMail } from '../support/mock-smtp.js';
import { expectRefused } from '../support/refusal.js';

const q = encodeURIComponent;
const linksIn = (mail: ReceivedMail): URL[] =>
  [...mail.text.matchAll(/https?:\/\/[^\s"<>]+/g)].map((m) => new URL(m[0]));
const EVIL = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
const NO_SERVER_ADDRESS =
  'the administrator has not set the server address (ServerAddress) that links in mail point to';

/**
 * Hole 3 of issue 31: a mailed link comes only from the configured ServerAddress, never from the request's Host
 * or X-Forwarded-Host (TRUST_PROXY is on here, so a forwarded host would be believed by the framework).
 */
describe.each(dialects)('links in mail come only from ServerAddress, on %s', (dialect) => {
  let t: TestApp, root: Client, alice: Client, smtp: MockSmtp;
  beforeAll(async () => {
    smtp = await startMockSmtp();
  });
  afterAll(() => smtp?.close());
  useApp(dialect, { users: ['alice'], env: { TRUST_PROXY: 'true' } }, async (app) => {
    ({ t, root } = app);
    alice = app.users[0]!;
    const options = {
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPAccount: smtp.user,
      SMTPToken: smtp.pass,
      SMTPFrom: 'gw@example.test',
    };
    for (const [key, value] of Object.entries(options))
      expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
    expect((await root.call('PUT', '/api/user/', { id: alice.userId, email: 'alice@example.com' })).body.success).toBe(
      true,
    );
  });
  const setServerAddress = async (value: string) =>
    expect((await root.call('PUT', '/api/option/', { key: 'ServerAddress', value })).body.success).toBe(true);
  const askReset = (headers: Record<string, string> = {}) =>
    new Client(t.app).call('GET', `/api/reset_password?email=${q('alice@example.com')}`, undefined, headers);

  it('while ServerAddress is unset, a reset asked with Host: evil.example mails nothing and answers a clear refusal', async () => {
    await setServerAddress('');
    const before = smtp.mails.length;
    const res = await askReset(EVIL);
    expectRefused(res, 'reset without ServerAddress', NO_SERVER_ADDRESS);
    expect((res.body as { code?: string }).code).toBe(ErrorCode.MailLinkNoServerAddress);
    // An unknown address gets the same refusal: the answer tells nothing about accounts.
    const unknown = await new Client(t.app).call(
      'GET',
      `/api/reset_password?email=${q('ghost@example.com')}`,
      undefined,
      EVIL,
    );
    expect(unknown.body).toEqual(res.body);
    await new Promise((r) => setTimeout(r, 200));
    expect(smtp.mails.length).toBe(before);
    expect(smtp.mails.some((m) => m.text.includes('evil.example'))).toBe(false);
  });

  it('with ServerAddress set, the link uses it whatever Host and X-Forwarded-Host say, and the token works', async () => {
    await setServerAddress('https://gw.example.test/');
    const before = smtp.to('alice@example.com').length;
    const res = await askReset(EVIL);
    expect(res.body.success, res.body.message).toBe(true);
    const mail = await smtp.waitFor('alice@example.com', before);
    expect(mail.text).not.toContain('evil.example');
    const links = linksIn(mail);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(link.origin).toBe('https://gw.example.test');
    const link = links[0]!;
    expect(link.pathname).toBe('/user/reset');
    const done = await new Client(t.app).call<string>('POST', '/api/user/reset', {
      email: 'alice@example.com',
      token: link.searchParams.get('token'),
    });
    expect(done.body.success, done.body.message).toBe(true);
  });

  it('the quota warning mail links the wallet only through ServerAddress', async () => {
    const { quotaWarningMail } = await import('../../src/modules/notifications/message.js');
    const payload = {
      type: 'quota_exceed',
      title: 'low',
      content: 'low',
      user_id: 1,
      username: 'alice',
      quota: 1,
      threshold: 2,
      timestamp: 0,
    } as const;
    const mail = quotaWarningMail(payload as never, t.runtime.ctx.options);
    expect(mail.html).toContain('https://gw.example.test/app/wallet');
    await setServerAddress('');
    expect(quotaWarningMail(payload as never, t.runtime.ctx.options).html).not.toMatch(/https?:\/\//);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, setupRoot, startTestApp, type CallResult, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';

/** A refusal as new-api's console reads it: success false and the reason (the HTTP status is another test's concern). */
const refusedWith = (res: CallResult, message: string) => {
  expect(res.body.success, res.body.message).toBe(false);
  expect(res.body.message).toContain(message);
};
const ok = <T = unknown>(res: CallResult<unknown>): T => {
  expect(res.body.success, res.body.message).toBe(true);
  return res.body.data as T;
};

/** Routes of new-api's console that Tollway had no answer for: site texts, monitors, prefill groups, passkeys, subscriptions (passkeys' ceremonies: passkeys.test.ts). */
describe.each(dialects)('new-api console routes on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, alice: Client, anon: Client;

  beforeAll(async () => {
    t = await startTestApp(dialect);
    root = await setupRoot(t.app);
    admin = await createUserClient(t.app, root, 'admin1', 10);
    alice = await createUserClient(t.app, root, 'alice');
    anon = new Client(t.app);
  });
  afterAll(async () => t?.close());

  const setOption = async (key: string, value: string) => ok(await root.call('PUT', '/api/option/', { key, value }));

  it('literal routes are answered by their own handler, never read as an /:id lookup', async () => {
    await setOption('CheckInEnabled', 'false');
    // Each literal next to an /:id route of the same method, with what only the literal route answers.
    const literals: [string, string, (res: CallResult) => void][] = [
      ['GET', '/api/user/checkin', (r) => refusedWith(r, 'the administrator has not enabled check-in')],
      ['POST', '/api/user/checkin', (r) => refusedWith(r, 'the administrator has not enabled check-in')],
      ['GET', '/api/user/oauth/bindings', (r) => expect(ok(r)).toEqual([])],
      ['GET', '/api/user/passkey', (r) => expect(ok(r)).toEqual({ enabled: false })],
      ['DELETE', '/api/user/passkey', (r) => refusedWith(r, 'secure verification required')],
      ['DELETE', '/api/redemption/invalid', (r) => expect(ok(r)).toBe(0)],
      ['GET', '/api/data/users', (r) => expect(ok(r)).toEqual([])],
      ['GET', '/api/prefill_group', (r) => expect(ok(r)).toEqual([])],
      ['GET', '/api/prefill_group/?type=model', (r) => expect(ok(r)).toEqual([])],
      ['GET', '/api/uptime/status', (r) => expect(ok(r)).toEqual([])],
      ['GET', '/api/user-agreement', (r) => expect(ok(r)).toBe('')],
      ['GET', '/api/privacy-policy', (r) => expect(ok(r)).toBe('')],
      ['GET', '/api/subscription/self', (r) => expect(ok(r)).toMatchObject({ subscriptions: [] })],
      // Literals of the same paths that other parts of the console call.
      ['GET', '/api/user/self', (r) => expect(ok<{ username: string }>(r).username).toBe('root')],
      ['GET', '/api/user/aff', (r) => expect(typeof ok(r)).toBe('string')],
      ['GET', '/api/user/search?keyword=alice', (r) => expect(ok<{ total: number }>(r).total).toBe(1)],
      ['GET', '/api/user/2fa/status', (r) => expect(ok(r)).toMatchObject({ enabled: false })],
      ['GET', '/api/token/search?keyword=none', (r) => expect(ok<{ items: unknown[] }>(r).items).toEqual([])],
      ['GET', '/api/redemption/search?keyword=none', (r) => expect(ok<{ items: unknown[] }>(r).items).toEqual([])],
    ];
    for (const [method, url, expectAnswer] of literals) {
      const res = await root.call(method, url);
      expect(res.status, `${method} ${url} must exist`).not.toBe(404);
      expectAnswer(res);
    }
    // The /:id routes beside them still answer ids.
    refusedWith(await root.call('DELETE', '/api/redemption/987654'), 'redemption code not found');
    refusedWith(await root.call('GET', '/api/user/987654'), 'user does not exist');
  });

  it('each route checks the caller: public texts for anyone, own data for users, the rest for administrators', async () => {
    for (const url of ['/api/user-agreement', '/api/privacy-policy', '/api/uptime/status'])
      ok(await anon.call('GET', url));
    for (const [method, url] of [
      ['GET', '/api/user/oauth/bindings'],
      ['GET', '/api/user/checkin'],
      ['GET', '/api/user/passkey'],
      ['GET', '/api/subscription/self'],
    ]) {
      const res = await anon.call(method!, url!);
      expect(res.status, url).toBe(401);
      expect(res.body.success).toBe(false);
    }
    for (const [method, url] of [
      ['GET', '/api/data/users'],
      ['GET', '/api/prefill_group'],
      ['DELETE', '/api/redemption/invalid'],
      ['GET', `/api/user/${root.userId}/oauth/bindings`],
      ['GET', '/api/subscription/admin/plans'],
    ]) {
      const res = await alice.call(method!, url!);
      expect(res.status, url).toBe(403);
      expect(res.body.success).toBe(false);
      ok(await admin.call(method!, url!.replace(String(root.userId), String(alice.userId))));
    }
  });

  it('user agreement and privacy policy answer the texts stored under new-api\u2019s keys', async () => {
    await setOption('legal.user_agreement', '# Terms\nBe nice.');
    await setOption('legal.privacy_policy', 'https://example.com/privacy');
    expect(ok(await anon.call('GET', '/api/user-agreement'))).toBe('# Terms\nBe nice.');
    expect(ok(await anon.call('GET', '/api/privacy-policy'))).toBe('https://example.com/privacy');
    await setOption('legal.user_agreement', '');
    expect(ok(await anon.call('GET', '/api/user-agreement'))).toBe('');
  });

  it('uptime status lists the configured groups by category name, with no monitors polled', async () => {
    const groups = [
      { id: 1, categoryName: 'API', url: 'https://status.example.com', slug: 'api', description: '' },
      { id: 2, categoryName: 'Web', url: 'https://status.example.com', slug: 'web', description: '' },
    ];
    await setOption('console_setting.uptime_kuma_groups', JSON.stringify(groups));
    expect(ok(await anon.call('GET', '/api/uptime/status'))).toEqual([
      { categoryName: 'API', monitors: [] },
      { categoryName: 'Web', monitors: [] },
    ]);
    await setOption('console_setting.uptime_kuma_groups', '[]');
    expect(ok(await anon.call('GET', '/api/uptime/status'))).toEqual([]);
  });

  it('passkeys while passkey.enabled is off: status answers not enabled; every ceremony says passkey sign-in is off', async () => {
    expect(ok(await alice.call('GET', '/api/user/passkey'))).toEqual({ enabled: false });
    for (const url of ['/api/user/passkey/register/begin', '/api/user/passkey/verify/begin']) {
      refusedWith(await alice.call('POST', url, {}), 'the administrator has not enabled passkey sign-in');
    }
    refusedWith(
      await anon.call('POST', '/api/user/passkey/login/begin', {}),
      'the administrator has not enabled passkey sign-in',
    );
    refusedWith(await admin.call('DELETE', `/api/user/${alice.userId}/reset_passkey`), 'this user has no passkey');
    // Not an unknown user's lookup, and alice still exists.
    expect(ok<{ username: string }>(await admin.call('GET', `/api/user/${alice.userId}`)).username).toBe('alice');
  });

  it('subscriptions: empty lists before root sells a plan, the default preference, a plan needs its {plan} body', async () => {
    expect(ok(await alice.call('GET', '/api/subscription/plans'))).toEqual([]);
    expect(ok(await alice.call('GET', '/api/subscription/self'))).toEqual({
      billing_preference: 'subscription_first',
      subscriptions: [],
      all_subscriptions: [],
    });
    expect(ok(await admin.call('GET', `/api/subscription/admin/users/${alice.userId}/subscriptions`))).toEqual([]);
    expect(
      ok(await alice.call('PUT', '/api/subscription/self/preference', { billing_preference: 'wallet_first' })),
    ).toEqual({ billing_preference: 'wallet_first' });
    refusedWith(await admin.call('POST', '/api/subscription/admin/plans', { title: 'x' }), 'plan');
    // Paying for a plan by card or Epay: the plan must exist (subscription-payments.test.ts pays for real ones).
    for (const provider of ['stripe', 'creem'])
      refusedWith(
        await alice.call('POST', `/api/subscription/${provider}/pay`, { plan_id: 987654 }),
        'subscription plan not found',
      );
    refusedWith(await alice.call('POST', '/api/subscription/epay/pay', { plan_id: 1 }), 'payment_method');
  });

  it("payment compliance: root confirms new-api's terms once; the options and the top-up info say so", async () => {
    const info = async () =>
      ok<{
        payment_compliance_confirmed: boolean;
        payment_compliance_terms_version: string;
        enable_redemption: boolean;
      }>(await alice.call('GET', '/api/user/topup/info'));
    expect(await info()).toMatchObject({ payment_compliance_confirmed: false, payment_compliance_terms_version: 'v1' });
    expect((await admin.call('POST', '/api/option/payment_compliance', { confirmed: true })).status).toBe(403);
    refusedWith(await root.call('POST', '/api/option/payment_compliance', { confirmed: false }), 'compliance');
    const done = ok<Record<string, unknown>>(
      await root.call('POST', '/api/option/payment_compliance', { confirmed: true }),
    );
    expect(done).toMatchObject({ confirmed: true, terms_version: 'v1', confirmed_by: root.userId });
    const options = new Map(
      ok<{ key: string; value: string }[]>(await root.call('GET', '/api/option/')).map((o) => [o.key, o.value]),
    );
    expect(options.get('payment_setting.compliance_confirmed')).toBe('true');
    expect(options.get('payment_setting.compliance_terms_version')).toBe('v1');
    expect(options.get('payment_setting.compliance_confirmed_by')).toBe(String(root.userId));
    expect(await info()).toMatchObject({ payment_compliance_confirmed: true, enable_redemption: true });
  });

  it('prefill groups: an empty list of any type; creating one says they are not available', async () => {
    expect(ok(await admin.call('GET', '/api/prefill_group?type=tag'))).toEqual([]);
    refusedWith(
      await admin.call('POST', '/api/prefill_group/', { name: 'g', type: 'model', items: '[]' }),
      'prefill groups are not available',
    );
    refusedWith(await admin.call('DELETE', '/api/prefill_group/3'), 'prefill groups are not available');
  });
});

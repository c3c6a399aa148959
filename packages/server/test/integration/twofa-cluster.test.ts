import { afterAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, setupRoot, type TestApp } from '../support/app.js';
import { useTwoNodes } from '../support/two-nodes.js';
import { enableTwoFactor, secondStep, TotpClock, type Challenge } from '../support/twofa.js';
import { expectRefused } from '../support/refusal.js';

/** Two nodes sharing one PostgreSQL database and one Redis: the second step and the limits hold across them. */
describe('two-factor sign-in on two nodes with Redis', () => {
  let a: TestApp;
  let b: TestApp;
  let secret = '';
  const clock = new TotpClock();
  useTwoNodes({}, async (nodes) => {
    ({ a, b } = nodes);
    const root = await setupRoot(a.app);
    const erin = await createUserClient(a.app, root, 'erin');
    clock.start();
    secret = (await enableTwoFactor(erin, clock)).secret;
  });
  afterAll(() => clock.stop());

  const passwordStep = async (app: TestApp) => {
    const res = await new Client(app.app).call<Challenge>('POST', '/api/user/login', {
      username: 'erin',
      password: 'user-pass-123',
    });
    expect(res.body.data?.require_2fa).toBe(true);
    return res.body.data!.flow_token;
  };

  it('a sign-in started on one node is completed on the other, once; its code is refused on the first', async () => {
    const token = await passwordStep(a);
    const code = clock.code(secret);
    const onB = new Client(b.app);
    expect((await secondStep(onB, token, code)).body).toMatchObject({ success: true, data: { username: 'erin' } });
    expect((await onB.call('GET', '/api/user/self')).status).toBe(200);
    expect((await secondStep(new Client(a.app), token, clock.code(secret))).body.message).toBe(
      'the sign-in has expired, please log in again',
    );
    const again = await passwordStep(a);
    expect((await secondStep(new Client(a.app), again, code)).body.message).toBe(
      'this verification code has already been used; wait for the next one',
    );
  });

  it('wrong codes counted on one node lock the account on the other', async () => {
    clock.nextWindow();
    const token = await passwordStep(a);
    for (let i = 0; i < 5; i++) expectRefused(await secondStep(new Client(a.app), token, `12345${i}`));
    const locked = await secondStep(new Client(b.app), token, clock.code(secret));
    expect(locked.status).toBe(429);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, createUserClient, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from '../support/redis.js';
import { enableTwoFactor, secondStep, TotpClock, type Challenge } from '../support/twofa.js';

/** Two nodes sharing one PostgreSQL database and one Redis: the second step and the limits hold across them. */
describe('two-factor sign-in on two nodes with Redis', () => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let secret = '';
  const prefix = newRedisPrefix();
  const clock = new TotpClock();
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const env = { REDIS_CONN_STRING: TEST_REDIS, REDIS_KEY_PREFIX: prefix, SYNC_FREQUENCY: '3600' };
    a = await startTestApp('postgres', env, database);
    b = await startTestApp('postgres', env, database);
    const root = await setupRoot(a.app);
    const erin = await createUserClient(a.app, root, 'erin');
    clock.start();
    secret = (await enableTwoFactor(erin, clock)).secret;
  });
  afterAll(async () => {
    clock.stop();
    await a?.close();
    await b?.close();
    await database?.drop();
    await dropRedisKeys(prefix);
  });

  const passwordStep = async (app: TestApp) => {
    const res = await new Client(app.app).call<Challenge>('POST', '/api/user/login', { username: 'erin', password: 'user-pass-123' });
    expect(res.body.data?.require_2fa).toBe(true);
    return res.body.data!.flow_token;
  };

  it('a sign-in started on one node is completed on the other, once; its code is refused on the first', async () => {
    const token = await passwordStep(a);
    const code = clock.code(secret);
    const onB = new Client(b.app);
    expect((await secondStep(onB, token, code)).body).toMatchObject({ success: true, data: { username: 'erin' } });
    expect((await onB.call('GET', '/api/user/self')).status).toBe(200);
    expect((await secondStep(new Client(a.app), token, clock.code(secret))).body.message).toBe('the sign-in has expired, please log in again');
    const again = await passwordStep(a);
    expect((await secondStep(new Client(a.app), again, code)).body.message).toBe('this verification code has already been used; wait for the next one');
  });

  it('wrong codes counted on one node lock the account on the other', async () => {
    clock.nextWindow();
    const token = await passwordStep(a);
    for (let i = 0; i < 5; i++) expect((await secondStep(new Client(a.app), token, `12345${i}`)).status).toBe(400);
    const locked = await secondStep(new Client(b.app), token, clock.code(secret));
    expect(locked.status).toBe(429);
  });
});

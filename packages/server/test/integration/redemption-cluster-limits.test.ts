import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/modules/auth/session.js';
import { openSession } from '../../src/modules/auth/sessions.js';
import { SessionOrigins } from '../../src/modules/auth/session-origin.js';
import { Client, createUserClient, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { freshWindow } from '../support/rate-limits.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from '../support/redis.js';

/** In cluster mode balances live in Redis: a redeemed code is spendable at once there too. */
describe('redemption with the Redis ledger', () => {
  const prefix = newRedisPrefix();
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { REDIS_CONN_STRING: TEST_REDIS, REDIS_KEY_PREFIX: prefix });
  });
  afterAll(async () => {
    await t?.close();
    await dropRedisKeys(prefix);
  });

  it('credits the balance the relay reserves from', async () => {
    const root = await setupRoot(t.app);
    const admin = await createUserClient(t.app, root, 'redis-admin', 10);
    const user = await createUserClient(t.app, root, 'redis-user');
    const ledger = t.runtime.ctx.relay.ledger;
    expect(await ledger.available('users', user.userId!)).toBe(0);
    const key = (await admin.call<string[]>('POST', '/api/redemption/', { name: 'redis', quota: 4242 })).body.data![0]!;
    expect((await user.call('POST', '/api/user/topup', { key })).body).toMatchObject({ success: true, data: 4242 });
    expect(await ledger.available('users', user.userId!)).toBe(4242);
  });
});

/** Guessing codes is limited per IP like logins (CRITICAL_RATE_LIMIT per CRITICAL_RATE_LIMIT_DURATION). */
describe('redeem attempts are rate limited', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { CRITICAL_RATE_LIMIT: '5', CRITICAL_RATE_LIMIT_DURATION: '60' });
  });
  afterAll(async () => t?.close());

  it('answers 429 after the limit and lets nothing through', async () => {
    const id = await t.runtime.ctx.users.create({ username: 'guesser', password: 'user-pass-123' });
    const guesser = new Client(t.app);
    guesser.cookie = `${SESSION_COOKIE}=${await openSession(t.runtime.ctx, id, SessionOrigins.password)}`;
    guesser.userId = id;
    const answers = [];
    // Fixed one-minute windows aligned to the clock: the seven guesses start in a window with time left.
    await freshWindow();
    for (let i = 0; i < 7; i++) answers.push(await guesser.call('POST', '/api/user/topup', { key: `guess-${i}` }));
    // Wrong codes are refusals (200, success false); the limit is a 429.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(answers.every((a) => a.body.success === false)).toBe(true);
  });
});

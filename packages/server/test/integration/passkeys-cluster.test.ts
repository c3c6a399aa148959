import { ErrorCode } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from '../support/redis.js';
import { SoftAuthenticator } from '../support/webauthn.js';

const ORIGIN = 'https://gw.example.test';
type Begin = { options: { publicKey: { challenge: string; user: { id: string } } } };

/** Two nodes sharing PostgreSQL and Redis: a ceremony begun on one node finishes on the other, once. */
describe('passkeys across two nodes', () => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  const prefix = newRedisPrefix();
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const env = { REDIS_CONN_STRING: TEST_REDIS, REDIS_KEY_PREFIX: prefix, SYNC_FREQUENCY: '3600' };
    a = await startTestApp('postgres', env, database);
    b = await startTestApp('postgres', env, database);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.drop();
    await dropRedisKeys(prefix);
  });

  it('registers, signs in and verifies with begin and finish on different nodes; a challenge is taken once', async () => {
    const onA = await setupRoot(a.app);
    for (const [key, value] of [
      ['ServerAddress', ORIGIN],
      ['passkey.enabled', 'true'],
    ])
      expect((await onA.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
    const onB = new Client(b.app);
    onB.cookie = onA.cookie;
    onB.userId = onA.userId;
    await expect
      .poll(async () => (await onB.call<{ passkey_login: boolean }>('GET', '/api/status')).body.data!.passkey_login)
      .toBe(true);
    const key = new SoftAuthenticator('gw.example.test', ORIGIN);
    const reg = (await onA.call<Begin>('POST', '/api/user/passkey/register/begin')).body.data!.options.publicKey;
    expect((await onB.call('POST', '/api/user/passkey/register/finish', key.register(reg))).body.success).toBe(true);

    const login = (await new Client(b.app).call<Begin>('POST', '/api/user/passkey/login/begin')).body.data!.options
      .publicKey;
    const answer = key.assert(login);
    const signedIn = await new Client(a.app).call('POST', '/api/user/passkey/login/finish', answer);
    expect(signedIn.body).toMatchObject({ success: true, data: { username: 'root' } });
    const replay = await new Client(b.app).call('POST', '/api/user/passkey/login/finish', answer);
    expect((replay.body as { code?: string }).code).toBe(ErrorCode.PasskeyChallengeExpired);

    const verify = (await onB.call<Begin>('POST', '/api/user/passkey/verify/begin')).body.data!.options.publicKey;
    expect((await onA.call('POST', '/api/user/passkey/verify/finish', key.assert(verify))).body.success).toBe(true);
    expect((await onB.call('POST', '/api/verify', { method: 'passkey' })).body).toMatchObject({ success: true });
  });
});

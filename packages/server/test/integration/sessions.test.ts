import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/modules/auth/session.js';
import { Client, createUserClient, setupRoot, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { useTwoNodes } from '../support/two-nodes.js';
import { expectRefused } from '../support/refusal.js';

const PASSWORD = 'user-pass-123';
const TEST_SESSION_SECRET = 'test-secret-0123456789abcdef0123456789';

/** A second browser holding `c`'s cookie (the same session). */
const copyOf = (app: TestApp['app'], c: Client): Client => {
  const other = new Client(app);
  other.cookie = c.cookie;
  other.userId = c.userId;
  return other;
};

/** Signs `username` in on a new client (a second browser, its own session). */
const signIn = async (app: TestApp['app'], username: string, password = PASSWORD): Promise<Client> => {
  const c = new Client(app);
  const res = await c.login(username, password);
  expect(res.body, res.body.message).toMatchObject({ success: true });
  return c;
};

const selfStatus = async (c: Client): Promise<number> => (await c.call('GET', '/api/user/self')).status;

describe.each(dialects)('revocable sessions on %s', (dialect) => {
  let t: TestApp, root: Client;
  useApp(dialect, {}, (app) => ({ t, root } = app));
  const sessionsOf = (userId: number) =>
    t.database.db.kysely.selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();
  const newUser = async (name: string) => createUserClient(t.app, root, name);

  it('a login makes one row keyed by a hash (never the id in the cookie), with the client address and agent', async () => {
    const c = new Client(t.app);
    await root.call('POST', '/api/user/', { username: 'rowcheck', password: PASSWORD, display_name: 'rowcheck' });
    await c.call(
      'POST',
      '/api/user/login',
      { username: 'rowcheck', password: PASSWORD },
      { 'user-agent': 'SessionTest/1.0' },
    );
    const res = await c.login('rowcheck', PASSWORD);
    const rows = await sessionsOf(res.body.data!.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.id).toMatch(/^[0-9a-f]{64}$/);
      expect(Number(row.expires_at) - Number(row.created_at)).toBe(30 * 24 * 3600);
    }
    expect(rows.map((r) => r.user_agent)).toContain('SessionTest/1.0');
    expect(c.cookie).not.toContain(rows[0]!.id);
  });

  it('logout ends that session: the old cookie gets 401 afterwards, other sessions of the user stay', async () => {
    const a = await newUser('logout-a');
    const stolen = copyOf(t.app, a);
    const other = await signIn(t.app, 'logout-a');
    expect(await selfStatus(stolen)).toBe(200);
    const out = await a.call('GET', '/api/user/logout');
    expect(out.body.success).toBe(true);
    expect([out.raw.headers['set-cookie']].flat().join()).toMatch(/^session=; Path=\/; Max-Age=0/);
    const after = await stolen.call('GET', '/api/user/self');
    expect(after.status).toBe(401);
    expect(after.body.success).toBe(false);
    expect(await selfStatus(other)).toBe(200);
  });

  it("a logout link on another site or an image on this one signs nobody out (the console's own call does)", async () => {
    const a = await newUser('logout-x');
    const refused = await a.call('GET', '/api/user/logout', undefined, { 'sec-fetch-site': 'cross-site' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      success: false,
      message: 'log out from the console: a link on another site or an image cannot sign you out',
    });
    expect(refused.raw.headers['set-cookie']).toBeUndefined();
    expect(await selfStatus(a)).toBe(200);
    // An image in a message or notice on this site loads the address too: same-site, but not the console's script.
    for (const dest of ['image', 'iframe', 'document', 'style', 'script']) {
      const loaded = await a.call('GET', '/api/user/logout', undefined, {
        'sec-fetch-site': 'same-origin',
        'sec-fetch-dest': dest,
        'sec-fetch-mode': 'no-cors',
      });
      expect(loaded.status, dest).toBe(403);
      expect(loaded.raw.headers['set-cookie'], dest).toBeUndefined();
    }
    expect(await selfStatus(a)).toBe(200);
    const scripted = { 'sec-fetch-site': 'same-origin', 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors' };
    expect((await a.call('GET', '/api/user/logout', undefined, scripted)).body.success).toBe(true);
    expect(await selfStatus(a)).toBe(401);
  });

  it('a password change ends every session of the user; the browser that changed it gets a fresh one', async () => {
    const a = await newUser('pw-a');
    const second = await signIn(t.app, 'pw-a');
    const oldCookie = copyOf(t.app, a);
    const res = await a.call('PUT', '/api/user/self', { password: 'new-pass-456', original_password: PASSWORD });
    expect(res.body).toMatchObject({ success: true });
    expect(await selfStatus(second)).toBe(401);
    expect(await selfStatus(oldCookie)).toBe(401);
    expect(a.cookie).not.toBe(oldCookie.cookie);
    expect(await selfStatus(a)).toBe(200);
    expect(await sessionsOf(a.userId!)).toHaveLength(1);
    // A display-name change ends nothing.
    const third = await signIn(t.app, 'pw-a', 'new-pass-456');
    await a.call('PUT', '/api/user/self', { display_name: 'Renamed' });
    expect(await selfStatus(third)).toBe(200);
  });

  it("an administrator's password reset ends all the user's sessions", async () => {
    const a = await newUser('reset-a');
    const b = await signIn(t.app, 'reset-a');
    const edit = await root.call('PUT', '/api/user/', { id: a.userId, password: 'reset-pass-789' });
    expect(edit.body.success).toBe(true);
    expect(await selfStatus(a)).toBe(401);
    expect(await selfStatus(b)).toBe(401);
    expect(await sessionsOf(a.userId!)).toEqual([]);
    expect(await selfStatus(await signIn(t.app, 'reset-a', 'reset-pass-789'))).toBe(200);
  });

  it('disabling a user ends their sessions for good (enabling again does not bring them back); deleting too', async () => {
    const a = await newUser('disable-a');
    const b = await signIn(t.app, 'disable-a');
    expect((await root.call('POST', '/api/user/manage', { id: a.userId, action: 'disable' })).body.success).toBe(true);
    expect(await selfStatus(a)).toBe(401);
    expect((await root.call('POST', '/api/user/manage', { id: a.userId, action: 'enable' })).body.success).toBe(true);
    expect(await selfStatus(a)).toBe(401);
    expect(await selfStatus(b)).toBe(401);
    const c = await signIn(t.app, 'disable-a');
    expect((await root.call('POST', '/api/user/manage', { id: a.userId, action: 'delete' })).body.success).toBe(true);
    expect(await selfStatus(c)).toBe(401);
    expect(await sessionsOf(a.userId!)).toEqual([]);
  });

  it('the playground refuses a session that was logged out', async () => {
    const a = await newUser('pg-a');
    const stolen = copyOf(t.app, a);
    await a.call('GET', '/api/user/logout');
    const res = await t.app.inject({
      method: 'POST',
      url: '/pg/chat/completions',
      headers: { cookie: stolen.cookie, 'new-api-user': String(stolen.userId), 'content-type': 'application/json' },
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(res.statusCode).toBe(401);
  });

  it('a cookie sealed without a session id (before this release) is refused', async () => {
    const a = await newUser('legacy-a');
    const key = crypto.createHash('sha256').update(`tollway-session:${TEST_SESSION_SECRET}`).digest();
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([
      cipher.update(JSON.stringify({ uid: a.userId, exp: Math.floor(Date.now() / 1000) + 3600 }), 'utf8'),
      cipher.final(),
    ]);
    const legacy = new Client(t.app);
    legacy.cookie = `${SESSION_COOKIE}=${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    legacy.userId = a.userId;
    expect(await selfStatus(legacy)).toBe(401);
  });

  it("a user lists their own sessions, signs out one of them or all the others, never another user's", async () => {
    const a = await newUser('list-a');
    const phone = await signIn(t.app, 'list-a');
    const tablet = await signIn(t.app, 'list-a');
    const b = await newUser('list-b');
    type View = {
      id: string;
      current: boolean;
      ip: string;
      user_agent: string;
      origin: string;
      created_at: number;
      expires_at: number;
    };
    const list = await a.call<View[]>('GET', '/api/user/sessions');
    expect(list.body.data).toHaveLength(3);
    // Each says how it signed in.
    expect(list.body.data!.map((v) => v.origin)).toEqual(['password', 'password', 'password']);
    expect(list.body.data!.filter((v) => v.current)).toHaveLength(1);
    const phoneKey = (await phone.call<View[]>('GET', '/api/user/sessions')).body.data!.find((v) => v.current)!.id;
    // Another user cannot end it.
    expectRefused(await b.call('DELETE', `/api/user/sessions/${phoneKey}`));
    expect(await selfStatus(phone)).toBe(200);
    expect((await a.call('DELETE', `/api/user/sessions/${phoneKey}`)).body.success).toBe(true);
    expect(await selfStatus(phone)).toBe(401);
    const others = await a.call<number>('DELETE', '/api/user/sessions');
    expect(others.body).toMatchObject({ success: true, data: 1 });
    expect(await selfStatus(tablet)).toBe(401);
    expect(await selfStatus(a)).toBe(200);
    expect(await selfStatus(b)).toBe(200);
  });

  it('expired sessions do not authenticate and the prune job deletes them, keeping live ones', async () => {
    const a = await newUser('expire-a');
    const live = await signIn(t.app, 'expire-a');
    const now = Math.floor(Date.now() / 1000);
    // a's session expired a second ago (as if 30 days had passed).
    const ownKey = (await a.call<{ id: string; current: boolean }[]>('GET', '/api/user/sessions')).body.data!.find(
      (v) => v.current,
    )!.id;
    const [expired] = (await sessionsOf(a.userId!)).filter((r) => r.id === ownKey);
    await t.database.db.kysely
      .updateTable('sessions')
      .set({ expires_at: now - 1 })
      .where('id', '=', expired!.id)
      .execute();
    expect(await selfStatus(a)).toBe(401);
    expect(await t.runtime.sessionPrune!.runOnce(now)).toBeGreaterThanOrEqual(1);
    const left = await sessionsOf(a.userId!);
    expect(left.map((r) => r.id)).not.toContain(expired!.id);
    expect(left).toHaveLength(1);
    expect(await selfStatus(live)).toBe(200);
    expect(await t.runtime.sessionPrune!.runOnce(now)).toBe(0);
  });
});

describe('sessions across two nodes (shared PostgreSQL, Redis)', () => {
  let a: TestApp;
  let b: TestApp;
  useTwoNodes({}, (nodes) => ({ a, b } = nodes), 60_000);

  it('a logout on one node and a password reset on the other end the sessions on both at once', async () => {
    const rootA = await setupRoot(a.app);
    const userOnA = await createUserClient(a.app, rootA, 'cluster-user');
    const sameOnB = copyOf(b.app, userOnA);
    expect(await selfStatus(sameOnB)).toBe(200);
    await userOnA.call('GET', '/api/user/logout');
    expect(await selfStatus(sameOnB)).toBe(401);

    const onB = await signIn(b.app, 'cluster-user');
    const onA = copyOf(a.app, onB);
    expect(await selfStatus(onA)).toBe(200);
    const rootB = copyOf(b.app, rootA);
    expect((await rootB.call('PUT', '/api/user/', { id: onB.userId, password: 'cluster-pass-2' })).body.success).toBe(
      true,
    );
    expect(await selfStatus(onA)).toBe(401);
    expect(await selfStatus(onB)).toBe(401);
  });
});

import { ErrorCode, optionAccess, optionAliasKeys, optionKeys, type AccessLevel } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../src/http/route.js';
import { createUserClient, setupRoot, startTestApp, type Client, type TestApp } from '../support/app.js';

/**
 * The permission matrix: every registered /api route is called as anonymous, user, admin and root, and the
 * answer must match the route's declared level (401 without a session, 403 below the level, anything else
 * at or above it). A new route cannot forget its guard: it has to declare a level to be registered at all.
 */
describe('permission matrix over every /api route', () => {
  let t: TestApp;
  const principals: Record<'user' | 'admin' | 'root', { cookie: string; id: number }> = {} as never;
  /** The user that deleting a user by id deletes (not a principal: they still have calls to make). */
  let victimId = 0;
  /** An API key of the user, for the routes that take one instead of a session. */
  let apiKey = '';
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const root = await setupRoot(t.app);
    const admin = await createUserClient(t.app, root, 'matrix-admin', 10);
    const user = await createUserClient(t.app, root, 'matrix-user', 1);
    victimId = (await createUserClient(t.app, root, 'matrix-victim', 1)).userId!;
    const pick = (c: Client) => ({ cookie: c.cookie, id: c.userId! });
    Object.assign(principals, { root: pick(root), admin: pick(admin), user: pick(user) });
    apiKey = (await user.call<{ key: string }[]>('POST', '/api/token/', { name: 'matrix' })).body.data![0]!.key;
  });
  afterAll(async () => t?.close());

  const rank: Record<AccessLevel, number> = { public: 0, user: 1, admin: 2, root: 3 };
  const callerRank = { anonymous: 0, user: 1, admin: 2, root: 3 } as const;

  async function call(def: RouteDef, who: keyof typeof callerRank | 'api key') {
    const id = def.method === 'DELETE' && def.url === '/api/user/:id' ? victimId : principals.user?.id;
    const url = def.url.replace(/:id\b/g, String(id ?? 1)).replace(/:(\w+)/g, 'x');
    const headers: Record<string, string> = {};
    if (who === 'api key') headers.authorization = `Bearer sk-${apiKey}`;
    else if (who !== 'anonymous') {
      headers.cookie = principals[who].cookie;
      headers['new-api-user'] = String(principals[who].id);
    }
    // An empty body reaches validation (after the guard) without changing anything.
    const res = await t.app.inject({
      method: def.method,
      url,
      headers,
      ...(def.method === 'GET' || def.method === 'DELETE' ? {} : { payload: {} }),
    });
    // A refusal by the guard is 401, or 403 with a "no permission" message (business rules may also answer 403).
    const denied =
      res.statusCode === 401 ? 401 : res.statusCode === 403 && res.json().message.startsWith('no permission') ? 403 : 0;
    return { status: res.statusCode, denied };
  }

  it('every route Fastify serves under /api was declared through the router with a level', () => {
    const declared = new Set(t.router.routes.map((r) => `${r.method} ${r.url}`));
    const served = t.registered
      .filter((r) => r.url.startsWith('/api') && r.method !== 'HEAD')
      .map((r) => `${r.method} ${r.url}`);
    expect(served.length).toBeGreaterThan(20);
    for (const s of served) expect(declared.has(s), s).toBe(true);
    for (const r of t.router.routes) expect(['public', 'user', 'admin', 'root']).toContain(r.level);
  });

  // Before the matrix, which ends the sessions (logout).
  it('options per key: an administrator reads and writes exactly the operation keys, root every key', async () => {
    const get = async (who: 'admin' | 'root') => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/option/',
        headers: { cookie: principals[who].cookie, 'new-api-user': String(principals[who].id) },
      });
      return (res.json() as { data: { key: string; value: string }[] }).data;
    };
    const all = await get('root');
    expect(all.map((o) => o.key).sort()).toEqual([...optionKeys, ...optionAliasKeys].sort());
    expect((await get('admin')).map((o) => o.key)).toEqual(
      all.map((o) => o.key).filter((k) => optionAccess(k) === 'admin'),
    );
    // Writing each key's current value back changes nothing, and shows which keys the administrator may write.
    const failures: string[] = [];
    for (const { key, value } of all) {
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/option/',
        headers: { cookie: principals.admin.cookie, 'new-api-user': String(principals.admin.id) },
        payload: { key, value },
      });
      const body = res.json() as { success: boolean; code?: string };
      const allowed = optionAccess(key) === 'admin';
      const ok = allowed
        ? res.statusCode === 200 && body.success
        : res.statusCode === 200 && !body.success && body.code === ErrorCode.OptionRootOnly;
      if (!ok)
        failures.push(
          `${key}: got ${res.statusCode} ${JSON.stringify(body)}, expected ${allowed ? 'saved' : 'root only'}`,
        );
    }
    expect(failures).toEqual([]);
  });

  it('allows and denies exactly as declared', async () => {
    // Logging out ends the caller's session and deleting one's own account is destructive, so they run last.
    const last = (r: RouteDef) =>
      Number(r.method === 'DELETE' && r.url.includes('self')) + 2 * Number(r.url === '/api/user/logout');
    const routes = [...t.router.routes].sort((a, b) => last(a) - last(b));
    const failures: string[] = [];
    for (const def of routes) {
      if (def.apiKey) {
        // A session does not stand for an API key: 401 for every caller without one, allowed with one.
        for (const who of ['anonymous', 'user', 'admin', 'root'] as const) {
          const { status } = await call(def, who);
          if (status !== 401)
            failures.push(`${def.method} ${def.url} as ${who} without a key: got ${status}, expected 401`);
        }
        const { status, denied } = await call(def, 'api key');
        if (denied || status >= 500)
          failures.push(`${def.method} ${def.url} with a key: got ${status}, expected allowed`);
        continue;
      }
      for (const who of ['anonymous', 'user', 'admin', 'root'] as const) {
        const { status, denied } = await call(def, who);
        const allowed = callerRank[who] >= rank[def.level];
        const expected = allowed
          ? 'allowed (no guard refusal, no 5xx)'
          : who === 'anonymous'
            ? '401'
            : '403 no permission';
        const ok = allowed ? denied === 0 && status < 500 : denied === (who === 'anonymous' ? 401 : 403);
        if (!ok) failures.push(`${def.method} ${def.url} as ${who}: got ${status}, expected ${expected}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

import fs from 'node:fs';
import { ErrorCode, type AccessLevel } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDef } from '../../src/http/route.js';
import { createUserClient, setupRoot, startTestApp, type Client, type TestApp } from '../support/app.js';

/** new-api's own /api route list (router/api-router.go at the commit the fixture names) with its auth levels. */
interface NewApiRoute {
  method: string;
  path: string;
  auth: AccessLevel | 'token';
}
const fixture = JSON.parse(fs.readFileSync(new URL('../fixtures/new-api-routes.json', import.meta.url), 'utf8')) as {
  source: { commit: string };
  routes: NewApiRoute[];
};

/** Where Tollway's guard differs from the one new-api's router declares, on purpose: the level it has, and why. */
const DELIBERATE: Record<string, { level: AccessLevel; why: string }> = {
  'POST /api/oauth/email/bind': { level: 'user', why: "new-api's handler itself answers 401 without a session" },
  'POST /api/oauth/wechat/bind': { level: 'user', why: "new-api's handler itself answers 401 without a session" },
  'GET /api/models/': {
    level: 'user',
    why: 'one route with GET /api/models (the router ignores trailing slashes); its handler requires an administrator for the slash form (model-registry.test.ts)',
  },
  'DELETE /api/log/': {
    level: 'root',
    why: 'deleting usage logs is root-only (new-api offers it on its root settings page)',
  },
  'GET /api/option/': {
    level: 'admin',
    why: 'administrators read the operation settings; root-only keys (secrets, privilege-raising ones) are left out of their answer (option-access.test.ts)',
  },
  'PUT /api/option/': {
    level: 'admin',
    why: 'administrators write the operation settings; a root-only key is refused with option_root_only (option-access.test.ts)',
  },
  'POST /api/option/rest_model_ratio': {
    level: 'admin',
    why: 'model prices are operation settings, which administrators hold here (option-access.ts)',
  },
};

/** A route's shape whatever its parameters are called, and with or without the trailing slash. */
const shape = (method: string, url: string) => `${method} ${url.replace(/:\w+/g, ':').replace(/(.)\/$/, '$1')}`;
/** Where the answer leaks how the server is built: a stack frame, a source path. */
const LEAK = /\n\s+at \S|\bat .+:\d+:\d+\)|node_modules|\/src\/\S+\.[jt]s\b/;

/**
 * The contract a new-api console or script relies on: every route new-api serves under /api has an answer here
 * (the feature's, or new-api's own success:false with why it is not available), never "no such API", never a
 * server error, never a stack trace; and each is guarded at new-api's level. A routing contract, so one dialect.
 */
describe(`every new-api /api route (new-api ${fixture.source.commit.slice(0, 10)}) answers`, () => {
  let t: TestApp, root: Client;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    root = await setupRoot(t.app);
    // Rows for the /:id routes to name (the destructive ones run last, on rows made for them).
    ids.user = (await createUserClient(t.app, root, 'routes-user')).userId!;
    const tokens = await root.call<{ id: number }[]>('POST', '/api/token/', { name: 'routes', remain_quota: 1 });
    expect(tokens.body.success, tokens.body.message).toBe(true);
    ids.token = tokens.body.data![0]!.id;
    const codes = await root.call<string[]>('POST', '/api/redemption/', { name: 'routes', quota: 1, count: 1 });
    expect(codes.body.success, codes.body.message).toBe(true);
    const redemptions = await root.call<{ items: { id: number }[] }>('GET', '/api/redemption/?p=1&size=1');
    ids.redemption = redemptions.body.data!.items[0]!.id;
  });
  afterAll(async () => t?.close());

  /** A route's path with its parameters filled in: the id of a row made above for its group, else 1. */
  const urlOf = (path: string) => {
    const group = path.split('/')[2]!;
    return path
      .replace(/:id\b/, String(ids[group] ?? 1))
      .replace(':provider_id', '1')
      .replace(':provider', 'github')
      .replace(':binding_type', 'github')
      .replace(/:\w+/g, '1');
  };
  /** Tollway declares the route itself (or, for new-api's /:provider, the literal one called), not a wider one. */
  const ownRoute = (route: NewApiRoute, url: string) => {
    const declared = new Set(t.router.routes.map((r) => shape(r.method, r.url)));
    return declared.has(shape(route.method, route.path)) || declared.has(shape(route.method, url));
  };
  // Ending the session and deleting accounts run after everything else.
  const lastOf = (r: NewApiRoute) =>
    Number(r.method === 'DELETE' && r.path.startsWith('/api/user/')) + 2 * Number(r.path === '/api/user/logout');

  it('with something other than api_not_found, no 5xx and no stack trace', async () => {
    expect(fixture.routes.length).toBeGreaterThan(200);
    const failures: string[] = [];
    for (const route of [...fixture.routes].sort((a, b) => lastOf(a) - lastOf(b))) {
      const url = urlOf(route.path);
      const write = route.method !== 'GET' && route.method !== 'DELETE';
      const res = await root.call(route.method, url, write ? {} : undefined);
      const body = res.raw.body;
      let code: unknown;
      try {
        code = (JSON.parse(body) as { code?: unknown }).code;
      } catch {
        code = undefined;
      }
      const problem =
        code === ErrorCode.ApiNotFound
          ? 'api_not_found'
          : !ownRoute(route, url)
            ? `answered by another route's handler (HTTP ${res.status}: ${body.slice(0, 80)})`
            : res.status >= 500
              ? `HTTP ${res.status}`
              : LEAK.test(body)
                ? `leaks internals: ${body.slice(0, 120)}`
                : undefined;
      if (problem) failures.push(`${route.method} ${route.path} (${url}): ${problem}`);
    }
    expect(failures, `${failures.length} new-api routes break the contract:\n${failures.join('\n')}`).toEqual([]);
  });

  it("each answering route is guarded at new-api's level", () => {
    const declared = new Map<string, RouteDef>(t.router.routes.map((r) => [shape(r.method, r.url), r]));
    const mismatches: string[] = [];
    for (const route of fixture.routes) {
      const def = declared.get(shape(route.method, route.path));
      if (!def) continue; // Unanswered routes are the test above's failures.
      // A token-authenticated route takes an API key, not a session: public to the session gate, key in the handler.
      const expected =
        DELIBERATE[`${route.method} ${route.path}`]?.level ?? (route.auth === 'token' ? 'public' : route.auth);
      const tollway = def.apiKey ? 'token' : def.level;
      if (def.level !== expected || (route.auth === 'token') !== (def.apiKey === true))
        mismatches.push(`${route.method} ${route.path}: new-api ${route.auth}, Tollway ${tollway}`);
    }
    expect(mismatches, mismatches.join('\n')).toEqual([]);
  });
});

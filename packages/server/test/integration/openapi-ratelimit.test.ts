import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, setupRoot, startTestApp, type TestApp } from '../support/app.js';
import { freshWindow } from '../support/rate-limits.js';

describe('OpenAPI document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => t?.close());

  it('describes every declared route with its parameters, body and access level', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      openapi: string;
      paths: Record<
        string,
        Record<string, { parameters: { name: string; in: string }[]; requestBody?: unknown; description: string }>
      >;
    };
    expect(doc.openapi).toBe('3.0.3');
    for (const def of t.router.routes) {
      const op = doc.paths[def.url.replace(/:(\w+)/g, '{$1}')]?.[def.method.toLowerCase()];
      expect(op, `${def.method} ${def.url}`).toBeDefined();
      expect(Boolean(op!.requestBody)).toBe(Boolean(def.body));
      if (def.level !== 'public')
        expect(op!.parameters.some((p) => p.name === 'New-Api-User' && p.in === 'header')).toBe(true);
    }
    const login = doc.paths['/api/user/login']!.post!;
    expect(JSON.stringify(login.requestBody)).toContain('"username"');
    expect(login.description).toContain('Rate limited');
    expect(doc.paths['/api/user/{id}']!.get!.parameters).toContainEqual(
      expect.objectContaining({ name: 'id', in: 'path' }),
    );
    expect(doc.paths['/api/user/']!.get!.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(['p', 'page_size']),
    );
  });
});

describe('critical rate limit on login and register', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { CRITICAL_RATE_LIMIT: '5', CRITICAL_RATE_LIMIT_DURATION: '60' });
    // The limit counts in fixed one-minute windows aligned to the clock: setup's two calls and the test's four
    // straddled a window's end once (seen in CI) and were never limited. They start in a window with time left.
    await freshWindow();
    await setupRoot(t.app);
  });
  afterAll(async () => t?.close());

  it('answers 429 with a message once an IP passes the limit, counting login and register together', async () => {
    const c = new Client(t.app);
    const statuses: number[] = [];
    // setupRoot already used 2 (setup and login) of this IP's 5.
    for (let i = 0; i < 2; i++)
      statuses.push((await c.call('POST', '/api/user/login', { username: 'root', password: 'wrong-pass' })).status);
    statuses.push(
      (await c.call('POST', '/api/user/register', { username: 'rl-user', password: 'rl-user-pass' })).status,
    );
    const limited = await c.call('POST', '/api/user/login', { username: 'root', password: 'wrong-pass' });
    expect(statuses.every((s) => s !== 429)).toBe(true);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, message: 'too many requests, please try again later' });
    // Other routes are not affected.
    expect((await c.call('GET', '/api/status')).status).toBe(200);
    // Another IP still gets through.
    const other = await t.app.inject({
      method: 'POST',
      url: '/api/user/login',
      remoteAddress: '10.0.0.9',
      payload: { username: 'root', password: 'wrong-pass' },
    });
    expect(other.statusCode).not.toBe(429);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { citedRoutes, codeSpans, docFiles, readDoc, repoRoot } from '../support/docs-citations.js';

/**
 * The docs against the running app: every /api and /v1 route they cite is one the server registers, and the docs
 * folder is served at /docs-src/ (Markdown only, nothing outside docs/).
 */

/** A registered URL as a pattern: `:param` one segment, `*` the rest. */
function routePattern(url: string): RegExp {
  const body = url
    .replace(/\/$/, '')
    .split('/')
    .map((seg) => (seg === '*' ? '.*' : seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

/** A cited route with its placeholders ({model}, <id>, :id) made one concrete segment. */
const concrete = (route: string) => route.replace(/\{[^}]+\}|<[^>]+>|:[a-z_]+/gi, 'x').replace(/\/$/, '');

describe('docs and the server', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => t?.close());

  it('every /api and /v1 route the docs cite is registered', () => {
    const patterns = t.registered.map((r) => routePattern(r.url));
    const unknown: string[] = [];
    let checked = 0;
    for (const file of docFiles())
      for (const span of codeSpans(readDoc(file))) {
        const route = citedRoutes(span);
        if (route === undefined) continue;
        checked++;
        const url = concrete(route);
        // A bare prefix (`/api`, `/v1beta`, `/api/…`) names a family of routes: some route must start with it.
        const prefix = /^\/[^/]+\/?(?:…)?$/.test(route) || route.endsWith('…');
        const base = route.replace(/\/?…$/, '').replace(/\/$/, '');
        const found = prefix
          ? t.registered.some((r) => r.url === base || r.url.startsWith(`${base}/`))
          : patterns.some((p) => p.test(url));
        if (!found) unknown.push(`${file}: ${span}`);
      }
    expect(checked).toBeGreaterThan(50);
    expect(unknown).toEqual([]);
  });

  it('serves a document of the docs folder as Markdown, with a validator', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs-src/README.md' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.body).toBe(fs.readFileSync(path.join(repoRoot, 'docs/README.md'), 'utf8'));
    expect(res.headers['cache-control']).toMatch(/max-age=\d+/);
    const again = await t.app.inject({
      method: 'GET',
      url: '/docs-src/README.md',
      headers: { 'if-none-match': String(res.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const nested = await t.app.inject({ method: 'GET', url: '/docs-src/install/environment.md' });
    expect(nested.statusCode).toBe(200);
    expect(nested.body).toContain('# Environment reference');
  });

  it('serves nothing outside docs/ and nothing but .md', async () => {
    for (const url of [
      '/docs-src/..%2Fpackage.json',
      '/docs-src/..%2FREADME.md',
      '/docs-src/%2e%2e/%2e%2e/README.md',
      '/docs-src/install/..%2F..%2FCHANGELOG.md',
      '/docs-src/%2Fetc%2Fpasswd',
      '/docs-src/README',
      '/docs-src/README.md.bak',
      '/docs-src/.hidden.md',
      '/docs-src/no-such-page.md',
      '/docs-src/',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).not.toMatch(/markdown/);
    }
  });
});

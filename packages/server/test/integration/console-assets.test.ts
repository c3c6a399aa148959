import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';

const HASHED = '/assets/index-Ab12Cd34.js';
const IDENTITY_ONLY = '/assets/tiny-Zz99Yy88.js';
const FIXED_NAME = '/theme-boot.js';
const SOURCE = `export const texts = ${JSON.stringify(Array.from({ length: 400 }, (_, i) => `text number ${i}`))};\n`;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A stand-in for the built console: a hashed asset with its build-time brotli and gzip copies, and files without. */
function consoleDist(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-assets-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><title>Tollway</title></head><body><div id="root"></div><script type="module" src="${HASHED}"></script></body></html>`,
  );
  const file = path.join(dir, HASHED);
  fs.writeFileSync(file, SOURCE);
  fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(SOURCE));
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(SOURCE));
  fs.writeFileSync(path.join(dir, IDENTITY_ONLY), 'export {};\n');
  fs.writeFileSync(path.join(dir, FIXED_NAME), 'document.documentElement.dataset.theme = "light";\n');
  return dir;
}

function expectSecurityHeaders(res: LightMyRequestResponse): void {
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(String(res.headers['content-security-policy'])).toContain("script-src 'self'");
}

// Serving the console's files touches no SQL (GET /api/status reads the options cache): one database is enough, the
// first TEST_DIALECTS names. Option storage on each database is options.test.ts's.
describe.each(dialects.slice(0, 1))('console assets: pre-compressed, cached by name, on %s', (dialect) => {
  const dist = consoleDist();
  let t: TestApp;
  useApp(dialect, { env: { WEB_DIST: dist } }, (app) => ({ t } = app));
  afterAll(() => fs.rmSync(dist, { recursive: true, force: true }));

  const get = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    t.app.inject({ method, url, headers });

  it('sends the brotli copy to a client that accepts br, with its length and a year of immutable caching', async () => {
    const res = await get(HASHED, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(String(res.headers.vary)).toMatch(/accept-encoding/i);
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expect(Number(res.headers['content-length'])).toBe(fs.statSync(path.join(dist, `${HASHED}.br`)).size);
    expect(Number(res.headers['content-length'])).toBeLessThan(SOURCE.length);
    expect(zlib.brotliDecompressSync(res.rawPayload).toString()).toBe(SOURCE);
    expectSecurityHeaders(res);
  });

  it('sends the gzip copy to a client that accepts only gzip, and the file itself to one that accepts neither', async () => {
    const gz = await get(HASHED, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(Number(gz.headers['content-length'])).toBe(fs.statSync(path.join(dist, `${HASHED}.gz`)).size);
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(SOURCE);
    expect(String(gz.headers.vary)).toMatch(/accept-encoding/i);

    for (const headers of [{}, { 'accept-encoding': 'identity' }] as Record<string, string>[]) {
      const plain = await get(HASHED, headers);
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toBe(SOURCE);
      expect(Number(plain.headers['content-length'])).toBe(SOURCE.length);
      expect(String(plain.headers.vary)).toMatch(/accept-encoding/i);
      expect(plain.headers['cache-control']).toBe(IMMUTABLE);
      expectSecurityHeaders(plain);
    }
  });

  it('falls back to the file itself when the build wrote no compressed copy', async () => {
    const res = await get(IDENTITY_ONLY, { 'accept-encoding': 'br, gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe('export {};\n');
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
  });

  it('caches files with a fixed name for an hour only', async () => {
    const res = await get(FIXED_NAME, { 'accept-encoding': 'br' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers['cache-control']).not.toContain('immutable');
  });

  it('answers 304 to a revalidation with the ETag of the same encoding', async () => {
    const first = await get(HASHED, { 'accept-encoding': 'br' });
    const etag = String(first.headers.etag);
    expect(etag).toBeTruthy();
    const again = await get(HASHED, { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const plain = await get(HASHED);
    expect(plain.headers.etag).not.toBe(etag);
  });

  it('answers HEAD with the headers only and a byte range with 206', async () => {
    const head = await get(HASHED, { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-encoding']).toBe('br');
    expect(Number(head.headers['content-length'])).toBe(fs.statSync(path.join(dist, `${HASHED}.br`)).size);
    expect(head.body).toBe('');

    const range = await get(HASHED, { range: 'bytes=0-9' });
    expect(range.statusCode).toBe(206);
    expect(range.headers['content-range']).toBe(`bytes 0-9/${SOURCE.length}`);
    expect(range.body).toBe(SOURCE.slice(0, 10));
  });

  it('never sends a compressed copy by its own name, and sends index.html as the page: no-cache, with the CSP', async () => {
    for (const copy of [`${HASHED}.br`, `${HASHED}.gz`]) {
      const res = await get(copy, { 'accept-encoding': 'br, gzip' });
      expect(res.headers['content-encoding'], copy).toBeUndefined();
      expect(res.headers['content-type'], copy).toContain('text/html');
    }
    for (const url of ['/index.html', '/login', '/']) {
      const page = await get(url, { 'accept-encoding': 'br' });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.headers['cache-control'], url).toBe('no-cache');
      expect(page.body).toContain(HASHED);
      expectSecurityHeaders(page);
    }
  });

  it('sends GET /api/status compressed as the client accepts (brotli, else gzip, else as is)', async () => {
    const plain = await get('/api/status');
    expect(plain.headers['content-encoding']).toBeUndefined();
    const status = plain.json();
    expect(status.success).toBe(true);
    const br = await get('/api/status', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length);
    const sameShape = (body: Buffer) => Object.keys(JSON.parse(body.toString()).data);
    expect(sameShape(zlib.brotliDecompressSync(br.rawPayload))).toEqual(Object.keys(status.data));
    const gz = await get('/api/status', { 'accept-encoding': 'gzip, br;q=0' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(sameShape(zlib.gunzipSync(gz.rawPayload))).toEqual(Object.keys(status.data));
  });
});

describe('console pages before setup', () => {
  const dist = consoleDist();
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('serves the docs pages, and sends every other page to /setup', async () => {
    t = await startTestApp('sqlite', { WEB_DIST: dist });
    for (const url of ['/docs', '/docs/install/install.md']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
    }
    for (const url of ['/', '/pricing', '/docsx', '/app/tokens']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(302);
      expect(res.headers.location).toBe('/setup');
    }
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp, useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';

const TURNSTILE = 'https://challenges.cloudflare.com';

/** A stand-in for the built console: the page template and one asset. */
function consoleDist(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-web-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><title>Tollway</title><script src="/theme-boot.js"></script></head><body><div id="root"></div><script type="module" src="/assets/index.js"></script></body></html>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'index.js'), 'console.log(1);');
  return dir;
}

/** The Content-Security-Policy as directive → sources. */
function csp(res: LightMyRequestResponse): Record<string, string[]> {
  const header = res.headers['content-security-policy'];
  expect(typeof header, `CSP on ${res.statusCode}`).toBe('string');
  return Object.fromEntries(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

function expectSecurityHeaders(res: LightMyRequestResponse): Record<string, string[]> {
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  const policy = csp(res);
  expect(policy['script-src']!.slice(0, 1)).toEqual(["'self'"]);
  expect(policy['script-src']).not.toContain("'unsafe-inline'");
  expect(policy['script-src']).not.toContain("'unsafe-eval'");
  expect(policy['default-src']).toEqual(["'self'"]);
  expect(policy['object-src']).toEqual(["'none'"]);
  expect(policy['base-uri']).toEqual(["'self'"]);
  expect(policy['form-action']).toEqual(["'self'"]);
  expect(policy['frame-ancestors']).toEqual(["'none'"]);
  expect(policy['connect-src']).toEqual(["'self'"]);
  expect(policy['img-src']).toEqual(["'self'", 'data:', 'https:']);
  // Task results (songs, videos): the gateway's content route, https hosts, blob: players; no plain http, no data:.
  expect(policy['media-src']).toEqual(["'self'", 'https:', 'blob:']);
  return policy;
}

// Headers and the page's nonce touch no SQL beyond saving options, which options.test.ts checks on every database:
// one database is enough, the first TEST_DIALECTS names.
describe.each(dialects.slice(0, 1))('security headers on the console and the API, on %s', (dialect) => {
  const dist = consoleDist();
  let t: TestApp, root: Client;
  useApp(dialect, { env: { WEB_DIST: dist } }, (app) => ({ t, root } = app));
  afterAll(() => fs.rmSync(dist, { recursive: true, force: true }));

  const get = (url: string) => t.app.inject({ method: 'GET', url });
  const setOption = async (key: string, value: string) =>
    expect((await root.call('PUT', '/api/option/', { key, value })).body).toMatchObject({ success: true });

  it('every console page, asset, API answer and 404 carries the headers and a CSP without inline scripts', async () => {
    const pages = ['/', '/console', '/app/tokens', '/login', '/no/such/page'];
    for (const url of pages) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expectSecurityHeaders(res);
      expect(csp(res)['frame-src']).toEqual(["'none'"]);
    }
    const api = [
      { url: '/api/status', status: 200 },
      { url: '/api/no-such-api', status: 404 },
      { url: '/api/user/self', status: 401 },
      { url: '/assets/index.js', status: 200 },
      { url: '/v1/no-such-route', status: 404 },
    ];
    for (const { url, status } of api) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(status);
      expectSecurityHeaders(res);
    }
    expectSecurityHeaders(
      await t.app.inject({
        method: 'POST',
        url: '/api/user/login',
        headers: { 'content-type': 'application/json' },
        payload: '{not json',
      }),
    );
  });

  it("allows Turnstile's host in script-src and frame-src only while the check is on", async () => {
    await setOption('TurnstileCheckEnabled', 'true');
    for (const url of ['/', '/login', '/api/status']) {
      const policy = csp(await get(url));
      expect(policy['script-src']).toEqual(["'self'", TURNSTILE]);
      expect(policy['frame-src']).toEqual([TURNSTILE]);
    }
    await setOption('TurnstileCheckEnabled', 'false');
    for (const url of ['/', '/login', '/api/status']) {
      const policy = expectSecurityHeaders(await get(url));
      expect(policy['script-src']).toEqual(["'self'"]);
      expect(policy['frame-src']).toEqual(["'none'"]);
      expect(JSON.stringify(policy)).not.toContain('cloudflare');
    }
  });

  it("the operator's global JS and head scripts run by a per-page nonce; nothing else inline does", async () => {
    await setOption('global_js', 'window.__operator = 1;');
    await setOption(
      'custom_head_html',
      '<script src="https://analytics.example/a.js"></script><meta name="x" content="y">',
    );
    await setOption('global_css', 'body{color:red}</style><script>window.__smuggled=1</script><style>');
    const first = await get('/app/tokens');
    const second = await get('/app/tokens');
    const nonceOf = (res: LightMyRequestResponse) => {
      const source = csp(res)['script-src']!.find((s) => s.startsWith("'nonce-"));
      expect(source).toBeDefined();
      return source!.slice("'nonce-".length, -1);
    };
    const nonce = nonceOf(first);
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(nonceOf(second)).not.toBe(nonce);
    expect(first.body).toContain(`<script nonce="${nonce}">window.__operator = 1;</script>`);
    expect(first.body).toContain(`<script nonce="${nonce}" src="https://analytics.example/a.js"></script>`);
    // A script smuggled through the CSS option gets no nonce, so the browser refuses it.
    expect(first.body).toContain('<script>window.__smuggled=1</script>');
    // The API never carries a page nonce.
    expect(csp(await get('/api/status'))['script-src']).toEqual(["'self'"]);
    await setOption('global_js', '');
    await setOption('custom_head_html', '');
    await setOption('global_css', '');
    expect(csp(await get('/app/tokens'))['script-src']).toEqual(["'self'"]);
  });

  it('frames only the pages the settings show in frames, and forms post only to the site and the payment site', async () => {
    await setOption('HomePageContent', 'https://home.example/landing');
    await setOption('About', '# About us');
    await setOption(
      'Chats',
      JSON.stringify([
        { NextChat: 'https://chat.example:8443/#/?settings={"key":"{key}","url":"{address}"}' },
        { Bad: 'javascript:alert(1)' },
      ]),
    );
    await setOption('PayAddress', 'https://pay.example/epay/');
    const policy = csp(await get('/'));
    expect(policy['frame-src']).toEqual(['https://home.example', 'https://chat.example:8443']);
    expect(policy['form-action']).toEqual(["'self'", 'https://pay.example']);
    await setOption('HomePageContent', '');
    await setOption('Chats', '[]');
    await setOption('PayAddress', '');
    expectSecurityHeaders(await get('/'));
  });

  it("Telegram's widget host (and the eval its callback needs) are allowed only while Telegram sign-in is on", async () => {
    await setOption('TelegramOAuthEnabled', 'true');
    const on = csp(await get('/login'));
    expect(on['script-src']).toEqual(["'self'", 'https://telegram.org', "'unsafe-eval'"]);
    expect(on['frame-src']).toEqual(['https://oauth.telegram.org']);
    await setOption('TelegramOAuthEnabled', 'false');
    expectSecurityHeaders(await get('/login'));
  });
});

/** The headers of an answer over a real connection (the relay writes past Fastify's hooks, which inject skips). */
async function headersOf(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('security headers on the relay over a real connection', () => {
  const dist = consoleDist();
  let base: string, key: string;
  useGateway('sqlite', { env: { WEB_DIST: dist }, user: 'headers-user', quota: 10_000_000 }, async (gw) => {
    ({ base, key } = gw);
    await addChannel(gw.root, { name: 'openai-up', key: 'oa-key', baseUrl: gw.mock.url, models: 'gpt-4o-mini' });
    await gw.root.call('PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'gpt-4o-mini': 0.075 }) });
  });
  afterAll(() => fs.rmSync(dist, { recursive: true, force: true }));

  const expectApiHeaders = (r: { status: number; headers: Headers }, what: string) => {
    expect(r.headers.get('x-content-type-options'), what).toBe('nosniff');
    expect(r.headers.get('x-frame-options'), what).toBe('DENY');
    expect(r.headers.get('referrer-policy'), what).toBe('strict-origin-when-cross-origin');
    expect(r.headers.get('content-security-policy'), what).toBe("default-src 'none'; frame-ancestors 'none'");
  };
  const chat = (auth: string, body: object) =>
    headersOf(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const hello = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] };

  it('every relay answer (JSON, event stream, refusal, a route Fastify hands over) is a page nothing can load or frame', async () => {
    const plain = await chat(key, hello);
    expect(plain.status).toBe(200);
    expectApiHeaders(plain, 'chat');
    const stream = await chat(key, { ...hello, stream: true });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    expectApiHeaders(stream, 'stream');
    expectApiHeaders(await chat('sk-wrong', hello), 'bad key');
    expectApiHeaders(await chat(key, { model: 'gpt-4o-mini', messages: [null] }), 'bad body');
    const counted = await headersOf(`${base}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    // Answered through Fastify's reply: the console's policy, which lets nothing frame them either.
    expect(counted.status).toBe(200);
    const midjourney = await headersOf(`${base}/mj/submit/imagine`, {
      method: 'POST',
      headers: { 'mj-api-secret': 'sk-wrong', 'content-type': 'application/json' },
      body: '{}',
    });
    for (const [what, r] of [
      ['count_tokens', counted],
      ['midjourney refusal', midjourney],
    ] as const) {
      expect(r.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(r.headers.get('x-frame-options'), what).toBe('DENY');
      expect(r.headers.get('content-security-policy'), what).toContain("frame-ancestors 'none'");
    }
    const models = await headersOf(`${base}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(models.status).toBe(200);
    expect(models.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("the console's pages and /api answers keep the console's policy over the same connection", async () => {
    for (const url of ['/login', '/api/status']) {
      const r = await headersOf(base + url);
      expect(r.status, url).toBe(200);
      expect(r.headers.get('x-content-type-options'), url).toBe('nosniff');
      const policy = r.headers.get('content-security-policy') ?? '';
      expect(policy, url).toContain("default-src 'self'");
      expect(policy, url).toContain("frame-ancestors 'none'");
      expect(policy, url).not.toContain("default-src 'none'");
    }
  });
});

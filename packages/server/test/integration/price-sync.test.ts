import http from 'node:http';
import { ErrorCode } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';
import { listenLocally, type LocalServer } from '../support/local-server.js';
import { expectRefused } from '../support/refusal.js';

type Diff = {
  current: number | null;
  upstreams: Record<string, number | 'same' | null>;
  confidence: Record<string, boolean>;
};
interface FetchAnswer {
  differences: Record<string, Record<string, Diff>>;
  prices: Record<string, { current: Record<string, number>; upstreams: Record<string, Record<string, number>> }>;
  test_results: { name: string; status: string; error?: string }[];
}

/** A channel key that must never appear in a price-sync answer. */
const CHANNEL_KEY = 'sk-price-sync-channel-secret';

/** A peer gateway speaking new-api's formats: /api/ratio_config (maps per field) and /api/pricing (rows). */
const PEER_CONFIG = {
  model_ratio: { 'm-same': 1, 'm-diff': 2.5, 'm-new': 0.75, 'm-expr': 5 },
  completion_ratio: { 'm-same': 2, 'm-diff': 3 },
  cache_ratio: {},
  create_cache_ratio: {},
  model_price: { 'm-fixed': 0.06 },
  billing_mode: { 'm-expr': 'tiered_expr' },
};
const PEER_PRICING = [
  { model_name: 'm-diff', quota_type: 0, model_ratio: 37.5, completion_ratio: 1, model_price: 0 },
  { model_name: 'm-same', quota_type: 0, model_ratio: 1, completion_ratio: 2, model_price: 0 },
  // How a Tollway lists a model without a price: a ratio of 0, which may not be a real price.
  { model_name: 'm-zero', quota_type: 0, model_ratio: 0, completion_ratio: 1, model_price: 0 },
];

describe.each(dialects)('price sync (ratio_config, ratio_sync) on %s', (dialect) => {
  const hits: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let peer: LocalServer;
  beforeAll(async () => {
    peer = await listenLocally(
      http.createServer((req, res) => {
        const url = req.url ?? '';
        hits.push(url);
        const json = (body: unknown) =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (url === '/api/ratio_config') return json({ success: true, message: '', data: PEER_CONFIG });
        if (url === '/api/pricing') return json({ success: true, data: PEER_PRICING });
        if (url === '/proto')
          return void res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(
              '{"success":true,"data":{"model_ratio":{"__proto__":3,"m-proto":1},"completion_ratio":{"constructor":2}}}',
            );
        if (url === '/failing') return void res.writeHead(500).end('upstream-private-detail');
        if (url === '/moved') return void res.writeHead(302, { location: '/api/ratio_config' }).end();
        if (url === '/huge') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(`{"success":true,"data":{"model_ratio":{"x":1},"pad":"${'a'.repeat(5 * 1024 * 1024)}"}}`);
          return;
        }
        if (url === '/slow') return void setTimeout(() => res.destroyed || json({ success: true, data: {} }), 3000);
        if (url === '/held') {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          setTimeout(() => {
            inFlight--;
            json({ success: true, data: { model_ratio: {} } });
          }, 150);
          return;
        }
        res.writeHead(404).end();
      }),
    );
  });
  const app = useApp(dialect, { admins: ['sync-admin'], users: ['sync-user'] });
  afterAll(async () => peer?.close());

  async function option(key: string, value: string) {
    const res = await app.root.call('PUT', '/api/option/', { key, value });
    expect(res.body, key).toMatchObject({ success: true });
  }
  /** The documented way to let the server reach a host on this machine: private addresses and its port. */
  async function allowLocalHost(allowed: boolean) {
    await option('fetch_setting.allowed_ports', JSON.stringify([String(peer.port)]));
    await option('fetch_setting.allow_private_ip', String(allowed));
  }
  const fetchFrom = (upstreams: { name: string; base_url: string; endpoint?: string; id?: number }[], timeout = 10) =>
    app.root.call<FetchAnswer>('POST', '/api/ratio_sync/fetch', { upstreams, timeout });

  async function setLocalPrices() {
    await option('ModelRatio', JSON.stringify({ 'm-same': 1, 'm-diff': 2 }));
    await option('CompletionRatio', JSON.stringify({ 'm-same': 2, 'm-diff': 3 }));
    await option('CacheRatio', '{}');
    await option('ModelPrice', JSON.stringify({ 'm-fixed': 0.05 }));
  }

  it('GET /api/ratio_config answers success:false while ExposeRatioEnabled is off, the price tables when on', async () => {
    await setLocalPrices();
    await option('CreateCacheRatio', JSON.stringify({ 'm-same': 1.25 }));
    const visitor = () => app.t.app.inject({ method: 'GET', url: '/api/ratio_config' });
    const off = await visitor();
    expectRefused(off, 'off', 'ExposeRatioEnabled');
    expect(off.json().code).toBe(ErrorCode.RatioConfigDisabled);
    expect(off.json().data).toBeUndefined();

    await option('ExposeRatioEnabled', 'true');
    const on = await visitor();
    expect(on.statusCode).toBe(200);
    expect(on.json()).toEqual({
      success: true,
      message: '',
      data: {
        model_ratio: { 'm-same': 1, 'm-diff': 2 },
        completion_ratio: { 'm-same': 2, 'm-diff': 3 },
        cache_ratio: {},
        create_cache_ratio: { 'm-same': 1.25 },
        model_price: { 'm-fixed': 0.05 },
      },
    });
    await option('ExposeRatioEnabled', 'false');
    expectRefused(await visitor(), 'off again', 'ExposeRatioEnabled');
  });

  it('lists channels with a base URL as price sources, and never their keys', async () => {
    const id = await addChannel(app.root, { name: 'sync-peer', key: CHANNEL_KEY, baseUrl: peer.url, models: 'm-same' });
    const res = await app.root.call<{ id: number; name: string; base_url: string; status: number; type: number }[]>(
      'GET',
      '/api/ratio_sync/channels',
    );
    expect(res.body.success).toBe(true);
    expect(res.body.data).toContainEqual({ id, name: 'sync-peer', base_url: peer.url, status: 1, type: 1 });
    expect(res.body.data!.at(-1)).toMatchObject({ id: -100, base_url: 'https://basellm.github.io' });
    expect(JSON.stringify(res.body)).not.toContain(CHANNEL_KEY);
  });

  it('refuses the loopback upstream while the fetch settings block private addresses, without calling it', async () => {
    const before = hits.length;
    const port = await fetchFrom([{ name: 'peer', base_url: peer.url, endpoint: '/api/ratio_config' }]);
    expectRefused(port, 'port', `port ${peer.port} is not allowed`);
    expect((port.body as { code?: string }).code).toBe(ErrorCode.RatioSyncUpstreamRefused);
    await allowLocalHost(false);
    const blocked = await fetchFrom([{ name: 'peer', base_url: peer.url, endpoint: '/api/ratio_config' }]);
    expectRefused(blocked, 'blocked', 'loopback');
    expect(blocked.body).toMatchObject({ code: ErrorCode.RatioSyncUpstreamRefused, params: { name: 'peer' } });
    // A whole URL as the endpoint is checked the same way.
    expectRefused(
      await fetchFrom([{ name: 'peer', base_url: 'https://example.com', endpoint: `${peer.url}/api/ratio_config` }]),
      'endpoint URL',
      'loopback',
    );
    // A channel's address is refused by the guard when fetched: its row in test_results says why.
    const channels = await app.root.call<{ id: number; name: string }[]>('GET', '/api/ratio_sync/channels');
    const id = channels.body.data!.find((c) => c.name === 'sync-peer')!.id;
    const byChannel = await app.root.call<FetchAnswer>('POST', '/api/ratio_sync/fetch', { channel_ids: [id] });
    expect(byChannel.body.success).toBe(true);
    expect(byChannel.body.data!.test_results).toEqual([
      { name: `sync-peer(${id})`, status: 'error', error: expect.stringContaining('loopback') },
    ]);
    expect(hits.length, 'the peer was never called').toBe(before);
  });

  it("answers the per-model differences from upstreams' ratio_config and pricing, in new-api's shape", async () => {
    await allowLocalHost(true);
    await setLocalPrices();
    const res = await fetchFrom([
      { name: 'peer', id: 7, base_url: peer.url, endpoint: '/api/ratio_config' },
      { name: 'rows', base_url: `${peer.url}/`, endpoint: 'api/pricing' },
    ]);
    expect(res.body.success, res.body.message).toBe(true);
    const { differences, prices, test_results } = res.body.data!;
    expect(test_results).toEqual([
      { name: 'peer(7)', status: 'success' },
      { name: 'rows', status: 'success' },
    ]);
    expect({ ...differences, 'm-zero': undefined }).toEqual({
      'm-zero': undefined,
      'm-diff': {
        model_ratio: {
          current: 2,
          upstreams: { 'peer(7)': 2.5, rows: 37.5 },
          confidence: { 'peer(7)': true, rows: false },
        },
        completion_ratio: {
          current: 3,
          upstreams: { 'peer(7)': 'same', rows: 1 },
          confidence: { 'peer(7)': true, rows: false },
        },
      },
      'm-new': {
        model_ratio: {
          current: null,
          upstreams: { 'peer(7)': 0.75, rows: 'same' },
          confidence: { 'peer(7)': true, rows: true },
        },
      },
      'm-fixed': {
        model_price: {
          current: 0.05,
          upstreams: { 'peer(7)': 0.06, rows: null },
          confidence: { 'peer(7)': true, rows: true },
        },
      },
    });
    const unsure = { 'peer(7)': true, rows: false };
    expect(differences['m-zero']).toEqual({
      model_ratio: { current: null, upstreams: { 'peer(7)': 'same', rows: 0 }, confidence: unsure },
      completion_ratio: { current: null, upstreams: { 'peer(7)': 'same', rows: 1 }, confidence: unsure },
    });
    expect(differences['m-same'], 'equal everywhere').toBeUndefined();
    expect(differences['m-expr'], 'priced by an expression upstream').toBeUndefined();
    expect(prices['m-diff']).toEqual({
      current: { model_ratio: 2, completion_ratio: 3 },
      upstreams: {
        'peer(7)': { model_ratio: 2.5, completion_ratio: 3 },
        rows: { model_ratio: 37.5, completion_ratio: 1 },
      },
    });
  });

  it("fetches chosen channels at their base URL's /api/pricing", async () => {
    const channels = await app.root.call<{ id: number; name: string }[]>('GET', '/api/ratio_sync/channels');
    const id = channels.body.data!.find((c) => c.name === 'sync-peer')!.id;
    const before = hits.filter((h) => h === '/api/pricing').length;
    const res = await app.root.call<FetchAnswer>('POST', '/api/ratio_sync/fetch', { channel_ids: [id, 999_999] });
    expect(res.body.data!.test_results).toEqual([{ name: `sync-peer(${id})`, status: 'success' }]);
    expect(res.body.data!.differences['m-diff']?.model_ratio?.upstreams).toEqual({ [`sync-peer(${id})`]: 37.5 });
    expect(hits.filter((h) => h === '/api/pricing').length).toBe(before + 1);
  });

  it("an accepted difference is saved through PUT /api/option/ as new-api's console sends it, and no longer shown", async () => {
    await setLocalPrices();
    const accepted = { 'm-same': 1, 'm-diff': 2.5, 'm-new': 0.75 };
    await option('ModelRatio', JSON.stringify(accepted, null, 2));
    const res = await fetchFrom([{ name: 'peer', base_url: peer.url, endpoint: '/api/ratio_config' }]);
    expect(res.body.data!.differences['m-diff']?.model_ratio).toBeUndefined();
    expect(res.body.data!.differences['m-new']).toBeUndefined();
    expect(res.body.data!.differences['m-fixed']?.model_price?.upstreams).toEqual({ peer: 0.06 });
    const options = await app.root.call<{ key: string; value: string }[]>('GET', '/api/option/');
    expect(JSON.parse(options.body.data!.find((o) => o.key === 'ModelRatio')!.value)).toEqual(accepted);
  });

  it('reports failing upstreams in test_results: a status, a redirect (not followed), a too large answer, a timeout', async () => {
    const before = hits.filter((h) => h === '/api/ratio_config').length;
    const res = await fetchFrom(
      [
        { name: 'failing', base_url: peer.url, endpoint: '/failing' },
        { name: 'moved', base_url: peer.url, endpoint: '/moved' },
        { name: 'huge', base_url: peer.url, endpoint: '/huge' },
        { name: 'slow', base_url: peer.url, endpoint: '/slow' },
        { name: 'openrouter', base_url: peer.url, endpoint: 'openrouter' },
      ],
      1,
    );
    expect(res.body.success).toBe(true);
    const byName = Object.fromEntries(res.body.data!.test_results.map((r) => [r.name, r.error]));
    expect(byName).toEqual({
      failing: 'the upstream answered HTTP 500',
      moved: 'the upstream answered HTTP 302',
      huge: 'the answer is larger than 4 MB',
      slow: 'no answer in time',
      openrouter: expect.stringContaining('channel key'),
    });
    expect(JSON.stringify(res.body)).not.toContain('upstream-private-detail');
    expect(hits.filter((h) => h === '/api/ratio_config').length, 'the redirect was not followed').toBe(before);
  });

  it('fetches at most 8 upstreams at once', async () => {
    maxInFlight = 0;
    const many = Array.from({ length: 12 }, (_, i) => ({ name: `held-${i}`, base_url: peer.url, endpoint: '/held' }));
    const res = await fetchFrom(many);
    expect(res.body.data!.test_results.every((r) => r.status === 'success')).toBe(true);
    expect(maxInFlight).toBeLessThanOrEqual(8);
    expect(maxInFlight).toBeGreaterThan(1);
  });

  it('takes names such as __proto__ (models, upstreams) as plain names', async () => {
    const res = await fetchFrom([{ name: '__proto__', base_url: peer.url, endpoint: '/proto' }]);
    expect(res.body.success).toBe(true);
    const differences = res.body.data!.differences;
    expect(Object.keys(differences).sort()).toEqual(['__proto__', 'm-proto']);
    expect(Object.getOwnPropertyNames(differences['m-proto']!.model_ratio!.upstreams)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(differences, '__proto__')?.value).toMatchObject({
      model_ratio: { current: null },
    });
    const probe: Record<string, unknown> = {};
    for (const k of ['model_ratio', 'm-proto', 'current', 'upstreams']) expect(probe[k], k).toBeUndefined();
  });

  it('refuses a fetch with no usable upstream', async () => {
    const res = await fetchFrom([{ name: 'not-http', base_url: 'ftp://example.com' }]);
    expectRefused(res, 'no upstream', 'no valid upstream');
    expect((res.body as { code?: string }).code).toBe(ErrorCode.RatioSyncNoUpstream);
  });

  it('answers the log panel honestly without LOG_DIR: not enabled, and nothing to clean', async () => {
    const list = await app.root.call('GET', '/api/performance/logs');
    expect(list.body).toMatchObject({ success: true, data: { enabled: false, log_dir: '', file_count: 0, files: [] } });
    const clean = await app.root.call('DELETE', '/api/performance/logs?mode=by_count&value=1');
    expectRefused(clean, 'no LOG_DIR', 'LOG_DIR');
    expect((clean.body as { code?: string }).code).toBe(ErrorCode.LogDirNotConfigured);
  });

  it('refuses administrators, users and visitors', async () => {
    for (const [who, c] of [
      ['admin', app.admins[0]!],
      ['user', app.users[0]!],
    ] as const) {
      for (const [method, url] of [
        ['GET', '/api/ratio_sync/channels'],
        ['POST', '/api/ratio_sync/fetch'],
      ]) {
        const res = await c.call(method!, url!, method === 'POST' ? { upstreams: [] } : undefined);
        expect(res.status, `${who} ${url}`).toBe(403);
        expect(res.body.success).toBe(false);
      }
    }
    const anonymous = await app.t.app.inject({ method: 'GET', url: '/api/ratio_sync/channels' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('GET /api/ratio_config and the critical rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    // A day-long window: the four calls cannot straddle its end.
    t = await startTestApp('sqlite', { CRITICAL_RATE_LIMIT: '3', CRITICAL_RATE_LIMIT_DURATION: '86400' });
  });
  afterAll(async () => t?.close());

  it('counts each caller address against the sign-in limit', async () => {
    const get = (remoteAddress: string) => t.app.inject({ method: 'GET', url: '/api/ratio_config', remoteAddress });
    for (let i = 0; i < 3; i++) expect((await get('10.7.7.7')).statusCode).toBe(200);
    const limited = await get('10.7.7.7');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ success: false });
    expect((await get('10.7.7.8')).statusCode).toBe(200);
  });
});

import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { metricsRoutes } from '../../src/http/metrics-route.js';
import { registerRoute } from '../../src/http/register.js';
import { Router } from '../../src/http/route.js';
import type { Hold } from '../../src/accounting/ledger.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { parseSamples, sampleValue } from '../support/prometheus-text.js';
import { useLedgerWorld } from '../support/redis-ledger.js';

const TOKEN = 'metrics-token-0123456789';

/** The /metrics route served with a running app's context. */
async function metricsServer(t: TestApp): Promise<FastifyInstance> {
  const app = Fastify();
  const router = new Router();
  metricsRoutes(router);
  for (const def of router.routes) registerRoute(app, t.runtime.ctx, def);
  await app.ready();
  return app;
}

describe('GET /metrics', () => {
  const w = useLedgerWorld(50_000);
  let open: TestApp;
  let closed: TestApp;
  let withToken: FastifyInstance;
  let withoutToken: FastifyInstance;
  beforeAll(async () => {
    open = await startTestApp('sqlite', { METRICS_TOKEN: TOKEN });
    closed = await startTestApp('sqlite');
    withToken = await metricsServer(open);
    withoutToken = await metricsServer(closed);
  });
  afterAll(async () => {
    await withToken?.close();
    await withoutToken?.close();
    await open?.close();
    await closed?.close();
  });

  it('is absent without METRICS_TOKEN and refuses a missing or wrong token', async () => {
    expect(
      (await withoutToken.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }))
        .statusCode,
    ).toBe(404);
    expect((await withToken.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    const wrong = await withToken.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}x` },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).not.toContain('tollway_');
  });

  it('serves the reconciliation counters in Prometheus text to the token holder', async () => {
    const scrape = () =>
      withToken.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    // The counters are the process's: other files in the same worker may have counted before; this test adds one.
    const before = parseSamples((await scrape()).body);
    const l = w.ledger({ reconcileIntervalMs: 60_000 });
    await l.start();
    const t = { userId: w.userId, tokenId: w.tokenId };
    const hold = (await l.reserve(t, 100)) as Hold;
    await w.redis.hincrby(w.key('tokens', w.tokenId), 'b', 1234);
    await l.tick();
    await l.settle(t, hold, 0);
    const res = await scrape();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.body).toContain('# TYPE tollway_balance_repairs_total counter');
    const after = parseSamples(res.body);
    const added = (name: string, labels: Record<string, string>) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(added('tollway_balance_repairs_total', { kind: 'tokens' })).toBe(1);
    expect(added('tollway_balance_drift_repaired_quota_total', { kind: 'tokens' })).toBe(1234);
    expect(added('tollway_balance_reconcile_passes_total', {})).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, 'tollway_cluster_live_nodes')).toBeGreaterThanOrEqual(1);
  });

  it('rejects a short METRICS_TOKEN and a REDIS_RECONCILE_INTERVAL out of range at start', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/^METRICS_TOKEN: must be at least 16 characters/);
    expect(() => loadConfig({ REDIS_RECONCILE_INTERVAL: '0' })).toThrow(
      /^REDIS_RECONCILE_INTERVAL: must be an integer >= 1/,
    );
    expect(() => loadConfig({ REDIS_RECONCILE_INTERVAL: '7200' })).toThrow(
      /^REDIS_RECONCILE_INTERVAL: must be at most 3600 seconds/,
    );
    expect(loadConfig({ REDIS_RECONCILE_INTERVAL: '5' }).redisReconcileInterval).toBe(5);
    expect(loadConfig({}).metricsToken).toBeUndefined();
  });
});

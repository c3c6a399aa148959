import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRateLimitRefusal, setChannelHealth } from '../../src/lib/metrics.js';
import { startMetricsServer } from '../../src/observability/metrics-server.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter } from '../support/gateway.js';
import { parseSamples, sampleValue, type Sample } from '../support/prometheus-text.js';
import pino from 'pino';
import type http from 'node:http';

const TOKEN = 'metrics-token-0123456789';
const MODEL = 'obs-model';
const FAILING_MODEL = 'obs-failing';
const SURFACE = '/v1/chat/completions';
/** ModelPrice 0.002 at the default QuotaPerUnit: each call reserves and costs exactly this. */
const CALL_QUOTA = 1000;

describe('relay metrics after known traffic', () => {
  let okChannel = 0;
  let badChannel = 0;
  let failChannel = 0;
  const gw = useGateway(
    'sqlite',
    { env: { METRICS_TOKEN: TOKEN }, user: 'metrics-user', quota: 1_000_000 },
    async (g) => {
      await g.root.call('PUT', '/api/option/', {
        key: 'ModelPrice',
        value: JSON.stringify({ [MODEL]: 0.002, [FAILING_MODEL]: 0.002 }),
      });
      await g.root.call('PUT', '/api/option/', { key: 'RetryTimes', value: '2' });
      // The failing channel has the higher priority: every call tries it first, then moves to the healthy one.
      badChannel = await addChannel(g.root, {
        name: 'obs-bad',
        key: 'bad-key',
        baseUrl: g.mock.url,
        models: MODEL,
        priority: 10,
      });
      okChannel = await addChannel(g.root, { name: 'obs-ok', key: 'ok-key', baseUrl: g.mock.url, models: MODEL });
      failChannel = await addChannel(g.root, {
        name: 'obs-fail',
        key: 'fail-key',
        baseUrl: g.mock.url,
        models: FAILING_MODEL,
      });
      g.mock.behaviors.set('bad-key', { failStatus: 500, failMessage: 'boom' });
      g.mock.behaviors.set('fail-key', { failStatus: 503, failMessage: 'down' });
    },
  );

  const scrape = async (): Promise<Sample[]> => {
    const res = await gw.t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.statusCode).toBe(200);
    return parseSamples(res.body);
  };
  const chat = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    fetch(`${gw.base}${SURFACE}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('counts calls, latency, first bytes, upstream errors, retries and quota exactly as the logs table has them', async () => {
    const before = await scrape();
    const requestsBefore = gw.mock.requests.length;
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push(
        await chat({ model: MODEL, messages: [{ role: 'user', content: `plain ${i}` }] }).then(
          async (r) => (await r.text(), r.status),
        ),
      );
    for (let i = 0; i < 2; i++) {
      const r = await chat({ model: MODEL, stream: true, messages: [{ role: 'user', content: `stream ${i}` }] });
      await r.text();
      statuses.push(r.status);
    }
    const failed = await chat({ model: FAILING_MODEL, messages: [{ role: 'user', content: 'no luck' }] });
    await failed.text();
    const unknown = await chat({ model: 'obs-no-such-model', messages: [{ role: 'user', content: '?' }] });
    await unknown.text();
    const badKey = await fetch(`${gw.base}${SURFACE}`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-not-a-key', 'content-type': 'application/json' },
      body: '{}',
    });
    await badKey.text();
    expect(badKey.status).toBe(401);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(unknown.status).toBe(404);
    await drainWriter(gw.t);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);

    const sent = gw.mock.requests.slice(requestsBefore);
    const badAttempts = sent.filter((r) => r.key === 'bad-key').length;
    const failAttempts = sent.filter((r) => r.key === 'fail-key').length;
    expect(sent.filter((r) => r.key === 'ok-key')).toHaveLength(5);
    expect(badAttempts).toBeGreaterThan(0);

    expect(
      delta('tollway_relay_requests_total', {
        surface: SURFACE,
        model: MODEL,
        channel: String(okChannel),
        status_class: '2xx',
      }),
    ).toBe(5);
    expect(
      delta('tollway_relay_requests_total', {
        surface: SURFACE,
        model: FAILING_MODEL,
        channel: String(failChannel),
        status_class: '5xx',
      }),
    ).toBe(1);
    // The unknown model and the bad key: refused before any channel.
    expect(
      delta('tollway_relay_requests_total', { surface: SURFACE, model: 'none', channel: 'none', status_class: '4xx' }),
    ).toBe(2);
    expect(delta('tollway_relay_request_duration_seconds_count', { surface: SURFACE, status_class: '2xx' })).toBe(5);
    expect(delta('tollway_relay_ttfb_seconds_count', { surface: SURFACE, channel: String(okChannel) })).toBe(5);
    expect(delta('tollway_upstream_errors_total', { channel: String(badChannel), kind: 'server' })).toBe(badAttempts);
    expect(delta('tollway_upstream_errors_total', { channel: String(failChannel), kind: 'server' })).toBe(failAttempts);
    // Every attempt after a call's first is a retry: 6 calls reached a channel.
    expect(delta('tollway_relay_retries_total', { surface: SURFACE })).toBe(sent.length - 6);

    const logs = await gw.t.database.db.kysely
      .selectFrom('logs')
      .select(['quota'])
      .where('user_id', '=', gw.user.userId!)
      .where('type', '=', 2)
      .execute();
    const logged = logs.reduce((n, r) => n + Number(r.quota), 0);
    expect(logs).toHaveLength(5);
    expect(logged).toBe(5 * CALL_QUOTA);
    expect(delta('tollway_quota_charged_total', { source: 'relay' })).toBe(logged);
    expect(delta('tollway_quota_reserved_total', { source: 'relay' })).toBe(6 * CALL_QUOTA);
    // The failed call gave its whole reservation back; the others used all of theirs.
    expect(delta('tollway_quota_refunded_total', { source: 'relay' })).toBe(CALL_QUOTA);

    expect(sampleValue(after, 'tollway_relay_reservations_in_flight')).toBe(0);
    expect(sampleValue(after, 'tollway_writer_queue_depth')).toBe(0);
    expect(sampleValue(after, 'tollway_writer_journal_lag_seconds')).toBe(0);
    expect(delta('tollway_writer_batches_total', { outcome: 'committed' })).toBeGreaterThan(0);
    expect(delta('tollway_writer_batch_size_sum')).toBeGreaterThanOrEqual(5);
  });

  it('sends no traceparent upstream while tracing is off', async () => {
    const from = gw.mock.requests.length;
    const res = await chat(
      { model: MODEL, messages: [{ role: 'user', content: 'untraced' }] },
      { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    );
    await res.text();
    expect(res.status).toBe(200);
    const sent = gw.mock.requests.slice(from);
    expect(sent.length).toBeGreaterThan(0);
    for (const r of sent) expect(r.headers.traceparent).toBeUndefined();
  });

  it('exports the helpers other parts call: rate-limit refusals by level and channel health', async () => {
    const before = await scrape();
    countRateLimitRefusal('token', 'tpm');
    countRateLimitRefusal('token', 'tpm');
    countRateLimitRefusal('channel');
    setChannelHealth(okChannel, 'open');
    setChannelHealth(badChannel, 'half_open');
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(delta('tollway_rate_limit_refusals_total', { level: 'token', kind: 'tpm' })).toBe(2);
    expect(delta('tollway_rate_limit_refusals_total', { level: 'channel', kind: 'rpm' })).toBe(1);
    expect(sampleValue(after, 'tollway_channel_health_state', { channel: String(okChannel) })).toBe(2);
    expect(sampleValue(after, 'tollway_channel_health_state', { channel: String(badChannel) })).toBe(1);
    setChannelHealth(okChannel, 'closed');
    expect(sampleValue(await scrape(), 'tollway_channel_health_state', { channel: String(okChannel) })).toBe(0);
  });

  it('includes the process metrics', async () => {
    const names = new Set((await scrape()).map((s) => s.name));
    for (const n of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ])
      expect(names).toContain(n);
  });
});

describe('METRICS_PORT: /metrics on a port of its own', () => {
  let open: http.Server;
  let guarded: http.Server;
  const log = pino({ level: 'silent' });
  const urlOf = (s: http.Server, path = '/metrics') => `http://127.0.0.1:${(s.address() as AddressInfo).port}${path}`;
  beforeAll(async () => {
    open = await startMetricsServer({ port: 0, host: '127.0.0.1', token: undefined }, log);
    guarded = await startMetricsServer({ port: 0, host: '127.0.0.1', token: TOKEN }, log);
  });
  afterAll(async () => {
    await new Promise((r) => open?.close(r));
    await new Promise((r) => guarded?.close(r));
  });

  it('serves Prometheus text on loopback, with the bearer token when one is set, and nothing else', async () => {
    const res = await fetch(urlOf(open));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await res.text()).toContain('tollway_relay_requests_total');
    expect((await fetch(urlOf(open, '/api/status'))).status).toBe(404);
    expect((await fetch(urlOf(guarded))).status).toBe(401);
    expect((await fetch(urlOf(guarded), { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await fetch(urlOf(guarded), { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});

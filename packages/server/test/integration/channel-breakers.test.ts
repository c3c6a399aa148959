import type { ChannelHealth, ChannelPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { metrics } from '../../src/lib/metrics.js';
import { useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';

/**
 * Circuit breakers on one node, against the mock upstream: a faulty channel of the highest priority and a healthy
 * one below it. Breakers keep no database state, so one dialect is enough.
 */
const MODEL = 'breaker-model';
const FAULTY_KEY = 'brk-faulty';
const HEALTHY_KEY = 'brk-healthy';
const COOLDOWN_S = 1;
const MIN_FAILURES = 3;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('channel circuit breakers', () => {
  let faultyId = 0;
  let healthyId = 0;
  const gw = useGateway('sqlite', { user: 'breaker-user', quota: 100_000_000 }, async ({ root, mock }) => {
    for (const [key, value] of Object.entries({
      ModelPrice: JSON.stringify({ [MODEL]: 0.001 }),
      RetryTimes: '1',
      ChannelBreakerMinFailures: String(MIN_FAILURES),
      ChannelBreakerCooldownSeconds: String(COOLDOWN_S),
      ChannelBreakerMaxCooldownSeconds: '2',
      AutomaticDisableChannelEnabled: 'true',
    })) {
      const res = await root.call('PUT', '/api/option/', { key, value });
      expect(res.body.success, key).toBe(true);
    }
    faultyId = await addChannel(root, {
      name: 'faulty',
      key: FAULTY_KEY,
      baseUrl: mock.url,
      models: MODEL,
      priority: 10,
    });
    healthyId = await addChannel(root, {
      name: 'healthy',
      key: HEALTHY_KEY,
      baseUrl: mock.url,
      models: MODEL,
      priority: 0,
    });
    mock.behaviors.set(FAULTY_KEY, { failStatus: 502 });
    mock.behaviors.set(HEALTHY_KEY, { delayMs: 20 });
  });

  const call = async () => {
    const res = await fetch(`${gw.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const hits = (key: string) => gw.mock.requests.filter((r) => r.key === key).length;
  const health = async (id: number): Promise<ChannelHealth> => {
    const res = await gw.root.call<{ items: ChannelPublic[] }>('GET', '/api/channel/?p=1&page_size=50');
    const row = res.body.data!.items.find((c) => c.id === id)!;
    return row.health!;
  };
  const gauge = async (id: number) =>
    (await metrics.getSingleMetric('tollway_channel_health_state')!.get()).values.find(
      (v) => v.labels.channel === String(id),
    )?.value;

  it('opens after the failures, moves traffic to the healthy channel, half-opens after the cool-down and closes when the upstream heals', async () => {
    // Every call fails on the faulty channel first and is retried on the healthy one: the caller sees no error.
    for (let i = 0; i < MIN_FAILURES; i++) expect(await call()).toBe(200);
    expect(hits(FAULTY_KEY)).toBe(MIN_FAILURES);
    const open = await health(faultyId);
    expect(open).toMatchObject({ state: 'open', error_rate: 1, requests: MIN_FAILURES });
    expect(open.open_until).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect(await gauge(faultyId)).toBe(2);
    // A transient burst disables nothing, even with automatic disabling on.
    const row = await gw.t.database.db.kysely
      .selectFrom('channels')
      .select('status')
      .where('id', '=', faultyId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe(1);

    // Open: calls go straight to the healthy channel.
    for (let i = 0; i < 5; i++) expect(await call()).toBe(200);
    expect(hits(FAULTY_KEY)).toBe(MIN_FAILURES);
    const healthy = await health(healthyId);
    expect(healthy).toMatchObject({ state: 'closed', error_rate: 0 });
    expect(healthy.requests).toBeGreaterThanOrEqual(MIN_FAILURES + 5);
    expect(healthy.p50_latency_ms).toBeGreaterThanOrEqual(20);

    // After the cool-down one probe goes to the faulty channel; it fails, so the breaker opens again for longer.
    await sleep(COOLDOWN_S * 1000 + 100);
    expect((await health(faultyId)).state).toBe('half_open');
    expect(await call()).toBe(200);
    expect(hits(FAULTY_KEY)).toBe(MIN_FAILURES + 1);
    const reopened = await health(faultyId);
    expect(reopened.state).toBe('open');
    expect(reopened.open_until).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 1);

    // The upstream heals (slowly, so the probe is still out while other calls arrive): exactly one probe goes
    // there, the others keep to the healthy channel, and its success closes the breaker.
    gw.mock.behaviors.set(FAULTY_KEY, { delayMs: 300 });
    await sleep(2 * COOLDOWN_S * 1000 + 100);
    const statuses = await Promise.all(Array.from({ length: 6 }, () => call()));
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(hits(FAULTY_KEY)).toBe(MIN_FAILURES + 2);
    expect(await health(faultyId)).toMatchObject({ state: 'closed', open_until: 0 });
    expect(await gauge(faultyId)).toBe(0);
    // Closed: the faulty channel, of the highest priority, takes the traffic again.
    expect(await call()).toBe(200);
    expect(hits(FAULTY_KEY)).toBe(MIN_FAILURES + 3);
  });

  it('still disables a channel on a permanent error (rejected key) when automatic disabling is on', async () => {
    const id = await addChannel(gw.root, {
      name: 'revoked',
      key: 'brk-revoked',
      baseUrl: gw.mock.url,
      models: MODEL,
      priority: 20,
    });
    gw.mock.behaviors.set('brk-revoked', { failStatus: 401, failMessage: 'Incorrect API key provided' });
    // A 401 is not retried: the caller sees it, as before breakers.
    expect(await call()).toBe(401);
    let status = 1;
    for (let i = 0; i < 50 && status === 1; i++) {
      await sleep(20);
      status = (
        await gw.t.database.db.kysely
          .selectFrom('channels')
          .select('status')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).status;
    }
    expect(status).toBe(3);
  });

  it('a background test that meets a transient failure opens the breaker instead of disabling the channel; enabling it by hand closes it', async () => {
    const id = await addChannel(gw.root, {
      name: 'flaky',
      key: 'brk-flaky',
      baseUrl: gw.mock.url,
      models: MODEL,
      priority: -5,
    });
    gw.mock.behaviors.set('brk-flaky', { failStatus: 503 });
    const started = await gw.root.call('GET', '/api/channel/test');
    expect(started.body.success).toBe(true);
    await gw.t.runtime.ctx.channels.tester.idle();
    const row = await gw.t.database.db.kysely
      .selectFrom('channels')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe(1);
    expect((await health(id)).state).toBe('open');
    // Enabling it by hand (or a new key or address) starts it with a closed breaker.
    expect((await gw.root.call('PUT', '/api/channel/', { id, status: 1 })).body.success).toBe(true);
    expect((await health(id)).state).toBe('closed');
  });

  it('opens the failing key of a multi-key channel alone: its healthy key keeps serving', async () => {
    const created = await gw.root.call<{ ids: number[] }>('POST', '/api/channel/', {
      mode: 'multi_to_single',
      multi_key_mode: 'polling',
      channel: {
        name: 'multi',
        type: 1,
        key: 'brk-mk-bad\nbrk-mk-good',
        base_url: gw.mock.url,
        models: MODEL,
        group: 'default',
        priority: 50,
      },
    });
    const id = created.body.data!.ids[0]!;
    gw.mock.behaviors.set('brk-mk-bad', { failStatus: 500 });
    // Polling alternates the keys: every other call fails on the bad key and is retried on another channel.
    for (let i = 0; i < 2 * MIN_FAILURES; i++) expect(await call()).toBe(200);
    expect(hits('brk-mk-bad')).toBe(MIN_FAILURES);
    const before = hits('brk-mk-good');
    for (let i = 0; i < 4; i++) expect(await call()).toBe(200);
    expect(hits('brk-mk-bad')).toBe(MIN_FAILURES);
    expect(hits('brk-mk-good')).toBe(before + 4);
    expect(await health(id)).toMatchObject({ state: 'closed', keys: { '0': 'open' }, error_rate: 0.3 });
    expect((await gw.root.call('DELETE', `/api/channel/${id}`)).body.success).toBe(true);
  });

  it('callers hanging up before the answer count for nothing', async () => {
    const id = await addChannel(gw.root, {
      name: 'slow',
      key: 'brk-slow',
      baseUrl: gw.mock.url,
      models: MODEL,
      priority: 60,
    });
    gw.mock.behaviors.set('brk-slow', { delayMs: 1500 });
    for (let i = 0; i < MIN_FAILURES + 1; i++) {
      const abort = new AbortController();
      const sent = fetch(`${gw.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
        signal: abort.signal,
      });
      await sleep(150);
      abort.abort();
      await sent.catch(() => undefined);
    }
    await sleep(200);
    expect(hits('brk-slow')).toBe(MIN_FAILURES + 1);
    expect(await health(id)).toMatchObject({ state: 'closed', requests: 0 });
    expect((await gw.root.call('DELETE', `/api/channel/${id}`)).body.success).toBe(true);
  });

  it('with ChannelBreakerEnabled off, failures open nothing', async () => {
    await gw.root.call('PUT', '/api/option/', { key: 'ChannelBreakerEnabled', value: 'false' });
    const id = await addChannel(gw.root, {
      name: 'off',
      key: 'brk-off',
      baseUrl: gw.mock.url,
      models: MODEL,
      priority: 30,
    });
    gw.mock.behaviors.set('brk-off', { failStatus: 500 });
    for (let i = 0; i < MIN_FAILURES + 2; i++) expect(await call()).toBe(200);
    expect(hits('brk-off')).toBe(MIN_FAILURES + 2);
    expect((await health(id)).state).toBe('closed');
  });
});

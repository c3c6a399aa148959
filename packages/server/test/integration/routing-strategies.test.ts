import { afterAll, describe, expect, it } from 'vitest';
import { metrics } from '../../src/lib/metrics.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel } from '../support/gateway.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from '../support/redis.js';

/**
 * Routing strategies (RoutingStrategy option) against the mock upstream with skewed latency and price: each
 * strategy's share of the calls is held to a bound, not an exact count. One node; the strategies' load and
 * latency are node-local, so the PostgreSQL + Redis run checks that they route the same with a cluster's stores.
 */
const FAST_MS = 2;
const SLOW_MS = 60;
/**
 * The long calls' upstream time: longer than it takes a loaded machine to start all PARALLEL_LONG_CALLS of them
 * (CI on 2 busy cores once had 6 of 30 in flight after 200 ms), so they are all in flight together.
 */
const LONG_MS = 1_000;
/** Weighted 3:1 over WEIGHTED_CALLS calls: the heavy channel's count within 4 binomial standard deviations. */
const WEIGHTED_CALLS = 200;
const HEAVY_SHARE = 0.75;
const LATENCY_CALLS = 100;
const PARALLEL_LONG_CALLS = 30;
const PRICE_CALLS = 50;

const setups = [
  ...(dialects.includes('sqlite') ? [{ name: 'SQLite', dialect: 'sqlite' as const, redis: false }] : []),
  ...(dialects.includes('postgres') ? [{ name: 'PostgreSQL + Redis', dialect: 'postgres' as const, redis: true }] : []),
];

describe.each(setups)('routing strategies on $name', ({ dialect, redis }) => {
  const prefix = newRedisPrefix();
  const env: Record<string, string> = redis ? { REDIS_CONN_STRING: TEST_REDIS, REDIS_KEY_PREFIX: prefix } : {};
  const ids: Record<string, number> = {};
  const gw = useGateway(dialect, { user: 'routing-user', quota: 1_000_000_000_000, env }, async ({ root, mock }) => {
    const models = ['rs-weighted', 'rs-latency', 'rs-inflight', 'rs-price', 'rs-price-factor'];
    for (const [key, value] of Object.entries({
      ModelPrice: JSON.stringify(Object.fromEntries(models.map((m) => [m, 0.001]))),
      // What the channels of the price routes map to: listed at very different prices.
      ModelRatio: JSON.stringify({ 'rs-cheap-upstream': 0.5, 'rs-dear-upstream': 5 }),
      // The group's strategy is latency; models name their own (a model's entry wins over its group's).
      RoutingStrategy: JSON.stringify({
        default: 'weighted',
        groups: { default: 'latency' },
        models: {
          'rs-weighted': 'weighted',
          'rs-inflight': 'least_inflight',
          'rs-price': 'lowest_price',
          'rs-price-factor': 'lowest_price',
        },
      }),
    })) {
      const res = await root.call('PUT', '/api/option/', { key, value });
      expect(res.body.success, `${key}: ${res.body.message}`).toBe(true);
    }
    const channel = async (
      name: string,
      model: string,
      weight: number,
      extra: { modelMapping?: Record<string, string>; setting?: Record<string, unknown> } = {},
    ) => {
      ids[name] = await addChannel(root, {
        name,
        key: `rs-${name}`,
        baseUrl: mock.url,
        models: model,
        weight,
        ...extra,
      });
    };
    await channel('heavy', 'rs-weighted', 3);
    await channel('light', 'rs-weighted', 1);
    await channel('fast', 'rs-latency', 1);
    await channel('slow', 'rs-latency', 1);
    mock.behaviors.set('rs-fast', { delayMs: FAST_MS });
    mock.behaviors.set('rs-slow', { delayMs: SLOW_MS });
    // Weighted random would send most parallel calls to the first one.
    for (const [name, weight] of [
      ['long-a', 10],
      ['long-b', 1],
      ['long-c', 1],
    ] as const) {
      await channel(name, 'rs-inflight', weight);
      mock.behaviors.set(`rs-${name}`, { delayMs: LONG_MS });
    }
    // The cheap channel is slower and lighter: only its price draws the calls.
    await channel('cheap', 'rs-price', 1, { modelMapping: { 'rs-price': 'rs-cheap-upstream' } });
    await channel('dear', 'rs-price', 10, { modelMapping: { 'rs-price': 'rs-dear-upstream' } });
    mock.behaviors.set('rs-cheap', { delayMs: SLOW_MS });
    // The dear model through a channel whose contract costs 5% of the list price: 0.25 against 0.5.
    await channel('cheap-2', 'rs-price-factor', 10, { modelMapping: { 'rs-price-factor': 'rs-cheap-upstream' } });
    await channel('discounted', 'rs-price-factor', 1, {
      modelMapping: { 'rs-price-factor': 'rs-dear-upstream' },
      setting: { cost_factor: 0.05 },
    });
  });
  if (redis) afterAll(() => dropRedisKeys(prefix));

  const call = async (model: string) => {
    const res = await fetch(`${gw.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await res.arrayBuffer();
    expect(res.status).toBe(200);
  };
  /** `n` calls of `model`, `parallel` at a time. */
  const calls = async (model: string, n: number, parallel = 1) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next++ < n) await call(model);
      }),
    );
  };
  const hits = (name: string) => gw.mock.requests.filter((r) => r.key === `rs-${name}`).length;
  const gauge = async (name: string, channel: string) =>
    (await metrics.getSingleMetric(name)!.get()).values.find((v) => v.labels.channel === String(ids[channel]))?.value;

  it('weighted keeps to the weights within a binomial bound', async () => {
    await calls('rs-weighted', WEIGHTED_CALLS, 4);
    const mean = WEIGHTED_CALLS * HEAVY_SHARE;
    const bound = 4 * Math.sqrt(WEIGHTED_CALLS * HEAVY_SHARE * (1 - HEAVY_SHARE));
    expect(hits('heavy') + hits('light')).toBe(WEIGHTED_CALLS);
    expect(Math.abs(hits('heavy') - mean)).toBeLessThanOrEqual(bound);
  });

  it("latency (the group's strategy) sends at least 80% to the fast channel; the EWMA gauges show why", async () => {
    await calls('rs-latency', LATENCY_CALLS);
    expect(hits('fast') + hits('slow')).toBe(LATENCY_CALLS);
    expect(hits('fast')).toBeGreaterThanOrEqual(0.8 * LATENCY_CALLS);
    const fast = await gauge('tollway_channel_latency_ewma_ms', 'fast');
    const slow = await gauge('tollway_channel_latency_ewma_ms', 'slow');
    expect(slow).toBeGreaterThanOrEqual(SLOW_MS);
    expect(fast).toBeLessThan(slow!);
  });

  it('least_inflight spreads parallel long calls evenly despite skewed weights; the in-flight gauge counts them', async () => {
    const running = calls('rs-inflight', PARALLEL_LONG_CALLS, PARALLEL_LONG_CALLS);
    // While they run, the gauge shows them all in flight (once the last one has started).
    const inflight = async () =>
      (await Promise.all(['long-a', 'long-b', 'long-c'].map((c) => gauge('tollway_channel_inflight', c)))).reduce(
        (a, b) => a! + b!,
        0,
      );
    await expect.poll(inflight, { timeout: LONG_MS * 0.8, interval: 20 }).toBe(PARALLEL_LONG_CALLS);
    await running;
    const counts = ['long-a', 'long-b', 'long-c'].map(hits);
    expect(counts.reduce((a, b) => a + b)).toBe(PARALLEL_LONG_CALLS);
    for (const n of counts) {
      expect(n).toBeGreaterThanOrEqual(PARALLEL_LONG_CALLS / 3 - 2);
      expect(n).toBeLessThanOrEqual(PARALLEL_LONG_CALLS / 3 + 2);
    }
    expect(await gauge('tollway_channel_inflight', 'long-a')).toBe(0);
  });

  it('lowest_price picks the channel whose mapped model is cheapest, slower and lighter as it is', async () => {
    await calls('rs-price', PRICE_CALLS, 2);
    expect(hits('cheap')).toBe(PRICE_CALLS);
    expect(hits('dear')).toBe(0);
    const asked = gw.mock.requests.filter((r) => r.key === 'rs-cheap').map((r) => r.body.model);
    expect(new Set(asked)).toEqual(new Set(['rs-cheap-upstream']));
  });

  it("lowest_price counts a channel's cost_factor: the dear model at 5% of its price wins", async () => {
    await calls('rs-price-factor', PRICE_CALLS, 2);
    expect(hits('discounted')).toBe(PRICE_CALLS);
    expect(hits('cheap-2')).toBe(0);
  });

  it('refuses an unknown strategy name with a coded error naming the field', async () => {
    const res = await gw.root.call('PUT', '/api/option/', {
      key: 'RoutingStrategy',
      value: JSON.stringify({ default: 'weighted', groups: { vip: 'fastest' } }),
    });
    expect(res.body).toMatchObject({ success: false });
    expect(JSON.stringify(res.body)).toContain('input_not_in_list');
    expect(res.body.message).toContain('fastest');
    // A channel's cost factor must be a positive number.
    const channel = await gw.root.call('POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: 'bad-factor',
        type: 1,
        key: 'rs-bad',
        base_url: gw.mock.url,
        models: 'rs-price',
        group: 'default',
        setting: JSON.stringify({ cost_factor: 0 }),
      },
    });
    expect(channel.body).toMatchObject({ success: false });
    expect(JSON.stringify(channel.body)).toContain('cost_factor');
  });
});

import { describe, expect, it } from 'vitest';
import type { OptionKey } from '@tollway/shared';
import {
  ChannelLoad,
  FAILED_ATTEMPT_LATENCY_MS,
  LATENCY_EWMA_ALPHA,
  LATENCY_STALE_MS,
} from '../../src/core/routing/channel-load.js';
import { RoutingStrategies, type PricedCandidate } from '../../src/core/routing/strategies.js';
import {
  drawWeighted,
  pickInTier,
  pickLatency,
  pickLeastInflight,
  pickLowestPrice,
  type PickEnv,
} from '../../src/core/routing/strategy-pick.js';
import { seeded } from '../support/seeded-random.js';

const T0 = 1_700_000_000_000;

interface TestChannel extends PricedCandidate {
  cost: number;
}
const channel = (id: number, weight = 1, cost = 1): TestChannel => ({
  id,
  weight,
  multiKey: false,
  keyEnabled: [true],
  modelMapping: {},
  costFactor: 1,
  cost,
});

/** A random source returning `values` in turn (then the last one again). */
function seq(...values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)]!;
}

function loadOf(ids: number[], clock = { now: T0 }) {
  const load = new ChannelLoad(() => clock.now);
  load.track(ids);
  return { load, clock };
}

const all = () => true;

describe('ChannelLoad', () => {
  it('counts calls in flight per tracked channel and ignores channels it does not track', () => {
    const { load } = loadOf([1, 2]);
    load.started(1);
    load.started(1);
    load.started(2);
    load.started(99);
    expect([load.inflight(1), load.inflight(2), load.inflight(99)]).toEqual([2, 1, 0]);
    load.finished(1, 10);
    load.finished(99, 10);
    expect(load.inflight(1)).toBe(1);
    expect(load.view().map((v) => v.channelId)).toEqual([1, 2]);
  });

  it('keeps an EWMA of time to first byte; the first sample sets it, later ones move it by alpha', () => {
    const { load, clock } = loadOf([1]);
    expect(load.latency(1, clock.now)).toBeNaN();
    load.started(1);
    load.finished(1, 100);
    expect(load.latency(1, clock.now)).toBe(100);
    load.started(1);
    load.finished(1, 200);
    expect(load.latency(1, clock.now)).toBeCloseTo(100 + LATENCY_EWMA_ALPHA * 100, 9);
  });

  it('forgets a latency older than LATENCY_STALE_MS, and the next sample starts afresh', () => {
    const { load, clock } = loadOf([1]);
    load.finished(1, 100);
    clock.now += LATENCY_STALE_MS + 1;
    expect(load.latency(1, clock.now)).toBeNaN();
    load.finished(1, 40);
    expect(load.latency(1, clock.now)).toBe(40);
  });

  it('takes a failure as a slow sample (never faster than FAILED_ATTEMPT_LATENCY_MS), a neutral end as none', () => {
    const { load, clock } = loadOf([1, 2]);
    load.finished(1, NaN, 3);
    expect(load.latency(1, clock.now)).toBe(FAILED_ATTEMPT_LATENCY_MS);
    load.finished(2, 50);
    load.finished(2, NaN, NaN);
    expect(load.latency(2, clock.now)).toBe(50);
    load.finished(2, NaN, 12_000);
    expect(load.latency(2, clock.now)).toBeCloseTo(50 + LATENCY_EWMA_ALPHA * (12_000 - 50), 9);
  });

  it('keeps the stats of channels still cached on track, drops the others and never goes below zero', () => {
    const { load, clock } = loadOf([1, 2]);
    load.started(1);
    load.finished(1, 70);
    load.started(1);
    load.started(2);
    load.track([1, 3]);
    expect(load.inflight(1)).toBe(1);
    expect(load.latency(1, clock.now)).toBe(70);
    expect(load.inflight(2)).toBe(0);
    load.finished(3, 5);
    load.finished(3, 5);
    expect(load.inflight(3)).toBe(0);
  });
});

describe('strategy picks inside a tier (injected random)', () => {
  it('drawWeighted follows the weights, skips unusable channels and draws evenly when every weight is 0', () => {
    const chs = [channel(1, 3), channel(2, 1), channel(3, 0)];
    expect(drawWeighted(chs, all, seq(0.74))!.id).toBe(1);
    expect(drawWeighted(chs, all, seq(0.76))!.id).toBe(2);
    expect(drawWeighted(chs, (c) => c.id !== 1, seq(0))!.id).toBe(2);
    expect(drawWeighted(chs, (c) => c.id === 3, seq(0.9))!.id).toBe(3);
    expect(drawWeighted([channel(1, 0), channel(2, 0)], all, seq(0.6))!.id).toBe(2);
    expect(drawWeighted(chs, () => false, seq(0))).toBeUndefined();
    const random = seeded(7);
    let first = 0;
    for (let i = 0; i < 4000; i++) if (drawWeighted(chs, all, random)!.id === 1) first++;
    expect(first / 4000).toBeGreaterThan(0.72);
    expect(first / 4000).toBeLessThan(0.78);
  });

  it('least_inflight takes the channel with the fewest calls in flight; ties go by weight', () => {
    const chs = [channel(1, 1), channel(2, 1), channel(3, 3)];
    const { load } = loadOf([1, 2, 3]);
    load.started(1);
    load.started(3);
    expect(pickLeastInflight(chs, all, seq(0.99), load)!.id).toBe(2);
    load.started(2);
    // All at 1: a weighted draw among the three (weights 1, 1, 3).
    expect(pickLeastInflight(chs, all, seq(0.1), load)!.id).toBe(1);
    expect(pickLeastInflight(chs, all, seq(0.5), load)!.id).toBe(3);
    // The least loaded one is tried: the next least loaded.
    load.finished(3, 10);
    expect(pickLeastInflight(chs, (c) => c.id !== 3, seq(0.1), load)!.id).toBe(1);
  });

  it('latency compares two weighted draws and takes the lower EWMA × (in flight + 1)', () => {
    const chs = [channel(1), channel(2), channel(3)];
    const { load, clock } = loadOf([1, 2, 3]);
    const env = { load, now: clock.now };
    load.finished(1, 100);
    load.finished(2, 20);
    load.finished(3, 50);
    // Draws 1 then 2 (the second among the two left): 2 is faster.
    expect(pickLatency(chs, all, seq(0.1, 0.4), env)!.id).toBe(2);
    // Draws 1 then 3: 3.
    expect(pickLatency(chs, all, seq(0.1, 0.9), env)!.id).toBe(3);
    // Channel 2 has 3 calls in flight: 20 × 4 = 80 > 50, so 3 wins against it.
    for (let i = 0; i < 3; i++) load.started(2);
    expect(pickLatency(chs, all, seq(0.5, 0.9), env)!.id).toBe(3);
    // One usable channel: taken as it is.
    expect(pickLatency(chs, (c) => c.id === 1, seq(0.5), env)!.id).toBe(1);
  });

  it('latency explores a channel without a recent sample', () => {
    const chs = [channel(1), channel(2)];
    const { load, clock } = loadOf([1, 2]);
    load.finished(1, 5);
    expect(pickLatency(chs, all, seq(0.1, 0.5), { load, now: clock.now })!.id).toBe(2);
    load.finished(2, 500);
    expect(pickLatency(chs, all, seq(0.9, 0.5), { load, now: clock.now })!.id).toBe(1);
    // A minute later both samples are stale: the first draw is explored.
    expect(pickLatency(chs, all, seq(0.9, 0.5), { load, now: clock.now + LATENCY_STALE_MS + 1 })!.id).toBe(2);
  });

  it('p2c sends nearly all calls to the fast channel of two, over a seeded run', () => {
    const chs = [channel(1), channel(2), channel(3)];
    const { load, clock } = loadOf([1, 2, 3]);
    load.finished(1, 10);
    load.finished(2, 80);
    load.finished(3, 200);
    const random = seeded(11);
    const hits = new Map<number, number>();
    for (let i = 0; i < 3000; i++) {
      const id = pickLatency(chs, all, random, { load, now: clock.now })!.id;
      hits.set(id, (hits.get(id) ?? 0) + 1);
    }
    // Channel 1 wins whenever it is drawn (2/3 of pairs); channel 3 never.
    expect(hits.get(1)! / 3000).toBeGreaterThan(0.62);
    expect(hits.get(3) ?? 0).toBe(0);
  });

  it('lowest_price takes the cheapest channel, goes by latency among equal prices and puts unpriced last', () => {
    const a = channel(1, 1, 10);
    const b = channel(2, 1, 4);
    const c = channel(3, 1, 4);
    const d = channel(4, 1, Infinity);
    const { load, clock } = loadOf([1, 2, 3, 4]);
    load.finished(2, 300);
    load.finished(3, 30);
    const env: PickEnv<TestChannel> = { load, now: clock.now, costOf: (ch) => ch.cost };
    expect(pickLowestPrice([a, b, c, d], all, seq(0.1, 0.1), env)!.id).toBe(3);
    expect(pickLowestPrice([a, b, c, d], (ch) => ch.id !== 3, seq(0.1, 0.1), env)!.id).toBe(2);
    expect(pickLowestPrice([a, d], all, seq(0.9, 0.1), env)!.id).toBe(1);
    expect(pickLowestPrice([d], all, seq(0.5), env)!.id).toBe(4);
    expect(pickLowestPrice([a, b], () => false, seq(0.5), env)).toBeUndefined();
  });

  it('pickInTier skips tried channels and open breakers under every strategy', () => {
    const chs = [channel(1), channel(2)];
    const { load, clock } = loadOf([1, 2]);
    const env: PickEnv<TestChannel> = { load, now: clock.now, costOf: (ch) => ch.cost };
    const health = { blocked: (c: { id: number }) => c.id === 2 };
    for (const strategy of ['weighted', 'least_inflight', 'latency', 'lowest_price'] as const) {
      expect(pickInTier(strategy, chs, new Set([1]), seq(0.5), undefined, env)!.id).toBe(2);
      expect(pickInTier(strategy, chs, new Set(), seq(0.9, 0.9), health, env)!.id).toBe(1);
      expect(pickInTier(strategy, chs, new Set([1]), seq(0.5), health, env)).toBeUndefined();
    }
  });
});

describe('RoutingStrategies', () => {
  function fixture(setting: unknown, prices: Record<string, number>) {
    const listeners: ((key: OptionKey, value: string) => void)[] = [];
    let current = setting;
    const asked: string[] = [];
    const options = {
      json: <T>() => current as T,
      onChange: (l: (key: OptionKey, value: string) => void) => listeners.push(l),
    };
    const strategies = new RoutingStrategies(options, (model) => {
      asked.push(model);
      return prices[model];
    });
    const change = (key: OptionKey, next: unknown = current) => {
      current = next;
      for (const l of listeners) l(key, JSON.stringify(next));
    };
    return { strategies, change, asked };
  }

  it("takes a model's strategy over its group's over the default", () => {
    const { strategies, change } = fixture(
      { default: 'latency', groups: { vip: 'least_inflight' }, models: { 'gpt-4o': 'lowest_price' } },
      {},
    );
    expect(strategies.strategyFor('default', 'm')).toBe('latency');
    expect(strategies.strategyFor('vip', 'm')).toBe('least_inflight');
    expect(strategies.strategyFor('vip', 'gpt-4o')).toBe('lowest_price');
    // Names that are Object.prototype's own are no entries.
    expect(strategies.strategyFor('constructor', 'toString')).toBe('latency');
    change('RoutingStrategy', { groups: { vip: 'latency' } });
    expect(strategies.strategyFor('default', 'gpt-4o')).toBe('weighted');
    expect(strategies.strategyFor('vip', 'gpt-4o')).toBe('latency');
    // A stored value this version cannot read routes as before.
    change('RoutingStrategy', { default: 'fastest' });
    expect(strategies.strategyFor('default', 'm')).toBe('weighted');
  });

  it('prices a channel at the model it maps to, times its cost factor; unpriced is Infinity; cached until a change', () => {
    const { strategies, change, asked } = fixture({}, { cheap: 100, dear: 400 });
    const mapped: PricedCandidate = { ...channel(1), modelMapping: { m: 'cheap' } };
    const discounted: PricedCandidate = { ...channel(2), modelMapping: { m: 'dear' }, costFactor: 0.2 };
    const plain: PricedCandidate = channel(3);
    expect(strategies.costOf(mapped, 'm')).toBe(100);
    expect(strategies.costOf(discounted, 'm')).toBeCloseTo(80, 9);
    expect(strategies.costOf(plain, 'm')).toBe(Infinity);
    expect(strategies.costOf(mapped, 'm')).toBe(100);
    expect(asked).toEqual(['cheap', 'dear', 'm']);
    change('ModelRatio');
    strategies.costOf(mapped, 'm');
    strategies.channelsChanged();
    strategies.costOf(mapped, 'm');
    expect(asked).toEqual(['cheap', 'dear', 'm', 'cheap', 'cheap']);
  });
});

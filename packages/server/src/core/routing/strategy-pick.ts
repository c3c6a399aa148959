import type { RoutingStrategyName } from '@tollway/shared';
import type { ChannelBreakers, Routable } from './breakers.js';
import type { ChannelLoad } from './channel-load.js';

/** What a strategy reads of a channel. */
export interface Candidate extends Routable {
  weight: number;
}

/** Two costs within this share of each other are the same price (lowest_price then goes by latency). */
export const PRICE_TIE_SHARE = 1e-9;

/** What the strategies other than `weighted` read: load and latency, the clock, the cost of a channel. */
export interface PickEnv<C extends Candidate> {
  load: ChannelLoad;
  now: number;
  /** The channel's cost of the call's model (Infinity: unpriced); only lowest_price asks. */
  costOf: (c: C) => number;
}

type Usable<C> = (c: C) => boolean;

/**
 * A weighted random draw among the channels `usable` allows, `exclude` left out; channels of weight ≤ 0 are drawn
 * only when every usable one has weight ≤ 0 (then with equal chance).
 */
export function drawWeighted<C extends Candidate>(
  channels: readonly C[],
  usable: Usable<C>,
  random: () => number,
  exclude?: C,
): C | undefined {
  let total = 0;
  let count = 0;
  for (const c of channels) {
    if (c === exclude || !usable(c)) continue;
    total += Math.max(0, c.weight);
    count++;
  }
  if (count === 0) return undefined;
  if (total === 0) {
    let n = Math.floor(random() * count);
    for (const c of channels) {
      if (c === exclude || !usable(c)) continue;
      if (n-- === 0) return c;
    }
    return undefined;
  }
  let r = random() * total;
  let last: C | undefined;
  for (const c of channels) {
    if (c.weight <= 0 || c === exclude || !usable(c)) continue;
    last = c;
    r -= c.weight;
    if (r < 0) return c;
  }
  return last;
}

/** Fewest calls in flight on this node; among the channels tied at the fewest, a weighted draw. */
export function pickLeastInflight<C extends Candidate>(
  channels: readonly C[],
  usable: Usable<C>,
  random: () => number,
  load: ChannelLoad,
): C | undefined {
  let fewest = Infinity;
  for (const c of channels) if (usable(c)) fewest = Math.min(fewest, load.inflight(c.id));
  if (fewest === Infinity) return undefined;
  return drawWeighted(channels, (c) => usable(c) && load.inflight(c.id) === fewest, random);
}

/**
 * Power of two choices on latency: two channels drawn by weight, the one with the lower score taken — its
 * average time to first byte × (its calls in flight + 1), so a fast channel that is piling up calls gives way.
 * A channel without a recent sample is taken first (explored); one usable channel is taken as it is.
 */
export function pickLatency<C extends Candidate>(
  channels: readonly C[],
  usable: Usable<C>,
  random: () => number,
  env: Pick<PickEnv<C>, 'load' | 'now'>,
): C | undefined {
  const first = drawWeighted(channels, usable, random);
  if (!first) return undefined;
  const second = drawWeighted(channels, usable, random, first);
  if (!second) return first;
  const a = latencyScore(first, env);
  if (Number.isNaN(a)) return first;
  const b = latencyScore(second, env);
  if (Number.isNaN(b)) return second;
  return b < a ? second : first;
}

const latencyScore = (c: Candidate, env: Pick<PickEnv<Candidate>, 'load' | 'now'>): number =>
  env.load.latency(c.id, env.now) * (env.load.inflight(c.id) + 1);

/** The cheapest channels (cost of the model each would serve); among those of the same price, by latency. */
export function pickLowestPrice<C extends Candidate>(
  channels: readonly C[],
  usable: Usable<C>,
  random: () => number,
  env: PickEnv<C>,
): C | undefined {
  let cheapest = Infinity;
  let any = false;
  for (const c of channels) {
    if (!usable(c)) continue;
    any = true;
    cheapest = Math.min(cheapest, env.costOf(c));
  }
  if (!any) return undefined;
  // Every usable channel unpriced: none is cheaper, latency decides among all of them.
  const bound = cheapest === Infinity ? Infinity : cheapest + Math.abs(cheapest) * PRICE_TIE_SHARE;
  return pickLatency(channels, (c) => usable(c) && env.costOf(c) <= bound, random, env);
}

/**
 * One tier's choice by `strategy` among the channels not tried whose breaker is closed (health given), or
 * undefined when none is left.
 */
export function pickInTier<C extends Candidate>(
  strategy: RoutingStrategyName,
  channels: readonly C[],
  tried: ReadonlySet<number>,
  random: () => number,
  health: Pick<ChannelBreakers, 'blocked'> | undefined,
  env: PickEnv<C> | undefined,
): C | undefined {
  const usable = (c: C) => !tried.has(c.id) && (health === undefined || !health.blocked(c));
  if (env === undefined || strategy === 'weighted') return drawWeighted(channels, usable, random);
  if (strategy === 'least_inflight') return pickLeastInflight(channels, usable, random, env.load);
  if (strategy === 'latency') return pickLatency(channels, usable, random, env);
  return pickLowestPrice(channels, usable, random, env);
}

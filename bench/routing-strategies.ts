// `npm run bench` rows for the routing strategies: one Tollway whose models each route by another strategy over the
// same channels (four in one priority tier, two of them mapping the model to a dearer one), so each strategy's
// added p50 over weighted is measured on one process, in alternating rounds. `node --import tsx
// bench/routing-strategies.ts` runs it alone.
import { pathToFileURL } from 'node:url';
import type { RoutingStrategyName } from '../packages/shared/src/index.js';
import { ChannelLoad } from '../packages/server/src/core/routing/channel-load.js';
import { pickInTier, type Candidate, type PickEnv } from '../packages/server/src/core/routing/strategy-pick.js';
import { sequentialLatency, type Target } from './measure.js';
import type { Proc } from './procs.js';
import { benchRootHeaders, startMock, startTollway } from './targets.js';

const STRATEGIES: readonly RoutingStrategyName[] = ['weighted', 'least_inflight', 'latency', 'lowest_price'];
const CHANNELS = 4;
const ROUNDS = 7;
const CALLS = 300;
const PICKS = 500_000;

const modelOf = (s: RoutingStrategyName) => `bench-route-${s.replace('_', '-')}`;
const bodyOf = (s: RoutingStrategyName) =>
  JSON.stringify({ model: modelOf(s), messages: [{ role: 'user', content: 'Say hello.' }] });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Signs in as the bench's root and returns a caller of the management API. */
async function rootApi(base: string) {
  const headers = await benchRootHeaders(base);
  return async (method: string, url: string, body: unknown) => {
    const res = await fetch(base + url, { method, headers, body: JSON.stringify(body) });
    const j = (await res.json()) as { success: boolean; message: string };
    if (!j.success) throw new Error(`${url}: ${j.message}`);
  };
}

/** A Tollway routing each strategy's model over CHANNELS channels of the mock. */
async function startRoutedTollway(mockUrl: string): Promise<{ target: Target; proc: Proc }> {
  const tw = await startTollway(mockUrl);
  const api = await rootApi(tw.target.url);
  const models = STRATEGIES.map(modelOf);
  for (let i = 0; i < CHANNELS; i++) {
    // Half of them serve the models as a dearer one: lowest_price has a choice to make.
    const mapping = i % 2 ? Object.fromEntries(models.map((m) => [m, `${m}-dear`])) : {};
    await api('POST', '/api/channel/', {
      mode: 'single',
      channel: {
        name: `route-${i}`,
        type: 1,
        key: 'bench-key',
        base_url: mockUrl,
        models: models.join(','),
        group: 'default',
        weight: 1,
        model_mapping: JSON.stringify(mapping),
      },
    });
  }
  const prices = Object.fromEntries(models.flatMap((m) => [[m, 0.001] as const, [`${m}-dear`, 0.002] as const]));
  await api('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify(prices) });
  await api('PUT', '/api/option/', {
    key: 'RoutingStrategy',
    value: JSON.stringify({ default: 'weighted', models: Object.fromEntries(STRATEGIES.map((s) => [modelOf(s), s])) }),
  });
  return tw;
}

/** Each strategy's p50 (1 connection, sequential) and its difference to weighted: medians of ROUNDS alternating rounds. */
export async function routingStrategyLatency(target: Target) {
  for (const s of STRATEGIES) await sequentialLatency(target, bodyOf(s), CALLS, false);
  const p50 = new Map<RoutingStrategyName, number[]>(STRATEGIES.map((s) => [s, []]));
  const added = new Map<RoutingStrategyName, number[]>(STRATEGIES.map((s) => [s, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const round = new Map<RoutingStrategyName, number>();
    // The order turns each round, so no strategy always runs first.
    for (let i = 0; i < STRATEGIES.length; i++) {
      const s = STRATEGIES[(i + r) % STRATEGIES.length]!;
      round.set(s, (await sequentialLatency(target, bodyOf(s), CALLS, false)).p50);
    }
    for (const s of STRATEGIES) {
      p50.get(s)!.push(round.get(s)!);
      added.get(s)!.push(round.get(s)! - round.get('weighted')!);
    }
  }
  return STRATEGIES.map((s) => ({ strategy: s, p50: median(p50.get(s)!), added: median(added.get(s)!) }));
}

/** Nanoseconds per choice inside a tier of CHANNELS channels, in process, per strategy: medians of ROUNDS rounds. */
export function pickCostsNs(): Map<RoutingStrategyName, number> {
  const channels: (Candidate & { cost: number })[] = Array.from({ length: CHANNELS }, (_, i) => ({
    id: i + 1,
    weight: 1,
    multiKey: false,
    keyEnabled: [true],
    cost: i % 2 ? 2 : 1,
  }));
  const load = new ChannelLoad();
  load.track(channels.map((c) => c.id));
  for (const c of channels) load.finished(c.id, 1 + c.id);
  const env: PickEnv<(typeof channels)[number]> = { load, now: Date.now(), costOf: (c) => c.cost };
  const tried = new Set<number>();
  const round = (s: RoutingStrategyName) => {
    let sink = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < PICKS; i++) sink += pickInTier(s, channels, tried, Math.random, undefined, env)!.id;
    const ns = Number(process.hrtime.bigint() - t0) / PICKS;
    if (sink < 0) throw new Error('unreachable');
    return ns;
  };
  const out = new Map<RoutingStrategyName, number>();
  for (const s of STRATEGIES) {
    round(s);
    out.set(s, median(Array.from({ length: ROUNDS }, () => round(s))));
  }
  return out;
}

/** The table rows; the Tollway it starts joins `procs` (stopped by the caller). */
export async function routingStrategyRows(mockUrl: string, procs: Proc[]): Promise<string[]> {
  const tw = await startRoutedTollway(mockUrl);
  procs.push(tw.proc);
  const rows = await routingStrategyLatency(tw.target);
  const weighted = rows.find((r) => r.strategy === 'weighted')!;
  const picks = pickCostsNs();
  return [
    ...rows
      .filter((r) => r.strategy !== 'weighted')
      .map(
        (r) =>
          `| p50 latency with routing strategy ${r.strategy} over weighted, ${CHANNELS} channels in one tier, 1 connection (median over ${ROUNDS} alternating rounds; p50s ${r.p50.toFixed(3)} vs ${weighted.p50.toFixed(3)} ms) | ${r.added >= 0 ? '+' : '−'}${Math.abs(r.added).toFixed(3)} ms | — |`,
      ),
    `| Choice inside a tier of ${CHANNELS} channels, in process: ${STRATEGIES.join(' / ')} (median of ${ROUNDS} rounds of ${PICKS / 1000}k choices) | ${STRATEGIES.map((s) => `${picks.get(s)!.toFixed(0)}`).join(' / ')} ns | — |`,
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const procs: Proc[] = [];
  try {
    const mock = await startMock();
    procs.push(mock.proc);
    for (const row of await routingStrategyRows(mock.url, procs)) console.log(row);
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
}

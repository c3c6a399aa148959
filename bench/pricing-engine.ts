// The pricing engine's cost per settled call, in process: the quota of one call's usage by ratios (today's path) and
// by a billing expression (a two-tier price with cache reads and a request rule, as new-api's console writes it),
// each the median of alternating rounds. `node --import tsx bench/pricing-engine.ts` runs it alone; `npm run bench`
// adds its rows.
import { pathToFileURL } from 'node:url';
import { computeQuota, exprPrice, type Price, type Usage } from '../packages/shared/src/index.js';

const CALLS = 200_000;
const ROUNDS = 7;
const PER_UNIT = 500_000;
const EXPR =
  '(len <= 200000 ? tier("standard", p * 3 + c * 15 + cr * 0.3 + cc * 3.75) : tier("long_context", p * 6 + c * 22.5 + cr * 0.6 + cc * 7.5)) * (param("service_tier") == "priority" ? 2 : 1)';

const ratio: Price = {
  mode: 'ratio',
  modelRatio: 1.5,
  completionRatio: 5,
  cacheRatio: 0.1,
  cacheCreationRatio: 1.25,
  groupRatio: 1,
};
const expr = exprPrice(EXPR, 1, Date.now(), { headers: {}, body: { service_tier: 'default', messages: [] } });

/** Varied usages, so neither path sees one constant input. */
const usages: Usage[] = Array.from({ length: 64 }, (_, i) => ({
  promptTokens: 1_000 + i * 3_517,
  completionTokens: 50 + i * 37,
  cachedTokens: i % 3 === 0 ? 512 : 0,
  cacheCreationTokens: i % 5 === 0 ? 128 : 0,
}));

function round(price: Price): number {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) sink += computeQuota(price, usages[i & 63]!, PER_UNIT);
  const ns = Number(process.hrtime.bigint() - t0) / CALLS;
  if (sink < 0) throw new Error('unreachable');
  return ns;
}

export interface PricingCosts {
  ratioNs: number;
  exprNs: number;
}

/** Nanoseconds per call for each path: medians of ROUNDS alternating rounds after a warm-up. */
export function pricingEngineCosts(): PricingCosts {
  round(ratio);
  round(expr);
  const r: number[] = [];
  const e: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    r.push(round(ratio));
    e.push(round(expr));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { ratioNs: median(r), exprNs: median(e) };
}

/** The rows `npm run bench` adds. */
export function pricingEngineRows(): string[] {
  const c = pricingEngineCosts();
  const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`;
  return [
    `| Price of one settled call, in process: ratios / a two-tier billing expression with cache prices and a request rule (median of ${ROUNDS} alternating rounds of ${CALLS / 1000}k calls) | ${us(c.ratioNs)} / ${us(c.exprNs)} | — |`,
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const c = pricingEngineCosts();
  console.log(`ratio ${c.ratioNs.toFixed(0)} ns, expression ${c.exprNs.toFixed(0)} ns per call`);
}

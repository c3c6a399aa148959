// `npm run bench` rows for metrics and tracing: throughput of a Tollway with metrics served (METRICS_TOKEN) and of
// one exporting every call's spans (OTLP/HTTP to a local sink) over one with both off, alternating in rounds; and
// the relay hooks' own cost per call in process (observability-hooks.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { addedLatency, sequentialLatency, throughput, type Target } from './measure.js';
import { observabilityHookCosts } from './observability-hooks.js';
import type { Proc } from './procs.js';
import { chatBody, startTollway } from './targets.js';

const ROUNDS = 3;
const LATENCY_ROUNDS = 7;
const LATENCY_CALLS = 300;
const METRICS_TOKEN = 'bench-metrics-token-0123456789';

const fmt = (n: number, d = 0) => n.toFixed(d);
const signedMs = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(3)} ms`;

/** Accepts exported spans and keeps nothing. */
async function startOtlpSink(): Promise<{ url: string; close(): void }> {
  const sink = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}`, close: () => sink.close() };
}

/** The median over ROUNDS alternating rounds of `on`'s throughput over `off`'s, with that round's req/s. */
async function throughputRatio(
  on: Target,
  off: Target,
  connections: number,
  seconds: number,
): Promise<{ ratio: number; rps: [number, number] }> {
  for (const t of [on, off]) await throughput(t, chatBody, 16, 2);
  const rounds: [number, number][] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const a = await throughput(on, chatBody, connections, seconds);
    const b = await throughput(off, chatBody, connections, seconds);
    rounds.push([a.rps, b.rps]);
  }
  rounds.sort((x, y) => x[0] / x[1] - y[0] / y[1]);
  const mid = rounds[Math.floor(rounds.length / 2)]!;
  return { ratio: mid[0] / mid[1], rps: mid };
}

/** Process pairs the metrics ratio is measured on. */
export const PAIRS = 4;

/**
 * `on` over `off` measured on PAIRS pairs of fresh processes, started in alternating orders: two identical Tollways
 * differ by up to 20% here (where each lands, how it was compiled), so one pair would mostly measure that. The
 * geometric mean of the pairs' ratios, with each pair's median round.
 */
export async function pairedRatio(
  start: { on: () => Promise<Target>; off: () => Promise<Target> },
  connections: number,
  seconds: number,
) {
  const pairs: { ratio: number; rps: [number, number] }[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const off = i % 2 ? undefined : await start.off();
    const on = await start.on();
    pairs.push(await throughputRatio(on, off ?? (await start.off()), connections, seconds));
  }
  return { ratio: Math.exp(pairs.reduce((s, p) => s + Math.log(p.ratio), 0) / pairs.length), pairs };
}

/** The table rows; the Tollways it starts join `procs` (stopped by the caller). */
export async function observabilityRows(
  mockUrl: string,
  procs: Proc[],
  connections: number,
  seconds: number,
): Promise<string[]> {
  const sink = await startOtlpSink();
  try {
    const tollway = async (name: string, env: Record<string, string> = {}): Promise<Target> => {
      const t = await startTollway(mockUrl, [], undefined, env);
      procs.push(t.proc);
      return { ...t.target, name };
    };
    const offT = await tollway('Tollway, metrics and tracing off');
    const metricsT = await tollway('Tollway, metrics on', { METRICS_TOKEN });
    const tracingT = await tollway('Tollway, tracing on', { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
    const half = seconds / 2;
    const m = await pairedRatio(
      { on: () => tollway('Tollway, metrics on', { METRICS_TOKEN }), off: () => tollway('Tollway, off') },
      connections,
      half,
    );
    for (const t of [metricsT, offT]) await sequentialLatency(t, chatBody, LATENCY_CALLS, false);
    const mLat = await addedLatency(metricsT, offT, chatBody, false, LATENCY_ROUNDS, LATENCY_CALLS);
    const tr = await throughputRatio(tracingT, offT, connections, half);
    const hooks = await observabilityHookCosts();
    return [
      `| Throughput with metrics on (METRICS_TOKEN) ÷ off at ${connections} conns (${PAIRS} process pairs started in alternating orders, geometric mean of each pair's median of ${ROUNDS} alternating rounds of ${half} s; pairs ${m.pairs.map((p) => `${fmt(p.rps[0])} vs ${fmt(p.rps[1])}`).join(', ')} req/s) | ${fmt(m.ratio, 3)} | ≥ 0.97 |`,
      `| p50 latency with metrics on over off, 1 connection (median over ${LATENCY_ROUNDS} alternating rounds; p50s ${fmt(mLat.gatewayP50, 3)} vs ${fmt(mLat.directP50, 3)} ms) | ${signedMs(mLat.added)} | — |`,
      `| Throughput with tracing on (every call's 6 spans exported over OTLP/HTTP to a local sink) ÷ off at ${connections} conns (median of ${ROUNDS} alternating rounds; ${fmt(tr.rps[0])} vs ${fmt(tr.rps[1])} req/s) | ${fmt(tr.ratio, 3)} | — |`,
      `| Relay observability hooks per call, in process, metrics and tracing off (one boolean read each) | ${fmt(hooks.offNs, 1)} ns | ≈ 0 |`,
      `| Relay observability hooks per call, in process, metrics on / metrics and tracing on | ${fmt(hooks.metricsNs)} ns / ${fmt(hooks.tracingNs / 1000, 1)} µs | — |`,
    ];
  } finally {
    sink.close();
  }
}

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
async function throughputRatio(on: Target, off: Target, connections: number, seconds: number): Promise<{ ratio: number; rps: [number, number] }> {
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

/** The table rows; the Tollways it starts join `procs` (stopped by the caller). */
export async function observabilityRows(mockUrl: string, procs: Proc[], connections: number, seconds: number): Promise<string[]> {
  const sink = await startOtlpSink();
  try {
    const off = await startTollway(mockUrl);
    const metricsOn = await startTollway(mockUrl, [], undefined, { METRICS_TOKEN });
    const tracingOn = await startTollway(mockUrl, [], undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url });
    procs.push(off.proc, metricsOn.proc, tracingOn.proc);
    const offT: Target = { ...off.target, name: 'Tollway, metrics and tracing off' };
    const metricsT: Target = { ...metricsOn.target, name: 'Tollway, metrics on' };
    const tracingT: Target = { ...tracingOn.target, name: 'Tollway, tracing on' };
    const half = seconds / 2;
    const m = await throughputRatio(metricsT, offT, connections, half);
    for (const t of [metricsT, offT]) await sequentialLatency(t, chatBody, LATENCY_CALLS, false);
    const mLat = await addedLatency(metricsT, offT, chatBody, false, LATENCY_ROUNDS, LATENCY_CALLS);
    const tr = await throughputRatio(tracingT, offT, connections, half);
    const hooks = await observabilityHookCosts();
    return [
      `| Throughput with metrics on (METRICS_TOKEN) ÷ off at ${connections} conns (median of ${ROUNDS} alternating rounds of ${half} s; ${fmt(m.rps[0])} vs ${fmt(m.rps[1])} req/s) | ${fmt(m.ratio, 3)} | ≥ 0.97 |`,
      `| p50 latency with metrics on over off, 1 connection (median over ${LATENCY_ROUNDS} alternating rounds; p50s ${fmt(mLat.gatewayP50, 3)} vs ${fmt(mLat.directP50, 3)} ms) | ${signedMs(mLat.added)} | — |`,
      `| Throughput with tracing on (every call's 6 spans exported over OTLP/HTTP to a local sink) ÷ off at ${connections} conns (median of ${ROUNDS} alternating rounds; ${fmt(tr.rps[0])} vs ${fmt(tr.rps[1])} req/s) | ${fmt(tr.ratio, 3)} | — |`,
      `| Relay observability hooks per call, in process, metrics and tracing off (one boolean read each) | ${fmt(hooks.offNs, 1)} ns | ≈ 0 |`,
      `| Relay observability hooks per call, in process, metrics on / metrics and tracing on | ${fmt(hooks.metricsNs)} ns / ${fmt(hooks.tracingNs / 1000, 1)} µs | — |`,
    ];
  } finally {
    sink.close();
  }
}

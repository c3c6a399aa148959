// Issue 40's rows: Tollway against the bare Node.js proxy (bench/node-floor-proxy.mjs) measured in the same run, so
// that they hold on any machine. Throughput at 64 connections unpinned and pinned (Tollway and the bare proxy on one
// core of their own, the load generator and the mock on the other), Tollway's CPU per call above the bare proxy's,
// latency at a steady rate of half the bare proxy's saturation, latency at one connection, and a burst of streams
// opened at once. Part of `npm run bench`; alone: `node --import tsx bench/floor-ratios.ts [--record]`.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { burstOf, BURST_STREAMS, type BurstResult } from './burst.js';
import { addedLatency, cpuPerRequest, sequentialLatency, throughput, type Target } from './measure.js';
import type { Proc } from './procs.js';
import { percentile } from './scale-measure.js';
import { ROOT, chatBody, startFloorProxy, startMock, startTollway } from './targets.js';

const CONNECTIONS = 64;
const ROUNDS = 3;
const CPU_ROUNDS = 5;
const ONE_CONNECTION_ROUNDS = 7;
/** The core the proxies get when pinned, and the one the load generator and the mock keep. */
const PROXY_CPU = '1';
const LOAD_CPU = '0';
const ALL_CPUS = `0-${os.cpus().length - 1}`;
/** Ticks of the steady-rate generator: calls due are sent every this many ms. */
const RATE_TICK_MS = 1;
/** Calls of a steady-rate round left out at its start (connections opening). */
const RATE_WARMUP_SHARE = 0.1;

const fmt = (n: number, d = 0) => n.toFixed(d);

/** Sets the cores every thread of these processes may run on (taskset). */
function pin(pids: number[], cpus: string): void {
  for (const pid of pids) execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/**
 * Latency of calls sent at a steady `rate` per second for `seconds` (an open loop: a call is sent when it is due,
 * whether or not earlier ones have been answered), each timed from its sending to its answer's end, over up to
 * CONNECTIONS keep-alive connections. The first RATE_WARMUP_SHARE of the calls is left out.
 */
export async function steadyRateLatency(
  t: Target,
  body: string,
  rate: number,
  seconds: number,
): Promise<{ p50: number; p99: number; p999: number; max: number; failed: number }> {
  const pool = new Pool(t.url, { connections: CONNECTIONS, pipelining: 1 });
  const total = Math.round(rate * seconds);
  const skip = Math.round(total * RATE_WARMUP_SHARE);
  const times: number[] = [];
  const calls: Promise<void>[] = [];
  let failed = 0;
  const one = async (i: number) => {
    const t0 = performance.now();
    try {
      const res = await pool.request({
        method: 'POST',
        path: t.path,
        headers: { 'content-type': 'application/json', ...t.headers },
        body,
      });
      await res.body.dump();
      if (res.statusCode !== 200) failed++;
      else if (i >= skip) times.push(performance.now() - t0);
    } catch {
      failed++;
    }
  };
  const start = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
      while (sent < due) calls.push(one(sent++));
      if (sent < total) setTimeout(tick, RATE_TICK_MS);
      else resolve();
    };
    tick();
  });
  await Promise.all(calls);
  await pool.close();
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    p999: percentile(times, 99.9),
    max: Math.max(...times),
    failed,
  };
}

/** Throughput of `a` over `b` at CONNECTIONS: ROUNDS alternating runs of `seconds`; the median round's figures. */
async function throughputRatio(a: Target, b: Target, seconds: number): Promise<{ ratio: number; rps: number[] }> {
  const rounds: [number, number][] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const x = await throughput(a, chatBody, CONNECTIONS, seconds);
    const y = await throughput(b, chatBody, CONNECTIONS, seconds);
    rounds.push([x.rps, y.rps]);
  }
  rounds.sort((p, q) => p[0] / p[1] - q[0] / q[1]);
  const mid = rounds[Math.floor(rounds.length / 2)]!;
  return { ratio: mid[0] / mid[1], rps: mid };
}

/** CPU µs per call of each process at CONNECTIONS: CPU_ROUNDS alternating runs; the median of each. */
async function cpuPerCallUs(sides: { t: Target; pid: number }[], seconds: number): Promise<number[]> {
  const runs: number[][] = sides.map(() => []);
  for (let r = 0; r < CPU_ROUNDS; r++)
    for (const [i, s] of sides.entries())
      runs[i]!.push((await cpuPerRequest(s.t, chatBody, s.pid, CONNECTIONS, seconds)).cpuMs * 1000);
  return runs.map((xs) => percentile(xs, 50));
}

/** Steady-rate latency of each target: ROUNDS alternating rounds; per target the median of each percentile. */
async function steadyRates(targets: Target[], rate: number, seconds: number) {
  const rounds = targets.map(() => [] as Awaited<ReturnType<typeof steadyRateLatency>>[]);
  for (let r = 0; r < ROUNDS; r++)
    for (const [i, t] of targets.entries()) rounds[i]!.push(await steadyRateLatency(t, chatBody, rate, seconds));
  const median = (rs: Awaited<ReturnType<typeof steadyRateLatency>>[], key: 'p50' | 'p99' | 'p999' | 'max') =>
    percentile(
      rs.map((x) => x[key]),
      50,
    );
  return rounds.map((rs) => ({
    p50: median(rs, 'p50'),
    p99: median(rs, 'p99'),
    p999: median(rs, 'p999'),
    max: median(rs, 'max'),
    failed: rs.reduce((n, x) => n + x.failed, 0),
  }));
}

const burstCell = (b: BurstResult) =>
  `${fmt(b.p50)} / ${fmt(b.p99)}${b.cpuPerStartMs === undefined ? '' : ` (${fmt(b.cpuPerStartMs, 2)} CPU ms per start)`}`;

/** Bursts on the same processes in the warm row: the last one is reported. */
const WARM_BURST_ROUNDS = 3;

/**
 * The burst of BURST_STREAMS streams direct, through the bare proxy and through Tollway; pinned or not; `warm`: the
 * last of WARM_BURST_ROUNDS bursts on the same processes (their paths compiled, as on a node that has been serving),
 * else the first after the warm-up.
 */
async function burstRow(pinned: boolean, warm = false): Promise<string> {
  const saved = process.env.BENCH_PROXY_CPUS;
  if (pinned) {
    process.env.BENCH_PROXY_CPUS = PROXY_CPU;
    pin([process.pid], LOAD_CPU);
  }
  try {
    const rounds = warm ? WARM_BURST_ROUNDS : 1;
    const direct = await burstOf('direct', rounds);
    const floor = await burstOf('floor', rounds);
    const tollway = await burstOf('tollway', rounds);
    const where = pinned
      ? `pinned: the proxy on core ${PROXY_CPU}, the client and the mock on core ${LOAD_CPU}`
      : 'unpinned';
    const how = warm ? `${where}, the last of ${WARM_BURST_ROUNDS} bursts on the same processes` : where;
    return `| A burst of ${BURST_STREAMS} streams opened at once, ${how}: first byte p50 / p99 ms, direct ${burstCell(direct)}, bare proxy ${burstCell(floor)}, Tollway ${burstCell(tollway)}; Tollway's p99 over direct | ${fmt(tollway.p99 - direct.p99)} ms (bare proxy ${fmt(floor.p99 - direct.p99)} ms) | ≤ 100 ms |`;
  } finally {
    if (saved === undefined) delete process.env.BENCH_PROXY_CPUS;
    else process.env.BENCH_PROXY_CPUS = saved;
    if (pinned) pin([process.pid], ALL_CPUS);
  }
}

export interface FloorSetup {
  mockPid: number;
  direct: Target;
  tollway: { t: Target; pid: number };
  floor: { t: Target; pid: number };
}

/** Issue 40's rows (see the file's head), `seconds` per throughput round. */
export async function floorRows(s: FloorSetup, seconds: number): Promise<string[]> {
  const { direct, tollway, floor } = s;
  for (const t of [tollway.t, floor.t]) await throughput(t, chatBody, CONNECTIONS, 2);
  const unpinned = await throughputRatio(tollway.t, floor.t, seconds);
  pin([process.pid, s.mockPid], LOAD_CPU);
  pin([tollway.pid, floor.pid], PROXY_CPU);
  let pinned: Awaited<ReturnType<typeof throughputRatio>>;
  let cpu: number[];
  try {
    pinned = await throughputRatio(tollway.t, floor.t, seconds);
    cpu = await cpuPerCallUs([tollway, floor], seconds / 2);
  } finally {
    pin([process.pid, s.mockPid, tollway.pid, floor.pid], ALL_CPUS);
  }
  // Half the bare proxy's saturation (unpinned, as the steady rate runs).
  const rate = Math.round(unpinned.rps[1]! / 2);
  const [dr, fr, tr] = await steadyRates([direct, floor.t, tollway.t], rate, seconds);
  // And at half of Tollway's own saturation: the added latency of a node kept at half load (docs/operating/sizing.md).
  const ownRate = Math.round(unpinned.rps[0]! / 2);
  const [dOwn, tOwn] = await steadyRates([direct, tollway.t], ownRate, seconds);
  for (const t of [tollway.t, floor.t]) await sequentialLatency(t, chatBody, 300, false);
  const one = await addedLatency(tollway.t, floor.t, chatBody, false, ONE_CONNECTION_ROUNDS, 400);
  const bursts = [await burstRow(false), await burstRow(true), await burstRow(false, true)];
  const failed = dr!.failed + fr!.failed + tr!.failed;
  return [
    `| Throughput at ${CONNECTIONS} conns, Tollway ÷ bare Node.js proxy, unpinned (median of ${ROUNDS} alternating rounds of ${seconds} s; ${fmt(unpinned.rps[0]!)} vs ${fmt(unpinned.rps[1]!)} req/s) | ${fmt(unpinned.ratio, 2)} | ≥ 0.7 |`,
    `| Throughput at ${CONNECTIONS} conns, Tollway ÷ bare Node.js proxy, pinned (each proxy on core ${PROXY_CPU}, load generator and mock on core ${LOAD_CPU}; median of ${ROUNDS} alternating rounds of ${seconds} s; ${fmt(pinned.rps[0]!)} vs ${fmt(pinned.rps[1]!)} req/s) | ${fmt(pinned.ratio, 2)} | ≥ 0.7 |`,
    `| CPU per call above the bare proxy's at ${CONNECTIONS} conns, pinned (median of ${CPU_ROUNDS} alternating rounds of ${seconds / 2} s; Tollway ${fmt(cpu[0]!, 1)} µs, bare proxy ${fmt(cpu[1]!, 1)} µs) | ${fmt(cpu[0]! - cpu[1]!, 1)} µs | ≤ 25 µs |`,
    `| Added latency at a steady ${rate} req/s (half the bare proxy's saturation), Tollway over direct to the mock, p50 / p99 (median of ${ROUNDS} alternating rounds of ${seconds} s; Tollway ${fmt(tr!.p50, 3)} / ${fmt(tr!.p99, 3)}, bare proxy ${fmt(fr!.p50, 3)} / ${fmt(fr!.p99, 3)}, direct ${fmt(dr!.p50, 3)} / ${fmt(dr!.p99, 3)} ms; ${failed} failed) | ${fmt(tr!.p50 - dr!.p50, 3)} / ${fmt(tr!.p99 - dr!.p99, 3)} ms | ≤ 0.15 / ≤ 1 ms |`,
    `| Added latency at a steady ${ownRate} req/s (half Tollway's own saturation), Tollway over direct to the mock, p50 / p99 (median of ${ROUNDS} alternating rounds of ${seconds} s; Tollway ${fmt(tOwn!.p50, 3)} / ${fmt(tOwn!.p99, 3)} (p99.9 ${fmt(tOwn!.p999, 1)}, max ${fmt(tOwn!.max, 1)}), direct ${fmt(dOwn!.p50, 3)} / ${fmt(dOwn!.p99, 3)} (p99.9 ${fmt(dOwn!.p999, 1)}) ms; ${dOwn!.failed + tOwn!.failed} failed) | ${fmt(tOwn!.p50 - dOwn!.p50, 3)} / ${fmt(tOwn!.p99 - dOwn!.p99, 3)} ms | — |`,
    `| Added p50 latency at 1 connection, Tollway over the bare proxy (median over ${ONE_CONNECTION_ROUNDS} alternating rounds; p50s ${fmt(one.gatewayP50, 3)} vs ${fmt(one.directP50, 3)} ms) | ${fmt(one.added, 3)} ms | ≤ 0.08 ms |`,
    ...bursts,
  ];
}

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const procs: Proc[] = [];
  let rows: string[];
  try {
    const mock = await startMock();
    procs.push(mock.proc);
    const tw = await startTollway(mock.url);
    const fl = await startFloorProxy(mock.url);
    procs.push(tw.proc, fl.proc);
    rows = await floorRows(
      {
        mockPid: mock.proc.child.pid!,
        direct: { name: 'Direct to mock', url: mock.url, path: '/v1/chat/completions', headers: {} },
        tollway: { t: tw.target, pid: tw.proc.child.pid! },
        floor: { t: fl.target, pid: fl.proc.child.pid! },
      },
      seconds,
    );
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
  const cpu = `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}`;
  const report = [
    `## ${new Date().toISOString().slice(0, 10)} — against the Node.js floor (issue 40)`,
    '',
    `Machine: ${cpu}, Node ${process.version}. Mock, Tollway, the bare Node.js proxy and the load generator run as separate processes on the same machine.`,
    '',
    '| Row | Value | Target |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
  console.log(report);
  if (!process.argv.includes('--record')) return;
  const file = path.join(ROOT, 'bench/RESULTS.md');
  const [title, intro, ...rest] = fs.readFileSync(file, 'utf8').split('\n\n');
  fs.writeFileSync(file, [title, intro, report.trimEnd(), ...rest].join('\n\n'));
}

if (import.meta.filename === process.argv[1]) await main();

// `npm run bench`: the mock upstream, Tollway (full auth, billing and logging on SQLite) and Portkey's gateway,
// each in its own process, measured in one run. Appends the results with the date to bench/RESULTS.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Proc } from './procs.js';
import { buildBaselineBundle } from './baseline.js';
import { clusterRows } from './cluster.js';
import { nginxRows } from './nginx.js';
import { observabilityRows } from './observability.js';
import { pricingEngineRows } from './pricing-engine.js';
import { routingStrategyRows } from './routing-strategies.js';
import { responseCacheRows } from './response-cache.js';
import { affinityRows } from './affinity.js';
import { runtimeRows } from './runtimes.js';
import { floorRows } from './floor-ratios.js';
import { addedLatency, cpuRatio, sequentialLatency, throughput, type Target, type Throughput } from './measure.js';
import {
  ROOT,
  anthropicBody,
  anthropicStreamBody,
  anthropicTarget,
  chatBody,
  startFloorProxy,
  startMock,
  startPortkey,
  startTollway,
  streamBody,
} from './targets.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 64;
/** A git revision to compare with (e.g. the commit before a change): its Tollway runs beside the current one. */
const BASELINE = process.env.BENCH_BASELINE;
const BASELINE_THROUGHPUT_ROUNDS = 3;
const procs: Proc[] = [];

const fmt = (n: number, d = 0) => n.toFixed(d);
const signed = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(1)}`;

async function main() {
  const mock = await startMock();
  procs.push(mock.proc);
  const mockUrl = mock.url;
  const direct: Target = {
    name: 'Direct to mock',
    url: mockUrl,
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer bench-key' },
  };
  // Portkey first: Tollway goes straight from its start to the measurements. Left idle while Portkey started, V8
  // gave its memory back (MEMORY_RELEASE_IDLE_SECONDS) and the calls that came next ran 0.05–0.2 ms slower for
  // thousands of calls; that cost is in docs/benchmark.md, not in the steady-state rows below.
  const pk0 = await startPortkey(mockUrl);
  const tw0 = await startTollway(mockUrl);
  const floor0 = await startFloorProxy(mockUrl);
  procs.push(tw0.proc, pk0.proc, floor0.proc);
  const tollway = tw0.target;
  const portkey = pk0.target;
  const floor = floor0.target;
  const converted = anthropicTarget(tollway);
  const convertedStream = anthropicTarget(tollway, true);
  const targets = [direct, tollway, converted, convertedStream, floor, portkey];
  const bodyOf = (t: Target) =>
    t === converted ? anthropicBody : t === convertedStream ? anthropicStreamBody : chatBody;
  const tollwayPid = tw0.proc.child.pid!;

  // Latency first, on idle gateways (the throughput runs leave a writer backlog behind), after a warm-up;
  // direct and Tollway alternate in rounds so that load from elsewhere on the machine hits both alike.
  for (const t of [direct, tollway]) await sequentialLatency(t, chatBody, 500, false);
  const lat = await addedLatency(tollway, direct, chatBody, false, 7, 400);
  const ttfb = await addedLatency(tollway, direct, streamBody, true, 5, 300);
  // Warm-up (JIT, connection pools, caches).
  for (const t of targets) await throughput(t, bodyOf(t), 16, 2);
  const tp = new Map<string, Throughput>();
  for (const t of targets) {
    tp.set(t.name, await throughput(t, bodyOf(t), CONNECTIONS, SECONDS));
    console.log(`${t.name}: ${fmt(tp.get(t.name)!.rps)} req/s at ${CONNECTIONS} connections`);
  }
  // Conversion cost: pass-through and converted calls alternate in rounds (median ratio), as the machine's speed drifts.
  const conv = await cpuRatio(
    { target: tollway, body: chatBody, pid: tollwayPid },
    { target: converted, body: anthropicBody, pid: tollwayPid },
    5,
    4,
  );
  const cpuStream = await cpuRatio(
    { target: tollway, body: streamBody, pid: tollwayPid },
    { target: convertedStream, body: anthropicStreamBody, pid: tollwayPid },
    5,
    4,
  );
  // Against the baseline revision: a fresh current Tollway and the baseline's, started alike at the end so the
  // rows above are unaffected; they alternate in rounds, as above.
  let vsBaseline:
    | {
        commit: string;
        lat: Awaited<ReturnType<typeof addedLatency>>;
        ttfb: Awaited<ReturnType<typeof addedLatency>>;
        rpsRatio: number;
        rps: [number, number];
      }
    | undefined;
  if (BASELINE) {
    const { bundle, commit } = await buildBaselineBundle(BASELINE);
    const cur = await startTollway(mockUrl);
    procs.push(cur.proc);
    const base = await startTollway(mockUrl, [], bundle);
    procs.push(base.proc);
    const curTarget = cur.target;
    const baseTarget: Target = { ...base.target, name: `Tollway at ${commit}` };
    for (const t of [curTarget, baseTarget]) await sequentialLatency(t, chatBody, 500, false);
    const lat = await addedLatency(curTarget, baseTarget, chatBody, false, 9, 400);
    const ttfb = await addedLatency(curTarget, baseTarget, streamBody, true, 7, 300);
    // Throughput of both at 64 connections, alternating; the median per-round ratio.
    for (const t of [curTarget, baseTarget]) await throughput(t, chatBody, 16, 2);
    const rounds: [number, number][] = [];
    for (let r = 0; r < BASELINE_THROUGHPUT_ROUNDS; r++) {
      const now = await throughput(curTarget, chatBody, CONNECTIONS, SECONDS / 2);
      const old = await throughput(baseTarget, chatBody, CONNECTIONS, SECONDS / 2);
      rounds.push([now.rps, old.rps]);
    }
    rounds.sort((x, y) => x[0] / x[1] - y[0] / y[1]);
    const mid = rounds[Math.floor(rounds.length / 2)]!;
    vsBaseline = { commit, lat, ttfb, rpsRatio: mid[0] / mid[1], rps: mid };
  }
  // The journal's fsync modes: JOURNAL_FSYNC=always (each call waits for its opening line's fsync) over the
  // default (background fsync), with the journal on a RAM disk (the cost of the step itself, as on a fast disk)
  // and on the data disk.
  const fsyncRows: { where: string; lat: Awaited<ReturnType<typeof addedLatency>> }[] = [];
  for (const [where, dir] of [
    ['a RAM disk (/dev/shm)', '/dev/shm'],
    ['the data disk', os.tmpdir()],
  ] as const) {
    if (!fs.existsSync(dir)) continue;
    const journalDir = (name: string) => fs.mkdtempSync(path.join(dir, `tollway-bench-${name}-`));
    const always = await startTollway(mockUrl, [], undefined, {
      JOURNAL_FSYNC: 'always',
      DATA_DIR: journalDir('always'),
    });
    const interval = await startTollway(mockUrl, [], undefined, { DATA_DIR: journalDir('interval') });
    procs.push(always.proc, interval.proc);
    for (const t of [always.target, interval.target]) await sequentialLatency(t, chatBody, 300, false);
    fsyncRows.push({ where, lat: await addedLatency(always.target, interval.target, chatBody, false, 7, 300) });
    await Promise.all([always.proc.stop(), interval.proc.stop()]);
  }
  // Issue 40's rows: Tollway against the bare Node.js proxy (pinned and not, a steady rate, one connection, a burst).
  const floorRatioRows = await floorRows(
    {
      mockPid: mock.proc.child.pid!,
      direct,
      tollway: { t: tollway, pid: tollwayPid },
      floor: { t: floor, pid: floor0.proc.child.pid! },
    },
    SECONDS,
  );
  // Metrics and tracing on against both off, and the hooks' own cost per call.
  const obsRows = await observabilityRows(mockUrl, procs, CONNECTIONS, SECONDS);
  // The same bundle on Node 24 and on the bench's own Node.
  const runtimes = await runtimeRows(mockUrl, direct, procs, CONNECTIONS, SECONDS);
  const tw = tp.get('Tollway')!;
  const pk = tp.get('Portkey gateway')!;
  const dm = tp.get('Direct to mock')!;
  const fl = tp.get(floor.name)!;
  const date = new Date().toISOString().slice(0, 10);
  const cpu = `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}`;
  const report = [
    `## ${date} — gateway core (OpenAI chat, non-streamed and streamed)`,
    '',
    `Machine: ${cpu}, Node ${process.version}. Mock, Tollway, Portkey, a bare Node.js proxy (bench/node-floor-proxy.mjs) and the load generator (autocannon) run as separate processes on the same machine; ${SECONDS} s per throughput run after a warm-up.`,
    '',
    `| Target | req/s at ${CONNECTIONS} conns | p50 ms | p99 ms | errors / non-2xx |`,
    '|---|---|---|---|---|',
    ...targets.map((t) => {
      const r = tp.get(t.name)!;
      return `| ${t.name} | ${fmt(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} / ${r.non2xx} |`;
    }),
    '',
    `| Ratio | Value | Target |`,
    '|---|---|---|',
    `| Tollway ÷ Portkey throughput | ${fmt(tw.rps / pk.rps, 2)}× | ≥ 10× |`,
    // What one Node.js process can relay at all with this stack bounds any ratio a single Tollway reaches.
    `| Bare Node.js proxy ÷ Portkey throughput (the ceiling of a single Node.js process with Tollway's HTTP stack) | ${fmt(fl.rps / pk.rps, 2)}× | — |`,
    `| Tollway ÷ bare Node.js proxy throughput | ${fmt(tw.rps / fl.rps, 2)} | — |`,
    `| Tollway ÷ direct throughput | ${fmt(tw.rps / dm.rps, 2)} | — |`,
    `| Added p50 latency, 1 connection (median over 7 alternating rounds; p50s ${fmt(lat.gatewayP50, 3)} vs ${fmt(lat.directP50, 3)} ms) | ${fmt(lat.added, 3)} ms | ≤ 0.25 ms |`,
    `| CPU per request, Anthropic in → OpenAI upstream vs pass-through (median of 5 alternating rounds; ${fmt(conv.bMs, 3)} vs ${fmt(conv.aMs, 3)} ms) | ${signed((conv.ratio - 1) * 100)}% | ≤ +20% |`,
    `| CPU per request, streamed, Anthropic in → OpenAI upstream vs pass-through (median of 5 alternating rounds; ${fmt(cpuStream.bMs, 3)} vs ${fmt(cpuStream.aMs, 3)} ms) | ${signed((cpuStream.ratio - 1) * 100)}% | ≤ +20% |`,
    `| Added time to first byte, streamed, 1 connection (median over 5 alternating rounds; p50s ${fmt(ttfb.gatewayP50, 3)} vs ${fmt(ttfb.directP50, 3)} ms) | ${fmt(ttfb.added, 3)} ms | ≤ 0.5 ms |`,
    ...(vsBaseline
      ? [
          `| p50 latency over the baseline ${vsBaseline.commit}, 1 connection (median over 9 alternating rounds; p50s ${fmt(vsBaseline.lat.gatewayP50, 3)} vs ${fmt(vsBaseline.lat.directP50, 3)} ms) | ${vsBaseline.lat.added >= 0 ? '+' : '−'}${fmt(Math.abs(vsBaseline.lat.added), 3)} ms | ≤ +0.05 ms |`,
          `| Throughput ÷ the baseline ${vsBaseline.commit}'s at ${CONNECTIONS} conns (median of ${BASELINE_THROUGHPUT_ROUNDS} alternating rounds of ${SECONDS / 2} s; ${fmt(vsBaseline.rps[0])} vs ${fmt(vsBaseline.rps[1])} req/s) | ${fmt(vsBaseline.rpsRatio, 3)} | — |`,
          `| Time to first byte over the baseline ${vsBaseline.commit}, streamed (median over 7 alternating rounds; p50s ${fmt(vsBaseline.ttfb.gatewayP50, 3)} vs ${fmt(vsBaseline.ttfb.directP50, 3)} ms) | ${vsBaseline.ttfb.added >= 0 ? '+' : '−'}${fmt(Math.abs(vsBaseline.ttfb.added), 3)} ms | — |`,
        ]
      : []),
    ...floorRatioRows,
    ...fsyncRows.map(
      (r) =>
        `| p50 latency with JOURNAL_FSYNC=always over the default, journal on ${r.where} (median over 7 alternating rounds; p50s ${fmt(r.lat.gatewayP50, 3)} vs ${fmt(r.lat.directP50, 3)} ms) | ${r.lat.added >= 0 ? '+' : '−'}${fmt(Math.abs(r.lat.added), 3)} ms | — |`,
    ),
    ...obsRows,
    ...pricingEngineRows(),
    ...(await routingStrategyRows(mockUrl, procs)),
    ...(await responseCacheRows(mockUrl, procs)),
    ...(await affinityRows()),
    ...runtimes,
    ...(await nginxRows(mockUrl, tollway, CONNECTIONS, SECONDS)),
    ...(await clusterRows(
      { url: mockUrl, pid: mock.proc.child.pid! },
      tollway,
      tollwayPid,
      direct,
      CONNECTIONS,
      SECONDS,
    )),
    '',
  ].join('\n');
  console.log(`\n${report}`);
  const file = path.join(ROOT, 'bench/RESULTS.md');
  const head = fs.existsSync(file)
    ? fs.readFileSync(file, 'utf8')
    : '# Benchmark results\n\nProduced by `npm run bench`; newest first.\n\n';
  const [title, ...rest] = head.split('\n\n');
  fs.writeFileSync(
    file,
    `${title}\n\n${rest[0] ?? ''}\n\n${report}\n${rest.slice(1).join('\n\n')}`.replace(/\n{3,}/g, '\n\n'),
  );
}

try {
  await main();
} finally {
  await Promise.all(procs.map((p) => p.stop()));
}

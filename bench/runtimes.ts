// `npm run bench` rows for the Node.js runtimes: the same Tollway bundle run by Node 24 (the registry's LTS binary,
// scripts/lts-node.mjs) and by the Node that runs the bench (20 on these machines), throughput on pairs of fresh
// processes and latency in alternating rounds, as the observability rows are measured.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ltsNodeDir } from '../scripts/lts-node.mjs';
import { addedLatency, sequentialLatency, throughput, type Target } from './measure.js';
import { PAIRS, pairedRatio } from './observability.js';
import type { Proc } from './procs.js';
import { chatBody, startTollway, streamBody } from './targets.js';

const LATENCY_ROUNDS = 7;
const LATENCY_CALLS = 300;

const fmt = (n: number, d = 0) => n.toFixed(d);
const signedMs = (n: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(3)} ms`;

/** The table rows; the Tollways it starts join `procs` (stopped by the caller). */
export async function runtimeRows(
  mockUrl: string,
  direct: Target,
  procs: Proc[],
  connections: number,
  seconds: number,
): Promise<string[]> {
  const lts = path.join(ltsNodeDir(), 'bin', 'node');
  const ltsVersion = execFileSync(lts, ['-v'], { encoding: 'utf8' }).trim();
  const here = process.version;
  if (ltsVersion.split('.')[0] === here.split('.')[0])
    return [`| Node ${ltsVersion} ÷ Node ${here} | — (the bench already runs on Node ${here}) | — |`];
  const tollway = async (node: string, name: string): Promise<Target> => {
    const t = await startTollway(mockUrl, [], undefined, {}, node);
    procs.push(t.proc);
    return { ...t.target, name };
  };
  const half = seconds / 2;
  const tp = await pairedRatio(
    { on: () => tollway(lts, `Tollway on ${ltsVersion}`), off: () => tollway(process.execPath, `Tollway on ${here}`) },
    connections,
    half,
  );
  const onLts = await tollway(lts, `Tollway on ${ltsVersion}`);
  const onHere = await tollway(process.execPath, `Tollway on ${here}`);
  for (const t of [direct, onLts, onHere]) await sequentialLatency(t, chatBody, LATENCY_CALLS, false);
  const latLts = await addedLatency(onLts, direct, chatBody, false, LATENCY_ROUNDS, LATENCY_CALLS);
  const latHere = await addedLatency(onHere, direct, chatBody, false, LATENCY_ROUNDS, LATENCY_CALLS);
  const ttfbLts = await addedLatency(onLts, direct, streamBody, true, LATENCY_ROUNDS, LATENCY_CALLS);
  const ttfbHere = await addedLatency(onHere, direct, streamBody, true, LATENCY_ROUNDS, LATENCY_CALLS);
  const single = async (t: Target) => (await throughput(t, chatBody, connections, half)).rps;
  const rps = { lts: await single(onLts), here: await single(onHere) };
  return [
    `| Throughput, Tollway on Node ${ltsVersion} ÷ on Node ${here} at ${connections} conns (${PAIRS} process pairs started in alternating orders, geometric mean of each pair's median round of ${half} s; pairs ${tp.pairs.map((p) => `${fmt(p.rps[0])} vs ${fmt(p.rps[1])}`).join(', ')} req/s) | ${fmt(tp.ratio, 3)} | — |`,
    `| req/s at ${connections} conns, one run each after the pairs: Node ${ltsVersion} / Node ${here} | ${fmt(rps.lts)} / ${fmt(rps.here)} | — |`,
    `| Added p50 latency over direct, 1 connection, Node ${ltsVersion} / Node ${here} (median over ${LATENCY_ROUNDS} alternating rounds each) | ${signedMs(latLts.added)} / ${signedMs(latHere.added)} | ≤ 0.25 ms |`,
    `| Added time to first byte over direct, streamed, Node ${ltsVersion} / Node ${here} (median over ${LATENCY_ROUNDS} alternating rounds each) | ${signedMs(ttfbLts.added)} / ${signedMs(ttfbHere.added)} | ≤ 0.5 ms |`,
  ];
}

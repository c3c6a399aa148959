// Developer tool: Tollway's CPU per request against a baseline revision's, the two alternating in rounds (CPU per
// request repeats better than req/s on a shared machine). `node --import tsx bench/cpu-vs-baseline.ts <rev> [rounds]
// [seconds] [connections]`; not part of `npm run bench`.
import { buildBaselineBundle } from './baseline.js';
import { cpuRatio, throughput } from './measure.js';
import { chatBody, startMock, startTollway, streamBody } from './targets.js';

const [rev, rounds = '7', seconds = '4', connections = '64'] = process.argv.slice(2);
if (!rev) throw new Error('usage: bench/cpu-vs-baseline.ts <git revision> [rounds] [seconds] [connections]');
const { bundle, commit } = await buildBaselineBundle(rev);
const mock = await startMock();
const current = await startTollway(mock.url);
const baseline = await startTollway(mock.url, [], bundle);
try {
  for (const [name, body] of [
    ['plain', chatBody],
    ['streamed', streamBody],
  ] as const) {
    for (const t of [current, baseline]) await throughput(t.target, body, 16, 2);
    const r = await cpuRatio(
      { target: baseline.target, body, pid: baseline.proc.child.pid! },
      { target: current.target, body, pid: current.proc.child.pid! },
      Number(rounds),
      Number(seconds),
      Number(connections),
    );
    console.log(
      `${name}, ${connections} conns: CPU per request ${r.bMs.toFixed(4)} vs ${commit} ${r.aMs.toFixed(4)} ms; median ratio ${r.ratio.toFixed(3)} (rounds: ${r.ratios.map((x) => x.toFixed(3)).join(' ')})`,
    );
  }
} finally {
  await Promise.all([current.proc.stop(), baseline.proc.stop(), mock.proc.stop()]);
}

// Developer tool: Tollway's CPU per request against a baseline revision's, the two alternating in rounds (CPU per
// request repeats better than req/s on a shared machine). `node --import tsx bench/cpu-vs-baseline.ts <rev> [rounds]
// [seconds] [connections]`; not part of `npm run bench`.
import { buildBaselineBundle } from './baseline.js';
import { cpuPerRequest, throughput } from './measure.js';
import { percentile } from './scale-measure.js';
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
    const ratios: number[] = [];
    const cur: number[] = [];
    const base: number[] = [];
    for (let r = 0; r < Number(rounds); r++) {
      const a = await cpuPerRequest(current.target, body, current.proc.child.pid!, Number(connections), Number(seconds));
      const b = await cpuPerRequest(baseline.target, body, baseline.proc.child.pid!, Number(connections), Number(seconds));
      ratios.push(a.cpuMs / b.cpuMs);
      cur.push(a.cpuMs);
      base.push(b.cpuMs);
    }
    const m = percentile(ratios, 50);
    console.log(
      `${name}, ${connections} conns: CPU per request ${percentile(cur, 50).toFixed(4)} vs ${commit} ${percentile(base, 50).toFixed(4)} ms; median ratio ${m.toFixed(3)} (rounds: ${ratios.map((x) => x.toFixed(3)).join(' ')})`,
    );
  }
} finally {
  await Promise.all([current.proc.stop(), baseline.proc.stop(), mock.proc.stop()]);
}

// Developer tool: CPU profile of Tollway serving sequential (1 connection) chat calls against the mock.
// `node --import tsx bench/profile-latency.ts [n]` writes a .cpuprofile to $PROFILE_DIR (default /tmp/prof) and
// prints the hottest functions by self time; not part of `npm run bench`.
import fs from 'node:fs';
import path from 'node:path';
import { startTollway, startMock, chatBody } from './targets.js';
import { sequentialLatency } from './measure.js';
import { topSelfTime } from './cpuprofile.js';

const n = Number(process.argv[2] ?? 3000);
const dir = process.env.PROFILE_DIR ?? '/tmp/prof';
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const { url: mockUrl, proc: mock } = await startMock();
const t0 = Date.now();
const { target, proc } = await startTollway(mockUrl, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
let skipMs = 0;
try {
  await sequentialLatency(target, chatBody, 500, false);
  // Everything before this point (start-up, setup calls, warm-up) stays out of the listing.
  skipMs = Date.now() - t0;
  const lat = await sequentialLatency(target, chatBody, n, false);
  const direct = await sequentialLatency({ name: 'direct', url: mockUrl, path: '/v1/chat/completions', headers: { authorization: 'Bearer x' } }, chatBody, n, false);
  console.log(`p50 tollway ${lat.p50.toFixed(3)} ms, direct ${direct.p50.toFixed(3)} ms, added ${(lat.p50 - direct.p50).toFixed(3)} ms`);
} finally {
  await proc.stop();
  await mock.stop();
}
// The main thread's profile is the largest of the files this run wrote (tsx's loader thread writes one too).
const file = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f)).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
if (file) for (const line of topSelfTime(JSON.parse(fs.readFileSync(file, 'utf8')), 45, skipMs)) console.log(line);

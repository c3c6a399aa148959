// Developer tool: CPU profile of Tollway serving sequential (1 connection) chat calls against the mock.
// `node --import tsx bench/profile-latency.ts [n] [openai|anthropic|anthropic-stream] [sqlite|cluster]` writes a .cpuprofile to
// $PROFILE_DIR (default /tmp/prof) and prints the hottest functions by self time; `cluster` runs Tollway on PostgreSQL +
// Redis (a database and key prefix of its own, removed afterwards). Not part of `npm run bench`.
import fs from 'node:fs';
import { anthropicBody, anthropicStreamBody, anthropicTarget, chatBody, startMock, startTollway } from './targets.js';
import { sequentialLatency } from './measure.js';
import { printLargestProfile } from './cpuprofile.js';
import { clusterEnv } from './cluster.js';

const n = Number(process.argv[2] ?? 3000);
// `anthropic`: the same calls in Anthropic's API, converted to the OpenAI upstream and back.
const mode = process.argv[3] ?? 'openai';
const converted = mode.startsWith('anthropic');
const dir = process.env.PROFILE_DIR ?? '/tmp/prof';
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const { url: mockUrl, proc: mock } = await startMock();
const cluster = process.argv[4] === 'cluster' ? await clusterEnv() : undefined;
const t0 = Date.now();
const { target: plain, proc } = await startTollway(
  mockUrl,
  ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  undefined,
  cluster?.env,
);
let skipMs: number;
const target = converted ? anthropicTarget(plain, mode === 'anthropic-stream') : plain;
const body = mode === 'anthropic-stream' ? anthropicStreamBody : converted ? anthropicBody : chatBody;
try {
  await sequentialLatency(target, body, 500, false);
  // Everything before this point (start-up, setup calls, warm-up) stays out of the listing.
  skipMs = Date.now() - t0;
  const lat = await sequentialLatency(target, body, n, false);
  const direct = await sequentialLatency(
    { name: 'direct', url: mockUrl, path: '/v1/chat/completions', headers: { authorization: 'Bearer x' } },
    chatBody,
    n,
    false,
  );
  console.log(
    `p50 tollway ${lat.p50.toFixed(3)} ms, direct ${direct.p50.toFixed(3)} ms, added ${(lat.p50 - direct.p50).toFixed(3)} ms`,
  );
} finally {
  await proc.stop();
  await mock.stop();
  await cluster?.drop();
}
printLargestProfile(dir, 45, skipMs);

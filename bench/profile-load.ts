// Developer tool: CPU profile of Tollway under load (16 connections, autocannon) for one kind of call, and the
// process's user and system CPU per request. `node --import tsx bench/profile-load.ts [seconds] [openai|anthropic|openai-stream|anthropic-stream] [sqlite|cluster]`
// writes a .cpuprofile to $PROFILE_DIR (default /tmp/prof); NO_PROFILE=1 only measures, EXTRA_NODE_ARGS go to
// Tollway's node (e.g. --no-turbo-inlining for exact attribution); `cluster` runs Tollway on PostgreSQL + Redis (a
// database and key prefix of its own, removed afterwards); PROFILE_REV=<rev> profiles that git revision's bundle
// instead of the working tree's. Not part of `npm run bench`.
import fs from 'node:fs';
import { throughput } from './measure.js';
import {
  anthropicBody,
  anthropicStreamBody,
  anthropicTarget,
  chatBody,
  startMock,
  startTollway,
  streamBody,
} from './targets.js';
import { printLargestProfile } from './cpuprofile.js';
import { clusterEnv } from './cluster.js';
import { buildBaselineBundle } from './baseline.js';

const seconds = Number(process.argv[2] ?? 8);
const mode = process.argv[3] ?? 'openai';
const dir = process.env.PROFILE_DIR ?? '/tmp/prof';
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const { url: mockUrl, proc: mock } = await startMock();
const cluster = process.argv[4] === 'cluster' ? await clusterEnv() : undefined;
const t0 = Date.now();
const { target: plain, proc } = await startTollway(
  mockUrl,
  [
    ...(process.env.NO_PROFILE ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`]),
    ...(process.env.EXTRA_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ],
  process.env.PROFILE_REV ? (await buildBaselineBundle(process.env.PROFILE_REV)).bundle : undefined,
  cluster?.env,
);
const streamed = mode.endsWith('-stream');
const target = mode.startsWith('anthropic') ? anthropicTarget(plain, streamed) : plain;
const body = mode.startsWith('anthropic')
  ? streamed
    ? anthropicStreamBody
    : anthropicBody
  : streamed
    ? streamBody
    : chatBody;
const ticks = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(f[11]) * 10, system: Number(f[12]) * 10 };
};
let skipMs: number;
try {
  await throughput(target, body, 16, 3);
  skipMs = Date.now() - t0;
  const before = ticks(proc.child.pid!);
  const r = await throughput(target, body, 16, seconds);
  const after = ticks(proc.child.pid!);
  const n = r.rps * seconds;
  console.log(
    `${mode}: ${r.rps.toFixed(0)} req/s; CPU per request user ${(((after.user - before.user) / n) * 1000).toFixed(1)} µs, system ${(((after.system - before.system) / n) * 1000).toFixed(1)} µs`,
  );
} finally {
  await proc.stop();
  await mock.stop();
  await cluster?.drop();
}
printLargestProfile(dir, 30, skipMs);

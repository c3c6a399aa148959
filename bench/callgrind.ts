// Developer tool: instructions per relayed call, counted by valgrind's callgrind on the server bundle (repeatable on
// a busy machine, where wall-clock figures are not). Tollway starts under callgrind with collection off, takes a
// warm-up, then exactly `calls` calls with collection on; the total over the calls is printed and the profile kept
// for callgrind_annotate. Not part of `npm run bench`.
// `node --import tsx bench/callgrind.ts [calls] [openai|openai-stream|anthropic|anthropic-stream] [sqlite|cluster|floor]`
// `floor` counts the bare Node.js proxy (bench/node-floor-proxy.mjs: node:http in, undici out) on the same calls
// instead of Tollway: Tollway's count less the floor's is its own work per call.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { serverBundle } from '../scripts/server-build.mjs';
import { buildBaselineBundle } from './baseline.js';
import { clusterEnv } from './cluster.js';
import pg from 'pg';
import { loadSqliteDriver } from '../packages/server/src/db/sqlite-driver.js';
import { freePort, start, type Proc } from './procs.js';
import type { Target } from './measure.js';
import {
  anthropicBody,
  anthropicStreamBody,
  anthropicTarget,
  chatBody,
  startMock,
  startTollway,
  streamBody,
} from './targets.js';

const calls = Number(process.argv[2] ?? 2000);
const mode = process.argv[3] ?? 'openai';
const where = process.argv[4] ?? 'sqlite';
// CALLGRIND_WARMUP: more warm-up calls when the machine is busy (V8 still compiling in the counted window).
const WARMUP_CALLS = Number(process.env.CALLGRIND_WARMUP) || 2000;
const CONNECTIONS = 8;
const START_TIMEOUT_MS = 20 * 60_000;
/** A git revision to count instead of the working tree (its bundle built apart: comparable before/after pairs). */
const rev = process.env.CALLGRIND_REV;
const out = path.join(process.env.PROFILE_DIR ?? '/tmp/callgrind', `${mode}-${where}${rev ? `-${rev}` : ''}.out`);
fs.mkdirSync(path.dirname(out), { recursive: true });
for (const f of fs.readdirSync(path.dirname(out)))
  if (f.startsWith(path.basename(out))) fs.rmSync(path.join(path.dirname(out), f));

/** `n` calls over CONNECTIONS keep-alive connections; throws on any answer but 200. */
async function load(t: Target, body: string, n: number): Promise<void> {
  const pool = new Pool(t.url, { connections: CONNECTIONS });
  let left = n;
  const worker = async () => {
    while (left-- > 0) {
      const res = await pool.request({
        method: 'POST',
        path: t.path,
        headers: { 'content-type': 'application/json', ...t.headers },
        body,
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  await pool.close();
}

/**
 * Writer batches committed so far. The writer applies a batch every 200 ms of wall-clock time, so how many calls
 * share one batch (and its fixed cost) depends on how fast the machine ran the calls: printed with the count.
 */
async function batchesApplied(env: Record<string, string>): Promise<number> {
  if (env.SQL_DSN) {
    const c = new pg.Client({ connectionString: env.SQL_DSN });
    await c.connect();
    try {
      return Number((await c.query('SELECT count(*) AS n FROM writer_batches')).rows[0].n);
    } finally {
      await c.end();
    }
  }
  const Sqlite = await loadSqliteDriver();
  const db = new Sqlite(env.SQLITE_PATH!, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM writer_batches').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

let batches = 0;

/** Runs Tollway under callgrind for the warm-up and the counted calls; stops everything it started. */
async function countCalls(): Promise<void> {
  const { url, proc: mock } = await startMock();
  if (where === 'floor') return countFloor(url, mock);
  const cluster = where === 'cluster' ? await clusterEnv() : undefined;
  let proc: Proc | undefined;
  try {
    // Set up (root, channel, token) by a plain Tollway, then the same database served by one under callgrind, with
    // instrumentation off until the warm-up is done (start-up under valgrind takes minutes: no start timeout to meet).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-callgrind-'));
    const env = {
      SQLITE_PATH: path.join(dir, 'tollway.db'),
      DATA_DIR: dir,
      SESSION_SECRET: 'bench-secret-0123456789abcdef0123',
      LOG_LEVEL: 'info',
      WEB_DIST: '/nonexistent',
      ...cluster?.env,
    };
    const bundle = rev ? (await buildBaselineBundle(rev)).bundle : serverBundle;
    const setup = await startTollway(url, [], rev ? bundle : undefined, env);
    await setup.proc.stop();
    const port = await freePort();
    // One profile per thread: the main thread's count (the event loop's work) apart from GC and compiler threads.
    const valgrind = [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--separate-threads=yes',
      `--callgrind-out-file=${out}`,
      process.execPath,
      // CALLGRIND_NODE_ARGS: e.g. `--perf-basic-prof --no-turbo-inlining`, whose /tmp/perf-<pid>.map names the JIT
      // code callgrind shows as bare addresses (bench/callgrind-names.py).
      ...(process.env.CALLGRIND_NODE_ARGS ?? '').split(' ').filter(Boolean),
      bundle,
    ];
    proc = await start('valgrind', valgrind, { ...env, PORT: String(port) }, /tollway started/, START_TIMEOUT_MS);
    const plain: Target = { ...setup.target, url: `http://127.0.0.1:${port}` };
    const streamed = mode.endsWith('-stream');
    const target = mode.startsWith('anthropic') ? anthropicTarget(plain, streamed) : plain;
    const body = mode.startsWith('anthropic')
      ? streamed
        ? anthropicStreamBody
        : anthropicBody
      : streamed
        ? streamBody
        : chatBody;
    await load(target, body, WARMUP_CALLS);
    const pid = String(proc.child.pid);
    const batchesBefore = await batchesApplied(env);
    execFileSync('callgrind_control', ['-i', 'on', pid]);
    await load(target, body, calls);
    execFileSync('callgrind_control', ['-d', pid]);
    execFileSync('callgrind_control', ['-i', 'off', pid]);
    batches = (await batchesApplied(env)) - batchesBefore;
  } finally {
    await proc?.stop();
    await mock.stop();
    await cluster?.drop();
  }
}

/** The bare proxy under callgrind, counted the same way (no database: no writer batches). */
async function countFloor(url: string, mock: Proc): Promise<void> {
  let proc: Proc | undefined;
  try {
    const port = await freePort();
    proc = await start(
      'valgrind',
      [
        '--tool=callgrind',
        '--instr-atstart=no',
        '--separate-threads=yes',
        `--callgrind-out-file=${out}`,
        process.execPath,
        path.join(import.meta.dirname, 'node-floor-proxy.mjs'),
      ],
      { PORT: String(port), UPSTREAM_URL: url },
      /floor proxy listening/,
      START_TIMEOUT_MS,
    );
    const target: Target = {
      name: 'floor',
      url: `http://127.0.0.1:${port}`,
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer bench-key' },
    };
    const body = mode.endsWith('-stream') ? streamBody : chatBody;
    await load(target, body, WARMUP_CALLS);
    const pid = String(proc.child.pid);
    execFileSync('callgrind_control', ['-i', 'on', pid]);
    await load(target, body, calls);
    execFileSync('callgrind_control', ['-d', pid]);
    execFileSync('callgrind_control', ['-i', 'off', pid]);
  } finally {
    await proc?.stop();
    await mock.stop();
  }
}

await countCalls();
// The dump taken after the counted calls (`<out>.1-<thread>`); the one written at exit holds nothing of them.
const dumps = fs.readdirSync(path.dirname(out)).filter((f) => f.startsWith(`${path.basename(out)}.1-`));
let total = 0;
let main = 0;
let timers = 0;
for (const f of dumps) {
  const m = /^(?:summary|totals): (\d+)/m.exec(fs.readFileSync(path.join(path.dirname(out), f), 'utf8'));
  total += Number(m?.[1] ?? 0);
  // The first thread is the main one (the event loop).
  if (f.endsWith('.1-01')) {
    main += Number(m?.[1] ?? 0);
    timers += timersPhase(path.join(path.dirname(out), f));
  }
}
/**
 * Instructions in the event loop's timers phase (uv__run_timers, inclusive): where the writer's batches start. On
 * SQLite a batch runs in slices of about 1 ms, the later ones from the check phase (setImmediate): the timers phase
 * holds each batch's first slice, all of a small batch. How many calls share a batch follows wall-clock time (the
 * load on the machine), so compare runs with similar calls per batch.
 */
function timersPhase(dump: string): number {
  const text = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dump], {
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
  const line = text.split('\n').find((l) => l.includes(':uv__run_timers '));
  return Number(line?.trim().split(' ')[0]?.replaceAll(',', '') ?? 0);
}

const per = (n: number) => Math.round(n / calls).toLocaleString('en');
console.log(
  `${mode} on ${where}${rev ? ` at ${rev}` : ''}: ${calls} calls; instructions per call ${per(main)} on the main thread, ${per(total)} in all threads; ` +
    `about ${batches} writer batches in the window (${batches ? Math.round(calls / batches) : '—'} calls per batch); ` +
    `${per(main - timers)} per call on the main thread outside the timers phase (the writer's batches' first slices: ${per(timers)})`,
);

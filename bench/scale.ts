// The scale rows of issue 17, each runnable alone: `node --import tsx bench/scale.ts [--only concurrency|idle|long|h2]
// [--record]`. Each starts its own streaming mock (bench/stream-mock-server.ts) and Tollway (the production bundle,
// SQLite, full auth, billing and logging), and measures Tollway's process:
// - concurrency: SCALE_STREAMS (default 1000,5000) concurrent 10-second streams through one channel: first byte
//   p50/p99 against one stream's alone, peak RSS, streams lost, billing exact (balance = start − Σ consume logs);
// - idle: SCALE_IDLE (default 10000) keep-alive client connections that made one call each and stay idle: RSS
//   right after they opened and once Tollway has been idle long enough to give unused memory back;
// - long: one stream of SCALE_LONG_CHUNKS (default 100000) chunks, SCALE_LONG_CHUNK_MS (default 1) apart (the
//   issue's 30 minutes is 18 ms apart), RSS sampled along it;
// - h2: the upstream agent in HTTP/1.1 and HTTP/2 to a TLS upstream (bench/h2-upstream.ts).
// Prints the rows; --record prepends them to bench/RESULTS.md with the date and the machine.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { loadSqliteDriver } from '../packages/server/src/db/sqlite-driver.js';
import { h2Rows, h2Table } from './h2-upstream.js';
import { processCpuSeconds, type Target } from './measure.js';
import type { Proc } from './procs.js';
import { CpuMeter, mb, percentile, RssSampler, rssOf } from './scale-measure.js';
import { ROOT, startTollway } from './targets.js';
import { startStreamMock, streamCall, type StreamResult } from './streams.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STREAM_CHUNKS = 10;
const STREAM_CHUNK_MS = 1000;
const SCALES = (process.env.SCALE_STREAMS ?? '1000,5000').split(',').map(Number);
/**
 * The concurrent streams start evenly over this many ms (all open together once started: each lasts 10 s). Every
 * call costs the relay some CPU before its first byte, so calls started in the same instant measure that burst's
 * queue; SCALE_RAMP_MS=0 measures it.
 */
const RAMP_MS = Number(process.env.SCALE_RAMP_MS ?? 5000);
/** Streams run at once before measuring (JIT, pools), and their number. */
const WARMUP_STREAMS = 100;
const IDLE = Number(process.env.SCALE_IDLE ?? 10_000);
const LONG_CHUNKS = Number(process.env.SCALE_LONG_CHUNKS ?? 100_000);
const LONG_CHUNK_MS = Number(process.env.SCALE_LONG_CHUNK_MS ?? 1);
/** Single streams measured alone before the concurrent run (the median is the reference first byte). */
const SINGLES = 5;
/** Idle connections opened at once. */
const IDLE_BATCH = 500;
/**
 * How long Tollway sits idle (after start, then with the connections open) before RSS is read: two of its idle-memory
 * windows (MEMORY_RELEASE_IDLE_SECONDS, default 10 s; the window in which the connections opened was busy) and a few
 * seconds.
 */
const IDLE_SETTLE_MS = Number(process.env.SCALE_IDLE_SETTLE_MS ?? 25_000);
/** How long the writer may take to commit every call's log after the streams end. */
const BILLING_WAIT_MS = 60_000;
const POLL_MS = 200;
/** File descriptors per concurrent stream in Tollway: the client's connection and the upstream one. */
const FDS_PER_STREAM = 2;
/** Open files a process needs besides its sockets (databases, logs, the journal, epoll). */
const FD_SPARE = Number(process.env.SCALE_FD_SPARE ?? 1000);
const CLIENT_TIMEOUT_MS = 600_000;
/** Extra node options for Tollway's process (a developer's probe, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`). */
const NODE_ARGS = (process.env.SCALE_TOLLWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const record = process.argv.includes('--record');
const procs: Proc[] = [];

/** The streaming mock in its own process with these chunks. */
async function startStreamMockProc(chunks: number, chunkMs: number): Promise<{ url: string; pid: number }> {
  const { url, proc } = await startStreamMock(chunks, chunkMs);
  procs.push(proc);
  return { url, pid: proc.child.pid! };
}

/** Tollway on its own SQLite file (read here for billing) against `mockUrl`. */
async function tollwayOn(mockUrl: string): Promise<{ target: Target; pid: number; db: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-scale-'));
  const db = path.join(dir, 'tollway.db');
  const tw = await startTollway(mockUrl, NODE_ARGS, undefined, { SQLITE_PATH: db, DATA_DIR: dir });
  procs.push(tw.proc);
  return { target: tw.target, pid: tw.proc.child.pid!, db };
}

/** Consume logs and the user's balance once the writer has committed `calls` logs (or the wait is over). */
async function billing(
  dbFile: string,
  calls: number,
  startQuota: number,
): Promise<{ logs: number; exact: boolean; detail: string }> {
  const deadline = Date.now() + BILLING_WAIT_MS;
  const Database = await loadSqliteDriver();
  for (;;) {
    const db = new Database(dbFile, { readonly: true });
    const logs = db.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(quota), 0) AS sum FROM logs WHERE type = 2').get() as {
      n: number;
      sum: number;
    };
    const user = db.prepare('SELECT quota, used_quota FROM users WHERE id = 1').get() as {
      quota: number;
      used_quota: number;
    };
    db.close();
    if (logs.n >= calls || Date.now() > deadline) {
      const exact = logs.n === calls && user.used_quota === logs.sum && user.quota === startQuota - logs.sum;
      return {
        logs: logs.n,
        exact,
        detail: `${logs.n} logs, Σ ${logs.sum}; balance ${user.quota} of ${startQuota}, used ${user.used_quota}`,
      };
    }
    await sleep(POLL_MS);
  }
}

const startQuotaOf = async (dbFile: string): Promise<number> => {
  const db = new (await loadSqliteDriver())(dbFile, { readonly: true });
  const u = db.prepare('SELECT quota FROM users WHERE id = 1').get() as { quota: number };
  db.close();
  return u.quota;
};

function checkFdLimit(needed: number): void {
  const limit = Number(execFileSync('sh', ['-c', 'ulimit -n']).toString().trim());
  if (limit < needed)
    throw new Error(
      `ulimit -n is ${limit}; this row needs about ${needed} open files per process (raise it: ulimit -n ${needed})`,
    );
}

/** `n` streamed calls to `t` started evenly over RAMP_MS, all read to their end. */
function rampedStreams(client: Agent, t: Target, n: number): Promise<StreamResult[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      await sleep((i * RAMP_MS) / n);
      return streamCall(client, t);
    }),
  );
}

const newClient = () =>
  new Agent({
    connections: null,
    pipelining: 1,
    headersTimeout: CLIENT_TIMEOUT_MS,
    bodyTimeout: CLIENT_TIMEOUT_MS,
    connect: { timeout: CLIENT_TIMEOUT_MS },
  });
const firstBytes = (results: StreamResult[]) => results.filter((r) => r.firstMs > 0).map((r) => r.firstMs);

/**
 * The same ramp of streams straight to a fresh mock: what the client and the mock themselves cost on this machine
 * (they share its cores with Tollway), to read Tollway's own part of the first byte's p99.
 */
async function directFirstBytes(n: number): Promise<number[]> {
  const { url } = await startStreamMockProc(STREAM_CHUNKS, STREAM_CHUNK_MS);
  const client = newClient();
  const target: Target = { name: 'direct', url, path: '/v1/chat/completions', headers: {} };
  await Promise.all(Array.from({ length: WARMUP_STREAMS }, () => streamCall(client, target)));
  const results = await rampedStreams(client, target, n);
  await client.close();
  await stopAll();
  return firstBytes(results);
}

async function concurrencyRows(): Promise<string[]> {
  const rows = [
    `| Concurrent 10 s streams (started over ${RAMP_MS / 1000} s) | first byte p50 / p99 ms | one stream alone ms | p99 over one stream ms | direct to the mock, same streams: p50 / p99 ms | p99 over direct ms | CPU while they start, % of a core: Tollway / mock / client | Tollway CPU per stream ms | completed | peak RSS MB | billing |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const n of SCALES) {
    checkFdLimit(n * FDS_PER_STREAM + FD_SPARE);
    const mock = await startStreamMockProc(STREAM_CHUNKS, STREAM_CHUNK_MS);
    const tw = await tollwayOn(mock.url);
    const startQuota = await startQuotaOf(tw.db);
    const client = newClient();
    await Promise.all(Array.from({ length: WARMUP_STREAMS }, () => streamCall(client, tw.target)));
    const singles: number[] = [];
    for (let i = 0; i < SINGLES; i++) singles.push((await streamCall(client, tw.target)).firstMs);
    const alone = percentile(singles, 50);
    const rss = new RssSampler(tw.pid);
    // CPU of each process while the streams start (Tollway, the mock, this client), and Tollway's per stream.
    const cpu = new CpuMeter([tw.pid, mock.pid, process.pid]);
    const rampCpu = new Promise<number[]>((r) => setTimeout(() => r(cpu.stop()), RAMP_MS));
    const cpuBefore = processCpuSeconds(tw.pid);
    const results = await rampedStreams(client, tw.target, n);
    const cpuPerStreamMs = ((processCpuSeconds(tw.pid) - cpuBefore) * 1000) / n;
    const rampUse = (await rampCpu).map((u) => u.toFixed(0)).join(' / ');
    const peak = rss.stop();
    await client.close();
    const firsts = firstBytes(results);
    const completed = results.filter((r) => r.complete).length;
    const bill = await billing(tw.db, WARMUP_STREAMS + SINGLES + n, startQuota);
    await stopAll();
    const direct = await directFirstBytes(n);
    const p99 = percentile(firsts, 99);
    const directP99 = percentile(direct, 99);
    rows.push(
      `| ${n} | ${percentile(firsts, 50).toFixed(1)} / ${p99.toFixed(1)} | ${alone.toFixed(1)} | ${(p99 - alone).toFixed(1)} | ${percentile(direct, 50).toFixed(1)} / ${directP99.toFixed(1)} | ${(p99 - directP99).toFixed(1)} | ${rampUse} | ${cpuPerStreamMs.toFixed(2)} | ${completed} of ${n} | ${mb(peak)} | ${bill.exact ? 'exact' : 'NOT exact'} (${bill.detail}) |`,
    );
    console.log(rows.at(-1));
  }
  return rows;
}

async function idleRow(): Promise<string[]> {
  checkFdLimit(IDLE + FD_SPARE);
  const mock = await startStreamMockProc(STREAM_CHUNKS, STREAM_CHUNK_MS);
  const tw = await tollwayOn(mock.url);
  await sleep(IDLE_SETTLE_MS);
  const before = rssOf(tw.pid);
  // Raw keep-alive connections: one call each (its answer read), then left open and idle.
  const url = new URL(tw.target.url);
  const request = `GET /v1/models HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: ${tw.target.headers.authorization}\r\n\r\n`;
  const sockets: net.Socket[] = [];
  let open = 0;
  const one = () =>
    new Promise<number>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write(request));
      sockets.push(socket);
      socket.once('data', (d: Buffer) => {
        open++;
        socket.once('close', () => open--);
        resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(d.toString('latin1'))?.[1] ?? 0));
      });
      socket.on('error', () => resolve(0));
    });
  // Opened in batches, so that RSS reads the connections rather than a burst's garbage.
  const statuses: number[] = [];
  for (let i = 0; i < IDLE; i += IDLE_BATCH)
    statuses.push(...(await Promise.all(Array.from({ length: Math.min(IDLE_BATCH, IDLE - i) }, one))));
  const opened = rssOf(tw.pid);
  await sleep(IDLE_SETTLE_MS);
  const after = rssOf(tw.pid);
  const stillOpen = open;
  for (const socket of sockets) socket.destroy();
  await stopAll();
  return [
    '| Idle keep-alive client connections | answered 200 | still open after idling | RSS idle before / just opened / idle with them MB | per connection KB |',
    '|---|---|---|---|---|',
    `| ${IDLE} | ${statuses.filter((s) => s === 200).length} | ${stillOpen} (${IDLE_SETTLE_MS / 1000} s) | ${mb(before)} / ${mb(opened)} / ${mb(after)} | ${((after - before) / 1024 / Math.max(stillOpen, 1)).toFixed(1)} |`,
  ];
}

async function longRow(): Promise<string[]> {
  const mock = await startStreamMockProc(LONG_CHUNKS, LONG_CHUNK_MS);
  const tw = await tollwayOn(mock.url);
  const startQuota = await startQuotaOf(tw.db);
  const client = new Agent({ headersTimeout: CLIENT_TIMEOUT_MS, bodyTimeout: CLIENT_TIMEOUT_MS });
  const rss = new RssSampler(tw.pid);
  const t0 = performance.now();
  const r = await streamCall(client, tw.target);
  const seconds = (performance.now() - t0) / 1000;
  rss.stop();
  await client.close();
  const bill = await billing(tw.db, 1, startQuota);
  await stopAll();
  // RSS at each tenth of the stream; flat means the last tenths are no higher than the second.
  const s = rss.samples;
  const tenth = (i: number) => s[Math.min(s.length - 1, Math.floor((i / 10) * s.length))]!.rss;
  const tenths = Array.from({ length: 10 }, (_, i) => mb(tenth(i + 1)));
  return [
    '| Long stream | chunks, apart | lasted s | completed | RSS at each tenth MB | billing |',
    '|---|---|---|---|---|---|',
    `| one stream | ${LONG_CHUNKS}, ${LONG_CHUNK_MS} ms | ${seconds.toFixed(0)} | ${r.complete ? 'yes' : 'NO'} | ${tenths.join(' ')} | ${bill.exact ? 'exact' : 'NOT exact'} (${bill.detail}) |`,
  ];
}

async function stopAll(): Promise<void> {
  // SCALE_DUMP_OUTPUT: a file for what the processes printed (with SCALE_TOLLWAY_NODE_ARGS=--trace-gc, the pauses).
  if (process.env.SCALE_DUMP_OUTPUT)
    fs.appendFileSync(process.env.SCALE_DUMP_OUTPUT, procs.map((p) => p.output()).join('\n'));
  await Promise.all(procs.splice(0).map((p) => p.stop()));
}

async function main() {
  const parts: string[][] = [];
  if (!only || only === 'concurrency') parts.push(await concurrencyRows());
  if (!only || only === 'idle') parts.push(await idleRow());
  if (!only || only === 'long') parts.push(await longRow());
  if (!only || only === 'h2') parts.push(h2Table(await h2Rows()));
  const date = new Date().toISOString().slice(0, 10);
  const cpu = `${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length}`;
  const report = [
    `## ${date} — scale: concurrent streams, idle connections, a long stream${only ? ` (${only} only)` : ''}`,
    '',
    `Machine: ${cpu}, Node ${process.version}. Mock, Tollway (SQLite) and the client run as separate processes; RSS is Tollway's.`,
    '',
    ...parts.flatMap((p) => [...p, '']),
  ].join('\n');
  console.log(`\n${report}`);
  if (!record) return;
  const file = path.join(ROOT, 'bench/RESULTS.md');
  const head = fs.readFileSync(file, 'utf8');
  const [title, ...rest] = head.split('\n\n');
  fs.writeFileSync(
    file,
    `${title}\n\n${rest[0] ?? ''}\n\n${report}\n${rest.slice(1).join('\n\n')}`.replace(/\n{3,}/g, '\n\n'),
  );
}

try {
  await main();
} finally {
  await stopAll();
}

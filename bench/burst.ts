// A burst: BURST_STREAMS (default 1000) streamed calls opened in the same instant (a batch job, a retry storm), each
// read to its end, against the streaming mock directly, through the bare Node.js proxy and through Tollway (SQLite,
// full auth, billing and logging), each target on a fresh mock: first byte p50 / p99 of each, and Tollway's over the
// direct run's. `node --import tsx bench/burst.ts [direct|floor|tollway ...]` runs some targets only;
// BURST_TOLLWAY_NODE_ARGS adds node options to Tollway's process (`--cpu-prof --cpu-prof-dir=/tmp/prof`), and
// BURST_TOLLWAY_ENV (`NAME=value,...`) settings; BURST_DUMP_OUTPUT names a file for the proxy's output.
// `direct-h2` and `tollway-h2` run the same burst against the mock over TLS with HTTP/2 (as providers' APIs offer):
// direct, the client's streams multiplexed over BURST_H2_CONNECTIONS connections; through Tollway, its upstream
// agent in HTTP/2 under that connection limit (RELAY_HTTP2_ENABLED, RELAY_MAX_CONNS_PER_HOST), the client still
// opening a plain HTTP/1.1 connection a stream to Tollway.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { createUpstreamAgent } from '../packages/server/src/relay/upstream/agent.js';
import { makeSelfSignedCert } from '../packages/server/test/support/self-signed-cert.js';
import { processCpuSplit, type Target } from './measure.js';
import { percentile } from './scale-measure.js';
import { startFloorProxy, startTollway } from './targets.js';
import { startStreamMock, streamCall } from './streams.js';

export const BURST_STREAMS = Number(process.env.BURST_STREAMS ?? 1000);
/** Streams run first, on connections closed before the burst (JIT, pools). */
const WARMUP = Number(process.env.BURST_WARMUP ?? 100);
/** Warm-up rounds, each on new connections; and a pause after them (idle before the burst). */
const WARMUP_ROUNDS = Number(process.env.BURST_WARMUP_ROUNDS ?? 1);
const IDLE_BEFORE_MS = Number(process.env.BURST_IDLE_BEFORE_MS ?? 0);
/** Bursts measured one after the other on the same processes; the last is reported. */
const ROUNDS = Number(process.env.BURST_ROUNDS ?? 1);
/** Chunks of each stream and the gap between them: the streams stay open past the burst's first bytes. */
const CHUNKS = 3;
const CHUNK_MS = 1000;
const CLIENT_TIMEOUT_MS = 120_000;
const NODE_ARGS = (process.env.BURST_TOLLWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** HTTP/2 connections to the TLS mock (direct and Tollway's upstream): the mock allows 100 streams on each. */
const H2_CONNECTIONS = Number(process.env.BURST_H2_CONNECTIONS ?? 16);
const EXTRA_ENV = Object.fromEntries(
  (process.env.BURST_TOLLWAY_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

export interface BurstResult {
  p50: number;
  p99: number;
  completed: number;
  /** CPU ms the proxy (pid given) spent per stream from the burst's start to its last first byte, in all and in the kernel. */
  cpuPerStartMs?: number;
  kernelPerStartMs?: number;
}

/** The client's connections to the target: plain HTTP/1.1, a connection a stream, unless the caller brings its own. */
const plainClient = (): Agent =>
  new Agent({
    connections: null,
    pipelining: 1,
    headersTimeout: CLIENT_TIMEOUT_MS,
    bodyTimeout: CLIENT_TIMEOUT_MS,
    connect: { timeout: CLIENT_TIMEOUT_MS },
  });

/**
 * Warms `t` up with WARMUP streams, then opens BURST_STREAMS at once on fresh connections (each round and the burst
 * a new client from `makeClient`).
 */
export async function burst(t: Target, pid?: number, makeClient: () => Agent = plainClient): Promise<BurstResult> {
  for (let i = 0; i < WARMUP_ROUNDS; i++) {
    const warm = makeClient();
    await Promise.all(Array.from({ length: WARMUP }, () => streamCall(warm, t)));
    await warm.close();
  }
  if (IDLE_BEFORE_MS) await new Promise((r) => setTimeout(r, IDLE_BEFORE_MS));
  const client = makeClient();
  let firsts = 0;
  const noCpu = { user: 0, system: 0 };
  let cpuAtLast = noCpu;
  const cpuAtStart = pid ? processCpuSplit(pid) : noCpu;
  const onFirst = () => {
    if (++firsts === BURST_STREAMS && pid) cpuAtLast = processCpuSplit(pid);
  };
  const results = await Promise.all(Array.from({ length: BURST_STREAMS }, () => streamCall(client, t, onFirst)));
  await client.close();
  const firstMs = results.filter((r) => r.firstMs > 0).map((r) => r.firstMs);
  return {
    p50: percentile(firstMs, 50),
    p99: percentile(firstMs, 99),
    completed: results.filter((r) => r.complete).length,
    cpuPerStartMs: pid
      ? ((cpuAtLast.user + cpuAtLast.system - cpuAtStart.user - cpuAtStart.system) * 1000) / BURST_STREAMS
      : undefined,
    kernelPerStartMs: pid ? ((cpuAtLast.system - cpuAtStart.system) * 1000) / BURST_STREAMS : undefined,
  };
}

export type BurstKind = 'direct' | 'floor' | 'tollway' | 'direct-h2' | 'tollway-h2';

/**
 * The burst against one kind of target, each on its own fresh mock: `rounds` bursts one after the other on the same
 * processes (the first after the warm-up, the later ones on a node that has compiled its path), the last reported.
 */
export async function burstOf(kind: BurstKind, rounds = ROUNDS): Promise<BurstResult> {
  const h2 = kind.endsWith('-h2');
  const certDir = h2 ? fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-burst-')) : undefined;
  const cert = certDir ? makeSelfSignedCert(certDir) : undefined;
  const mock = await startStreamMock(CHUNKS, CHUNK_MS, cert);
  const procs = [mock.proc];
  const measure = async (t: Target, pid?: number, makeClient?: () => Agent) => {
    let result = await burst(t, pid, makeClient);
    for (let i = 1; i < rounds; i++) {
      console.log(
        `  ${kind} round ${i}: p50 ${result.p50.toFixed(1)} / p99 ${result.p99.toFixed(1)} ms${result.cpuPerStartMs === undefined ? '' : `, ${result.cpuPerStartMs.toFixed(3)} CPU ms per start`}`,
      );
      result = await burst(t, pid, makeClient);
    }
    return result;
  };
  try {
    const direct = { name: 'direct', url: mock.url, path: '/v1/chat/completions', headers: {} };
    if (kind === 'direct') return await measure(direct);
    if (kind === 'direct-h2') {
      const ca = fs.readFileSync(cert!.certFile, 'utf8');
      // Tollway's own upstream agent: undici's plain one keeps a stream per connection (its pipelining) over HTTP/2.
      const h2Client = () =>
        createUpstreamAgent({
          bodyTimeoutMs: CLIENT_TIMEOUT_MS,
          headersTimeoutMs: CLIENT_TIMEOUT_MS,
          connections: { maxConnsPerHost: H2_CONNECTIONS, http2: true },
          tls: { ca },
        });
      return await measure(direct, undefined, h2Client);
    }
    const env = h2
      ? {
          ...EXTRA_ENV,
          NODE_EXTRA_CA_CERTS: cert!.certFile,
          RELAY_HTTP2_ENABLED: 'true',
          RELAY_MAX_CONNS_PER_HOST: String(H2_CONNECTIONS),
        }
      : EXTRA_ENV;
    const started =
      kind === 'floor' ? await startFloorProxy(mock.url) : await startTollway(mock.url, NODE_ARGS, undefined, env);
    procs.push(started.proc);
    const result = await measure(started.target, started.proc.child.pid);
    if (process.env.BURST_DUMP_OUTPUT) fs.writeFileSync(process.env.BURST_DUMP_OUTPUT, started.proc.output());
    return result;
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
    // The mock's private key and certificate are not left behind.
    if (certDir) fs.rmSync(certDir, { recursive: true, force: true });
  }
}

if (import.meta.filename === process.argv[1]) {
  const kinds = process.argv.slice(2).length ? process.argv.slice(2) : ['direct', 'floor', 'tollway'];
  for (const kind of kinds) {
    const r = await burstOf(kind as BurstKind);
    const cpu =
      r.cpuPerStartMs === undefined
        ? ''
        : `, ${r.cpuPerStartMs.toFixed(3)} CPU ms per start (kernel ${r.kernelPerStartMs!.toFixed(3)})`;
    console.log(
      `${kind}: first byte p50 ${r.p50.toFixed(1)} / p99 ${r.p99.toFixed(1)} ms, ${r.completed} of ${BURST_STREAMS} completed${cpu}`,
    );
  }
}

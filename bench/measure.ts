import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { Pool } from 'undici';

export interface Target {
  name: string;
  url: string;
  path: string;
  headers: Record<string, string>;
}

export interface Throughput {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Requests per second over `seconds` with `connections` keep-alive connections (autocannon). */
export async function throughput(t: Target, body: string, connections: number, seconds: number): Promise<Throughput> {
  const r = await autocannon({
    url: t.url + t.path,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...t.headers },
    body,
    connections,
    duration: seconds,
    pipelining: 1,
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/**
 * Latency over one keep-alive connection, sequential requests, measured in-process with hrtime (sub-ms
 * resolution). `firstByte`: time to the first body chunk instead of the whole answer. `body` may be a function of
 * the call's number (each call its own request).
 */
export async function sequentialLatency(
  t: Target,
  body: string | ((i: number) => string),
  n: number,
  firstByte: boolean,
): Promise<{ p50: number; p90: number }> {
  const pool = new Pool(t.url, { connections: 1, pipelining: 1 });
  const times: number[] = [];
  try {
    for (let i = 0; i < n + 100; i++) {
      const t0 = process.hrtime.bigint();
      const res = await pool.request({
        method: 'POST',
        path: t.path,
        headers: { 'content-type': 'application/json', ...t.headers },
        body: typeof body === 'string' ? body : body(i),
      });
      let first = 0n;
      for await (const _chunk of res.body) {
        if (!first) first = process.hrtime.bigint();
      }
      const end = process.hrtime.bigint();
      if (res.statusCode !== 200) throw new Error(`${t.name}: HTTP ${res.statusCode}`);
      if (i >= 100) times.push(Number((firstByte ? first : end) - t0) / 1e6);
    }
  } finally {
    await pool.close();
  }
  return { p50: percentile(times, 50), p90: percentile(times, 90) };
}

/**
 * Added latency of `gateway` over `direct` at one connection: `rounds` alternating rounds of `n` sequential calls
 * each, so a load change on the machine hits both sides alike; the median of the per-round p50 differences.
 */
export async function addedLatency(
  gateway: Target,
  direct: Target,
  body: string,
  firstByte: boolean,
  rounds: number,
  n: number,
): Promise<{ added: number; gatewayP50: number; directP50: number }> {
  const diffs: number[] = [];
  const gw: number[] = [];
  const dm: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const d = await sequentialLatency(direct, body, n, firstByte);
    const g = await sequentialLatency(gateway, body, n, firstByte);
    diffs.push(g.p50 - d.p50);
    gw.push(g.p50);
    dm.push(d.p50);
  }
  return { added: percentile(diffs, 50), gatewayP50: percentile(gw, 50), directP50: percentile(dm, 50) };
}

/** CPU seconds used so far by a process (user + system, from /proc). */
export function processCpuSeconds(pid: number): number {
  const { user, system } = processCpuSplit(pid);
  return user + system;
}

/** CPU seconds used so far by a process in user space and in the kernel (from /proc). */
export function processCpuSplit(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

/** CPU milliseconds the process spends per request under a steady load of `connections`. */
export async function cpuPerRequest(
  t: Target,
  body: string,
  pid: number,
  connections: number,
  seconds: number,
): Promise<{ cpuMs: number; rps: number }> {
  const before = processCpuSeconds(pid);
  const r = await autocannon({
    url: t.url + t.path,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...t.headers },
    body,
    connections,
    duration: seconds,
  });
  const cpu = processCpuSeconds(pid) - before;
  return { cpuMs: (cpu * 1000) / Math.max(1, r.requests.total), rps: r.requests.average };
}

/** One side of a CPU comparison: calls with `body` to `target`, whose process `pid` is measured. */
export interface CpuSide {
  target: Target;
  body: string;
  pid: number;
}

/**
 * CPU per request of `b` over `a` (one process or two): `rounds` alternating runs of `seconds` each at
 * `connections`, so drift in the machine's speed hits both alike; the median per-round ratio, each round's ratio and
 * the median CPU of each.
 */
export async function cpuRatio(
  a: CpuSide,
  b: CpuSide,
  rounds: number,
  seconds: number,
  connections = 16,
): Promise<{ ratio: number; ratios: number[]; aMs: number; bMs: number }> {
  const ratios: number[] = [];
  const as: number[] = [];
  const bs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const x = await cpuPerRequest(a.target, a.body, a.pid, connections, seconds);
    const y = await cpuPerRequest(b.target, b.body, b.pid, connections, seconds);
    ratios.push(y.cpuMs / x.cpuMs);
    as.push(x.cpuMs);
    bs.push(y.cpuMs);
  }
  return { ratio: percentile(ratios, 50), ratios, aMs: percentile(as, 50), bMs: percentile(bs, 50) };
}

// HTTP/1.1 against HTTP/2 to an upstream, through the relay's own upstream agent (relay/upstream/agent.ts): many
// concurrent streams to a TLS mock that offers both (bench/stream-mock-server.ts, self-signed certificate made here and
// trusted by this agent only). Per mode, in a fresh process: first-byte p50/p99, all streams' end, TLS connections
// opened, the client's peak RSS and CPU time. `node --import tsx bench/h2-upstream.ts` (H2_STREAMS, STREAM_MOCK_CHUNKS,
// STREAM_MOCK_CHUNK_MS, STREAM_MOCK_MAX_STREAMS set the load); `npm run bench:scale` runs it with the other scale rows.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent } from 'undici';
import { createUpstreamAgent } from '../packages/server/src/relay/upstream/agent.js';
import { makeSelfSignedCert } from '../packages/server/test/support/self-signed-cert.js';
import { start, type Proc } from './procs.js';
import { percentile, RssSampler } from './scale-measure.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const STREAMS = Number(process.env.H2_STREAMS ?? 1000);
/** Connections per origin in each mode (0: no limit); HTTP/2 multiplexes only under a limit (see h2Rows). */
const MAX_CONNS = { h1: Number(process.env.H2_H1_MAX_CONNS ?? 0), h2: Number(process.env.H2_H2_MAX_CONNS ?? 10) };
const BODY = JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });

export interface H2Row {
  mode: 'HTTP/1.1' | 'HTTP/2';
  maxConnsPerHost: number;
  streams: number;
  completed: number;
  firstByteP50: number;
  firstByteP99: number;
  allEndedS: number;
  tlsConnections: number;
  peakRssMb: number;
  cpuS: number;
}

async function stats(url: string, ca: string): Promise<{ connections: number }> {
  const a = new Agent({ connect: { ca } });
  try {
    const res = await a.request({ origin: url, path: '/stats', method: 'GET' });
    return (await res.body.json()) as { connections: number };
  } finally {
    await a.close();
  }
}

/** The client side of one mode (run in its own process): every stream at once, each read to its end. */
async function client(url: string, ca: string, http2: boolean, maxConnsPerHost: number): Promise<H2Row> {
  const agent = createUpstreamAgent({ bodyTimeoutMs: 120_000, connections: { maxConnsPerHost, http2 }, tls: { ca } });
  const before = await stats(url, ca);
  const rss = new RssSampler();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const firsts: number[] = [];
  let completed = 0;
  await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      const started = performance.now();
      const res = await agent.request({
        origin: url,
        path: '/v1/chat/completions',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: BODY,
      });
      let first = 0;
      let text = '';
      for await (const c of res.body) {
        if (!first) first = performance.now() - started;
        text += (c as Buffer).toString();
      }
      firsts.push(first);
      if (res.statusCode === 200 && text.endsWith('[DONE]\n\n')) completed++;
    }),
  );
  const allEndedS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const peak = rss.stop();
  const after = await stats(url, ca);
  await agent.close();
  return {
    mode: http2 ? 'HTTP/2' : 'HTTP/1.1',
    maxConnsPerHost,
    streams: STREAMS,
    completed,
    firstByteP50: percentile(firsts, 50),
    firstByteP99: percentile(firsts, 99),
    allEndedS,
    // Less the one connection each /stats call opens.
    tlsConnections: after.connections - before.connections - 1,
    peakRssMb: peak / 1024 / 1024,
    cpuS: (cpu.user + cpu.system) / 1e6,
  };
}

/**
 * Both modes, each in a fresh process against one mock. Without a connection limit undici opens a connection per
 * call that finds none free, before any TLS handshake has told it the upstream speaks HTTP/2: a burst of calls gets
 * as many connections in both modes. HTTP/2 is measured under a limit, where its connections carry many streams.
 */
export async function h2Rows(): Promise<H2Row[]> {
  const { keyFile: key, certFile: cert } = makeSelfSignedCert(fs.mkdtempSync(path.join(os.tmpdir(), 'tollway-h2-')));
  const mock = await start(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/stream-mock-server.ts')],
    { STREAM_MOCK_KEY: key, STREAM_MOCK_CERT: cert },
    /https:\/\/127\.0\.0\.1:\d+/,
  );
  const url = /https:\/\/127\.0\.0\.1:\d+/.exec(mock.output())![0];
  const rows: H2Row[] = [];
  try {
    for (const mode of ['h1', 'h2'] as const) {
      const p: Proc = await start(
        process.execPath,
        ['--import', 'tsx', import.meta.filename, '--client', mode],
        { H2_URL: url, H2_CA: cert, H2_CLIENT_MAX_CONNS: String(MAX_CONNS[mode]) },
        /^\{.*\}$/m,
        600_000,
      );
      rows.push(JSON.parse(/^\{.*\}$/m.exec(p.output())![0]) as H2Row);
      await p.stop();
    }
  } finally {
    await mock.stop();
  }
  return rows;
}

export function h2Table(rows: H2Row[]): string[] {
  return [
    '| Upstream protocol | connections per origin | streams | completed | first byte p50 / p99 ms | all ended s | TLS connections | client peak RSS MB | client CPU s |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.mode} | ${r.maxConnsPerHost || 'no limit'} | ${r.streams} | ${r.completed} | ${r.firstByteP50.toFixed(1)} / ${r.firstByteP99.toFixed(1)} | ${r.allEndedS.toFixed(2)} | ${r.tlsConnections} | ${r.peakRssMb.toFixed(0)} | ${r.cpuS.toFixed(2)} |`,
    ),
  ];
}

const at = process.argv.indexOf('--client');
if (at >= 0) {
  const row = await client(
    process.env.H2_URL!,
    fs.readFileSync(process.env.H2_CA!, 'utf8'),
    process.argv[at + 1] === 'h2',
    Number(process.env.H2_CLIENT_MAX_CONNS),
  );
  process.stdout.write(`${JSON.stringify(row)}\n`);
  // Wait to be stopped (the parent reads the line first).
  setInterval(() => undefined, 1000);
} else if (import.meta.filename === process.argv[1]) {
  console.log(h2Table(await h2Rows()).join('\n'));
}
